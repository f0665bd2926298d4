// symbols.cu: __device__ and __constant__ variables through the runtime:
// cudaMemcpyToSymbol/FromSymbol (with offsets, Async, device to device),
// cudaGetSymbolAddress/Size, kernels reading what the host wrote, and the
// errors for a range outside the variable and for what is not a symbol.
#include "check.h"

__device__ int table[16];
__constant__ float coef[4];
__device__ unsigned long long big = 0x123456789abcdefull;

__global__ void apply(float *out) {
  int i = threadIdx.x;
  out[i] = coef[i % 4] * table[i];
}

__global__ void bump() { table[threadIdx.x] += 100; }

int main() {
  int h[16];
  for (int i = 0; i < 16; i++) h[i] = i;
  float c[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  OK(cudaMemcpyToSymbol(table, h, sizeof h));
  OK(cudaMemcpyToSymbol(coef, c, sizeof c));
  float *out = nullptr, ho[16];
  OK(cudaMalloc(&out, sizeof ho));
  apply<<<1, 16>>>(out);
  OK(cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; i++) CHECK(ho[i] == c[i % 4] * i);

  bump<<<1, 16>>>();
  int back[16];
  OK(cudaMemcpyFromSymbol(back, table, sizeof back));
  for (int i = 0; i < 16; i++) CHECK(back[i] == i + 100);
  // offsets
  int two[2] = {-7, -8};
  OK(cudaMemcpyToSymbol(table, two, sizeof two, 4 * sizeof(int)));
  OK(cudaMemcpyFromSymbol(back, table, 3 * sizeof(int), 3 * sizeof(int)));
  CHECK(back[0] == 103 && back[1] == -7 && back[2] == -8);
  // the initialiser of a variable
  unsigned long long b = 0;
  OK(cudaMemcpyFromSymbol(&b, big, sizeof b));
  CHECK(b == 0x123456789abcdefull);
  // Async and device to device
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  float one[4] = {3, 3, 3, 3};
  OK(cudaMemcpyToSymbolAsync(coef, one, sizeof one, 0, cudaMemcpyHostToDevice, s));
  OK(cudaMemcpyFromSymbolAsync(c, coef, sizeof c, 0, cudaMemcpyDeviceToHost, s));
  OK(cudaStreamSynchronize(s));
  CHECK(c[0] == 3 && c[3] == 3);
  OK(cudaMemcpyToSymbol(coef, out, 4 * sizeof(float), 0, cudaMemcpyDeviceToDevice));
  OK(cudaMemcpyFromSymbol(c, coef, sizeof c));
  CHECK(c[1] == ho[1] && c[3] == ho[3]);

  void *addr = nullptr;
  size_t size = 0;
  OK(cudaGetSymbolAddress(&addr, table));
  OK(cudaGetSymbolSize(&size, table));
  CHECK(addr != nullptr && size == sizeof h);
  OK(cudaMemcpy(back, addr, sizeof back, cudaMemcpyDeviceToHost));
  CHECK(back[4] == -7);
  OK(cudaGetSymbolSize(&size, coef));
  CHECK(size == 4 * sizeof(float));

  // errors
  EXPECT(cudaMemcpyToSymbol(table, h, sizeof h, 4), cudaErrorInvalidValue);
  EXPECT(cudaMemcpyFromSymbol(back, coef, 17), cudaErrorInvalidValue);
  static int not_a_symbol;
  EXPECT(cudaGetSymbolAddress(&addr, &not_a_symbol), cudaErrorInvalidSymbol);
  EXPECT(cudaMemcpyToSymbol(table, h, 4, 0, cudaMemcpyDeviceToHost), cudaErrorInvalidMemcpyDirection);
  EXPECT(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
  OK(cudaStreamDestroy(s));
  return finish();
}
