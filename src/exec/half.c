/* half.c: f16, f16x2, bf16 and bf16x2 arithmetic (PTX ISA 9.0 §9.7.4):
 * add sub mul fma neg abs min max tanh ex2. Comparisons (setp/set on these
 * types) belong to cmp.c, which shares the conversions of fpconv.h.
 *
 * A .f16/.bf16 value lives in the low 16 bits of a 32-bit register; a
 * .f16x2/.bf16x2 holds element 0 in bits 0-15 and element 1 in bits 16-31
 * (the ISA's fA[0] = a[0:15], fA[1] = a[16:31]).
 *
 * Each element is decoded exactly into a double, computed there, and
 * rounded once to the destination format by fp_round (.rn, the only
 * rounding these instructions have). That is a single correct rounding:
 * f16 and bf16 products are exact in a double; f16 sums are exact; a bf16
 * sum that is not exact has operands more than 45 binades apart, so its
 * double rounding cannot reach a bf16 rounding boundary; fma is computed in
 * round-to-odd (RZ plus the inexact flag as a sticky bit), which makes the
 * second rounding exact because 53 >= 11 + 2.
 *
 * .ftz (f16, and ex2.approx.ftz.bf16) flushes subnormal inputs and results to a zero of the same
 * sign; .sat clamps to [0, 1] with NaN -> +0; .relu clamps negatives to +0
 * and leaves a canonical NaN. NaN results are the canonical 0x7fff; neg and
 * abs only change the sign bit (the ISA leaves their NaN result unspecified). */
#include <fenv.h>
#include <math.h>

#include "exec.h"
#include "fpconv.h"

enum { H_ADD, H_SUB, H_MUL, H_FMA, H_NEG, H_ABS, H_MIN, H_MAX, H_TANH, H_EX2 };

/* fma(a, b, c) rounded to odd: exact value truncated, LSB set if inexact.
 * The volatiles order the operation between the flag accesses. */
static double fma_rto(double a, double b, double c) {
  volatile double va = a, vb = b, vc = c, vr;
  int old = fegetround();
  fesetround(FE_TOWARDZERO);
  feclearexcept(FE_INEXACT);
  vr = fma(va, vb, vc);
  int inexact = fetestexcept(FE_INEXACT);
  fesetround(old);
  double r = vr;
  if (inexact && isfinite(r)) r = bits_f64(f64_bits(r) | 1);
  return r;
}

static bool h_is_nan(uint16_t h, bool bf) { return bf ? bf16_is_nan(h) : f16_is_nan(h); }
static double h_decode(uint16_t h, bool bf) { return bf ? fp_decode(h, 8, 7) : fp_decode(h, 5, 10); }
static uint16_t h_ftz(uint16_t h, bool bf) {
  return (h & (bf ? 0x7f80 : 0x7c00)) == 0 ? h & 0x8000 : h;
}
static uint16_t h_encode(double d, bool bf) {
  return (uint16_t)(bf ? fp_round(d, 8, 7, FR_RN, false) : fp_round(d, 5, 10, FR_RN, false));
}

/* Result modifiers: .ftz (f16), .sat, .relu. */
static uint16_t h_fix(uint16_t r, bool bf, uint32_t mods) {
  if (mods & XM_FTZ) r = h_ftz(r, bf);
  if (mods & XM_SAT) {
    if (h_is_nan(r, bf) || (r & 0x8000)) r = 0;
    else if (r > (bf ? 0x3f80 : 0x3c00)) r = bf ? 0x3f80 : 0x3c00;
  }
  if ((mods & XM_RELU) && !h_is_nan(r, bf) && (r & 0x8000)) r = 0;
  return r;
}

/* min/max with .NaN and .xorsign.abs (§9.7.4.7-8), as the f32 forms. */
static uint16_t h_minmax(uint16_t a, uint16_t b, bool bf, bool is_max, uint32_t mods) {
  uint16_t xs = (a ^ b) & 0x8000;
  bool na = h_is_nan(a, bf), nb = h_is_nan(b, bf);
  if ((na || nb) && ((mods & XM_NAN) || (na && nb))) return F16_CNAN;
  if (mods & XM_XORSIGN) { a &= 0x7fff; b &= 0x7fff; }
  uint16_t r;
  if (na || nb) r = na ? b : a;
  else {
    double da = h_decode(a, bf), db = h_decode(b, bf);
    if (da == db) r = ((a & 0x8000) != 0) == is_max ? b : a;   /* -0 < +0 */
    else r = (is_max ? da > db : da < db) ? a : b;
  }
  return (mods & XM_XORSIGN) ? (uint16_t)(r | xs) : r;
}

/* One element of a half-family operation. */
static uint16_t h_elem(int op, uint16_t a, uint16_t b, uint16_t c, bool bf, uint32_t mods) {
  if (mods & XM_FTZ) { a = h_ftz(a, bf); b = h_ftz(b, bf); c = h_ftz(c, bf); }
  switch (op) {
  case H_NEG: return a ^ 0x8000;
  case H_ABS: return a & 0x7fff;
  case H_MIN: case H_MAX: return h_fix(h_minmax(a, b, bf, op == H_MAX, mods), bf, mods & XM_FTZ);
  default: break;
  }
  double da = h_decode(a, bf), db = h_decode(b, bf), r;
  switch (op) {
  case H_ADD: r = da + db; break;
  case H_SUB: r = da - db; break;
  case H_MUL: r = da * db; break;
  case H_FMA: r = fma_rto(da, db, h_decode(c, bf)); break;
  case H_TANH: r = tanh(da); break;
  default: r = exp2(da); break;
  }
  return h_fix(h_encode(r, bf), bf, mods);
}

