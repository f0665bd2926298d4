// checked.cu: under `ptxvm exec --check` every launch is checked; a finding
// is reported on stderr with the launch's index in the process and its
// kernel's name, the launch and the synchronizing call still succeed (the
// kernel ran to completion), the program goes on, and because it had
// findings `ptxvm exec` exits 1 although the program returns 0.
// EXEC: --check
// EXIT: 1
// STDERR: ptxvm: launch 2 (kernel _Z6dividePiPKii): div.s32: integer division by zero
// STDERR-ONCE: ptxvm: launch 
// STDOUT: 7 7 7 7
// STDOUT: ok
#include "check.h"

__global__ void fill(int *out, int v) { out[threadIdx.x] = v; }

__global__ void divide(int *out, const int *den, int num) { out[threadIdx.x] = num / den[threadIdx.x]; }

int main() {
  int *d = nullptr, *z = nullptr, h[4];
  OK(cudaMalloc(&d, sizeof h));
  OK(cudaMalloc(&z, sizeof h));
  fill<<<1, 4>>>(z, 0);          // launch 1: clean
  OK(cudaDeviceSynchronize());
  divide<<<1, 4>>>(d, z, 5);     // launch 2: a finding
  OK(cudaGetLastError());
  OK(cudaDeviceSynchronize());   // findings do not fail the launch
  fill<<<1, 4>>>(d, 7);          // launch 3: clean, the program goes on
  OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  printf("%d %d %d %d\n", h[0], h[1], h[2], h[3]);
  OK(cudaFree(d));
  OK(cudaFree(z));
  return finish();   // 0: the exit status 1 is ptxvm exec's
}
