/* logic.c: semantics of the LOGIC family (PTX ISA 9.0, §9.7.8 logic and
 * shift): and or xor not cnot lop3 shf shl shr.
 *
 * Bit-size handlers follow the ALU pattern of int.c (compute 32 lanes, merge
 * under the mask). 16-bit values live zero-extended in the 32-bit file, so
 * 16-bit results are cut to their low half. The .pred forms of and, or,
 * xor, not work on whole lane masks: one word operation for the warp.
 *
 * Shift amounts at or beyond the width are clamped to the width (§9.7.8.8-9):
 * shl and shr.u give 0, shr.s fills with the sign bit. shf clamps to 32 or
 * wraps modulo 32 as its mode says (§9.7.8.7). */
#include "alu.h"




/* ==== and, or, xor, not, cnot (§9.7.8.1-5) ==== */
ALU2(exec_and_b32, 32, 32, 32, a[l] & b[l])
ALU2(exec_and_b64, 64, 64, 64, a[l] & b[l])
ALU2(exec_or_b32, 32, 32, 32, a[l] | b[l])
ALU2(exec_or_b64, 64, 64, 64, a[l] | b[l])
ALU2(exec_xor_b32, 32, 32, 32, a[l] ^ b[l])
ALU2(exec_xor_b64, 64, 64, 64, a[l] ^ b[l])
ALU1(exec_not_b16, 32, 32, ~a[l] & 0xffff)
ALU1(exec_not_b32, 32, 32, ~a[l])
ALU1(exec_not_b64, 64, 64, ~a[l])
ALU1(exec_cnot_b16, 32, 32, (a[l] & 0xffff) == 0)
ALU1(exec_cnot_b32, 32, 32, a[l] == 0)
ALU1(exec_cnot_b64, 64, 64, a[l] == 0)

/* and/or/xor.b16: the inputs are zero-extended, so the b32 handlers keep the
 * high half zero; only not.b16 and cnot.b16 need their own. */

ALU_HEAD(exec_and_pred) {
  merge_pred(w, x->slot[0], w->pred[x->slot[1]] & w->pred[x->slot[2]], mask);
  return XS_NEXT;
}
ALU_HEAD(exec_or_pred) {
  merge_pred(w, x->slot[0], w->pred[x->slot[1]] | w->pred[x->slot[2]], mask);
  return XS_NEXT;
}
ALU_HEAD(exec_xor_pred) {
  merge_pred(w, x->slot[0], w->pred[x->slot[1]] ^ w->pred[x->slot[2]], mask);
  return XS_NEXT;
}
ALU_HEAD(exec_not_pred) {
  merge_pred(w, x->slot[0], ~w->pred[x->slot[1]], mask);
  return XS_NEXT;
}

/* ==== lop3 (§9.7.8.6) ====
 * Bit i of immLut is F(a, b, c) for a = i>>2 & 1, b = i>>1 & 1, c = i & 1
 * (ta = 0xF0, tb = 0xCC, tc = 0xAA): the result is the OR of the minterms
 * whose LUT bit is set. */
static inline uint32_t lop3_eval(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < 8; i++)
    if (lut >> i & 1) r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
  return r;
}
ALU3(exec_lop3_b32, 32, 32, 32, 32, lop3_eval(a[l], b[l], c[l], (uint32_t)x->imm))

/* lop3.BoolOp: also p = (d != 0) BoolOp {!}q; slot[4] = p, slot[5] = q,
 * x->sub = 1 when q is negated. */
