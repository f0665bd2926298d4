// sync_count: __syncthreads_count / __syncthreads_and / __syncthreads_or (bar.red.popc/and/or) with data-dependent predicates. Launch: sync_count -g 4 -b 128 -a s32[512]:iota -a s32[16]:zero -a s32:200 -o 1 (per block: count, and, or, count of even values).
extern "C" __global__ void sync_count(const int* in, int* out, int threshold)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int pred = v > threshold;
    int cnt = __syncthreads_count(pred);
    int all = __syncthreads_and(pred);
    int any = __syncthreads_or(pred);
    int even = __syncthreads_count((v & 1) == 0);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 4 + 0] = cnt;
        out[blockIdx.x * 4 + 1] = all;
        out[blockIdx.x * 4 + 2] = any;
        out[blockIdx.x * 4 + 3] = even;
    }
}
