// cub_block_radix_sort: cub::BlockRadixSort<int,128,4> (keys only, signed keys, blocked arrangement) and <unsigned,128,4,int> key-value pairs sorted descending to a striped arrangement. Launch: cub_radix_sort_keys -g 2 -b 128 -a s32[1024]:... -o 0 ; cub_radix_sort_pairs -g 1 -b 128 -a u32[512]:... -a s32[512]:iota -o 0 -o 1; see MANIFEST.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

extern "C" __global__ void cub_radix_sort_keys(int* data)
{
    using Sort = cub::BlockRadixSort<int, 128, 4>;
    __shared__ typename Sort::TempStorage tmp;
    int keys[4];
    int* seg = data + blockIdx.x * 512;
    cub::LoadDirectBlocked(threadIdx.x, seg, keys);
    Sort(tmp).Sort(keys);
    cub::StoreDirectBlocked(threadIdx.x, seg, keys);
}

extern "C" __global__ void cub_radix_sort_pairs(unsigned* keys_io, int* vals_io)
{
    using Sort = cub::BlockRadixSort<unsigned, 128, 4, int>;
    __shared__ typename Sort::TempStorage tmp;
    unsigned keys[4];
    int vals[4];
    cub::LoadDirectBlocked(threadIdx.x, keys_io, keys);
    cub::LoadDirectBlocked(threadIdx.x, vals_io, vals);
    Sort(tmp).SortDescendingBlockedToStriped(keys, vals);
    cub::StoreDirectStriped<128>(threadIdx.x, keys_io, keys);
    cub::StoreDirectStriped<128>(threadIdx.x, vals_io, vals);
}
