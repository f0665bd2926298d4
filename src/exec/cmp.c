/* cmp.c: semantics of the CMP family (PTX ISA 9.0, §9.7.6 comparison and
 * selection, §9.7.7 half precision comparison): setp, set, selp, slct.
 *
 * A comparison produces a lane mask: cmp_<type>(op, a, b) runs the
 * comparison over all 32 lanes (the switch on the operator sits outside the
 * lane loop) and returns one bit per lane. setp and set then apply the
 * Boolean combiner with the c predicate (possibly !c) and write under the
 * executing mask: setp writes p = BoolOp(t, c) and q = BoolOp(!t, c) (for
 * .f16x2/.bf16x2, p and q come from the low and high halves); set writes
 * the destination type's "true" (0xffffffff, 0xffff, 1.0 as f32, f16 or
 * bf16) or zero. Handlers are specialised by source type; the destination
 * type of set is read from x->type.
 *
 * Slots: setp: 0 p, 1 q (NOSLOT when absent or _), 2 a, 3 b, 4 c;
 *        set:  0 d, 2 a, 3 b, 4 c;  selp: 0 d, 1 a, 2 b, 3 c;
 *        slct: 0 d, 1 a, 2 b, 3 c.
 * x->sub is the comparison; x->imm holds the Boolean operator (bits 0-1)
 * and whether c is negated (bit 2).
 *
 * Floating-point operands are widened to double, which represents every
 * f16, bf16 and f32 value exactly, so the comparisons are exact. .ftz
 * flushes subnormal inputs to sign-preserving zero (f32, f16). */
#include <math.h>

#include "alu.h"


enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_EQU, C_NEU, C_LTU, C_LEU, C_GTU, C_GEU, C_NUM, C_NAN };
enum { B_NONE, B_AND, B_OR, B_XOR };



/* ---- operand conversions ---- */
static inline int32_t sx16(uint32_t v) { return (int32_t)((v & 0xffffu) ^ 0x8000u) - 0x8000; }
static inline uint32_t u16v(uint32_t v) { return v & 0xffff; }
static inline int32_t s32v(uint32_t v) { return (int32_t)v; }
static inline uint32_t u32v(uint32_t v) { return v; }
static inline uint64_t u64v(uint64_t v) { return v; }
static inline int64_t s64v(uint64_t v) { return (int64_t)v; }

