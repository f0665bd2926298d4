/* float.c: f32 and f64 arithmetic (PTX ISA 9.0 §9.7.3): add sub mul fma
 * mad div rcp sqrt rsqrt sin cos lg2 ex2 tanh min max abs neg copysign
 * testp.
 *
 * One handler per (operation, type); the modifiers are read from x->mods:
 *
 *  - Rounding (.rn .rz .rm .rp) is exact: the handler switches the host's
 *    rounding direction with fesetround around the lane loop and restores it.
 *    The switch is ordered against the arithmetic by memory: inputs are
 *    loaded from the register file after fesetround, results are merged into
 *    it before the restore, and neither call can be moved across those
 *    accesses. fma/mad use fmaf/fma (one rounding).
 *  - .ftz flushes subnormal f32 inputs and results to a zero of the same
 *    sign, in software (no MXCSR DAZ/FTZ).
 *  - .sat clamps to [0.0, 1.0] and turns NaN into +0.0.
 *  - NaN results are canonical (fpconv.h): f32 0x7fffffff, f64
 *    0x7fffffffffffffff. abs and neg only touch the sign bit, as IEEE 754
 *    does (the ISA calls an abs.f32 NaN result unspecified, and passes an
 *    abs.f64/neg.f64 NaN through unchanged).
 *  - .approx and .full are computed with correct rounding (in double, then
 *    rounded once), which is within every maximum error the ISA states;
 *    div.approx.f32 keeps the documented behaviour for 2^126 < |b| < 2^128
 *    (a zero, NaN when a is infinite). rcp.approx.ftz.f64 and
 *    rsqrt.approx.ftz.f64 use the upper word only and zero the lower word,
 *    as §9.7.3.14/.17 specify. */
#include <fenv.h>
#include <math.h>

#include "exec.h"
#include "fpconv.h"

/* ---- rounding direction and per-lane helpers ---- */

static int fr_host(uint32_t mods) {
  if (mods & XM_RZ) return FE_TOWARDZERO;
  if (mods & XM_RM) return FE_DOWNWARD;
  if (mods & XM_RP) return FE_UPWARD;
  return FE_TONEAREST;
}
/* Switches to the instruction's rounding direction; returns what to restore. */
static int fr_enter(uint32_t mods) {
  if (!(mods & (XM_RZ | XM_RM | XM_RP))) return -1;
  int old = fegetround();
  fesetround(fr_host(mods));
  return old;
}
static void fr_leave(int old) { if (old >= 0) fesetround(old); }

static inline void f32_load(float *v, Warp *w, uint32_t slot, uint32_t mods) {
  uint32_t *s = R32(w, slot);
  if (mods & XM_FTZ) { FOR_LANES(l) v[l] = bits_f32(f32_ftz(s[l])); }
  else memcpy(v, s, 32 * sizeof *v);
}
static inline void f64_load(double *v, Warp *w, uint32_t slot) { memcpy(v, R64(w, slot), 32 * sizeof *v); }

/* Result post-processing: canonical NaN, .ftz, .sat (in that order: a NaN
 * saturates to +0.0). */
static inline uint32_t f32_fix(float f, uint32_t mods) {
  uint32_t u = f32_bits(f);
  if (f32_is_nan(u)) u = F32_CNAN;
  if (mods & XM_FTZ) u = f32_ftz(u);
  if (mods & XM_SAT) {
    if (f32_is_nan(u) || (u & 0x80000000u)) u = 0;   /* NaN, negatives, -0 */
    else if (u > 0x3f800000u) u = 0x3f800000u;
  }
  return u;
}
static inline void f32_store(Warp *w, const XInsn *x, uint32_t mask, const float *r) {
  uint32_t t[WARP_SIZE];
  if (!(x->mods & (XM_FTZ | XM_SAT))) {   /* just the canonical NaN: a loop that vectorises */
    FOR_LANES(l) {
      uint32_t u = f32_bits(r[l]);
      t[l] = (int32_t)(u & 0x7fffffffu) > 0x7f800000 ? F32_CNAN : u;
    }
  } else FOR_LANES(l) t[l] = f32_fix(r[l], x->mods);
  merge32(R32(w, x->slot[0]), t, mask);
}
static inline uint64_t f64_fix(double d) {
  uint64_t u = f64_bits(d);
  return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? F64_CNAN : u;
}
static inline void f64_store(Warp *w, const XInsn *x, uint32_t mask, const double *r) {
  uint64_t t[WARP_SIZE];
  FOR_LANES(l) t[l] = f64_fix(r[l]);
  merge64(R64(w, x->slot[0]), t, mask);
}

