// gemm_host.h: the host side shared by gemm_sm80.cu and gemm_sm90.cu: small
// integer inputs (A row-major M x K, B column-major K x N) and the host GEMM
// that D (column-major M x N) must equal exactly (every sum is an integer).
#include <cstdio>
#include <vector>

template <class E> void fill_inputs(std::vector<E> &A, std::vector<E> &B) {
  for (size_t i = 0; i < A.size(); i++) A[i] = E(float(int(i * 7 + 3) % 9 - 4));
  for (size_t i = 0; i < B.size(); i++) B[i] = E(float(int(i * 5 + 1) % 7 - 3));
}

// the number of elements of D that differ from the host GEMM (the first 5 printed)
template <class E> int count_mismatches(const std::vector<E> &A, const std::vector<E> &B,
                                        const std::vector<float> &D, int M, int N, int K) {
  int bad = 0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      float acc = 0;
      for (int k = 0; k < K; k++) acc += float(A[m * K + k]) * float(B[n * K + k]);
      if (acc != D[m + n * M] && bad++ < 5) printf("D[%d][%d] = %g, expected %g\n", m, n, D[m + n * M], acc);
    }
  return bad;
}
