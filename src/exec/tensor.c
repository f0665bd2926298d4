/* tensor.c: the tensor copies of family ASYNC (PTX ISA 9.0 §9.7.9.25.5,
 * tensor maps §5.5.8), on the tensor map of src/mem/tensormap.h:
 *   cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global{.tile,.im2col}
 *     .mbarrier::complete_tx::bytes{.multicast::cluster}
 *     [dst], [map, {c0..cN-1}], [mbar]{, {im2col offsets}}{, ctaMask}{, policy}
 *   cp.async.bulk.tensor.Nd.global.shared::cta{.tile,.im2col_no_offs}.bulk_group
 *     [map, {c...}], [src]{, policy}
 *   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP{.tile,.im2col_no_offs}
 *     .bulk_group [map, {c...}], [src]{, policy} (a store whose elements
 *     land as global op= shared: bulkred.c, the ISA's table of OP and the
 *     map's element types, checked at issue);
 *   cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile,.im2col} [map, {c...}]
 *     {, {offsets}} (a hint: the map is read and checked);
 *   tensormap.replace.tile.FIELD{.global,.shared::cta}.b1024.{b32,b64}
 *     [map], {ord,} new_val (src/mem/tensormap.c tensormap_replace: the
 *     ISA's values; it makes zero bytes a ptxvm map), and
 *   tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release
 *     .SCOPE.sync.aligned [dst], [src], 128 (a copy of the map).
 * N is 1..5 and must be the map's rank; the coordinates are .s32 elements
 * (negative or past the tensor: out of bounds). In tile mode the box is
 * ceil(box[i] / elementStride[i]) elements in dimension i (dimension 0: box[0],
 * its stride ignored, unless the map is interleaved: NC/8HWC8 or NC/16HWC16
 * described slice first, tensormap.h), element k of dimension i at coordinate
 * c[i] + k * elementStride[i]; in im2col modes (N 3..5, an im2col map) it
 * is pixels-per-column rows of channels-per-pixel elements, which
 * src/exec/im2col.c finds. A load writes every box element to shared
 * memory (those out of bounds as the map's fill says: zero, or the type's
 * canonical NaN), swizzled as tensormap.h says, and completes tx-count bytes
 * of the whole box on the mbarrier (each CTA's of ctaMask, at the same
 * offsets, with .multicast::cluster); a store or reduction writes the
 * in-bounds elements only. All go through mbar.c's queue (landing,
 * --async-delay, the race checker's view) as bulk copies: a load as one
 * copy of the box, a store as one copy (a reduction one reduction) per
 * contiguous run of a row. The map is read when the copy is
 * issued (ptxvm has no tensor-map cache, so fence.proxy.tensormap::generic
 * has nothing to order; the map's read is not reported to the race
 * checker). Refused by name, with the target they need: .im2col::w,
 * .im2col::w::128, .tile::gather4, .tile::scatter4, .cta_group (sm_100a). */
#include "program.h"
#include "mbar.h"
#include "bulkred.h"
#include "im2col.h"
#include "../mem/mem.h"
#include "../mem/tensormap.h"

#include <stdlib.h>
#include <string.h>

typedef struct TcInsn {
  int rank;
  bool load, prefetch, multicast;
  bool reduce;               /* cp.reduce.async.bulk.tensor: a store that reduces */
  BulkRedOp redop;
  bool im2col;               /* .im2col (offsets in off) or .im2col_no_offs (none) */
  bool has_off;
  uint32_t off[3];           /* .im2col: the offsets' slots (W, H, D) */
  /* the map: a register (generic address) or a .global variable's address */
  uint32_t map_slot;         /* UINT32_MAX: map_imm is the variable's .global address */
  int64_t map_imm;
  uint32_t coord[TMAP_MAX_RANK];
  int64_t sh_imm;            /* the shared operand: [sh_slot + sh_imm] */
  uint32_t sh_slot;
  bool sh64;
  int64_t mb_imm;            /* the mbarrier [mb_slot + mb_imm] */
  uint32_t mb_slot;
  bool mb64;
  uint32_t mask_slot;        /* .multicast::cluster: ctaMask */
} TcInsn;

