// fault.cu: a kernel that writes outside its buffer: ptxvm's located report on
// stderr, the launch returns cudaSuccess and the next synchronizing call
// cudaErrorIllegalAddress, sticky: every later call returns it, and
// cudaGetLastError keeps returning it; cudaDeviceReset starts a fresh
// context that works.
// STDERR: ptxvm: 
// STDERR: kernel _Z5wildsPii
#include "check.h"

__global__ void wilds(int *p, int off) { p[threadIdx.x + off] = 1; }
__global__ void fine(int *p) { p[threadIdx.x] = 2; }

int main() {
  int *d = nullptr, h[32];
  OK(cudaMalloc(&d, 32 * sizeof(int)));
  wilds<<<1, 32>>>(d, 1 << 24);
  OK(cudaGetLastError());
  EXPECT(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
  void *more = nullptr;
  EXPECT(cudaMalloc(&more, 16), cudaErrorIllegalAddress);
  fine<<<1, 32>>>(d);
  EXPECT(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT(cudaPeekAtLastError(), cudaErrorIllegalAddress);
  OK(cudaDeviceReset());
  OK(cudaGetLastError());
  OK(cudaMalloc(&d, 32 * sizeof(int)));
  fine<<<1, 32>>>(d);
  OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h[0] == 2 && h[31] == 2);
  return finish();
}
