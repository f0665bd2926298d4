// pipeline: cuda::pipeline with cuda::memcpy_async (cp.async): a per-thread pipeline (thread_scope_thread, cp.async 16-byte + wait_group) double-buffering int4 loads, and a block-scope 2-stage pipeline with pipeline_shared_state (mbarrier-based) where the whole block copies 1 KiB chunks. Launch: pipeline_thread -g 2 -b 64 -a s32[2048]:iota -a s32[128]:zero -a s32:4 -o 1 ; pipeline_block -g 2 -b 128 -a s32[2048]:iota -a s32[256]:zero -a s32:4 -o 1.
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Block b, thread t, iteration it loads int4 number (b*iters + it)*blockDim.x + t.
// out[b*blockDim.x + t] = sum over it of (x + 2y + 3z + 4w) * (it + 1).
extern "C" __global__ void pipeline_thread(const int4* in, int* out, int iters)
{
    __shared__ int4 buf[2][128];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int t = threadIdx.x;
    const int4* src = in + (size_t)blockIdx.x * iters * blockDim.x + t;
    int total = 0;
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[0][t], src, cuda::aligned_size_t<16>(sizeof(int4)), pipe);
    pipe.producer_commit();
    for (int it = 0; it < iters; ++it) {
        if (it + 1 < iters) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[(it + 1) & 1][t], src + (it + 1) * blockDim.x,
                               cuda::aligned_size_t<16>(sizeof(int4)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        int4 v = buf[it & 1][t];
        total += (v.x + 2 * v.y + 3 * v.z + 4 * v.w) * (it + 1);
        pipe.consumer_release();
    }
    out[blockIdx.x * blockDim.x + t] = total;
}

#define STAGES 2
#define CH 256   // ints per chunk

// Block b processes chunks c = 0..nchunks-1 of in[(b*nchunks + c)*256 ..]; thread t accumulates
// (chunk[t] + chunk[t+128]) * (c + 1). Requires blockDim.x == 128.
extern "C" __global__ void pipeline_block(const int* in, int* out, int nchunks)
{
    __shared__ alignas(16) int buf[STAGES][CH];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    cg::thread_block block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
    int t = threadIdx.x;
    const int* src = in + (size_t)blockIdx.x * nchunks * CH;
    int acc = 0;
    int fetch = 0;
    for (int c = 0; c < nchunks; ++c) {
        for (; fetch < nchunks && fetch < c + STAGES; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[fetch % STAGES], src + fetch * CH,
                               cuda::aligned_size_t<16>(CH * sizeof(int)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc += (buf[c % STAGES][t] + buf[c % STAGES][t + 128]) * (c + 1);
        pipe.consumer_release();
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
