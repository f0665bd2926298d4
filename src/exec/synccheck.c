/* synccheck.c: synchronization misuse under --check (issue 17), found at a
 * CTA barrier's completion (BarCta.on_check, called by src/sync/bar.c).
 *
 * An aligned barrier without a thread count (bar.sync 0, __syncthreads())
 * requires every thread of the CTA to execute the same barrier instruction
 * (PTX ISA 9.7.13.1 .aligned; CUDA: a __syncthreads() in conditional code
 * needs a condition uniform over the block). ptxvm's barrier completes by id
 * whatever instruction each warp waits at, so a barrier in divergent code,
 * or in a loop whose trip count differs between warps, runs to completion;
 * here such a completion, its waiters at different instructions, is a
 * finding. Exited threads do not take part (a barrier after `if (tid >= n)
 * return;` is legal), and barriers with a count (named barriers of
 * warp-specialized code, whose producers and consumers wait at different
 * instructions by design) are not judged. */
#include "synccheck.h"
#include "program.h"
#include "../sync/bar.h"

#include <stdio.h>

void synccheck_bar_complete(void *ctx, const BarCta *b, uint32_t id) {
  Cta *c = ctx;
  if (b->bar[id].expected) return;
  const XInsn *x0 = NULL;
  int w0 = -1, l0 = -1;
  for (int i = 0; i < b->nwarps; i++) {
    const BarWarp *bw = &b->w[i];
    for (uint32_t p = bw->parked[id]; p; p &= p - 1) {
      int l = __builtin_ctz(p);
      const XInsn *x = bw->where[l];
      if (!x || !sync_bar_aligned(x)) continue;
      if (!x0) { x0 = x; w0 = i; l0 = l; continue; }
      if (x == x0) continue;
      Warp *w = &c->warps[i];
      const Warp *v = &c->warps[w0];
      char at0[512], at1[512];
      exec_where(w->launch->prog, x0, at0, sizeof at0);
      exec_where(w->launch->prog, x, at1, sizeof at1);
      const uint32_t *k = c->ctaid;
      exec_report(w, x, l, "barrier misuse: aligned barrier %u (no thread count: __syncthreads) "
                  "completed with threads at different barrier instructions: %s by %%ctaid "
                  "(%u,%u,%u) %%tid (%u,%u,%u) and %s by %%ctaid (%u,%u,%u) %%tid (%u,%u,%u) "
                  "(a barrier in divergent code, or in a loop whose trip count differs between "
                  "threads)", id, at0, k[0], k[1], k[2], v->tid[0][l0], v->tid[1][l0],
                  v->tid[2][l0], at1, k[0], k[1], k[2], w->tid[0][l], w->tid[1][l], w->tid[2][l]);
      return;
    }
  }
}
