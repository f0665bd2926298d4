// tma_helpers.cu: tensor copies (TMA) through the CUDA 13 toolkit's own
// helpers, as a program written for a GPU uses them. The host encodes tiled
// CUtensorMaps with cuTensorMapEncodeTiled, got from the runtime by
// cudaGetDriverEntryPointByVersion (and by the deprecated
// cudaGetDriverEntryPoint), and passes each as a
// `const __grid_constant__ CUtensorMap` parameter.
//  - tile2d: <cuda/barrier>: a cuda::barrier in shared memory, its init made
//    visible to the async proxy (fence_proxy_async_shared_cta),
//    cp_async_bulk_tensor_2d_global_to_shared + barrier_arrive_tx + wait;
//    the tile is dumped, doubled plus one in shared memory, and stored back
//    with cp_async_bulk_tensor_2d_shared_to_global, commit, wait_group_read.
//    The edge boxes are partly outside the 100x70 tensor: the load fills
//    those elements with zeros (OOB_FILL_NONE) or NaN (NAN_REQUEST_ZERO_FMA),
//    the store skips them.
//  - tile3d: <cuda/ptx> only: mbarrier_init, mbarrier_arrive_expect_tx,
//    cp_async_bulk_tensor (3-D, global -> shared::cluster), a
//    mbarrier_try_wait_parity loop, fence_proxy_async(space_shared), the 3-D
//    shared::cta -> global store, cp_async_bulk_commit_group and
//    cp_async_bulk_wait_group_read. The tensor has padded rows and planes
//    (globalStrides wider than the data) and the boxes start at negative
//    coordinates, so they cross the low edges as well as the high ones.
// Every element of every dumped tile and of both output tensors (their
// padding included, which must keep its sentinel) is checked against the
// host's own arithmetic. It runs three times: plain, under --check (which
// exits 1 on any finding: none here), and with another warp order and a long
// asynchronous copy delay (a missing wait would read stale shared memory).
// NVCC: -cudart shared -std=c++17 -arch=sm_90a
// EXEC: -j 2
// EXEC: --check
// EXEC: --schedule 3 --async-delay 20000
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cmath>
#include <cstdint>
#include <vector>
#include "check.h"

namespace cde = cuda::device::experimental;
namespace ptx = cuda::ptx;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// the 2-D float tensor and its boxes
constexpr int W = 100, H = 70, BX = 32, BY = 16;
constexpr int GX = (W + BX - 1) / BX, GY = (H + BY - 1) / BY;   // 4 x 5 boxes
// the 3-D int tensor (padded: rows of P0, planes of P1 rows) and its boxes,
// which start at (-O0, -O1, 0)
constexpr int D0 = 24, D1 = 10, D2 = 6, P0 = 32, P1 = 12;
constexpr int B0 = 8, B1 = 4, B2 = 4, O0 = 3, O1 = 1;
constexpr int G0 = (D0 + O0 + B0 - 1) / B0, G1 = (D1 + O1 + B1 - 1) / B1, G2 = (D2 + B2 - 1) / B2;
constexpr int SENTINEL = -7;

__global__ void tile2d(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap nanmap,
                       const __grid_constant__ CUtensorMap out, float *tiles, float *nantiles) {
  __shared__ alignas(128) float s[BY][BX];
  __shared__ alignas(128) float n[BY][BX];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  int x = blockIdx.x * BX, y = blockIdx.y * BY, box = blockIdx.y * GX + blockIdx.x;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();   // the init, seen by the async proxy
  }
  __syncthreads();
  block_barrier::arrival_token tok;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&s, &in, x, y, bar);
    cde::cp_async_bulk_tensor_2d_global_to_shared(&n, &nanmap, x, y, bar);
    tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof(s) + sizeof(n));
  } else {
    tok = bar.arrive();
  }
  bar.wait(std::move(tok));
  for (int i = threadIdx.x; i < BX * BY; i += blockDim.x) {
    tiles[box * BX * BY + i] = (&s[0][0])[i];
    nantiles[box * BX * BY + i] = (&n[0][0])[i];
    (&s[0][0])[i] = (&s[0][0])[i] * 2.0f + 1.0f;
  }
  cde::fence_proxy_async_shared_cta();   // the writes above, seen by the store
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&out, x, y, &s);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();   // s is not reused, but the CTA may not end before
  }
}

