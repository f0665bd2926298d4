// cooperative.cu: a grid-wide barrier (cooperative_groups::this_grid().sync())
// launched with cudaLaunchCooperativeKernel and with cudaLaunchKernelExC's
// cooperative attribute: every CTA's first phase is visible to every CTA
// after the barrier; the occupancy calculator bounds the grid.
#include <cooperative_groups.h>
#include "check.h"
namespace cg = cooperative_groups;

__global__ void two_phase(int *a, int *out, int n) {
  cg::grid_group g = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
  g.sync();
  if (i < n) out[i] = a[n - 1 - i];   // written by another CTA before the barrier
}

int main() {
  int per_sm = 0, sms = 0;
  OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phase, 128, 0));
  OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(per_sm > 0);
  int blocks = 8, n = blocks * 128, *a = nullptr, *out = nullptr;
  CHECK(blocks <= per_sm * sms);
  OK(cudaMalloc(&a, n * sizeof(int)));
  OK(cudaMalloc(&out, n * sizeof(int)));
  void *args[] = {&a, &out, &n};
  OK(cudaLaunchCooperativeKernel((void *)two_phase, dim3(blocks), dim3(128), args, 0, 0));
  static int h[8 * 128];
  OK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool good = true;
  for (int i = 0; i < n; i++) good = good && h[i] == n - 1 - i;
  CHECK(good);
  OK(cudaMemset(out, 0, n * sizeof(int)));
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeCooperative;
  attr.val.cooperative = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(128);
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  OK(cudaLaunchKernelExC(&cfg, (void *)two_phase, args));
  OK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h[0] == n - 1 && h[n - 1] == 0);
  // a cooperative grid larger than the device holds at once is refused
  EXPECT(cudaLaunchCooperativeKernel((void *)two_phase, dim3(per_sm * sms + 1), dim3(128), args, 0, 0),
         cudaErrorCooperativeLaunchTooLarge);
  return finish();
}
