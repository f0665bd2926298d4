// multi.cu: a program of two translation units (multi.part): each registers
// its own fatbin, loaded as its own module on first use; kernels and
// variables are told apart by their host stubs and shadows, and each module
// is loaded once (its variables keep their values across launches).
// NVCC: -cudart shared -x cu %dir/multi.part
#include "check.h"

namespace one {
__device__ int counter = 0;
__global__ void step(int *out) { *out = ++counter; }
}
void launch_two(int *out);

int main() {
  int *d = nullptr, h = 0;
  OK(cudaMalloc(&d, sizeof(int)));
  for (int i = 1; i <= 3; i++) {
    one::step<<<1, 1>>>(d);
    OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h == i);
    launch_two(d);
    OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h == 1000 + i);
  }
  int c = 0;
  OK(cudaMemcpyFromSymbol(&c, one::counter, sizeof c));
  CHECK(c == 3);
  return finish();
}
