/* mov.c: family MOV (PTX ISA 9.0 §9.7.9.10 mov, §9.7.9.11 mov pack/unpack,
 * §9.7.9.7 prmt).
 *
 * mov d, a copies a register, an immediate (a constant slot), a special
 * register (the sreg handler writes the destination directly) or the
 * address of a variable or function (lowering puts the address in a
 * constant slot: the variable's address in its own state space, or the
 * generic one for generic(var)). 16-bit values live zero-extended in the
 * 32-bit file, so a .b16/.u16/.s16/.f16 move keeps only the low half.
 *
 * Pack and unpack (mov.b32 d, {a,b}; mov.b64 {a,b}, d; mov.b128 ...) treat
 * both sides as a list of pieces (file, slot, bits) concatenated from the
 * least significant end: the first element of a brace list is the low part.
 * A .b128 register is two 64-bit pieces, low first. A sink `_` in an unpack
 * receives its piece in the scratch slot.
 *
 * mov.vN copies brace lists element by element, all sources first.
 *
 * cvta, cvta.to and isspacep sit in this family in opcodes.def but belong
 * to the address map: mem_select_addr (src/exec/mem.c) selects them. */
#include "program.h"

typedef struct Piece { uint8_t file, bits; uint32_t slot; } Piece;   /* file: 0 r32, 1 r64 */
typedef struct Pieces { int nsrc, ndst; Piece src[8], dst[8]; } Pieces;

HANDLER(exec_mov32) {
  const uint32_t *a = R32(w, x->slot[1]);
  uint32_t t[WARP_SIZE], keep = (uint32_t)x->imm;
  FOR_LANES(l) t[l] = a[l] & keep;
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

HANDLER(exec_mov64) {
  merge64(R64(w, x->slot[0]), R64(w, x->slot[1]), mask);
  return XS_NEXT;
}

HANDLER(exec_mov_pred) {
  uint32_t *d = &w->pred[x->slot[0]];
  *d = (*d & ~mask) | (w->pred[x->slot[1]] & mask);
  return XS_NEXT;
}

static uint64_t low_mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

static uint64_t piece_read(Warp *w, const Piece *p, int l) {
  uint64_t v = p->file ? R64(w, p->slot)[l] : R32(w, p->slot)[l];
  return v & low_mask(p->bits);
}

static void piece_write(Warp *w, const Piece *p, int l, uint64_t v) {
  v &= low_mask(p->bits);
  if (p->file) R64(w, p->slot)[l] = v;
  else R32(w, p->slot)[l] = (uint32_t)v;
}

/* Bits [at, at+bits) of the 128-bit value lo:hi. */
static uint64_t bits_get(uint64_t lo, uint64_t hi, int at, int bits) {
  uint64_t v = at >= 64 ? hi >> (at - 64) : (lo >> at) | (at ? hi << (64 - at) : 0);
  return v & low_mask(bits);
}

static void bits_put(uint64_t *lo, uint64_t *hi, int at, uint64_t v) {
  if (at >= 64) { *hi |= v << (at - 64); return; }
  *lo |= v << at;
  if (at) *hi |= v >> (64 - at);
}

HANDLER(exec_mov_pieces) {
  const Pieces *p = x->aux;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t lo = 0, hi = 0;
    int at = 0;
    for (int i = 0; i < p->nsrc; i++) { bits_put(&lo, &hi, at, piece_read(w, &p->src[i], l)); at += p->src[i].bits; }
    at = 0;
    for (int i = 0; i < p->ndst; i++) { piece_write(w, &p->dst[i], l, bits_get(lo, hi, at, p->dst[i].bits)); at += p->dst[i].bits; }
  }
  return XS_NEXT;
}

static Type bits_type(int bits) {
  return bits <= 8 ? TY_B8 : bits <= 16 ? TY_B16 : bits <= 32 ? TY_B32 : TY_B64;
}

/* The pieces of one operand of `bits` bits (a scalar or a brace element). */
static bool add_pieces(Lower *L, const Operand *o, int bits, bool dst, Piece *out, int *n) {
  if (*n + 2 > 8) return false;
  int parts = bits > 64 ? 2 : 1, pb = bits > 64 ? 64 : bits;
  if (o->kind == OPD_REG && o->sym->kind == SYM_REG && lower_reg_file(o->sym) == 2) return false;
  for (int k = 0; k < parts; k++) {
    Piece *p = &out[(*n)++];
    p->bits = (uint8_t)pb;
    if (o->kind == OPD_SINK) { p->file = pb > 32; p->slot = 0; continue; }
    if (o->kind == OPD_REG && o->sym->kind == SYM_REG) {
      p->file = (uint8_t)lower_reg_file(o->sym);
      p->slot = (dst ? lower_dst(L, o) : lower_src(L, o, (Type)o->sym->type)) + (uint32_t)k;
      continue;
    }
    if (dst) return false;
    if (parts == 2) return false;   /* 128-bit immediates: not in PTX */
    Type t = bits_type(pb);
    p->file = pb > 32;
    p->slot = lower_src(L, o, t);
  }
  return true;
}