static uint64_t reg_addr(Warp *w, uint32_t slot, bool r64, int64_t imm, int l) {
  return lane_address(w, SP_SHARED, imm, slot, r64, l);
}

/* Lane l's tensor map, decoded; false after a fault. */
static bool read_map(Warp *w, const XInsn *x, int l, const TcInsn *t, TensorMap *m) {
  const uint8_t *p;
  if (t->map_slot == UINT32_MAX)
    p = mem_ptr(w, x, l, SP_GLOBAL, (uint64_t)t->map_imm, TMAP_BYTES, 64, false);
  else
    p = mem_ptr(w, x, l, SP_NONE, R64(w, t->map_slot)[l] + (uint64_t)t->map_imm, TMAP_BYTES, 64, false);
  if (!p) return false;
  const char *why;
  if (!tensormap_decode(p, m, &why)) return exec_fault(w, x, l, "cp.async.bulk.tensor: %s", why), false;
  if ((int)m->rank != t->rank)
    return exec_fault(w, x, l, "cp.async.bulk.tensor.%dd: the tensor map has rank %u", t->rank, m->rank), false;
  if (t->im2col != (m->mode == TMAP_IM2COL))
    return exec_fault(w, x, l, t->im2col ? "cp.async.bulk.tensor: an im2col copy needs an im2col tensor map "
                      "(cuTensorMapEncodeIm2col)" : "cp.async.bulk.tensor: a tile copy needs a tiled tensor map "
                      "(cuTensorMapEncodeTiled)"), false;
  return true;
}

/* The fill of an out-of-bounds element of m (esize bytes at p). */
static void oob_fill(const TensorMap *m, uint8_t *p) {
  memset(p, 0, m->esize);
  if (!m->oobfill) return;
  /* the canonical NaN of the type: every fraction bit set, sign clear */
  uint64_t nan = m->esize == 2 ? 0x7fff : m->esize == 4 ? 0x7fffffff : 0x7fffffffffffffffull;
  memcpy(p, &nan, m->esize);
}

typedef struct Box { uint32_t n[TMAP_MAX_RANK]; uint32_t bytes, row; } Box;

static void box_of(const TensorMap *m, Box *b) {
  uint64_t total = m->esize;
  if (m->mode == TMAP_IM2COL) {   /* pixels-per-column rows of channels-per-pixel elements */
    for (int i = 0; i < TMAP_MAX_RANK; i++) b->n[i] = 1;
    b->n[0] = m->cpp;
    b->n[1] = m->ppc;
    b->row = m->cpp * m->esize;
    b->bytes = b->row * m->ppc;
    return;
  }
  for (int i = 0; i < TMAP_MAX_RANK; i++) {   /* dimension 0's stride: interleaved maps only */
    b->n[i] = i == 0 && !m->interleave ? m->box[0]
            : i < (int)m->rank ? (m->box[i] + m->estride[i] - 1) / m->estride[i] : 1;
    total *= b->n[i];
  }
  b->bytes = total > (1u << 30) ? 0 : (uint32_t)total;   /* 0: past any shared memory */
  b->row = b->n[0] * m->esize;
}

/* Calls fn for each row of the box: dense offset, the global coordinate of
 * the row's first element per dimension. Returns false when fn does. */
typedef TensorRowFn RowFn;
static bool each_row(const TensorMap *m, const Box *b, const int32_t c[TMAP_MAX_RANK], RowFn fn, void *u) {
  uint32_t off = 0;
  for (uint32_t i4 = 0; i4 < b->n[4]; i4++)
    for (uint32_t i3 = 0; i3 < b->n[3]; i3++)
      for (uint32_t i2 = 0; i2 < b->n[2]; i2++)
        for (uint32_t i1 = 0; i1 < b->n[1]; i1++, off += b->row) {
          uint32_t k[TMAP_MAX_RANK] = {0, i1, i2, i3, i4};
          int64_t g[TMAP_MAX_RANK];
          for (int d = 0; d < TMAP_MAX_RANK; d++) g[d] = (int64_t)c[d] + (int64_t)k[d] * m->estride[d];
          g[0] = c[0];
          if (!fn(u, off, g)) return false;
        }
  return true;
}

