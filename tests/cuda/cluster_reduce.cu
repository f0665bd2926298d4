// cluster_reduce: cluster-wide sum over 4 CTAs (__cluster_dims__(4,1,1)): per-CTA shared tree, cluster.sync(), rank 0 reads peers' partial sums through distributed shared memory and finishes with __reduce_add_sync; split barrier_arrive()/barrier_wait() before exit; also reads %clusterid/%cluster_ctarank/%cluster_nctarank. Launch: cluster_reduce -g 8 -b 128 -a s32[1024]:iota -a s32[2]:zero -a s32[8]:zero -o 1 -o 2.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_reduce(const int* in, int* out, int* info)
{
    __shared__ int partial[128];
    __shared__ int block_sum;
    cg::cluster_group cluster = cg::this_cluster();
    int t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) block_sum = partial[0];
    cluster.sync();
    unsigned cid, crank, cn;
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(crank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(cn));
    if (cluster.block_rank() == 0 && t < 32) {
        int v = (t < (int)cluster.num_blocks()) ? *cluster.map_shared_rank(&block_sum, t) : 0;
        v = __reduce_add_sync(0xffffffffu, v);
        if (t == 0) out[cid] = v;
    }
    if (t == 0) info[blockIdx.x] = (int)(cid * 100 + crank * 10 + cn);
    cluster.barrier_arrive();
    cluster.barrier_wait();
}
