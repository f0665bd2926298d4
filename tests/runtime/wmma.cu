// wmma.cu: CUDA's <mma.h> (nvcuda::wmma) through nvcc: load_matrix_sync,
// mma_sync, store_matrix_sync and fill_fragment / element-wise fragment
// access, for every shape and type the header offers on sm_90 (half with
// float and half accumulators in 16x16x16, 32x8x16, 8x32x16; bf16; tf32
// 16x16x8; double 8x8x4; signed and unsigned char with int accumulators),
// with row- and column-major A/B, both store layouts, leading dimensions
// larger than the tile, and shared memory. A tiled GEMM (several warps, each
// a 16x16 tile, K in steps) is checked against a host GEMM. Inputs are small
// integers, so every result is exact. Also the experimental sub-byte
// forms: s4 8x8x32 (.satfinite) and b1 8x8x128 (bmma_sync XOR and AND).
// EXEC: --check
#include "check.h"
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;

// One tile D = A * B + C: A M x K (lda), B K x N (ldb), C/D M x N (ldc,
// ldd), layouts from the template; the accumulator doubled element-wise after the
// load (layout-independent) and the result stored in store layout SL.
template <int M, int N, int K, typename TA, typename TC, typename LA, typename LB, typename TIN = TA>
__global__ void tile(const TIN *a, int lda, const TIN *b, int ldb, const TC *c, int ldc, TC *d,
                     int ldd, bool dcol) {
  wmma::fragment<wmma::matrix_a, M, N, K, TA, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, wmma::mem_row_major);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] + fc.x[i];
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, ldd, dcol ? wmma::mem_col_major : wmma::mem_row_major);
}

// A tiled GEMM: warp w of the CTA computes the 16x16 tile w of D = A * B
// (A rows x k row-major, B k x cols column-major), A and B staged through
// shared memory a K-slab at a time.
__global__ void gemm(const half *a, const half *b, float *d, int rows, int cols, int k) {
  __shared__ __align__(32) half sa[4][16 * 16], sb[4][16 * 16];
  int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  int tiles_n = cols / 16, ti = (blockIdx.x * 4 + w) / tiles_n, tj = (blockIdx.x * 4 + w) % tiles_n;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += 16) {
    for (int e = lane; e < 256; e += 32) {
      sa[w][e] = a[(ti * 16 + e / 16) * k + kk + e % 16];
      sb[w][e] = b[(tj * 16 + e / 16) * k + kk + e % 16];   // column e/16 of the tile
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::load_matrix_sync(fa, sa[w], 16);
    wmma::load_matrix_sync(fb, sb[w], 16);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(d + ti * 16 * cols + tj * 16, acc, cols, wmma::mem_row_major);
}

// The sub-byte forms (nvcuda::wmma::experimental): s4 8x8x32 and b1
// 8x8x128 (XOR and AND popc), A row-major and B column-major, packed
// little-endian (the lower element in the lower bits), ld in elements.
namespace wx = wmma::experimental;
__global__ void tile_s4(const void *a, const void *b, const int *c, int *d, bool sat) {
  wmma::fragment<wmma::matrix_a, 8, 8, 32, wx::precision::s4, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, wx::precision::s4, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
  wmma::load_matrix_sync(fa, a, 64);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc, sat);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}
__global__ void tile_b1(const void *a, const void *b, const int *c, int *d, bool use_and) {
  wmma::fragment<wmma::matrix_a, 8, 8, 128, wx::precision::b1, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, wx::precision::b1, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
  wmma::load_matrix_sync(fa, a, 128);
  wmma::load_matrix_sync(fb, b, 256);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_col_major);
  if (use_and) wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpAND);
  else wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpXOR);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_col_major);
}

static unsigned seed = 12345;
static int rnd(int lo, int hi) {
  seed = seed * 1103515245u + 12345u;
  return lo + (int)((seed >> 16) % (unsigned)(hi - lo + 1));
}

template <typename T> static T conv(double v) { return (T)v; }
template <> half conv<half>(double v) { return __double2half(v); }
template <> __nv_bfloat16 conv<__nv_bfloat16>(double v) { return __double2bfloat16(v); }
template <typename T> static double back(T v) { return (double)v; }
template <> double back<half>(half v) { return (double)__half2float(v); }