/* Dimension 0's element stride: 1 unless the map is interleaved. */
static uint32_t stride0(const TensorMap *m) { return m->interleave ? m->estride[0] : 1; }

/* A row's in-bounds run [lo, hi) of box elements k (at dimension-0
 * coordinate g[0] + k * stride0), and the global byte address of element
 * lo; false when the row is out of bounds. */
static bool row_run(const TensorMap *m, const Box *b, const int64_t g[TMAP_MAX_RANK], uint32_t *lo,
                    uint32_t *hi, uint64_t *addr) {
  for (unsigned d = 1; d < m->rank; d++)
    if (g[d] < 0 || (uint64_t)g[d] >= m->dim[d]) return false;
  int64_t s = stride0(m);
  int64_t first = g[0] < 0 ? (-g[0] + s - 1) / s : 0;
  int64_t left = (int64_t)m->dim[0] - g[0];
  int64_t last = left <= 0 ? 0 : (left + s - 1) / s;
  if (last > b->n[0]) last = b->n[0];
  if (first >= last) return false;
  *lo = (uint32_t)first; *hi = (uint32_t)last;
  uint64_t a = m->addr + (uint64_t)(g[0] + first * s) * m->esize;
  for (unsigned d = 1; d < m->rank; d++) a += (uint64_t)g[d] * m->stride[d];
  *addr = a;
  return true;
}

typedef struct RowCtx {
  Warp *w; const XInsn *x; int l;
  const TensorMap *m; const Box *b;
  int red; BulkRedType rt;   /* red >= 0: a reduction (BulkRedOp) of type rt */
  uint8_t *img;              /* the box, dense (load: built; store: read) */
  uint32_t sh;               /* store: the shared address of the box */
  uint8_t *shost;            /* store: its host bytes */
} RowCtx;

static bool load_row(void *u, uint32_t off, const int64_t g[TMAP_MAX_RANK]) {
  RowCtx *r = u;
  const TensorMap *m = r->m;
  uint32_t lo = 0, hi = 0;
  uint64_t a = 0;
  bool in = row_run(m, r->b, g, &lo, &hi, &a);
  for (uint32_t k = 0; k < r->b->n[0]; k++)
    if (!in || k < lo || k >= hi) oob_fill(m, r->img + off + k * m->esize);
  if (!in) return true;
  uint32_t s0 = stride0(m), n = s0 == 1 ? (hi - lo) * m->esize : m->esize;
  for (uint32_t k = lo; k < hi; k += s0 == 1 ? hi - lo : 1) {   /* one run, or element by element */
    const uint8_t *s = mem_access(r->w, r->x, r->l, SP_GLOBAL, a + (uint64_t)(k - lo) * s0 * m->esize, n, 1,
                                  ACC_ASYNC_RD);
    if (!s) return false;
    memcpy(r->img + off + k * m->esize, s, n);
  }
  return true;
}

static bool store_row(void *u, uint32_t off, const int64_t g[TMAP_MAX_RANK]) {
  RowCtx *r = u;
  const TensorMap *m = r->m;
  uint32_t lo, hi;
  uint64_t a;
  if (!row_run(m, r->b, g, &lo, &hi, &a)) return true;
  uint32_t s0 = stride0(m), n = s0 == 1 ? (hi - lo) * m->esize : m->esize;
  for (uint32_t k = lo; k < hi; k += s0 == 1 ? hi - lo : 1) {   /* one run, or element by element */
    uint8_t *d = mem_ptr(r->w, r->x, r->l, SP_GLOBAL, a + (uint64_t)(k - lo) * s0 * m->esize, n, 1, true);
    if (!d) return false;
    uint8_t *src = r->img + off + k * m->esize;
    XStatus st = r->red >= 0 ? mbar_async_reduce(r->w, r->x, r->l, d, src, n, (BulkRedOp)r->red, r->rt)
                             : mbar_async_copy(r->w, r->x, r->l, AS_BULK_GROUP, d, src, n, n, SP_NONE, 0);
    if (st != XS_NEXT) return false;
  }
  return true;
}

