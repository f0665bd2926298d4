/* fpconv.h: exact floating-point format conversions shared by float.c,
 * half.c, cvt.c and cmp.c (PTX ISA 9.0 §5.2.5 and §9.7.9.21, cvt).
 *
 * Everything here is integer arithmetic on the encodings, so the result does
 * not depend on the host's rounding mode or flush settings:
 *
 *   fp_round(x, ebits, mbits, rnd, satfinite)  rounds a double to a binary
 *       format with `ebits` exponent and `mbits` fraction bits under any of
 *       .rn .rna .rz .rm .rp, and returns its encoding (f16 = 5,10;
 *       bf16 = 8,7; f32 = 8,23; tf32 is f32 = 8,10 shifted left 13).
 *       A double holds every f32, f16 and bf16 exactly, so "f32 -> f16" is
 *       fp_round((double)f, 5, 10, ...) with a single rounding.
 *   f16_to_f32 / bf16_to_f32   exact widenings.
 *
 * NaN encodings (a choice; the ISA leaves NaN payloads unspecified except
 * where noted): a NaN result is the canonical NaN of its format, all
 * payload bits set: f32 0x7fffffff (what the CUDA Programming Guide states
 * for single-precision NaN results), f64 0x7fffffffffffffff (the upper word
 * matches the canonical NaN 0x7fffffff00000000 that the ISA gives for
 * rcp.approx.ftz.f64), f16 and bf16 0x7fff. */
#ifndef PTXVM_FPCONV_H
#define PTXVM_FPCONV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum { FR_RN, FR_RNA, FR_RZ, FR_RM, FR_RP };   /* rounding directions */

#define F32_CNAN 0x7fffffffu
#define F64_CNAN 0x7fffffffffffffffull
#define F16_CNAN 0x7fffu
#define BF16_CNAN 0x7fffu

static inline uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t f64_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double bits_f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static inline bool f32_is_nan(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }
static inline bool f32_is_sub(uint32_t u) {
  return (u & 0x7f800000u) == 0 && (u & 0x007fffffu) != 0;
}
/* .ftz: a subnormal f32 becomes a zero of the same sign. */
static inline uint32_t f32_ftz(uint32_t u) { return f32_is_sub(u) ? u & 0x80000000u : u; }

/* Rounds x to the format (ebits, mbits) in direction rnd; returns the
 * encoding in the low 1+ebits+mbits bits. Overflow gives infinity or the
 * largest finite value as IEEE 754 prescribes for the direction, or always
 * the largest finite value with satfinite; NaN gives the canonical NaN. */
static inline uint64_t fp_round(double x, int ebits, int mbits, int rnd, bool satfinite) {
  uint64_t b = f64_bits(x);
  uint64_t sign = b >> 63, mag = b & 0x7fffffffffffffffull;
  uint64_t sbit = sign << (ebits + mbits);
  uint64_t emask = (1ull << ebits) - 1;
  uint64_t inf = emask << mbits, maxf = inf - 1;
  if (mag > 0x7ff0000000000000ull) return ((emask << mbits) | ((1ull << mbits) - 1));  /* NaN */
  if (mag == 0x7ff0000000000000ull) return sbit | (satfinite ? maxf : inf);
  if (mag == 0) return sbit;
  int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
  int e = (int)(mag >> 52);
  uint64_t m = mag & 0xfffffffffffffull;
  if (e == 0) e = 1; else m |= 1ull << 52;   /* x = m * 2^(e - 1075) */
  int E = e - 1075 + 63 - __builtin_clzll(m);  /* floor(log2 |x|) */
  int qexp = (E < emin ? emin : E) - mbits;    /* exponent of one unit in the last place */
  int shift = qexp - (e - 1075);
  uint64_t q, rem = 0, half = 0;
  bool sticky;
  if (shift <= 0) { q = m << -shift; sticky = false; }
  else if (shift >= 64) { q = 0; rem = m; half = UINT64_MAX; sticky = true; }
  else {
    q = m >> shift; rem = m & ((1ull << shift) - 1); half = 1ull << (shift - 1);
    sticky = rem != 0;
  }
  bool inc = false;
  switch (rnd) {
  case FR_RN:  inc = rem > half || (rem == half && sticky && (q & 1)); break;
  case FR_RNA: inc = sticky && rem >= half; break;
  case FR_RZ:  break;
  case FR_RM:  inc = sticky && sign; break;
  case FR_RP:  inc = sticky && !sign; break;
  }
  q += inc;
  uint64_t enc = E < emin ? q : ((uint64_t)(E + bias) << mbits) + (q - (1ull << mbits));
  if (enc >= inf) {   /* overflow: the direction decides between inf and max */
    bool to_inf = !satfinite && (rnd == FR_RN || rnd == FR_RNA ||
                                 (rnd == FR_RP && !sign) || (rnd == FR_RM && sign));
    enc = to_inf ? inf : maxf;
  }
  return sbit | enc;
}

/* Decodes a format (ebits, mbits) exactly into a double (no NaN canonicalising). */
static inline double fp_decode(uint64_t v, int ebits, int mbits) {
  uint64_t sign = v >> (ebits + mbits) & 1;
  uint64_t e = v >> mbits & ((1ull << ebits) - 1), m = v & ((1ull << mbits) - 1);
  int bias = (1 << (ebits - 1)) - 1;
  double r;
  if (e == (1ull << ebits) - 1) r = m ? bits_f64(F64_CNAN) : __builtin_inf();
  else if (e == 0) r = __builtin_ldexp((double)m, 1 - bias - mbits);
  else r = __builtin_ldexp((double)(m | 1ull << mbits), (int)e - bias - mbits);
  return sign ? -r : r;
}

