/* int.c: semantics of the INT family (PTX ISA 9.0, §9.7.1 integer arithmetic
 * and §9.7.2 extended precision).
 *
 * Each handler computes all 32 lanes into a temporary and merges it into the
 * destination under the mask (STYLE.md §2); the ALUn macros below hold the
 * lane loop, so a handler is its per-lane expression. Handlers are
 * specialised by type (STYLE.md §4); where two types give the same bits
 * (add.u32 and add.s32, mul.lo for either sign) one handler, named by its
 * bit width (exec_add_b32), serves both.
 *
 * Registers of 8 and 16 bits live zero-extended in the 32-bit file
 * (exec.h), so 16-bit handlers read the low half of a slot, sign-extend it
 * when the type is signed, and write back the low 16 bits.
 *
 * The carry flag CC.CF of §9.7.2 is per lane: Warp.cc is a lane mask,
 * written only under the executing mask. A subtraction is the addition
 * a + ~b + 1, as on the GPU: sub.cc writes that sum's carry-out (NOT
 * borrow) and subc adds CC.CF in place of the 1 (d = a - b - (1 - CC.CF)).
 * The ISA's semantics lines (d = a - (b + CC.CF), "borrow-out written to
 * CC.CF") say borrow; ptxas does not: it folds sub.cc.u32 1, 2 followed by
 * addc.u32 0, 0 to 0 and compiles sub.cc and subc to IADD3 with -b and the
 * carry predicate. Pure sub chains give the same bits either way; mixed
 * add/sub chains (LLVM's i128 arithmetic) only this way.
 *
 * Choices the ISA leaves open (also listed in the Notes of opcodes.def):
 *   div, rem by zero: all ones (0xffff..., -1 for signed types), for every
 *                  type and dividend: what an H200 gives (tests/ptx/truth/
 *                  div_rem_zero.ptx against tests/gpu/sm90_truth.json);
 *   MIN / -1:      div gives MIN (wraps), rem gives 0;
 *   fns base > 31: undefined in the ISA; gives 0xffffffff (not found). */
#include "program.h"
#include "alu.h"

/* ---- lane loops ---- */



/* ---- scalar helpers ---- */

/* Sign extension without implementation-defined shifts. */
static inline int32_t sx16(uint32_t v) { return (int32_t)((v & 0xffffu) ^ 0x8000u) - 0x8000; }
static inline int32_t sx24(uint32_t v) { return (int32_t)((v & 0xffffffu) ^ 0x800000u) - 0x800000; }
static inline int32_t as_s32(uint32_t v) { return (int32_t)v; }
static inline int64_t as_s64(uint64_t v) { return (int64_t)v; }
static inline uint32_t lo16(int64_t v) { return (uint32_t)v & 0xffffu; }

static inline int64_t clamp_s32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
}

/* High 64 bits of a 64 x 64-bit product (portable C11, no __int128). */
static inline uint64_t mulhi_u64(uint64_t a, uint64_t b) {
  uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
  uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
static inline uint64_t mulhi_s64(uint64_t a, uint64_t b) {
  uint64_t h = mulhi_u64(a, b);
  if (as_s64(a) < 0) h -= b;
  if (as_s64(b) < 0) h -= a;
  return h;
}
static inline uint32_t mulhi_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
static inline uint32_t mulhi_s32(uint32_t a, uint32_t b) {
  return (uint32_t)((uint64_t)((int64_t)as_s32(a) * as_s32(b)) >> 32);
}
static inline uint32_t mullo_u32(uint32_t a, uint32_t b) { return a * b; }
static inline uint64_t mullo_u64(uint64_t a, uint64_t b) { return a * b; }

/* Division: see the header for the values of the unspecified cases. */
static inline uint32_t div_u32(uint32_t a, uint32_t b) { return b ? a / b : UINT32_MAX; }
static inline uint64_t div_u64(uint64_t a, uint64_t b) { return b ? a / b : UINT64_MAX; }
static inline uint32_t rem_u32(uint32_t a, uint32_t b) { return b ? a % b : UINT32_MAX; }
static inline uint64_t rem_u64(uint64_t a, uint64_t b) { return b ? a % b : UINT64_MAX; }
static inline uint32_t div_s32(uint32_t a, uint32_t b) {
  if (b == 0) return UINT32_MAX;
  if (a == 0x80000000u && b == UINT32_MAX) return a;
  return (uint32_t)(as_s32(a) / as_s32(b));
}
static inline uint32_t rem_s32(uint32_t a, uint32_t b) {
  if (b == 0) return UINT32_MAX;
  if (a == 0x80000000u && b == UINT32_MAX) return 0;
  return (uint32_t)(as_s32(a) % as_s32(b));
}
static inline uint64_t div_s64(uint64_t a, uint64_t b) {
  if (b == 0) return UINT64_MAX;
  if (a == 0x8000000000000000u && b == UINT64_MAX) return a;
  return (uint64_t)(as_s64(a) / as_s64(b));
}
static inline uint64_t rem_s64(uint64_t a, uint64_t b) {
  if (b == 0) return UINT64_MAX;
  if (a == 0x8000000000000000u && b == UINT64_MAX) return 0;
  return (uint64_t)(as_s64(a) % as_s64(b));
}
/* 16-bit: operands are exact in 32 bits, so only b == 0 is special. */
static inline uint32_t div_u16(uint32_t a, uint32_t b) { a &= 0xffff; b &= 0xffff; return b ? a / b : 0xffff; }
static inline uint32_t rem_u16(uint32_t a, uint32_t b) { a &= 0xffff; b &= 0xffff; return b ? a % b : 0xffff; }
static inline uint32_t div_s16(uint32_t a, uint32_t b) { return sx16(b) ? lo16(sx16(a) / sx16(b)) : 0xffff; }
static inline uint32_t rem_s16(uint32_t a, uint32_t b) { return sx16(b) ? lo16(sx16(a) % sx16(b)) : 0xffff; }

static inline uint32_t popc64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555u);
  v = (v & 0x3333333333333333u) + ((v >> 2) & 0x3333333333333333u);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return (uint32_t)((v * 0x0101010101010101u) >> 56);
}
/* Leading zeros of the low `bits` bits of v (bits = 32 or 64); bits if 0. */
static inline uint32_t clz_n(uint64_t v, uint32_t bits) {
  uint32_t n = 0;
  if (bits == 32) v <<= 32;
  if (v == 0) return bits;
  for (uint32_t s = 32; s; s >>= 1)
    if ((v >> (64 - s)) == 0) { n += s; v <<= s; }
  return n;
}
static inline uint64_t brev64(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555u) | ((v & 0x5555555555555555u) << 1);
  v = ((v >> 2) & 0x3333333333333333u) | ((v & 0x3333333333333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fu) | ((v & 0x0f0f0f0f0f0f0f0fu) << 4);
  v = ((v >> 8) & 0x00ff00ff00ff00ffu) | ((v & 0x00ff00ff00ff00ffu) << 8);
  v = ((v >> 16) & 0x0000ffff0000ffffu) | ((v & 0x0000ffff0000ffffu) << 16);
  return (v >> 32) | (v << 32);
}

