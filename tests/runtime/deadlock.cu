// deadlock.cu: a kernel whose threads wait forever (a flag nobody sets):
// where a GPU would hang, ptxvm reports it, the synchronizing call returns
// an error (cudaErrorLaunchTimeout, as a GPU's watchdog gives), and the
// program goes on: it can still print and exit.
// STDERR: livelock: kernel _Z4spinPVi
// STDOUT: after the deadlock: cudaErrorLaunchTimeout
// STDOUT: ok
#include "check.h"

__global__ void spin(volatile int *flag) {
  while (*flag == 0) {}
}

int main() {
  int *d = nullptr;
  OK(cudaMalloc(&d, sizeof(int)));
  OK(cudaMemset(d, 0, sizeof(int)));
  spin<<<1, 32>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("after the deadlock: %s\n", cudaGetErrorName(e));
  CHECK(e == cudaErrorLaunchTimeout);
  return finish();
}
