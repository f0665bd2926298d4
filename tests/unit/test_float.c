/* test_float.c: the FLOAT, HALF and CVT handlers called directly on a
 * hand-made warp (no lowering). The family files are included with
 * EXEC_UNIT_TEST so their static handlers are visible and their selectors
 * (which need the lowering) are left out.
 *
 * Expected values are worked out by hand from the encodings (comments give
 * the reasoning), never taken from the handlers' output. */
#pragma GCC diagnostic ignored "-Wunused-function"
#define EXEC_UNIT_TEST
#include "../../src/exec/float.c"
#include "../../src/exec/half.c"
#include "../../src/exec/cvt.c"

#include <stdio.h>

static int passed, failed;

static uint32_t r32[8 * WARP_SIZE];
static uint64_t r64[8 * WARP_SIZE];
static uint32_t preds[4];
static Warp W = { .r32 = r32, .r64 = r64, .pred = preds };

static void check(const char *what, uint64_t got, uint64_t want) {
  if (got == want) { passed++; return; }
  failed++;
  printf("FAIL %s: got 0x%llx, want 0x%llx\n", what, (unsigned long long)got, (unsigned long long)want);
}

/* Runs a 32-bit handler on lane 0 with sources a, b, c (slots 1..3). */
static uint32_t run32(ExecFn fn, uint32_t mods, uint32_t a, uint32_t b, uint32_t c) {
  XInsn x = { .fn = fn, .mods = mods, .slot = {0, 1, 2, 3} };
  R32(&W, 1)[0] = a; R32(&W, 2)[0] = b; R32(&W, 3)[0] = c;
  fn(&W, &x, 1);
  return R32(&W, 0)[0];
}
static uint64_t run64(ExecFn fn, uint32_t mods, uint64_t a, uint64_t b, uint64_t c) {
  XInsn x = { .fn = fn, .mods = mods, .slot = {0, 1, 2, 3} };
  R64(&W, 1)[0] = a; R64(&W, 2)[0] = b; R64(&W, 3)[0] = c;
  fn(&W, &x, 1);
  return R64(&W, 0)[0];
}
/* cvt: dt <- st, source and destination in the files their types name. */
static uint64_t runcvt(Type dt, Type st, uint32_t mods, uint64_t a) {
  XInsn x = { .fn = exec_cvt, .mods = mods, .type = (uint8_t)dt, .type2 = (uint8_t)st, .slot = {0, 1} };
  if (type_size(st) == 8) x.sub |= CV_SRC64;
  if (type_size(dt) == 8) x.sub |= CV_DST64;
  R32(&W, 1)[0] = (uint32_t)a; R64(&W, 1)[0] = a;
  exec_cvt(&W, &x, 1);
  return type_size(dt) == 8 ? R64(&W, 0)[0] : R32(&W, 0)[0];
}

#define F(v) f32_bits(v)
#define D(v) f64_bits(v)