/* bfind (§9.7.1.16): msb is 31 or 63; signed inputs are complemented when
 * negative; 0xffffffff when no non-sign bit is found. */
static inline uint32_t bfind_gen(uint64_t a, uint32_t msb, bool sgn, bool shiftamt) {
  if (sgn && (a >> msb & 1)) a = ~a;
  if (msb == 31) a &= 0xffffffffu;
  if (a == 0) return UINT32_MAX;
  uint32_t d = 63 - clz_n(a, 64);
  return shiftamt ? msb - d : d;
}

static inline uint64_t low_mask(uint32_t n) { return n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1; }

/* bfe (§9.7.1.19) and bfi (§9.7.1.20) take the position and length from
 * 32-bit operands. The ISA says only their low 8 bits count; that holds for
 * the 32-bit forms (ptxas extracts the bytes, PRMT), but the 64-bit forms
 * use the whole 32-bit values, a shift by 64 or more clearing the field:
 * ptxas compiles them to 64-bit shifts by the full register and folds
 * bfe.u64 d, 0xabcd, 256, 8 to 0 (tests/ptx/int/bfe64_wide.ptx). */
static inline uint32_t field_byte(uint32_t v) { return v & 0xff; }

/* bfe: field [pos, pos+len) of a, the bits past the msb and past len
 * replaced by the sign bit (zero for unsigned types). */
static inline uint64_t bfe_gen(uint64_t a, uint32_t pos, uint32_t len, uint32_t msb, bool sgn) {
  uint32_t n = pos > msb ? 0 : (len < msb + 1 - pos ? len : msb + 1 - pos);
  uint64_t v = n ? (a >> pos) & low_mask(n) : 0;
  uint64_t top = (uint64_t)pos + len - 1;
  uint32_t sp = top < msb ? (uint32_t)top : msb;
  if (sgn && len != 0 && (a >> sp & 1)) v |= ~low_mask(n);
  return v;
}
/* bfi: a's low len bits into b at pos, clipped at the msb. */
static inline uint64_t bfi_gen(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, uint32_t msb) {
  uint32_t n = pos > msb ? 0 : (len < msb + 1 - pos ? len : msb + 1 - pos);
  if (n == 0) return b;
  uint64_t m = low_mask(n) << pos;
  return (b & ~m) | ((a << pos) & m);
}

/* fns (§9.7.1.17): the |offset|-th set bit of mask from base, walking up for
 * a positive offset and down for a negative one. */
static inline uint32_t fns_b32(uint32_t mask, uint32_t base, uint32_t offset) {
  int32_t off = as_s32(offset);
  if (base > 31) return UINT32_MAX;
  if (off == 0) return (mask >> base & 1) ? base : UINT32_MAX;
  int64_t count = (off > 0 ? (int64_t)off : -(int64_t)off) - 1;
  int inc = off > 0 ? 1 : -1;
  for (int pos = (int)base; pos >= 0 && pos < 32; pos += inc)
    if (mask >> pos & 1) {
      if (count == 0) return (uint32_t)pos;
      count--;
    }
  return UINT32_MAX;
}

/* szext (§9.7.1.21), the ISA's semantics line by line. */
static inline uint32_t szext_gen(uint32_t a, uint32_t b, bool clamp, bool sgn) {
  uint32_t b1 = b & 0x1f;
  bool too_large = b >= 32 && clamp;
  uint32_t mask = too_large ? 0 : UINT32_MAX << b1;
  uint32_t sign_pos = (b1 - 1) & 0x1f;
  bool sign_bit = !(b1 == 0 || too_large || !sgn) && (a >> sign_pos & 1);
  return (a & ~mask) | (sign_bit ? mask : 0);
}

/* bmsk (§9.7.1.22), the ISA's semantics line by line. */
static inline uint32_t bmsk_gen(uint32_t a, uint32_t b, bool clamp) {
  uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
  uint32_t mask0 = UINT32_MAX << a1;
  uint32_t mask1 = sum >= 32 ? 0 : UINT32_MAX << sum;
  bool pos_ovf = false, width_ovf = false;
  if (clamp) {
    if (a >= 32) { pos_ovf = true; mask0 = 0; }
    if (b >= 32) width_ovf = true;
  }
  if (sum >= 32 || pos_ovf || width_ovf) mask1 = 0;
  else if (b1 == 0) mask1 = UINT32_MAX;
  return mask0 & ~mask1;
}

/* Byte i / half-word i of v, zero- or sign-extended. */
static inline int64_t byte_x(uint32_t v, int i, bool sgn) {
  uint32_t b = v >> (8 * i) & 0xff;
  return sgn ? (int64_t)(int32_t)(b ^ 0x80) - 0x80 : (int64_t)b;
}
static inline int64_t half_x(uint32_t v, int i, bool sgn) {
  uint32_t h = v >> (16 * i) & 0xffff;
  return sgn ? (int64_t)sx16(h) : (int64_t)h;
}
/* dp4a / dp2a (§9.7.1.23-24): wrap-around 32-bit accumulation. */
static inline uint32_t dp4a_gen(uint32_t a, uint32_t b, uint32_t c, bool sa, bool sb) {
  uint32_t d = c;
  for (int i = 0; i < 4; i++) d += (uint32_t)(byte_x(a, i, sa) * byte_x(b, i, sb));
  return d;
}
static inline uint32_t dp2a_gen(uint32_t a, uint32_t b, uint32_t c, bool sa, bool sb, int sel) {
  uint32_t d = c;
  for (int i = 0; i < 2; i++) d += (uint32_t)(half_x(a, i, sa) * byte_x(b, sel + i, sb));
  return d;
}

