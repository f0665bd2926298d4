// cuda_barrier: cuda::barrier<cuda::thread_scope_block> in shared memory (mbarrier): init, arrive_and_wait, split arrive()/wait(token) with work in between, arrive_and_drop over several phases (threads >= 96 drop out after phase 2). Launch: cuda_barrier -g 2 -b 128 -a s32[256]:iota -a s32[256]:zero -o 1.
#include <cuda/barrier>

extern "C" __global__ void cuda_barrier(const int* in, int* out)
{
    using barrier_t = cuda::barrier<cuda::thread_scope_block>;
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier_t bar;
    __shared__ int s[128];
    __shared__ int acc[128];
    int t = threadIdx.x;
    if (t == 0) init(&bar, blockDim.x);
    __syncthreads();

    // phase 0
    s[t] = in[blockIdx.x * blockDim.x + t];
    acc[t] = 0;
    bar.arrive_and_wait();

    // phase 1: split arrive / wait with independent work in between
    int mine = s[(t + 5) % 128];
    barrier_t::arrival_token tok = bar.arrive();
    int local = mine * 3;
    bar.wait(cuda::std::move(tok));
    s[t] = local;                         // safe: everyone read s before arriving
    bar.arrive_and_wait();

    // phase 2..5: threads >= 96 drop out after phase 2, expected count shrinks to 96
    for (int phase = 2; phase < 6; ++phase) {
        if (t >= 96 && phase == 3) {
            bar.arrive_and_drop();
            break;
        }
        acc[t] += s[(t + phase) % 96] + phase;
        bar.arrive_and_wait();
    }
    out[blockIdx.x * blockDim.x + t] = acc[t];
}
