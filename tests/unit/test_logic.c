/* test_logic.c: the LOGIC family handlers (src/exec/logic.c); expected
 * values computed by hand from the PTX ISA 9.0 semantics. */
#include "family_harness.h"
#include "../../src/exec/logic.c"

#define T(name, op, types, mods, dw, n, a, b, c, d, want) \
  h_check(name, h_run(exec_select_LOGIC, op, types, mods, dw, n, a, b, c, d), want)

/* lop3 with immediate LUT: d, a, b, c, imm */
static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, int lut) {
  Operand o[5] = {OR_(0), OR_(1), OR_(2), OR_(3), OIMM(lut)};
  XInsn x;
  h_set(1, a); h_set(2, b); h_set(3, c);
  if (!h_select(exec_select_LOGIC, OP_LOP3, "b32", "", o, 5, &x)) return 0xbad;
  x.fn(&h_warp, &x, 0xffffffffu);
  return h_r32[0];
}

static void test_lop3(void) {
  uint32_t a = 0xf0f0f0f0u, b = 0xccccccccu, c = 0xaaaaaaaau;
  for (int lut = 0; lut < 256; lut += 17)   /* F(ta, tb, tc) = immLut, per byte */
    h_check("lop3 on ta/tb/tc", lop3(a, b, c, lut) & 0xff, (uint32_t)lut);
  h_check("lop3 0x80 a&b&c", lop3(0x1234u, 0xff00u, 0x0ff0u, 0x80), 0x1234u & 0xff00u & 0x0ff0u);
  h_check("lop3 0xfe a|b|c", lop3(0x1u, 0x2u, 0x4u, 0xfe), 0x7u);
  h_check("lop3 0x96 a^b^c", lop3(0x5u, 0x3u, 0xfu, 0x96), 0x5u ^ 0x3u ^ 0xfu);
  h_check("lop3 0x1a (a&b|c)^a", lop3(0xf0u, 0x3cu, 0x0fu, 0x1a), ((0xf0u & 0x3cu) | 0x0fu) ^ 0xf0u);
  h_check("lop3 0x00", lop3(~0u, ~0u, ~0u, 0x00), 0);
  h_check("lop3 0xff", lop3(0, 0, 0, 0xff), ~0u);

  /* lop3.and.b32 _|p, a, b, c, 0x80, !q: lanes with a&b&c != 0 and !q */
  Operand o[6] = {{0}, OR_(1), OR_(2), OR_(3), OIMM(0x80), ONEG(5)};
  Operand pair[2] = {OSINK(), OR_(4)};
  o[0].kind = OPD_PAIR; o[0].n = 2; o[0].elems = pair;
  XInsn x;
  for (int l = 0; l < WARP_SIZE; l++) { h_r32[32 + l] = (uint32_t)l; h_r32[64 + l] = 1; h_r32[96 + l] = ~0u; }
  h_pred[5] = 0x0000ffffu;  /* q */
  h_pred[4] = 0;
  h_check("lop3.and select", h_select(exec_select_LOGIC, OP_LOP3_BOOL, "b32", ".and", o, 6, &x), true);
  x.fn(&h_warp, &x, 0xffffffffu);
  h_check("lop3.and p", h_pred[4], 0xaaaa0000u);
}

