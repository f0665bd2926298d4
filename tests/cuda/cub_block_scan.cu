// cub_block_scan: cub::BlockLoad (warp-transpose) + cub::BlockScan<int,128> ExclusiveSum and InclusiveScan(max) over 4 items per thread + cub::BlockStore. Launch: cub_block_scan -g 2 -b 128 -a s32[1024]:... -a s32[1024]:zero -a s32[1024]:zero -o 1 -o 2; see MANIFEST.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda/functional>

extern "C" __global__ void cub_block_scan(const int* in, int* out_excl, int* out_incl_max)
{
    using Load = cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Scan = cub::BlockScan<int, 128>;
    using Store = cub::BlockStore<int, 128, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Scan::TempStorage scan;
        typename Store::TempStorage store;
    } tmp;
    int items[4], excl[4], imax[4];
    int base = blockIdx.x * 512;
    Load(tmp.load).Load(in + base, items);
    __syncthreads();
    int aggregate;
    Scan(tmp.scan).ExclusiveSum(items, excl, aggregate);
    __syncthreads();
    Scan(tmp.scan).InclusiveScan(items, imax, cuda::maximum<int>{});
    __syncthreads();
    Store(tmp.store).Store(out_excl + base, excl);
    __syncthreads();
    Store(tmp.store).Store(out_incl_max + base, imax);
}
