/* sync.c: family SYNC (PTX ISA 9.0 §9.7.13; sync digest §4, §5, §8, §17).
 *
 * bar{.cta} / barrier{.cta} .sync / .arrive / .red (§9.7.13.1): the
 * handlers read the barrier id, the thread count and the .red input of the
 * executing lanes and hand them to the CTA barrier state machine
 * (src/sync/bar.c, one per CTA in Cta.sync). Lanes it parks return XS_WAIT;
 * the lanes it releases get their .red result written here and continue
 * (interp_release, or XS_NEXT for the executing lanes). `bar.X` is
 * `barrier.X.aligned`: the aligned forms require the warp's non-exited
 * lanes converged on the instruction (the interpreter first holds a lane
 * group there while the rest of its warp can still exit or join it,
 * interp.c pick_group). Misuse (digest §5.3) is a located fault. After every round of the CTA loop, sync_cta_poll re-checks the
 * barriers, so exits release the barriers that waited only on exited
 * threads; when no warp can run and nothing is released, the deadlock
 * report asks bar_describe what each blocked lane waits for.
 * bar.warp.sync (src/exec/warp.c) and barrier.cluster (src/exec/cluster.c)
 * are not handled here.
 *
 * membar and fence (§9.7.13.4): the interpreter executes one instruction at
 * a time per CTA, and a CTA's warps run on one host thread, so every access
 * of a CTA is already ordered and visible in program order; global
 * accesses of other CTAs are host memory operations whose atomics are
 * sequentially consistent. Fences therefore have nothing left to order
 * and complete at once; so do fence.acq_rel.cluster and
 * fence.mbarrier_init.release.cluster, since the CTAs of a cluster share
 * that host thread. A barrier's memory ordering (§4) follows likewise:
 * a released lane runs after every participant's earlier accesses.
 *
 * nanosleep (§9.7.13.9) advances the warp's virtual time by the requested
 * nanoseconds, so back-off loops that read %globaltimer terminate. */
#include "program.h"
#include "../sync/bar.h"
#include "alu.h"
#include "race.h"
#include "synccheck.h"
#include "proxycheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x->sub = BarKind; x->imm: bit 0 a count operand, bit 1 the .red input is
 * negated, bit 2 aligned. Slots: sync/arrive: id, count; red: d, id,
 * count (or 0), c. */
enum { BF_COUNT = 1, BF_NEG = 2, BF_ALIGNED = 4 };

static BarCta *bar_state(Cta *c) {
  if (c->sync) return c->sync;
  BarCta *b = c->sync = bar_new(c->nwarps);
  if (b && c->nwarps && exec_checking(&c->warps[0])) {   /* --check: misuse */
    b->on_check = synccheck_bar_complete;
    b->check_ctx = c;
  }
  return b;
}

bool sync_bar_aligned(const XInsn *x) { return (x->imm & BF_ALIGNED) != 0; }

BarCta *sync_bar_state(Cta *c) { return bar_state(c); }

static void refresh(Cta *c, BarCta *b) {
  for (int i = 0; i < c->nwarps; i++) {
    uint32_t live = warp_live(&c->warps[i]);
    if (b->w[i].live != live) bar_set_live(b, i, live);
  }
}

/* Writes the .red results of the released lanes and releases them; the
 * lanes of `self` in `mask` are left to the caller. Returns true if a
 * waiting lane was released. */
static bool apply(Cta *c, BarCta *b, const Warp *self, uint32_t mask) {
  bool any = false;
  uint32_t warps = b->releasing;   /* the warps with released lanes, in warp order */
  b->releasing = 0;
  for (; warps; warps &= warps - 1) {
    int i = __builtin_ctz(warps);
    BarWarp *bw = &b->w[i];
    uint32_t rel = bw->release, red = bw->red_release;
    if (!rel) continue;
    Warp *w = &c->warps[i];
    bw->release = 0;
    bw->red_release = 0;
    for (; red; red &= red - 1) {   /* the .red results */
      int l = __builtin_ctz(red);
      switch ((BarKind)bw->kind[l]) {
      case BK_RED_POPC: R32(w, bw->dst[l])[l] = bw->result[l]; break;
      case BK_RED_AND: case BK_RED_OR:
        pred_put(w, bw->dst[l], l, bw->result[l] & 1u);
        break;
      default: break;
      }
    }
    if (w == self) rel &= ~mask;
    if (rel & interp_waiting(w)) any = true;
    interp_release(w, rel);
  }
  return any;
}

