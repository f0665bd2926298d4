// W4 double-buffered producer/consumer pipeline with cuda::barrier and
// cp.async (cuda::memcpy_async): each CTA of 256 threads walks its tiles of
// 256 floats (tile t of CTA b is tile b + t * gridDim.x), copying tile t+1
// into one shared buffer while it consumes tile t from the other, and
// out[i] = 2 * in[i] + 1 for each element of the tile.
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
typedef cuda::barrier<cuda::thread_scope_block> barrier_t;

__global__ void w4_pipeline(const float *in, float *out, unsigned ntiles)
{
    __shared__ __align__(16) float buf[2][256];
    __shared__ barrier_t bar[2];
    auto block = cg::this_thread_block();
    unsigned tid = threadIdx.x;
    if (tid == 0) {
        init(&bar[0], blockDim.x);
        init(&bar[1], blockDim.x);
    }
    __syncthreads();
    unsigned t = blockIdx.x, k = 0;
    if (t < ntiles)
        cuda::memcpy_async(block, buf[0], in + (size_t)t * 256, sizeof(float) * 256, bar[0]);
    for (; t < ntiles; t += gridDim.x, k ^= 1) {
        unsigned next = t + gridDim.x;
        if (next < ntiles)
            cuda::memcpy_async(block, buf[k ^ 1], in + (size_t)next * 256, sizeof(float) * 256, bar[k ^ 1]);
        bar[k].arrive_and_wait();
        out[(size_t)t * 256 + tid] = 2.0f * buf[k][tid] + 1.0f;
        __syncthreads();   // buf[k] is refilled in the next-but-one iteration
    }
}
