// cub_select.cu: cub::DeviceHistogram::HistogramEven and
// cub::DeviceSelect::If and ::Flagged on the runtime, each with its
// temporary-storage size query, checked against host loops.
#include <cub/cub.cuh>
#include <vector>
#include "check.h"

struct Odd {
  __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};

int main() {
  const int n = 50000, bins = 10;
  std::vector<int> h(n);
  std::vector<char> flags(n);
  for (int i = 0; i < n; i++) {
    h[i] = (i * 37) % 113 - 10;   // [-10, 102]: some samples fall outside [0, 100)
    flags[i] = i % 3 == 0;
  }
  int *in = nullptr, *out = nullptr, *count = nullptr, *hist = nullptr;
  char *fl = nullptr;
  OK(cudaMalloc(&in, n * sizeof(int)));
  OK(cudaMalloc(&out, n * sizeof(int)));
  OK(cudaMalloc(&count, sizeof(int)));
  OK(cudaMalloc(&hist, bins * sizeof(int)));
  OK(cudaMalloc(&fl, n));
  OK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  OK(cudaMemcpy(fl, flags.data(), n, cudaMemcpyHostToDevice));

  // HistogramEven: 10 bins of width 10 over [0, 100); the rest is not counted
  void *tmp = nullptr;
  size_t bytes = 0;
  OK(cub::DeviceHistogram::HistogramEven(tmp, bytes, in, hist, bins + 1, 0, 100, n));
  CHECK(bytes > 0);
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceHistogram::HistogramEven(tmp, bytes, in, hist, bins + 1, 0, 100, n));
  int want[bins] = {}, got[bins];
  for (int x : h) if (x >= 0 && x < 100) want[x / 10]++;
  OK(cudaMemcpy(got, hist, sizeof got, cudaMemcpyDeviceToHost));
  bool good = true;
  for (int b = 0; b < bins; b++) good = good && got[b] == want[b];
  CHECK(good);
  OK(cudaFree(tmp));

  // Select::If: the odd values, in their order
  std::vector<int> odd, flagged;
  for (int i = 0; i < n; i++) {
    if (h[i] % 2 != 0) odd.push_back(h[i]);
    if (flags[i]) flagged.push_back(h[i]);
  }
  tmp = nullptr;
  bytes = 0;
  OK(cub::DeviceSelect::If(tmp, bytes, in, out, count, n, Odd()));
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceSelect::If(tmp, bytes, in, out, count, n, Odd()));
  int c = -1;
  OK(cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost));
  std::vector<int> sel(n);
  OK(cudaMemcpy(sel.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(c == (int)odd.size());
  sel.resize(c > 0 && c <= n ? c : 0);
  CHECK(sel == odd);
  OK(cudaFree(tmp));

  // Select::Flagged: the values whose flag is set
  tmp = nullptr;
  bytes = 0;
  OK(cub::DeviceSelect::Flagged(tmp, bytes, in, fl, out, count, n));
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceSelect::Flagged(tmp, bytes, in, fl, out, count, n));
  OK(cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost));
  sel.assign(n, 0);
  OK(cudaMemcpy(sel.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(c == (int)flagged.size());
  sel.resize(c > 0 && c <= n ? c : 0);
  CHECK(sel == flagged);

  OK(cudaFree(tmp));
  OK(cudaFree(in)); OK(cudaFree(out)); OK(cudaFree(count)); OK(cudaFree(hist)); OK(cudaFree(fl));
  OK(cudaGetLastError());
  return finish();
}
