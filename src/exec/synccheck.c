/* synccheck.c: synchronization misuse under --check (issue 17), found at a
 * CTA barrier's completion (BarCta.on_check, called by src/sync/bar.c).
 *
 * Divergent __syncthreads. An aligned barrier without a thread count
 * (bar.sync 0, __syncthreads()) requires every thread of the CTA to execute
 * the same barrier instruction (PTX ISA 9.7.13.1 .aligned; CUDA: a
 * __syncthreads() in conditional code needs a condition uniform over the
 * block). ptxvm's barrier completes by id whatever instruction each warp
 * waits at, so a barrier in divergent code, or in a loop whose trip count
 * differs between warps, runs to completion; here such a completion, its
 * waiters at different instructions, is a finding. Exited threads do not
 * take part (a barrier after `if (tid >= n) return;` is legal), and
 * barriers with a count (named barriers of warp-specialized code, whose
 * producers and consumers wait at different instructions by design) are
 * not judged.
 *
 * A thread count that changes between completions. Different counts in one
 * instance of a barrier are an error of src/sync/bar.c; the ISA (9.7.13.1)
 * ties no count to an id across completions (each completion resets the
 * barrier), so a later completion of the id with another count, or with
 * the no-count form after a counted one (or the reverse), is legal but
 * suspicious: a warp still on its way to the earlier use would be counted
 * in the later one. Reported once per launch for an id and pair of
 * instructions (those the completions' first waiting threads wait at);
 * a completion that no thread waits at (every participant used .arrive)
 * names no instruction and is not judged. */
#include "synccheck.h"
#include "program.h"
#include "../sync/bar.h"

#include <stdio.h>
#include <stdlib.h>

/* Cta.synccheck: per barrier id, its last judged completion. */
typedef struct SyncLast {
  const XInsn *x[BAR_IDS];   /* its first waiter's instruction; NULL: none yet */
  uint32_t count[BAR_IDS];   /* its thread count, 0 = no-count form */
} SyncLast;

static void count_text(uint32_t count, char *buf, size_t n) {
  if (count) snprintf(buf, n, "thread count %u", count);
  else snprintf(buf, n, "no thread count (every thread of the CTA)");
}

static void count_change(Cta *c, const BarCta *b, uint32_t id) {
  const XInsn *x = NULL;
  int wi = -1, l = -1;
  for (int i = 0; i < b->nwarps && !x; i++) {
    if (!(b->bar[id].arrived_warps >> i & 1)) continue;   /* gathering for the next one */
    for (uint32_t p = b->w[i].parked[id]; p && !x; p &= p - 1) {
      l = __builtin_ctz(p);
      if ((x = b->w[i].where[l])) wi = i;
    }
  }
  if (!x) return;
  SyncLast *s = c->synccheck;
  if (!s && !(s = c->synccheck = calloc(1, sizeof *s))) return;
  const XInsn *px = s->x[id];
  uint32_t pcount = s->count[id], count = b->bar[id].expected;
  s->x[id] = x;
  s->count[id] = count;
  if (!px || pcount == count) return;
  const Warp *w = &c->warps[wi];
  const Launch *L = w->launch;
  char at0[512], at1[512], c0[64], c1[64], msg[1400], text[1800];
  exec_where(L->prog, px, at0, sizeof at0);
  exec_where(L->prog, x, at1, sizeof at1);
  count_text(pcount, c0, sizeof c0);
  count_text(count, c1, sizeof c1);
  /* the dedupe key: CTA-independent, so the earliest cluster's is kept */
  snprintf(msg, sizeof msg, "barrier misuse: barrier %u: thread count changed between completions, "
           "%s -> %s", id, at0, at1);
  const uint32_t *k = c->ctaid;
  snprintf(text, sizeof text, "barrier misuse: barrier %u completed with %s at %s by %%ctaid (%u,%u,%u) "
           "%%tid (%u,%u,%u) after completing with %s at %s\n  in kernel %s (a named barrier's "
           "thread count is usually fixed: with another count, a warp still on its way to the "
           "earlier use would arrive at the later one and be counted there)", id, c1, at1, k[0],
           k[1], k[2], w->tid[0][l], w->tid[1][l], w->tid[2][l], c0, at0, L->kernel->name);
  exec_report_text(w->launch, launch_current(), x, msg, text);
}

static void divergent(Cta *c, const BarCta *b, uint32_t id) {
  if (b->bar[id].expected) return;
  const XInsn *x0 = NULL;
  int w0 = -1, l0 = -1;
  for (int i = 0; i < b->nwarps; i++) {
    const BarWarp *bw = &b->w[i];
    for (uint32_t p = bw->parked[id]; p; p &= p - 1) {
      int l = __builtin_ctz(p);
      const XInsn *x = bw->where[l];
      if (x == x0 || !x || !sync_bar_aligned(x)) continue;   /* the common case first */
      if (!x0) { x0 = x; w0 = i; l0 = l; continue; }
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

void synccheck_bar_complete(void *ctx, const BarCta *b, uint32_t id) {
  count_change(ctx, b, id);
  divergent(ctx, b, id);
}
