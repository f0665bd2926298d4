/* test_cmp.c: the CMP family handlers (src/exec/cmp.c); expected values
 * computed by hand from the PTX ISA 9.0 semantics. */
#include "family_harness.h"
#include "../../src/exec/cmp.c"

#define F32_NAN 0x7fc00000u
#define F32_ONE 0x3f800000u
#define F32_TWO 0x40000000u
#define F32_SUB 0x00000001u      /* smallest subnormal */
#define F32_NSUB 0x80000001u

/* setp.<mods>.<type> p|q, a, b [, {!}c]: returns p | q << 1 of lane 0;
 * c is true when cval is 1, negated when cneg. */
static uint32_t setp(Opcode op, const char *type, const char *mods, uint64_t a, uint64_t b,
                     int cval, bool cneg) {
  Operand pair[2] = {OR_(0), OR_(1)};
  Operand o[4] = {{0}, OR_(2), OR_(3), cneg ? ONEG(4) : OR_(4)};
  o[0].kind = OPD_PAIR; o[0].n = 2; o[0].elems = pair;
  XInsn x;
  h_set(2, a); h_set(3, b);
  h_pred[0] = h_pred[1] = 0x5a5a5a5au;
  h_pred[4] = cval ? ~0u : 0;
  if (!h_select(exec_select_CMP, op, type, mods, o, cval < 0 ? 3 : 4, &x)) return 0xbad;
  x.fn(&h_warp, &x, 0xffffffffu);
  return (h_pred[0] & 1) | (h_pred[1] & 1) << 1;
}
#define P(name, op, type, mods, a, b, want) h_check(name, setp(op, type, mods, a, b, -1, false), want)

static void test_setp(void) {
  P("eq.s32", OP_SETP, "s32", ".eq", 5, 5, 1);
  P("lt.s32 neg", OP_SETP, "s32", ".lt", 0xffffffffu, 1, 1);
  P("lt.u32 big", OP_SETP, "u32", ".lt", 0xffffffffu, 1, 2);
  P("lo.u32", OP_SETP, "u32", ".lo", 1, 2, 1);
  P("hs.u64", OP_SETP, "u64", ".hs", 1ull << 63, 1, 1);
  P("gt.s64", OP_SETP, "s64", ".gt", 1ull << 63, 1, 2);
  P("lt.s16", OP_SETP, "s16", ".lt", 0x8000, 0x7fff, 1);
  P("lt.u16", OP_SETP, "u16", ".lt", 0x8000, 0x7fff, 2);
  P("ne.b32", OP_SETP, "b32", ".ne", 1, 2, 1);
  P("eq.f32 nan", OP_SETP_F, "f32", ".eq", F32_NAN, F32_NAN, 2);
  P("ne.f32 nan", OP_SETP_F, "f32", ".ne", F32_NAN, F32_ONE, 2);
  P("neu.f32 nan", OP_SETP_F, "f32", ".neu", F32_NAN, F32_ONE, 1);
  P("equ.f32 nan", OP_SETP_F, "f32", ".equ", F32_NAN, F32_ONE, 1);
  P("equ.f32 1,2", OP_SETP_F, "f32", ".equ", F32_ONE, F32_TWO, 2);
  P("ltu.f32 nan", OP_SETP_F, "f32", ".ltu", F32_ONE, F32_NAN, 1);
  P("lt.f32 nan", OP_SETP_F, "f32", ".lt", F32_ONE, F32_NAN, 2);
  P("geu.f32 1<2", OP_SETP_F, "f32", ".geu", F32_ONE, F32_TWO, 2);
  P("num.f32", OP_SETP_F, "f32", ".num", F32_ONE, F32_TWO, 1);
  P("num.f32 nan", OP_SETP_F, "f32", ".num", F32_ONE, F32_NAN, 2);
  P("nan.f32", OP_SETP_F, "f32", ".nan", F32_NAN, F32_ONE, 1);
  P("eq.f32 -0 0", OP_SETP_F, "f32", ".eq", 0x80000000u, 0, 1);
  P("gt.f32 sub", OP_SETP_F, "f32", ".gt", F32_SUB, 0, 1);
  P("gt.ftz.f32 sub", OP_SETP_F, "f32", ".gt .ftz", F32_SUB, 0, 2);
  P("eq.ftz.f32 -sub", OP_SETP_F, "f32", ".eq .ftz", F32_NSUB, 0, 1);
  P("lt.f64", OP_SETP_F, "f64", ".lt", 0xbff0000000000000ull, 0, 1);
  P("leu.f64 nan", OP_SETP_F, "f64", ".leu", 0x7ff8000000000000ull, 0, 1);
  P("lt.f16", OP_SETP_H, "f16", ".lt", 0xbc00, 0x3c00, 1);
  P("eq.f16 nan", OP_SETP_H, "f16", ".eq", 0x7e00, 0x7e00, 2);
  P("gt.f16 sub", OP_SETP_H, "f16", ".gt", 0x0001, 0, 1);
  P("gt.ftz.f16 sub", OP_SETP_H, "f16", ".gt .ftz", 0x0001, 0, 2);
  P("lt.bf16", OP_SETP_BF, "bf16", ".lt", 0xbf80, 0x3f80, 1);
  /* .f16x2: p from the low halves, q from the high halves */
  P("lt.f16x2", OP_SETP_H, "f16x2", ".lt", 0x3c00bc00u, 0xbc003c00u, 1);
  P("gtu.f16x2 nan hi", OP_SETP_H, "f16x2", ".gtu", 0x7e000000u, 0x3c003c00u, 2);
  P("eq.bf16x2", OP_SETP_BF, "bf16x2", ".eq", 0x3f803f80u, 0x3f803f80u, 3);
  /* combiners: p = t op c, q = !t op c */
  h_check("lt.and c=1", setp(OP_SETP_BOOL, "s32", ".lt .and", 1, 2, 1, false), 1);
  h_check("lt.and !c (c=1)", setp(OP_SETP_BOOL, "s32", ".lt .and", 1, 2, 1, true), 0);
  h_check("lt.or c=1", setp(OP_SETP_BOOL, "s32", ".lt .or", 3, 2, 1, false), 3);
  h_check("lt.xor c=1", setp(OP_SETP_BOOL, "s32", ".lt .xor", 1, 2, 1, false), 2);
  h_check("lt.xor !c (c=0)", setp(OP_SETP_BOOL, "s32", ".lt .xor", 1, 2, 0, true), 2);
  h_check("nan.or c=0", setp(OP_SETP_F_BOOL, "f32", ".nan .or", F32_NAN, 0, 0, false), 1);
}

