// sass.cu: a program whose fatbin holds SASS only (no PTX): ptxvm cannot run
// its kernels; the first use says so once, naming them, with the fix, and
// each launch and symbol access returns cudaErrorNoKernelImageForDevice, as
// a GPU without a matching image does; the rest of the program runs.
// NVCC: -cudart shared -gencode arch=compute_90,code=sm_90
// STDERR-ONCE: the image holds SASS only (no PTX) for kernels
// STDERR: rebuild with -arch=sm_90
#include "check.h"

__device__ int v;
__global__ void k(int *p) { *p = v; }

int main() {
  int *d = nullptr, h = 5;
  OK(cudaMalloc(&d, sizeof(int)));
  k<<<1, 1>>>(d);
  EXPECT(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
  EXPECT(cudaMemcpyToSymbol(v, &h, sizeof h), cudaErrorNoKernelImageForDevice);
  k<<<1, 1>>>(d);
  EXPECT(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
  OK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
  return finish();
}
