// W5 cluster reduction through distributed shared memory: clusters of 4 CTAs
// of 256 threads. Each CTA reduces its grid-stride share (as W1: element i
// belongs to CTA (i / 256) % gridDim.x) into shared memory; after
// barrier.cluster (cluster.sync()) rank 0 adds the other CTAs' partial sums
// read through DSMEM (map_shared_rank); a second cluster.sync() keeps the
// peers' shared memory alive until then. out[cluster] is the cluster's sum mod 2^32.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(4, 1, 1) w5_cluster(const int *in, int *out, unsigned n)
{
    __shared__ int s[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned tid = threadIdx.x;
    int sum = 0;
    for (unsigned i = blockIdx.x * 256u + tid; i < n; i += gridDim.x * 256u)
        sum += in[i];
    s[tid] = sum;
    __syncthreads();
    for (unsigned k = 128; k > 0; k >>= 1) {
        if (tid < k)
            s[tid] += s[tid + k];
        __syncthreads();
    }
    cluster.sync();
    if (cluster.block_rank() == 0 && tid == 0) {
        int total = s[0];
        for (unsigned r = 1; r < cluster.num_blocks(); r++)
            total += *cluster.map_shared_rank(&s[0], r);
        out[blockIdx.x / 4] = total;
    }
    cluster.sync();
}
