/* warp.c: family WARP (PTX ISA 9.0 §9.7.13.x; sync digest §11-§16):
 * shfl.sync, vote.sync, match.sync, redux.sync (integer, and .f32 with
 * .abs/.NaN for sm_100a), elect.sync, activemask, the deprecated shfl and
 * vote, and bar.warp.sync (family SYNC, delegated here by
 * exec_select_SYNC).
 *
 * The .sync forms are thin handlers over the warp rendezvous of
 * src/exec/warpsync.c: each executing lane supplies its inputs and
 * membermask and waits until every non-exited lane of the mask has arrived
 * with the same opcode and qualifiers, from any instruction (sm_70+
 * semantics); the completion callbacks below compute every participant's
 * result from the inputs of the participants.
 *
 * Values the ISA leaves undefined, and what ptxvm returns (documented
 * choices, sync digest [E]):
 *   - shfl: a source lane j that is in range (p true) but did not take part
 *     (inactive, predicated off, exited, outside membermask or
 *     nonexistent) gives d = 0;
 *   - elect.sync: the leader is the lowest-numbered lane that took part
 *     (executed the instruction, guard true); the same participants elect
 *     the same leader every time;
 *   - vote.ballot, match: lanes that did not take part give 0 bits / never
 *     match;
 *   - the deprecated shfl and vote (no membermask) work over the lanes
 *     executing the instruction (the lane group ∩ guard), without waiting.
 * Under --check (exec_report) a shfl reading such a source lane is a
 * finding (lane, source lane, why, membermask), and so is a bar.warp.sync
 * completing with lanes of its membermask that have exited or do not exist.
 *
 * Operand slots (x->slot): 0 destination (NOSLOT for a sink), 1 predicate
 * destination (NOSLOT if absent), 2 a, 3 b, 4 c, 5 membermask. x->sub is the
 * mode or reduction operator. */
#include "warpsync.h"
#include "race.h"

#include "program.h"
#include "alu.h"

enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };
enum { V_ALL, V_ANY, V_UNI, V_BALLOT };
enum { RX_ADD, RX_MIN, RX_MAX, RX_AND, RX_OR, RX_XOR };

static uint32_t key_of(const XInsn *x) {
  return (uint32_t)x->op | (uint32_t)x->sub << 16 | (uint32_t)x->type << 24;
}

static void put32(Warp *w, uint32_t slot, int l, uint32_t v) {
  if (slot != NOSLOT) R32(w, slot)[l] = v;
}

static void putp(Warp *w, uint32_t slot, int l, bool v) {
  if (slot != NOSLOT) pred_put(w, slot, l, v);
}

static const uint32_t *masks_of(Warp *w, const XInsn *x, uint32_t exec, uint32_t *buf) {
  if (x->slot[5] != NOSLOT) return R32(w, x->slot[5]);
  FOR_LANES(l) buf[l] = exec;
  return buf;
}

/* ---- shfl (§16) ---- */

/* --check: lane l read source lane j, which did not take part (the value
 * is undefined; ptxvm gives 0); n lanes of the gathering did so. */
static void shfl_report(Warp *w, const WsGather *g, int l, int j, int n) {
  const XInsn *x = g->at[l];
  bool sync = x->slot[5] != NOSLOT;
  const char *why = !(w->valid >> j & 1) ? "does not exist"
                  : w->exited >> j & 1 ? "has exited"
                  : sync && !(g->mask >> j & 1) ? "is not in the membermask"
                  : "is inactive (did not execute it)";
  exec_report(w, x, l, "%s: lane %d reads source lane %d, which %s (membermask 0x%08x): "
              "undefined value, ptxvm gives 0 (%d lane%s of the warp read such a lane)",
              sync ? "shfl.sync" : "shfl", l, j, why, g->mask, n, n == 1 ? "" : "s");
}

static void shfl_done(Warp *w, const WsGather *g, uint32_t lanes) {
  int nbad = 0, bad_lane = 0, bad_src = 0;
  FOR_LANES(l) {
    if (!ACTIVE(lanes, l)) continue;
    const XInsn *x = g->at[l];
    int bval = (int)(g->in[l][1] & 0x1f), cval = (int)(g->in[l][2] & 0x1f);
    int seg = (int)(g->in[l][2] >> 8 & 0x1f);
    int maxl = (l & seg) | (cval & ~seg), minl = l & seg, j;
    bool p;
    switch (x->sub) {
    case SH_UP: j = l - bval; p = j >= maxl; break;
    case SH_DOWN: j = l + bval; p = j <= maxl; break;
    case SH_BFLY: j = l ^ bval; p = j <= maxl; break;
    default: j = minl | (bval & ~seg); p = j <= maxl; break;
    }
    if (!p) j = l;
    bool took_part = j >= 0 && j < WARP_SIZE && ACTIVE(lanes, j);
    uint32_t v = took_part ? (uint32_t)g->in[j][0] : 0;
    put32(w, x->slot[0], l, v);
    putp(w, x->slot[1], l, p);
    if (!took_part && exec_checking(w)) {
      if (!nbad) { bad_lane = l; bad_src = j; }
      nbad++;
    }
  }
  if (nbad) shfl_report(w, g, bad_lane, bad_src, nbad);
}

