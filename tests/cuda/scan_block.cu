// scan_block: per-block prefix sums in shared memory: Hillis-Steele inclusive scan (static double buffer) and Blelloch exclusive scan (extern __shared__, 2 items/thread, up-sweep/down-sweep). Launch: scan_inclusive -g 3 -b 128 -a s32[300]:iota -a s32[300]:zero -a s32:300 -o 1 ; scan_exclusive -g 2 -b 128 -s 1024 -a s32[500]:... -a s32[500]:zero -a s32:500 -o 1 (inputs in MANIFEST).
extern "C" __global__ void scan_inclusive(const int* in, int* out, int n)
{
    __shared__ int buf[2][1024];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;
    buf[pout][tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
        else
            buf[pout][tid] = buf[pin][tid];
        __syncthreads();
    }
    if (i < n) out[i] = buf[pout][tid];
}

// Each block scans 2*blockDim.x elements; dynamic shared memory must be 2*blockDim.x*sizeof(int).
extern "C" __global__ void scan_exclusive(const int* in, int* out, int n)
{
    extern __shared__ int temp[];
    int tid = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    temp[2 * tid]     = (base + 2 * tid < n) ? in[base + 2 * tid] : 0;
    temp[2 * tid + 1] = (base + 2 * tid + 1 < n) ? in[base + 2 * tid + 1] : 0;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset <<= 1;
    }
    if (tid == 0) temp[m - 1] = 0;
    for (int d = 1; d < m; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    if (base + 2 * tid < n) out[base + 2 * tid] = temp[2 * tid];
    if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = temp[2 * tid + 1];
}
