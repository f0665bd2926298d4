// gemm_sm90.cu: a CUTLASS 3 sm90 GEMM (CollectiveBuilder) with a cp.async or TMA
// mainloop and wgmma, in the kernel schedule SCHEDULE (-DSCHEDULE=...: the
// warp-specialized KernelCpAsyncWarpSpecialized, ...Cooperative or ...Pingpong,
// or KernelTmaWarpSpecialized, ...Cooperative or ...Pingpong),
// f16 inputs, f32 accumulation, checked against a host GEMM (small integers,
// so every order of summation is exact). Built and run by run.sh.
#include "gemm_host.h"
#include <cutlass/cutlass.h>
#include <cute/tensor.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/util/packed_stride.hpp>
#include <cuda_runtime.h>

#ifndef SCHEDULE
#define SCHEDULE KernelCpAsyncWarpSpecialized
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

using namespace cute;
using ElementA = cutlass::half_t; using LayoutA = cutlass::layout::RowMajor;
using ElementB = cutlass::half_t; using LayoutB = cutlass::layout::ColumnMajor;
using ElementC = float; using LayoutC = cutlass::layout::ColumnMajor;
using TileShape = Shape<_128, _128, _64>;
#ifndef CLUSTER_M
#define CLUSTER_M 1   // -DCLUSTER_M=2: a 2x1 cluster, B multicast by TMA to both CTAs
#endif
using ClusterShape = Shape<Int<CLUSTER_M>, _1, _1>;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    ElementC, LayoutC, 4, ElementC, LayoutC, 4, cutlass::epilogue::NoSmemWarpSpecialized>::CollectiveOp;
using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, LayoutA, 8, ElementB, LayoutB, 8, float,
    TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    cutlass::gemm::SCHEDULE>::CollectiveOp;
using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop, CollectiveEpilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

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
  auto sA = cutlass::make_cute_packed_stride(typename GemmKernel::StrideA{}, {M, K, 1});
  auto sB = cutlass::make_cute_packed_stride(typename GemmKernel::StrideB{}, {N, K, 1});
  auto sC = cutlass::make_cute_packed_stride(typename GemmKernel::StrideC{}, {M, N, 1});
  auto sD = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, {M, N, 1});
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {M, N, K, 1},
                                {dA, sA, dB, sB}, {{1.f, 0.f}, dC, sC, dD, sD}};
  Gemm gemm;
  size_t ws = Gemm::get_workspace_size(args);
  void *work = nullptr;
  if (ws) cudaMalloc(&work, ws);
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) { printf("cannot implement\n"); return 1; }
  if (gemm.initialize(args, work) != cutlass::Status::kSuccess) { printf("initialize failed\n"); return 1; }
  if (gemm.run() != cutlass::Status::kSuccess) { printf("run failed\n"); return 1; }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("cuda error %s\n", cudaGetErrorString(e)); return 1; }
  cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost);
  int bad = count_mismatches(A, B, D, M, N, K);
  printf("%s: %s %d x %d x %d, %d mismatches\n", bad ? "FAIL" : "ok", STR(SCHEDULE), M, N, K, bad);
  return bad != 0;
}