/* The dense box <-> the swizzled shared bytes at shared address sh. */
static void swizzle_copy(const TensorMap *m, uint32_t sh, uint8_t *shared, uint8_t *dense,
                         uint32_t bytes, bool to_shared) {
  for (uint32_t o = 0; o < bytes; o += 16) {
    uint32_t s = tensormap_swizzle(m->swizzle, sh + o) - sh;
    if (to_shared) memcpy(shared + s, dense + o, 16);
    else memcpy(dense + o, shared + s, 16);
  }
}

/* The checks of the shared operand: 128-byte aligned, and with a swizzle a
 * whole number of 128-byte rows (a partial one would move bytes past the
 * box). */
static bool shared_ok(Warp *w, const XInsn *x, int l, const TensorMap *m, const Box *b, uint64_t sh) {
  if (!b->bytes)
    return exec_fault(w, x, l, "cp.async.bulk.tensor: the box is larger than shared memory"), false;
  if (sh % 128)
    return exec_fault(w, x, l, "cp.async.bulk.tensor: the shared address 0x%llx must be 128-byte aligned",
                      (unsigned long long)sh), false;
  if (m->swizzle && b->bytes % 128)
    return exec_fault(w, x, l, "cp.async.bulk.tensor: a swizzled box of %u bytes (not a multiple of "
                      "128) is not supported", b->bytes), false;
  return true;
}

/* The element type of cp.reduce.async.bulk.tensor's op on map m, or -1
 * after a fault: the pairs of the ISA's table (§9.7.9.25.5.3), .b32/.b64
 * being the integer types of those sizes. */
static int reduce_type(Warp *w, const XInsn *x, int l, BulkRedOp op, const TensorMap *m) {
  static const signed char as[] = {[TMAP_U32] = BRT_U32, [TMAP_S32] = BRT_S32, [TMAP_U64] = BRT_U64,
                                   [TMAP_S64] = BRT_S64, [TMAP_F16] = BRT_F16, [TMAP_BF16] = BRT_BF16,
                                   [TMAP_F32] = BRT_F32, [TMAP_U8] = -1, [TMAP_U16] = -1, [TMAP_F64] = -1,
                                   [TMAP_F32_FTZ] = -1, [TMAP_TF32] = -1, [TMAP_TF32_FTZ] = -1};
  static const char *allowed[] = {".u32, .s32, .u64, .f32, .f16, .bf16", ".u32, .s32, .u64, .s64, .f16, .bf16",
                                  ".u32, .s32, .u64, .s64, .f16, .bf16", ".u32", ".u32", ".b32, .b64 (integer)",
                                  ".b32, .b64 (integer)", ".b32, .b64 (integer)"};
  int rt = m->dtype < sizeof as ? as[m->dtype] : -1;
  bool ok = rt >= 0;
  if (ok) switch (op) {
  case BR_ADD: ok = rt != BRT_S64; break;
  case BR_MIN: case BR_MAX: ok = rt != BRT_F32; break;
  case BR_INC: case BR_DEC: ok = rt == BRT_U32; break;
  default: ok = rt <= BRT_S64; break;
  }
  if (!ok)
    return exec_fault(w, x, l, "cp.reduce.async.bulk.tensor%s: the tensor map's element type %s is not one "
                      "%s takes (%s)", bulkred_op_name(op), tensormap_type_name(m->dtype),
                      bulkred_op_name(op), allowed[op]), -1;
  return rt;
}

