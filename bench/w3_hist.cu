// W3 histogram: bytes into 256 bins. Each CTA (256 threads) counts its
// grid-stride share in shared memory with shared atomics, then adds its bins
// to the global histogram with global atomics.
__global__ void w3_hist(const unsigned char *in, unsigned *hist, unsigned n)
{
    __shared__ unsigned s[256];
    unsigned tid = threadIdx.x;
    s[tid] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * 256u + tid; i < n; i += gridDim.x * 256u)
        atomicAdd(&s[in[i]], 1u);
    __syncthreads();
    if (s[tid])
        atomicAdd(&hist[tid], s[tid]);
}
