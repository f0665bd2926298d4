/* cvt.c: cvt and cvt.pack (PTX ISA 9.0 §9.7.9.21-22). cvta belongs to mem.c.
 *
 * x->type is the destination type, x->type2 the source type. Handlers are
 * specialised by the kind of conversion (integer->integer, float->integer,
 * integer->float, float->float, the packed and alternate-format forms) and
 * read both types per lane. Every float value is first decoded exactly into
 * a double (a double holds every f16, bf16 and f32), then rounded once by
 * fp_round (fpconv.h) in the instruction's direction, so the results do not
 * depend on the host rounding mode. Integers wider than 53 bits are turned
 * into a double by rounding to odd, which keeps the second rounding exact
 * for every destination narrower than f64; int -> f64 uses the host
 * conversion under fesetround.
 *
 * The ISA's rules as implemented:
 *  - float -> int: .rni .rzi .rmi .rpi; the result is clamped to the
 *    destination range (".sat is redundant"); NaN gives 0, except that a
 *    .f64 source or a 64-bit destination gives 1 << (bits - 1).
 *  - int -> int: truncation, or clamping with .sat; the destination register
 *    may be wider than .dtype: the value is then sign-extended for signed
 *    .dtype and zero-extended otherwise (8/16-bit registers hold their value
 *    zero-extended).
 *  - .ftz flushes f32 subnormal inputs and results; .sat clamps float
 *    results to [0, 1] with NaN -> +0; .relu clamps negatives to +0 and
 *    keeps NaN canonical; .satfinite turns overflow and infinity into the
 *    largest finite value of the same sign.
 *  - f16x2/bf16x2 from two f32: a goes to the upper half, b to the lower.
 *  - NaN results are canonical (fpconv.h). */
#include <fenv.h>
#include <math.h>

#include "exec.h"
#include "fpconv.h"

/* x->sub bits: where the operands live. */
enum { CV_SRC64 = 1, CV_DST64 = 2, CV_DST_WIDE = 4 };

static int tbits(Type t) { return type_size(t) * 8; }
static bool tsigned(Type t) { return type_kind(t) == K_S; }

static uint64_t cv_read(Warp *w, const XInsn *x, uint32_t slot, int l) {
  return (x->sub & CV_SRC64) ? R64(w, slot)[l] : R32(w, slot)[l];
}

/* The destination's bits, extended as the register requires. */
static uint64_t cv_extend(uint64_t v, Type dt, bool wide) {
  int n = tbits(dt);
  if (n >= 64) return v;
  v &= (1ull << n) - 1;
  if (wide && tsigned(dt) && (v >> (n - 1) & 1)) v |= ~0ull << n;
  return v;
}
static void cv_write(Warp *w, const XInsn *x, uint32_t mask, const uint64_t *t) {
  if (x->sub & CV_DST64) { merge64(R64(w, x->slot[0]), t, mask); return; }
  uint32_t t32[WARP_SIZE];
  FOR_LANES(l) t32[l] = (uint32_t)t[l];
  merge32(R32(w, x->slot[0]), t32, mask);
}

/* ---- decoding and encoding floats ---- */

static double cv_fdecode(uint64_t v, Type t, bool ftz) {
  switch (t) {
  case TY_F16: return fp_decode((uint16_t)v, 5, 10);
  case TY_BF16: return fp_decode((uint16_t)v, 8, 7);
  case TY_F32: return (double)bits_f32(ftz ? f32_ftz((uint32_t)v) : (uint32_t)v);
  default: return bits_f64(v);
  }
}
static int cv_frnd(uint32_t mods) {
  if (mods & XM_RZ) return FR_RZ;
  if (mods & XM_RM) return FR_RM;
  if (mods & XM_RP) return FR_RP;
  return FR_RN;
}
/* Rounds d to float type t; .ftz, .sat, .relu, .satfinite applied. */
static uint64_t cv_fencode(double d, Type t, uint32_t mods, bool satfinite) {
  if ((mods & XM_SAT) && !isnan(d)) d = d < 0 ? 0 : d > 1 ? 1 : d;
  if (mods & XM_SAT) { if (isnan(d) || d == 0) d = 0; }
  if ((mods & XM_RELU) && !isnan(d) && d < 0) d = 0;
  int rnd = cv_frnd(mods);
  switch (t) {
  case TY_F16: return fp_round(d, 5, 10, rnd, satfinite);
  case TY_BF16: return fp_round(d, 8, 7, rnd, satfinite);
  case TY_F32: {
    uint32_t u = (uint32_t)fp_round(d, 8, 23, rnd, satfinite);
    return (mods & XM_FTZ) ? f32_ftz(u) : u;
  }
  default: return isnan(d) ? F64_CNAN : f64_bits(d);
  }
}