/* f16 and bf16 <-> f32. Widening is exact; a NaN widens to the f32
 * canonical NaN (the ISA: "cvt.f32.bf16, NaN input yields unspecified NaN"). */
static inline float f16_to_f32(uint16_t h) {
  if ((h & 0x7fff) > 0x7c00) return bits_f32(F32_CNAN);
  return (float)fp_decode(h, 5, 10);
}
static inline float bf16_to_f32(uint16_t h) {
  if ((h & 0x7fff) > 0x7f80) return bits_f32(F32_CNAN);
  return bits_f32((uint32_t)h << 16);
}
static inline uint16_t f32_to_f16(float f, int rnd) { return (uint16_t)fp_round((double)f, 5, 10, rnd, false); }
static inline uint16_t f32_to_bf16(float f, int rnd) { return (uint16_t)fp_round((double)f, 8, 7, rnd, false); }
static inline uint16_t f64_to_f16(double d, int rnd) { return (uint16_t)fp_round(d, 5, 10, rnd, false); }
static inline uint16_t f64_to_bf16(double d, int rnd) { return (uint16_t)fp_round(d, 8, 7, rnd, false); }
static inline uint32_t f64_to_f32_bits(double d, int rnd) { return (uint32_t)fp_round(d, 8, 23, rnd, false); }

/* fp8 (§5.2.5.1 alternate floating-point formats), round to nearest even:
 *   .e5m2  1-5-2, bias 15, IEEE-like: infinities 0x7c/0xfc, NaNs above them;
 *          exactly fp_round's (5, 2) format.
 *   .e4m3  1-4-3, bias 7, no infinities: the top exponent field 15 holds
 *          normal values up to 1.110b * 2^8 = 448 (0x7e); only S.1111.111
 *          is NaN. Values from 2^-6 up are rounded as in the (5, 3) format
 *          (same fraction width, wider exponent) and re-biased; smaller ones
 *          are (4, 3) subnormals or the smallest normal, where the two
 *          formats agree. Overflow (|x| >= 464, the midpoint rounding away
 *          from 448) and infinity give 448 with satfinite, else NaN.
 * A NaN result is 0x7f for both (all payload bits set, sign clear, as in
 * fp_round). */
#define F8_CNAN 0x7fu
static inline uint8_t f8_round_rn(double x, bool e4m3, bool satfinite) {
  if (!e4m3) return (uint8_t)fp_round(x, 5, 2, FR_RN, satfinite);
  if (x != x) return F8_CNAN;
  uint8_t sign = (f64_bits(x) >> 63) ? 0x80 : 0;
  double ax = x < 0 ? -x : x;
  if (ax < 0x1p-6) return (uint8_t)fp_round(x, 4, 3, FR_RN, false);
  uint64_t v = fp_round(x, 5, 3, FR_RN, false);   /* 2^-6 <= |x|: a normal */
  unsigned e5 = (unsigned)(v >> 3 & 31), m = (unsigned)(v & 7);
  if (e5 == 31 || e5 > 15 + 8 || (e5 == 15 + 8 && m == 7))
    return satfinite ? (uint8_t)(sign | 0x7e) : F8_CNAN;
  return (uint8_t)(sign | (e5 - 8) << 3 | m);
}
/* fp8 -> double, exactly (NaN: the f64 canonical NaN). */
static inline double f8_decode(uint8_t v, bool e4m3) {
  if (!e4m3) return fp_decode(v, 5, 2);
  if ((v & 0x7f) == 0x7f) return bits_f64(F64_CNAN);
  unsigned e = v >> 3 & 15, m = v & 7;
  double r = e ? __builtin_ldexp(8.0 + m, (int)e - 10) : __builtin_ldexp((double)m, -9);
  return (v & 0x80) ? -r : r;
}

/* double -> f16 / bf16 to nearest even, for atomics and initializers: a
 * NaN becomes a quiet NaN that keeps its sign (f16: 0x7e00 | sign) or, for
 * bf16, the upper half of the f32 NaN with the quiet bit set (those two
 * paths have always kept the host's NaN rather than the canonical one).
 * bf16 rounds the f32 nearest to d: for what the callers pass (a sum, min
 * or max of two bf16 values; an f32 initializer) that double rounding is
 * innocuous (53 >= 2*24+2, 24 >= 2*8+2), for any double it is not. */
static inline uint16_t f16_round_qnan(double d) {
  if (d != d) return (uint16_t)(0x7e00 | (f64_bits(d) >> 48 & 0x8000));
  return (uint16_t)fp_round(d, 5, 10, FR_RN, false);
}
static inline uint16_t bf16_round_qnan(double d) {
  uint32_t u = f32_bits((float)d);
  if (f32_is_nan(u)) return (uint16_t)(u >> 16 | 0x40);
  return (uint16_t)fp_round((double)bits_f32(u), 8, 7, FR_RN, false);
}
/* bf16 -> double exactly, a NaN keeping its sign and payload (the f32 of the
 * same upper bits). */
static inline double bf16_widen(uint16_t h) { return (double)bits_f32((uint32_t)h << 16); }

static inline bool f16_is_nan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
static inline bool bf16_is_nan(uint16_t h) { return (h & 0x7fff) > 0x7f80; }
static inline bool f16_is_sub(uint16_t h) { return (h & 0x7c00) == 0 && (h & 0x3ff) != 0; }
static inline uint16_t f16_ftz(uint16_t h) { return f16_is_sub(h) ? h & 0x8000 : h; }

#endif
