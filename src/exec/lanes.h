/* lanes.h: the lane-group policy of a warp (lanes.c): which of its lanes run
 * the next instruction (DESIGN.md "Independent thread scheduling";
 * ARCHITECTURE.md "Warp collectives and independent thread scheduling").
 *
 * Each lane has its own pc and call depth; a lane group is the set of
 * runnable lanes that share (depth, pc). The rules, one function each:
 *   - lowest first (lanes_lowest_group): the group of the innermost frame
 *     with the lowest pc runs, so structured code reconverges where the
 *     hardware reconverges it; a group runs until its pc reaches `limit`
 *     (the next pc of another group of its frame), where it regroups;
 *   - passing a spinning group (lanes_backward_branch): a group that
 *     branches backwards more than LANES_SPIN_LIMIT times while others
 *     could run is deprioritised, so the lane holding a lock can run; the
 *     group chosen instead (LC_PASSING) gives way before an aligned
 *     instruction (lanes_give_way), where the hardware reconverges;
 *   - held at an aligned barrier (hold_at_aligned_barrier in lanes.c): a
 *     group at one while other lanes of its warp can still come to it or
 *     exit is held, then judged converged or not by the barrier's handler;
 *   - perturbed (--schedule, Launch.schedule): a random runnable lane's
 *     group, or part of it, runs for a few instructions (LC_PERTURBED) and
 *     gives way before a scheduling point (lanes_sched_free).
 * The interpreter (interp.c) asks lanes_must_pick before each instruction
 * and lanes_give_way after a pick, and reports what handlers did through
 * lanes_regroup and lanes_backward_branch. */
#ifndef PTXVM_EXEC_LANES_H
#define PTXVM_EXEC_LANES_H

#include "program.h"

enum { LANES_SPIN_LIMIT = 256 };

/* Whether a group is chosen, and whether it must be chosen again. */
typedef enum {
  LG_NONE,       /* no group: every lane's pc is in pc[] */
  LG_STALE,      /* the group's pc is in gpc, but it must be chosen again
                    (it reached limit, lanes were released, ...) */
  LG_RUN,        /* the group gmask runs at gpc */
} LaneGroupState;

/* Which rule chose the running group. */
typedef enum {
  LC_LOWEST,     /* lowest first (converged, or the lowest group) */
  LC_PASSING,    /* lowest first among lanes not deprioritised */
  LC_PERTURBED,  /* --schedule */
} LaneChoice;

typedef struct Lanes {
  uint32_t pc[WARP_SIZE];           /* each lane's pc (stale for gmask's lanes
                                       while state != LG_NONE: gpc holds it) */
  uint32_t depth[WARP_SIZE];        /* call depth */
  uint32_t waiting;                 /* lanes blocked by XS_WAIT */
  uint32_t deprio;                  /* deprioritised (spinning) lanes */
  uint32_t backedges;               /* backward branches while others wait */
  uint32_t gmask, gpc, limit;       /* the running group, its pc, its limit */
  LaneGroupState state;
  LaneChoice choice;
  bool past_held;                   /* the group runs past a held one */
  uint64_t rng;                     /* Launch.schedule's lane-group choice */
  uint64_t merges;                  /* groups joined (LaunchStats) */
} Lanes;

/* splitmix64 step: the pseudo-random choices of Launch.schedule (warp
 * order in interp.c, lane groups here). */
static inline uint64_t splitmix64(uint64_t *st) {
  uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Whether every lane of the warp must execute x converged: its row says so
 * (CONV in opcodes.def: bar.sync, bar.arrive and bar.red, MMA, the
 * deprecated shfl and vote...), or it has .aligned. */
static inline bool lanes_aligned_insn(const XInsn *x) {
  return (x->mods & XM_ALIGNED) || op_has(x->op, OPF_CONV);
}

/* Whether x is an aligned barrier, whose handler requires every non-exited
 * lane of the warp converged on it: bar{.cta}.sync/.arrive/.red,
 * barrier{.cta}.*.aligned (sync.c) and barrier.cluster.*.aligned (cluster.c). */
static inline bool lanes_aligned_barrier(const XInsn *x) {
  return lanes_aligned_insn(x) && op_info[x->op].family == FAM_SYNC;
}

/* Whether a perturbed group may run the instruction at pc: not a
 * scheduling point (SCHED or CONV in opcodes.def, .aligned) nor a backward
 * branch, which would put it ahead of the others for lowest first (a deeper
 * frame, a lower pc in the next iteration of a loop). */
static inline bool lanes_sched_free(const Warp *w, uint32_t pc) {
  const XInsn *x = &w->launch->prog->code[pc];
  if (x->op == OP_BRA && x->target <= pc) return false;
  return !(op_info[x->op].flags & (OPF_SCHED | OPF_CONV)) && !(x->mods & XM_ALIGNED);
}

/* Writes the running group's pc back to its lanes; no group is chosen.
 * (The loop is out of line: inlined at each of its callers it costs more
 * than the call.) */
void lanes_flush_group(Lanes *g);
static inline void lanes_flush(Lanes *g) {
  if (g->state != LG_NONE) lanes_flush_group(g);
}

/* The running group must be chosen again before the next instruction. */
static inline void lanes_regroup(Lanes *g) {
  if (g->state == LG_RUN) g->state = LG_STALE;
}

/* Lanes not exited, not waiting, outside the running group. */
static inline uint32_t lanes_others(const Lanes *g, const Warp *w) {
  return warp_live(w) & ~g->waiting & ~g->gmask;
}

/* Whether a group must be picked before the next instruction: none runs,
 * it must regroup, or it came unconverged to an aligned barrier (where it is
 * held or judged: hold_at_aligned_barrier). */
static inline bool lanes_must_pick(const Lanes *g, const Warp *w, const XInsn *code) {
  return g->state != LG_RUN ||
         (g->gmask != (warp_live(w)) && code[g->gpc].fam == FAM_SYNC &&
          lanes_aligned_barrier(&code[g->gpc]));
}

/* Whether the running group must give way to lowest first before the
 * instruction at its pc: a perturbed group at a scheduling point, a group
 * passing a spinning one at an aligned instruction. */
static inline bool lanes_give_way(const Lanes *g, const Warp *w, const XInsn *code) {
  if (g->choice == LC_LOWEST) return false;
  return g->choice == LC_PASSING ? lanes_aligned_insn(&code[g->gpc]) : !lanes_sched_free(w, g->gpc);
}

/* Picks the group to run (lanes.c pick rules); false when no lane can run.
 * how: LANES_CALM picks by lowest first alone (no perturbing). */
enum { LANES_CALM = 1u << 0 };
bool lanes_pick(Lanes *g, const Warp *w, unsigned how);
/* The running group gives way (lanes_give_way): lowest first picks again,
 * deprioritised lanes included, and chooses again soon. False when no lane
 * can run. */
bool lanes_yield(Lanes *g, const Warp *w);
/* Passing a spinning group: the whole running group branched backwards.
 * Past a held group it regroups (it may reach it); while others could run,
 * the LANES_SPIN_LIMIT-th such branch deprioritises it. */
static inline void lanes_backward_branch(Lanes *g, const Warp *w) {
  if (g->past_held) lanes_regroup(g);   /* it may reach a held group */
  if (lanes_others(g, w) && ++g->backedges > LANES_SPIN_LIMIT) {
    g->deprio |= g->gmask;
    g->backedges = 0;
    lanes_regroup(g);
  }
}
/* Lanes of `run` whose pc is at an aligned barrier. */
uint32_t lanes_at_aligned_barrier(const Lanes *g, const Warp *w, uint32_t run);

#endif
