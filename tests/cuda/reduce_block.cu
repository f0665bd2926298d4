// reduce_block: per-block sum: shared-memory tree with __syncthreads down to 64 values, then the first warp finishes with __shfl_down_sync; block size must be a power of two >= 64 (max 1024). Launch: block_reduce_sum -g 4 -b 256 -a s32[1000]:iota -a s32[4]:zero -a s32:1000 -o 1 ; block_reduce_sum_f32 likewise with f32.
extern "C" __global__ void block_reduce_sum(const int* in, int* out, int n)
{
    __shared__ int sdata[1024];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s >= 64; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        int v = sdata[tid] + sdata[tid + 32];
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

extern "C" __global__ void block_reduce_sum_f32(const float* in, float* out, int n)
{
    __shared__ float sdata[1024];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s >= 64; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float v = sdata[tid] + sdata[tid + 32];
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (tid == 0) out[blockIdx.x] = v;
    }
}
