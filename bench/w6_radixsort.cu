// W6 CUB BlockRadixSort: each CTA of 256 threads sorts its tile of 256 * 8
// unsigned 32-bit keys (blocked arrangement in and out); 2^20 keys = 512 tiles.
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

#define THREADS 256
#define ITEMS 8
__global__ void w6_radixsort(const unsigned *in, unsigned *out)
{
    typedef cub::BlockRadixSort<unsigned, THREADS, ITEMS> Sort;
    __shared__ typename Sort::TempStorage tmp;
    unsigned keys[ITEMS];
    size_t base = (size_t)blockIdx.x * THREADS * ITEMS;
    cub::LoadDirectBlocked(threadIdx.x, in + base, keys);
    Sort(tmp).Sort(keys);
    cub::StoreDirectBlocked(threadIdx.x, out + base, keys);
}
