/* remote.c: the asynchronous writes into a peer CTA's shared memory that
 * signal the peer's mbarrier, and the bulk reductions (family ASYNC; PTX ISA
 * 9.0 §9.7.9.12 st.async, §9.7.9.25.4 cp.async.bulk, cp.reduce.async.bulk):
 *   st.async{.weak}.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.type
 *     [a], b, [mbar]: the value of b (vector size bytes, a aligned to it);
 *   cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
 *     [dst], [src], size, [mbar] (size and both addresses multiples of 16);
 *   cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
 *     .multicast::cluster [dst], [src], size, [mbar], ctaMask: the bytes to
 *     dst's CTA-relative offset in every CTA of the cluster whose rank bit is
 *     set in ctaMask, with complete_tx on the mbarrier at mbar's offset there;
 *   red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op
 *     .type [a], b, [mbar] (§9.7.13.6): [a] op= b when it lands;
 *   cp.reduce.async.bulk to a peer's shared memory (complete_tx) or to global
 *     memory (.bulk_group): dst's elements op= src's when it lands, with
 *     atom.c's operations (float add rounded to nearest even; .f32 add
 *     flushes subnormals, f16/bf16 add is .noftz only, as the ISA says).
 * Each is a complete_tx item of the CTA's asynchronous queue (mbar.h,
 * mbar_async_copy: the source read now, the landing after --async-delay or
 * when the destination CTA can no longer run, then complete_tx(size) on the
 * mbarrier, which gives --check its happens-before edge), as the bulk copies
 * of async.c are. The mbarrier must be in the CTA of the destination (the
 * ISA: "in the same CTA as the destination"); a peer outside the cluster,
 * exited, or a bad or misaligned address is a located fault at issue. */
#include "program.h"
#include "mbar.h"
#include "../mem/mem.h"

#include <stdio.h>
#include <string.h>

typedef struct RmAddr { uint32_t base; bool base64; int64_t imm; } RmAddr;

typedef struct RmInsn {
  RmAddr dst, src, mbar;
  Space ssp;
  uint32_t size;          /* st.async: bytes of the value (element size x vector) */
  uint8_t esize, n;       /* st.async: element bytes, elements */
  uint32_t vslot[4];      /* st.async: the value's slots */
  uint32_t xslot;         /* bulk: the size slot */
  uint32_t mslot;         /* multicast: the ctaMask slot */
  AsReduce red;           /* red.async, cp.reduce.async.bulk */
} RmInsn;

static uint64_t addr_of(Warp *w, const RmAddr *a, Space sp, int l) {
  return lane_address(w, sp, a->imm, a->base, a->base64, l);
}

/* The cluster rank a .shared::cluster address names (rank bits 0: own). */
static uint64_t rank_of(const Warp *w, uint64_t a) {
  uint64_t hi = a >> SHARED_RANK_SHIFT;
  return hi ? hi - 1 : (uint64_t)w->cta->rank;
}

/* The mbarrier of [mbar] must be in the CTA of the destination [dst]. */
static bool same_cta(Warp *w, const XInsn *x, int l, uint64_t da, uint64_t ma) {
  if (rank_of(w, da) == rank_of(w, ma)) return true;
  char nm[96];
  exec_fault(w, x, l, "%s: the mbarrier (0x%llx, CTA rank %llu) is not in the CTA of the "
             "destination (0x%llx, CTA rank %llu)", insn_text(x->src, nm, sizeof nm),
             (unsigned long long)ma, (unsigned long long)rank_of(w, ma), (unsigned long long)da,
             (unsigned long long)rank_of(w, da));
  return false;
}