/* Handler bodies: N inputs a, b, c; EXPR computes r[l]. */
#define F32_ALU1(EXPR) do { float a[WARP_SIZE], r[WARP_SIZE]; int old_ = fr_enter(x->mods); \
    f32_load(a, w, x->slot[1], x->mods); FOR_LANES(l) { r[l] = (EXPR); } \
    f32_store(w, x, mask, r); fr_leave(old_); return XS_NEXT; } while (0)
#define F32_ALU2(EXPR) do { float a[WARP_SIZE], b[WARP_SIZE], r[WARP_SIZE]; int old_ = fr_enter(x->mods); \
    f32_load(a, w, x->slot[1], x->mods); f32_load(b, w, x->slot[2], x->mods); \
    FOR_LANES(l) { r[l] = (EXPR); } f32_store(w, x, mask, r); fr_leave(old_); return XS_NEXT; } while (0)
#define F32_ALU3(EXPR) do { float a[WARP_SIZE], b[WARP_SIZE], c[WARP_SIZE], r[WARP_SIZE]; \
    int old_ = fr_enter(x->mods); f32_load(a, w, x->slot[1], x->mods); \
    f32_load(b, w, x->slot[2], x->mods); f32_load(c, w, x->slot[3], x->mods); \
    FOR_LANES(l) { r[l] = (EXPR); } f32_store(w, x, mask, r); fr_leave(old_); return XS_NEXT; } while (0)
#define F64_ALU1(EXPR) do { double a[WARP_SIZE], r[WARP_SIZE]; int old_ = fr_enter(x->mods); \
    f64_load(a, w, x->slot[1]); FOR_LANES(l) { r[l] = (EXPR); } \
    f64_store(w, x, mask, r); fr_leave(old_); return XS_NEXT; } while (0)
#define F64_ALU2(EXPR) do { double a[WARP_SIZE], b[WARP_SIZE], r[WARP_SIZE]; int old_ = fr_enter(x->mods); \
    f64_load(a, w, x->slot[1]); f64_load(b, w, x->slot[2]); \
    FOR_LANES(l) { r[l] = (EXPR); } f64_store(w, x, mask, r); fr_leave(old_); return XS_NEXT; } while (0)
#define F64_ALU3(EXPR) do { double a[WARP_SIZE], b[WARP_SIZE], c[WARP_SIZE], r[WARP_SIZE]; \
    int old_ = fr_enter(x->mods); f64_load(a, w, x->slot[1]); f64_load(b, w, x->slot[2]); \
    f64_load(c, w, x->slot[3]); FOR_LANES(l) { r[l] = (EXPR); } \
    f64_store(w, x, mask, r); fr_leave(old_); return XS_NEXT; } while (0)


/* ---- f32 ---- */
LANE_HANDLER(exec_add_f32) { F32_ALU2(a[l] + b[l]); }
LANE_HANDLER(exec_sub_f32) { F32_ALU2(a[l] - b[l]); }
LANE_HANDLER(exec_mul_f32) { F32_ALU2(a[l] * b[l]); }
LANE_HANDLER(exec_fma_f32) { F32_ALU3(fmaf(a[l], b[l], c[l])); }
LANE_HANDLER(exec_div_f32) { F32_ALU2(a[l] / b[l]); }
LANE_HANDLER(exec_rcp_f32) { F32_ALU1(1.0f / a[l]); }
LANE_HANDLER(exec_sqrt_f32) { F32_ALU1(sqrtf(a[l])); }

/* div.approx.f32: d = a * (1/b); correctly rounded for |b| <= 2^126, and
 * the ISA's zero (NaN for infinite a) for 2^126 < |b| < 2^128. */
static float div_approx(float a, float b) {
  float mb = fabsf(b);
  if (mb > 0x1p126f && mb < INFINITY)
    return isinf(a) ? NAN : copysignf(0.0f, f32_bits(a) >> 31 ^ f32_bits(b) >> 31 ? -1.0f : 1.0f);
  return a / b;
}
LANE_HANDLER(exec_div_approx_f32) { F32_ALU2(div_approx(a[l], b[l])); }
LANE_HANDLER(exec_rsqrt_f32) { F32_ALU1((float)(1.0 / sqrt((double)a[l]))); }
LANE_HANDLER(exec_sin_f32) { F32_ALU1((float)sin((double)a[l])); }
LANE_HANDLER(exec_cos_f32) { F32_ALU1((float)cos((double)a[l])); }
LANE_HANDLER(exec_lg2_f32) { F32_ALU1((float)log2((double)a[l])); }
LANE_HANDLER(exec_ex2_f32) { F32_ALU1((float)exp2((double)a[l])); }
LANE_HANDLER(exec_tanh_f32) { F32_ALU1((float)tanh((double)a[l])); }