static void test_f32_rounding(void) {
  /* 1 + 2^-24 is a tie between 1 and 1+2^-23: rn -> 1 (even), rp -> 1+2^-23. */
  uint32_t one = 0x3f800000, tiny = 0x33800000;   /* 2^-24 */
  check("add.rn tie", run32(exec_add_f32, XM_RN, one, tiny, 0), 0x3f800000);
  check("add.rz tie", run32(exec_add_f32, XM_RZ, one, tiny, 0), 0x3f800000);
  check("add.rm tie", run32(exec_add_f32, XM_RM, one, tiny, 0), 0x3f800000);
  check("add.rp tie", run32(exec_add_f32, XM_RP, one, tiny, 0), 0x3f800001);
  /* -1 - 2^-24: rm goes away from zero, rp toward. */
  check("sub.rm", run32(exec_sub_f32, XM_RM, 0xbf800000, tiny, 0), 0xbf800001);
  check("sub.rp", run32(exec_sub_f32, XM_RP, 0xbf800000, tiny, 0), 0xbf800000);
  /* 1/3: 0x3eaaaaab under rn and rp (the tail 0101... > half), 0x3eaaaaaa under rz, rm. */
  check("div.rn 1/3", run32(exec_div_f32, XM_RN, one, F(3.0f), 0), 0x3eaaaaab);
  check("div.rz 1/3", run32(exec_div_f32, XM_RZ, one, F(3.0f), 0), 0x3eaaaaaa);
  check("div.rm 1/3", run32(exec_div_f32, XM_RM, one, F(3.0f), 0), 0x3eaaaaaa);
  check("div.rp 1/3", run32(exec_div_f32, XM_RP, one, F(3.0f), 0), 0x3eaaaaab);
  check("rcp.rz 3", run32(exec_rcp_f32, XM_RZ, F(3.0f), 0, 0), 0x3eaaaaaa);
  /* sqrt(2) = 1.0110101000001001111001100110011... -> rn 0x3fb504f3, rz 0x3fb504f3, rp 0x3fb504f4 */
  check("sqrt.rn 2", run32(exec_sqrt_f32, XM_RN, F(2.0f), 0, 0), 0x3fb504f3);
  check("sqrt.rp 2", run32(exec_sqrt_f32, XM_RP, F(2.0f), 0, 0), 0x3fb504f4);
  /* overflow: max*2 -> rn inf, rz max */
  check("mul.rn ovf", run32(exec_mul_f32, XM_RN, 0x7f7fffff, F(2.0f), 0), 0x7f800000);
  check("mul.rz ovf", run32(exec_mul_f32, XM_RZ, 0x7f7fffff, F(2.0f), 0), 0x7f7fffff);
  check("mul.rm -ovf", run32(exec_mul_f32, XM_RM, 0xff7fffff, F(2.0f), 0), 0xff800000);
  check("mul.rp -ovf", run32(exec_mul_f32, XM_RP, 0xff7fffff, F(2.0f), 0), 0xff7fffff);
  /* fma single rounding: (1+2^-12)^2 - 1 = 2^-11 + 2^-24 exactly */
  uint32_t a = 0x3f800800;   /* 1 + 2^-12 */
  check("fma.rn exact", run32(exec_fma_f32, XM_RN, a, a, 0xbf800000), 0x3a000400);   /* 2^-11 * (1 + 2^-13) */
  /* the host mode is restored */
  check("mode restored", fegetround() == FE_TONEAREST, 1);
}