HANDLER(exec_shfl) {
  uint64_t in[WARP_SIZE][3];
  uint32_t mb[WARP_SIZE];
  const uint32_t *a = R32(w, x->slot[2]), *b = R32(w, x->slot[3]), *c = R32(w, x->slot[4]);
  FOR_LANES(l) { in[l][0] = a[l]; in[l][1] = b[l]; in[l][2] = c[l]; }
  if (x->slot[5] == NOSLOT) {   /* deprecated shfl: the executing lanes */
    WsGather g;
    g.mask = mask;
    FOR_LANES(l) { g.at[l] = x; memcpy(g.in[l], in[l], sizeof in[l]); }
    shfl_done(w, &g, mask);
    return XS_NEXT;
  }
  return warpsync_arrive(w, x, mask, "shfl.sync", key_of(x), masks_of(w, x, mask, mb),
                         (const uint64_t (*)[3])in, shfl_done);
}

/* ---- vote (§11) ---- */

static void vote_done(Warp *w, const WsGather *g, uint32_t lanes) {
  uint32_t ones = 0;
  FOR_LANES(l) if (ACTIVE(lanes, l) && g->in[l][0]) ones |= 1u << l;
  FOR_LANES(l) {
    if (!ACTIVE(lanes, l)) continue;
    const XInsn *x = g->at[l];
    switch (x->sub) {
    case V_ALL: putp(w, x->slot[0], l, ones == lanes); break;
    case V_ANY: putp(w, x->slot[0], l, ones != 0); break;
    case V_UNI: putp(w, x->slot[0], l, ones == 0 || ones == lanes); break;
    default: put32(w, x->slot[0], l, ones); break;
    }
  }
}

HANDLER(exec_vote) {
  uint64_t in[WARP_SIZE][3] = {{0}};
  uint32_t mb[WARP_SIZE], q = w->pred[x->slot[2]];
  if (x->imm) q = ~q;
  FOR_LANES(l) in[l][0] = q >> l & 1;
  return warpsync_arrive(w, x, mask, "vote.sync", key_of(x), masks_of(w, x, mask, mb),
                         (const uint64_t (*)[3])in, vote_done);
}

/* the deprecated vote: over the executing lanes, at once */
HANDLER(exec_vote_old) {
  WsGather g;
  uint32_t q = w->pred[x->slot[2]];
  if (x->imm) q = ~q;
  FOR_LANES(l) { g.at[l] = x; g.in[l][0] = q >> l & 1; }
  vote_done(w, &g, mask);
  return XS_NEXT;
}

/* ---- match (§12) ---- */

static void match_done(Warp *w, const WsGather *g, uint32_t lanes) {
  FOR_LANES(l) {
    if (!ACTIVE(lanes, l)) continue;
    const XInsn *x = g->at[l];
    uint32_t eq = 0;
    FOR_LANES(k) if (ACTIVE(lanes, k) && g->in[k][0] == g->in[l][0]) eq |= 1u << k;
    if (x->sub == 0) { put32(w, x->slot[0], l, eq); continue; }
    bool all = eq == lanes;
    put32(w, x->slot[0], l, all ? lanes : 0);
    putp(w, x->slot[1], l, all);
  }
}

HANDLER(exec_match) {
  uint64_t in[WARP_SIZE][3] = {{0}};
  uint32_t mb[WARP_SIZE];
  if (x->type == TY_B64) { const uint64_t *a = R64(w, x->slot[2]); FOR_LANES(l) in[l][0] = a[l]; }
  else { const uint32_t *a = R32(w, x->slot[2]); FOR_LANES(l) in[l][0] = a[l]; }
  return warpsync_arrive(w, x, mask, x->sub ? "match.all.sync" : "match.any.sync", key_of(x),
                         masks_of(w, x, mask, mb), (const uint64_t (*)[3])in, match_done);
}

/* ---- redux (§14) ---- */

/* .f32 (sync digest §14): +0.0 is greater than -0.0; .abs reduces |a|;
 * NaN inputs are ignored unless .NaN, where any NaN gives the canonical
 * NaN 0x7fffffff (also the result when every input is NaN). */
static bool f32_nan(uint32_t v) { return (v & 0x7fffffffu) > 0x7f800000u; }