static inline double f32v(uint32_t v) { float f; memcpy(&f, &v, 4); return (double)f; }
static inline double f32ftz(uint32_t v) { return f32v((v & 0x7f800000u) ? v : v & 0x80000000u); }
static inline double f64v(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
/* IEEE binary16 to double, exactly. */
static inline double half_to_double(uint32_t h, bool ftz) {
  uint32_t s = h >> 15 & 1, e = h >> 10 & 0x1f, m = h & 0x3ff;
  double v;
  if (e == 0x1f) v = m ? (double)NAN : (double)INFINITY;
  else if (e == 0) v = ftz ? 0.0 : ldexp((double)m, -24);
  else v = ldexp((double)(m | 0x400), (int)e - 25);
  return s ? -v : v;
}
static inline double f16lo(uint32_t v) { return half_to_double(v & 0xffff, false); }
static inline double f16hi(uint32_t v) { return half_to_double(v >> 16, false); }
static inline double f16lo_ftz(uint32_t v) { return half_to_double(v & 0xffff, true); }
static inline double f16hi_ftz(uint32_t v) { return half_to_double(v >> 16, true); }
static inline double bf16lo(uint32_t v) { return f32v(v << 16); }
static inline double bf16hi(uint32_t v) { return f32v(v & 0xffff0000u); }

/* ---- comparisons: one lane mask per call ---- */
#define LANES(COND) FOR_LANES(l) m |= (uint32_t)(COND) << l; break;

/* Integers: lo/ls/hi/hs arrive as lt/le/gt/ge (the selector maps them).
 * Each lane's result is 0 or all ones in t (a vector compare), packed by
 * lanes_pack; inlined into the handler, so that its x86-64-v3 copy
 * (LANE_CLONES) compares 8 lanes at a time. */
#define VLANES(COND) FOR_LANES(l) t[l] = -(int32_t)(COND); break;
#define CMP_INT(NAME, W, CV) \
  static inline __attribute__((always_inline)) uint32_t NAME(int op, const uint##W##_t *a, \
                                                             const uint##W##_t *b) { \
    int32_t t[WARP_SIZE]; \
    switch (op) { \
    case C_EQ: VLANES(CV(a[l]) == CV(b[l])) \
    case C_NE: VLANES(CV(a[l]) != CV(b[l])) \
    case C_LT: VLANES(CV(a[l]) < CV(b[l])) \
    case C_LE: VLANES(CV(a[l]) <= CV(b[l])) \
    case C_GT: VLANES(CV(a[l]) > CV(b[l])) \
    case C_GE: VLANES(CV(a[l]) >= CV(b[l])) \
    default: return 0; \
    } \
    return lanes_pack(t); \
  }
CMP_INT(cmp_u16, 32, u16v)
CMP_INT(cmp_s16, 32, sx16)
CMP_INT(cmp_u32, 32, u32v)
CMP_INT(cmp_s32, 32, s32v)
CMP_INT(cmp_u64, 64, u64v)
CMP_INT(cmp_s64, 64, s64v)

/* Floats (§9.7.6.1): ordered comparisons are false and unordered ones true
 * when either operand is NaN. */
#define CMP_FLT(NAME, W, CV) \
  static uint32_t NAME(int op, const uint##W##_t *a, const uint##W##_t *b) { \
    uint32_t m = 0; \
    double x_[WARP_SIZE], y_[WARP_SIZE]; \
    FOR_LANES(l) { x_[l] = CV(a[l]); y_[l] = CV(b[l]); } \
    switch (op) { \
    case C_EQ:  LANES(x_[l] == y_[l]) \
    case C_NE:  LANES(x_[l] < y_[l] || x_[l] > y_[l]) \
    case C_LT:  LANES(x_[l] < y_[l]) \
    case C_LE:  LANES(x_[l] <= y_[l]) \
    case C_GT:  LANES(x_[l] > y_[l]) \
    case C_GE:  LANES(x_[l] >= y_[l]) \
    case C_EQU: LANES(!(x_[l] < y_[l] || x_[l] > y_[l])) \
    case C_NEU: LANES(!(x_[l] == y_[l])) \
    case C_LTU: LANES(!(x_[l] >= y_[l])) \
    case C_LEU: LANES(!(x_[l] > y_[l])) \
    case C_GTU: LANES(!(x_[l] <= y_[l])) \
    case C_GEU: LANES(!(x_[l] < y_[l])) \
    case C_NUM: LANES(x_[l] == x_[l] && y_[l] == y_[l]) \
    case C_NAN: LANES(x_[l] != x_[l] || y_[l] != y_[l]) \
    } \
    return m; \
  }
CMP_FLT(cmp_f32, 32, f32v)
CMP_FLT(cmp_f32_ftz, 32, f32ftz)
CMP_FLT(cmp_f64, 64, f64v)
CMP_FLT(cmp_f16, 32, f16lo)
CMP_FLT(cmp_f16_ftz, 32, f16lo_ftz)
CMP_FLT(cmp_f16hi, 32, f16hi)
CMP_FLT(cmp_f16hi_ftz, 32, f16hi_ftz)
CMP_FLT(cmp_bf16, 32, bf16lo)
CMP_FLT(cmp_bf16hi, 32, bf16hi)

/* ---- combining and writing ---- */

static inline uint32_t boolop(const XInsn *x, const Warp *w, uint32_t t) {
  int op = (int)(x->imm & 3);
  if (op == B_NONE) return t;
  uint32_t c = w->pred[x->slot[4]] ^ ((x->imm & 4) ? UINT32_MAX : 0);
  return op == B_AND ? t & c : op == B_OR ? t | c : t ^ c;
}

/* setp: p from tp, q from tq. */
static XStatus setp_finish(Warp *w, const XInsn *x, uint32_t mask, uint32_t tp, uint32_t tq) {
  uint32_t p = boolop(x, w, tp), q = boolop(x, w, tq);
  merge_pred(w, x->slot[0], p, mask);
  merge_pred(w, x->slot[1], q, mask);
  return XS_NEXT;
}

/* set: the destination type's true value (per half for packed sources). */
static uint32_t set_one(Type dt, bool pair) {
  switch (dt) {
  case TY_F32: return 0x3f800000u;
  case TY_F16: case TY_F16X2: return 0x3c00u;
  case TY_BF16: case TY_BF16X2: return 0x3f80u;
  case TY_U16: case TY_S16: return 0xffffu;
  default: return pair ? 0xffffu : 0xffffffffu;
  }
}
static XStatus set_finish(Warp *w, const XInsn *x, uint32_t mask, uint32_t t0, uint32_t t1, bool pair) {
  uint32_t one = set_one((Type)x->type, pair), tmp[WARP_SIZE];
  uint32_t lo = boolop(x, w, t0), hi = pair ? boolop(x, w, t1) : 0;
  FOR_LANES(l) tmp[l] = ((lo >> l & 1) ? one : 0) | ((hi >> l & 1) ? one << 16 : 0);
  merge32(R32(w, x->slot[0]), tmp, mask);
  return XS_NEXT;
}

#define SCALAR_CMP(SETP, SET, W, CMPFN) \
  ALU_HEAD(SETP) { \
    uint32_t t = CMPFN(x->sub, R##W(w, x->slot[2]), R##W(w, x->slot[3])); \
    return setp_finish(w, x, mask, t, ~t); \
  } \
  ALU_HEAD(SET) { \
    uint32_t t = CMPFN(x->sub, R##W(w, x->slot[2]), R##W(w, x->slot[3])); \
    return set_finish(w, x, mask, t, 0, false); \
  }
#define PAIR_CMP(SETP, SET, LOFN, HIFN) \
  ALU_HEAD(SETP) { \
    const uint32_t *a = R32(w, x->slot[2]), *b = R32(w, x->slot[3]); \
    return setp_finish(w, x, mask, LOFN(x->sub, a, b), HIFN(x->sub, a, b)); \
  } \
  ALU_HEAD(SET) { \
    const uint32_t *a = R32(w, x->slot[2]), *b = R32(w, x->slot[3]); \
    return set_finish(w, x, mask, LOFN(x->sub, a, b), HIFN(x->sub, a, b), true); \
  }

SCALAR_CMP(exec_setp_u16, exec_set_u16, 32, cmp_u16)
SCALAR_CMP(exec_setp_s16, exec_set_s16, 32, cmp_s16)
SCALAR_CMP(exec_setp_u32, exec_set_u32, 32, cmp_u32)
SCALAR_CMP(exec_setp_s32, exec_set_s32, 32, cmp_s32)
SCALAR_CMP(exec_setp_u64, exec_set_u64, 64, cmp_u64)
SCALAR_CMP(exec_setp_s64, exec_set_s64, 64, cmp_s64)
SCALAR_CMP(exec_setp_f32, exec_set_f32, 32, cmp_f32)
SCALAR_CMP(exec_setp_ftz_f32, exec_set_ftz_f32, 32, cmp_f32_ftz)
SCALAR_CMP(exec_setp_f64, exec_set_f64, 64, cmp_f64)
SCALAR_CMP(exec_setp_f16, exec_set_f16, 32, cmp_f16)
SCALAR_CMP(exec_setp_ftz_f16, exec_set_ftz_f16, 32, cmp_f16_ftz)
SCALAR_CMP(exec_setp_bf16, exec_set_bf16, 32, cmp_bf16)
PAIR_CMP(exec_setp_f16x2, exec_set_f16x2, cmp_f16, cmp_f16hi)
PAIR_CMP(exec_setp_ftz_f16x2, exec_set_ftz_f16x2, cmp_f16_ftz, cmp_f16hi_ftz)
PAIR_CMP(exec_setp_bf16x2, exec_set_bf16x2, cmp_bf16, cmp_bf16hi)

/* ==== selp (§9.7.6.3): d = c ? a : b ==== */
#define SELP(NAME, W) \
  ALU_HEAD(NAME) { \
    const uint##W##_t *a = R##W(w, x->slot[1]), *b = R##W(w, x->slot[2]); \
    uint32_t c = w->pred[x->slot[3]] ^ (x->sub ? UINT32_MAX : 0); \
    uint##W##_t t[WARP_SIZE]; \
    FOR_LANES(l) t[l] = (c >> l & 1) ? a[l] : b[l]; \
    merge##W(R##W(w, x->slot[0]), t, mask); \
    return XS_NEXT; \
  }
SELP(exec_selp_b32, 32)
SELP(exec_selp_b64, 64)

/* ==== slct (§9.7.6.4): d = c >= 0 ? a : b; for .f32, -0 >= 0 and a NaN c
 * selects b; .ftz flushes a subnormal c to zero, so a is selected. ==== */
static inline bool ge0_s32(uint32_t c) { return (int32_t)c >= 0; }
static inline bool ge0_f32(uint32_t c) { return f32v(c) >= 0; }
static inline bool ge0_f32_ftz(uint32_t c) { return f32ftz(c) >= 0; }
#define SLCT(NAME, W, GE0) \
  ALU_HEAD(NAME) { \
    const uint##W##_t *a = R##W(w, x->slot[1]), *b = R##W(w, x->slot[2]); \
    const uint32_t *c = R32(w, x->slot[3]); \
    uint##W##_t t[WARP_SIZE]; \
    FOR_LANES(l) t[l] = GE0(c[l]) ? a[l] : b[l]; \
    merge##W(R##W(w, x->slot[0]), t, mask); \
    return XS_NEXT; \
  }
SLCT(exec_slct_b32_s32, 32, ge0_s32)
SLCT(exec_slct_b64_s32, 64, ge0_s32)
SLCT(exec_slct_b32_f32, 32, ge0_f32)
SLCT(exec_slct_b64_f32, 64, ge0_f32)
SLCT(exec_slct_b32_ftz_f32, 32, ge0_f32_ftz)
SLCT(exec_slct_b64_ftz_f32, 64, ge0_f32_ftz)

/* ==== selector ==== */

static const char *const cmp_names[] = {
  ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".equ", ".neu", ".ltu", ".leu",
  ".gtu", ".geu", ".num", ".nan",
};

/* The comparison of in's modifiers; lo/ls/hi/hs are lt/le/gt/ge. For
 * integer types, unordered forms are their ordered counterparts and
 * num/nan are not supported (-1). */
static int cmp_op(const Insn *in, bool is_float) {
  static const struct { const char *m; int op; } alias[] = {
    {".lo", C_LT}, {".ls", C_LE}, {".hi", C_GT}, {".hs", C_GE},
  };
  for (int i = 0; i < 4; i++) if (insn_has_mod(in, alias[i].m)) return alias[i].op;
  for (int op = 0; op <= C_NAN; op++) {
    if (!insn_has_mod(in, cmp_names[op])) continue;
    if (is_float) return op;
    if (op >= C_NUM) return -1;
    return op >= C_EQU ? op - C_EQU : op;
  }
  return -1;
}

static int bool_op(const Insn *in) {
  if (insn_has_mod(in, ".and")) return B_AND;
  if (insn_has_mod(in, ".or")) return B_OR;
  if (insn_has_mod(in, ".xor")) return B_XOR;
  return B_NONE;
}

/* setp handler (set == false) or set handler for source type t. */
static ExecFn pick_cmp(Type t, bool ftz, bool set) {
#define P(sp, s) return set ? s : sp;
  switch (t) {
  case TY_B16: case TY_U16: P(exec_setp_u16, exec_set_u16)
  case TY_S16: P(exec_setp_s16, exec_set_s16)
  case TY_B32: case TY_U32: P(exec_setp_u32, exec_set_u32)
  case TY_S32: P(exec_setp_s32, exec_set_s32)
  case TY_B64: case TY_U64: P(exec_setp_u64, exec_set_u64)
  case TY_S64: P(exec_setp_s64, exec_set_s64)
  case TY_F32: if (ftz) P(exec_setp_ftz_f32, exec_set_ftz_f32) P(exec_setp_f32, exec_set_f32)
  case TY_F64: P(exec_setp_f64, exec_set_f64)
  case TY_F16: if (ftz) P(exec_setp_ftz_f16, exec_set_ftz_f16) P(exec_setp_f16, exec_set_f16)
  case TY_F16X2: if (ftz) P(exec_setp_ftz_f16x2, exec_set_ftz_f16x2) P(exec_setp_f16x2, exec_set_f16x2)
  case TY_BF16: P(exec_setp_bf16, exec_set_bf16)
  case TY_BF16X2: P(exec_setp_bf16x2, exec_set_bf16x2)
  default: return NULL;
  }
#undef P
}

static uint32_t pred_dst(Lower *L, const Operand *o) {
  return o->kind == OPD_SINK ? NOSLOT : lower_dst(L, o);
}

/* setp and set: the source type is the last type; set's first is dtype. */
static bool lower_compare(Lower *L, const Insn *in, XInsn *x, bool set) {
  Type st = (Type)in->types[in->ntypes - 1];
  int op = cmp_op(in, type_kind(st) == K_F);
  int bop = bool_op(in);
  ExecFn fn = pick_cmp(st, insn_has_mod(in, ".ftz"), set);
  if (op < 0 || !fn || in->nopds < (bop ? 4 : 3)) return false;
  if (set && in->ntypes < 2) return false;
  x->fn = fn;
  x->sub = (uint8_t)op;
  x->type = set ? in->types[0] : (uint8_t)st;
  x->type2 = (uint8_t)st;
  const Operand *d = &in->opds[0];
  if (set) {
    x->slot[0] = lower_dst(L, d);
    x->slot[1] = NOSLOT;
  } else if (d->kind == OPD_PAIR) {
    x->slot[0] = pred_dst(L, &d->elems[0]);
    x->slot[1] = pred_dst(L, &d->elems[1]);
  } else {
    x->slot[0] = pred_dst(L, d);
    x->slot[1] = NOSLOT;
  }
  x->slot[2] = lower_src(L, &in->opds[1], st);
  x->slot[3] = lower_src(L, &in->opds[2], st);
  x->imm = bop;
  if (bop) {
    x->slot[4] = lower_src(L, &in->opds[3], TY_PRED);
    if (in->opds[3].flags & OPF_NEG) x->imm |= 4;
  }
  x->nslots = bop ? 5 : 4;
  return true;
}

static bool lower_select(Lower *L, const Insn *in, XInsn *x) {
  Type t = (Type)in->types[0];
  bool w64 = type_size(t) == 8;
  if (in->nopds != 4 || type_size(t) < 2) return false;
  if (in->op == OP_SELP) {
    x->fn = w64 ? exec_selp_b64 : exec_selp_b32;
    x->sub = (in->opds[3].flags & OPF_NEG) != 0;
  } else if (in->op == OP_SLCT) {
    x->fn = w64 ? exec_slct_b64_s32 : exec_slct_b32_s32;
  } else if (insn_has_mod(in, ".ftz")) {
    x->fn = w64 ? exec_slct_b64_ftz_f32 : exec_slct_b32_ftz_f32;
  } else {
    x->fn = w64 ? exec_slct_b64_f32 : exec_slct_b32_f32;
  }
  x->type = (uint8_t)t;
  x->slot[0] = lower_dst(L, &in->opds[0]);
  x->slot[1] = lower_src(L, &in->opds[1], t);
  x->slot[2] = lower_src(L, &in->opds[2], t);
  x->slot[3] = lower_src(L, &in->opds[3], in->op == OP_SELP ? TY_PRED : (Type)in->types[1]);
  x->nslots = 4;
  return true;
}

/* PTX ISA 9.0 §9.7.6-7: setp, set, selp, slct. */
bool exec_select_CMP(Lower *L, const Insn *in, XInsn *x) {
  if (in->ntypes < 1) return false;
  x->mods = lower_mods(in);
  switch (in->op) {
  case OP_SETP: case OP_SETP_BOOL: case OP_SETP_F: case OP_SETP_F_BOOL:
  case OP_SETP_H: case OP_SETP_H_BOOL: case OP_SETP_BF: case OP_SETP_BF_BOOL:
  case OP_SETP_B: case OP_SETP_B_BOOL:
    return lower_compare(L, in, x, false);
  case OP_SET: case OP_SET_BOOL: case OP_SET_B: case OP_SET_B_BOOL: case OP_SET_F: case OP_SET_F_BOOL:
  case OP_SET_H: case OP_SET_H_BOOL: case OP_SET_FROM_H: case OP_SET_FROM_H_BOOL:
  case OP_SET_H2: case OP_SET_H2_BOOL: case OP_SET_BF: case OP_SET_BF_BOOL:
  case OP_SET_FROM_BF: case OP_SET_FROM_BF_BOOL: case OP_SET_BF2: case OP_SET_BF2_BOOL:
    return lower_compare(L, in, x, true);
  case OP_SELP: case OP_SLCT: case OP_SLCT_F:
    return lower_select(L, in, x);
  default:
    return false;
  }
}
