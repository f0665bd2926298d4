/* async.c: family ASYNC, the asynchronous copies (PTX ISA 9.0 §9.7.9.25;
 * sync digest §19.11, §19.12):
 *   cp.async.{ca,cg}.shared{::cta}.global [dst], [src], 4|8|16 {, src-size |
 *     , ignore-src} (.cg: 16 only; bytes from src-size on are zero-filled,
 *     all of them with ignore-src true), cp.async.commit_group,
 *     cp.async.wait_group N, cp.async.wait_all;
 *   cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes
 *     [dst], [src], size, [mbar] (size a multiple of 16, both addresses
 *     16-byte aligned; not .multicast);
 *   cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size,
 *     cp.async.bulk.commit_group, cp.async.bulk.wait_group{.read} N;
 *   cp.async.bulk.prefetch.L2.global (a hint; nothing happens).
 * cp.async.mbarrier.arrive is in mbar.c (family MBAR), the tensor copies in
 * tensor.c, st.async, red.async, cp.reduce.async.bulk and the copies to a
 * peer CTA (shared::cta source, multicast) in remote.c.
 *
 * Completion model. At issue the source bytes are read (a snapshot; the
 * program may not change them before completion anyway) and the destination
 * checked; the copy is queued with a due time: the issuing warp's virtual
 * clock plus the completion delay (virtual ns: ptxvm_set_async_delay / the
 * CLI's --async-delay, else the environment variable PTXVM_ASYNC_DELAY,
 * else 2000; 0 = each copy lands at issue). A queued copy
 * lands, and then signals its mbarrier (complete_tx of its size, or the
 * deferred arrive of a cp.async.mbarrier.arrive, which waits for the
 * thread's earlier cp.async copies), at the first of:
 *   - the end of a round of the CTA loop (mbar_cta_poll) where some warp's
 *     clock reached its due time;
 *   - the issuing thread's cp.async.wait_group / wait_all /
 *     cp.async.bulk.wait_group covering its group (the wait then advances
 *     the thread's clock to the due time);
 *   - a moment when no lane of the CTA can run (so a phase waiting for the
 *     transaction completes instead of deadlocking);
 *   - the end of the CTA (bulk stores to global land).
 * A thread's copies land in issue order. So the data is there no later than
 * the wait or mbarrier phase a correct program uses, and a program that
 * reads the destination without waiting sees the old bytes (within one
 * round of the CTA loop: QUANTUM instructions per warp). .read on
 * bulk wait_group waits for the whole copy (stronger than needed). */
#include "program.h"
#include "mbar.h"

#include <stdio.h>
#include <string.h>

typedef struct AsAddr { uint32_t base; bool base64; int64_t imm; } AsAddr;

typedef struct AsInsn {
  AsAddr dst, src, mbar;
  Space dsp, ssp, msp;
  uint32_t cpsize;       /* cp.async: 4, 8, 16 */
  int extra;             /* cp.async: 0 none, 1 src-size slot, 2 ignore-src pred */
  uint32_t xslot;        /* its slot; bulk copies: the size slot */
  uint32_t n;            /* wait_group N */
} AsInsn;

static uint64_t addr_of(Warp *w, const AsAddr *a, Space sp, int l) {
  return lane_address(w, sp, a->imm, a->base, a->base64, l);
}

/* One handler per operation (exec_select_ASYNC picks it); lanes in order. */

/* The warp's destination and source bytes when every active lane's copy is
 * aligned, reads its source (n > 0) and lies in one span each (mem_span):
 * d[l], s[l] and n[l] filled, true; else false (the lane loop then finds and
 * reports the faults in lane order). Not with an observer installed: it
 * sees each lane's access in the lane loop's order. */
static bool cp_async_spans(Warp *w, const XInsn *x, uint32_t mask, uint8_t **d,
                           const uint8_t **s, uint32_t *n) {
  const AsInsn *a = x->aux;
  if (mem_observed(w)) return false;
  uint64_t da[WARP_SIZE], sa[WARP_SIZE], dlo = UINT64_MAX, dhi = 0, slo = UINT64_MAX, shi = 0, bits = 0;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint32_t k = a->cpsize;
    if (a->extra == 1) k = R32(w, a->xslot)[l];
    else if (a->extra == 2 && (w->pred[a->xslot] >> l & 1)) k = 0;
    if (k == 0 || k > a->cpsize) return false;
    n[l] = k;
    da[l] = addr_of(w, &a->dst, a->dsp, l), sa[l] = addr_of(w, &a->src, a->ssp, l);
    bits |= da[l] | sa[l];
    if (da[l] < dlo) dlo = da[l];
    if (da[l] > dhi) dhi = da[l];
    if (sa[l] < slo) slo = sa[l];
    if (sa[l] > shi) shi = sa[l];
  }
  if (!mask || bits & (a->cpsize - 1) || dhi + a->cpsize < dhi || shi + a->cpsize < shi) return false;
  uint8_t *db = mem_span(w, a->dsp, dlo, dhi + a->cpsize, true);
  const uint8_t *sb = db ? mem_span(w, a->ssp, slo, shi + a->cpsize, false) : NULL;
  if (!sb) return false;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    d[l] = db + (da[l] - dlo);
    s[l] = sb + (sa[l] - slo);
  }
  return true;
}