__global__ void tile3d(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out, int *tiles) {
  __shared__ alignas(128) int s[B2][B1][B0];
  __shared__ uint64_t bar;
  int c[3] = {(int)blockIdx.x * B0 - O0, (int)blockIdx.y * B1 - O1, (int)blockIdx.z * B2};
  int box = (blockIdx.z * G1 + blockIdx.y) * G0 + blockIdx.x;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &s, &in, c, &bar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(s));
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  for (int i = threadIdx.x; i < B0 * B1 * B2; i += blockDim.x) {
    int v = (&s[0][0][0])[i];
    tiles[box * B0 * B1 * B2 + i] = v;
    (&s[0][0][0])[i] = 3 * v - 5;
  }
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out, c, &s);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

static PFN_cuTensorMapEncodeTiled_v12000 encode;

static CUtensorMap map(CUtensorMapDataType t, cuuint32_t rank, void *base, const cuuint64_t *dims,
                       const cuuint64_t *strides, const cuuint32_t *box, CUtensorMapFloatOOBfill fill) {
  CUtensorMap m;
  cuuint32_t es[3] = {1, 1, 1};
  CUresult r = encode(&m, t, rank, base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, fill);
  CHECK(r == CUDA_SUCCESS);
  return m;
}

static float in2(int x, int y) { return (float)(y * 1000 + x) * 0.25f - 300.0f; }
static int in3(int i, int j, int k) { return k * 10000 + j * 100 + i - 777; }

