// warp_aggregated: stream compaction with warp-aggregated atomic increment (leader election with __ffs(__activemask()), one atomicAdd per warp, base broadcast with __shfl_sync, rank via __popc(mask & lanemask_lt)), and the same through cg::coalesced_threads(). Launch: filter_positive -g 1 -b 32 -a s32[100]:... -a s32[100]:zero -a s32[1]:zero -a s32:100 -o 1 -o 2 (a single warp keeps the output order deterministic); see MANIFEST.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ int atomic_agg_inc(int* ctr)
{
    unsigned mask = __activemask();
    int leader = __ffs(mask) - 1;
    int lane = threadIdx.x & 31;
    int base = 0;
    if (lane == leader) base = atomicAdd(ctr, __popc(mask));
    base = __shfl_sync(mask, base, leader);
    return base + __popc(mask & ((1u << lane) - 1));
}

extern "C" __global__ void filter_positive(const int* in, int* out, int* count, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int v = in[i];
        if (v > 0) out[atomic_agg_inc(count)] = v;
    }
}

extern "C" __global__ void filter_positive_cg(const int* in, int* out, int* count, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int v = in[i];
        if (v > 0) {
            cg::coalesced_group g = cg::coalesced_threads();
            int base = 0;
            if (g.thread_rank() == 0) base = atomicAdd(count, (int)g.size());
            base = g.shfl(base, 0);
            out[base + g.thread_rank()] = v;
        }
    }
}