/* Per-half-word SIMD helpers (.u16x2, .s16x2). */
static inline uint32_t pack2(int64_t lo, int64_t hi) { return lo16(lo) | lo16(hi) << 16; }
static inline int64_t relu(int64_t v) { return v < 0 ? 0 : v; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
#define H(v, i) half_x((v), (i), false)
#define SH(v, i) half_x((v), (i), true)

/* ==== add, sub (§9.7.1.1-2) ==== */
ALU2(exec_add_b16, 32, 32, 32, (a[l] + b[l]) & 0xffff)
ALU2(exec_add_b32, 32, 32, 32, a[l] + b[l])
ALU2(exec_add_b64, 64, 64, 64, a[l] + b[l])
ALU2(exec_add_sat_s32, 32, 32, 32, clamp_s32((int64_t)as_s32(a[l]) + as_s32(b[l])))
ALU2(exec_add_x16x2, 32, 32, 32, pack2(H(a[l], 0) + H(b[l], 0), H(a[l], 1) + H(b[l], 1)))
ALU2(exec_sub_b16, 32, 32, 32, (a[l] - b[l]) & 0xffff)
ALU2(exec_sub_b32, 32, 32, 32, a[l] - b[l])
ALU2(exec_sub_b64, 64, 64, 64, a[l] - b[l])
ALU2(exec_sub_sat_s32, 32, 32, 32, clamp_s32((int64_t)as_s32(a[l]) - as_s32(b[l])))

/* ==== mul, mad (§9.7.1.3-4) ==== */
ALU2(exec_mul_lo_b16, 32, 32, 32, (a[l] * b[l]) & 0xffff)
ALU2(exec_mul_lo_b32, 32, 32, 32, a[l] * b[l])
ALU2(exec_mul_lo_b64, 64, 64, 64, a[l] * b[l])
ALU2(exec_mul_hi_u16, 32, 32, 32, ((a[l] & 0xffff) * (b[l] & 0xffff)) >> 16)
ALU2(exec_mul_hi_s16, 32, 32, 32, lo16((sx16(a[l]) * sx16(b[l])) >> 16))
ALU2(exec_mul_hi_u32, 32, 32, 32, mulhi_u32(a[l], b[l]))
ALU2(exec_mul_hi_s32, 32, 32, 32, mulhi_s32(a[l], b[l]))
ALU2(exec_mul_hi_u64, 64, 64, 64, mulhi_u64(a[l], b[l]))
ALU2(exec_mul_hi_s64, 64, 64, 64, mulhi_s64(a[l], b[l]))
ALU2(exec_mul_wide_u16, 32, 32, 32, (a[l] & 0xffff) * (b[l] & 0xffff))
ALU2(exec_mul_wide_s16, 32, 32, 32, (uint32_t)(sx16(a[l]) * sx16(b[l])))
ALU2(exec_mul_wide_u32, 64, 32, 32, (uint64_t)a[l] * b[l])
ALU2(exec_mul_wide_s32, 64, 32, 32, (uint64_t)((int64_t)as_s32(a[l]) * as_s32(b[l])))

ALU3(exec_mad_lo_b16, 32, 32, 32, 32, (a[l] * b[l] + c[l]) & 0xffff)
ALU3(exec_mad_lo_b32, 32, 32, 32, 32, a[l] * b[l] + c[l])
ALU3(exec_mad_lo_b64, 64, 64, 64, 64, a[l] * b[l] + c[l])
ALU3(exec_mad_hi_u16, 32, 32, 32, 32, ((((a[l] & 0xffff) * (b[l] & 0xffff)) >> 16) + c[l]) & 0xffff)
ALU3(exec_mad_hi_s16, 32, 32, 32, 32, lo16(((sx16(a[l]) * sx16(b[l])) >> 16) + sx16(c[l])))
ALU3(exec_mad_hi_u32, 32, 32, 32, 32, mulhi_u32(a[l], b[l]) + c[l])
ALU3(exec_mad_hi_s32, 32, 32, 32, 32, mulhi_s32(a[l], b[l]) + c[l])
ALU3(exec_mad_hi_u64, 64, 64, 64, 64, mulhi_u64(a[l], b[l]) + c[l])
ALU3(exec_mad_hi_s64, 64, 64, 64, 64, mulhi_s64(a[l], b[l]) + c[l])
ALU3(exec_mad_hi_sat_s32, 32, 32, 32, 32, clamp_s32((int64_t)as_s32(mulhi_s32(a[l], b[l])) + as_s32(c[l])))
ALU3(exec_mad_wide_u16, 32, 32, 32, 32, (a[l] & 0xffff) * (b[l] & 0xffff) + c[l])
ALU3(exec_mad_wide_s16, 32, 32, 32, 32, (uint32_t)(sx16(a[l]) * sx16(b[l])) + c[l])
ALU3(exec_mad_wide_u32, 64, 32, 32, 64, (uint64_t)a[l] * b[l] + c[l])
ALU3(exec_mad_wide_s32, 64, 32, 32, 64, (uint64_t)((int64_t)as_s32(a[l]) * as_s32(b[l])) + c[l])

/* ==== mul24, mad24 (§9.7.1.5-6): 24 x 24 -> 48 bits; .hi is t<47..16> ==== */
static inline uint64_t mul24_u(uint32_t a, uint32_t b) { return (uint64_t)(a & 0xffffff) * (b & 0xffffff); }
static inline uint64_t mul24_s(uint32_t a, uint32_t b) { return (uint64_t)((int64_t)sx24(a) * sx24(b)); }
ALU2(exec_mul24_lo_u32, 32, 32, 32, mul24_u(a[l], b[l]))
ALU2(exec_mul24_lo_s32, 32, 32, 32, mul24_s(a[l], b[l]))
ALU2(exec_mul24_hi_u32, 32, 32, 32, mul24_u(a[l], b[l]) >> 16)
ALU2(exec_mul24_hi_s32, 32, 32, 32, mul24_s(a[l], b[l]) >> 16)
ALU3(exec_mad24_lo_u32, 32, 32, 32, 32, (uint32_t)mul24_u(a[l], b[l]) + c[l])
ALU3(exec_mad24_lo_s32, 32, 32, 32, 32, (uint32_t)mul24_s(a[l], b[l]) + c[l])
ALU3(exec_mad24_hi_u32, 32, 32, 32, 32, (uint32_t)(mul24_u(a[l], b[l]) >> 16) + c[l])
ALU3(exec_mad24_hi_s32, 32, 32, 32, 32, (uint32_t)(mul24_s(a[l], b[l]) >> 16) + c[l])
ALU3(exec_mad24_hi_sat_s32, 32, 32, 32, 32,
     clamp_s32((int64_t)as_s32((uint32_t)(mul24_s(a[l], b[l]) >> 16)) + as_s32(c[l])))

/* ==== sad (§9.7.1.7): c + |a - b| ==== */
ALU3(exec_sad_u16, 32, 32, 32, 32, lo16(c[l] + (uint32_t)(H(a[l], 0) > H(b[l], 0) ? H(a[l], 0) - H(b[l], 0) : H(b[l], 0) - H(a[l], 0))))
ALU3(exec_sad_s16, 32, 32, 32, 32, lo16(c[l] + (uint32_t)(SH(a[l], 0) > SH(b[l], 0) ? SH(a[l], 0) - SH(b[l], 0) : SH(b[l], 0) - SH(a[l], 0))))
ALU3(exec_sad_u32, 32, 32, 32, 32, c[l] + (a[l] > b[l] ? a[l] - b[l] : b[l] - a[l]))
ALU3(exec_sad_s32, 32, 32, 32, 32, c[l] + (as_s32(a[l]) > as_s32(b[l]) ? a[l] - b[l] : b[l] - a[l]))
ALU3(exec_sad_u64, 64, 64, 64, 64, c[l] + (a[l] > b[l] ? a[l] - b[l] : b[l] - a[l]))
ALU3(exec_sad_s64, 64, 64, 64, 64, c[l] + (as_s64(a[l]) > as_s64(b[l]) ? a[l] - b[l] : b[l] - a[l]))

/* ==== div, rem (§9.7.1.8-9) ==== */
/* --check: a zero divisor in an executing lane is reported; the result is
 * the documented value above either way. bits: the divisor's width. */
static void div_zero(Warp *w, const XInsn *x, uint32_t mask, int bits) {
  uint32_t zero = 0;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t b = bits == 64 ? R64(w, x->slot[2])[l] : R32(w, x->slot[2])[l];
    if (bits == 16 ? (b & 0xffff) == 0 : b == 0) zero |= 1u << l;
  }
  if (!zero) return;
  bool div = x->op == OP_DIV_INT;
  int l = __builtin_ctz(zero), n = __builtin_popcount(zero);
  exec_report(w, x, l, "%s.%s: integer division by zero in lane %d (%d lane%s): undefined result; "
              "ptxvm gives %s", div ? "div" : "rem", type_name((Type)x->type), l, n,
              n == 1 ? "" : "s", "all ones");
}
#define DIVREM(NAME, W, BITS, F) \
  ALU2(NAME##_alu, W, W, W, F(a[l], b[l])) \
  HANDLER(NAME) { \
    if (exec_checking(w)) div_zero(w, x, mask, BITS); \
    return NAME##_alu(w, x, mask); \
  }
DIVREM(exec_div_u16, 32, 16, div_u16)
DIVREM(exec_div_s16, 32, 16, div_s16)
DIVREM(exec_div_u32, 32, 32, div_u32)
DIVREM(exec_div_s32, 32, 32, div_s32)
DIVREM(exec_div_u64, 64, 64, div_u64)
DIVREM(exec_div_s64, 64, 64, div_s64)
DIVREM(exec_rem_u16, 32, 16, rem_u16)
DIVREM(exec_rem_s16, 32, 16, rem_s16)
DIVREM(exec_rem_u32, 32, 32, rem_u32)
DIVREM(exec_rem_s32, 32, 32, rem_s32)
DIVREM(exec_rem_u64, 64, 64, rem_u64)
DIVREM(exec_rem_s64, 64, 64, rem_s64)

/* ==== abs, neg (§9.7.1.10-11): the most negative value maps to itself ==== */
ALU1(exec_abs_s16, 32, 32, lo16(sx16(a[l]) < 0 ? -sx16(a[l]) : sx16(a[l])))
ALU1(exec_abs_s32, 32, 32, as_s32(a[l]) < 0 ? 0u - a[l] : a[l])
ALU1(exec_abs_s64, 64, 64, as_s64(a[l]) < 0 ? 0u - a[l] : a[l])
ALU1(exec_neg_s16, 32, 32, (0u - a[l]) & 0xffff)
ALU1(exec_neg_s32, 32, 32, 0u - a[l])
ALU1(exec_neg_s64, 64, 64, 0u - a[l])

/* ==== min, max (§9.7.1.12-13); .relu clamps a negative result to 0 ==== */
ALU2(exec_min_u16, 32, 32, 32, min64(H(a[l], 0), H(b[l], 0)))
ALU2(exec_min_s16, 32, 32, 32, lo16(min64(SH(a[l], 0), SH(b[l], 0))))
ALU2(exec_min_u32, 32, 32, 32, a[l] < b[l] ? a[l] : b[l])
ALU2(exec_min_s32, 32, 32, 32, as_s32(a[l]) < as_s32(b[l]) ? a[l] : b[l])
ALU2(exec_min_u64, 64, 64, 64, a[l] < b[l] ? a[l] : b[l])
ALU2(exec_min_s64, 64, 64, 64, as_s64(a[l]) < as_s64(b[l]) ? a[l] : b[l])
ALU2(exec_min_relu_s32, 32, 32, 32, relu(min64(as_s32(a[l]), as_s32(b[l]))))
ALU2(exec_min_u16x2, 32, 32, 32, pack2(min64(H(a[l], 0), H(b[l], 0)), min64(H(a[l], 1), H(b[l], 1))))
ALU2(exec_min_s16x2, 32, 32, 32, pack2(min64(SH(a[l], 0), SH(b[l], 0)), min64(SH(a[l], 1), SH(b[l], 1))))
ALU2(exec_min_relu_s16x2, 32, 32, 32,
     pack2(relu(min64(SH(a[l], 0), SH(b[l], 0))), relu(min64(SH(a[l], 1), SH(b[l], 1)))))
ALU2(exec_max_u16, 32, 32, 32, max64(H(a[l], 0), H(b[l], 0)))
ALU2(exec_max_s16, 32, 32, 32, lo16(max64(SH(a[l], 0), SH(b[l], 0))))
ALU2(exec_max_u32, 32, 32, 32, a[l] > b[l] ? a[l] : b[l])
ALU2(exec_max_s32, 32, 32, 32, as_s32(a[l]) > as_s32(b[l]) ? a[l] : b[l])
ALU2(exec_max_u64, 64, 64, 64, a[l] > b[l] ? a[l] : b[l])
ALU2(exec_max_s64, 64, 64, 64, as_s64(a[l]) > as_s64(b[l]) ? a[l] : b[l])
ALU2(exec_max_relu_s32, 32, 32, 32, relu(max64(as_s32(a[l]), as_s32(b[l]))))
ALU2(exec_max_u16x2, 32, 32, 32, pack2(max64(H(a[l], 0), H(b[l], 0)), max64(H(a[l], 1), H(b[l], 1))))
ALU2(exec_max_s16x2, 32, 32, 32, pack2(max64(SH(a[l], 0), SH(b[l], 0)), max64(SH(a[l], 1), SH(b[l], 1))))
ALU2(exec_max_relu_s16x2, 32, 32, 32,
     pack2(relu(max64(SH(a[l], 0), SH(b[l], 0))), relu(max64(SH(a[l], 1), SH(b[l], 1)))))

/* ==== bit operations (§9.7.1.14-22) ==== */
ALU1(exec_popc_b32, 32, 32, popc64(a[l]))
ALU1(exec_popc_b64, 32, 64, popc64(a[l]))
ALU1(exec_clz_b32, 32, 32, clz_n(a[l], 32))
ALU1(exec_clz_b64, 32, 64, clz_n(a[l], 64))
ALU1(exec_bfind_u32, 32, 32, bfind_gen(a[l], 31, false, false))
ALU1(exec_bfind_s32, 32, 32, bfind_gen(a[l], 31, true, false))
ALU1(exec_bfind_u64, 32, 64, bfind_gen(a[l], 63, false, false))
ALU1(exec_bfind_s64, 32, 64, bfind_gen(a[l], 63, true, false))
ALU1(exec_bfind_shiftamt_u32, 32, 32, bfind_gen(a[l], 31, false, true))
ALU1(exec_bfind_shiftamt_s32, 32, 32, bfind_gen(a[l], 31, true, true))
ALU1(exec_bfind_shiftamt_u64, 32, 64, bfind_gen(a[l], 63, false, true))
ALU1(exec_bfind_shiftamt_s64, 32, 64, bfind_gen(a[l], 63, true, true))
ALU3(exec_fns_b32, 32, 32, 32, 32, fns_b32(a[l], b[l], c[l]))
ALU1(exec_brev_b32, 32, 32, brev64(a[l]) >> 32)
ALU1(exec_brev_b64, 64, 64, brev64(a[l]))
ALU3(exec_bfe_u32, 32, 32, 32, 32, bfe_gen(a[l], field_byte(b[l]), field_byte(c[l]), 31, false))
ALU3(exec_bfe_s32, 32, 32, 32, 32, bfe_gen(a[l], field_byte(b[l]), field_byte(c[l]), 31, true))
ALU3(exec_bfe_u64, 64, 64, 32, 32, bfe_gen(a[l], b[l], c[l], 63, false))
ALU3(exec_bfe_s64, 64, 64, 32, 32, bfe_gen(a[l], b[l], c[l], 63, true))
ALU4(exec_bfi_b32, 32, 32, 32, 32, 32, bfi_gen(a[l], b[l], field_byte(c[l]), field_byte(e[l]), 31))
ALU4(exec_bfi_b64, 64, 64, 64, 32, 32, bfi_gen(a[l], b[l], c[l], e[l], 63))
ALU2(exec_szext_clamp_u32, 32, 32, 32, szext_gen(a[l], b[l], true, false))
ALU2(exec_szext_clamp_s32, 32, 32, 32, szext_gen(a[l], b[l], true, true))
ALU2(exec_szext_wrap_u32, 32, 32, 32, szext_gen(a[l], b[l], false, false))
ALU2(exec_szext_wrap_s32, 32, 32, 32, szext_gen(a[l], b[l], false, true))
ALU2(exec_bmsk_clamp_b32, 32, 32, 32, bmsk_gen(a[l], b[l], true))
ALU2(exec_bmsk_wrap_b32, 32, 32, 32, bmsk_gen(a[l], b[l], false))

/* ==== dp4a, dp2a (§9.7.1.23-24), named by .atype.btype ==== */
ALU3(exec_dp4a_u32_u32, 32, 32, 32, 32, dp4a_gen(a[l], b[l], c[l], false, false))
ALU3(exec_dp4a_u32_s32, 32, 32, 32, 32, dp4a_gen(a[l], b[l], c[l], false, true))
ALU3(exec_dp4a_s32_u32, 32, 32, 32, 32, dp4a_gen(a[l], b[l], c[l], true, false))
ALU3(exec_dp4a_s32_s32, 32, 32, 32, 32, dp4a_gen(a[l], b[l], c[l], true, true))
ALU3(exec_dp2a_lo_u32_u32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], false, false, 0))
ALU3(exec_dp2a_lo_u32_s32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], false, true, 0))
ALU3(exec_dp2a_lo_s32_u32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], true, false, 0))
ALU3(exec_dp2a_lo_s32_s32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], true, true, 0))
ALU3(exec_dp2a_hi_u32_u32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], false, false, 2))
ALU3(exec_dp2a_hi_u32_s32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], false, true, 2))
ALU3(exec_dp2a_hi_s32_u32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], true, false, 2))
ALU3(exec_dp2a_hi_s32_s32, 32, 32, 32, 32, dp2a_gen(a[l], b[l], c[l], true, true, 2))

