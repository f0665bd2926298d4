// cluster.cu: a kernel with __cluster_dims__ launched with <<<>>>: its CTAs
// run as clusters of two, each CTA reads its partner's shared memory
// (distributed shared memory, cooperative_groups::this_cluster), and
// cudaFuncGetAttributes reports the required cluster shape.
#include <cooperative_groups.h>
#include "check.h"
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) swap_pairs(int *out) {
  cg::cluster_group c = cg::this_cluster();
  __shared__ int s;
  if (threadIdx.x == 0) s = blockIdx.x * 10;
  c.sync();
  int *peer = c.map_shared_rank(&s, (c.block_rank() + 1) % 2);
  if (threadIdx.x == 0) out[blockIdx.x] = *peer + (int)c.num_blocks();
  c.sync();   // the partner's shared memory stays until both have read
}

int main() {
  int *d = nullptr, h[8];
  OK(cudaMalloc(&d, sizeof h));
  swap_pairs<<<8, 64>>>(d);
  OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 8; b++) CHECK(h[b] == (b ^ 1) * 10 + 2);
  cudaFuncAttributes fa;
  OK(cudaFuncGetAttributes(&fa, swap_pairs));
  CHECK(fa.requiredClusterWidth == 2 && fa.requiredClusterHeight == 1 && fa.requiredClusterDepth == 1);
  return finish();
}