/* a < b in the total order of the non-NaN floats with -0.0 < +0.0 */
static bool f32_less(uint32_t a, uint32_t b) {
  int64_t ka = a >> 31 ? -(int64_t)(a & 0x7fffffffu) - 1 : (int64_t)a;
  int64_t kb = b >> 31 ? -(int64_t)(b & 0x7fffffffu) - 1 : (int64_t)b;
  return ka < kb;
}

static uint32_t redux_f32(const WsGather *g, uint32_t lanes, int sub) {
  bool max = (sub & 15) == RX_MAX, abs = sub >> 4 & 1, nan = sub >> 5 & 1, any = false;
  uint32_t r = 0;
  FOR_LANES(l) {
    if (!ACTIVE(lanes, l)) continue;
    uint32_t v = (uint32_t)g->in[l][0];
    if (abs) v &= 0x7fffffffu;
    if (f32_nan(v)) {
      if (nan) return 0x7fffffffu;
      continue;
    }
    if (!any || (max ? f32_less(r, v) : f32_less(v, r))) r = v;
    any = true;
  }
  return any ? r : 0x7fffffffu;
}

static void redux_done(Warp *w, const WsGather *g, uint32_t lanes) {
  const XInsn *x0 = g->at[__builtin_ctz(lanes)];
  if (x0->type == TY_F32) {
    uint32_t f = redux_f32(g, lanes, x0->sub);
    FOR_LANES(l) if (ACTIVE(lanes, l)) put32(w, g->at[l]->slot[0], l, f);
    return;
  }
  bool sgn = x0->type == TY_S32;
  uint32_t r = 0;
  bool first = true;
  FOR_LANES(l) {
    if (!ACTIVE(lanes, l)) continue;
    uint32_t v = (uint32_t)g->in[l][0];
    if (first) { r = v; first = false; continue; }
    switch (x0->sub) {
    case RX_ADD: r += v; break;
    case RX_MIN: if (sgn ? (int32_t)v < (int32_t)r : v < r) r = v; break;
    case RX_MAX: if (sgn ? (int32_t)v > (int32_t)r : v > r) r = v; break;
    case RX_AND: r &= v; break;
    case RX_OR: r |= v; break;
    default: r ^= v; break;
    }
  }
  FOR_LANES(l) if (ACTIVE(lanes, l)) put32(w, g->at[l]->slot[0], l, r);
}

HANDLER(exec_redux) {
  uint64_t in[WARP_SIZE][3] = {{0}};
  uint32_t mb[WARP_SIZE];
  const uint32_t *a = R32(w, x->slot[2]);
  FOR_LANES(l) in[l][0] = a[l];
  return warpsync_arrive(w, x, mask, "redux.sync", key_of(x), masks_of(w, x, mask, mb),
                         (const uint64_t (*)[3])in, redux_done);
}

/* ---- elect (§15) ---- */

static void elect_done(Warp *w, const WsGather *g, uint32_t lanes) {
  int leader = __builtin_ctz(lanes);
  FOR_LANES(l) {
    if (!ACTIVE(lanes, l)) continue;
    put32(w, g->at[l]->slot[0], l, (uint32_t)leader);
    putp(w, g->at[l]->slot[1], l, l == leader);
  }
}

HANDLER(exec_elect) {
  uint64_t in[WARP_SIZE][3] = {{0}};
  uint32_t mb[WARP_SIZE];
  return warpsync_arrive(w, x, mask, "elect.sync", key_of(x), masks_of(w, x, mask, mb),
                         (const uint64_t (*)[3])in, elect_done);
}

/* ---- bar.warp.sync (§6): a rendezvous with no data; participants' memory
 * accesses are ordered because a CTA's warps run one at a time ---- */

/* Completion; under --check, reports lanes of the membermask that never
 * arrived because they have exited or do not exist (treated as arrived,
 * sync digest §6 "Model"). */
static void bws_done(Warp *w, const WsGather *g, uint32_t lanes) {
  race_warp_sync(w, lanes);   /* the member lanes' accesses are ordered */
  uint32_t gone = g->mask & ~lanes;
  if (!gone || !exec_checking(w)) return;
  uint32_t none = gone & ~w->valid, ex = gone & w->exited;
  int l = __builtin_ctz(lanes);
  exec_report(w, g->at[l], l, "bar.warp.sync: membermask 0x%08x names lanes that %s%s%s "
              "(mask 0x%08x); ptxvm does not wait for them", g->mask,
              ex ? "have exited" : "", ex && none ? " and lanes that " : "",
              none ? "do not exist" : "", ex | none);
}

HANDLER(exec_bar_warp_sync) {
  uint64_t in[WARP_SIZE][3] = {{0}};
  uint32_t mb[WARP_SIZE];
  return warpsync_arrive(w, x, mask, "bar.warp.sync", key_of(x), masks_of(w, x, mask, mb),
                         (const uint64_t (*)[3])in, bws_done);
}