/* Rounds to an integral value per .rni/.rzi/.rmi/.rpi. */
static double cv_iround(double d, uint32_t mods) {
  if (mods & XM_RZI) return trunc(d);
  if (mods & XM_RMI) return floor(d);
  if (mods & XM_RPI) return ceil(d);
  return nearbyint(d);   /* the host mode is round-to-nearest-even here */
}

/* ---- the four kinds ---- */

/* integer -> integer */
static uint64_t cv_i2i(uint64_t v, Type dt, Type st, uint32_t mods) {
  int sn = tbits(st), dn = tbits(dt);
  if (sn < 64) {
    v &= (1ull << sn) - 1;
    if (tsigned(st) && (v >> (sn - 1) & 1)) v |= ~0ull << sn;
  }
  if (!(mods & XM_SAT)) return v;
  uint64_t hi = tsigned(dt) ? (1ull << (dn - 1)) - 1 : (dn == 64 ? ~0ull : (1ull << dn) - 1);
  int64_t lo = tsigned(dt) ? (int64_t)(~0ull << (dn - 1)) : 0;
  if (tsigned(st) && (int64_t)v < 0) return (int64_t)v < lo ? (uint64_t)lo : v;
  return v > hi ? hi : v;
}

/* float -> integer */
static uint64_t cv_f2i(double d, Type dt, Type st, uint32_t mods) {
  int dn = tbits(dt);
  if (isnan(d)) return (st == TY_F64 || dn == 64) ? 1ull << (dn - 1) : 0;
  d = cv_iround(d, mods);
  double lim = ldexp(1.0, tsigned(dt) ? dn - 1 : dn);   /* 2^bits of the positive range */
  if (tsigned(dt)) {
    if (d < -lim) return (uint64_t)(int64_t)-lim;
    if (d >= lim) return (1ull << (dn - 1)) - 1;
    return (uint64_t)(int64_t)d;
  }
  if (d <= 0) return 0;
  if (d >= lim) return dn == 64 ? ~0ull : (1ull << dn) - 1;
  return (uint64_t)d;
}

/* An integer as a double, rounded to odd when it has more than 53 bits. */
static double cv_int_rto(uint64_t v, bool neg) {
  uint64_t m = neg ? 0 - v : v;
  double r;
  if (m >> 53 == 0) r = (double)m;
  else {
    int k = 11 - __builtin_clzll(m);                 /* bits beyond 53 */
    uint64_t q = m >> k | ((m & ((1ull << k) - 1)) != 0);
    r = ldexp((double)q, k);
  }
  return neg ? -r : r;
}
/* integer -> float */
static uint64_t cv_i2f(uint64_t v, Type dt, Type st, uint32_t mods) {
  v = cv_i2i(v, TY_S64, st, 0);   /* sign- or zero-extended to 64 bits */
  bool neg = tsigned(st) && (int64_t)v < 0;
  if (dt != TY_F64) return cv_fencode(cv_int_rto(v, neg), dt, mods, false);
  int old = fegetround();
  fesetround(mods & XM_RZ ? FE_TOWARDZERO : mods & XM_RM ? FE_DOWNWARD :
             mods & XM_RP ? FE_UPWARD : FE_TONEAREST);
  /* Only signed conversions reach the host (cvtsi2sd rounds once, in the
   * mode set): compilers turn an unsigned one into sequences that give -0
   * for 0 when rounding down. An unsigned value of 64 bits is halved with
   * its low bit kept as a sticky bit, which rounds the same, then doubled. */
  volatile int64_t vv = (int64_t)(neg || v >> 63 == 0 ? v : (v >> 1 | (v & 1)));
  volatile double r = (double)vv;
  if (!neg && v >> 63) r = r * 2;
  fesetround(old);
  return cv_fencode(r, dt, mods & (XM_SAT | XM_RELU), false);
}

