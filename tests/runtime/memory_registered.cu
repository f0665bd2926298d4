// memory_registered.cu: the program's own memory registered with the
// runtime: cudaHostRegister of malloc'd and static memory (default,
// mapped, read-only), kernels that read and write it at its own address
// (cudaHostGetDevicePointer gives the same), cudaHostGetFlags, copies from
// it; cudaPointerGetAttributes says cudaMemoryTypeHost while registered and
// cudaMemoryTypeUnregistered after cudaHostUnregister; registering twice,
// unregistering what is not registered, and bad flags are errors.
#include <cstdlib>

#include "check.h"

enum { N = 512 };

__global__ void inc(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

__global__ void sum_into(const int *src, int *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i];
}

static int statics[N];

static cudaMemoryType type_of(const void *p) {
  cudaPointerAttributes a;
  memset(&a, 0, sizeof a);
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) return (cudaMemoryType)-1;
  if (a.type == cudaMemoryTypeHost && (a.hostPointer != p || a.devicePointer != p)) return (cudaMemoryType)-2;
  return a.type;
}

int main() {
  int *p = (int *)malloc(N * sizeof(int));
  for (int i = 0; i < N; i++) p[i] = i, statics[i] = 10 * i;
  CHECK(type_of(p) == cudaMemoryTypeUnregistered);
  OK(cudaHostRegister(p, N * sizeof(int), cudaHostRegisterDefault));
  OK(cudaHostRegister(statics, sizeof statics, cudaHostRegisterMapped | cudaHostRegisterReadOnly));
  CHECK(type_of(p) == cudaMemoryTypeHost && type_of(p + N - 1) == cudaMemoryTypeHost);
  CHECK(type_of(statics) == cudaMemoryTypeHost);
  unsigned flags = 99;
  OK(cudaHostGetFlags(&flags, statics));
  CHECK(flags == (cudaHostRegisterMapped | cudaHostRegisterReadOnly));
  int *dp = nullptr, *ds = nullptr;
  OK(cudaHostGetDevicePointer((void **)&dp, p, 0));
  OK(cudaHostGetDevicePointer((void **)&ds, statics, 0));
  CHECK(dp == p && ds == statics);

  // kernels on registered memory: written in place, read-only memory read
  inc<<<N / 128, 128>>>(dp, N);
  sum_into<<<N / 128, 128>>>(ds, dp, N);
  OK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < N; i++) bad += p[i] != 11 * i + 1;
  CHECK(bad == 0);
  int *d = nullptr;
  OK(cudaMalloc(&d, N * sizeof(int)));
  OK(cudaMemcpy(d, p, N * sizeof(int), cudaMemcpyHostToDevice));
  inc<<<N / 128, 128>>>(d, N);
  OK(cudaMemcpy(p, d, N * sizeof(int), cudaMemcpyDefault));
  CHECK(p[3] == 35);

  // errors
  EXPECT(cudaHostRegister(p, 64, cudaHostRegisterDefault), cudaErrorHostMemoryAlreadyRegistered);
  EXPECT(cudaHostRegister(p + N / 2, 64, cudaHostRegisterDefault), cudaErrorHostMemoryAlreadyRegistered);
  int *q = (int *)malloc(64);
  EXPECT(cudaHostRegister(q, 64, 0x80), cudaErrorInvalidValue);
  EXPECT(cudaHostUnregister(q), cudaErrorHostMemoryNotRegistered);
  EXPECT(cudaHostUnregister(p + 1), cudaErrorHostMemoryNotRegistered);
  free(q);

  OK(cudaHostUnregister(p));
  OK(cudaHostUnregister(statics));
  CHECK(type_of(p) == cudaMemoryTypeUnregistered && type_of(statics) == cudaMemoryTypeUnregistered);
  EXPECT(cudaHostUnregister(p), cudaErrorHostMemoryNotRegistered);
  OK(cudaFree(d));
  free(p);
  return finish();
}
