// warp_match_reduce: __match_any_sync grouping by key (leader of each group adds the group size), __match_all_sync, and the sm_80+ warp reductions __reduce_add_sync/__reduce_min_sync/__reduce_max_sync (signed and unsigned), __reduce_and_sync/__reduce_or_sync/__reduce_xor_sync. Launch: warp_match_reduce -g 1 -b 64 -a s32[64]:... -a s32[8]:zero -a u32[640]:zero -o 1 -o 2; see MANIFEST.
extern "C" __global__ void warp_match_reduce(const int* keys, int* key_counts, unsigned* out)
{
    const unsigned FULL = 0xffffffffu;
    int tid = threadIdx.x;
    int lane = tid & 31;
    int k = keys[tid];
    unsigned peers = __match_any_sync(FULL, k);
    int leader = __ffs(peers) - 1;
    if (lane == leader) atomicAdd(&key_counts[k & 7], __popc(peers));
    int pred;
    unsigned allm = __match_all_sync(FULL, k >> 3, &pred);   // all equal only if every key < 8
    unsigned* o = out + tid * 10;
    o[0] = peers;
    o[1] = allm;
    o[2] = (unsigned)pred;
    o[3] = (unsigned)__reduce_add_sync(FULL, k * lane);
    o[4] = (unsigned)__reduce_min_sync(FULL, k - lane);        // signed
    o[5] = (unsigned)__reduce_max_sync(FULL, k - 20);          // signed
    o[6] = __reduce_min_sync(FULL, (unsigned)(k * 7 + lane));  // unsigned
    o[7] = __reduce_and_sync(FULL, (unsigned)k | 0xF0u);
    o[8] = __reduce_or_sync(FULL, 1u << (k & 31));
    o[9] = __reduce_xor_sync(FULL, (unsigned)(k * 2654435761u));
}
