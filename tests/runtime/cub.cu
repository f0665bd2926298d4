// cub.cu: CUB's device-wide algorithms on the runtime, each with its
// temporary-storage size query and its launches: DeviceReduce::Sum and
// DeviceScan::InclusiveSum, checked against the host's arithmetic.
#include <cub/cub.cuh>
#include "check.h"

int main() {
  const int n = 10000;
  static int h[n], scan[n];
  for (int i = 0; i < n; i++) h[i] = i % 7 - 3;
  int *in = nullptr, *out = nullptr, *sum = nullptr;
  OK(cudaMalloc(&in, n * sizeof(int)));
  OK(cudaMalloc(&out, n * sizeof(int)));
  OK(cudaMalloc(&sum, sizeof(int)));
  OK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  void *tmp = nullptr;
  size_t bytes = 0;
  OK(cub::DeviceReduce::Sum(tmp, bytes, in, sum, n));
  CHECK(bytes > 0);
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceReduce::Sum(tmp, bytes, in, sum, n));
  int s = 0, want = 0;
  for (int i = 0; i < n; i++) want += h[i];
  OK(cudaMemcpy(&s, sum, sizeof s, cudaMemcpyDeviceToHost));
  CHECK(s == want);
  OK(cudaFree(tmp));
  tmp = nullptr;
  bytes = 0;
  OK(cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n));
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n));
  OK(cudaMemcpy(scan, out, sizeof scan, cudaMemcpyDeviceToHost));
  bool good = true;
  for (int i = 0, acc = 0; i < n; i++) good = good && scan[i] == (acc += h[i]);
  CHECK(good);
  OK(cudaGetLastError());
  return finish();
}
