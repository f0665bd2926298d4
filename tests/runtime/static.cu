// static.cu: a program built with nvcc's default, static, CUDA runtime
// cannot run on ptxvm (NVIDIA's static runtime needs undocumented driver
// interfaces): `ptxvm exec` says so in one line, with the fix, before
// starting it, and exits 1.
// NVCC: -cudart static
// EXIT: 1
// STDERR: is linked with the static CUDA runtime, which ptxvm cannot serve: rebuild it with `nvcc -cudart shared` (CMake: CUDA_RUNTIME_LIBRARY Shared)
#include <cstdio>

__global__ void k(int *p) { *p = 1; }

int main() {
  int *d;
  cudaMalloc(&d, 4);
  k<<<1, 1>>>(d);
  printf("FAIL: ran\n");
  return 0;
}
