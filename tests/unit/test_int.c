/* test_int.c: the INT family handlers (src/exec/int.c) on edge cases;
 * expected values computed by hand from the PTX ISA 9.0 semantics. */
#include "family_harness.h"
#include "../../src/exec/int.c"

#define T(name, op, types, mods, dw, n, a, b, c, d, want) \
  h_check(name, h_run(exec_select_INT, op, types, mods, dw, n, a, b, c, d), want)

static void test_arith(void) {
  T("add.u32 wrap", OP_ADD_INT, "u32", "", 32, 2, 0xffffffffu, 2, 0, 0, 1);
  T("add.s16 wrap", OP_ADD_INT, "s16", "", 32, 2, 0x7fff, 1, 0, 0, 0x8000);
  T("add.u64", OP_ADD_INT, "u64", "", 64, 2, 0xffffffffffffffffull, 2, 0, 0, 1);
  T("add.sat.s32 max", OP_ADD_SAT, "s32", ".sat", 32, 2, 0x7fffffff, 1, 0, 0, 0x7fffffff);
  T("add.sat.s32 min", OP_ADD_SAT, "s32", ".sat", 32, 2, 0x80000000u, 0xffffffffu, 0, 0, 0x80000000u);
  T("sub.sat.s32 min", OP_SUB_SAT, "s32", ".sat", 32, 2, 0x80000000u, 1, 0, 0, 0x80000000u);
  T("sub.sat.s32 max", OP_SUB_SAT, "s32", ".sat", 32, 2, 0x7fffffff, 0xffffffffu, 0, 0, 0x7fffffff);
  T("add.u16x2", OP_ADD_X2, "u16x2", "", 32, 2, 0xffff0001u, 0x0001ffffu, 0, 0, 0x00000000u);
  T("sub.u16 wrap", OP_SUB_INT, "u16", "", 32, 2, 0, 1, 0, 0, 0xffff);
  T("mul.lo.s32", OP_MUL_INT, "s32", ".lo", 32, 2, 0xffffffffu, 3, 0, 0, 0xfffffffdu);
  T("mul.hi.u32 max", OP_MUL_INT, "u32", ".hi", 32, 2, 0xffffffffu, 0xffffffffu, 0, 0, 0xfffffffeu);
  T("mul.hi.s32 min*min", OP_MUL_INT, "s32", ".hi", 32, 2, 0x80000000u, 0x80000000u, 0, 0, 0x40000000u);
  T("mul.hi.s32 -1*1", OP_MUL_INT, "s32", ".hi", 32, 2, 0xffffffffu, 1, 0, 0, 0xffffffffu);
  T("mul.hi.u64 max", OP_MUL_INT, "u64", ".hi", 64, 2, ~0ull, ~0ull, 0, 0, 0xfffffffffffffffeull);
  T("mul.hi.s64 min*min", OP_MUL_INT, "s64", ".hi", 64, 2, 1ull << 63, 1ull << 63, 0, 0, 1ull << 62);
  T("mul.hi.s64 -1*max", OP_MUL_INT, "s64", ".hi", 64, 2, ~0ull, ~0ull >> 1, 0, 0, ~0ull);
  T("mul.hi.s16", OP_MUL_INT, "s16", ".hi", 32, 2, 0x8000, 0x8000, 0, 0, 0x4000);
  T("mul.hi.u16", OP_MUL_INT, "u16", ".hi", 32, 2, 0xffff, 0xffff, 0, 0, 0xfffe);
  T("mul.wide.s32", OP_MUL_WIDE, "s32", ".wide", 64, 2, 0xffffffffu, 2, 0, 0, 0xfffffffffffffffeull);
  T("mul.wide.u32", OP_MUL_WIDE, "u32", ".wide", 64, 2, 0xffffffffu, 0xffffffffu, 0, 0, 0xfffffffe00000001ull);
  T("mul.wide.s16", OP_MUL_WIDE, "s16", ".wide", 32, 2, 0xffff, 0x7fff, 0, 0, 0xffff8001u);
  T("mad.wide.u32", OP_MAD_WIDE, "u32", ".wide", 64, 3, 0xffffffffu, 0xffffffffu, 0xffffffffull, 0, 0xffffffff00000000ull);
  T("mad.wide.s32", OP_MAD_WIDE, "s32", ".wide", 64, 3, 0xffffffffu, 5, 10, 0, 5);
  T("mad.lo.s32", OP_MAD_INT, "s32", ".lo", 32, 3, 7, 6, 0xffffffffu, 0, 41);
  T("mad.hi.u32", OP_MAD_INT, "u32", ".hi", 32, 3, 0x80000000u, 4, 1, 0, 3);
  T("mad.hi.sat.s32", OP_MAD_HI_SAT, "s32", ".hi .sat", 32, 3, 0x7fffffff, 0x7fffffff, 0x7fffffff, 0, 0x7fffffff);
  T("mad.hi.sat.s32 low", OP_MAD_HI_SAT, "s32", ".hi .sat", 32, 3, 0x80000000u, 0x7fffffff, 0x80000000u, 0, 0x80000000u);
  T("mul24.lo.u32", OP_MUL24, "u32", ".lo", 32, 2, 0xff000003u, 0x00000005u, 0, 0, 15);
  T("mul24.hi.u32", OP_MUL24, "u32", ".hi", 32, 2, 0xffffff, 0xffffff, 0, 0, 0xfffffe00u);
  T("mul24.lo.s32", OP_MUL24, "s32", ".lo", 32, 2, 0x00ffffff, 2, 0, 0, 0xfffffffeu);
  T("mul24.hi.s32", OP_MUL24, "s32", ".hi", 32, 2, 0x00800000, 0x00800000, 0, 0, 0x40000000u);
  T("mad24.hi.sat.s32", OP_MAD24_HI_SAT, "s32", ".hi .sat", 32, 3, 0x00800000, 0x00800000, 0x7fffffff, 0, 0x7fffffff);
  T("sad.s32", OP_SAD, "s32", "", 32, 3, 0xfffffffeu, 3, 10, 0, 15);
  T("sad.u32", OP_SAD, "u32", "", 32, 3, 0xfffffffeu, 3, 10, 0, 0xfffffffbu + 10);
  T("sad.s16", OP_SAD, "s16", "", 32, 3, 0x8000, 0x7fff, 1, 0, 0);
}

