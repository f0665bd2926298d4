/* cluster.c: thread-block clusters (issue 7; sync digest §3, §7; PTX ISA
 * §9.7.13.2 barrier.cluster, §9.7.9.16 mapa, §9.7.9.17 getctarank).
 *
 * barrier.cluster: one barrier per cluster (Cluster.bar), with per warp of
 * every CTA three lane masks: `arrived` (arrived in the current phase),
 * `pending` (arrived, no wait since) and `waiting` (blocked in wait).
 *   arrive (.release default, .relaxed, .aligned): the lanes arrive; a lane
 *     that already arrived in the current phase is a located error. It does
 *     not block. When every non-exited thread of the cluster has arrived the
 *     phase completes: `arrived` is cleared everywhere and the waiters go.
 *   wait (.acquire default, .aligned): a lane with no arrive since its last
 *     wait is a located error ("wait without arrive"); a lane whose arrive's
 *     phase has completed continues; the others block until it completes.
 *   Exited threads count as arrived: cluster_bar_poll, run after every round
 *     of the cluster loop, completes a phase that waited only on exited
 *     threads. The .aligned forms require the warp's non-exited lanes
 *     converged on the instruction (located error otherwise; the
 *     interpreter first holds a lane group there while the rest of its
 *     warp can still exit or join it, interp.c pick_group).
 *   Simplification: the warp gathering of barrier.cluster (a thread also
 *   waits for the non-exited threads of its own warp) is not modelled for
 *   arrive; wait implies it, since the phase needs every thread.
 *   Memory ordering (.release/.acquire/.relaxed): the CTAs of a cluster run
 *   on one host thread, one instruction at a time, so every access before
 *   an arrive is visible to every thread after the matching wait; .relaxed
 *   gets the same (stronger) ordering.
 *
 * mapa / getctarank: the encoding of .shared::cluster addresses is in
 * mem.h (SHARED_RANK_SHIFT): rank r's byte `off` is ((r + 1) << 24) | off,
 * and an address with zero rank bits (every .shared::cta address) is the
 * executing CTA's. mapa to the executing CTA's own rank returns the
 * .shared::cta form. Generic forms add SHARED_WINDOW. */
#include "program.h"
#include "../sync/bar.h"
#include "race.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct CWarp { uint32_t arrived, pending, waiting; } CWarp;

typedef struct CBar {
  uint64_t phase;          /* completed phases */
  int maxw;                /* warps per CTA */
  CWarp *w;                /* [rank * maxw + warp] */
} CBar;

static CBar *cbar(Cluster *cl) {
  if (cl->bar) return cl->bar;
  CBar *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->maxw = cl->ncta ? cl->ctas[0].nwarps : 0;
  b->w = calloc((size_t)cl->ncta * (size_t)b->maxw + 1, sizeof *b->w);
  if (!b->w) { free(b); return NULL; }
  cl->bar = b;
  return b;
}

void cluster_bar_free(Cluster *cl) {
  CBar *b = cl->bar;
  if (b) { free(b->w); free(b); }
  cl->bar = NULL;
}


/* Every non-exited thread has arrived and some thread arrived: complete the
 * phase. Releases the waiters whose phase completed. Returns true if a
 * waiting lane was released. */
static bool settle(Cluster *cl, CBar *b) {
  bool any_arrived = false, all = true;
  for (int r = 0; r < cl->ncta; r++) {
    Cta *c = &cl->ctas[r];
    for (int i = 0; i < c->nwarps; i++) {
      CWarp *cw = &b->w[r * b->maxw + i];
      if (cw->arrived) any_arrived = true;
      if (warp_live(&c->warps[i]) & ~cw->arrived) all = false;
    }
  }
  if (any_arrived && all) {
    b->phase++;
    exec_count(EV_BAR_CLUSTER);
    race_cluster_complete(cl);
    for (int r = 0; r < cl->ncta; r++)
      for (int i = 0; i < cl->ctas[r].nwarps; i++) b->w[r * b->maxw + i].arrived = 0;
  }
  bool rel = false;
  for (int r = 0; r < cl->ncta; r++) {
    Cta *c = &cl->ctas[r];
    for (int i = 0; i < c->nwarps; i++) {
      CWarp *cw = &b->w[r * b->maxw + i];
      uint32_t go = cw->waiting & ~cw->arrived;
      if (!go) continue;
      cw->waiting &= ~go;
      cw->pending &= ~go;
      race_cluster_wait(&c->warps[i], go);
      if (go & interp_waiting(&c->warps[i])) rel = true;
      interp_release(&c->warps[i], go);
    }
  }
  return rel;
}

