// cub_block_reduce: cub::BlockReduce<int,128> Sum over 4 items per thread (default WARP_REDUCTIONS algorithm) and Reduce with cuda::maximum over one item per thread using BLOCK_REDUCE_RAKING. Launch: cub_block_reduce -g 2 -b 128 -a s32[1024]:iota -a s32[4]:zero -o 1 (per block: sum, max).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_load.cuh>
#include <cuda/functional>

extern "C" __global__ void cub_block_reduce(const int* in, int* out)
{
    using BR = cub::BlockReduce<int, 128>;
    using BRR = cub::BlockReduce<int, 128, cub::BLOCK_REDUCE_RAKING>;
    __shared__ typename BR::TempStorage tmp;
    __shared__ typename BRR::TempStorage tmp2;
    int items[4];
    cub::LoadDirectBlocked(threadIdx.x, in + blockIdx.x * 512, items);
    int sum = BR(tmp).Sum(items);
    int mx = BRR(tmp2).Reduce((items[0] * 37) % 501, cuda::maximum<int>{});
    if (threadIdx.x == 0) {
        out[blockIdx.x * 2] = sum;
        out[blockIdx.x * 2 + 1] = mx;
    }
}
