/* test_floatfmt.c: ptxvm_float_encode / ptxvm_float_decode (include/ptxvm.h,
 * PTX ISA 9.0 §5.2.5): the encodings below follow from each format's
 * definition (sign, exponent and fraction widths, bias; e4m3's top
 * exponent holding normal values up to 448), rounding to nearest even,
 * the overflow rules of cvt.rn and cvt.rn.satfinite, and every value
 * encoding back to its own bits. Public API only. */
#include <math.h>

#include "ptxvm.h"
#include "check.h"

#define ENC(f, x, sat) ptxvm_float_encode(PTXVM_FLOAT_##f, (x), (sat))
#define DEC(f, b) ptxvm_float_decode(PTXVM_FLOAT_##f, (b))

static void test_f16(void) {
  CHECK(ENC(F16, 1.0, 0) == 0x3c00);
  CHECK(ENC(F16, -2.0, 0) == 0xc000);
  CHECK(ENC(F16, 65504.0, 0) == 0x7bff);          /* the largest finite value */
  CHECK(ENC(F16, 65519.0, 0) == 0x7bff);
  CHECK(ENC(F16, 65520.0, 0) == 0x7c00);          /* the tie above it: to even, infinity */
  CHECK(ENC(F16, 65520.0, 1) == 0x7bff);          /* satfinite */
  CHECK(ENC(F16, -1e6, 1) == 0xfbff);
  CHECK(ENC(F16, HUGE_VAL, 0) == 0x7c00);
  CHECK(ENC(F16, -HUGE_VAL, 1) == 0xfbff);
  CHECK(ENC(F16, ldexp(1, -24), 0) == 0x0001);    /* the smallest subnormal */
  CHECK(ENC(F16, ldexp(1, -25), 0) == 0x0000);    /* half of it: a tie, to even (zero) */
  CHECK(ENC(F16, ldexp(3, -26), 0) == 0x0001);
  CHECK(ENC(F16, -0.0, 0) == 0x8000);
  CHECK(ENC(F16, nan(""), 0) == 0x7fff);
  CHECK(ENC(F16, 1 + ldexp(1, -11), 0) == 0x3c00);   /* a tie between 1 and 1 + 2^-10 */
  CHECK(ENC(F16, 1 + ldexp(3, -11), 0) == 0x3c02);   /* one between 1 + 2^-10 and 1 + 2^-9 */
  CHECK(DEC(F16, 0x3c00) == 1.0);
  CHECK(DEC(F16, 0x0001) == ldexp(1, -24));
  CHECK(DEC(F16, 0x7bff) == 65504.0);
  CHECK(DEC(F16, 0xfc00) == -HUGE_VAL);
  CHECK(isnan(DEC(F16, 0xfe00)) && signbit(DEC(F16, 0xfe00)));
  CHECK(isnan(DEC(F16, 0x7c01)) && !signbit(DEC(F16, 0x7c01)));
}

static void test_bf16(void) {
  CHECK(ENC(BF16, 1.0, 0) == 0x3f80);
  CHECK(ENC(BF16, 1 + ldexp(1, -8), 0) == 0x3f80);   /* a tie: to even */
  CHECK(ENC(BF16, 1 + ldexp(3, -8), 0) == 0x3f82);
  CHECK(ENC(BF16, 1e39, 0) == 0x7f80);
  CHECK(ENC(BF16, 1e39, 1) == 0x7f7f);
  CHECK(ENC(BF16, nan(""), 0) == 0x7fff);
  CHECK(DEC(BF16, 0x7f80) == HUGE_VAL);
  CHECK(DEC(BF16, 0x4049) == 3.140625);
}

static void test_f8(void) {
  CHECK(ENC(E4M3, 448.0, 0) == 0x7e);             /* S.1111.110: the largest finite value */
  CHECK(ENC(E4M3, 464.0, 0) == 0x7e);             /* the tie above it: to even (448) */
  CHECK(ENC(E4M3, 480.0, 0) == 0x7f);             /* past it: NaN, e4m3 has no infinity */
  CHECK(ENC(E4M3, 480.0, 1) == 0x7e);
  CHECK(ENC(E4M3, -1000.0, 1) == 0xfe);
  CHECK(ENC(E4M3, HUGE_VAL, 0) == 0x7f);
  CHECK(ENC(E4M3, HUGE_VAL, 1) == 0x7e);
  CHECK(ENC(E4M3, ldexp(1, -9), 0) == 0x01);      /* the smallest subnormal */
  CHECK(ENC(E4M3, 17.0, 0) == 0x58);              /* a tie between 16 and 18: 16 */
  CHECK(ENC(E4M3, nan(""), 0) == 0x7f);
  CHECK(DEC(E4M3, 0x7e) == 448.0);
  CHECK(DEC(E4M3, 0x01) == ldexp(1, -9));
  CHECK(isnan(DEC(E4M3, 0xff)) && signbit(DEC(E4M3, 0xff)));
  CHECK(ENC(E5M2, 57344.0, 0) == 0x7b);           /* the largest finite value */
  CHECK(ENC(E5M2, 61440.0, 0) == 0x7c);           /* the tie above it: to even, infinity */
  CHECK(ENC(E5M2, 61440.0, 1) == 0x7b);
  CHECK(ENC(E5M2, 1.25, 0) == 0x3d);
  CHECK(DEC(E5M2, 0x7c) == HUGE_VAL);
  CHECK(DEC(E5M2, 0x01) == ldexp(1, -16));
}

/* Every value encodes to its own bits; a NaN to the format's NaN. */
static void test_round_trip(void) {
  static const struct { ptxvm_float_format f; unsigned n, nan; } fmts[] = {
    {PTXVM_FLOAT_F16, 65536, 0x7fff}, {PTXVM_FLOAT_BF16, 65536, 0x7fff},
    {PTXVM_FLOAT_E4M3, 256, 0x7f}, {PTXVM_FLOAT_E5M2, 256, 0x7f},
  };
  for (unsigned k = 0; k < 4; k++) {
    unsigned bad = 0;
    for (unsigned b = 0; b < fmts[k].n; b++) {
      double v = ptxvm_float_decode(fmts[k].f, b);
      uint32_t back = ptxvm_float_encode(fmts[k].f, v, 0);
      bad += isnan(v) ? back != fmts[k].nan : back != b;
    }
    CHECK(bad == 0);
  }
}

int main(void) {
  test_f16();
  test_bf16();
  test_f8();
  test_round_trip();
  CHECK(ptxvm_float_encode((ptxvm_float_format)9, 1.0, 0) == 0);
  CHECK(isnan(ptxvm_float_decode((ptxvm_float_format)9, 0)));
  return unit_report();
}