/* float -> float */
static uint64_t cv_f2f(uint64_t v, Type dt, Type st, uint32_t mods) {
  double d = cv_fdecode(v, st, (mods & XM_FTZ) != 0);
  if (mods & (XM_RNI | XM_RZI | XM_RMI | XM_RPI)) d = cv_iround(d, mods);
  return cv_fencode(d, dt, mods, false);
}

static bool is_float(Type t) { return t == TY_F16 || t == TY_BF16 || t == TY_F32 || t == TY_F64; }

static uint64_t cv_one(uint64_t v, Type dt, Type st, uint32_t mods) {
  bool fd = is_float(dt), fs = is_float(st);
  if (fd && fs) return cv_f2f(v, dt, st, mods);
  if (fs) return cv_f2i(cv_fdecode(v, st, (mods & XM_FTZ) != 0), dt, st, mods);
  if (fd) return cv_i2f(v, dt, st, mods);
  return cv_i2i(v, dt, st, mods);
}


/* The general cvt: one value, any of the scalar types. */
LANE_HANDLER(exec_cvt) {
  uint64_t t[WARP_SIZE];
  Type dt = (Type)x->type, st = (Type)x->type2;
  bool wide = (x->sub & CV_DST_WIDE) != 0;
  FOR_LANES(l) t[l] = cv_extend(cv_one(cv_read(w, x, x->slot[1], l), dt, st, x->mods), dt, wide);
  cv_write(w, x, mask, t);
  return XS_NEXT;
}

/* Bits [n-1:0] of v, sign- or zero-extended (n = 64: v). */
static uint64_t cv_ext(uint64_t v, int n, bool sign) {
  int sh = 64 - n;
  return sign ? (uint64_t)((int64_t)(v << sh) >> sh) : v << sh >> sh;
}
/* integer -> integer without .sat (widening an index, mostly): cv_i2i and
 * cv_extend with the types' facts taken out of the lane loop. */
LANE_HANDLER(exec_cvt_i2i) {
  uint64_t t[WARP_SIZE];
  Type dt = (Type)x->type, st = (Type)x->type2;
  int sn = tbits(st), dn = tbits(dt);
  bool ss = tsigned(st), ds = (x->sub & CV_DST_WIDE) && tsigned(dt);
  if (x->sub & CV_SRC64) {
    const uint64_t *a = R64(w, x->slot[1]);
    FOR_LANES(l) t[l] = cv_ext(cv_ext(a[l], sn, ss), dn, ds);
  } else {
    const uint32_t *a = R32(w, x->slot[1]);
    FOR_LANES(l) t[l] = cv_ext(cv_ext(a[l], sn, ss), dn, ds);
  }
  cv_write(w, x, mask, t);
  return XS_NEXT;
}

/* cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}.f32, and the x2 forms. */
static uint64_t cv_narrow(uint32_t a, Type dt, uint32_t mods, bool satfinite) {
  return cv_fencode((double)bits_f32(a), dt, mods & (XM_RZ | XM_RELU), satfinite);
}
LANE_HANDLER(exec_cvt_narrow) {
  uint64_t t[WARP_SIZE];
  bool sf = x->imm != 0;
  FOR_LANES(l) t[l] = cv_narrow(R32(w, x->slot[1])[l], (Type)x->type, x->mods, sf);
  cv_write(w, x, mask, t);
  return XS_NEXT;
}
LANE_HANDLER(exec_cvt_x2) {
  uint64_t t[WARP_SIZE];
  Type et = x->type == TY_F16X2 ? TY_F16 : TY_BF16;
  bool sf = x->imm != 0;
  FOR_LANES(l) t[l] = cv_narrow(R32(w, x->slot[1])[l], et, x->mods, sf) << 16 |
                      cv_narrow(R32(w, x->slot[2])[l], et, x->mods, sf);
  cv_write(w, x, mask, t);
  return XS_NEXT;
}

/* cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32: an f32 with 10 fraction bits. */
LANE_HANDLER(exec_cvt_tf32) {
  uint32_t t[WARP_SIZE], *a = R32(w, x->slot[1]);
  int rnd = x->mods & XM_RZ ? FR_RZ : x->imm & 2 ? FR_RNA : FR_RN;
  FOR_LANES(l) {
    double d = (double)bits_f32(a[l]);
    if ((x->mods & XM_RELU) && !isnan(d) && d < 0) d = 0;
    t[l] = (uint32_t)fp_round(d, 8, 10, rnd, x->imm & 1) << 13;
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

/* fp8 (.e4m3x2 / .e5m2x2), PTX ISA §9.7.9.21; rounding is .rn only
 * (f8_round_rn, fpconv.h). Packing: from two f32, a goes to d[15:8] and b
 * to d[7:0]; from an f16x2/bf16x2 a, a[31:16] -> d[15:8], a[15:0] -> d[7:0];
 * to f16x2, a[15:8] -> d[31:16], a[7:0] -> d[15:0]. .relu turns negative
 * values and -0 into +0 (NaN stays NaN; -0 -> +0 as sm_90 does, tests/gpu)
 * before the rounding; .satfinite (mandatory
 * in the narrowing forms) makes overflow and infinity the largest finite
 * value of that sign, NaN staying NaN. Widening to f16 is exact; a NaN gives
 * the canonical f16 NaN. x->sub: 1 for e4m3, x->imm: satfinite. */
static double f8_relu(double d, uint32_t mods) {
  return (mods & XM_RELU) && !isnan(d) && signbit(d) ? 0.0 : d;
}
static uint32_t f8_one(double d, const XInsn *x) {
  return f8_round_rn(f8_relu(d, x->mods), x->sub != 0, x->imm != 0);
}
LANE_HANDLER(exec_cvt_f8x2_f32) {
  uint32_t t[WARP_SIZE], *a = R32(w, x->slot[1]), *b = R32(w, x->slot[2]);
  FOR_LANES(l) t[l] = f8_one((double)bits_f32(a[l]), x) << 8 | f8_one((double)bits_f32(b[l]), x);
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}
LANE_HANDLER(exec_cvt_f8x2_h) {
  uint32_t t[WARP_SIZE], *a = R32(w, x->slot[1]);
  bool bf = x->type2 == TY_BF16X2;
  FOR_LANES(l) {
    uint16_t hi = (uint16_t)(a[l] >> 16), lo = (uint16_t)a[l];
    double dh = bf ? fp_decode(hi, 8, 7) : fp_decode(hi, 5, 10);
    double dl = bf ? fp_decode(lo, 8, 7) : fp_decode(lo, 5, 10);
    t[l] = f8_one(dh, x) << 8 | f8_one(dl, x);
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}
LANE_HANDLER(exec_cvt_from_f8x2) {
  uint32_t t[WARP_SIZE], *a = R32(w, x->slot[1]);
  bool e4 = x->sub != 0;
  FOR_LANES(l) {
    double dh = f8_relu(f8_decode((uint8_t)(a[l] >> 8), e4), x->mods);
    double dl = f8_relu(f8_decode((uint8_t)a[l], e4), x->mods);
    t[l] = (uint32_t)fp_round(dh, 5, 10, FR_RN, false) << 16 | (uint32_t)fp_round(dl, 5, 10, FR_RN, false);
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

/* cvt.pack.sat (§9.7.9.22): b in the low field, a above it, then c's low bits. */
static uint32_t pack_sat(int32_t v, int n, bool sgn) {
  int32_t lo = sgn ? -(1 << (n - 1)) : 0, hi = sgn ? (1 << (n - 1)) - 1 : (1 << n) - 1;
  v = v < lo ? lo : v > hi ? hi : v;
  return (uint32_t)v & ((1u << n) - 1);
}
LANE_HANDLER(exec_cvt_pack) {
  uint32_t t[WARP_SIZE], *a = R32(w, x->slot[1]), *b = R32(w, x->slot[2]);
  int n = (int)x->imm;
  bool sgn = x->type2 != 0;
  FOR_LANES(l) {
    uint32_t r = pack_sat((int32_t)a[l], n, sgn) << n | pack_sat((int32_t)b[l], n, sgn);
    if (n < 16) r |= R32(w, x->slot[3])[l] << (2 * n);
    t[l] = r;
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

#ifndef EXEC_UNIT_TEST
/* ---- selector ---- */

/* Size of the register behind operand o, or 0 for an immediate. */
static int opd_reg_size(const Operand *o) {
  return o->kind == OPD_REG && o->sym ? type_size(o->sym->type) : 0;
}

static bool sel_general(Lower *L, const Insn *in, XInsn *x) {
  Type dt = (Type)in->types[0], st = (Type)in->types[1];
  if (!(is_float(dt) || type_kind(dt) == K_U || type_kind(dt) == K_S)) return false;
  if (!(is_float(st) || type_kind(st) == K_U || type_kind(st) == K_S)) return false;
  int dreg = opd_reg_size(&in->opds[0]), sreg = opd_reg_size(&in->opds[1]);
  x->sub = 0;
  if (type_size(dt) == 8 || dreg == 8) x->sub |= CV_DST64;
  if (dreg > type_size(dt)) x->sub |= CV_DST_WIDE;
  Type srct = st;
  if (sreg > type_size(st)) srct = in->opds[1].sym->type;   /* a wider register: low bits */
  if (type_size(srct) == 8) x->sub |= CV_SRC64;
  x->slot[0] = lower_dst(L, &in->opds[0]);
  x->slot[1] = lower_src(L, &in->opds[1], srct);
  bool ints = !is_float(dt) && !is_float(st) && type_size(dt) > 0 && type_size(st) > 0;
  x->fn = ints && !(x->mods & XM_SAT) ? exec_cvt_i2i : exec_cvt;
  return true;
}

bool exec_select_CVT(Lower *L, const Insn *in, XInsn *x) {
  x->mods = lower_mods(in);
  x->type = in->types[0];
  x->type2 = in->ntypes > 1 ? in->types[1] : 0;
  bool satfinite = insn_has_mod(in, ".satfinite");
  switch ((Opcode)in->op) {
  case OP_CVT: case OP_CVT_BF16: case OP_CVT_F32_BF16:
    return sel_general(L, in, x);
  case OP_CVT_RELU:
    x->imm = satfinite;
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->slot[1] = lower_src(L, &in->opds[1], TY_F32);
    x->sub = opd_reg_size(&in->opds[0]) == 8 ? CV_DST64 : 0;
    x->fn = exec_cvt_narrow;
    return true;
  case OP_CVT_X2:
    if (in->nopds != 3) return false;   /* .rs with rbits: not yet */
    x->imm = satfinite;
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->slot[1] = lower_src(L, &in->opds[1], TY_F32);
    x->slot[2] = lower_src(L, &in->opds[2], TY_F32);
    x->sub = 0;
    x->fn = exec_cvt_x2;
    return true;
  case OP_CVT_TF32_RNA: case OP_CVT_TF32:
    x->imm = satfinite | (in->op == OP_CVT_TF32_RNA ? 2 : 0);
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->slot[1] = lower_src(L, &in->opds[1], TY_F32);
    x->fn = exec_cvt_tf32;
    return true;
  case OP_CVT_F8X2: case OP_CVT_F8X2_H: case OP_CVT_FROM_F8X2: {
    Type f8 = in->op == OP_CVT_FROM_F8X2 ? (Type)x->type2 : (Type)x->type;
    x->sub = f8 == TY_E4M3X2;
    x->imm = satfinite;
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->slot[1] = lower_src(L, &in->opds[1], in->op == OP_CVT_F8X2 ? TY_F32 : in->op == OP_CVT_F8X2_H ? TY_B32 : TY_B16);
    if (in->op == OP_CVT_F8X2) {
      if (in->nopds != 3) return false;
      x->slot[2] = lower_src(L, &in->opds[2], TY_F32);
      x->fn = exec_cvt_f8x2_f32;
    } else x->fn = in->op == OP_CVT_F8X2_H ? exec_cvt_f8x2_h : exec_cvt_from_f8x2;
    return true;
  }
  case OP_CVT_PACK: case OP_CVT_PACK_B32: {
    static const struct { const char *mod; int bits; bool sgn; } packs[] = {
      {".u16", 16, false}, {".s16", 16, true}, {".u8", 8, false}, {".s8", 8, true},
      {".u4", 4, false}, {".s4", 4, true}, {".u2", 2, false}, {".s2", 2, true},
    };
    x->imm = 0;
    for (size_t i = 0; i < sizeof packs / sizeof packs[0]; i++)
      if (insn_has_mod(in, packs[i].mod)) { x->imm = packs[i].bits; x->type2 = packs[i].sgn; break; }
    if (!x->imm || in->nopds != (x->imm == 16 ? 3 : 4)) return false;
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->slot[1] = lower_src(L, &in->opds[1], TY_S32);
    x->slot[2] = lower_src(L, &in->opds[2], TY_S32);
    if (x->imm < 16) x->slot[3] = lower_src(L, &in->opds[3], TY_B32);
    x->fn = exec_cvt_pack;
    return true;
  }
  default:
    return false;   /* fp6/fp4, x4 and .rs forms: not yet */
  }
}
#endif