static void test_div(void) {
  T("div.u32 /0", OP_DIV_INT, "u32", "", 32, 2, 7, 0, 0, 0, 0xffffffffu);
  T("div.s32 /0", OP_DIV_INT, "s32", "", 32, 2, 7, 0, 0, 0, 0xffffffffu);
  T("div.s32 min/-1", OP_DIV_INT, "s32", "", 32, 2, 0x80000000u, 0xffffffffu, 0, 0, 0x80000000u);
  T("rem.s32 min%-1", OP_REM, "s32", "", 32, 2, 0x80000000u, 0xffffffffu, 0, 0, 0);
  T("div.s32 trunc", OP_DIV_INT, "s32", "", 32, 2, (uint32_t)-7, 2, 0, 0, (uint32_t)-3);
  T("rem.s32 sign", OP_REM, "s32", "", 32, 2, (uint32_t)-7, 2, 0, 0, (uint32_t)-1);
  T("rem.u32 %0", OP_REM, "u32", "", 32, 2, 9, 0, 0, 0, 0xffffffffu);   /* as sm_90 (tests/gpu) */
  T("div.u64 /0", OP_DIV_INT, "u64", "", 64, 2, 9, 0, 0, 0, ~0ull);
  T("div.s64 min/-1", OP_DIV_INT, "s64", "", 64, 2, 1ull << 63, ~0ull, 0, 0, 1ull << 63);
  T("rem.s64 %0", OP_REM, "s64", "", 64, 2, 5, 0, 0, 0, ~0ull);   /* as sm_90 (tests/gpu) */
  T("div.s16 min/-1", OP_DIV_INT, "s16", "", 32, 2, 0x8000, 0xffff, 0, 0, 0x8000);
  T("div.u16 /0", OP_DIV_INT, "u16", "", 32, 2, 5, 0, 0, 0, 0xffff);
  T("div.s16", OP_DIV_INT, "s16", "", 32, 2, 0xfff9, 2, 0, 0, 0xfffd);
  T("rem.s16", OP_REM, "s16", "", 32, 2, 0xfff9, 2, 0, 0, 0xffff);
}