/* ==== extended precision (§9.7.2) ====
 * d = a + b + cin with carry-out; a subtraction adds ~b (file comment).
 * CIN is the carry in (CC_CF: lane l's CC.CF), COUT writes the carry-out
 * under the mask. */
static inline uint32_t add_carry32(uint32_t a, uint32_t b, uint32_t cin, uint32_t *cout) {
  uint64_t s = (uint64_t)a + b + cin;
  *cout = (uint32_t)(s >> 32);
  return (uint32_t)s;
}
static inline uint64_t add_carry64(uint64_t a, uint64_t b, uint32_t cin, uint32_t *cout) {
  uint64_t s = a + b, s2 = s + cin;
  *cout = (s < a) | (s2 < s);
  return s2;
}
static inline uint32_t sub_carry32(uint32_t a, uint32_t b, uint32_t cin, uint32_t *cout) {
  return add_carry32(a, ~b, cin, cout);
}
static inline uint64_t sub_carry64(uint64_t a, uint64_t b, uint32_t cin, uint32_t *cout) {
  return add_carry64(a, ~b, cin, cout);
}

/* Lane l's CC.CF, a CIN of CC_HANDLER / MADCC_HANDLER. */
#define CC_CF (w->cc >> l & 1)

#define CC_HANDLER(NAME, W, OPFN, CIN, COUT) \
  ALU_HEAD(NAME) { \
    const uint##W##_t *a = R##W(w, x->slot[1]), *b = R##W(w, x->slot[2]); \
    uint##W##_t t[WARP_SIZE]; \
    uint32_t carry = 0; \
    FOR_LANES(l) { \
      uint32_t co; \
      t[l] = OPFN(a[l], b[l], (CIN), &co); \
      carry |= co << l; \
    } \
    if (COUT) w->cc = (w->cc & ~mask) | (carry & mask); \
    ALU_TAIL(W) }
