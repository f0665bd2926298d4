// sum.cu: the example of docs/tutorial.md: a per-CTA sum in shared memory,
// three buggy kernels, a kernel taking a struct, and a program (block_sum).
//   nvcc -arch=sm_90 -ptx -lineinfo -o sum.ptx sum.cu     (the kernels' PTX)
//   nvcc -arch=sm_90 -cudart shared -o sum sum.cu         (the program)
#include <cstdio>

// Each CTA of 256 threads sums its 256 elements of in (0 past n) and
// writes the sum to out[blockIdx.x].
__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float buf[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

// Bug: no barrier between the steps. A warp may read buf[t + s] before
// the warp that owns it has added to it: a data race.
__global__ void block_sum_race(const float *in, float *out, int n) {
  __shared__ float buf[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1)
    if (t < s) buf[t] += buf[t + s];
  if (t == 0) out[blockIdx.x] = buf[0];
}

// Bug: the shuffles name all 32 lanes (0xffffffff), but the lanes past n
// have returned; what they read from those lanes is undefined.
__global__ void warp_sum(const float *in, float *out, int n) {
  unsigned t = threadIdx.x;
  if (t >= n) return;
  float v = in[t];
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffff, v, off);
  if (t == 0) *out = v;
}

// Bug: thread 32 waits for a flag that thread 0 sets only after a barrier
// which thread 32 has to reach first.
__global__ void handoff(int *out) {
  __shared__ volatile int ready;
  unsigned t = threadIdx.x;
  if (t == 0) ready = 0;
  __syncthreads();
  if (t == 32)
    while (!ready) {}
  __syncthreads();
  if (t == 0) ready = 1;
  out[t] = t;
}

// A struct by value, as CuTe DSL passes each tensor: x.data[i] *= x.scale
// for i < x.n.
struct Vec {
  float *data;
  int n;
  float scale;
};
__global__ void scale(Vec x) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < x.n) x.data[i] *= x.scale;
}

int main() {
  const int n = 1024, ctas = n / 256;
  float host[n], sums[ctas];
  for (int i = 0; i < n; i++) host[i] = (float)i;
  float *in, *out;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, sizeof sums);
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  block_sum<<<ctas, 256>>>(in, out, n);
  cudaError_t err = cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    printf("error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  float total = 0;
  for (int c = 0; c < ctas; c++) total += sums[c];
  printf("sum of 0..%d = %.0f (%s)\n", n - 1, total, total == n * (n - 1) / 2.0f ? "right" : "WRONG");
  cudaFree(in);
  cudaFree(out);
  return total == n * (n - 1) / 2.0f ? 0 : 1;
}
