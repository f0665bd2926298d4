// cg_cluster: thread block clusters via __cluster_dims__(2,1,1): cg::this_cluster(), cluster.sync(), block_rank(), num_blocks(), map_shared_rank() (distributed shared memory, mapa + ld.shared::cluster), dim_threads. Launch: cg_cluster -g 4 -b 64 -a s32[256]:zero -o 0 (cluster dims come from .reqnctapercluster; -c 2 is equivalent).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) cg_cluster(int* out)
{
    __shared__ int smem[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned t = threadIdx.x;
    smem[t] = (int)(rank * 1000 + blockIdx.x * 100 + t);
    cluster.sync();
    unsigned peer = (rank + 1) % cluster.num_blocks();
    int* remote = cluster.map_shared_rank(smem, peer);
    int v = remote[(t + 1) % blockDim.x];
    cluster.sync();                       // keep peers' shared memory alive until all reads are done
    out[blockIdx.x * blockDim.x + t] = v + (int)cluster.num_blocks() * 1000000 + (int)cluster.dim_threads().x * 10000000;
}
