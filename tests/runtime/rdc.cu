// rdc.cu: relocatable device code (nvcc -rdc=true) of two translation units
// (rdc.part): nvcc's device link registers one fatbin for both, whose
// objects' PTX the runtime links into one module at first use. A kernel
// calls an extern __device__ function and reads extern __device__,
// __constant__ and __managed__ variables of the other unit, both ways; a
// file-static variable and kernel of one name in each unit stay two; the
// symbol calls reach variables of either unit, by the shadow of either's
// declaration; the module is linked once (values survive across launches)
// and again after cudaDeviceReset.
// NVCC: -cudart shared -rdc=true -x cu %dir/rdc.part
#include "check.h"

// defined in rdc.part
extern __device__ int twice(int x);
extern __device__ int base;
extern __constant__ int offset;
extern __managed__ int visits;
void launch_part(int *out);
void launch_part_static(int *out);

// used by rdc.part
__device__ int scale = 3;
__constant__ int bias = 100;
__device__ int triple(int x) { return 3 * x; }

static __device__ int local = 1;   // rdc.part has its own `local` (20)
static __global__ void bump_local(int *out) { *out = ++local; }

__global__ void combine(int *out) {
  out[0] = twice(base) + offset;   // 2*7 + 40
  out[1] = triple(scale);          // 9
  visits++;
}

int main() {
  int *d = nullptr, h[2] = {0, 0};
  OK(cudaMalloc(&d, 2 * sizeof(int)));
  combine<<<1, 1>>>(d);
  OK(cudaGetLastError());
  OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h[0] == 54 && h[1] == 9);

  launch_part(d);   // rdc.part's kernel: scale * twice(base) + bias + triple(1)
  OK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(h[0] == 3 * 14 + 100 + 3);

  // the static variables of one name are two, each its unit's
  for (int i = 1; i <= 2; i++) {
    bump_local<<<1, 1>>>(d);
    OK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h[0] == 1 + i);
    launch_part_static(d);
    OK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h[0] == 20 + i);
  }

  // symbols of the other unit, by this unit's extern declarations
  int b = 8, o = 1, s = 0;
  OK(cudaMemcpyToSymbol(base, &b, sizeof b));
  OK(cudaMemcpyToSymbol(offset, &o, sizeof o));
  OK(cudaMemcpyFromSymbol(&s, scale, sizeof s));
  CHECK(s == 3);
  size_t n = 0;
  OK(cudaGetSymbolSize(&n, offset));
  CHECK(n == sizeof(int));
  combine<<<1, 1>>>(d);
  OK(cudaDeviceSynchronize());
  OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h[0] == 17);
  CHECK(visits == 2);   // the host reads the other unit's managed variable
  visits = 10;
  combine<<<1, 1>>>(d);
  OK(cudaDeviceSynchronize());
  CHECK(visits == 11);

  // after a reset the objects are linked again: the initial values are back
  OK(cudaDeviceReset());
  OK(cudaMalloc(&d, 2 * sizeof(int)));
  combine<<<1, 1>>>(d);
  OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h[0] == 54 && h[1] == 9);
  CHECK(visits == 1);
  return finish();
}