/* st.async, and red.async (a->red.op >= 0: [a] op= b when it lands). */
HANDLER(exec_st_async) {
  const RmInsn *a = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t da = addr_of(w, &a->dst, SP_SHARED, l), ma = addr_of(w, &a->mbar, SP_SHARED, l);
    if (!same_cta(w, x, l, da, ma)) return XS_TRAP;
    uint8_t *d = mem_ptr(w, x, l, SP_SHARED, da, a->size, a->size, true);
    if (!d) return XS_TRAP;
    uint8_t v[32];
    for (int e = 0; e < a->n; e++) {
      if (a->esize == 8) memcpy(v + 8 * e, &R64(w, a->vslot[e])[l], 8);
      else memcpy(v + 4 * e, &R32(w, a->vslot[e])[l], 4);
    }
    if (mbar_async_reduce_with(w, x, l, AS_BULK_TX, d, v, a->size, a->size, SP_SHARED, ma,
                          a->red.op >= 0 ? &a->red : NULL) != XS_NEXT)
      return XS_TRAP;
  }
  return XS_NEXT;
}

/* One bulk copy of lane l to the shared::cluster address da, complete_tx
 * on ma (the size and addresses already checked). */
static XStatus bulk_one(Warp *w, const XInsn *x, int l, const RmInsn *a, uint64_t da, uint64_t sa,
                        uint64_t ma, uint32_t size) {
  if (!same_cta(w, x, l, da, ma)) return XS_TRAP;
  uint8_t *d = size ? mem_ptr(w, x, l, SP_SHARED, da, size, 16, true) : NULL;
  const uint8_t *s = size ? mem_access(w, x, l, a->ssp, sa, size, 16, ACC_ASYNC_RD) : NULL;
  if (size && (!d || !s)) return XS_TRAP;
  return mbar_async_copy(w, x, l, AS_BULK_TX, d, s, size, size, SP_SHARED, ma);
}

static bool bulk_args(Warp *w, const XInsn *x, int l, const RmInsn *a, uint64_t *da, uint64_t *sa,
                      uint64_t *ma, uint32_t *size) {
  *size = R32(w, a->xslot)[l];
  *da = addr_of(w, &a->dst, SP_SHARED, l);
  *sa = addr_of(w, &a->src, a->ssp, l);
  *ma = addr_of(w, &a->mbar, SP_SHARED, l);
  if (*size % 16 == 0 && *da % 16 == 0 && *sa % 16 == 0) return true;
  exec_fault(w, x, l, "cp.async.bulk: size %u and both addresses (dst 0x%llx, src 0x%llx) must be "
             "multiples of 16", *size, (unsigned long long)*da, (unsigned long long)*sa);
  return false;
}

HANDLER(exec_cp_async_bulk_s2c) {
  const RmInsn *a = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t da, sa, ma;
    uint32_t size;
    if (!bulk_args(w, x, l, a, &da, &sa, &ma, &size)) return XS_TRAP;
    if (sa >> SHARED_RANK_SHIFT && rank_of(w, sa) != w->cta->rank) {   /* source: shared::cta */
      char nm[96];
      return exec_fault(w, x, l, "%s: the source 0x%llx is in the shared memory of CTA rank %llu, "
                        "not the executing CTA's (.shared::cta)", insn_text(x->src, nm, sizeof nm),
                        (unsigned long long)sa, (unsigned long long)rank_of(w, sa));
    }
    if (bulk_one(w, x, l, a, da, sa, ma, size) != XS_NEXT) return XS_TRAP;
  }
  return XS_NEXT;
}

/* .multicast::cluster: one copy per rank of ctaMask, each to dst's and
 * mbar's CTA-relative offsets in that CTA. */