CC_HANDLER(exec_add_cc_b32, 32, add_carry32, 0, 1)
CC_HANDLER(exec_add_cc_b64, 64, add_carry64, 0, 1)
CC_HANDLER(exec_addc_b32, 32, add_carry32, CC_CF, 0)
CC_HANDLER(exec_addc_b64, 64, add_carry64, CC_CF, 0)
CC_HANDLER(exec_addc_cc_b32, 32, add_carry32, CC_CF, 1)
CC_HANDLER(exec_addc_cc_b64, 64, add_carry64, CC_CF, 1)
CC_HANDLER(exec_sub_cc_b32, 32, sub_carry32, 1, 1)
CC_HANDLER(exec_sub_cc_b64, 64, sub_carry64, 1, 1)
CC_HANDLER(exec_subc_b32, 32, sub_carry32, CC_CF, 0)
CC_HANDLER(exec_subc_b64, 64, sub_carry64, CC_CF, 0)
CC_HANDLER(exec_subc_cc_b32, 32, sub_carry32, CC_CF, 1)
CC_HANDLER(exec_subc_cc_b64, 64, sub_carry64, CC_CF, 1)

#define MADCC_HANDLER(NAME, W, MULFN, CIN, COUT) \
  ALU_HEAD(NAME) { \
    const uint##W##_t *a = R##W(w, x->slot[1]), *b = R##W(w, x->slot[2]); \
    const uint##W##_t *c = R##W(w, x->slot[3]); \
    uint##W##_t t[WARP_SIZE]; \
    uint32_t carry = 0; \
    FOR_LANES(l) { \
      uint32_t co; \
      t[l] = add_carry##W(MULFN(a[l], b[l]), c[l], (CIN), &co); \
      carry |= co << l; \
    } \
    if (COUT) w->cc = (w->cc & ~mask) | (carry & mask); \
    ALU_TAIL(W) }