bool cluster_bar_poll(Cluster *cl) {
  if (!cl->bar) return false;
  return settle(cl, cl->bar);
}

bool cluster_bar_describe(const Cta *c, int wid, int lane, char *buf, size_t n) {
  const Cluster *cl = c->cluster;
  const CBar *b = cl ? cl->bar : NULL;
  if (!b || !(b->w[(int)c->rank * b->maxw + wid].waiting >> lane & 1)) return false;
  uint32_t arrived = 0, live = 0;
  char miss[1024] = "";
  size_t k = 0;
  for (int r = 0; r < cl->ncta; r++) {
    const Cta *o = &cl->ctas[r];
    for (int i = 0; i < o->nwarps; i++) {
      uint32_t lv = warp_live(&o->warps[i]), a = b->w[r * b->maxw + i].arrived;
      live += (uint32_t)__builtin_popcount(lv);
      arrived += (uint32_t)__builtin_popcount(lv & a);
      if ((lv & ~a) && k + 80 < sizeof miss) {
        char t[160];
        lanes_text(lv & ~a, t, sizeof t);
        k += (size_t)snprintf(miss + k, sizeof miss - k, "%sCTA rank %d warp %d lanes %s",
                              k ? "; " : "", r, i, t);
      }
    }
  }
  snprintf(buf, n, "barrier.cluster phase %llu: %u of %u non-exited threads of the cluster "
           "arrived; not arrived: %s", (unsigned long long)b->phase, arrived, live,
           k ? miss : "none");
  return true;
}

Cta *cluster_cta_of(const Warp *w, const void *p, size_t n) {
  Cta *own = w->cta;
  Cluster *cl = own ? own->cluster : NULL;
  int k = cl ? cl->ncta : 1;
  const uint8_t *b = p;
  for (int r = 0; r < k; r++) {
    Cta *c = cl ? &cl->ctas[r] : own;
    if (c && c->shared && b >= c->shared && (size_t)(b - c->shared) + n <= c->shared_size) return c;
  }
  return NULL;
}

/* x->imm bit 0: .aligned; bit 1: .relaxed (an arrive that orders nothing). */
static XStatus aligned_check(Warp *w, const XInsn *x, uint32_t mask, const char *name) {
  char msg[512];
  if (!(x->imm & 1) || bar_aligned_converged(msg, sizeof msg, mask, warp_live(w), w->id, -1, name))
    return XS_NEXT;
  return exec_fault(w, x, -1, "%s", msg);
}

static CWarp *cwarp(Warp *w, CBar **bp) {
  Cluster *cl = w->cta->cluster;
  CBar *b = cl ? cbar(cl) : NULL;
  *bp = b;
  return b ? &b->w[(int)w->cta->rank * b->maxw + w->id] : NULL;
}

HANDLER(exec_cluster_arrive) {
  if (aligned_check(w, x, mask, "barrier.cluster.arrive") != XS_NEXT) return XS_TRAP;
  CBar *b;
  CWarp *cw = cwarp(w, &b);
  if (!cw) return exec_fault(w, x, -1, "barrier.cluster.arrive: no cluster (out of memory)");
  uint32_t twice = cw->arrived & mask;
  if (twice)
    return exec_fault(w, x, __builtin_ctz(twice), "barrier.cluster.arrive: second arrive of this "
                      "thread in phase %llu of the cluster barrier (each thread arrives once per "
                      "phase; wait for the phase to complete first)", (unsigned long long)b->phase);
  if (mem_observed(w)) race_cluster_arrive(w, mask, !(x->imm & 2));
  cw->arrived |= mask;
  cw->pending |= mask;
  settle(w->cta->cluster, b);
  return XS_NEXT;
}

HANDLER(exec_cluster_wait) {
  if (aligned_check(w, x, mask, "barrier.cluster.wait") != XS_NEXT) return XS_TRAP;
  CBar *b;
  CWarp *cw = cwarp(w, &b);
  if (!cw) return exec_fault(w, x, -1, "barrier.cluster.wait: no cluster (out of memory)");
  uint32_t none = mask & ~cw->pending;
  if (none)
    return exec_fault(w, x, __builtin_ctz(none), "barrier.cluster.wait without a preceding "
                      "barrier.cluster.arrive by this thread in this phase (phase %llu)",
                      (unsigned long long)b->phase);
  if (!(mask & cw->arrived)) {   /* every lane's phase has completed */
    cw->pending &= ~mask;
    race_cluster_wait(w, mask);
    return XS_NEXT;
  }
  cw->waiting |= mask;   /* lanes whose phase completed go at the next poll */
  return XS_WAIT;
}

