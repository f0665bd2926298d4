// memory_pinned.cu: page-locked host memory through the runtime:
// cudaMallocHost and cudaHostAlloc with each flag (default, portable,
// mapped, write-combined), cudaHostGetFlags giving them back,
// cudaHostGetDevicePointer (unified addressing: the same address) used by
// a kernel that writes host memory the host then reads without a copy,
// cudaMemcpy(Async) to and from pinned buffers; cudaPointerGetAttributes
// says cudaMemoryTypeHost with both pointers; the errors for bad flags and
// for memory that is not pinned.
#include <cstdlib>

#include "check.h"

enum { N = 256 };

__global__ void twice(const int *src, int *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = 2 * src[i];
}

static bool is_host(const void *p) {
  cudaPointerAttributes a;
  memset(&a, 0x5a, sizeof a);
  return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost && a.device == 0 &&
         a.hostPointer == p && a.devicePointer == p;
}

int main() {
  int *h = nullptr, *mapped = nullptr, *wc = nullptr, *port = nullptr;
  OK(cudaMallocHost(&h, N * sizeof(int)));
  OK(cudaHostAlloc(&mapped, N * sizeof(int), cudaHostAllocMapped));
  OK(cudaHostAlloc(&wc, N * sizeof(int), cudaHostAllocWriteCombined | cudaHostAllocMapped));
  OK(cudaHostAlloc(&port, N * sizeof(int), cudaHostAllocPortable));
  CHECK(is_host(h) && is_host(h + 100) && is_host(mapped) && is_host(wc) && is_host(port));
  unsigned flags = 99;
  OK(cudaHostGetFlags(&flags, h));
  CHECK(flags == cudaHostAllocDefault);
  OK(cudaHostGetFlags(&flags, mapped));
  CHECK(flags == cudaHostAllocMapped);
  OK(cudaHostGetFlags(&flags, wc));
  CHECK(flags == (cudaHostAllocWriteCombined | cudaHostAllocMapped));
  OK(cudaHostGetFlags(&flags, port));
  CHECK(flags == cudaHostAllocPortable);

  // a kernel reads and writes mapped memory through its device pointers
  for (int i = 0; i < N; i++) mapped[i] = i + 1;
  int *dsrc = nullptr, *ddst = nullptr;
  OK(cudaHostGetDevicePointer((void **)&dsrc, mapped, 0));
  OK(cudaHostGetDevicePointer((void **)&ddst, wc, 0));
  CHECK(dsrc == mapped && ddst == wc);
  twice<<<N / 64, 64>>>(dsrc, ddst, N);
  OK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < N; i++) bad += wc[i] != 2 * (i + 1);
  CHECK(bad == 0);

  // copies from and to pinned buffers, synchronous and on a stream
  int *d = nullptr;
  OK(cudaMalloc(&d, N * sizeof(int)));
  for (int i = 0; i < N; i++) h[i] = 7 * i;
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  OK(cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, s));
  twice<<<N / 64, 64, 0, s>>>(d, d, N);
  OK(cudaMemcpyAsync(port, d, N * sizeof(int), cudaMemcpyDeviceToHost, s));
  OK(cudaStreamSynchronize(s));
  bad = 0;
  for (int i = 0; i < N; i++) bad += port[i] != 14 * i;
  CHECK(bad == 0);
  OK(cudaMemcpy(h, port, 8 * sizeof(int), cudaMemcpyDefault));
  CHECK(h[7] == 98);

  // errors
  int *x = nullptr;
  EXPECT(cudaHostAlloc(&x, 64, 0x80), cudaErrorInvalidValue);
  int *plain = (int *)malloc(64);
  void *dp = nullptr;
  EXPECT(cudaHostGetDevicePointer(&dp, plain, 0), cudaErrorInvalidValue);
  EXPECT(cudaHostGetFlags(&flags, plain), cudaErrorInvalidValue);
  EXPECT(cudaFreeHost(plain), cudaErrorInvalidValue);
  EXPECT(cudaFreeHost(d), cudaErrorInvalidValue);   // device memory is not freed as host memory
  free(plain);
  OK(cudaFreeHost(h));
  OK(cudaFreeHost(mapped));
  OK(cudaFreeHost(wc));
  OK(cudaFreeHost(port));
  cudaPointerAttributes a;
  OK(cudaPointerGetAttributes(&a, port));
  CHECK(a.type == cudaMemoryTypeUnregistered);
  OK(cudaFree(d));
  OK(cudaStreamDestroy(s));
  return finish();
}
