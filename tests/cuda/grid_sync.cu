// grid_sync: cooperative_groups this_grid().sync(), the grid-wide barrier of a cooperative launch (cuLaunchCooperativeKernel; ptxvm run --cooperative): nvcc 13 compiles it inline as an atom.add.release.gpu on the grid workspace the driver passes in %envreg1:%envreg2 and an ld.acquire.gpu spin until the counter's top bit flips. Each round every thread t reads data[(t + 1) % n] (n: the grid's threads), the grid syncs, t writes that value + t + round to data[t], the grid syncs again: a barrier that lets a CTA through early leaves stale values. Launch: gridsync_rounds --cooperative -g 24 -b 32 -a s32[768]:iota -a s32:2 -o 0 (more CTAs than a host thread keeps resident in a plain launch).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void gridsync_rounds(int *data, int rounds) {
  cg::grid_group g = cg::this_grid();
  unsigned long long t = g.thread_rank(), n = g.size();
  for (int r = 0; r < rounds; r++) {
    int v = data[(t + 1) % n];
    g.sync();
    data[t] = v + (int)t + r;
    g.sync();
  }
}