/* abs/neg keep a NaN's payload: f32_store would canonicalise it. */
static XStatus f32_signop(Warp *w, const XInsn *x, uint32_t mask, uint32_t andm, uint32_t xorm) {
  uint32_t t[WARP_SIZE], *a = R32(w, x->slot[1]);
  FOR_LANES(l) {
    uint32_t u = (x->mods & XM_FTZ) ? f32_ftz(a[l]) : a[l];
    t[l] = (u & andm) ^ xorm;
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}
LANE_HANDLER(exec_abs_f32) { return f32_signop(w, x, mask, 0x7fffffffu, 0); }
LANE_HANDLER(exec_neg_f32) { return f32_signop(w, x, mask, 0xffffffffu, 0x80000000u); }

/* min/max (§9.7.3.11-12): a NaN input is ignored unless .NaN; -0.0 < +0.0;
 * .xorsign.abs compares magnitudes and gives the result the XOR of the
 * input signs (ignored when the result is NaN). */
static float f32_minmax(float a, float b, bool is_max, uint32_t mods) {
  uint32_t ua = f32_bits(a), ub = f32_bits(b);
  uint32_t xs = (ua ^ ub) & 0x80000000u;
  bool na = f32_is_nan(ua), nb = f32_is_nan(ub);
  if (na || nb) {
    if ((mods & XM_NAN) || (na && nb)) return bits_f32(F32_CNAN);
    return na ? b : a;   /* xorsign/abs still apply to the number: see below */
  }
  if (mods & XM_XORSIGN) { ua &= 0x7fffffffu; ub &= 0x7fffffffu; a = bits_f32(ua); b = bits_f32(ub); }
  float r;
  if (a == b) r = (is_max ? ((ua & 0x80000000u) ? b : a) : ((ua & 0x80000000u) ? a : b));
  else r = is_max ? (a > b ? a : b) : (a < b ? a : b);
  if (mods & XM_XORSIGN) r = bits_f32(f32_bits(r) | xs);
  return r;
}
/* With one NaN input the result is the other input; under .xorsign.abs
 * that input is still made absolute and given the XOR sign (the pseudocode
 * applies .abs before the comparison and xorsign after it). */
static float f32_minmax_x(float a, float b, bool is_max, uint32_t mods) {
  if ((mods & XM_XORSIGN) && !(mods & XM_NAN)) {
    uint32_t ua = f32_bits(a), ub = f32_bits(b);
    bool na = f32_is_nan(ua), nb = f32_is_nan(ub);
    if (na != nb) {
      uint32_t v = (na ? ub : ua) & 0x7fffffffu;
      return bits_f32(v | ((ua ^ ub) & 0x80000000u));
    }
  }
  return f32_minmax(a, b, is_max, mods);
}
LANE_HANDLER(exec_min_f32) { F32_ALU2(f32_minmax_x(a[l], b[l], false, x->mods)); }
LANE_HANDLER(exec_max_f32) { F32_ALU2(f32_minmax_x(a[l], b[l], true, x->mods)); }
LANE_HANDLER(exec_copysign_f32) {
  uint32_t t[WARP_SIZE], *a = R32(w, x->slot[1]), *b = R32(w, x->slot[2]);
  FOR_LANES(l) t[l] = (a[l] & 0x80000000u) | (b[l] & 0x7fffffffu);
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

/* ---- f64 ---- */
LANE_HANDLER(exec_add_f64) { F64_ALU2(a[l] + b[l]); }
LANE_HANDLER(exec_sub_f64) { F64_ALU2(a[l] - b[l]); }
LANE_HANDLER(exec_mul_f64) { F64_ALU2(a[l] * b[l]); }
LANE_HANDLER(exec_fma_f64) { F64_ALU3(fma(a[l], b[l], c[l])); }
LANE_HANDLER(exec_div_f64) { F64_ALU2(a[l] / b[l]); }
LANE_HANDLER(exec_rcp_f64) { F64_ALU1(1.0 / a[l]); }
LANE_HANDLER(exec_sqrt_f64) { F64_ALU1(sqrt(a[l])); }
LANE_HANDLER(exec_rsqrt_f64) { F64_ALU1(1.0 / sqrt(a[l])); }

/* rcp.approx.ftz.f64, rsqrt.approx.ftz.f64: the upper word of a (1.11.20),
 * subnormals flushed, result truncated to its upper word. */
static uint64_t f64_upper_op(uint64_t a, bool is_rsqrt) {
  uint64_t hi = a & 0xffffffff00000000ull;
  if ((hi & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return 0x7fffffff00000000ull;
  if ((hi & 0x7ff0000000000000ull) == 0) hi &= 0x8000000000000000ull;   /* ftz input */
  double v = bits_f64(hi);
  double r = is_rsqrt ? 1.0 / sqrt(v) : 1.0 / v;
  if (is_rsqrt && v == 0) r = copysign((double)INFINITY, v);
  uint64_t u = f64_bits(r);
  if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return 0x7fffffff00000000ull;
  if ((u & 0x7ff0000000000000ull) == 0) u &= 0x8000000000000000ull;       /* ftz result */
  return u & 0xffffffff00000000ull;
}
static XStatus f64_upper(Warp *w, const XInsn *x, uint32_t mask, bool is_rsqrt) {
  uint64_t t[WARP_SIZE], *a = R64(w, x->slot[1]);
  FOR_LANES(l) t[l] = f64_upper_op(a[l], is_rsqrt);
  merge64(R64(w, x->slot[0]), t, mask);
  return XS_NEXT;
}
LANE_HANDLER(exec_rcp_approx_ftz_f64) { return f64_upper(w, x, mask, false); }
LANE_HANDLER(exec_rsqrt_approx_ftz_f64) { return f64_upper(w, x, mask, true); }

static double f64_minmax(double a, double b, bool is_max) {
  bool na = isnan(a), nb = isnan(b);
  if (na && nb) return bits_f64(F64_CNAN);
  if (na) return b;
  if (nb) return a;
  if (a == b) return (signbit(a) != 0) == is_max ? b : a;
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}
LANE_HANDLER(exec_min_f64) { F64_ALU2(f64_minmax(a[l], b[l], false)); }
LANE_HANDLER(exec_max_f64) { F64_ALU2(f64_minmax(a[l], b[l], true)); }
static XStatus f64_signop(Warp *w, const XInsn *x, uint32_t mask, uint64_t andm, uint64_t xorm) {
  uint64_t t[WARP_SIZE], *a = R64(w, x->slot[1]);
  FOR_LANES(l) {
    bool nan = (a[l] & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    t[l] = nan ? a[l] : (a[l] & andm) ^ xorm;   /* ISA: NaN passes through unchanged */
  }
  merge64(R64(w, x->slot[0]), t, mask);
  return XS_NEXT;
}
LANE_HANDLER(exec_abs_f64) { return f64_signop(w, x, mask, 0x7fffffffffffffffull, 0); }
LANE_HANDLER(exec_neg_f64) { return f64_signop(w, x, mask, ~0ull, 0x8000000000000000ull); }
LANE_HANDLER(exec_copysign_f64) {
  uint64_t t[WARP_SIZE], *a = R64(w, x->slot[1]), *b = R64(w, x->slot[2]);
  FOR_LANES(l) t[l] = (a[l] & 0x8000000000000000ull) | (b[l] & 0x7fffffffffffffffull);
  merge64(R64(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

/* ---- testp (§9.7.3.3): x->sub is the property ---- */
enum { TP_FINITE, TP_INFINITE, TP_NUMBER, TP_NOTANUMBER, TP_NORMAL, TP_SUBNORMAL };
static bool testp_class(int cls, int sub) {
  switch (sub) {
  case TP_FINITE: return cls == FP_NORMAL || cls == FP_SUBNORMAL || cls == FP_ZERO;
  case TP_INFINITE: return cls == FP_INFINITE;
  case TP_NUMBER: return cls != FP_NAN;
  case TP_NOTANUMBER: return cls == FP_NAN;
  case TP_NORMAL: return cls == FP_NORMAL;
  default: return cls == FP_SUBNORMAL;
  }
}
static void pred_merge(Warp *w, uint32_t slot, uint32_t bits, uint32_t mask) {
  w->pred[slot] = (w->pred[slot] & ~mask) | (bits & mask);
}
LANE_HANDLER(exec_testp_f32) {
  uint32_t *a = R32(w, x->slot[1]), p = 0;
  FOR_LANES(l) p |= (uint32_t)testp_class(fpclassify(bits_f32(a[l])), x->sub) << l;
  pred_merge(w, x->slot[0], p, mask);
  return XS_NEXT;
}
LANE_HANDLER(exec_testp_f64) {
  uint64_t *a = R64(w, x->slot[1]);
  uint32_t p = 0;
  FOR_LANES(l) p |= (uint32_t)testp_class(fpclassify(bits_f64(a[l])), x->sub) << l;
  pred_merge(w, x->slot[0], p, mask);
  return XS_NEXT;
}

#ifndef EXEC_UNIT_TEST
/* ---- selector ---- */

/* Destination and sources of in: d, then each source typed t. */
static void sel_opds(Lower *L, const Insn *in, XInsn *x, Type t) {
  x->slot[0] = lower_dst(L, &in->opds[0]);
  for (int i = 1; i < in->nopds && i < XINSN_MAX_OPDS; i++)
    x->slot[i] = lower_src(L, &in->opds[i], t);
}

static const char *const testp_names[] = {
  ".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal",
};

bool exec_select_FLOAT(Lower *L, const Insn *in, XInsn *x) {
  Type t = (Type)in->types[0];
  bool d = t == TY_F64;
  if (t != TY_F32 && t != TY_F64) return false;   /* mixed-precision forms: not yet */
  x->mods = lower_mods(in);
  x->type = (uint8_t)t;
  sel_opds(L, in, x, t);
  ExecFn fn = NULL;
  switch ((Opcode)in->op) {
  case OP_ADD_F: case OP_ADD_F64: fn = d ? exec_add_f64 : exec_add_f32; break;
  case OP_SUB_F: case OP_SUB_F64: fn = d ? exec_sub_f64 : exec_sub_f32; break;
  case OP_MUL_F: case OP_MUL_F64: fn = d ? exec_mul_f64 : exec_mul_f32; break;
  case OP_FMA_F: case OP_FMA_F64: case OP_MAD_F: case OP_MAD_F64:
    fn = d ? exec_fma_f64 : exec_fma_f32; break;
  case OP_DIV_F: case OP_DIV_F64: case OP_DIV_FULL: fn = d ? exec_div_f64 : exec_div_f32; break;
  case OP_DIV_APPROX: fn = exec_div_approx_f32; break;
  case OP_RCP_F: case OP_RCP_F64: case OP_RCP_APPROX: fn = d ? exec_rcp_f64 : exec_rcp_f32; break;
  case OP_RCP_APPROX_F64: fn = exec_rcp_approx_ftz_f64; break;
  case OP_SQRT_F: case OP_SQRT_F64: case OP_SQRT_APPROX: fn = d ? exec_sqrt_f64 : exec_sqrt_f32; break;
  case OP_RSQRT_APPROX: fn = exec_rsqrt_f32; break;
  case OP_RSQRT_APPROX_F64: fn = exec_rsqrt_f64; break;
  case OP_RSQRT_APPROX_FTZ_F64: fn = exec_rsqrt_approx_ftz_f64; break;
  case OP_SIN: fn = exec_sin_f32; break;
  case OP_COS: fn = exec_cos_f32; break;
  case OP_LG2: fn = exec_lg2_f32; break;
  case OP_EX2: fn = exec_ex2_f32; break;
  case OP_TANH: fn = exec_tanh_f32; break;
  case OP_ABS_F: case OP_ABS_F64: fn = d ? exec_abs_f64 : exec_abs_f32; break;
  case OP_NEG_F: case OP_NEG_F64: fn = d ? exec_neg_f64 : exec_neg_f32; break;
  case OP_MIN_F: case OP_MIN_F_NAN: case OP_MIN_F_XORSIGN: case OP_MIN_F64:
    fn = d ? exec_min_f64 : exec_min_f32; break;
  case OP_MAX_F: case OP_MAX_F_NAN: case OP_MAX_F_XORSIGN: case OP_MAX_F64:
    fn = d ? exec_max_f64 : exec_max_f32; break;
  case OP_COPYSIGN: fn = d ? exec_copysign_f64 : exec_copysign_f32; break;
  case OP_TESTP:
    for (int i = 0; i < 6; i++) if (insn_has_mod(in, testp_names[i])) x->sub = (uint8_t)i;
    fn = d ? exec_testp_f64 : exec_testp_f32;
    break;
  default: return false;
  }
  if (in->nopds > 4) return false;   /* three-input min/max: not yet */
  x->fn = fn;
  return true;
}
#endif
