/* sync.c: family SYNC, first cut (PTX ISA 9.0 §9.7.13; sync digest §5, §8,
 * §17).
 *
 * bar.sync / barrier.sync / bar.cta.sync without a thread count: a simple
 * CTA-wide barrier over all threads that have not exited. Arriving lanes
 * block (XS_WAIT); the lane that completes the count releases everyone.
 * Threads that exit reduce the count, so the interpreter polls
 * (sync_cta_poll) when no warp can run. Barrier ids are not told apart yet:
 * without a count every barrier waits for all live threads, so the ids
 * cannot disagree about who takes part. Counts, bar.arrive, bar.red,
 * bar.warp.sync and the cluster barrier are a later issue (the selector
 * refuses them).
 *
 * membar and fence (§9.7.13.4): the interpreter executes one instruction at
 * a time per CTA, and a CTA's warps run on one host thread, so every access
 * of a CTA is already ordered and visible in program order; global
 * accesses of other CTAs are host memory operations whose atomics are
 * sequentially consistent. Fences therefore have nothing left to order
 * and complete at once.
 *
 * nanosleep (§9.7.13.9) advances the warp's virtual time by the requested
 * nanoseconds, so back-off loops that read %globaltimer terminate. */
#include "../lower/lower.h"

#include <stdlib.h>

typedef struct SimpleBar { uint32_t arrived; } SimpleBar;

static SimpleBar *bar_state(Cta *c) {
  if (!c->sync) c->sync = calloc(1, sizeof(SimpleBar));
  return c->sync;
}

static uint32_t live_threads(const Cta *c) {
  uint32_t n = 0;
  for (int i = 0; i < c->nwarps; i++)
    n += (uint32_t)__builtin_popcount(c->warps[i].valid & ~c->warps[i].exited);
  return n;
}

static void release_all(Cta *c) {
  for (int i = 0; i < c->nwarps; i++) interp_release(&c->warps[i], interp_waiting(&c->warps[i]));
  bar_state(c)->arrived = 0;
}

static XStatus exec_bar_sync(Warp *w, const XInsn *x, uint32_t mask) {
  (void)x;
  SimpleBar *b = bar_state(w->cta);
  if (!b) return exec_fault(w, x, -1, "out of memory");
  b->arrived += (uint32_t)__builtin_popcount(mask);
  if (b->arrived < live_threads(w->cta)) return XS_WAIT;
  release_all(w->cta);
  return XS_NEXT;
}

bool sync_cta_poll(Cta *c) {
  SimpleBar *b = c->sync;
  if (!b || !b->arrived || b->arrived < live_threads(c)) return false;
  release_all(c);
  return true;
}

void sync_cta_free(Cta *c) {
  free(c->sync);
  c->sync = NULL;
}

static XStatus exec_fence(Warp *w, const XInsn *x, uint32_t mask) {
  (void)w; (void)x; (void)mask;
  return XS_NEXT;
}

static XStatus exec_nanosleep(Warp *w, const XInsn *x, uint32_t mask) {
  const uint32_t *t = R32(w, x->slot[0]);
  uint32_t most = 0;
  FOR_LANES(l) if (ACTIVE(mask, l) && t[l] > most) most = t[l];
  interp_sleep(w, most);
  return XS_NEXT;
}

bool exec_select_SYNC(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_BAR_WARP_SYNC: return warp_select_bar_warp_sync(L, in, x);
  case OP_BAR_SYNC: case OP_BARRIER_SYNC:
    if (in->nopds > 1) return false;   /* thread count: a later issue */
    x->fn = exec_bar_sync;
    return true;
  case OP_MEMBAR: case OP_FENCE: case OP_FENCE_CLUSTER: case OP_FENCE_ONEWAY: case OP_FENCE_PROXY_ALIAS:
  case OP_FENCE_PROXY_ASYNC: case OP_MEMBAR_PROXY:
    x->fn = exec_fence;
    return true;
  case OP_NANOSLEEP:
    x->slot[0] = lower_src(L, &in->opds[0], TY_U32);
    x->nslots = 1;
    x->fn = exec_nanosleep;
    return true;
  default:
    return false;
  }
}