static XStatus tensor_lane(Warp *w, const XInsn *x, int l, const TcInsn *t) {
  TensorMap m;
  if (!read_map(w, x, l, t, &m)) return XS_TRAP;
  if (t->prefetch) return XS_NEXT;   /* a hint: the map is checked, nothing moves */
  int rt = t->reduce ? reduce_type(w, x, l, t->redop, &m) : 0;
  if (rt < 0) return XS_TRAP;
  int32_t c[TMAP_MAX_RANK] = {0};
  for (int i = 0; i < t->rank; i++) c[i] = (int32_t)R32(w, t->coord[i])[l];
  uint32_t off[3] = {0};
  if (t->im2col) {
    for (int i = 0; t->has_off && i < t->rank - 2; i++) off[i] = R32(w, t->off[i])[l] & 0xffff;
    char why[160];
    if (!im2col_check(&m, c, off, why, sizeof why))
      return exec_fault(w, x, l, "cp.async.bulk.tensor.%dd.im2col: %s", t->rank, why);
  }
  Box b;
  box_of(&m, &b);
  uint64_t sh = reg_addr(w, t->sh_slot, t->sh64, t->sh_imm, l);
  if (!shared_ok(w, x, l, &m, &b, sh)) return XS_TRAP;
  uint8_t *img = malloc(b.bytes);
  if (!img) return exec_fault(w, x, l, "out of memory");
  RowCtx r = {w, x, l, &m, &b, t->reduce ? (int)t->redop : -1, (BulkRedType)rt, img, (uint32_t)sh, NULL};
  XStatus st = XS_TRAP;
  if (t->load) {
    if (!(t->im2col ? im2col_rows(&m, c, off, b.row, load_row, &r) : each_row(&m, &b, c, load_row, &r)))
      goto out;
    uint8_t *sw = img;
    if (m.swizzle) {
      if (!(sw = malloc(b.bytes))) { st = exec_fault(w, x, l, "out of memory"); goto out; }
      swizzle_copy(&m, (uint32_t)sh, sw, img, b.bytes, true);
    }
    uint64_t mb = reg_addr(w, t->mb_slot, t->mb64, t->mb_imm, l);
    uint32_t ctas = t->multicast ? R32(w, t->mask_slot)[l] & 0xffff : 0;
    int ncta = w->cta->cluster ? w->cta->cluster->ncta : 1;
    st = XS_NEXT;
    for (int rk = 0; rk < (t->multicast ? 16 : 1) && st == XS_NEXT; rk++) {
      uint64_t d = sh, mbr = mb;
      if (t->multicast) {   /* the same offsets in CTA rk of the cluster */
        if (!(ctas >> rk & 1)) continue;
        if (rk >= ncta) { st = exec_fault(w, x, l, "cp.async.bulk.tensor: ctaMask 0x%x names CTA rank %d, "
                                          "not in the cluster (%d CTAs)", ctas, rk, ncta); break; }
        uint64_t tag = rk == (int)w->cta->rank ? 0 : (uint64_t)(rk + 1) << SHARED_RANK_SHIFT;
        d = (sh & SHARED_OFFSET_MASK) | tag;
        mbr = (mb & SHARED_OFFSET_MASK) | tag;
      }
      uint8_t *dh = mem_ptr(w, x, l, SP_SHARED, d, b.bytes, 16, true);
      st = dh ? mbar_async_copy(w, x, l, AS_BULK_TX, dh, sw, b.bytes, b.bytes, SP_SHARED, mbr) : XS_TRAP;
    }
    if (sw != img) free(sw);
  } else {
    uint8_t *s = mem_access(w, x, l, SP_SHARED, sh, b.bytes, 16, ACC_ASYNC_RD);
    if (!s) goto out;
    if (m.swizzle) swizzle_copy(&m, (uint32_t)sh, s, img, b.bytes, false);
    else memcpy(img, s, b.bytes);
    st = (t->im2col ? im2col_rows(&m, c, off, b.row, store_row, &r) : each_row(&m, &b, c, store_row, &r))
         ? XS_NEXT : XS_TRAP;
  }
out:
  free(img);
  return st;
}

HANDLER(exec_cp_async_bulk_tensor) {
  const TcInsn *t = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    if (tensor_lane(w, x, l, t) != XS_NEXT) return XS_TRAP;
  }
  return XS_NEXT;
}

/* ---- tensormap.replace, tensormap.cp_fenceproxy ---- */

typedef struct TmEdit {
  Space sp;                  /* the map's space: SP_GLOBAL, SP_SHARED or SP_NONE (generic) */
  int64_t imm; uint32_t slot; bool r64;
  TensorMapField field;
  unsigned ord;
  uint32_t val; bool val64;  /* the new value's slot and width */
  Space ssp; int64_t simm; uint32_t sslot; bool s64;   /* cp_fenceproxy's source */
} TmEdit;