/* The value of a .u32 operand in the lanes of mask; they must agree. */
static bool uniform(Warp *w, const XInsn *x, uint32_t slot, uint32_t mask, const char *what,
                    uint32_t *v) {
  const uint32_t *a = R32(w, slot);
  int l0 = __builtin_ctz(mask);
  int32_t t[WARP_SIZE];
  FOR_LANES(l) t[l] = -(int32_t)(a[l] != a[l0]);   /* a vector compare */
  uint32_t odd = lanes_pack(t) & mask;
  if (odd) {
    int l = __builtin_ctz(odd);
    char nm[96];
    exec_fault(w, x, l, "%s: the %s differs between lanes of warp %d (%u in lane %d, %u in "
               "lane %d)", insn_text(x->src, nm, sizeof nm), what, w->id, a[l0], l0, a[l], l);
    return false;
  }
  *v = a[l0];
  return true;
}

/* The statistics' CTA barrier completions since `before` (BarCta.completions). */
static void count_completions(const BarCta *b, uint64_t before) {
  for (; before < b->completions; before++) exec_count(EV_BAR_CTA);
}

HANDLER(exec_bar) {
  BarCta *b = bar_state(w->cta);
  if (!b) return exec_fault(w, x, -1, "out of memory");
  BarReq r = {.kind = (BarKind)x->sub, .has_count = x->imm & BF_COUNT,
              .aligned = (x->imm & BF_ALIGNED) != 0};
  bool red = r.kind >= BK_RED_POPC;
  uint32_t s = red ? 1 : 0;
  if (!uniform(w, x, x->slot[s], mask, "barrier id", &r.id)) return XS_TRAP;
  if (r.has_count && !uniform(w, x, x->slot[s + 1], mask, "thread count", &r.count))
    return XS_TRAP;
  if (red) {
    r.dst = x->slot[0];
    r.pred = w->pred[x->slot[3]] ^ (x->imm & BF_NEG ? UINT32_MAX : 0);
  }
  refresh(w->cta, b);
  char err[768], nm[96];
  uint64_t done = b->completions;
  race_bar_arrive(w, mask, r.id, r.kind != BK_ARRIVE);
  if (!bar_exec(b, w->id, mask, &r, x, err, sizeof err))
    return exec_fault(w, x, -1, "%s: %s", insn_text(x->src, nm, sizeof nm), err);
  count_completions(b, done);
  bool go = (b->w[w->id].release & mask) == mask;
  apply(w->cta, b, w, mask);
  return go ? XS_NEXT : XS_WAIT;
}

bool sync_cta_poll(Cta *c) {
  BarCta *b = c->sync;
  if (!b) return false;
  refresh(c, b);
  uint64_t done = b->completions;
  bar_poll(b);
  count_completions(b, done);
  bool released = apply(c, b, NULL, 0);
  return mbar_cta_poll(c, released) || released;
}

void sync_cta_free(Cta *c) {
  bar_free(c->sync);
  c->sync = NULL;
}

HANDLER(exec_fence) {
  (void)x;
  race_fence(w, mask);   /* --check: a release and an acquire */
  return XS_NEXT;
}

/* fence.proxy.async{.shared::cta,.shared::cluster,}: as exec_fence, and
 * --check's proxy-race checker learns the lanes' generic stores are fenced. */
HANDLER(exec_fence_proxy_async) {
  race_fence(w, mask);
  if (exec_checking(w)) proxycheck_fence(w, mask, x->imm != 0);
  return XS_NEXT;
}

/* The one-way fences: fence.release.sync_restrict::shared::cta.cluster and
 * fence.proxy.async::generic.release... are releases only, their .acquire
 * ::shared::cluster twins acquires only (x->imm 1: release, from the row). The checker
 * does not tell state spaces apart in a release, so the restriction to
 * shared memory gives it more order than the ISA does (race.c). */
HANDLER(exec_fence_half) {
  race_fence_half(w, mask, x->imm & 1);
  return XS_NEXT;
}

/* griddepcontrol (§9.7.13.x, programmatic dependent launch): ptxvm runs a
 * stream's grids one after another, so when a grid runs its prerequisite
 * grids have completed and their memory is visible: .wait returns at once.
 * .launch_dependents only allows a dependent grid to start before this one
 * ends; ptxvm starts it after, which the ISA allows: nothing to do. */
