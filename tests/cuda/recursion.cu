// recursion: recursive factorial (u64) and Fibonacci through __noinline__ __device__ functions (real .func calls, call stack). Launch: recursion -g 1 -b 21 -a u64[21]:zero -a s32[21]:zero -a s32:21 -o 0 -o 1 (fact(0..20), fib(0..20)).
__device__ __noinline__ unsigned long long fact(int n)
{
    return n <= 1 ? 1ull : (unsigned long long)n * fact(n - 1);
}

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

extern "C" __global__ void recursion(unsigned long long* f, int* fibs, int n)
{
    int i = threadIdx.x;
    if (i < n) {
        f[i] = fact(i);
        fibs[i] = fib(i);
    }
}
