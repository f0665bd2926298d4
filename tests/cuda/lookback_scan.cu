// lookback_scan: single-pass prefix sum with decoupled look-back (Merrill & Garland 2016, the scheme of CUB's DeviceScan): each CTA scans its tile, publishes its aggregate, then walks back over its predecessors' published words, spinning on a flag another CTA sets. scan_lookback_reverse gives CTA b the tile gridDim.x-1-b, so CTA 0 waits for every CTA started after it; scan_lookback_ticket takes tiles in start order from an atomic ticket, as CUB does. Launch: scan_lookback_reverse -g 8 -b 128 -a s32[1000]:... -a s32[1000]:zero -a s32:1000 -a u64[8]:zero -o 1 ; scan_lookback_ticket -g 32 -b 64 -a s32[2000]:... -a s32[2000]:zero -a s32:2000 -a u64[32]:zero -a u32[1]:zero -o 1 (inputs in MANIFEST).
#include <cuda/atomic>

// A tile's published word: flag in the high half, value in the low half.
enum : unsigned long long { FLAG_AGGREGATE = 1, FLAG_PREFIX = 2 };

__device__ static void publish(unsigned long long* word, unsigned long long flag, int value)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> a(*word);
    a.store(flag << 32 | (unsigned)value, cuda::memory_order_release);
}

__device__ static unsigned long long wait_published(unsigned long long* word)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> a(*word);
    unsigned long long w;
    while (((w = a.load(cuda::memory_order_acquire)) >> 32) == 0) {
    }
    return w;
}

// Inclusive scan of v over the CTA (blockDim.x a multiple of 32).
__device__ static int block_scan(int v)
{
    __shared__ int warp_sums[32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += t;
    }
    if (lane == 31) warp_sums[wid] = v;
    __syncthreads();
    if (wid == 0) {
        int s = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            int t = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += t;
        }
        warp_sums[lane] = s;
    }
    __syncthreads();
    return wid ? v + warp_sums[wid - 1] : v;
}

// The exclusive prefix of `tile`: its predecessors' aggregates, back to the
// first inclusive prefix published.
__device__ static int look_back(unsigned long long* status, int tile)
{
    int prefix = 0;
    for (int p = tile - 1; p >= 0; --p) {
        unsigned long long w = wait_published(&status[p]);
        prefix += (int)(unsigned)w;
        if (w >> 32 == FLAG_PREFIX) break;
    }
    return prefix;
}

__device__ static void scan_tile(const int* in, int* out, int n, unsigned long long* status, int tile)
{
    __shared__ int prefix_s;
    int i = tile * blockDim.x + threadIdx.x;
    int incl = block_scan(i < n ? in[i] : 0);
    if (threadIdx.x == blockDim.x - 1) {
        int prefix = 0;
        if (tile > 0) {
            publish(&status[tile], FLAG_AGGREGATE, incl);
            prefix = look_back(status, tile);
        }
        publish(&status[tile], FLAG_PREFIX, prefix + incl);
        prefix_s = prefix;
    }
    __syncthreads();
    if (i < n) out[i] = prefix_s + incl;
}

extern "C" __global__ void scan_lookback_reverse(const int* in, int* out, int n, unsigned long long* status)
{
    scan_tile(in, out, n, status, gridDim.x - 1 - blockIdx.x);
}

extern "C" __global__ void scan_lookback_ticket(const int* in, int* out, int n, unsigned long long* status,
                                                unsigned* ticket)
{
    __shared__ int tile_s;
    if (threadIdx.x == 0) tile_s = (int)atomicAdd(ticket, 1u);
    __syncthreads();
    scan_tile(in, out, n, status, tile_s);
}
