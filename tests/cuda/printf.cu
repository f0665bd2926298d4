// printf: device printf (vprintf with a packed, aligned argument buffer). Launch: print_values -g 1 -b 4 -a f32[4]:0.5,1.25,-2,3.75 -a s32:4 -> lines "tid N value V"; print_mixed -g 2 -b 2 -a s64:-1234567890123 -> one line per thread with %d %u %lld %x %c %s %.3e %g.
#include <cstdio>

extern "C" __global__ void print_values(const float* v, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n)
        printf("tid %d value %f\n", tid, v[tid]);
}

extern "C" __global__ void print_mixed(long long big)
{
    unsigned tid = threadIdx.x;
    double d = 1.0 / (1 + blockIdx.x + tid);
    printf("block %d thread %u: %lld %x %c %s %.3e %g\n", (int)blockIdx.x, tid, big + tid,
           0xBEEF0000u + tid, 'A' + (int)tid, tid ? "odd" : "even", d, (float)tid * 0.5f);
}