static void test2d(void) {
  std::vector<float> hin(W * H), hout(W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) hin[y * W + x] = in2(x, y);
  size_t ntile = (size_t)GX * GY * BX * BY;
  float *din, *dout, *dtiles, *dnan;
  OK(cudaMalloc(&din, W * H * sizeof(float)));
  OK(cudaMalloc(&dout, W * H * sizeof(float)));
  OK(cudaMalloc(&dtiles, ntile * sizeof(float)));
  OK(cudaMalloc(&dnan, ntile * sizeof(float)));
  OK(cudaMemcpy(din, hin.data(), W * H * sizeof(float), cudaMemcpyHostToDevice));
  OK(cudaMemset(dout, 0xff, W * H * sizeof(float)));   // a NaN the kernel must overwrite
  cuuint64_t dims[2] = {W, H}, strides[1] = {W * sizeof(float)};
  cuuint32_t box[2] = {BX, BY};
  CUtensorMap mi = map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, din, dims, strides, box, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  CUtensorMap mn = map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, din, dims, strides, box,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  CUtensorMap mo = map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dout, dims, strides, box, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  tile2d<<<dim3(GX, GY), 128>>>(mi, mn, mo, dtiles, dnan);
  OK(cudaGetLastError());
  OK(cudaDeviceSynchronize());
  std::vector<float> tiles(ntile), nans(ntile);
  OK(cudaMemcpy(tiles.data(), dtiles, ntile * sizeof(float), cudaMemcpyDeviceToHost));
  OK(cudaMemcpy(nans.data(), dnan, ntile * sizeof(float), cudaMemcpyDeviceToHost));
  OK(cudaMemcpy(hout.data(), dout, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0, zeros = 0;
  for (int by = 0; by < GY; by++)
    for (int bx = 0; bx < GX; bx++)
      for (int j = 0; j < BY; j++)
        for (int i = 0; i < BX; i++) {
          int x = bx * BX + i, y = by * BY + j;
          size_t k = ((size_t)(by * GX + bx) * BY + j) * BX + i;
          bool inside = x < W && y < H;
          float want = inside ? in2(x, y) : 0.0f;
          if (!inside) zeros++;
          if (tiles[k] != want || std::signbit(tiles[k]) != std::signbit(want) ||
              (inside ? nans[k] != want : !std::isnan(nans[k]))) {
            if (bad++ < 5)
              printf("FAIL tile2d box (%d,%d) element (%d,%d): %g and %g, expected %g%s\n", bx, by, i, j,
                     tiles[k], nans[k], want, inside ? "" : " and NaN");
          }
        }
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      if (hout[y * W + x] != in2(x, y) * 2.0f + 1.0f && bad++ < 5)
        printf("FAIL tile2d out (%d,%d): %g, expected %g\n", x, y, hout[y * W + x], in2(x, y) * 2.0f + 1.0f);
  CHECK(bad == 0);
  CHECK(zeros == GX * GY * BX * BY - W * H);   // the edge boxes did cross the tensor's edges
  printf("tile2d: %d boxes, %d elements outside the tensor\n", GX * GY, zeros);
  OK(cudaFree(din));
  OK(cudaFree(dout));
  OK(cudaFree(dtiles));
  OK(cudaFree(dnan));
}

static void test3d(void) {
  size_t n = (size_t)P0 * P1 * D2, ntile = (size_t)G0 * G1 * G2 * B0 * B1 * B2;
  std::vector<int> hin(n, SENTINEL), hout(n);
  for (int k = 0; k < D2; k++)
    for (int j = 0; j < D1; j++)
      for (int i = 0; i < D0; i++) hin[((size_t)k * P1 + j) * P0 + i] = in3(i, j, k);
  int *din, *dout, *dtiles;
  OK(cudaMalloc(&din, n * sizeof(int)));
  OK(cudaMalloc(&dout, n * sizeof(int)));
  OK(cudaMalloc(&dtiles, ntile * sizeof(int)));
  OK(cudaMemcpy(din, hin.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> sent(n, SENTINEL);
  OK(cudaMemcpy(dout, sent.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cuuint64_t dims[3] = {D0, D1, D2}, strides[2] = {P0 * sizeof(int), (cuuint64_t)P0 * P1 * sizeof(int)};
  cuuint32_t box[3] = {B0, B1, B2};
  CUtensorMap mi = map(CU_TENSOR_MAP_DATA_TYPE_INT32, 3, din, dims, strides, box, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  CUtensorMap mo = map(CU_TENSOR_MAP_DATA_TYPE_INT32, 3, dout, dims, strides, box, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  tile3d<<<dim3(G0, G1, G2), 64>>>(mi, mo, dtiles);
  OK(cudaGetLastError());
  OK(cudaDeviceSynchronize());
  std::vector<int> tiles(ntile);
  OK(cudaMemcpy(tiles.data(), dtiles, ntile * sizeof(int), cudaMemcpyDeviceToHost));
  OK(cudaMemcpy(hout.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0, zeros = 0;
  for (int bz = 0; bz < G2; bz++)
    for (int by = 0; by < G1; by++)
      for (int bx = 0; bx < G0; bx++)
        for (int c = 0; c < B2; c++)
          for (int b = 0; b < B1; b++)
            for (int a = 0; a < B0; a++) {
              int i = bx * B0 - O0 + a, j = by * B1 - O1 + b, k = bz * B2 + c;
              size_t t = (((size_t)((bz * G1 + by) * G0 + bx) * B2 + c) * B1 + b) * B0 + a;
              bool inside = i >= 0 && i < D0 && j >= 0 && j < D1 && k < D2;
              int want = inside ? in3(i, j, k) : 0;
              zeros += !inside;
              if (tiles[t] != want && bad++ < 5)
                printf("FAIL tile3d box (%d,%d,%d) element (%d,%d,%d): %d, expected %d\n", bx, by, bz, a, b, c,
                       tiles[t], want);
            }
  for (int k = 0; k < D2; k++)
    for (int j = 0; j < P1; j++)
      for (int i = 0; i < P0; i++) {
        bool data = i < D0 && j < D1;
        int want = data ? 3 * in3(i, j, k) - 5 : SENTINEL;   // the padding is not written
        int got = hout[((size_t)k * P1 + j) * P0 + i];
        if (got != want && bad++ < 5) printf("FAIL tile3d out (%d,%d,%d): %d, expected %d\n", i, j, k, got, want);
      }
  CHECK(bad == 0);
  CHECK(zeros == (int)ntile - D0 * D1 * D2);
  printf("tile3d: %d boxes, %d elements outside the tensor\n", G0 * G1 * G2, zeros);
  OK(cudaFree(din));
  OK(cudaFree(dout));
  OK(cudaFree(dtiles));
}

int main() {
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  void *p = nullptr;
  OK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSuccess && p);
  if (!p) return finish();
  encode = (PFN_cuTensorMapEncodeTiled_v12000)p;
  test2d();
  // the deprecated call: the symbol of the runtime's version, the same function
  void *old = nullptr;
  q = cudaDriverEntryPointSymbolNotFound;
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  OK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &old, cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSuccess && old == p);
  q = cudaDriverEntryPointSuccess;
  OK(cudaGetDriverEntryPoint("cuNoSuchFunction", &old, cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSymbolNotFound);
  test3d();
  return finish();
}