HANDLER(exec_cp_async_bulk_g2c_mc) {
  const RmInsn *a = x->aux;
  int ncta = w->cta->cluster ? w->cta->cluster->ncta : 1;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t da, sa, ma;
    uint32_t size;
    if (!bulk_args(w, x, l, a, &da, &sa, &ma, &size)) return XS_TRAP;
    uint32_t m = R32(w, a->mslot)[l] & 0xffffu;
    if (m >> ncta) {
      char nm[96];
      return exec_fault(w, x, l, "%s: ctaMask 0x%x names a CTA rank past the cluster "
                        "(%%cluster_nctarank %d)", insn_text(x->src, nm, sizeof nm), m, ncta);
    }
    for (; m; m &= m - 1) {
      uint64_t r = (uint64_t)__builtin_ctz(m) + 1;
      uint64_t d = r << SHARED_RANK_SHIFT | (da & SHARED_OFFSET_MASK);
      uint64_t b = r << SHARED_RANK_SHIFT | (ma & SHARED_OFFSET_MASK);
      if (bulk_one(w, x, l, a, d, sa, b, size) != XS_NEXT) return XS_TRAP;
    }
  }
  return XS_NEXT;
}

/* One element of a reduction's landing: shared memory is the cluster's
 * host thread's alone, global memory is shared with other clusters' host
 * threads, so there a compare-and-swap loop. */
#define LAND(T) do {                                                                    \
    T s, r, v;                                                                          \
    memcpy(&s, src, sizeof s);                                                          \
    if (!red->global) {                                                                 \
      memcpy(&r, dst, sizeof r);                                                        \
      v = (T)atom_reduce_value(red->op, red->type, red->ftz, r, s);                              \
      memcpy(dst, &v, sizeof v);                                                        \
      break;                                                                            \
    }                                                                                   \
    r = __atomic_load_n((T *)dst, __ATOMIC_RELAXED);                                    \
    do v = (T)atom_reduce_value(red->op, red->type, red->ftz, r, s);                             \
    while (!__atomic_compare_exchange_n((T *)dst, &r, v, false, __ATOMIC_SEQ_CST,      \
                                        __ATOMIC_RELAXED));                            \
  } while (0)

void remote_land_reduce(const AsReduce *red, uint8_t *dst, const uint8_t *src, uint32_t size) {
  for (uint32_t i = 0; i + red->esize <= size; i += red->esize, dst += red->esize, src += red->esize) {
    switch (red->esize) {
    case 2: LAND(uint16_t); break;
    case 4: LAND(uint32_t); break;
    default: LAND(uint64_t); break;
    }
  }
}

/* cp.reduce.async.bulk: [dst] op= size bytes of shared::cta [src], to a
 * peer's shared memory (complete_tx) or to global memory (bulk_group).
 * size and both addresses multiples of 16, as cp.async.bulk's. */
HANDLER(exec_cp_reduce_async_bulk) {
  const RmInsn *a = x->aux;
  bool g = a->red.global;
  Space dsp = g ? SP_GLOBAL : SP_SHARED;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint32_t size = R32(w, a->xslot)[l];
    uint64_t da = addr_of(w, &a->dst, dsp, l), sa = addr_of(w, &a->src, SP_SHARED, l);
    uint64_t ma = g ? 0 : addr_of(w, &a->mbar, SP_SHARED, l);
    if (size % 16 || da % 16 || sa % 16)
      return exec_fault(w, x, l, "cp.reduce.async.bulk: size %u and both addresses (dst 0x%llx, "
                        "src 0x%llx) must be multiples of 16", size, (unsigned long long)da,
                        (unsigned long long)sa);
    if (!g && !same_cta(w, x, l, da, ma)) return XS_TRAP;
    uint8_t *d = size ? mem_ptr(w, x, l, dsp, da, size, 16, true) : NULL;
    const uint8_t *s = size ? mem_access(w, x, l, SP_SHARED, sa, size, 16, ACC_ASYNC_RD) : NULL;
    if (size && (!d || !s)) return XS_TRAP;
    if (mbar_async_reduce_with(w, x, l, g ? AS_BULK_GROUP : AS_BULK_TX, d, s, size, size, SP_SHARED, ma,
                          &a->red) != XS_NEXT)
      return XS_TRAP;
  }
  return XS_NEXT;
}