MADCC_HANDLER(exec_mad_lo_cc_b32, 32, mullo_u32, 0, 1)
MADCC_HANDLER(exec_mad_lo_cc_b64, 64, mullo_u64, 0, 1)
MADCC_HANDLER(exec_mad_hi_cc_u32, 32, mulhi_u32, 0, 1)
MADCC_HANDLER(exec_mad_hi_cc_s32, 32, mulhi_s32, 0, 1)
MADCC_HANDLER(exec_mad_hi_cc_u64, 64, mulhi_u64, 0, 1)
MADCC_HANDLER(exec_mad_hi_cc_s64, 64, mulhi_s64, 0, 1)
MADCC_HANDLER(exec_madc_lo_b32, 32, mullo_u32, CC_CF, 0)
MADCC_HANDLER(exec_madc_lo_b64, 64, mullo_u64, CC_CF, 0)
MADCC_HANDLER(exec_madc_hi_u32, 32, mulhi_u32, CC_CF, 0)
MADCC_HANDLER(exec_madc_hi_s32, 32, mulhi_s32, CC_CF, 0)
MADCC_HANDLER(exec_madc_hi_u64, 64, mulhi_u64, CC_CF, 0)
MADCC_HANDLER(exec_madc_hi_s64, 64, mulhi_s64, CC_CF, 0)
MADCC_HANDLER(exec_madc_lo_cc_b32, 32, mullo_u32, CC_CF, 1)
MADCC_HANDLER(exec_madc_lo_cc_b64, 64, mullo_u64, CC_CF, 1)
MADCC_HANDLER(exec_madc_hi_cc_u32, 32, mulhi_u32, CC_CF, 1)
MADCC_HANDLER(exec_madc_hi_cc_s32, 32, mulhi_s32, CC_CF, 1)
MADCC_HANDLER(exec_madc_hi_cc_u64, 64, mulhi_u64, CC_CF, 1)
MADCC_HANDLER(exec_madc_hi_cc_s64, 64, mulhi_s64, CC_CF, 1)
#undef CC_CF

/* ==== selector ==== */

