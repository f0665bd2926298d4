// rdc_sass.cu: relocatable device code whose objects hold SASS only (no
// PTX): the link of the first object's device code fails, said once, naming
// the executable's object (FILE#1), and each launch and symbol access
// returns cudaErrorNoKernelImageForDevice, as for a program without -rdc.
// NVCC: -cudart shared -rdc=true -gencode arch=compute_90,code=sm_90
// STDERR-ONCE: #1: the image holds SASS only (no PTX) for kernels
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
