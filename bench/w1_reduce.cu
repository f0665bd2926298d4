// W1 reduction: 256-thread CTAs, grid-stride load, shared-memory tree with
// __syncthreads, then a __shfl_down_sync final warp. out[blockIdx.x] is the
// CTA's sum (mod 2^32) of in[i] for every i with (i / 256) % gridDim.x == blockIdx.x.
__global__ void w1_reduce(const int *in, int *out, unsigned n)
{
    __shared__ int s[256];
    unsigned tid = threadIdx.x;
    int sum = 0;
    for (unsigned i = blockIdx.x * 256u + tid; i < n; i += gridDim.x * 256u)
        sum += in[i];
    s[tid] = sum;
    __syncthreads();
    for (unsigned k = 128; k >= 32; k >>= 1) {
        if (tid < k)
            s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid < 32) {
        int v = s[tid];
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}
