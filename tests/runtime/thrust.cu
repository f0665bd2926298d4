// thrust.cu: Thrust on thrust::device_vector (CUB underneath) on the
// runtime: transform, reduce, sort, sort_by_key, checked against host loops.
// nvcc takes about as long on it as on the CUB tests (16 s of CPU), and the
// suite caches the binary.
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <algorithm>
#include <vector>
#include "check.h"

struct Square {
  __host__ __device__ int operator()(int x) const { return x * x - 7; }
};

int main() {
  const int n = 20000;
  std::vector<int> h(n);
  unsigned s = 2024;
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;   // a fixed LCG sequence
    h[i] = (int)(s >> 16) % 1000 - 500;
  }
  thrust::device_vector<int> d(h.begin(), h.end()), t(n);

  thrust::transform(d.begin(), d.end(), t.begin(), Square());
  thrust::host_vector<int> got = t;
  bool good = true;
  for (int i = 0; i < n; i++) good = good && got[i] == h[i] * h[i] - 7;
  CHECK(good);

  long long want = 0;
  for (int x : h) want += x;
  CHECK(thrust::reduce(d.begin(), d.end(), 0LL, thrust::plus<long long>()) == want);
  int mx = *std::max_element(h.begin(), h.end());
  CHECK(thrust::reduce(d.begin(), d.end(), -1000000, thrust::maximum<int>()) == mx);

  thrust::sort(d.begin(), d.end());
  std::vector<int> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  got = d;
  CHECK(std::equal(sorted.begin(), sorted.end(), got.begin()));

  // sort_by_key, descending: the keys' positions follow them, stably
  thrust::device_vector<int> keys(h.begin(), h.end()), pos(n);
  thrust::sequence(pos.begin(), pos.end());
  thrust::stable_sort_by_key(keys.begin(), keys.end(), pos.begin(), thrust::greater<int>());
  std::vector<int> order(n);
  for (int i = 0; i < n; i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return h[a] > h[b]; });
  thrust::host_vector<int> gp = pos;
  CHECK(std::equal(order.begin(), order.end(), gp.begin()));

  OK(cudaGetLastError());
  return finish();
}
