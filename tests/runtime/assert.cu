// assert.cu: a failing device assert() is reported with its condition,
// file, line, function, kernel, block and thread, and the next synchronizing
// call returns cudaErrorAssert, sticky: later calls return it too.
// STDERR: assertion failed: v < 3 (
// STDERR: assert.cu:12, in void checked(const int *))
// STDERR: kernel _Z7checkedPKi, %ctaid (0,0,0), %tid (3,0,0)
#include <cassert>
#include "check.h"

__global__ void checked(const int *p) {
  int v = p[threadIdx.x];
  assert(v < 3);
}

int main() {
  int h[4] = {0, 1, 2, 3}, *d = nullptr;
  OK(cudaMalloc(&d, sizeof h));
  OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  checked<<<1, 3>>>(d);   // every value passes
  OK(cudaDeviceSynchronize());
  checked<<<1, 4>>>(d);
  OK(cudaGetLastError());   // the launch itself succeeded
  EXPECT(cudaDeviceSynchronize(), cudaErrorAssert);
  EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaErrorAssert);
  EXPECT(cudaGetLastError(), cudaErrorAssert);
  EXPECT(cudaGetLastError(), cudaErrorAssert);   // sticky: not cleared
  return finish();
}