/* The handler of a six-way integer type set, or NULL for another type. */
static ExecFn by_type(Type t, ExecFn u16, ExecFn s16, ExecFn u32, ExecFn s32,
                      ExecFn u64, ExecFn s64) {
  switch (t) {
  case TY_U16: return u16;  case TY_S16: return s16;
  case TY_U32: return u32;  case TY_S32: return s32;
  case TY_U64: return u64;  case TY_S64: return s64;
  default: return NULL;
  }
}
/* Same, for forms whose bits do not depend on the sign. */
static ExecFn by_size(Type t, ExecFn b16, ExecFn b32, ExecFn b64) {
  return by_type(t, b16, b16, b32, b32, b64, b64);
}
static bool has(const Insn *in, const char *mod) { return insn_has_mod(in, mod); }
static bool is_signed(Type t) { return type_kind(t) == K_S; }

static Type wide_type(Type t) {
  switch (t) {
  case TY_U16: return TY_U32;  case TY_S16: return TY_S32;
  case TY_U32: return TY_U64;  case TY_S32: return TY_S64;
  default: return t;
  }
}

static ExecFn pick_dp(const Insn *in, ExecFn uu, ExecFn us, ExecFn su, ExecFn ss) {
  bool sa = is_signed((Type)in->types[0]), sb = is_signed((Type)in->types[1]);
  return sa ? (sb ? ss : su) : (sb ? us : uu);
}

static ExecFn pick_mul(const Insn *in, Type t) {
  if (has(in, ".hi"))
    return by_type(t, exec_mul_hi_u16, exec_mul_hi_s16, exec_mul_hi_u32, exec_mul_hi_s32,
                   exec_mul_hi_u64, exec_mul_hi_s64);
  return by_size(t, exec_mul_lo_b16, exec_mul_lo_b32, exec_mul_lo_b64);
}

static ExecFn pick_mad(const Insn *in, Type t) {
  if (has(in, ".hi"))
    return by_type(t, exec_mad_hi_u16, exec_mad_hi_s16, exec_mad_hi_u32, exec_mad_hi_s32,
                   exec_mad_hi_u64, exec_mad_hi_s64);
  return by_size(t, exec_mad_lo_b16, exec_mad_lo_b32, exec_mad_lo_b64);
}

/* mad.cc and madc: .lo is sign-blind, .hi is not. */
static ExecFn pick_madcc(const Insn *in, Type t, bool cin, bool cout) {
  bool hi = has(in, ".hi");
  if (!cin)
    return hi ? by_type(t, NULL, NULL, exec_mad_hi_cc_u32, exec_mad_hi_cc_s32,
                        exec_mad_hi_cc_u64, exec_mad_hi_cc_s64)
              : by_size(t, NULL, exec_mad_lo_cc_b32, exec_mad_lo_cc_b64);
  if (!cout)
    return hi ? by_type(t, NULL, NULL, exec_madc_hi_u32, exec_madc_hi_s32,
                        exec_madc_hi_u64, exec_madc_hi_s64)
              : by_size(t, NULL, exec_madc_lo_b32, exec_madc_lo_b64);
  return hi ? by_type(t, NULL, NULL, exec_madc_hi_cc_u32, exec_madc_hi_cc_s32,
                      exec_madc_hi_cc_u64, exec_madc_hi_cc_s64)
            : by_size(t, NULL, exec_madc_lo_cc_b32, exec_madc_lo_cc_b64);
}

static ExecFn pick_minmax(const Insn *in, Type t, bool is_max) {
  bool r = has(in, ".relu");
  if (t == TY_U16X2) return r ? NULL : is_max ? exec_max_u16x2 : exec_min_u16x2;
  if (t == TY_S16X2)
    return is_max ? (r ? exec_max_relu_s16x2 : exec_max_s16x2)
                  : (r ? exec_min_relu_s16x2 : exec_min_s16x2);
  if (r) return t != TY_S32 ? NULL : is_max ? exec_max_relu_s32 : exec_min_relu_s32;
  return is_max ? by_type(t, exec_max_u16, exec_max_s16, exec_max_u32, exec_max_s32,
                          exec_max_u64, exec_max_s64)
                : by_type(t, exec_min_u16, exec_min_s16, exec_min_u32, exec_min_s32,
                          exec_min_u64, exec_min_s64);
}

static ExecFn pick_bits(const Insn *in, Type t) {
  bool w64 = type_size(t) == 8, sa = has(in, ".shiftamt");
  switch (in->op) {
  case OP_POPC: return w64 ? exec_popc_b64 : exec_popc_b32;
  case OP_CLZ:  return w64 ? exec_clz_b64 : exec_clz_b32;
  case OP_BREV: return w64 ? exec_brev_b64 : exec_brev_b32;
  case OP_BFI:  return w64 ? exec_bfi_b64 : exec_bfi_b32;
  case OP_FNS:  return exec_fns_b32;
  case OP_BFIND:
    return sa ? by_type(t, NULL, NULL, exec_bfind_shiftamt_u32, exec_bfind_shiftamt_s32,
                        exec_bfind_shiftamt_u64, exec_bfind_shiftamt_s64)
              : by_type(t, NULL, NULL, exec_bfind_u32, exec_bfind_s32, exec_bfind_u64, exec_bfind_s64);
  case OP_BFE:
    return by_type(t, NULL, NULL, exec_bfe_u32, exec_bfe_s32, exec_bfe_u64, exec_bfe_s64);
  case OP_SZEXT:
    return has(in, ".clamp") ? by_type(t, NULL, NULL, exec_szext_clamp_u32, exec_szext_clamp_s32, NULL, NULL)
                             : by_type(t, NULL, NULL, exec_szext_wrap_u32, exec_szext_wrap_s32, NULL, NULL);
  case OP_BMSK: return has(in, ".clamp") ? exec_bmsk_clamp_b32 : exec_bmsk_wrap_b32;
  default: return NULL;
  }
}