/* The lane loop: nelem 1 (scalar) or 2 (x2), nsrc sources. */
static XStatus half_op(Warp *w, const XInsn *x, uint32_t mask, int op, bool bf, int nelem, int nsrc) {
  uint32_t t[WARP_SIZE];
  const uint32_t *a = R32(w, x->slot[1]);
  const uint32_t *b = nsrc > 1 ? R32(w, x->slot[2]) : a;
  const uint32_t *c = nsrc > 2 ? R32(w, x->slot[3]) : a;
  FOR_LANES(l) {
    uint32_t r = 0;
    for (int e = 0; e < nelem; e++) {
      int s = 16 * e;
      r |= (uint32_t)h_elem(op, (uint16_t)(a[l] >> s), (uint16_t)(b[l] >> s),
                            (uint16_t)(c[l] >> s), bf, x->mods) << s;
    }
    t[l] = r;
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

/* The four handlers of one operation: f16, f16x2, bf16, bf16x2. */
#define HALF_HANDLERS(op, nsrc, F16, F16X2, BF16, BF16X2) \
  LANE_HANDLER(F16) { return half_op(w, x, mask, op, false, 1, nsrc); } \
  LANE_HANDLER(F16X2) { return half_op(w, x, mask, op, false, 2, nsrc); } \
  LANE_HANDLER(BF16) { return half_op(w, x, mask, op, true, 1, nsrc); } \
  LANE_HANDLER(BF16X2) { return half_op(w, x, mask, op, true, 2, nsrc); }
HALF_HANDLERS(H_ADD, 2, exec_add_f16, exec_add_f16x2, exec_add_bf16, exec_add_bf16x2)
HALF_HANDLERS(H_SUB, 2, exec_sub_f16, exec_sub_f16x2, exec_sub_bf16, exec_sub_bf16x2)
HALF_HANDLERS(H_MUL, 2, exec_mul_f16, exec_mul_f16x2, exec_mul_bf16, exec_mul_bf16x2)
HALF_HANDLERS(H_FMA, 3, exec_fma_f16, exec_fma_f16x2, exec_fma_bf16, exec_fma_bf16x2)
HALF_HANDLERS(H_NEG, 1, exec_neg_f16, exec_neg_f16x2, exec_neg_bf16, exec_neg_bf16x2)
HALF_HANDLERS(H_ABS, 1, exec_abs_f16, exec_abs_f16x2, exec_abs_bf16, exec_abs_bf16x2)
HALF_HANDLERS(H_MIN, 2, exec_min_f16, exec_min_f16x2, exec_min_bf16, exec_min_bf16x2)
HALF_HANDLERS(H_MAX, 2, exec_max_f16, exec_max_f16x2, exec_max_bf16, exec_max_bf16x2)
HALF_HANDLERS(H_TANH, 1, exec_tanh_f16, exec_tanh_f16x2, exec_tanh_bf16, exec_tanh_bf16x2)
HALF_HANDLERS(H_EX2, 1, exec_ex2_f16, exec_ex2_f16x2, exec_ex2_bf16, exec_ex2_bf16x2)

#ifndef EXEC_UNIT_TEST
#define PICK(name) (t == TY_F16 ? exec_##name##_f16 : t == TY_F16X2 ? exec_##name##_f16x2 : \
                    t == TY_BF16 ? exec_##name##_bf16 : exec_##name##_bf16x2)

bool exec_select_HALF(Lower *L, const Insn *in, XInsn *x) {
  Type t = (Type)in->types[0];
  if (t != TY_F16 && t != TY_F16X2 && t != TY_BF16 && t != TY_BF16X2) return false;
  x->mods = lower_mods(in);
  x->type = (uint8_t)t;
  x->slot[0] = lower_dst(L, &in->opds[0]);
  for (int i = 1; i < in->nopds && i < 4; i++) x->slot[i] = lower_src(L, &in->opds[i], t);
  ExecFn fn;
  switch ((Opcode)in->op) {
  case OP_ADD_H: case OP_ADD_BF: fn = PICK(add); break;
  case OP_SUB_H: case OP_SUB_BF: fn = PICK(sub); break;
  case OP_MUL_H: case OP_MUL_BF: fn = PICK(mul); break;
  case OP_FMA_H: case OP_FMA_H_RELU: case OP_FMA_BF: fn = PICK(fma); break;
  case OP_NEG_H: case OP_NEG_BF: fn = PICK(neg); break;
  case OP_ABS_H: case OP_ABS_BF: fn = PICK(abs); break;
  case OP_MIN_H: case OP_MIN_H_XORSIGN: case OP_MIN_BF: case OP_MIN_BF_XORSIGN: fn = PICK(min); break;
  case OP_MAX_H: case OP_MAX_H_XORSIGN: case OP_MAX_BF: case OP_MAX_BF_XORSIGN: fn = PICK(max); break;
  case OP_TANH_H: case OP_TANH_BF: fn = PICK(tanh); break;
  case OP_EX2_H: case OP_EX2_BF: fn = PICK(ex2); break;
  default: return false;   /* fma.oob: not yet */
  }
  x->fn = fn;
  return true;
}
#endif
