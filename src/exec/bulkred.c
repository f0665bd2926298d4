/* bulkred.c: element-wise reductions of bulk copies (bulkred.h). */
#include "bulkred.h"
#include "fpconv.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

const char *bulkred_op_name(BulkRedOp op) {
  static const char *n[] = {".add", ".min", ".max", ".inc", ".dec", ".and", ".or", ".xor"};
  return n[op];
}

const char *bulkred_type_name(BulkRedType t) {
  static const char *n[] = {".u32", ".s32", ".u64", ".s64", ".f16", ".bf16", ".f32", ".f64"};
  return n[t];
}

unsigned bulkred_size(BulkRedType t) {
  static const unsigned char s[] = {4, 4, 8, 8, 2, 2, 4, 8};
  return s[t];
}

static double fsel(BulkRedOp op, double a, double b) {
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == b) return (signbit(a) != 0) == (op == BR_MIN) ? a : b;   /* -0 < +0 */
  return (op == BR_MIN) == (a < b) ? a : b;
}

static double fop(BulkRedOp op, double a, double b) { return op == BR_ADD ? a + b : fsel(op, a, b); }

static float ftz32(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }

static uint64_t sext(uint64_t v, unsigned size) {
  unsigned sh = 64 - 8 * size;
  return (uint64_t)((int64_t)(v << sh) >> sh);
}

static uint64_t apply1(BulkRedOp op, BulkRedType t, uint64_t r, uint64_t s) {
  double v;
  switch (t) {   /* a NaN result is the canonical NaN, as min/max/add.f16 and .f32 leave it */
  case BRT_F16:
    v = fop(op, fp_decode(r, 5, 10), fp_decode(s, 5, 10));
    return isnan(v) ? 0x7fff : f16_round_qnan(v);
  case BRT_BF16:
    v = fop(op, bf16_widen((uint16_t)r), bf16_widen((uint16_t)s));
    return isnan(v) ? 0x7fff : bf16_round_qnan(v);
  case BRT_F32: {
    float x = ftz32(bits_f32((uint32_t)r)), y = ftz32(bits_f32((uint32_t)s));
    float f = ftz32((float)fop(op, (double)x, (double)y));   /* double rounding is innocuous for f32 + f32 */
    return isnan(f) ? 0x7fffffff : f32_bits(f);
  }
  case BRT_F64: {
    double x, y;
    memcpy(&x, &r, 8);
    memcpy(&y, &s, 8);
    v = fop(op, x, y);
    if (isnan(v)) return 0x7fffffffffffffffull;
    memcpy(&r, &v, 8);
    return r;
  }
  default: break;
  }
  unsigned size = bulkred_size(t);
  bool sg = t == BRT_S32 || t == BRT_S64;
  int64_t a = (int64_t)sext(r, size), b = (int64_t)sext(s, size);
  switch (op) {
  case BR_ADD: return r + s;
  case BR_MIN: return sg ? (a < b ? r : s) : (r < s ? r : s);
  case BR_MAX: return sg ? (a > b ? r : s) : (r > s ? r : s);
  case BR_INC: return r >= s ? 0 : r + 1;
  case BR_DEC: return r == 0 || r > s ? s : r - 1;
  case BR_AND: return r & s;
  case BR_OR: return r | s;
  case BR_XOR: return r ^ s;
  }
  return r;
}

void bulkred_apply(BulkRedOp op, BulkRedType t, uint8_t *dst, const uint8_t *src, uint32_t n) {
  unsigned es = bulkred_size(t);
  uint64_t mask = es == 8 ? UINT64_MAX : (1ull << 8 * es) - 1;
  for (uint32_t o = 0; o + es <= n; o += es) {
    uint64_t s = 0;
    memcpy(&s, src + o, es);
    uint8_t *p = dst + o;
    if ((uintptr_t)p % es) {   /* not host-aligned: no host atomic */
      uint64_t r = 0;
      memcpy(&r, p, es);
      r = apply1(op, t, r, s) & mask;
      memcpy(p, &r, es);
      continue;
    }
    if (es == 2) {
      uint16_t old = __atomic_load_n((uint16_t *)p, __ATOMIC_RELAXED), nv;
      do nv = (uint16_t)apply1(op, t, old, s);
      while (!__atomic_compare_exchange_n((uint16_t *)p, &old, nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    } else if (es == 4) {
      uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), nv;
      do nv = (uint32_t)apply1(op, t, old, s);
      while (!__atomic_compare_exchange_n((uint32_t *)p, &old, nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    } else {
      uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED), nv;
      do nv = apply1(op, t, old, s);
      while (!__atomic_compare_exchange_n((uint64_t *)p, &old, nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
  }
}
