// basics.cu: <<<>>> launches (grid, block, dynamic shared memory, a struct by
// value), cudaMemcpy in every direction, errors and the last error, device
// properties against the attributes, versions; several kernels of one
// translation unit share one module (a __device__ counter survives them);
// an entry point not implemented says so once and returns cudaErrorNotSupported.
// STDERR-ONCE: ptxvm: cudaMallocArray is not implemented
#include "check.h"

struct Pair { int a; double b; };

__global__ void iota(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}

__global__ void scale(int *p, int n, Pair s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * s.a + (int)s.b;
}

// per-block sum through dynamic shared memory
__global__ void block_sum(const int *in, int *out) {
  extern __shared__ int sh[];
  int t = threadIdx.x;
  sh[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sh[t] += sh[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sh[0];
}

__device__ int calls;
__global__ void count_a() { atomicAdd(&calls, 1); }
__global__ void count_b(int *out) { *out = atomicAdd(&calls, 1) + 1; }
__global__ void empty() {}

int main() {
  int n = 1000, *d = nullptr, *sums = nullptr;
  OK(cudaFree(0));
  OK(cudaMalloc(&d, n * sizeof(int)));
  OK(cudaMalloc(&sums, 8 * sizeof(int)));
  iota<<<(n + 127) / 128, 128>>>(d, n);
  OK(cudaGetLastError());
  scale<<<(n + 255) / 256, 256>>>(d, n, Pair{3, 2.5});
  OK(cudaDeviceSynchronize());
  static int h[1000];
  OK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  bool good = true;
  for (int i = 0; i < n; i++) good = good && h[i] == 3 * i + 2;
  CHECK(good);

  // host to device, device to device, default (unified addressing), host to host
  for (int i = 0; i < 1024; i++) h[i % 1000] = i % 1000;
  int *d2 = nullptr;
  OK(cudaMalloc(&d2, 1024 * sizeof(int)));
  static int src[1024], back[1024];
  for (int i = 0; i < 1024; i++) src[i] = i;
  OK(cudaMemcpy(d2, src, sizeof src, cudaMemcpyHostToDevice));
  block_sum<<<8, 128, 128 * sizeof(int)>>>(d2, sums);
  int hs[8];
  OK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDefault));
  for (int b = 0; b < 8; b++) CHECK(hs[b] == 128 * 128 * b + 127 * 128 / 2);
  OK(cudaMemcpy(d, d2, 1000 * sizeof(int), cudaMemcpyDeviceToDevice));
  OK(cudaMemcpy(back, d, 1000 * sizeof(int), cudaMemcpyDefault));
  CHECK(back[999] == 999 && back[0] == 0);
  int x = 5, y = 0;
  OK(cudaMemcpy(&y, &x, sizeof x, cudaMemcpyHostToHost));
  CHECK(y == 5);
  OK(cudaMemset(d, 0xff, 8));
  OK(cudaMemcpy(back, d, 8, cudaMemcpyDeviceToHost));
  CHECK(back[0] == -1 && back[1] == -1);

  // one module: the counter is the same variable for both kernels
  count_a<<<2, 32>>>();
  int *one = nullptr, got = 0;
  OK(cudaMalloc(&one, sizeof(int)));
  count_b<<<1, 1>>>(one);
  OK(cudaMemcpy(&got, one, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == 65);

  // launch errors: returned, the last error, not sticky
  empty<<<1, 2048>>>();
  EXPECT(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
  EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
  OK(cudaGetLastError());
  empty<<<0, 1>>>();
  EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
  void *bad = nullptr;
  EXPECT(cudaLaunchKernel((const void *)&main, dim3(1), dim3(1), nullptr, 0, 0), cudaErrorInvalidDeviceFunction);
  OK(cudaLaunchKernel((const void *)empty, dim3(1), dim3(1), nullptr, 0, 0));
  EXPECT(cudaMalloc(&bad, (size_t)1 << 62), cudaErrorMemoryAllocation);
  EXPECT(cudaGetLastError(), cudaErrorMemoryAllocation);
  EXPECT(cudaFree((void *)0x10), cudaErrorInvalidValue);
  EXPECT(cudaMemcpy(h, d, 4, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
  cudaGetLastError();
  OK(cudaMalloc(&bad, 0));
  CHECK(bad == nullptr);
  CHECK(!strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress"));
  CHECK(!strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess"));
  CHECK(strlen(cudaGetErrorString(cudaErrorInvalidValue)) > 0);

  // devices: one, its properties as its attributes give them
  int count = 0, dev = -1, v = 0;
  OK(cudaGetDeviceCount(&count));
  CHECK(count == 1);
  OK(cudaSetDevice(0));
  EXPECT(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT(cudaGetLastError(), cudaErrorInvalidDevice);
  OK(cudaGetDevice(&dev));
  CHECK(dev == 0);
  cudaDeviceProp p;
  OK(cudaGetDeviceProperties(&p, 0));
  CHECK(p.major == 9 && p.minor == 0 && p.warpSize == 32 && p.maxThreadsPerBlock == 1024);
  OK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  CHECK(v == p.multiProcessorCount && v > 0);
  OK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CHECK((size_t)v == p.sharedMemPerBlockOptin);
  CHECK(p.totalGlobalMem > 0 && p.maxGridSize[0] == 2147483647 && p.maxThreadsDim[2] == 64);
  size_t fr = 0, tot = 0;
  OK(cudaMemGetInfo(&fr, &tot));
  CHECK(tot > 0 && fr <= tot);   // (each context sizes its memory when it starts)
  int rv = 0, dv = 0;
  OK(cudaRuntimeGetVersion(&rv));
  OK(cudaDriverGetVersion(&dv));
  CHECK(rv == CUDART_VERSION && dv >= 13000);
  cudaFuncAttributes fa;
  OK(cudaFuncGetAttributes(&fa, block_sum));
  CHECK(fa.maxThreadsPerBlock == 1024 && fa.ptxVersion == 90);
  OK(cudaFuncSetAttribute(block_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
  block_sum<<<1, 128, 100000>>>(d2, sums);
  OK(cudaGetLastError());
  size_t lim = 0;
  OK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 20));
  OK(cudaDeviceGetLimit(&lim, cudaLimitPrintfFifoSize));
  CHECK(lim == 1 << 20);
  // the driver's entry points through the runtime
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  OK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 13000, cudaEnableDefault, &q));
  CHECK(fn != nullptr && q == cudaDriverEntryPointSuccess);
  OK(cudaGetDriverEntryPointByVersion("cuNoSuchThing", &fn, 13000, cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSymbolNotFound);
  cudaArray_t arr;   // CUDA arrays are not implemented
  cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
  EXPECT(cudaMallocArray(&arr, &fmt, 16, 4), cudaErrorNotSupported);
  EXPECT(cudaMallocArray(&arr, &fmt, 16, 4), cudaErrorNotSupported);
  EXPECT(cudaGetLastError(), cudaErrorNotSupported);
  OK(cudaFree(d));
  OK(cudaFree(d2));
  OK(cudaDeviceReset());
  // a fresh context after the reset: the module is loaded again
  OK(cudaMalloc(&one, sizeof(int)));
  count_b<<<1, 1>>>(one);
  OK(cudaMemcpy(&got, one, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == 1);
  return finish();
}
