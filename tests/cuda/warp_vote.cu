// warp_vote: __ballot_sync + __popc, __all_sync, __any_sync, __activemask inside a divergent branch, vote with a partial member mask, __ffs of a ballot. Launch: warp_vote -g 1 -b 64 -a s32[64]:... -a u32[384]:zero -o 1 (6 results per thread); see MANIFEST.
extern "C" __global__ void warp_vote(const int* in, unsigned* out)
{
    const unsigned FULL = 0xffffffffu;
    int tid = threadIdx.x;
    int lane = tid & 31;
    int v = in[tid];
    unsigned ballot = __ballot_sync(FULL, v > 0);
    int cnt = __popc(ballot);
    int all = __all_sync(FULL, v > -100);
    int any = __any_sync(FULL, v > 50);
    unsigned active = 0;
    if (lane % 3 == 0) {
        active = __activemask();          // lanes 0,3,...,30 if the branch is executed convergently
    }
    unsigned partial = 0;
    if (lane < 16) {
        partial = __ballot_sync(0x0000ffffu, v & 1);   // only the low half votes
    }
    unsigned* o = out + tid * 6;
    o[0] = ballot;
    o[1] = (unsigned)cnt;
    o[2] = (unsigned)(all * 2 + any);
    o[3] = active;
    o[4] = partial;
    o[5] = (unsigned)__ffs(ballot) + ((unsigned)(__clz(ballot)) << 8);
}
