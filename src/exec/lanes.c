/* lanes.c: the lane-group policy of a warp; the rules are in lanes.h's
 * header, one function each here. The interpreter (interp.c) owns the
 * lanes' pcs between picks: it advances the running group's gpc, splits it
 * at divergent branches, parks lanes (waiting) and moves them at calls. */
#include "lanes.h"
#include "../util/check.h"

void lanes_flush_group(Lanes *g) {
  if (g->gmask == UINT32_MAX) FOR_LANES(l) g->pc[l] = g->gpc;   /* a loop that vectorises */
  else for (int l = 0; l < WARP_SIZE; l++) if (g->gmask >> l & 1) g->pc[l] = g->gpc;
  g->state = LG_NONE;
}

/* Lowest first: the group to run among cand, innermost frame, lowest pc
 * (*m its lanes). *lim: the lowest pc above it of the lanes of `watch` in
 * its frame, where it must regroup to merge with them. */
LANE_CLONES static int lanes_lowest_group(const Lanes *g, uint32_t cand, uint32_t watch,
                                          uint32_t *m, uint32_t *lim) {
  *m = 0;
  *lim = UINT32_MAX;
  if (cand == UINT32_MAX) {   /* a full warp: converged (one pc, one depth) is the usual case */
    uint32_t diff = 0;
    FOR_LANES(l) diff |= (g->pc[l] ^ g->pc[0]) | (g->depth[l] ^ g->depth[0]);
    if (!diff) { *m = cand; return 0; }
  }
  if (!cand) return -1;
  /* Loops without branches, which vectorise: the deepest frame d of cand,
     its lowest pc p, the lanes of cand there (the lowest of them is the
     first lane found by a lane-by-lane search), and the lowest pc above p
     in frame d among cand | watch. pcs lie below the program's length, so
     UINT32_MAX stands for none. */
  uint32_t d = 0, p = UINT32_MAX, lo = UINT32_MAX, both = cand | watch;
  FOR_LANES(l) {
    uint32_t v = (cand >> l & 1) ? g->depth[l] : 0;
    d = v > d ? v : d;
  }
  FOR_LANES(l) {
    uint32_t v = ((cand >> l & 1) && g->depth[l] == d) ? g->pc[l] : UINT32_MAX;
    p = v < p ? v : p;
  }
  int32_t t[WARP_SIZE];
  FOR_LANES(l) t[l] = -(int32_t)((cand >> l & 1) && g->depth[l] == d && g->pc[l] == p);
  FOR_LANES(l) {
    uint32_t v = ((both >> l & 1) && g->depth[l] == d && g->pc[l] > p) ? g->pc[l] : UINT32_MAX;
    lo = v < lo ? v : lo;
  }
  *m = lanes_pack(t);
  *lim = lo;
  return __builtin_ctz(*m);
}

uint32_t lanes_at_aligned_barrier(const Lanes *g, const Warp *w, uint32_t run) {
  const XInsn *code = w->launch->prog->code;
  uint32_t h = 0;
  for (int l = 0; l < WARP_SIZE; l++)
    if ((run >> l & 1) && lanes_aligned_barrier(&code[g->pc[l]])) h |= 1u << l;
  return h;
}

/* Passing a spinning group: the lanes of run not deprioritised, or all of
 * run when only deprioritised ones are left (which ends the deprioritising). */
static uint32_t lanes_not_spinning(Lanes *g, uint32_t run) {
  uint32_t cand = run & ~g->deprio;
  if (!cand) { g->deprio = 0; cand = run; }
  return cand;
}

/* Held at an aligned barrier. The group `best` (lanes *m) of the live
 * lanes is at an aligned barrier while other lanes of its warp are
 * elsewhere: it is not judged yet but held (left out) while any lane of
 * the warp that is not at an aligned barrier can run, since those lanes
 * may still exit or come to the same instruction, so that the non-exited
 * lanes execute it converged (PTX ISA §9.7.13.1; the early `return` before
 * `__syncthreads()`). When every runnable lane is at one, the lowest group
 * runs, and its handler reports it if the warp is still not converged: the
 * others wait elsewhere (XS_WAIT) or are at a different aligned barrier.
 * The verdict does not depend on which group ran first. Returns the lanes
 * that may run (*cand, *m, *lim, best updated). */