bool warp_select_bar_warp_sync(Lower *L, const Insn *in, XInsn *x) {
  for (int i = 0; i < XINSN_MAX_OPDS; i++) x->slot[i] = NOSLOT;
  x->slot[5] = lower_src(L, &in->opds[0], TY_B32);
  x->nslots = 6;
  x->fn = exec_bar_warp_sync;
  return true;
}

/* ---- activemask (§13): the executing lanes ---- */

HANDLER(exec_activemask) {
  FOR_LANES(l) if (ACTIVE(mask, l)) R32(w, x->slot[0])[l] = mask;
  return XS_NEXT;
}

/* ---- selector ---- */

static uint32_t dst_or_none(Lower *L, const Operand *o) {
  return o->kind == OPD_SINK ? NOSLOT : lower_dst(L, o);
}

/* d or d|p at opds[0] */
static void dests(Lower *L, const Insn *in, XInsn *x) {
  const Operand *d = &in->opds[0];
  if (d->kind == OPD_PAIR) {
    x->slot[0] = dst_or_none(L, &d->elems[0]);
    x->slot[1] = dst_or_none(L, &d->elems[1]);
  } else {
    x->slot[0] = dst_or_none(L, d);
  }
}

static int mode_of(const Insn *in, const char *const *names, int n) {
  for (int i = 0; i < n; i++) if (insn_has_mod(in, names[i])) return i;
  return -1;
}

bool exec_select_WARP(Lower *L, const Insn *in, XInsn *x) {
  static const char *const shfl_modes[] = {".up", ".down", ".bfly", ".idx"};
  static const char *const vote_modes[] = {".all", ".any", ".uni", ".ballot"};
  static const char *const redux_ops[] = {".add", ".min", ".max", ".and", ".or", ".xor"};
  for (int i = 0; i < XINSN_MAX_OPDS; i++) x->slot[i] = NOSLOT;
  x->nslots = 6;
  x->type = in->ntypes ? in->types[0] : 0;
  const Operand *o = in->opds;
  int m;
  switch ((Opcode)in->op) {
  case OP_SHFL: case OP_SHFL_SYNC:
    if ((m = mode_of(in, shfl_modes, 4)) < 0) return false;
    x->sub = (uint8_t)m;
    dests(L, in, x);
    x->slot[2] = lower_src(L, &o[1], TY_B32);
    x->slot[3] = lower_src(L, &o[2], TY_B32);
    x->slot[4] = lower_src(L, &o[3], TY_B32);
    if (in->op == OP_SHFL_SYNC) x->slot[5] = lower_src(L, &o[4], TY_B32);
    x->fn = exec_shfl;
    return true;
  case OP_VOTE: case OP_VOTE_BALLOT: case OP_VOTE_SYNC: case OP_VOTE_SYNC_BALLOT:
    if ((m = mode_of(in, vote_modes, 4)) < 0) return false;
    x->sub = (uint8_t)m;
    x->slot[0] = lower_dst(L, &o[0]);
    x->slot[2] = lower_src(L, &o[1], TY_PRED);
    x->imm = (o[1].flags & OPF_NEG) != 0;
    if (in->op == OP_VOTE_SYNC || in->op == OP_VOTE_SYNC_BALLOT) {
      x->slot[5] = lower_src(L, &o[2], TY_B32);
      x->fn = exec_vote;
    } else {
      x->fn = exec_vote_old;
    }
    return true;
  case OP_MATCH_ANY_SYNC: case OP_MATCH_ALL_SYNC:
    x->sub = in->op == OP_MATCH_ALL_SYNC;
    dests(L, in, x);
    x->slot[2] = lower_src(L, &o[1], (Type)x->type);
    x->slot[5] = lower_src(L, &o[2], TY_B32);
    x->fn = exec_match;
    return true;
  case OP_REDUX_SYNC: case OP_REDUX_SYNC_BIT: case OP_REDUX_SYNC_F:
    if ((m = mode_of(in, redux_ops, 6)) < 0) return false;
    x->sub = (uint8_t)(m | insn_has_mod(in, ".abs") << 4 | insn_has_mod(in, ".NaN") << 5);
    x->slot[0] = lower_dst(L, &o[0]);
    x->slot[2] = lower_src(L, &o[1], TY_B32);
    x->slot[5] = lower_src(L, &o[2], TY_B32);
    x->fn = exec_redux;
    return true;
  case OP_ELECT_SYNC:
    dests(L, in, x);
    x->slot[5] = lower_src(L, &o[1], TY_B32);
    x->fn = exec_elect;
    return true;
  case OP_ACTIVEMASK:
    x->slot[0] = lower_dst(L, &o[0]);
    x->fn = exec_activemask;
    return true;
  default:
    return false;
  }
}