static void addr_opd(Lower *L, const Operand *m, Space sp, RmAddr *a) {
  a->imm = lower_addr(L, m, sp, &a->base);
  a->base64 = m->sym && m->sym->kind == SYM_REG && type_size(m->sym->type) == 8;
}

bool remote_select(Lower *L, const Insn *in, XInsn *x) {
  RmInsn *a = lower_aux(L, sizeof *a);
  x->aux = a;
  const Operand *o = in->opds;
  switch ((Opcode)in->op) {
  case OP_ST_ASYNC: {
    Type t = (Type)in->types[0];
    const Operand *v = o[1].kind == OPD_VEC ? o[1].elems : &o[1];
    int n = o[1].kind == OPD_VEC ? o[1].n : 1;
    if (n != in->vec || n > 4) return false;
    a->red.op = -1;
    a->esize = (uint8_t)type_size(t);
    a->n = (uint8_t)n;
    a->size = (uint32_t)(a->esize * n);
    for (int e = 0; e < n; e++) a->vslot[e] = lower_src(L, &v[e], t);
    addr_opd(L, &o[0], SP_SHARED, &a->dst);
    addr_opd(L, &o[2], SP_SHARED, &a->mbar);
    x->fn = exec_st_async;
    return true;
  }
  case OP_CP_ASYNC_BULK_S2C: case OP_CP_ASYNC_BULK_G2C_MC: {
    bool mc = in->op == OP_CP_ASYNC_BULK_G2C_MC;
    a->ssp = mc ? SP_GLOBAL : SP_SHARED;
    addr_opd(L, &o[0], SP_SHARED, &a->dst);
    addr_opd(L, &o[1], a->ssp, &a->src);
    a->xslot = lower_src(L, &o[2], TY_U32);
    addr_opd(L, &o[3], SP_SHARED, &a->mbar);
    if (mc) a->mslot = lower_src(L, &o[4], TY_B16);
    x->fn = mc ? exec_cp_async_bulk_g2c_mc : exec_cp_async_bulk_s2c;
    return true;
  }
  case OP_RED_ASYNC: {
    Type t = (Type)in->types[0];
    /* the mbarrier operand is required, so its one completion mechanism
       (.mbarrier::complete_tx::bytes) is meant even when not spelled */
    a->red = (AsReduce){.op = atom_reduce_op(in), .type = t, .esize = (uint8_t)type_size(t)};
    if (a->red.op < 0) return false;
    a->esize = a->red.esize;
    a->n = 1;
    a->size = a->esize;
    a->vslot[0] = lower_src(L, &o[1], t);
    addr_opd(L, &o[0], SP_SHARED, &a->dst);
    addr_opd(L, &o[2], SP_SHARED, &a->mbar);
    x->fn = exec_st_async;
    return true;
  }
  case OP_CP_REDUCE_ASYNC_BULK_S2C: case OP_CP_REDUCE_ASYNC_BULK_S2G: {
    Type t = (Type)in->types[0];
    bool g = in->op == OP_CP_REDUCE_ASYNC_BULK_S2G;
    a->red = (AsReduce){.op = atom_reduce_op(in), .type = t, .esize = (uint8_t)type_size(t),
                        .global = g};
    if (a->red.op < 0) return false;
    /* the ISA: .add.f32 flushes subnormal inputs and results to sign-preserving
       zero; .add.f16/.bf16 are .noftz (validate.c requires it): no flushing */
    a->red.ftz = t == TY_F32;
    addr_opd(L, &o[0], g ? SP_GLOBAL : SP_SHARED, &a->dst);
    addr_opd(L, &o[1], SP_SHARED, &a->src);
    a->xslot = lower_src(L, &o[2], TY_U32);
    if (!g) addr_opd(L, &o[3], SP_SHARED, &a->mbar);
    x->fn = exec_cp_reduce_async_bulk;
    return true;
  }
  default:
    return false;
  }
}