HANDLER(exec_tensormap_replace) {
  const TmEdit *e = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t a = lane_address(w, e->sp, e->imm, e->slot, e->r64, l);
    uint8_t *m = mem_ptr(w, x, l, e->sp, a, TMAP_BYTES, 64, true);
    if (!m) return XS_TRAP;
    uint64_t v = e->val64 ? R64(w, e->val)[l] : R32(w, e->val)[l];
    const char *why;
    if (!tensormap_replace(m, e->field, e->ord, v, &why))
      return exec_fault(w, x, l, "tensormap.replace: %s (value %llu)", why, (unsigned long long)v);
    if (mem_observed(w)) mem_observe(w, x, l, e->sp, a, m, TMAP_BYTES, ACC_ST, false);
  }
  return XS_NEXT;
}

/* The copy of 128 bytes, shared::cta -> global; the proxy fence has nothing
 * to order (maps are read at each copy's issue). */
HANDLER(exec_tensormap_cp_fenceproxy) {
  const TmEdit *e = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t d = lane_address(w, SP_GLOBAL, e->imm, e->slot, e->r64, l);
    uint64_t s = lane_address(w, SP_SHARED, e->simm, e->sslot, e->s64, l);
    const uint8_t *sp = mem_access(w, x, l, SP_SHARED, s, TMAP_BYTES, 64, ACC_LD);
    uint8_t *dp = sp ? mem_ptr(w, x, l, SP_GLOBAL, d, TMAP_BYTES, 64, true) : NULL;
    if (!dp) return XS_TRAP;
    memmove(dp, sp, TMAP_BYTES);
    if (mem_observed(w)) mem_observe(w, x, l, SP_GLOBAL, d, dp, TMAP_BYTES, ACC_ST, false);
  }
  return XS_NEXT;
}

static bool tensormap_edit_select(Lower *L, const Insn *in, XInsn *x) {
  TmEdit *e = lower_aux(L, sizeof *e);
  x->aux = e;
  const Operand *o = in->opds;
  if (in->op == OP_TENSORMAP_CP_FENCEPROXY) {
    if (in->nopds != 3 || o[2].kind != OPD_IMM || o[2].ival != 128)
      lower_refuse(L, "tensormap.cp_fenceproxy: needs [dst], [src], 128");
    e->imm = lower_addr(L, &o[0], SP_GLOBAL, &e->slot);
    e->r64 = o[0].sym && o[0].sym->kind == SYM_REG && type_size(o[0].sym->type) == 8;
    e->simm = lower_addr(L, &o[1], SP_SHARED, &e->sslot);
    e->s64 = o[1].sym && o[1].sym->kind == SYM_REG && type_size(o[1].sym->type) == 8;
    x->fn = exec_tensormap_cp_fenceproxy;
    return true;
  }
  static const char *fields[] = {".global_address", ".rank", ".box_dim", ".global_dim", ".global_stride",
                                 ".element_stride", ".elemtype", ".interleave_layout", ".swizzle_mode",
                                 ".swizzle_atomicity", ".fill_mode"};
  for (int i = 0; i < (int)(sizeof fields / sizeof *fields); i++)
    if (insn_has_mod(in, fields[i])) e->field = (TensorMapField)i;
  e->sp = insn_has_mod(in, ".global") ? SP_GLOBAL : insn_has_mod(in, ".shared::cta") ? SP_SHARED : SP_NONE;
  bool ordered = e->field == TMF_BOX_DIM || e->field == TMF_GLOBAL_DIM || e->field == TMF_GLOBAL_STRIDE ||
                 e->field == TMF_ELEMENT_STRIDE;
  bool wide = e->field == TMF_GLOBAL_ADDRESS || e->field == TMF_GLOBAL_STRIDE;
  if (in->nopds != (ordered ? 3 : 2)) lower_refuse(L, "tensormap.replace: needs [addr], %snew_val", ordered ? "ord, " : "");
  if (wide != insn_has_mod(in, ".b64"))
    lower_refuse(L, "tensormap.replace: .global_address and .global_stride take .b64, the other fields .b32");
  if (ordered) {
    if (o[1].kind != OPD_IMM || o[1].ival < 0 || o[1].ival > 4)
      lower_refuse(L, "tensormap.replace: ord must be a constant 0 to 4");
    e->ord = (unsigned)o[1].ival;
  }
  const Operand *v = &o[ordered ? 2 : 1];
  if (e->field >= TMF_ELEMTYPE && v->kind != OPD_IMM)
    lower_refuse(L, "tensormap.replace: the new value of this field must be a constant");
  e->val64 = wide;
  e->val = lower_src(L, v, wide ? TY_B64 : TY_B32);
  e->imm = lower_addr(L, &o[0], e->sp == SP_NONE ? SP_GLOBAL : e->sp, &e->slot);
  e->r64 = o[0].sym && o[0].sym->kind == SYM_REG && type_size(o[0].sym->type) == 8;
  x->fn = exec_tensormap_replace;
  return true;
}

