// gridsync.cu: grid-wide barriers of cooperative_groups (this_grid().sync()),
// for tests/driver/launch.c, which holds the PTX nvcc 13.0 made of it:
//   nvcc -arch=sm_90 -ptx tests/driver/gridsync.cu -o gridsync.ptx
// Each of `rounds` rounds, every thread t of the grid reads data[(t + 1) % n]
// (n: all the grid's threads), the grid synchronises, thread t writes that
// value plus t + round to data[t], and the grid synchronises again: a
// barrier that lets any CTA through early leaves a stale or torn value.
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