static uint32_t hold_at_aligned_barrier(Lanes *g, const Warp *w, uint32_t live, uint32_t *cand,
                                        int *best, uint32_t *m, uint32_t *lim) {
  uint32_t held = lanes_at_aligned_barrier(g, w, live);
  if (held == live) return live;
  uint32_t run = live & ~held;
  *cand = lanes_not_spinning(g, run);
  *best = lanes_lowest_group(g, *cand, held, m, lim);
  g->past_held = false;   /* past a held group: a backward branch may come back to it */
  for (uint32_t h = held; h; h &= h - 1) {
    int l = __builtin_ctz(h);
    g->past_held |= g->depth[l] == g->depth[*best] && g->pc[l] < g->pc[*best];
  }
  return run;
}

/* Perturbed (Launch.schedule != 0): other legal interleavings of the lane
 * groups (independent thread scheduling), so that code relying on implicit
 * warp synchronicity shows it. The group to run is a pseudo-random runnable
 * lane's, sometimes only a random part of it, and the choice is made again
 * every few instructions. At a scheduling point (lanes_sched_free) the
 * choice is left to lowest first, and a perturbed group that reaches one
 * gives way (lanes_give_way), so the lanes reconverge before it. */
static void lanes_perturb(Lanes *g, const Warp *w, uint32_t cand) {
  if (!g->rng)
    g->rng = w->launch->schedule ^ (uint64_t)(w->id + 1) * UINT64_C(0x9E3779B97F4A7C15) ^
             ((uint64_t)w->cta->ctaid[0] << 40 ^ (uint64_t)w->cta->ctaid[1] << 20 ^ w->cta->ctaid[2]);
  uint64_t r = splitmix64(&g->rng);
  if (g->limit > g->gpc + 1) g->limit = g->gpc + 1;   /* choose again soon */
  if (!lanes_sched_free(w, g->gpc)) return;
  int k = (int)(r % (uint64_t)__builtin_popcount(cand)), l = 0;
  for (uint32_t c = cand;; c &= c - 1)
    if (k-- == 0) { l = __builtin_ctz(c); break; }
  if (!lanes_sched_free(w, g->pc[l])) return;
  uint32_t m = 0, lim = UINT32_MAX;
  for (int i = 0; i < WARP_SIZE; i++)
    if ((cand >> i & 1) && g->depth[i] == g->depth[l] && g->pc[i] == g->pc[l]) m |= 1u << i;
  if (r >> 32 & 1) m &= (uint32_t)(r >> 33) | 1u << l;   /* a part of the group */
  for (int i = 0; i < WARP_SIZE; i++)
    if ((cand & ~m) >> i & 1 && g->depth[i] == g->depth[l] && g->pc[i] < lim) lim = g->pc[i];
  PTXVM_ASSERT((m >> l & 1) && (m & ~cand) == 0);   /* a part of cand holding lane l */
  uint32_t soon = g->pc[l] + 1 + (uint32_t)(r >> 60);   /* choose again within 1..16 */
  g->gmask = m;
  g->gpc = g->pc[l];
  g->limit = lim < soon ? lim : soon;
  g->choice = LC_PERTURBED;
}

/* Lowest first among the runnable lanes not deprioritised, unless held at
 * an aligned barrier; then perturbed under --schedule. */
bool lanes_pick(Lanes *g, const Warp *w, unsigned how) {
  uint32_t prev = g->state != LG_NONE ? g->gmask : 0;
  lanes_flush(g);
  uint32_t live = warp_live(w) & ~g->waiting;
  if (!live) return false;
  uint32_t run = live, cand = lanes_not_spinning(g, live), m, lim;
  int best = lanes_lowest_group(g, cand, 0, &m, &lim);
  if (m != live && lanes_aligned_barrier(&w->launch->prog->code[g->pc[best]]))
    run = hold_at_aligned_barrier(g, w, live, &cand, &best, &m, &lim);
  if (run == live) g->past_held = false;
  /* the group: runnable lanes of one frame and pc, not empty */
  PTXVM_ASSERT(m != 0 && (m & ~live) == 0 && (m & cand) == m);
  PTXVM_ASSERT(g->pc[best] < w->launch->prog->ncode);
  if (prev && (m & prev) == prev && m != prev) g->merges++;
  g->gmask = m;
  g->gpc = g->pc[best];
  g->limit = lim;
  g->state = LG_RUN;
  g->choice = cand != run ? LC_PASSING : LC_LOWEST;   /* gives way at a convergence point */
  if (w->launch->schedule && !(how & LANES_CALM)) lanes_perturb(g, w, cand);
  return true;
}

bool lanes_yield(Lanes *g, const Warp *w) {
  g->deprio = 0;   /* the lowest group must run, even one that was spinning */
  if (!lanes_pick(g, w, LANES_CALM)) return false;
  if (g->limit > g->gpc + 1) g->limit = g->gpc + 1;   /* choose again soon */
  return true;
}
