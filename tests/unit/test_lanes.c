/* test_lanes.c: the lane-group policy on its own (src/exec/lanes.c; the
 * rules in lanes.h's header): lowest first, passing a spinning group, held
 * at an aligned barrier, perturbed by a schedule seed. A warp of lanes whose
 * pcs and depths each case sets, over a program of `mov` and `bar.sync`. */
#include "../../src/exec/lanes.h"
#include "check.h"

#include <string.h>

enum { NCODE = 16, BAR_PC = 4 };   /* code[BAR_PC] is bar.sync, the rest mov */

static XInsn code[NCODE];
static Program prog;
static Launch launch;
static Cta cta;
static Warp warp;
static Lanes g;

/* A converged warp of 32 lanes at pc, depth 0, nothing waiting. */
static void reset(uint32_t pc) {
  for (int i = 0; i < NCODE; i++) {
    memset(&code[i], 0, sizeof code[i]);
    code[i].op = i == BAR_PC ? OP_BAR_SYNC : OP_MOV;
    code[i].fam = (uint8_t)op_info[code[i].op].family;
  }
  memset(&prog, 0, sizeof prog);
  prog.code = code;
  prog.ncode = NCODE;
  memset(&launch, 0, sizeof launch);
  launch.prog = &prog;
  memset(&cta, 0, sizeof cta);
  memset(&warp, 0, sizeof warp);
  warp.launch = &launch;
  warp.cta = &cta;
  warp.valid = UINT32_MAX;
  memset(&g, 0, sizeof g);
  for (int l = 0; l < WARP_SIZE; l++) g.pc[l] = pc;
}

static void set_pc(uint32_t lanes, uint32_t pc) {
  for (int l = 0; l < WARP_SIZE; l++) if (lanes >> l & 1) g.pc[l] = pc;
}

int main(void) {
  /* lowest first: converged, one group, nothing to merge with */
  reset(2);
  CHECK(lanes_pick(&g, &warp, 0));
  CHECK(g.gmask == UINT32_MAX && g.gpc == 2 && g.limit == UINT32_MAX);
  CHECK(g.state == LG_RUN && g.choice == LC_LOWEST);
  CHECK(!lanes_must_pick(&g, &warp, code) && !lanes_give_way(&g, &warp, code));

  /* lowest first: diverged, the lower pc runs until the other group's pc */
  reset(7);
  set_pc(0xffff0000u, 3);
  CHECK(lanes_pick(&g, &warp, 0));
  CHECK(g.gmask == 0xffff0000u && g.gpc == 3 && g.limit == 7);
  /* ... and the innermost frame before a lower pc */
  reset(7);
  set_pc(1u << 5, 9);
  g.depth[5] = 1;
  CHECK(lanes_pick(&g, &warp, 0) && g.gmask == 1u << 5 && g.gpc == 9);

  /* a stale group is picked again; flush writes its pc back to its lanes */
  reset(2);
  CHECK(lanes_pick(&g, &warp, 0));
  g.gpc = 6;
  lanes_regroup(&g);
  CHECK(g.state == LG_STALE && lanes_must_pick(&g, &warp, code));
  lanes_flush(&g);
  CHECK(g.state == LG_NONE && g.pc[0] == 6 && g.pc[31] == 6);

  /* held at an aligned barrier: lanes 0-15 at bar.sync (the lowest pc) wait
     while lanes 16-31 can still come to it or exit */
  reset(8);
  set_pc(0xffffu, BAR_PC);
  CHECK(lanes_pick(&g, &warp, 0));
  CHECK(g.gmask == 0xffff0000u && g.gpc == 8 && g.past_held);
  /* a backward branch past the held group regroups (it may reach it) */
  lanes_backward_branch(&g, &warp);
  CHECK(g.state == LG_STALE);
  /* once 16-31 exited, the held group runs, converged */
  warp.exited = 0xffff0000u;
  CHECK(lanes_pick(&g, &warp, 0) && g.gmask == 0xffffu && g.gpc == BAR_PC && !g.past_held);
  /* when the others wait, the held group runs unconverged (its handler reports it) */
  reset(8);
  set_pc(0xffffu, BAR_PC);
  g.waiting = 0xffff0000u;
  CHECK(lanes_pick(&g, &warp, 0) && g.gmask == 0xffffu && g.gpc == BAR_PC);
  /* a running group that comes to the aligned barrier unconverged must be picked again */
  reset(BAR_PC - 1);
  set_pc(0xffff0000u, 9);
  CHECK(lanes_pick(&g, &warp, 0) && g.gmask == 0xffffu);
  g.gpc = BAR_PC;
  CHECK(lanes_must_pick(&g, &warp, code));

  /* passing a spinning group: the LANES_SPIN_LIMIT+1-th backward branch
     while others can run deprioritises the group */
  reset(9);
  set_pc(0xffffu, 2);
  CHECK(lanes_pick(&g, &warp, 0) && g.gmask == 0xffffu);
  for (int i = 0; i < LANES_SPIN_LIMIT; i++) lanes_backward_branch(&g, &warp);
  CHECK(g.deprio == 0 && g.state == LG_RUN);
  lanes_backward_branch(&g, &warp);
  CHECK(g.deprio == 0xffffu && g.state == LG_STALE);
  CHECK(lanes_pick(&g, &warp, 0) && g.gmask == 0xffff0000u && g.gpc == 9);
  CHECK(g.choice == LC_PASSING);
  /* ... which gives way before an aligned instruction, to the lowest group */
  CHECK(!lanes_give_way(&g, &warp, code));
  g.gpc = BAR_PC;
  CHECK(lanes_give_way(&g, &warp, code));
  set_pc(0xffff0000u, BAR_PC);   /* (pick writes gpc back first) */
  CHECK(lanes_yield(&g, &warp) && g.deprio == 0 && g.gmask == 0xffffu && g.gpc == 2);
  CHECK(g.choice == LC_LOWEST && g.limit == 3);
  /* only deprioritised lanes left: they run, and the deprioritising ends */
  reset(2);
  g.deprio = UINT32_MAX;
  CHECK(lanes_pick(&g, &warp, 0) && g.gmask == UINT32_MAX && g.deprio == 0);

  /* perturbed: a schedule seed picks a part of a runnable lane's group and
     chooses again soon; LANES_CALM (and a scheduling point) leave it to
     lowest first */
  int perturbed = 0;
  for (uint64_t seed = 1; seed <= 64; seed++) {
    reset(7);
    set_pc(0xffff0000u, 3);
    launch.schedule = seed;
    CHECK(lanes_pick(&g, &warp, 0));
    CHECK(g.gmask != 0 && g.limit <= g.gpc + 16);
    if (g.choice == LC_PERTURBED) {
      perturbed++;
      CHECK((g.gpc == 3 && (g.gmask & ~0xffff0000u) == 0) || (g.gpc == 7 && (g.gmask & ~0xffffu) == 0));
    }
    reset(7);
    set_pc(0xffff0000u, 3);
    launch.schedule = seed;
    CHECK(lanes_pick(&g, &warp, LANES_CALM) && g.gmask == 0xffff0000u && g.choice == LC_LOWEST);
  }
  CHECK(perturbed > 0);
  for (uint64_t seed = 1; seed <= 8; seed++) {   /* converged at bar.sync: never perturbed */
    reset(BAR_PC);
    launch.schedule = seed;
    CHECK(lanes_pick(&g, &warp, 0) && g.gmask == UINT32_MAX && g.choice == LC_LOWEST);
  }

  return unit_report();
}
