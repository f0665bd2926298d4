// cub_sort.cu: cub::DeviceRadixSort on the runtime, each call with its
// temporary-storage size query and its several launches: SortKeys (unsigned
// keys, and signed keys over a bit range) and SortPairs (values follow their
// keys, and equal keys keep their order: the sort is stable), checked
// against the host's std::sort / std::stable_sort.
#include <algorithm>
#include <cub/cub.cuh>
#include <vector>
#include "check.h"

// a fixed pseudo-random sequence (xorshift32), so the input is the same everywhere
static unsigned next(unsigned &s) {
  s ^= s << 13; s ^= s >> 17; s ^= s << 5;
  return s;
}

template <class T> static T *device(const std::vector<T> &h) {
  T *d = nullptr;
  OK(cudaMalloc(&d, h.size() * sizeof(T)));
  OK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T> static std::vector<T> host(const T *d, size_t n) {
  std::vector<T> h(n);
  OK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int main() {
  const int n = 20000;   // past one tile: the multi-pass (onesweep) path
  unsigned seed = 12345;
  std::vector<unsigned> keys(n);
  std::vector<int> skeys(n), vals(n);
  for (int i = 0; i < n; i++) {
    keys[i] = next(seed);
    skeys[i] = (int)(next(seed) % 2001) - 1000;
    vals[i] = i;
  }

  // SortKeys: all 32 bits of unsigned keys
  unsigned *k_in = device(keys), *k_out = device(keys);
  void *tmp = nullptr;
  size_t bytes = 0;
  OK(cub::DeviceRadixSort::SortKeys(tmp, bytes, k_in, k_out, n));
  CHECK(bytes > 0);
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceRadixSort::SortKeys(tmp, bytes, k_in, k_out, n));
  std::vector<unsigned> want = keys;
  std::sort(want.begin(), want.end());
  CHECK(host(k_out, n) == want);
  CHECK(host(k_in, n) == keys);   // the input is left as it was
  OK(cudaFree(tmp));

  // SortPairs: signed keys, values are the input positions; equal keys keep
  // their input order (there are many: 2001 distinct keys for 20000 items)
  int *sk_in = device(skeys), *sk_out = device(skeys), *v_in = device(vals), *v_out = device(vals);
  tmp = nullptr;
  bytes = 0;
  OK(cub::DeviceRadixSort::SortPairs(tmp, bytes, sk_in, sk_out, v_in, v_out, n));
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceRadixSort::SortPairs(tmp, bytes, sk_in, sk_out, v_in, v_out, n));
  std::vector<int> order(n);
  for (int i = 0; i < n; i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return skeys[a] < skeys[b]; });
  std::vector<int> got_k = host(sk_out, n), got_v = host(v_out, n);
  bool good = true;
  for (int i = 0; i < n; i++) good = good && got_v[i] == order[i] && got_k[i] == skeys[order[i]];
  CHECK(good);

  // SortKeysDescending over bits [0, 16) only: the order of the low halves
  OK(cudaFree(tmp));
  tmp = nullptr;
  bytes = 0;
  OK(cub::DeviceRadixSort::SortKeysDescending(tmp, bytes, k_in, k_out, n, 0, 16));
  OK(cudaMalloc(&tmp, bytes));
  OK(cub::DeviceRadixSort::SortKeysDescending(tmp, bytes, k_in, k_out, n, 0, 16));
  std::vector<unsigned> got = host(k_out, n);
  good = true;
  for (int i = 1; i < n; i++) good = good && (got[i - 1] & 0xffff) >= (got[i] & 0xffff);
  std::vector<unsigned> a = got, b = keys;   // a permutation of the input
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(good && a == b);

  OK(cudaFree(tmp));
  OK(cudaFree(k_in)); OK(cudaFree(k_out)); OK(cudaFree(sk_in)); OK(cudaFree(sk_out));
  OK(cudaFree(v_in)); OK(cudaFree(v_out));
  OK(cudaGetLastError());
  return finish();
}