// Runs tile<...> on random small integers and checks D against the host.
template <int M, int N, int K, typename TA, typename TC, typename LA, typename LB, typename TIN = TA>
static void run_tile(const char *name, int abound, bool acol, bool bcol, bool dcol) {
  int lda = (acol ? M : K) + 8, ldb = (bcol ? K : N) + 8, ldc = N + 8, ldd = (dcol ? M : N) + 8;
  int na = lda * (acol ? K : M), nb = ldb * (bcol ? N : K), nc_in = 40 * 32;
  TIN *ha = new TIN[na], *hb = new TIN[nb];
  TC *hc = new TC[nc_in], *hd = new TC[nc_in];
  double A[32][32], B[32][32], C[32][32];
  int lo = abound < 0 ? 0 : -abound, hi = abound < 0 ? -abound : abound;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < K; j++) ha[acol ? j * lda + i : i * lda + j] = conv<TIN>(A[i][j] = rnd(lo, hi));
  for (int i = 0; i < K; i++)
    for (int j = 0; j < N; j++) hb[bcol ? j * ldb + i : i * ldb + j] = conv<TIN>(B[i][j] = rnd(lo, hi));
  for (int i = 0; i < nc_in; i++) hc[i] = conv<TC>(0), hd[i] = conv<TC>(-1);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) hc[i * ldc + j] = conv<TC>(C[i][j] = rnd(-8, 8));
  TIN *da, *db;
  TC *dc, *dd;
  OK(cudaMalloc(&da, na * sizeof(TIN)));
  OK(cudaMalloc(&db, nb * sizeof(TIN)));
  OK(cudaMalloc(&dc, nc_in * sizeof(TC)));
  OK(cudaMalloc(&dd, nc_in * sizeof(TC)));
  OK(cudaMemcpy(da, ha, na * sizeof(TIN), cudaMemcpyHostToDevice));
  OK(cudaMemcpy(db, hb, nb * sizeof(TIN), cudaMemcpyHostToDevice));
  OK(cudaMemcpy(dc, hc, nc_in * sizeof(TC), cudaMemcpyHostToDevice));
  OK(cudaMemcpy(dd, hd, nc_in * sizeof(TC), cudaMemcpyHostToDevice));
  tile<M, N, K, TA, TC, LA, LB, TIN><<<1, 32>>>(da, lda, db, ldb, dc, ldc, dd, ldd, dcol);
  OK(cudaGetLastError());
  OK(cudaMemcpy(hd, dd, nc_in * sizeof(TC), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double want = 2 * C[i][j];
      for (int k = 0; k < K; k++) want += A[i][k] * B[k][j];
      double got = back<TC>(hd[dcol ? j * ldd + i : i * ldd + j]);
      if (got != want && bad++ < 3) printf("FAIL %s: D[%d][%d] = %g, expected %g\n", name, i, j, got, want);
    }
  // the padding past each stored row (column) is untouched
  for (int o = 0; o < (dcol ? N : M); o++)
    for (int p = dcol ? M : N; p < ldd; p++)
      if (back<TC>(hd[o * ldd + p]) != -1 && bad++ < 3) printf("FAIL %s: padding written\n", name);
  CHECK(bad == 0);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  delete[] ha, delete[] hb, delete[] hc, delete[] hd;
}

