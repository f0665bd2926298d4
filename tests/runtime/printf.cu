// printf.cu: device printf reaches stdout in the order a GPU delivers it:
// held until a synchronizing call (here cudaDeviceSynchronize, a blocking
// cudaMemcpy, the next launch), so host lines printed after a launch come
// first; under a pipe too (tests/run.py reads stdout through one).
// STDOUT: host: before
// STDOUT: host: after launch 1
// STDOUT: block 0 thread 0: 1.5
// STDOUT: block 0 thread 1: 1.5
// STDOUT: block 1 thread 0: 1.5
// STDOUT: block 1 thread 1: 1.5
// STDOUT: host: after sync
// STDOUT: host: after launch 2
// STDOUT: second kernel 7 abc
// STDOUT: host: after launch 3
// STDOUT: third kernel
// STDOUT: host: after copy
// STDOUT: ok
#include "check.h"

__global__ void hello(float x) { printf("block %d thread %d: %.1f\n", blockIdx.x, threadIdx.x, x); }
__global__ void second(int v) { printf("second kernel %d %s\n", v, "abc"); }
__global__ void third(int *p) { *p = 1; printf("third kernel\n"); }

int main() {
  printf("host: before\n");
  hello<<<2, 2>>>(1.5f);
  printf("host: after launch 1\n");
  OK(cudaDeviceSynchronize());
  printf("host: after sync\n");
  second<<<1, 1>>>(7);
  printf("host: after launch 2\n");
  int *d = nullptr, h = 0;
  OK(cudaMalloc(&d, sizeof(int)));   // not a synchronizing call for printf
  third<<<1, 1>>>(d);                // the launch writes the output before it
  printf("host: after launch 3\n");
  OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  printf("host: after copy\n");
  CHECK(h == 1);
  return finish();
}