static void shared_opd(Lower *L, const Operand *o, int64_t *imm, uint32_t *slot, bool *r64) {
  *imm = lower_addr(L, o, SP_SHARED, slot);
  *r64 = o->sym && o->sym->kind == SYM_REG && type_size(o->sym->type) == 8;
}

static void rank_of(Lower *L, const Insn *in, TcInsn *t) {
  static const char *dims[] = {".1d", ".2d", ".3d", ".4d", ".5d"};
  for (int i = 0; i < 5; i++) if (insn_has_mod(in, dims[i])) t->rank = i + 1;
  const char *name = in->op == OP_CP_REDUCE_ASYNC_BULK_TENSOR ? "cp.reduce.async.bulk.tensor"
                   : in->op == OP_CP_ASYNC_BULK_PREFETCH_TENSOR ? "cp.async.bulk.prefetch.tensor"
                   : "cp.async.bulk.tensor";
  /* the ISA's target notes: sm_100a (or the sm_100f/sm_110f families) and later */
  static const char *later[] = {".im2col::w", ".im2col::w::128", ".tile::gather4", ".tile::scatter4",
                                ".cta_group::1", ".cta_group::2"};
  for (size_t i = 0; i < sizeof later / sizeof *later; i++)
    if (insn_has_mod(in, later[i]))
      lower_refuse(L, "%s: %s is not supported (it needs sm_100a or later; ptxvm executes sm_90a)", name, later[i]);
  t->im2col = insn_has_mod(in, ".im2col") || insn_has_mod(in, ".im2col_no_offs");
  bool load = in->op == OP_CP_ASYNC_BULK_TENSOR_G2S || in->op == OP_CP_ASYNC_BULK_PREFETCH_TENSOR;
  if (insn_has_mod(in, load ? ".im2col_no_offs" : ".im2col"))
    lower_refuse(L, "%s: %s takes %s, not %s", name, load ? "a load" : "a store",
                 load ? ".im2col" : ".im2col_no_offs", load ? ".im2col_no_offs" : ".im2col");
  if (t->im2col && (t->rank < 3 || t->rank > 5)) lower_refuse(L, "%s: im2col modes need .3d, .4d or .5d", name);
}

/* .im2col's offsets {W, H, D}: rank - 2 .u16 values. */
static void offsets_opd(Lower *L, const Operand *o, TcInsn *t) {
  if (o->kind != OPD_VEC || o->n != t->rank - 2)
    lower_refuse(L, "cp.async.bulk.tensor.%dd.im2col needs {%d im2col offsets}", t->rank, t->rank - 2);
  for (int i = 0; i < o->n; i++) t->off[i] = lower_src(L, &o->elems[i], TY_U16);
  t->has_off = true;
}