static void test_absminmax(void) {
  T("abs.s32 min", OP_ABS_INT, "s32", "", 32, 1, 0x80000000u, 0, 0, 0, 0x80000000u);
  T("abs.s16", OP_ABS_INT, "s16", "", 32, 1, 0xfffb, 0, 0, 0, 5);
  T("neg.s64", OP_NEG_INT, "s64", "", 64, 1, 1, 0, 0, 0, ~0ull);
  T("neg.s16", OP_NEG_INT, "s16", "", 32, 1, 1, 0, 0, 0, 0xffff);
  T("min.s32", OP_MIN_INT, "s32", "", 32, 2, 0xffffffffu, 1, 0, 0, 0xffffffffu);
  T("min.u32", OP_MIN_INT, "u32", "", 32, 2, 0xffffffffu, 1, 0, 0, 1);
  T("max.s16", OP_MAX_INT, "s16", "", 32, 2, 0x8000, 0x7fff, 0, 0, 0x7fff);
  T("max.u16", OP_MAX_INT, "u16", "", 32, 2, 0x8000, 0x7fff, 0, 0, 0x8000);
  T("max.s64", OP_MAX_INT, "s64", "", 64, 2, ~0ull, 0, 0, 0, 0);
  T("min.relu.s32", OP_MIN_RELU, "s32", ".relu", 32, 2, 0xfffffff0u, 5, 0, 0, 0);
  T("max.relu.s32", OP_MAX_RELU, "s32", ".relu", 32, 2, 0xfffffff0u, 0xfffffff1u, 0, 0, 0);
  T("min.s16x2", OP_MIN_X2, "s16x2", "", 32, 2, 0x8000ffffu, 0x00010002u, 0, 0, 0x8000ffffu);
  T("min.u16x2", OP_MIN_X2, "u16x2", "", 32, 2, 0x8000ffffu, 0x00010002u, 0, 0, 0x00010002u);
  T("max.relu.s16x2", OP_MAX_RELU, "s16x2", ".relu", 32, 2, 0x8000fffeu, 0x9000ffffu, 0, 0, 0);
  T("min.relu.s16x2", OP_MIN_RELU, "s16x2", ".relu", 32, 2, 0x00050003u, 0xfff00004u, 0, 0, 0x00000003u);
}