static void test_set_sel(void) {
  Operand o[4] = {OR_(0), OR_(2), OR_(3), OR_(4)};
  XInsn x;
  h_set(2, F32_ONE); h_set(3, F32_TWO);
  h_select(exec_select_CMP, OP_SET_F, "f32 f32", ".lt", o, 3, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("set.lt.f32.f32", h_r32[0], F32_ONE);
  h_select(exec_select_CMP, OP_SET_F, "u32 f32", ".gt", o, 3, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("set.gt.u32.f32", h_r32[0], 0);
  h_select(exec_select_CMP, OP_SET_F, "s32 f32", ".lt", o, 3, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("set.lt.s32.f32", h_r32[0], 0xffffffffu);
  h_set(2, 0x3c007e00u); h_set(3, 0x3c000000u);
  h_select(exec_select_CMP, OP_SET_H2, "f16x2 f16x2", ".equ", o, 3, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("set.equ.f16x2.f16x2", h_r32[0], 0x3c003c00u);
  h_select(exec_select_CMP, OP_SET_H2, "u32 f16x2", ".eq", o, 3, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("set.eq.u32.f16x2", h_r32[0], 0xffff0000u);
  h_set(2, 1); h_set(3, 2);
  h_select(exec_select_CMP, OP_SET_H, "f16 s32", ".lt", o, 3, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("set.lt.f16.s32", h_r32[0], 0x3c00u);

  /* selp d, a, b, c (slot 1 = a, 2 = b, pred 3 = c) */
  Operand s[4] = {OR_(0), OR_(1), OR_(2), OR_(3)};
  h_set(1, 111); h_set(2, 222);
  h_pred[3] = 0x0000ffffu;
  h_select(exec_select_CMP, OP_SELP, "b32", "", s, 4, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("selp lane 0", h_r32[0], 111);
  h_check("selp lane 31", h_r32[31], 222);
  s[3] = ONEG(3);
  h_select(exec_select_CMP, OP_SELP, "u64", "", s, 4, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("selp !c u64", h_r64[0], 222);
  /* slct d, a, b, c */
  h_set(3, 0xffffffffu);
  h_select(exec_select_CMP, OP_SLCT, "b32 s32", "", s, 4, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("slct.s32 -1", h_r32[0], 222);
  h_set(3, 0x80000000u);   /* -0.0f */
  h_select(exec_select_CMP, OP_SLCT_F, "u64 f32", "", s, 4, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("slct.f32 -0", h_r64[0], 111);
  h_set(3, 0xffc00000u);   /* -NaN */
  h_select(exec_select_CMP, OP_SLCT_F, "b32 f32", "", s, 4, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("slct.f32 NaN", h_r32[0], 222);
  h_set(3, F32_NSUB);
  x.fn(&h_warp, &x, ~0u);
  h_check("slct.f32 -subnormal", h_r32[0], 222);
  h_select(exec_select_CMP, OP_SLCT_F, "b32 f32", ".ftz", s, 4, &x);
  x.fn(&h_warp, &x, ~0u);
  h_check("slct.ftz.f32 -subnormal", h_r32[0], 111);
}

int main(void) {
  test_setp();
  test_set_sel();
  return h_report();
}
