// saxpy.cu: the test program of tests/cmake: y = a*x + y on N elements,
// checked against the host's arithmetic.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; i++) x[i] = (float)i, y[i] = 1.0f;
  float *dx, *dy;
  if (cudaMalloc(&dx, n * sizeof(float)) || cudaMalloc(&dy, n * sizeof(float))) return 1;
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
  cudaError_t e = cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    printf("saxpy: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (int i = 0; i < n; i++)
    if (y[i] != 2.0f * i + 1.0f) {
      printf("saxpy: y[%d] = %g, expected %g\n", i, y[i], 2.0f * i + 1.0f);
      return 1;
    }
  printf("saxpy %d: ok\n", n);
  return 0;
}
