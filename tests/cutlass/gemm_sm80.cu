// gemm_sm80.cu: a CUTLASS 2.x GEMM (cutlass::gemm::device::Gemm, OpClassTensorOp,
// Sm80: mma.sync.m16n8k16 tensor-core tiles, a 3-stage cp.async shared-memory
// pipeline, ldmatrix), f16 inputs, f32 accumulation, built with -arch=sm_80 and
// checked against a host GEMM (small integers, so every order of summation is
// exact). Built and run by run.sh.
#include "gemm_host.h"
#include <cutlass/cutlass.h>
#include <cutlass/gemm/device/gemm.h>
#include <cuda_runtime.h>

using ElementA = cutlass::half_t; using LayoutA = cutlass::layout::RowMajor;
using ElementB = cutlass::half_t; using LayoutB = cutlass::layout::ColumnMajor;
using ElementC = float; using LayoutC = cutlass::layout::ColumnMajor;
// 128x128x32 CTA tile, four 64x64x32 warps, 3 stages: 48 KiB of shared memory
using Gemm = cutlass::gemm::device::Gemm<
    ElementA, LayoutA, ElementB, LayoutB, ElementC, LayoutC, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3>;

int main() {
  int M = 256, N = 128, K = 128;
  std::vector<ElementA> A(M * K); std::vector<ElementB> B(K * N); std::vector<float> C(M * N, 0.f), D(M * N);
  fill_inputs(A, B);
  ElementA *dA; ElementB *dB; float *dC, *dD;
  cudaMalloc(&dA, A.size() * 2); cudaMalloc(&dB, B.size() * 2);
  cudaMalloc(&dC, C.size() * 4); cudaMalloc(&dD, D.size() * 4);
  cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice);
  // leading dimensions: A row-major M x K (K), B column-major K x N (K), C/D column-major (M)
  Gemm::Arguments args({M, N, K}, {dA, K}, {dB, K}, {dC, M}, {dD, M}, {1.f, 0.f});
  Gemm gemm;
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) { printf("cannot implement\n"); return 1; }
  if (gemm.initialize(args, nullptr) != cutlass::Status::kSuccess) { printf("initialize failed\n"); return 1; }
  if (gemm() != cutlass::Status::kSuccess) { printf("run failed\n"); return 1; }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("cuda error %s\n", cudaGetErrorString(e)); return 1; }
  cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost);
  int bad = count_mismatches(A, B, D, M, N, K);
  printf("%s: Sm80 device::Gemm %d x %d x %d, %d mismatches\n", bad ? "FAIL" : "ok", M, N, K, bad);
  return bad != 0;
}