/* [map, {c0, ...}] */
static void map_opd(Lower *L, const Operand *o, TcInsn *t) {
  if (o->kind != OPD_ADDR || o->n != 2 || o->elems[1].kind != OPD_VEC)
    lower_refuse(L, "cp.async.bulk.tensor: the tensor operand must be [tensorMap, {coordinates}]");
  const Operand *mo = &o->elems[0], *v = &o->elems[1];
  if (v->n != t->rank)
    lower_refuse(L, "cp.async.bulk.tensor.%dd needs %d coordinates, not %d", t->rank, t->rank, v->n);
  for (int i = 0; i < t->rank; i++) t->coord[i] = lower_src(L, &v->elems[i], TY_S32);
  if (mo->kind == OPD_REG && mo->sym && type_size(mo->sym->type) == 8) {
    t->map_slot = lower_src(L, mo, TY_U64);
    t->map_imm = 0;
  } else if (mo->kind == OPD_SYM && mo->sym && mo->sym->kind == SYM_VAR && mo->sym->space == SP_GLOBAL) {
    Operand a = *mo;   /* validate.c refuses other spaces' symbols, as ptxas does */
    a.kind = OPD_ADDR;
    t->map_imm = lower_addr(L, &a, SP_GLOBAL, &t->map_slot);
    if (t->map_slot != UINT32_MAX) lower_refuse(L, "cp.async.bulk.tensor: unexpected tensor-map operand");
  } else {
    lower_refuse(L, "cp.async.bulk.tensor: the tensor map must be a 64-bit register or a .global variable");
  }
}

bool tensor_select(Lower *L, const Insn *in, XInsn *x) {
  if (in->op == OP_TENSORMAP_REPLACE || in->op == OP_TENSORMAP_CP_FENCEPROXY)
    return tensormap_edit_select(L, in, x);
  TcInsn *t = lower_aux(L, sizeof *t);
  x->aux = t;
  const Operand *o = in->opds;
  rank_of(L, in, t);
  switch ((Opcode)in->op) {
  case OP_CP_ASYNC_BULK_TENSOR_G2S: {
    t->load = true;
    t->multicast = insn_has_mod(in, ".multicast::cluster");
    if (in->nopds < 3) lower_refuse(L, "cp.async.bulk.tensor: needs [dst], [map, {...}], [mbar]");
    shared_opd(L, &o[0], &t->sh_imm, &t->sh_slot, &t->sh64);
    map_opd(L, &o[1], t);
    shared_opd(L, &o[2], &t->mb_imm, &t->mb_slot, &t->mb64);
    int k = 3;
    if (t->im2col) {
      if (in->nopds < 4) lower_refuse(L, "cp.async.bulk.tensor.im2col needs its im2col offsets");
      offsets_opd(L, &o[k++], t);
    }
    if (t->multicast) {
      if (in->nopds <= k) lower_refuse(L, "cp.async.bulk.tensor.multicast::cluster needs a ctaMask");
      t->mask_slot = lower_src(L, &o[k], TY_U32);
    }
    break;
  }
  case OP_CP_ASYNC_BULK_TENSOR_S2G:
    if (in->nopds < 2) lower_refuse(L, "cp.async.bulk.tensor: needs [map, {...}], [src]");
    map_opd(L, &o[0], t);
    shared_opd(L, &o[1], &t->sh_imm, &t->sh_slot, &t->sh64);
    break;
  case OP_CP_REDUCE_ASYNC_BULK_TENSOR: {
    t->reduce = true;
    for (int i = BR_ADD; i <= BR_XOR; i++) if (insn_has_mod(in, bulkred_op_name((BulkRedOp)i))) t->redop = (BulkRedOp)i;
    if (in->nopds < 2) lower_refuse(L, "cp.reduce.async.bulk.tensor: needs [map, {...}], [src]");
    map_opd(L, &o[0], t);
    shared_opd(L, &o[1], &t->sh_imm, &t->sh_slot, &t->sh64);
    break;
  }
  case OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
    t->prefetch = true;
    if (in->nopds < 1) lower_refuse(L, "cp.async.bulk.prefetch.tensor: needs [map, {...}]");
    map_opd(L, &o[0], t);
    if (t->im2col) {
      if (in->nopds < 2) lower_refuse(L, "cp.async.bulk.prefetch.tensor.im2col needs its im2col offsets");
      offsets_opd(L, &o[1], t);
    }
    break;
  default:
    return false;
  }
  x->fn = exec_cp_async_bulk_tensor;
  return true;
}
