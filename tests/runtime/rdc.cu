// rdc.cu: relocatable device code (nvcc -rdc=true) registers a linked
// fatbin that ptxvm cannot use yet (it has no linker of PTX modules): the
// first launch says so once, and every launch and symbol access returns
// cudaErrorNotSupported; the program goes on.
// NVCC: -cudart shared -rdc=true
// STDERR-ONCE: ptxvm: relocatable device code (nvcc -rdc=true) is not supported yet
#include "check.h"

__device__ int v;
__global__ void k(int *p) { *p = v; }

int main() {
  int *d = nullptr, h = 0;
  OK(cudaMalloc(&d, sizeof(int)));
  k<<<1, 1>>>(d);
  EXPECT(cudaGetLastError(), cudaErrorNotSupported);
  k<<<1, 1>>>(d);
  EXPECT(cudaGetLastError(), cudaErrorNotSupported);
  EXPECT(cudaMemcpyToSymbol(v, &h, sizeof h), cudaErrorNotSupported);
  cudaGetLastError();
  OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return finish();
}
