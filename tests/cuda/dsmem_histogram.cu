// dsmem_histogram: distributed-shared-memory histogram over a cluster of 2 CTAs (CUDA guide pattern): bins are split across the CTAs' dynamic shared memory, every thread does atomicAdd into the owning CTA's shared memory via cluster.map_shared_rank, then each CTA adds its slice to global bins. Launch: dsmem_histogram -g 4 -b 64 -s 128 -a s32[64]:zero -a s32:64 -a s32:32 -a s32[1000]:... -a u64:1000 -o 0 (cluster 2 from __cluster_dims__); see MANIFEST.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1)
dsmem_histogram(int* bins, int nbins, int bins_per_block, const int* input, size_t n)
{
    extern __shared__ int smem[];
    cg::cluster_group cluster = cg::this_cluster();
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
    cluster.sync();   // every CTA's bins are zeroed before anyone adds to them
    for (size_t i = tid; i < n; i += (size_t)blockDim.x * gridDim.x) {
        int binid = input[i];
        if (binid < 0) binid = 0;
        else if (binid >= nbins) binid = nbins - 1;
        int dst_block_rank = binid / bins_per_block;
        int dst_offset = binid % bins_per_block;
        int* dst_smem = cluster.map_shared_rank(smem, dst_block_rank);
        atomicAdd(dst_smem + dst_offset, 1);
    }
    cluster.sync();   // all remote updates done before reading, and before any CTA exits
    int* lbins = bins + cluster.block_rank() * bins_per_block;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
}