static void test_f32_special(void) {
  uint32_t sub = 0x00000001, nsub = 0x80000010;
  check("add subnormal", run32(exec_add_f32, XM_RN, sub, sub, 0), 0x00000002);
  check("add.ftz subnormal", run32(exec_add_f32, XM_RN | XM_FTZ, sub, sub, 0), 0);
  check("mul.ftz -sub", run32(exec_mul_f32, XM_RN | XM_FTZ, nsub, F(1.0f), 0), 0x80000000);
  /* 2^-126 * 0.5 = 2^-127 is subnormal: flushed with .ftz */
  check("mul.ftz result", run32(exec_mul_f32, XM_RN | XM_FTZ, 0x00800000, F(0.5f), 0), 0);
  check("mul result sub", run32(exec_mul_f32, XM_RN, 0x00800000, F(0.5f), 0), 0x00400000);
  check("add NaN canon", run32(exec_add_f32, XM_RN, 0xffc00001, F(1.0f), 0), F32_CNAN);
  check("inf-inf", run32(exec_sub_f32, XM_RN, 0x7f800000, 0x7f800000, 0), F32_CNAN);
  check("sat >1", run32(exec_add_f32, XM_RN | XM_SAT, F(1.0f), F(0.5f), 0), 0x3f800000);
  check("sat <0", run32(exec_add_f32, XM_RN | XM_SAT, F(-1.0f), F(0.5f), 0), 0);
  check("sat NaN", run32(exec_mul_f32, XM_RN | XM_SAT, 0x7f800000, 0, 0), 0);
  check("sat -0", run32(exec_mul_f32, XM_RN | XM_SAT, 0x80000000, F(1.0f), 0), 0);
  check("sat mid", run32(exec_add_f32, XM_RN | XM_SAT, F(0.25f), F(0.5f), 0), F(0.75f));
  check("min -0 +0", run32(exec_min_f32, 0, 0x00000000, 0x80000000, 0), 0x80000000);
  check("max -0 +0", run32(exec_max_f32, 0, 0x80000000, 0x00000000, 0), 0x00000000);
  check("min NaN,1", run32(exec_min_f32, 0, 0x7fc00000, F(1.0f), 0), F(1.0f));
  check("min.NaN", run32(exec_min_f32, XM_NAN, 0x7fc00000, F(1.0f), 0), F32_CNAN);
  check("max NaN,NaN", run32(exec_max_f32, 0, 0x7fc00000, 0xffc00000, 0), F32_CNAN);
  /* min.xorsign.abs(-2, 3): |min| = 2, sign = 1^0 -> -2 */
  check("min.xorsign", run32(exec_min_f32, XM_XORSIGN, F(-2.0f), F(3.0f), 0), F(-2.0f));
  check("max.xorsign", run32(exec_max_f32, XM_XORSIGN, F(-2.0f), F(-3.0f), 0), F(3.0f));
  check("abs", run32(exec_abs_f32, 0, F(-2.5f), 0, 0), F(2.5f));
  check("neg.ftz sub", run32(exec_neg_f32, XM_FTZ, 0x00000005, 0, 0), 0x80000000);
  check("copysign", run32(exec_copysign_f32, 0, F(-1.0f), F(3.0f), 0), F(-3.0f));
  check("div.approx big b", run32(exec_div_approx_f32, 0, F(1.0f), 0x7f000000, 0), 0);
  check("div.approx inf/big", run32(exec_div_approx_f32, 0, 0x7f800000, 0x7f000000, 0), F32_CNAN);
  check("sin 0", run32(exec_sin_f32, 0, 0x80000000, 0, 0), 0x80000000);
  check("cos -0", run32(exec_cos_f32, 0, 0x80000000, 0, 0), F(1.0f));
  check("lg2 8", run32(exec_lg2_f32, 0, F(8.0f), 0, 0), F(3.0f));
  check("lg2 0", run32(exec_lg2_f32, 0, 0, 0, 0), 0xff800000);
  check("ex2 -inf", run32(exec_ex2_f32, 0, 0xff800000, 0, 0), 0);
  check("rsqrt 4", run32(exec_rsqrt_f32, 0, F(4.0f), 0, 0), F(0.5f));
  check("rsqrt -0", run32(exec_rsqrt_f32, 0, 0x80000000, 0, 0), 0xff800000);
  /* testp */
  XInsn x = { .slot = {0, 1}, .sub = TP_SUBNORMAL };
  R32(&W, 1)[0] = 1; R32(&W, 1)[1] = F(1.0f); preds[0] = 0;
  exec_testp_f32(&W, &x, 3);
  check("testp.subnormal", preds[0], 1);
}