static void test_bits(void) {
  T("popc.b32", OP_POPC, "b32", "", 32, 1, 0xf0f0f0f1u, 0, 0, 0, 17);
  T("popc.b64", OP_POPC, "b64", "", 32, 1, ~0ull, 0, 0, 0, 64);
  T("clz.b32 0", OP_CLZ, "b32", "", 32, 1, 0, 0, 0, 0, 32);
  T("clz.b32 1", OP_CLZ, "b32", "", 32, 1, 1, 0, 0, 0, 31);
  T("clz.b64 0", OP_CLZ, "b64", "", 32, 1, 0, 0, 0, 0, 64);
  T("clz.b64", OP_CLZ, "b64", "", 32, 1, 0x100000000ull, 0, 0, 0, 31);
  T("bfind.u32 0", OP_BFIND, "u32", "", 32, 1, 0, 0, 0, 0, 0xffffffffu);
  T("bfind.u32", OP_BFIND, "u32", "", 32, 1, 0x00010000u, 0, 0, 0, 16);
  T("bfind.s32 -1", OP_BFIND, "s32", "", 32, 1, 0xffffffffu, 0, 0, 0, 0xffffffffu);
  T("bfind.s32 neg", OP_BFIND, "s32", "", 32, 1, 0xfffff000u, 0, 0, 0, 11);
  T("bfind.shiftamt.u32", OP_BFIND, "u32", ".shiftamt", 32, 1, 1, 0, 0, 0, 31);
  T("bfind.shiftamt.u32 0", OP_BFIND, "u32", ".shiftamt", 32, 1, 0, 0, 0, 0, 0xffffffffu);
  T("bfind.s64", OP_BFIND, "s64", "", 32, 1, 0x4000000000000000ull, 0, 0, 0, 62);
  T("brev.b32", OP_BREV, "b32", "", 32, 1, 0x00000001u, 0, 0, 0, 0x80000000u);
  T("brev.b64", OP_BREV, "b64", "", 64, 1, 0x0000000000000003ull, 0, 0, 0, 0xc000000000000000ull);
  T("fns 3,1", OP_FNS, "b32", "", 32, 3, 0xaaaaaaaau, 3, 1, 0, 3);
  T("fns 3,-1", OP_FNS, "b32", "", 32, 3, 0xaaaaaaaau, 3, 0xffffffffu, 0, 3);
  T("fns 2,1", OP_FNS, "b32", "", 32, 3, 0xaaaaaaaau, 2, 1, 0, 3);
  T("fns 2,-1", OP_FNS, "b32", "", 32, 3, 0xaaaaaaaau, 2, 0xffffffffu, 0, 1);
  T("fns 0 off, unset", OP_FNS, "b32", "", 32, 3, 0xaaaaaaaau, 2, 0, 0, 0xffffffffu);
  T("fns beyond", OP_FNS, "b32", "", 32, 3, 0x1u, 0, 2, 0, 0xffffffffu);
  T("bfe.u32", OP_BFE, "u32", "", 32, 3, 0x12345678u, 8, 8, 0, 0x56);
  T("bfe.s32 sign", OP_BFE, "s32", "", 32, 3, 0x0000f000u, 12, 4, 0, 0xffffffffu);
  T("bfe.u32 len0", OP_BFE, "u32", "", 32, 3, 0xffffffffu, 4, 0, 0, 0);
  T("bfe.s32 len0", OP_BFE, "s32", "", 32, 3, 0xffffffffu, 4, 0, 0, 0);
  T("bfe.u32 pos>=32", OP_BFE, "u32", "", 32, 3, 0xffffffffu, 40, 8, 0, 0);
  T("bfe.s32 pos>=32", OP_BFE, "s32", "", 32, 3, 0x80000000u, 40, 8, 0, 0xffffffffu);
  T("bfe.s32 past msb", OP_BFE, "s32", "", 32, 3, 0x80000000u, 28, 8, 0, 0xfffffff8u);
  T("bfe.u32 len255", OP_BFE, "u32", "", 32, 3, 0x80000000u, 28, 255, 0, 8);
  T("bfe.u32 pos 0x100 wraps to 0", OP_BFE, "u32", "", 32, 3, 0xabcdu, 0x100, 8, 0, 0xcd);
  T("bfe.s64", OP_BFE, "s64", "", 64, 3, 0x8000000000000000ull, 60, 10, 0, 0xfffffffffffffff8ull);
  T("bfe.u64", OP_BFE, "u64", "", 64, 3, 0xff00000000ull, 32, 8, 0, 0xff);
  T("bfi.b32", OP_BFI, "b32", "", 32, 4, 0xff, 0x12345678u, 8, 8, 0x1234ff78u);
  T("bfi.b32 len0", OP_BFI, "b32", "", 32, 4, 0xff, 0x12345678u, 8, 0, 0x12345678u);
  T("bfi.b32 pos>=32", OP_BFI, "b32", "", 32, 4, 0xff, 0x12345678u, 32, 8, 0x12345678u);
  T("bfi.b32 clipped", OP_BFI, "b32", "", 32, 4, 0xff, 0, 28, 8, 0xf0000000u);
  T("bfi.b64", OP_BFI, "b64", "", 64, 4, 0xf, 0, 60, 8, 0xf000000000000000ull);
  /* 64-bit forms: the whole 32-bit position and length (int.c, ptxas) */
  T("bfe.u64 pos 0x100", OP_BFE, "u64", "", 64, 3, 0xabcd, 0x100, 8, 0, 0);
  T("bfe.s64 pos 0x100", OP_BFE, "s64", "", 64, 3, 0x8000000000000000ull, 0x100, 8, 0, ~0ull);
  T("bfe.u64 len 0x104", OP_BFE, "u64", "", 64, 3, 0xabcd, 4, 0x104, 0, 0xabc);
  T("bfe.s64 pos+len wraps 32 bits", OP_BFE, "s64", "", 64, 3, 0x80000000000000f0ull, 0xffffffffu, 2, 0, ~0ull);
  T("bfi.b64 pos 0x100", OP_BFI, "b64", "", 64, 4, 0xff, 0x1234, 0x100, 8, 0x1234);
  T("bfi.b64 len 0x104", OP_BFI, "b64", "", 64, 4, 0xff, 0x1234, 4, 0x104, 0xff4);
  T("bfi.b32 pos 0x100 wraps to 0", OP_BFI, "b32", "", 32, 4, 0xff, 0x1234, 0x100, 8, 0x12ff);
  T("szext.clamp.s32", OP_SZEXT, "s32", ".clamp", 32, 2, 0x80, 8, 0, 0, 0xffffff80u);
  T("szext.clamp.u32", OP_SZEXT, "u32", ".clamp", 32, 2, 0x1ff, 8, 0, 0, 0xff);
  T("szext.wrap.u32 0", OP_SZEXT, "u32", ".wrap", 32, 2, 0xffffffffu, 0, 0, 0, 0);
  T("szext.clamp.s32 N>=32", OP_SZEXT, "s32", ".clamp", 32, 2, 0x12345678u, 40, 0, 0, 0x12345678u);
  T("szext.wrap.s32 N=40", OP_SZEXT, "s32", ".wrap", 32, 2, 0x80, 40, 0, 0, 0xffffff80u);
  T("bmsk.wrap 1,2", OP_BMSK, "b32", ".wrap", 32, 2, 1, 2, 0, 0, 6);
  T("bmsk.clamp a>=32", OP_BMSK, "b32", ".clamp", 32, 2, 32, 2, 0, 0, 0);
  T("bmsk.clamp b=32", OP_BMSK, "b32", ".clamp", 32, 2, 4, 32, 0, 0, 0xfffffff0u);
  T("bmsk.wrap b=32", OP_BMSK, "b32", ".wrap", 32, 2, 4, 32, 0, 0, 0);
  T("bmsk.clamp 28,8", OP_BMSK, "b32", ".clamp", 32, 2, 28, 8, 0, 0, 0xf0000000u);
  T("dp4a.u32.u32", OP_DP4A, "u32 u32", "", 32, 3, 0xffffffffu, 0x01010101u, 5, 0, 5 + 4 * 255);
  T("dp4a.s32.s32", OP_DP4A, "s32 s32", "", 32, 3, 0xffffffffu, 0x01010101u, 5, 0, 1);
  T("dp4a.s32.u32", OP_DP4A, "s32 u32", "", 32, 3, 0x000000ffu, 0x000000ffu, 0, 0, (uint32_t)-255);
  T("dp2a.lo.s32.s32", OP_DP2A, "s32 s32", ".lo", 32, 3, 0xffff0002u, 0x00000303u, 0, 0, 3);
  T("dp2a.hi.u32.u32", OP_DP2A, "u32 u32", ".hi", 32, 3, 0x00020001u, 0x04030000u, 1, 0, 1 + 3 + 8);
}