bool cluster_select_barrier(Lower *L, const Insn *in, XInsn *x) {
  (void)L;
  x->imm = ((lower_mods(in) & XM_ALIGNED) ? 1 : 0) | (insn_has_mod(in, ".relaxed") ? 2 : 0);
  x->nslots = 0;
  x->fn = in->op == OP_BARRIER_CLUSTER_ARRIVE ? exec_cluster_arrive : exec_cluster_wait;
  return true;
}

/* ---- mapa, getctarank ---- */

typedef struct MapOp {
  uint32_t dst, src, rank;   /* src UINT32_MAX: the address is x->imm alone */
  bool src64, dst64, generic;
} MapOp;

static uint64_t map_src(Warp *w, const XInsn *x, const MapOp *m, int l) {
  uint64_t v = (uint64_t)x->imm;
  if (m->src != UINT32_MAX) v += m->src64 ? R64(w, m->src)[l] : R32(w, m->src)[l];
  return m->src64 ? v : (uint32_t)v;
}

static int ncta_of(const Warp *w) { return w->cta->cluster ? w->cta->cluster->ncta : 1; }

/* The shared-window offset of a (generic: minus SHARED_WINDOW); false when
 * a generic address is not in the shared window. */
static bool shared_off(const MapOp *m, uint64_t a, uint64_t *off) {
  if (m->generic) {
    if (a - SHARED_WINDOW >= WINDOW_SIZE) return false;
    a -= SHARED_WINDOW;
  }
  *off = a;
  return true;
}

HANDLER(exec_mapa) {
  const MapOp *m = x->aux;
  const uint32_t *rk = R32(w, m->rank);
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t a = map_src(w, x, m, l), off;
    if (!shared_off(m, a, &off))
      return exec_fault(w, x, l, "mapa: 0x%llx is not a generic address of shared memory",
                        (unsigned long long)a);
    if (rk[l] >= (uint32_t)ncta_of(w))
      return exec_fault(w, x, l, "mapa: CTA rank %u is not in the cluster (%%cluster_nctarank %d)",
                        rk[l], ncta_of(w));
    off &= SHARED_OFFSET_MASK;
    if (rk[l] != w->cta->rank) off |= (uint64_t)(rk[l] + 1) << SHARED_RANK_SHIFT;
    uint64_t d = m->generic ? SHARED_WINDOW + off : off;
    if (m->dst64) R64(w, m->dst)[l] = d;
    else R32(w, m->dst)[l] = (uint32_t)d;
  }
  return XS_NEXT;
}

HANDLER(exec_getctarank) {
  const MapOp *m = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t a = map_src(w, x, m, l), off;
    if (!shared_off(m, a, &off))
      return exec_fault(w, x, l, "getctarank: 0x%llx is not a generic address of shared memory",
                        (unsigned long long)a);
    uint64_t hi = off >> SHARED_RANK_SHIFT;
    if (hi > (uint64_t)ncta_of(w))
      return exec_fault(w, x, l, "getctarank: 0x%llx is not a shared address of a CTA of the "
                        "cluster", (unsigned long long)a);
    R32(w, m->dst)[l] = hi ? (uint32_t)hi - 1 : w->cta->rank;
  }
  return XS_NEXT;
}

bool cluster_select_map(Lower *L, const Insn *in, XInsn *x) {
  bool mapa = in->op == OP_MAPA;
  if (in->nopds < (mapa ? 3 : 2)) return false;
  MapOp *m = lower_aux(L, sizeof *m);
  Type t = in->ntypes ? (Type)in->types[0] : TY_U64;
  m->generic = !insn_has_mod(in, ".shared::cluster");
  const Operand *src = &in->opds[1];
  if (src->kind == OPD_SYM || src->kind == OPD_ADDR) {   /* mapa ... d, sh+imm, b */
    x->imm = lower_addr(L, src, m->generic ? SP_NONE : SP_SHARED, &m->src);
    if (m->generic && src->sym && src->sym->kind != SYM_REG) return false;
  } else {
    m->src = lower_src(L, src, t);
    x->imm = 0;
  }
  m->src64 = type_size(t) == 8;
  m->dst = lower_dst(L, &in->opds[0]);
  m->dst64 = mapa && type_size(t) == 8;
  if (mapa) m->rank = lower_src(L, &in->opds[2], TY_U32);
  x->aux = m;
  x->fn = mapa ? exec_mapa : exec_getctarank;
  return true;
}