static void test_f64(void) {
  uint64_t one = D(1.0), tiny = D(0x1p-53);
  check("add.rn f64 tie", run64(exec_add_f64, XM_RN, one, tiny, 0), one);
  check("add.rp f64 tie", run64(exec_add_f64, XM_RP, one, tiny, 0), one + 1);
  check("div.rz f64", run64(exec_div_f64, XM_RZ, one, D(3.0), 0), 0x3fd5555555555555ull);
  check("div.rp f64", run64(exec_div_f64, XM_RP, one, D(3.0), 0), 0x3fd5555555555556ull);
  check("f64 NaN canon", run64(exec_mul_f64, XM_RN, 0xfff8000000000001ull, one, 0), F64_CNAN);
  check("abs.f64 NaN", run64(exec_abs_f64, 0, 0xfff8000000000001ull, 0, 0), 0xfff8000000000001ull);
  check("min.f64", run64(exec_min_f64, 0, D(-0.0), D(0.0), 0), D(-0.0));
  /* rcp.approx.ftz.f64: 1/2 = 0.5 exactly; upper word only */
  check("rcp.approx.ftz.f64 2", run64(exec_rcp_approx_ftz_f64, 0, D(2.0) | 0xffff, 0, 0), D(0.5));
  check("rcp.approx.ftz.f64 sub", run64(exec_rcp_approx_ftz_f64, 0, 0x8000000100000000ull, 0, 0),
        0xfff0000000000000ull);
  check("rcp.approx.ftz.f64 NaN", run64(exec_rcp_approx_ftz_f64, 0, 0x7ff8000000000000ull, 0, 0),
        0x7fffffff00000000ull);
  /* 1/3 = 0x3fd5555555555555: low word zeroed */
  check("rcp.approx.ftz.f64 3", run64(exec_rcp_approx_ftz_f64, 0, D(3.0), 0, 0), 0x3fd5555500000000ull);
  check("rsqrt.approx.ftz.f64 4", run64(exec_rsqrt_approx_ftz_f64, 0, D(4.0), 0, 0), D(0.5));
}

static void test_half(void) {
  /* f16: 1 + 2^-11 is the tie between 1 (0x3c00) and 1+2^-10 (0x3c01): rn -> 0x3c00;
     1+2^-10 + 2^-11 ties to 0x3c02 (even). */
  check("add.f16 tie even", run32(exec_add_f16, 0, 0x3c00, 0x1000, 0), 0x3c00);   /* 0x1000 = 2^-11 */
  check("add.f16 tie up", run32(exec_add_f16, 0, 0x3c01, 0x1000, 0), 0x3c02);
  check("add.f16x2", run32(exec_add_f16x2, 0, 0x40003c00, 0x3c003c00, 0), 0x42004000);   /* {1+1, 2+1} */
  /* subnormals: 2^-24 (0x0001) + 2^-24 = 0x0002; with .ftz both flush to 0 */
  check("add.f16 sub", run32(exec_add_f16, 0, 0x0001, 0x0001, 0), 0x0002);
  check("add.ftz.f16 sub", run32(exec_add_f16, XM_FTZ, 0x0001, 0x8001, 0), 0x0000);
  /* mul underflow: 2^-24 * 0.5 = 2^-25, a tie between 0 and 2^-24: -> 0 (even) */
  check("mul.f16 tie 0", run32(exec_mul_f16, 0, 0x0001, 0x3800, 0), 0x0000);
  check("mul.f16 3/4 sub", run32(exec_mul_f16, 0, 0x0003, 0x3800, 0), 0x0002);   /* 1.5 -> 2 */
  check("mul.f16 ovf", run32(exec_mul_f16, 0, 0x7bff, 0x4000, 0), 0x7c00);
  check("add.f16 NaN", run32(exec_add_f16, 0, 0x7e01, 0x3c00, 0), 0x7fff);
  check("add.sat.f16", run32(exec_add_f16, XM_SAT, 0x3c00, 0x3c00, 0), 0x3c00);
  check("fma.relu.f16", run32(exec_fma_f16, XM_RELU, 0xbc00, 0x3c00, 0x0000), 0x0000);
  /* fma: (1+2^-10)*(1+2^-10) - 1 = 2^-9 + 2^-20 -> f16 0x1801 (2^-9 * (1 + 2^-11)) tie?
     2^-9 + 2^-20: ulp at 2^-9 is 2^-19, so 2^-20 is a tie -> even 0x1800 */
  check("fma.f16 tie", run32(exec_fma_f16, 0, 0x3c01, 0x3c01, 0xbc00), 0x1800);
  /* bf16: 1 + 2^-8 ties to 1 (0x3f80); 1+2^-7+2^-8 ties up to 0x3f82 */
  check("add.bf16 tie", run32(exec_add_bf16, 0, 0x3f80, 0x3b80, 0), 0x3f80);
  check("add.bf16 tie up", run32(exec_add_bf16, 0, 0x3f81, 0x3b80, 0), 0x3f82);
  check("min.f16 -0", run32(exec_min_f16, 0, 0x0000, 0x8000, 0), 0x8000);
  check("max.NaN.bf16x2", run32(exec_max_bf16x2, XM_NAN, 0x7fc03f80, 0x40004000, 0), 0x7fff4000);
  check("neg.bf16x2", run32(exec_neg_bf16x2, 0, 0x3f80bf80, 0, 0), 0xbf803f80);
  check("abs.f16", run32(exec_abs_f16, 0, 0xc000, 0, 0), 0x4000);
  check("ex2.f16 3", run32(exec_ex2_f16, 0, 0x4200, 0, 0), 0x4800);   /* 2^3 = 8 */
}