HANDLER(exec_cp_async) {
  const AsInsn *a = x->aux;
  uint8_t *dp[WARP_SIZE];
  const uint8_t *sp[WARP_SIZE];
  uint32_t np[WARP_SIZE];
  if (cp_async_spans(w, x, mask, dp, sp, np)) {
    FOR_LANES(l) {
      if (!ACTIVE(mask, l)) continue;
      if (mbar_async_copy(w, x, l, AS_CP_ASYNC, dp[l], sp[l], a->cpsize, np[l], SP_NONE, 0) != XS_NEXT)
        return XS_TRAP;
    }
    return XS_NEXT;
  }
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint32_t n = a->cpsize;
    if (a->extra == 1) {
      uint32_t ss = R32(w, a->xslot)[l];
      if (ss > a->cpsize)
        return exec_fault(w, x, l, "cp.async: src-size %u is larger than cp-size %u", ss, a->cpsize);
      n = ss;
    } else if (a->extra == 2 && (w->pred[a->xslot] >> l & 1)) {
      n = 0;
    }
    uint64_t da = addr_of(w, &a->dst, a->dsp, l), sa = addr_of(w, &a->src, a->ssp, l);
    uint8_t *d = mem_ptr(w, x, l, a->dsp, da, a->cpsize, a->cpsize, true);
    if (!d) return XS_TRAP;
    const uint8_t *s = d;
    if (n) {
      s = mem_ptr(w, x, l, a->ssp, sa, a->cpsize, a->cpsize, false);
      if (!s) return XS_TRAP;
      if (mem_observed(w)) mem_observe(w, x, l, a->ssp, sa, s, n, ACC_ASYNC_RD, false);
    }
    if (mbar_async_copy(w, x, l, AS_CP_ASYNC, d, s, a->cpsize, n, SP_NONE, 0) != XS_NEXT)
      return XS_TRAP;
  }
  return XS_NEXT;
}

/* A bulk copy of kind AS_BULK_TX (to shared memory, complete_tx on the
 * mbarrier operand) or AS_BULK_GROUP (to global memory, bulk_group). */
static inline XStatus bulk_lanes(Warp *w, const XInsn *x, uint32_t mask, AsyncKind kind) {
  const AsInsn *a = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint32_t size = R32(w, a->xslot)[l];
    uint64_t da = addr_of(w, &a->dst, a->dsp, l), sa = addr_of(w, &a->src, a->ssp, l);
    if (size % 16 || da % 16 || sa % 16)
      return exec_fault(w, x, l, "cp.async.bulk: size %u and both addresses (dst 0x%llx, src "
                        "0x%llx) must be multiples of 16", size, (unsigned long long)da,
                        (unsigned long long)sa);
    uint8_t *d = size ? mem_ptr(w, x, l, a->dsp, da, size, 16, true) : NULL;
    const uint8_t *s = size ? mem_access(w, x, l, a->ssp, sa, size, 16, ACC_ASYNC_RD) : NULL;
    if (size && (!d || !s)) return XS_TRAP;
    uint64_t ma = kind == AS_BULK_TX ? addr_of(w, &a->mbar, a->msp, l) : 0;
    if (mbar_async_copy(w, x, l, kind, d, s, size, size, a->msp, ma) != XS_NEXT) return XS_TRAP;
  }
  return XS_NEXT;
}

HANDLER(exec_cp_async_bulk_g2s) { return bulk_lanes(w, x, mask, AS_BULK_TX); }
HANDLER(exec_cp_async_bulk_s2g) { return bulk_lanes(w, x, mask, AS_BULK_GROUP); }

HANDLER(exec_cp_async_commit_group) {
  (void)x;
  FOR_LANES(l) if (ACTIVE(mask, l)) mbar_async_commit(w, l, AG_CP_ASYNC);
  return XS_NEXT;
}

HANDLER(exec_cp_async_bulk_commit_group) {
  (void)x;
  FOR_LANES(l) if (ACTIVE(mask, l)) mbar_async_commit(w, l, AG_BULK);
  return XS_NEXT;
}

HANDLER(exec_cp_async_wait_group) {
  const AsInsn *a = x->aux;
  FOR_LANES(l) if (ACTIVE(mask, l)) mbar_async_wait(w, l, AG_CP_ASYNC, a->n);
  return XS_NEXT;
}

HANDLER(exec_cp_async_bulk_wait_group) {
  const AsInsn *a = x->aux;
  FOR_LANES(l) if (ACTIVE(mask, l)) mbar_async_wait(w, l, AG_BULK, a->n);
  return XS_NEXT;
}