int main() {
  using R = wmma::row_major;
  using C = wmma::col_major;
  run_tile<16, 16, 16, half, float, R, C>("h16 f32 rc", 4, false, true, false);
  run_tile<16, 16, 16, half, float, C, R>("h16 f32 cr", 4, true, false, true);
  run_tile<16, 16, 16, half, half, R, R>("h16 f16 rr", 3, false, false, false);
  run_tile<32, 8, 16, half, float, C, C>("h32x8 f32 cc", 4, true, true, false);
  run_tile<32, 8, 16, half, half, R, C>("h32x8 f16", 3, false, true, true);
  run_tile<8, 32, 16, half, float, R, R>("h8x32 f32", 4, false, false, true);
  run_tile<8, 32, 16, half, half, C, R>("h8x32 f16", 3, true, false, false);
  run_tile<16, 16, 16, __nv_bfloat16, float, R, C>("bf16 16", 8, false, true, false);
  run_tile<32, 8, 16, __nv_bfloat16, float, C, R>("bf16 32x8", 8, true, false, true);
  run_tile<8, 32, 16, __nv_bfloat16, float, R, R>("bf16 8x32", 8, false, false, false);
  run_tile<16, 16, 8, wmma::precision::tf32, float, R, C, float>("tf32", 50, false, true, false);
  run_tile<16, 16, 8, wmma::precision::tf32, float, C, R, float>("tf32 cr", 50, true, false, true);
  run_tile<8, 8, 4, double, double, R, C>("f64", 1000, false, true, false);
  run_tile<8, 8, 4, double, double, C, R>("f64 cr", 1000, true, false, true);
  run_tile<16, 16, 16, signed char, int, R, C>("s8 16", 127, false, true, false);
  run_tile<32, 8, 16, signed char, int, C, C>("s8 32x8", 127, true, true, true);
  run_tile<8, 32, 16, unsigned char, int, R, R>("u8 8x32", -255, false, false, false);

  // s4 (A ld 64: padded rows) and b1 (B ld 256 bits)
  for (int sat = 0; sat < 2; sat++) {
    unsigned char ha[8 * 32] = {0}, hb[8 * 16] = {0};
    int A[8][32], B[32][8], hc[64], hd[64];
    for (int i = 0; i < 8; i++)
      for (int k = 0; k < 32; k++) {
        A[i][k] = rnd(-8, 7), B[k][i] = rnd(-8, 7);
        ha[(i * 64 + k) / 2] |= (A[i][k] & 15) << 4 * (k & 1);
        hb[(i * 32 + k) / 2] |= (B[k][i] & 15) << 4 * (k & 1);
      }
    for (int i = 0; i < 64; i++) hc[i] = sat ? (i & 1 ? 2147483600 : -2147483600) : rnd(-100, 100);
    void *da, *db;
    int *dc, *dd;
    OK(cudaMalloc(&da, sizeof ha)); OK(cudaMalloc(&db, sizeof hb));
    OK(cudaMalloc(&dc, sizeof hc)); OK(cudaMalloc(&dd, sizeof hd));
    OK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    tile_s4<<<1, 32>>>(da, db, dc, dd, sat);
    OK(cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++) {
        long long want = hc[i * 8 + j];
        for (int k = 0; k < 32; k++) want += A[i][k] * B[k][j];
        if (sat) want = want > 2147483647 ? 2147483647 : want < -2147483647 - 1 ? -2147483647 - 1 : want;
        if (hd[i * 8 + j] != (int)want && bad++ < 3)
          printf("FAIL s4 sat=%d: D[%d][%d] = %d, expected %lld\n", sat, i, j, hd[i * 8 + j], want);
      }
    CHECK(bad == 0);
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  }
  for (int use_and = 0; use_and < 2; use_and++) {
    unsigned char ha[8 * 16] = {0}, hb[8 * 32] = {0};
    int A[8][128], B[128][8], hc[64], hd[64];
    for (int i = 0; i < 8; i++)
      for (int k = 0; k < 128; k++) {
        A[i][k] = rnd(0, 1), B[k][i] = rnd(0, 1);
        ha[(i * 128 + k) / 8] |= A[i][k] << (k & 7);
        hb[(i * 256 + k) / 8] |= B[k][i] << (k & 7);
      }
    for (int i = 0; i < 64; i++) hc[i] = rnd(-100, 100);
    void *da, *db;
    int *dc, *dd;
    OK(cudaMalloc(&da, sizeof ha)); OK(cudaMalloc(&db, sizeof hb));
    OK(cudaMalloc(&dc, sizeof hc)); OK(cudaMalloc(&dd, sizeof hd));
    OK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    tile_b1<<<1, 32>>>(da, db, dc, dd, use_and);
    OK(cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++) {
        int want = hc[j * 8 + i];   // C and D column-major
        for (int k = 0; k < 128; k++) want += use_and ? A[i][k] & B[k][j] : A[i][k] ^ B[k][j];
        if (hd[j * 8 + i] != want && bad++ < 3)
          printf("FAIL b1 and=%d: D[%d][%d] = %d, expected %d\n", use_and, i, j, hd[j * 8 + i], want);
      }
    CHECK(bad == 0);
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  }

  // the tiled GEMM: 64 x 48 x 64, 12 tiles in 3 CTAs of 4 warps
  const int rows = 64, cols = 48, k = 64;
  half *ha = new half[rows * k], *hb = new half[cols * k];
  float *hd = new float[rows * cols];
  static double A[rows][k], B[k][cols];
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < k; j++) ha[i * k + j] = __double2half(A[i][j] = rnd(-3, 3));
  for (int i = 0; i < k; i++)
    for (int j = 0; j < cols; j++) hb[j * k + i] = __double2half(B[i][j] = rnd(-3, 3));
  half *da, *db;
  float *dd;
  OK(cudaMalloc(&da, rows * k * sizeof(half)));
  OK(cudaMalloc(&db, cols * k * sizeof(half)));
  OK(cudaMalloc(&dd, rows * cols * sizeof(float)));
  OK(cudaMemcpy(da, ha, rows * k * sizeof(half), cudaMemcpyHostToDevice));
  OK(cudaMemcpy(db, hb, cols * k * sizeof(half), cudaMemcpyHostToDevice));
  gemm<<<rows * cols / 256 / 4, 128>>>(da, db, dd, rows, cols, k);
  OK(cudaGetLastError());
  OK(cudaMemcpy(hd, dd, rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      double want = 0;
      for (int q = 0; q < k; q++) want += A[i][q] * B[q][j];
      if (hd[i * cols + j] != want && bad++ < 3)
        printf("FAIL gemm: D[%d][%d] = %g, expected %g\n", i, j, hd[i * cols + j], want);
    }
  CHECK(bad == 0);
  OK(cudaFree(da));
  OK(cudaFree(db));
  OK(cudaFree(dd));
  delete[] ha, delete[] hb, delete[] hd;
  return finish();
}