static void test_shift(void) {
  T("shl.b32 31", OP_SHL, "b32", "", 32, 2, 1, 31, 0, 0, 0x80000000u);
  T("shl.b32 32", OP_SHL, "b32", "", 32, 2, 1, 32, 0, 0, 0);
  T("shl.b32 huge", OP_SHL, "b32", "", 32, 2, 1, 0xffffffffu, 0, 0, 0);
  T("shl.b16 16", OP_SHL, "b16", "", 32, 2, 1, 16, 0, 0, 0);
  T("shl.b16 15", OP_SHL, "b16", "", 32, 2, 3, 15, 0, 0, 0x8000);
  T("shl.b64 63", OP_SHL, "b64", "", 64, 2, 1, 63, 0, 0, 1ull << 63);
  T("shl.b64 64", OP_SHL, "b64", "", 64, 2, 1, 64, 0, 0, 0);
  T("shr.u32 32", OP_SHR, "u32", "", 32, 2, 0x80000000u, 32, 0, 0, 0);
  T("shr.s32 32", OP_SHR, "s32", "", 32, 2, 0x80000000u, 32, 0, 0, 0xffffffffu);
  T("shr.s32 100 pos", OP_SHR, "s32", "", 32, 2, 0x7fffffffu, 100, 0, 0, 0);
  T("shr.s32 4", OP_SHR, "s32", "", 32, 2, 0x80000000u, 4, 0, 0, 0xf8000000u);
  T("shr.b32 4", OP_SHR, "b32", "", 32, 2, 0x80000000u, 4, 0, 0, 0x08000000u);
  T("shr.s16 20", OP_SHR, "s16", "", 32, 2, 0x8000, 20, 0, 0, 0xffff);
  T("shr.s16 1", OP_SHR, "s16", "", 32, 2, 0x8000, 1, 0, 0, 0xc000);
  T("shr.u16 1", OP_SHR, "u16", "", 32, 2, 0x8000, 1, 0, 0, 0x4000);
  T("shr.s64 64", OP_SHR, "s64", "", 64, 2, 1ull << 63, 64, 0, 0, ~0ull);
  T("shr.u64 63", OP_SHR, "u64", "", 64, 2, 1ull << 63, 63, 0, 0, 1);
  /* shf: [b, a] = b:a */
  T("shf.l.wrap 4", OP_SHF, "b32", ".l .wrap", 32, 3, 0xf0000000u, 0x00000001u, 4, 0, 0x0000001fu);
  T("shf.l.wrap 36", OP_SHF, "b32", ".l .wrap", 32, 3, 0xf0000000u, 0x00000001u, 36, 0, 0x0000001fu);
  T("shf.l.clamp 36", OP_SHF, "b32", ".l .clamp", 32, 3, 0xf0000000u, 0x00000001u, 36, 0, 0xf0000000u);
  T("shf.l.clamp 0", OP_SHF, "b32", ".l .clamp", 32, 3, 0xf0000000u, 0x00000001u, 0, 0, 1);
  T("shf.r.wrap 4", OP_SHF, "b32", ".r .wrap", 32, 3, 0x0000000fu, 0x00000001u, 4, 0, 0x10000000u);
  T("shf.r.clamp 32", OP_SHF, "b32", ".r .clamp", 32, 3, 0x0000000fu, 0x00000005u, 32, 0, 5);
  T("shf.r.wrap 32", OP_SHF, "b32", ".r .wrap", 32, 3, 0x0000000fu, 0x00000005u, 32, 0, 0xf);
  T("shf.r.clamp rot", OP_SHF, "b32", ".r .clamp", 32, 3, 0x12345678u, 0x12345678u, 8, 0, 0x78123456u);
}

static void test_bitwise(void) {
  T("and.b32", OP_AND, "b32", "", 32, 2, 0xff00ff00u, 0x0ff00ff0u, 0, 0, 0x0f000f00u);
  T("or.b64", OP_OR, "b64", "", 64, 2, 1ull << 63, 1, 0, 0, (1ull << 63) | 1);
  T("xor.b16", OP_XOR, "b16", "", 32, 2, 0xffff, 0x0001, 0, 0, 0xfffe);
  T("not.b16", OP_NOT, "b16", "", 32, 1, 0x00ff, 0, 0, 0, 0xff00);
  T("not.b32", OP_NOT, "b32", "", 32, 1, 0, 0, 0, 0, 0xffffffffu);
  T("not.b64", OP_NOT, "b64", "", 64, 1, 0, 0, 0, 0, ~0ull);
  T("cnot.b32 0", OP_CNOT, "b32", "", 32, 1, 0, 0, 0, 0, 1);
  T("cnot.b32 5", OP_CNOT, "b32", "", 32, 1, 5, 0, 0, 0, 0);
  T("cnot.b16 0x10000", OP_CNOT, "b16", "", 32, 1, 0, 0, 0, 0, 1);
  T("cnot.b64 high", OP_CNOT, "b64", "", 64, 1, 1ull << 40, 0, 0, 0, 0);
  /* predicates: whole masks, written under the mask */
  Operand o[3] = {OR_(0), OR_(1), OR_(2)};
  XInsn x;
  h_pred[0] = 0; h_pred[1] = 0xff00ff00u; h_pred[2] = 0x0ff00ff0u;
  h_select(exec_select_LOGIC, OP_AND, "pred", "", o, 3, &x);
  x.fn(&h_warp, &x, 0xffffffffu);
  h_check("and.pred", h_pred[0], 0x0f000f00u);
  h_select(exec_select_LOGIC, OP_XOR, "pred", "", o, 3, &x);
  x.fn(&h_warp, &x, 0x0000ffffu);
  h_check("xor.pred masked", h_pred[0], 0x0f00f0f0u);
  h_select(exec_select_LOGIC, OP_NOT, "pred", "", o, 2, &x);
  x.fn(&h_warp, &x, 0xffffffffu);
  h_check("not.pred", h_pred[0], 0x00ff00ffu);
  h_select(exec_select_LOGIC, OP_OR, "pred", "", o, 3, &x);
  x.fn(&h_warp, &x, 0xffffffffu);
  h_check("or.pred", h_pred[0], 0xfff0fff0u);
}

int main(void) {
  test_lop3();
  test_shift();
  test_bitwise();
  return h_report();
}