/* Multi-word arithmetic through CC, lane 0; and per-lane CC under a mask. */
static void test_carry(void) {
  /* 128-bit add: 0x00000000_ffffffff_ffffffff_ffffffff + 1 */
  T("add.cc", OP_ADD_CC, "u32", "", 32, 2, 0xffffffffu, 1, 0, 0, 0);
  T("addc.cc", OP_ADDC, "u32", ".cc", 32, 2, 0xffffffffu, 0, 0, 0, 0);
  T("addc.cc 2", OP_ADDC, "u32", ".cc", 32, 2, 0xffffffffu, 0, 0, 0, 0);
  T("addc", OP_ADDC, "u32", "", 32, 2, 0, 0, 0, 0, 1);
  /* the carry of addc without .cc is unchanged (still 1) */
  T("addc keeps CC", OP_ADDC, "u32", "", 32, 2, 5, 5, 0, 0, 11);
  /* a subtraction is a + ~b + 1 (int.c): CC.CF is its carry, NOT borrow */
  T("sub.cc", OP_SUB_CC, "u32", "", 32, 2, 0, 1, 0, 0, 0xffffffffu);
  h_check("sub.cc 0-1 borrows: CF 0", h_warp.cc & 1, 0);
  T("subc.cc", OP_SUBC, "u32", ".cc", 32, 2, 5, 0, 0, 0, 4);
  h_check("subc.cc 5-0-1 no borrow: CF 1", h_warp.cc & 1, 1);
  T("subc (no borrow)", OP_SUBC, "u32", "", 32, 2, 5, 0, 0, 0, 5);
  T("add.cc.u64", OP_ADD_CC, "u64", "", 64, 2, ~0ull, ~0ull, 0, 0, ~0ull - 1);
  T("addc.u64", OP_ADDC, "u64", "", 64, 2, 1, 1, 0, 0, 3);
  T("sub.cc.u64", OP_SUB_CC, "u64", "", 64, 2, 0, 0, 0, 0, 0);
  h_check("sub.cc.u64 0-0: CF 1", h_warp.cc & 1, 1);
  T("subc.u64", OP_SUBC, "u64", "", 64, 2, 0, 0, 0, 0, 0);
  /* borrow in with b = max: a - b - 1 borrows again */
  T("sub.cc 1-0", OP_SUB_CC, "u32", "", 32, 2, 0, 1, 0, 0, 0xffffffffu);
  T("subc.cc max", OP_SUBC, "u32", ".cc", 32, 2, 0, 0xffffffffu, 0, 0, 0);
  h_check("subc.cc max borrows: CF 0", h_warp.cc & 1, 0);
  /* mixed chains (issue 12): ptxas folds these to 0 and 4 */
  T("sub.cc 1-2", OP_SUB_CC, "u32", "", 32, 2, 1, 2, 0, 0, 0xffffffffu);
  T("addc after a borrow", OP_ADDC, "u32", "", 32, 2, 0, 0, 0, 0, 0);
  T("add.cc max+1", OP_ADD_CC, "u32", "", 32, 2, 0xffffffffu, 1, 0, 0, 0);
  T("subc after a carry", OP_SUBC, "u32", "", 32, 2, 5, 1, 0, 0, 4);
  T("add.cc.u64 max+1", OP_ADD_CC, "u64", "", 64, 2, ~0ull, 1, 0, 0, 0);
  T("subc.cc.u64 after a carry", OP_SUBC, "u64", ".cc", 64, 2, 5, 1, 0, 0, 4);
  T("addc.u64 after no borrow", OP_ADDC, "u64", "", 64, 2, 0, 0, 0, 0, 1);
  /* mad.lo.cc / madc.hi: (2^32-1)^2 + (2^32-1) in two words */
  T("mad.lo.cc", OP_MAD_CC, "u32", ".lo .cc", 32, 3, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0, 0);
  T("madc.hi", OP_MADC, "u32", ".hi", 32, 3, 0xffffffffu, 0xffffffffu, 0, 0, 0xffffffffu);
  T("mad.hi.cc.s32", OP_MAD_CC, "s32", ".hi .cc", 32, 3, 0xffffffffu, 1, 1, 0, 0);
  h_check("mad.hi.cc.s32 carry", h_warp.cc & 1, 1);
  T("madc.lo.cc.u64", OP_MADC, "u64", ".lo .cc", 64, 3, 2, 3, ~0ull, 0, 6);
  h_check("madc.lo.cc.u64 carry", h_warp.cc & 1, 1);

  /* per lane: lanes 0-15 carry, 16-31 do not; only lanes in mask write CC */
  Operand o[3] = {OR_(0), OR_(1), OR_(2)};
  XInsn x;
  for (int l = 0; l < WARP_SIZE; l++) { h_r32[32 + l] = l < 16 ? 0xffffffffu : 0; h_r32[64 + l] = 1; }
  h_warp.cc = 0;
  h_select(exec_select_INT, OP_ADD_CC, "u32", "", o, 3, &x);
  x.fn(&h_warp, &x, 0x00ff00ffu);
  h_check("CC per lane under mask", h_warp.cc, 0x000000ffu);
  h_check("masked lane untouched", h_r32[8], 0xdeadbeefu);
}

static void test_unsupported(void) {
  Operand o[3] = {OR_(0), OR_(1), OR_(2)};
  XInsn x;
  h_check("abs.u32 rejected", h_select(exec_select_INT, OP_ABS_INT, "u32", "", o, 2, &x), false);
  h_check("mul24.u64 rejected", h_select(exec_select_INT, OP_MUL24, "u64", ".lo", o, 3, &x), false);
}

int main(void) {
  test_arith();
  test_div();
  test_absminmax();
  test_bits();
  test_carry();
  test_unsupported();
  return h_report();
}