static XStatus lop3_bool(Warp *w, const XInsn *x, uint32_t mask, bool is_and) {
  const uint32_t *a = R32(w, x->slot[1]), *b = R32(w, x->slot[2]), *c = R32(w, x->slot[3]);
  uint32_t t[WARP_SIZE], nz = 0;
  FOR_LANES(l) {
    t[l] = lop3_eval(a[l], b[l], c[l], (uint32_t)x->imm);
    nz |= (uint32_t)(t[l] != 0) << l;
  }
  uint32_t q = w->pred[x->slot[5]] ^ (x->sub ? UINT32_MAX : 0);
  merge32(R32(w, x->slot[0]), t, mask);
  merge_pred(w, x->slot[4], is_and ? nz & q : nz | q, mask);
  return XS_NEXT;
}
ALU_HEAD(exec_lop3_and_b32) { return lop3_bool(w, x, mask, true); }
ALU_HEAD(exec_lop3_or_b32) { return lop3_bool(w, x, mask, false); }

/* ==== shf (§9.7.8.7): shift the 64-bit [b, a] by n ==== */
static inline uint32_t shf_n(uint32_t c, bool clamp) { return clamp ? (c < 32 ? c : 32) : c & 31; }
static inline uint64_t cat64(uint32_t hi, uint32_t lo) { return (uint64_t)hi << 32 | lo; }
ALU3(exec_shf_l_clamp_b32, 32, 32, 32, 32, (cat64(b[l], a[l]) << shf_n(c[l], true)) >> 32)
ALU3(exec_shf_l_wrap_b32, 32, 32, 32, 32, (cat64(b[l], a[l]) << shf_n(c[l], false)) >> 32)
ALU3(exec_shf_r_clamp_b32, 32, 32, 32, 32, cat64(b[l], a[l]) >> shf_n(c[l], true))
ALU3(exec_shf_r_wrap_b32, 32, 32, 32, 32, cat64(b[l], a[l]) >> shf_n(c[l], false))

/* ==== shl, shr (§9.7.8.8-9); b is always .u32 ==== */
static inline int32_t sx16(uint32_t v) { return (int32_t)((v & 0xffffu) ^ 0x8000u) - 0x8000; }
static inline uint32_t sar32(int32_t v, uint32_t n) { return (uint32_t)(v >> (n < 31 ? n : 31)); }
static inline uint64_t sar64(int64_t v, uint32_t n) { return (uint64_t)(n >= 63 ? (v < 0 ? -1 : 0) : v >> n); }
ALU2(exec_shl_b16, 32, 32, 32, b[l] >= 16 ? 0 : (a[l] << b[l]) & 0xffff)
/* .b32: without a branch per lane, so that it vectorises (a shift by 32 or
 * more gives 0, the mask's work) */
ALU2(exec_shl_b32, 32, 32, 32, (a[l] << (b[l] & 31)) & -(uint32_t)(b[l] < 32))
ALU2(exec_shl_b64, 64, 64, 32, b[l] >= 64 ? 0 : a[l] << b[l])
ALU2(exec_shr_u16, 32, 32, 32, b[l] >= 16 ? 0 : (a[l] & 0xffff) >> b[l])
ALU2(exec_shr_u32, 32, 32, 32, (a[l] >> (b[l] & 31)) & -(uint32_t)(b[l] < 32))
ALU2(exec_shr_u64, 64, 64, 32, b[l] >= 64 ? 0 : a[l] >> b[l])
ALU2(exec_shr_s16, 32, 32, 32, sar32(sx16(a[l]), b[l]) & 0xffff)
ALU2(exec_shr_s32, 32, 32, 32, sar32((int32_t)a[l], b[l]))
ALU2(exec_shr_s64, 64, 64, 32, sar64((int64_t)a[l], b[l]))

/* ==== selector ==== */

static ExecFn by_size(Type t, ExecFn p, ExecFn b16, ExecFn b32, ExecFn b64) {
  if (t == TY_PRED) return p;
  switch (type_size(t)) {
  case 2: return b16;
  case 4: return b32;
  case 8: return b64;
  default: return NULL;
  }
}

static ExecFn pick_shr(Type t) {
  bool sgn = type_kind(t) == K_S;
  switch (type_size(t)) {
  case 2: return sgn ? exec_shr_s16 : exec_shr_u16;
  case 4: return sgn ? exec_shr_s32 : exec_shr_u32;
  case 8: return sgn ? exec_shr_s64 : exec_shr_u64;
  default: return NULL;
  }
}

