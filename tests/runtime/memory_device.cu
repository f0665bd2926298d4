// memory_device.cu: device memory through the runtime: cudaMalloc (0 bytes
// gives NULL), cudaMemset, cudaMemcpy in each direction and with
// cudaMemcpyDefault, the Async forms on a stream, cudaMallocAsync and
// cudaFreeAsync, cudaMemGetInfo; cudaPointerGetAttributes says
// cudaMemoryTypeDevice (no host pointer) for a buffer and a pointer inside
// it, cudaMemoryTypeUnregistered for host memory and freed memory; the
// errors for freeing what is not an allocation's start.
#include "check.h"

enum { N = 1000 };

__global__ void square(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= p[i];
}

static bool is_device(const void *p) {
  cudaPointerAttributes a;
  memset(&a, 0x5a, sizeof a);
  return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice && a.device == 0 &&
         a.devicePointer == p && a.hostPointer == nullptr;
}

static bool is_unregistered(const void *p) {
  cudaPointerAttributes a;
  memset(&a, 0x5a, sizeof a);
  return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeUnregistered &&
         a.devicePointer == nullptr;
}

int main() {
  int *z = (int *)1;
  OK(cudaMalloc(&z, 0));
  CHECK(z == nullptr);
  size_t free0 = 0, total = 0;
  OK(cudaMemGetInfo(&free0, &total));
  int *d = nullptr, *e = nullptr;
  OK(cudaMalloc(&d, N * sizeof(int)));
  OK(cudaMalloc(&e, N * sizeof(int)));
  size_t free1 = 0;
  OK(cudaMemGetInfo(&free1, &total));
  CHECK(free1 < free0 && free0 <= total);
  CHECK(is_device(d) && is_device(d + 17) && is_device(e));
  int h[N], back[N];
  CHECK(is_unregistered(h));
  // set, copy up, kernel, copy down
  OK(cudaMemset(d, 0xff, N * sizeof(int)));
  OK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
  CHECK(back[0] == -1 && back[N - 1] == -1);
  for (int i = 0; i < N; i++) h[i] = i - 500;
  OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  square<<<(N + 255) / 256, 256>>>(d, N);
  OK(cudaMemcpy(e, d, sizeof h, cudaMemcpyDeviceToDevice));
  OK(cudaMemcpy(back, e, sizeof back, cudaMemcpyDefault));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += back[i] != (i - 500) * (i - 500);
  CHECK(bad == 0);
  // Async forms, a stream-ordered allocation
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  int *a = nullptr;
  OK(cudaMallocAsync(&a, N * sizeof(int), s));
  CHECK(is_device(a));
  OK(cudaMemsetAsync(a, 0, N * sizeof(int), s));
  OK(cudaMemcpyAsync(a + 10, h + 10, 5 * sizeof(int), cudaMemcpyHostToDevice, s));
  OK(cudaMemcpyAsync(back, a, sizeof back, cudaMemcpyDefault, s));
  OK(cudaFreeAsync(a, s));
  OK(cudaStreamSynchronize(s));
  CHECK(back[9] == 0 && back[10] == -490 && back[14] == -486 && back[15] == 0);
  // frees
  EXPECT(cudaFree(d + 1), cudaErrorInvalidValue);
  OK(cudaFree(d));
  CHECK(is_unregistered(d));
  EXPECT(cudaFree(d), cudaErrorInvalidValue);
  OK(cudaFree(nullptr));
  OK(cudaFree(e));
  OK(cudaStreamDestroy(s));
  EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
  return finish();
}