static bool side_pieces(Lower *L, const Operand *o, int bits, bool dst, Piece *out, int *n) {
  if (o->kind != OPD_VEC) return add_pieces(L, o, bits, dst, out, n);
  if (o->n == 0 || bits % o->n) return false;
  for (int i = 0; i < o->n; i++)
    if (!add_pieces(L, &o->elems[i], bits / o->n, dst, out, n)) return false;
  return true;
}

static bool select_pieces(Lower *L, const Insn *in, XInsn *x, int bits) {
  if (in->nopds != 2) return false;
  Pieces *p = lower_aux(L, sizeof *p);
  if (!side_pieces(L, &in->opds[1], bits, false, p->src, &p->nsrc)) return false;
  if (!side_pieces(L, &in->opds[0], bits, true, p->dst, &p->ndst)) return false;
  x->aux = p;
  x->fn = exec_mov_pieces;
  return true;
}

/* mov.u32 %r, %tid.x: the special-register handler writes d directly. */
static bool select_mov_sreg(Lower *L, const Insn *in, XInsn *x, Type t) {
  const Operand *s = &in->opds[1];
  int id = sreg_id(s->sym->name);
  Type st = (Type)s->sym->type;
  bool same = st == TY_PRED ? t == TY_PRED : (type_size(st) == 8) == (type_size(t) == 8) && t != TY_PRED;
  if (id < 0 || !same) return false;
  x->slot[0] = lower_dst(L, &in->opds[0]);
  x->nslots = 1;
  x->sub = (uint8_t)id;
  x->imm = s->comp < 0 ? 0 : s->comp;
  x->type = (uint8_t)st;
  x->aux = s->sym;
  x->fn = exec_sreg_load;
  return true;
}

static bool select_mov_scalar(Lower *L, const Insn *in, XInsn *x, Type t) {
  const Operand *s = &in->opds[1];
  if (s->kind == OPD_REG && s->sym->kind == SYM_SREG && select_mov_sreg(L, in, x, t)) return true;
  x->slot[0] = lower_dst(L, &in->opds[0]);
  x->slot[1] = lower_src(L, s, t);
  x->nslots = 2;
  if (t == TY_PRED) { x->fn = exec_mov_pred; return true; }
  int size = type_size(t);
  if (size == 16) return false;
  if (size == 8) { x->fn = exec_mov64; return true; }
  x->imm = size == 4 ? 0xffffffffll : size == 2 ? 0xffff : 0xff;
  x->fn = exec_mov32;
  return true;
}

static bool select_mov_b(Lower *L, const Insn *in, XInsn *x) {
  Type t = (Type)in->types[0];
  if (in->nopds != 2) return false;
  bool vec = in->opds[0].kind == OPD_VEC || in->opds[1].kind == OPD_VEC;
  if (!vec && type_size(t) <= 8) return select_mov_scalar(L, in, x, t);
  return select_pieces(L, in, x, 8 * type_size(t));
}

/* mov.vN {d0, ...}, {a0, ...}: every source is read before any destination
 * is written, so {b, a} <- {a, b} swaps. slot[0..n) are the destinations,
 * slot[n..2n) the sources; x->sub = n, x->imm the bits kept (16-bit
 * values live zero-extended in the 32-bit file). */
HANDLER(exec_mov_vec) {
  int n = x->sub;
  if (type_size((Type)x->type) == 8) {
    uint64_t t[4][WARP_SIZE];
    for (int e = 0; e < n; e++) memcpy(t[e], R64(w, x->slot[n + e]), sizeof t[e]);
    for (int e = 0; e < n; e++) merge64(R64(w, x->slot[e]), t[e], mask);
    return XS_NEXT;
  }
  uint32_t t[4][WARP_SIZE], keep = (uint32_t)x->imm;
  for (int e = 0; e < n; e++) {
    const uint32_t *a = R32(w, x->slot[n + e]);
    FOR_LANES(l) t[e][l] = a[l] & keep;
  }
  for (int e = 0; e < n; e++) merge32(R32(w, x->slot[e]), t[e], mask);
  return XS_NEXT;
}