static void test_cvt(void) {
  /* float -> int */
  check("cvt.rni.s32.f32 2.5", runcvt(TY_S32, TY_F32, XM_RNI, F(2.5f)), 2);
  check("cvt.rni.s32.f32 3.5", runcvt(TY_S32, TY_F32, XM_RNI, F(3.5f)), 4);
  check("cvt.rzi.s32.f32 -2.7", runcvt(TY_S32, TY_F32, XM_RZI, F(-2.7f)), (uint32_t)-2);
  check("cvt.rmi.s32.f32 -2.2", runcvt(TY_S32, TY_F32, XM_RMI, F(-2.2f)), (uint32_t)-3);
  check("cvt.rpi.s32.f32 2.2", runcvt(TY_S32, TY_F32, XM_RPI, F(2.2f)), 3);
  check("cvt.rzi.s32.f32 big", runcvt(TY_S32, TY_F32, XM_RZI, F(3e9f)), 0x7fffffff);
  check("cvt.rzi.s32.f32 -big", runcvt(TY_S32, TY_F32, XM_RZI, F(-3e9f)), 0x80000000);
  check("cvt.rzi.u32.f32 neg", runcvt(TY_U32, TY_F32, XM_RZI, F(-1.0f)), 0);
  check("cvt.rzi.u8.f32 300", runcvt(TY_U8, TY_F32, XM_RZI, F(300.0f)), 255);
  check("cvt.rzi.s32.f32 NaN", runcvt(TY_S32, TY_F32, XM_RZI, 0x7fc00000), 0);
  check("cvt.rzi.s32.f64 NaN", runcvt(TY_S32, TY_F64, XM_RZI, 0x7ff8000000000000ull), 0x80000000);
  check("cvt.rzi.s64.f32 NaN", runcvt(TY_S64, TY_F32, XM_RZI, 0x7fc00000), 0x8000000000000000ull);
  check("cvt.rzi.u64.f64 inf", runcvt(TY_U64, TY_F64, XM_RZI, D((double)INFINITY)), ~0ull);
  check("cvt.rzi.s64.f64 -inf", runcvt(TY_S64, TY_F64, XM_RZI, D(-(double)INFINITY)), 0x8000000000000000ull);
  check("cvt.rzi.ftz.s32.f32", runcvt(TY_S32, TY_F32, XM_RPI | XM_FTZ, 1), 0);
  check("cvt.rpi.s32.f32 sub", runcvt(TY_S32, TY_F32, XM_RPI, 1), 1);
  /* int -> int */
  check("cvt.s32.s8", runcvt(TY_S32, TY_S8, 0, 0xff), 0xffffffff);
  check("cvt.u32.u8", runcvt(TY_U32, TY_U8, 0, 0x1ff), 0xff);
  check("cvt.u8.u32", runcvt(TY_U8, TY_U32, 0, 0x1234), 0x34);
  check("cvt.sat.u8.s32 -5", runcvt(TY_U8, TY_S32, XM_SAT, (uint32_t)-5), 0);
  check("cvt.sat.s8.s32 300", runcvt(TY_S8, TY_S32, XM_SAT, 300), 0x7f);
  check("cvt.sat.s8.s32 -300", runcvt(TY_S8, TY_S32, XM_SAT, (uint32_t)-300), 0x80);
  check("cvt.sat.s32.u32", runcvt(TY_S32, TY_U32, XM_SAT, 0x80000000), 0x7fffffff);
  check("cvt.sat.u32.s64", runcvt(TY_U32, TY_S64, XM_SAT, (uint64_t)-1), 0);
  check("cvt.s64.s32", runcvt(TY_S64, TY_S32, 0, 0x80000000), 0xffffffff80000000ull);
  check("cvt.u64.s32", runcvt(TY_U64, TY_S32, 0, 0x80000000), 0xffffffff80000000ull);
  /* int -> float: 2^24+1 is a tie between 2^24 and 2^24+2 */
  check("cvt.rn.f32.s32", runcvt(TY_F32, TY_S32, XM_RN, 16777217), 0x4b800000);
  check("cvt.rp.f32.s32", runcvt(TY_F32, TY_S32, XM_RP, 16777217), 0x4b800001);
  check("cvt.rm.f32.s32 neg", runcvt(TY_F32, TY_S32, XM_RM, (uint32_t)-16777217), 0xcb800001);
  check("cvt.rz.f32.u64 max", runcvt(TY_F32, TY_U64, XM_RZ, ~0ull), 0x5f7fffff);
  check("cvt.rn.f32.u64 max", runcvt(TY_F32, TY_U64, XM_RN, ~0ull), 0x5f800000);
  /* 2^53+1 -> f64: rn ties to 2^53, rp 2^53+2 */
  check("cvt.rn.f64.s64", runcvt(TY_F64, TY_S64, XM_RN, (1ull << 53) + 1), D(0x1p53));
  check("cvt.rp.f64.s64", runcvt(TY_F64, TY_S64, XM_RP, (1ull << 53) + 1), D(0x1p53) + 1);
  check("cvt.rn.f16.s32 big", runcvt(TY_F16, TY_S32, XM_RN, 70000), 0x7c00);
  check("cvt.rz.f16.s32 big", runcvt(TY_F16, TY_S32, XM_RZ, 70000), 0x7bff);
  /* float -> float */
  check("cvt.rn.f16.f32 tie", runcvt(TY_F16, TY_F32, XM_RN, F(1.0f + 0x1p-11f)), 0x3c00);
  check("cvt.rp.f16.f32", runcvt(TY_F16, TY_F32, XM_RP, F(1.0f + 0x1p-20f)), 0x3c01);
  check("cvt.rn.f16.f32 sub", runcvt(TY_F16, TY_F32, XM_RN, F(0x1p-24f)), 0x0001);
  check("cvt.rn.f16.f32 tiny", runcvt(TY_F16, TY_F32, XM_RN, F(0x1p-26f)), 0x0000);
  check("cvt.rp.f16.f32 tiny", runcvt(TY_F16, TY_F32, XM_RP, F(0x1p-26f)), 0x0001);
  check("cvt.f32.f16 sub", runcvt(TY_F32, TY_F16, 0, 0x0001), F(0x1p-24f));
  check("cvt.f32.f16 NaN", runcvt(TY_F32, TY_F16, 0, 0x7e00), F32_CNAN);
  check("cvt.rn.f32.f64", runcvt(TY_F32, TY_F64, XM_RN, D(1.0 + 0x1p-24)), 0x3f800000);
  check("cvt.rp.f32.f64", runcvt(TY_F32, TY_F64, XM_RP, D(1.0 + 0x1p-30)), 0x3f800001);
  check("cvt.rm.f32.f64 -", runcvt(TY_F32, TY_F64, XM_RM, D(-1.0 - 0x1p-30)), 0xbf800001);
  check("cvt.rn.ftz.f32.f64", runcvt(TY_F32, TY_F64, XM_RN | XM_FTZ, D(0x1p-130)), 0);
  check("cvt.f64.f32", runcvt(TY_F64, TY_F32, 0, F(0.1f)), D((double)0.1f));
  check("cvt.rni.f32.f32", runcvt(TY_F32, TY_F32, XM_RNI, F(2.5f)), F(2.0f));
  check("cvt.rmi.f64.f64", runcvt(TY_F64, TY_F64, XM_RMI, D(-0.5)), D(-1.0));
  check("cvt.sat.f32.f32", runcvt(TY_F32, TY_F32, XM_SAT, F(1.5f)), F(1.0f));
  check("cvt.sat.f32.f32 NaN", runcvt(TY_F32, TY_F32, XM_SAT, 0x7fc00000), 0);
  check("cvt.rn.bf16.f32", runcvt(TY_BF16, TY_F32, XM_RN, 0x3f808000), 0x3f80);   /* tie -> even */
  check("cvt.rn.bf16.f32 up", runcvt(TY_BF16, TY_F32, XM_RN, 0x3f818000), 0x3f82);
  check("cvt.f32.bf16", runcvt(TY_F32, TY_BF16, 0, 0xbfc0), F(-1.5f));
  /* x2 packing: a -> upper half */
  XInsn x = { .type = TY_F16X2, .mods = XM_RN, .slot = {0, 1, 2} };
  R32(&W, 1)[0] = F(1.0f); R32(&W, 2)[0] = F(2.0f);
  exec_cvt_x2(&W, &x, 1);
  check("cvt.rn.f16x2.f32", R32(&W, 0)[0], 0x3c004000);
  x = (XInsn){ .type = TY_BF16, .mods = XM_RN | XM_RELU, .slot = {0, 1}, .imm = 1 };
  R32(&W, 1)[0] = F(-3.0f);
  exec_cvt_narrow(&W, &x, 1);
  check("cvt.rn.relu.bf16.f32", R32(&W, 0)[0], 0);
  R32(&W, 1)[0] = 0x7f800000; x.mods = XM_RN;
  exec_cvt_narrow(&W, &x, 1);
  check("cvt.rn.satfinite.bf16.f32 inf", R32(&W, 0)[0], 0x7f7f);
  x = (XInsn){ .mods = 0, .slot = {0, 1}, .imm = 2 };
  R32(&W, 1)[0] = 0x3f801000;   /* 1 + 2^-11: rna tie -> away */
  exec_cvt_tf32(&W, &x, 1);
  check("cvt.rna.tf32.f32", R32(&W, 0)[0], 0x3f802000);
  /* cvt.pack.sat.s16.s32 a=40000 b=-5 -> 0x7fff | 0xfffb */
  x = (XInsn){ .slot = {0, 1, 2, 3}, .imm = 16, .type2 = 1 };
  R32(&W, 1)[0] = 40000; R32(&W, 2)[0] = (uint32_t)-5;
  exec_cvt_pack(&W, &x, 1);
  check("cvt.pack.sat.s16.s32", R32(&W, 0)[0], 0x7ffffffb);
  x = (XInsn){ .slot = {0, 1, 2, 3}, .imm = 8, .type2 = 0 };
  R32(&W, 1)[0] = 300; R32(&W, 2)[0] = (uint32_t)-1; R32(&W, 3)[0] = 0xabcd;
  exec_cvt_pack(&W, &x, 1);
  check("cvt.pack.sat.u8.s32.b32", R32(&W, 0)[0], 0xabcdff00);
}

static void test_mask(void) {
  XInsn x = { .mods = XM_RN, .slot = {0, 1, 2} };
  FOR_LANES(l) { R32(&W, 0)[l] = 7; R32(&W, 1)[l] = F(1.0f); R32(&W, 2)[l] = F((float)l); }
  exec_add_f32(&W, &x, 0x5);
  check("mask lane0", R32(&W, 0)[0], F(1.0f));
  check("mask lane1", R32(&W, 0)[1], 7);
  check("mask lane2", R32(&W, 0)[2], F(3.0f));
}

int main(void) {
  test_f32_rounding();
  test_f32_special();
  test_f64();
  test_half();
  test_cvt();
  test_mask();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