static ExecFn pick_int(const Insn *in, Type t) {
  switch (in->op) {
  case OP_ADD_SAT: return t == TY_S32 ? exec_add_sat_s32 : NULL;
  case OP_SUB_SAT: return t == TY_S32 ? exec_sub_sat_s32 : NULL;
  case OP_ADD_INT: return by_size(t, exec_add_b16, exec_add_b32, exec_add_b64);
  case OP_SUB_INT: return by_size(t, exec_sub_b16, exec_sub_b32, exec_sub_b64);
  case OP_ADD_X2:  return (t == TY_U16X2 || t == TY_S16X2) ? exec_add_x16x2 : NULL;
  case OP_MUL_WIDE:
    return by_type(t, exec_mul_wide_u16, exec_mul_wide_s16, exec_mul_wide_u32, exec_mul_wide_s32, NULL, NULL);
  case OP_MAD_WIDE:
    return by_type(t, exec_mad_wide_u16, exec_mad_wide_s16, exec_mad_wide_u32, exec_mad_wide_s32, NULL, NULL);
  case OP_MUL_INT: return pick_mul(in, t);
  case OP_MAD_INT: return pick_mad(in, t);
  case OP_MAD_HI_SAT: return t == TY_S32 ? exec_mad_hi_sat_s32 : NULL;
  case OP_MUL24:
    return has(in, ".hi") ? by_type(t, NULL, NULL, exec_mul24_hi_u32, exec_mul24_hi_s32, NULL, NULL)
                          : by_type(t, NULL, NULL, exec_mul24_lo_u32, exec_mul24_lo_s32, NULL, NULL);
  case OP_MAD24:
    return has(in, ".hi") ? by_type(t, NULL, NULL, exec_mad24_hi_u32, exec_mad24_hi_s32, NULL, NULL)
                          : by_type(t, NULL, NULL, exec_mad24_lo_u32, exec_mad24_lo_s32, NULL, NULL);
  case OP_MAD24_HI_SAT: return t == TY_S32 ? exec_mad24_hi_sat_s32 : NULL;
  case OP_SAD:
    return by_type(t, exec_sad_u16, exec_sad_s16, exec_sad_u32, exec_sad_s32, exec_sad_u64, exec_sad_s64);
  case OP_DIV_INT:
    return by_type(t, exec_div_u16, exec_div_s16, exec_div_u32, exec_div_s32, exec_div_u64, exec_div_s64);
  case OP_REM:
    return by_type(t, exec_rem_u16, exec_rem_s16, exec_rem_u32, exec_rem_s32, exec_rem_u64, exec_rem_s64);
  case OP_ABS_INT: return by_type(t, NULL, exec_abs_s16, NULL, exec_abs_s32, NULL, exec_abs_s64);
  case OP_NEG_INT: return by_type(t, NULL, exec_neg_s16, NULL, exec_neg_s32, NULL, exec_neg_s64);
  case OP_MIN_INT: case OP_MIN_RELU: case OP_MIN_X2: return pick_minmax(in, t, false);
  case OP_MAX_INT: case OP_MAX_RELU: case OP_MAX_X2: return pick_minmax(in, t, true);
  case OP_DP4A:
    return pick_dp(in, exec_dp4a_u32_u32, exec_dp4a_u32_s32, exec_dp4a_s32_u32, exec_dp4a_s32_s32);
  case OP_DP2A:
    return has(in, ".hi")
      ? pick_dp(in, exec_dp2a_hi_u32_u32, exec_dp2a_hi_u32_s32, exec_dp2a_hi_s32_u32, exec_dp2a_hi_s32_s32)
      : pick_dp(in, exec_dp2a_lo_u32_u32, exec_dp2a_lo_u32_s32, exec_dp2a_lo_s32_u32, exec_dp2a_lo_s32_s32);
  case OP_ADD_CC: return by_size(t, NULL, exec_add_cc_b32, exec_add_cc_b64);
  case OP_SUB_CC: return by_size(t, NULL, exec_sub_cc_b32, exec_sub_cc_b64);
  case OP_ADDC:
    return has(in, ".cc") ? by_size(t, NULL, exec_addc_cc_b32, exec_addc_cc_b64)
                          : by_size(t, NULL, exec_addc_b32, exec_addc_b64);
  case OP_SUBC:
    return has(in, ".cc") ? by_size(t, NULL, exec_subc_cc_b32, exec_subc_cc_b64)
                          : by_size(t, NULL, exec_subc_b32, exec_subc_b64);
  case OP_MAD_CC: return pick_madcc(in, t, false, true);
  case OP_MADC:   return pick_madcc(in, t, true, has(in, ".cc"));
  default: return pick_bits(in, t);
  }
}

/* The type a source operand i is read as (its slot width, and the type an
 * immediate is converted to). */
static Type int_src_type(const Insn *in, int i) {
  Type t = (Type)in->types[0];
  switch (in->op) {
  case OP_MAD_WIDE: return i == 3 ? wide_type(t) : t;
  case OP_BFE:      return i == 1 ? t : TY_U32;
  case OP_BFI:      return i <= 2 ? t : TY_U32;
  case OP_FNS:      return i == 3 ? TY_S32 : TY_B32;
  case OP_SZEXT:    return i == 1 ? t : TY_U32;
  case OP_BMSK:     return TY_B32;
  case OP_DP4A: case OP_DP2A:
    if (i == 3) return (is_signed(t) || is_signed((Type)in->types[1])) ? TY_S32 : TY_U32;
    return (Type)in->types[i - 1];
  default: return t;
  }
}

/* PTX ISA 9.0 §9.7.1-2: picks the handler by opcode, type and modifiers
 * and lowers the operands into x->slot[] in operand order. */
bool exec_select_INT(Lower *L, const Insn *in, XInsn *x) {
  if (in->ntypes < 1) return false;
  ExecFn fn = pick_int(in, (Type)in->types[0]);
  if (!fn || in->nopds < 2 || in->nopds > XINSN_MAX_OPDS) return false;
  x->fn = fn;
  x->type = in->types[0];
  x->type2 = in->ntypes > 1 ? in->types[1] : 0;
  x->mods = lower_mods(in);
  x->slot[0] = lower_dst(L, &in->opds[0]);
  for (int i = 1; i < in->nopds; i++) x->slot[i] = lower_src(L, &in->opds[i], int_src_type(in, i));
  x->nslots = in->nopds;
  return true;
}
