/* warpsync.c: the warp-level rendezvous of the .sync collectives (see
 * warpsync.h for the model).
 *
 * Per warp, at most 32 gatherings are open at a time: each holds at least
 * one waiting lane, and the masks of open gatherings are pairwise disjoint
 * (an overlapping, different mask is reported), so a fixed array suffices.
 *
 * Policy for lanes of a membermask that have exited or do not exist (a
 * partial last warp): they do not hold the others back (sync digest §1.5,
 * §6 "Model"). The spec words bar.warp.sync and elect.sync over "all
 * threads" rather than "non-exited threads"; waiting for an exited lane
 * could never end, so ptxvm treats it as arrived for every collective.
 *
 * Fast path: when the executing lanes complete their gathering by
 * themselves (the converged full-warp case), the result is computed at once
 * and nothing is recorded.
 *
 * It lives in src/exec/, not beside the pure state machines of src/sync/
 * (bar.c, mbarrier.c), because it works on the warp itself: its lanes'
 * validity, faults, the interpreter's release (scripts/layers.py). */
#include "warpsync.h"

#include <stdio.h>
#include <stdlib.h>

#include "program.h"
#include "../util/check.h"

typedef struct WarpSync {
  WsGather g[WARP_SIZE];
  int n;
} WarpSync;

#ifdef PTXVM_DEBUG
/* The invariants (check.h): open gatherings have pairwise disjoint masks
 * and a non-empty set of arrived lanes inside their mask. */
static bool consistent(const WarpSync *ws) {
  uint32_t seen = 0;
  for (int i = 0; i < ws->n; i++) {
    const WsGather *g = &ws->g[i];
    if ((g->mask & seen) || !g->arrived || (g->arrived & ~g->mask)) return false;
    seen |= g->mask;
  }
  return ws->n <= WARP_SIZE;
}
#endif

static uint32_t needed(const Warp *w, uint32_t mask) { return mask & warp_live(w); }

static int low(uint32_t m) { return m ? __builtin_ctz(m) : 0; }

static const char *mnem(const XInsn *x) { return x && x->src ? insn_mnemonic(x->src) : "?"; }

static void fill(WsGather *g, uint32_t lanes, const XInsn *x, const uint64_t (*in)[3]) {
  for (int l = 0; l < WARP_SIZE; l++) {
    if (!(lanes >> l & 1)) continue;
    g->at[l] = x;
    g->in[l][0] = in[l][0]; g->in[l][1] = in[l][1]; g->in[l][2] = in[l][2];
  }
}

XStatus warpsync_arrive(Warp *w, const XInsn *x, uint32_t exec, const char *name, uint32_t key,
                        const uint32_t *mm, const uint64_t (*in)[3], WsDone done) {
  void **slot = interp_wsync(w);
  WarpSync *ws = *slot;   /* made when lanes first wait: a converged warp never needs it */
  int nws = ws ? ws->n : 0;
  for (int l = 0; l < WARP_SIZE; l++)
    if ((exec >> l & 1) && !(mm[l] >> l & 1))
      return exec_fault(w, x, l, "%s: lane %d is not in its membermask 0x%08x", name, l, mm[l]);
  /* the distinct masks of the executing lanes, and whether each completes now */
  uint32_t masks[WARP_SIZE], sets[WARP_SIZE];
  int nm = 0;
  bool now = true;
  for (uint32_t left = exec; left;) {
    int l0 = low(left);
    uint32_t m = mm[l0], e = 0;
    for (int l = 0; l < WARP_SIZE; l++) if ((left >> l & 1) && mm[l] == m) e |= 1u << l;
    left &= ~e;
    for (int k = 0; k < nm; k++)
      if (masks[k] & m)
        return exec_fault(w, x, l0, "%s: lane %d has membermask 0x%08x, overlapping membermask "
                          "0x%08x of lane %d at the same instruction", name, l0, m, masks[k],
                          low(sets[k]));
    for (int k = 0; k < nws; k++) {
      WsGather *g = &ws->g[k];
      if (!(g->mask & m)) continue;
      char lt[160];
      lanes_text(g->arrived, lt, sizeof lt);
      if (g->mask != m)
        return exec_fault(w, x, l0, "%s: lane %d arrives with membermask 0x%08x while lanes %s "
                          "wait at %s with the overlapping membermask 0x%08x", name, l0, m, lt,
                          mnem(g->at[low(g->arrived)]), g->mask);
      if (g->key != key)
        return exec_fault(w, x, l0, "%s: lane %d arrives with membermask 0x%08x while lanes %s "
                          "wait with the same membermask at a different collective (%s)", name,
                          l0, m, lt, mnem(g->at[low(g->arrived)]));
      now = false;
    }
    if (needed(w, m) & ~e) now = false;
    masks[nm] = m;
    sets[nm++] = e;
  }
  if (now) {
    WsGather g;
    for (int k = 0; k < nm; k++) {
      g.mask = masks[k]; g.key = key; g.arrived = sets[k]; g.done = done;
      fill(&g, sets[k], x, in);
      done(w, &g, sets[k]);
      exec_count(EV_WARP_SYNC);
    }
    return XS_NEXT;
  }
  if (!ws && !(ws = *slot = calloc(1, sizeof(WarpSync)))) return exec_fault(w, x, -1, "out of memory");
  for (int k = 0; k < nm; k++) {
    WsGather *g = NULL;
    for (int i = 0; i < ws->n && !g; i++) if (ws->g[i].mask == masks[k]) g = &ws->g[i];
    if (!g) {
      g = &ws->g[ws->n++];
      g->mask = masks[k]; g->key = key; g->arrived = 0; g->done = done;
    }
    g->arrived |= sets[k];
    fill(g, sets[k], x, in);
  }
  PTXVM_ASSERT(consistent(ws));
  return XS_WAIT;
}

void warpsync_poll(Warp *w) {
  WarpSync *ws = *interp_wsync(w);
  if (!ws) return;
  for (int k = 0; k < ws->n;) {
    WsGather *g = &ws->g[k];
    if (needed(w, g->mask) & ~g->arrived) { k++; continue; }
    uint32_t lanes = g->arrived;
    g->done(w, g, lanes);
    exec_count(EV_WARP_SYNC);
    interp_release(w, lanes);
    ws->g[k] = ws->g[--ws->n];
  }
  PTXVM_ASSERT(consistent(ws));
}

bool warpsync_describe(Warp *w, int lane, char *buf, size_t n) {
  WarpSync *ws = *interp_wsync(w);
  for (int k = 0; ws && k < ws->n; k++) {
    const WsGather *g = &ws->g[k];
    if (!(g->arrived >> lane & 1)) continue;
    char miss[160], got[160];
    lanes_text(needed(w, g->mask) & ~g->arrived, miss, sizeof miss);
    lanes_text(g->arrived, got, sizeof got);
    snprintf(buf, n, "warp collective with membermask 0x%08x: lanes %s arrived, lanes %s missing",
             g->mask, got, miss);
    return true;
  }
  return false;
}

void warpsync_free(void *ws) { free(ws); }