static bool select_mov_vec(Lower *L, const Insn *in, XInsn *x) {
  Type t = (Type)in->types[0];
  int n = in->vec;
  if (in->nopds != 2 || n < 2 || n > 4) return false;
  for (int k = 0; k < 2; k++)
    if (in->opds[k].kind != OPD_VEC || in->opds[k].n != n) return false;
  for (int e = 0; e < n; e++) {
    x->slot[e] = lower_dst(L, &in->opds[0].elems[e]);
    x->slot[n + e] = lower_src(L, &in->opds[1].elems[e], t);
  }
  x->nslots = (uint8_t)(2 * n);
  x->sub = (uint8_t)n;
  x->type = (uint8_t)t;
  x->imm = type_size(t) == 2 ? 0xffff : 0xffffffffll;
  x->fn = exec_mov_vec;
  return true;
}

/* prmt.b32{.mode} d, a, b, c (§9.7.9.7). The bytes of the 8-byte value
 * {b, a} are numbered 0..7 (a's low byte is 0).
 * Default mode: byte i of d is byte c[4i+2:4i]; bit 4i+3 set replicates that
 * byte's sign over all 8 bits (only the default mode does sign extension).
 * .f4e .b4e .rc8 .ecl .ecr .rc16: c[1:0] selects a row of the ISA's table,
 * which names the source byte of d.b0..d.b3 (prmt_modes below, d.b0 first);
 * the other bits of c are ignored. x->sub is 0 for the default mode, else
 * 1 + the mode's index in prmt_modes. */
static const char *const prmt_names[] = { ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16" };
static const uint8_t prmt_modes[6][4][4] = {
  /* f4e  */ { {0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6} },
  /* b4e  */ { {0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0} },
  /* rc8  */ { {0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3} },
  /* ecl  */ { {0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3} },
  /* ecr  */ { {0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3} },
  /* rc16 */ { {0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3} },
};

HANDLER(exec_prmt) {
  const uint32_t *a = R32(w, x->slot[1]), *b = R32(w, x->slot[2]), *c = R32(w, x->slot[3]);
  uint32_t t[WARP_SIZE];
  FOR_LANES(l) {
    uint64_t v = (uint64_t)b[l] << 32 | a[l];
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
      uint32_t sel = c[l] >> (4 * i) & 0xf;
      uint32_t byte = (uint32_t)(v >> (8 * (sel & 7))) & 0xff;
      if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    t[l] = r;
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

HANDLER(exec_prmt_mode) {
  const uint32_t *a = R32(w, x->slot[1]), *b = R32(w, x->slot[2]), *c = R32(w, x->slot[3]);
  const uint8_t (*tab)[4] = prmt_modes[x->sub - 1];
  uint32_t t[WARP_SIZE];
  FOR_LANES(l) {
    uint64_t v = (uint64_t)b[l] << 32 | a[l];
    const uint8_t *row = tab[c[l] & 3];
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) r |= (uint32_t)(v >> (8 * row[i]) & 0xff) << (8 * i);
    t[l] = r;
  }
  merge32(R32(w, x->slot[0]), t, mask);
  return XS_NEXT;
}

static bool select_prmt(Lower *L, const Insn *in, XInsn *x) {
  if (in->nopds != 4) return false;
  x->sub = 0;
  for (int i = 0; i < in->nmods; i++) {
    if (!strcmp(in->mods[i], ".b32")) continue;
    int k = 0;
    while (k < 6 && strcmp(in->mods[i], prmt_names[k])) k++;
    if (k == 6 || x->sub) return false;
    x->sub = (uint8_t)(k + 1);
  }
  x->slot[0] = lower_dst(L, &in->opds[0]);
  for (int i = 1; i < 4; i++) x->slot[i] = lower_src(L, &in->opds[i], TY_B32);
  x->nslots = 4;
  x->fn = x->sub ? exec_prmt_mode : exec_prmt;
  return true;
}

bool exec_select_MOV(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_MOV: return in->nopds == 2 && select_mov_scalar(L, in, x, (Type)in->types[0]);
  case OP_MOV_B: case OP_MOV_B128: return select_mov_b(L, in, x);
  case OP_MOV_V: case OP_MOV_V64: return select_mov_vec(L, in, x);
  case OP_PRMT: return select_prmt(L, in, x);
  case OP_CVTA: case OP_CVTA_TO: case OP_ISSPACEP: return mem_select_addr(L, in, x);
  case OP_MAPA: case OP_GETCTARANK: return cluster_select_map(L, in, x);
  default: return false;
  }
}
