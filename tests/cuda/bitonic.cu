// bitonic: bitonic sorting network over 256 ints per block in shared memory, one element per thread, __syncthreads between stages; each block sorts its own 256-element segment ascending. Launch: bitonic_sort -g 2 -b 256 -a s32[512]:... -o 0 (literal list in MANIFEST).
#define N 256

extern "C" __global__ void bitonic_sort(int* data)
{
    __shared__ int s[N];
    unsigned tid = threadIdx.x;
    int* seg = data + blockIdx.x * N;
    s[tid] = seg[tid];
    __syncthreads();
    for (unsigned k = 2; k <= N; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned ixj = tid ^ j;
            if (ixj > tid) {
                bool up = (tid & k) == 0;
                int a = s[tid], b = s[ixj];
                if ((a > b) == up) {
                    s[tid] = b;
                    s[ixj] = a;
                }
            }
            __syncthreads();
        }
    }
    seg[tid] = s[tid];
}
