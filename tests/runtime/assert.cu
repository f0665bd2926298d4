// assert.cu: a failing device assert() prints, for each failing thread of
// the warp, the line a GPU prints (unprefixed), then ptxvm's located report
// (condition, file, line, function, kernel, block and thread); the next
// synchronizing call returns cudaErrorAssert, sticky: later calls return it too.
// STDERR: assert.cu:15: void checked(const int *): block: [0,0,0], thread: [3,0,0] Assertion `v < 3` failed.
// STDERR: assert.cu:15: void checked(const int *): block: [0,0,0], thread: [4,0,0] Assertion `v < 3` failed.
// STDERR: ptxvm: assertion failed: v < 3 (
// STDERR: assert.cu:15, in void checked(const int *))
// STDERR: kernel _Z7checkedPKi, %ctaid (0,0,0), %tid (3,0,0)
#include <cassert>
#include "check.h"

__global__ void checked(const int *p) {
  int v = p[threadIdx.x];
  assert(v < 3);
}

int main() {
  int h[5] = {0, 1, 2, 3, 4}, *d = nullptr;
  OK(cudaMalloc(&d, sizeof h));
  OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  checked<<<1, 3>>>(d);   // every value passes
  OK(cudaDeviceSynchronize());
  checked<<<1, 5>>>(d);   // threads 3 and 4 fail
  OK(cudaGetLastError());   // the launch itself succeeded
  EXPECT(cudaDeviceSynchronize(), cudaErrorAssert);
  EXPECT(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaErrorAssert);
  EXPECT(cudaGetLastError(), cudaErrorAssert);
  EXPECT(cudaGetLastError(), cudaErrorAssert);   // sticky: not cleared
  return finish();
}