HANDLER(exec_griddepcontrol) {
  (void)w; (void)x; (void)mask;
  return XS_NEXT;
}

HANDLER(exec_nanosleep) {
  const uint32_t *t = R32(w, x->slot[0]);
  uint32_t most = 0;
  FOR_LANES(l) if (ACTIVE(mask, l) && t[l] > most) most = t[l];
  interp_sleep(w, most);
  return XS_NEXT;
}

bool exec_select_SYNC(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_BAR_WARP_SYNC: return warp_select_bar_warp_sync(L, in, x);
  case OP_BARRIER_CLUSTER_ARRIVE: case OP_BARRIER_CLUSTER_WAIT: return cluster_select_barrier(L, in, x);
  case OP_BAR_SYNC: case OP_BARRIER_SYNC: case OP_BAR_ARRIVE: case OP_BARRIER_ARRIVE: {
    bool arrive = in->op == OP_BAR_ARRIVE || in->op == OP_BARRIER_ARRIVE;
    x->sub = arrive ? BK_ARRIVE : BK_SYNC;
    x->slot[0] = lower_src(L, &in->opds[0], TY_U32);
    x->slot[1] = in->nopds > 1 ? lower_src(L, &in->opds[1], TY_U32) : 0;
    x->nslots = 2;
    x->imm = (in->nopds > 1 ? BF_COUNT : 0) |
             (in->op == OP_BAR_SYNC || in->op == OP_BAR_ARRIVE || (lower_mods(in) & XM_ALIGNED)
                  ? BF_ALIGNED : 0);
    x->fn = exec_bar;
    return true;
  }
  case OP_BAR_RED_POPC: case OP_BARRIER_RED_POPC: case OP_BAR_RED_PRED: case OP_BARRIER_RED_PRED: {
    const Operand *o = in->opds;
    int nc = in->nopds == 4;
    if (in->op == OP_BAR_RED_POPC || in->op == OP_BARRIER_RED_POPC) x->sub = BK_RED_POPC;
    else x->sub = insn_has_mod(in, ".and") ? BK_RED_AND : BK_RED_OR;
    x->slot[0] = lower_dst(L, &o[0]);
    x->slot[1] = lower_src(L, &o[1], TY_U32);
    x->slot[2] = nc ? lower_src(L, &o[2], TY_U32) : 0;
    x->slot[3] = lower_src(L, &o[2 + nc], TY_PRED);
    x->nslots = 4;
    x->imm = (nc ? BF_COUNT : 0) | ((o[2 + nc].flags & OPF_NEG) ? BF_NEG : 0) |
             (in->op == OP_BAR_RED_POPC || in->op == OP_BAR_RED_PRED || (lower_mods(in) & XM_ALIGNED)
                  ? BF_ALIGNED : 0);
    x->fn = exec_bar;
    return true;
  }
  case OP_MEMBAR: case OP_FENCE: case OP_FENCE_CLUSTER: case OP_FENCE_ONEWAY: case OP_FENCE_PROXY_ALIAS:
  case OP_MEMBAR_PROXY: case OP_FENCE_MBARRIER_INIT:
  /* ptxvm reads a tensor map at each copy's issue: no stale proxy copy */
  case OP_FENCE_PROXY_TENSORMAP_REL: case OP_FENCE_PROXY_TENSORMAP_ACQ:
    x->fn = exec_fence;
    return true;
  case OP_FENCE_PROXY_ASYNC:   /* imm: .global (orders no shared memory) */
    x->imm = insn_has_mod(in, ".global");
    x->fn = exec_fence_proxy_async;
    return true;
  case OP_FENCE_SYNC_RESTRICT: case OP_FENCE_SYNC_RESTRICT_REL:
  case OP_FENCE_PROXY_ASYNC_GENERIC: case OP_FENCE_PROXY_ASYNC_GENERIC_REL:
    x->imm = in->op == OP_FENCE_SYNC_RESTRICT_REL || in->op == OP_FENCE_PROXY_ASYNC_GENERIC_REL;
    x->fn = exec_fence_half;
    return true;
  case OP_GRIDDEPCONTROL:
    x->fn = exec_griddepcontrol;
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