static ExecFn pick_shf(const Insn *in) {
  bool l = insn_has_mod(in, ".l"), clamp = insn_has_mod(in, ".clamp");
  if (l) return clamp ? exec_shf_l_clamp_b32 : exec_shf_l_wrap_b32;
  return clamp ? exec_shf_r_clamp_b32 : exec_shf_r_wrap_b32;
}

static ExecFn pick_logic(const Insn *in, Type t) {
  switch (in->op) {
  case OP_AND:  return by_size(t, exec_and_pred, exec_and_b32, exec_and_b32, exec_and_b64);
  case OP_OR:   return by_size(t, exec_or_pred, exec_or_b32, exec_or_b32, exec_or_b64);
  case OP_XOR:  return by_size(t, exec_xor_pred, exec_xor_b32, exec_xor_b32, exec_xor_b64);
  case OP_NOT:  return by_size(t, exec_not_pred, exec_not_b16, exec_not_b32, exec_not_b64);
  case OP_CNOT: return by_size(t, NULL, exec_cnot_b16, exec_cnot_b32, exec_cnot_b64);
  case OP_LOP3: return exec_lop3_b32;
  case OP_LOP3_BOOL: return insn_has_mod(in, ".and") ? exec_lop3_and_b32 : exec_lop3_or_b32;
  case OP_SHF:  return pick_shf(in);
  case OP_SHL:  return by_size(t, NULL, exec_shl_b16, exec_shl_b32, exec_shl_b64);
  case OP_SHR:  return pick_shr(t);
  default: return NULL;
  }
}

static uint32_t dst_slot(Lower *L, const Operand *o) {
  return o->kind == OPD_SINK ? NOSLOT : lower_dst(L, o);
}

/* lop3 operands: d, a, b, c, immLut; the .BoolOp form d|p, ..., {!}q. */
static bool lower_lop3(Lower *L, const Insn *in, XInsn *x) {
  const Operand *o = in->opds;
  if (in->nopds < 5 || o[4].kind != OPD_IMM) return false;
  x->imm = o[4].ival & 0xff;
  for (int i = 1; i <= 3; i++) x->slot[i] = lower_src(L, &o[i], TY_B32);
  if (in->op == OP_LOP3) {
    x->slot[0] = lower_dst(L, &o[0]);
    x->nslots = 4;
    return true;
  }
  if (in->nopds < 6 || o[0].kind != OPD_PAIR) return false;
  x->slot[0] = lower_dst(L, &o[0].elems[0]);     /* a sink gets a scratch slot */
  x->slot[4] = dst_slot(L, &o[0].elems[1]);
  x->slot[5] = lower_src(L, &o[5], TY_PRED);
  x->sub = (o[5].flags & OPF_NEG) != 0;
  x->nslots = 6;
  return true;
}

/* PTX ISA 9.0 §9.7.8: picks the handler by opcode, type and modifiers and
 * lowers the operands into x->slot[] in operand order. */
bool exec_select_LOGIC(Lower *L, const Insn *in, XInsn *x) {
  if (in->ntypes < 1 || in->nopds < 2) return false;
  Type t = (Type)in->types[0];
  ExecFn fn = pick_logic(in, t);
  if (!fn) return false;
  x->fn = fn;
  x->type = (uint8_t)t;
  x->mods = lower_mods(in);
  if (in->op == OP_LOP3 || in->op == OP_LOP3_BOOL) return lower_lop3(L, in, x);
  x->slot[0] = lower_dst(L, &in->opds[0]);
  for (int i = 1; i < in->nopds; i++) {
    bool amount = (in->op == OP_SHL || in->op == OP_SHR) ? i == 2 : (in->op == OP_SHF && i == 3);
    x->slot[i] = lower_src(L, &in->opds[i], amount ? TY_U32 : t);
  }
  x->nslots = in->nopds;
  return true;
}