HANDLER(exec_cp_async_wait_all) {
  (void)x;
  FOR_LANES(l) if (ACTIVE(mask, l)) mbar_async_wait_all(w, l);
  return XS_NEXT;
}

/* cp.async.bulk.prefetch.L2: a hint; nothing happens. */
HANDLER(exec_cp_async_bulk_prefetch) {
  (void)w, (void)x, (void)mask;
  return XS_NEXT;
}

static void addr_opd(Lower *L, const Operand *m, Space sp, AsAddr *a) {
  a->imm = lower_addr(L, m, sp, &a->base);
  a->base64 = m->sym && m->sym->kind == SYM_REG && type_size(m->sym->type) == 8;
}

bool exec_select_ASYNC(Lower *L, const Insn *in, XInsn *x) {
  AsInsn *a = lower_aux(L, sizeof *a);
  x->aux = a;
  const Operand *o = in->opds;
  switch ((Opcode)in->op) {
  case OP_CP_ASYNC_COMMIT_GROUP: x->fn = exec_cp_async_commit_group; return true;
  case OP_CP_ASYNC_WAIT_ALL: x->fn = exec_cp_async_wait_all; return true;
  case OP_CP_ASYNC_BULK_COMMIT_GROUP: x->fn = exec_cp_async_bulk_commit_group; return true;
  case OP_CP_ASYNC_WAIT_GROUP: case OP_CP_ASYNC_BULK_WAIT_GROUP:
    x->fn = in->op == OP_CP_ASYNC_WAIT_GROUP ? exec_cp_async_wait_group
                                             : exec_cp_async_bulk_wait_group;
    if (o[0].kind != OPD_IMM || o[0].ival < 0) lower_refuse(L, "wait_group needs a non-negative integer constant");
    a->n = (uint32_t)o[0].ival;
    return true;
  case OP_CP_ASYNC: {
    x->fn = exec_cp_async;
    a->dsp = SP_SHARED; a->ssp = SP_GLOBAL;
    addr_opd(L, &o[0], SP_SHARED, &a->dst);
    addr_opd(L, &o[1], SP_GLOBAL, &a->src);
    if (o[2].kind != OPD_IMM || (o[2].ival != 4 && o[2].ival != 8 && o[2].ival != 16))
      lower_refuse(L, "cp.async: cp-size must be the constant 4, 8 or 16");
    a->cpsize = (uint32_t)o[2].ival;
    if (insn_has_mod(in, ".cg") && a->cpsize != 16) lower_refuse(L, "cp.async.cg: cp-size must be 16");
    int nx = in->nopds - 3 - (insn_has_mod(in, ".L2::cache_hint") ? 1 : 0);
    if (nx > 0) {
      const Operand *e = &o[3];
      bool pred = e->kind == OPD_REG && e->sym && e->sym->type == TY_PRED;
      a->extra = pred ? 2 : 1;
      a->xslot = lower_src(L, e, pred ? TY_PRED : TY_U32);
    }
    return true;
  }
  case OP_CP_ASYNC_BULK_G2S: case OP_CP_ASYNC_BULK_G2C:
    x->fn = exec_cp_async_bulk_g2s;
    a->dsp = SP_SHARED; a->ssp = SP_GLOBAL; a->msp = SP_SHARED;
    addr_opd(L, &o[0], SP_SHARED, &a->dst);
    addr_opd(L, &o[1], SP_GLOBAL, &a->src);
    a->xslot = lower_src(L, &o[2], TY_U32);
    addr_opd(L, &o[3], SP_SHARED, &a->mbar);
    return true;
  case OP_CP_ASYNC_BULK_PREFETCH:   /* a hint: nothing to do */
    x->fn = exec_cp_async_bulk_prefetch;
    return true;
  case OP_CP_ASYNC_BULK_S2G:
    x->fn = exec_cp_async_bulk_s2g;
    a->dsp = SP_GLOBAL; a->ssp = SP_SHARED;
    addr_opd(L, &o[0], SP_GLOBAL, &a->dst);
    addr_opd(L, &o[1], SP_SHARED, &a->src);
    a->xslot = lower_src(L, &o[2], TY_U32);
    return true;
  case OP_CP_ASYNC_BULK_TENSOR_G2S: case OP_CP_ASYNC_BULK_TENSOR_S2G:
  case OP_CP_ASYNC_BULK_PREFETCH_TENSOR: case OP_CP_REDUCE_ASYNC_BULK_TENSOR: case OP_TENSORMAP_REPLACE: case OP_TENSORMAP_CP_FENCEPROXY:
    return tensor_select(L, in, x);
  case OP_ST_ASYNC: case OP_CP_ASYNC_BULK_S2C: case OP_CP_ASYNC_BULK_G2C_MC: case OP_RED_ASYNC:
  case OP_CP_REDUCE_ASYNC_BULK_S2C: case OP_CP_REDUCE_ASYNC_BULK_S2G:
    return remote_select(L, in, x);
  default:
    return false;
  }
}
