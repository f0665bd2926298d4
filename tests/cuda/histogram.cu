// histogram: 16-bin histogram of bytes (bin = v >> 4) with global atomics, and with per-block shared atomics merged by global atomicAdd; grid-stride. Launch: hist_global|hist_shared -g 4 -b 128 -a u8[1000]:... -a s32:1000 -a u32[16]:zero -o 2; see MANIFEST.
#define NBINS 16

extern "C" __global__ void hist_global(const unsigned char* data, int n, unsigned int* bins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i] >> 4], 1u);
}

extern "C" __global__ void hist_shared(const unsigned char* data, int n, unsigned int* bins)
{
    __shared__ unsigned int sbins[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) sbins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&sbins[data[i] >> 4], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        if (sbins[b]) atomicAdd(&bins[b], sbins[b]);
}
