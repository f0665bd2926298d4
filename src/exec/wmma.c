/* wmma.c: the warp-level matrix instructions of the WMMA API (PTX ISA 9.0
 * §9.7.14.4-5): wmma.load.{a,b,c}, wmma.store.d and wmma.mma, executed over
 * the whole warp at once (.sync.aligned: all 32 lanes together, checked by
 * mma_converged as mma.c's instructions are).
 *
 * Forms executed (shape: A/B element types, C/D types):
 *   .m16n16k16 .m32n8k16 .m8n32k16: f16 (C, D each .f16 or .f32), bf16 (f32),
 *                                   s8/u8 (s32, .satfinite optional)
 *   .m16n16k8: tf32 (f32);   .m8n8k4: f64 (f64, .rn optional)
 *   .m8n8k32: s4/u4 (s32, .satfinite optional);  .m8n8k128: b1 (s32,
 *             .xor or .and with .popc)
 * with .row/.col layouts for each operand (the sub-byte A .row and B .col
 * only, as the ISA defines them), a stride operand, and .global, .shared
 * (.shared::cta) or generic addresses. Refused at lowering by name:
 * .satfinite on floating-point forms and rounding modifiers but f64's .rn.
 * Sub-byte elements: s4/u4 two to a byte, the lower-indexed element in the
 * lower nibble; b1 eight to a byte, lower k in the lower bit, handled as
 * bytes (EK_B1, K/8 of them; a b1 stride counts bits and must be a whole
 * number of bytes).
 *
 * Memory. Element (i, j) of an R x C matrix (A: M x K, B: K x N, C/D: M x N)
 * of element size s lies at p + s * (i * ld + j) for .row and at
 * p + s * (j * ld + i) for .col (s4/u4: at that index's nibble); ld is the stride operand in elements, by
 * default the row length (.row: C) or column length (.col: R) of the tile.
 * p must be 32-byte aligned (256 bits, CUDA's load_matrix_sync contract) and
 * every lane must give the same p and stride (ptxvm faults otherwise; the
 * ISA makes a difference undefined).
 *
 * Fragment layout. The ISA says the mapping of matrix elements into a
 * fragment's registers is unspecified, and states only the register counts
 * (those below). ptxvm's layout, which programs must not depend on: with the
 * E = R * C elements of the matrix in row-major order (index i * C + j,
 * whatever the memory layout) and n = E / 32, lane l holds elements
 * l * n .. l * n + n - 1, element q of the lane (register q / epr, bits
 * [(q % epr) * w, ...) with epr elements of w bits a register) being element
 * l * n + q % n. A register count larger than n / epr (f16 A and B: always
 * 8 registers) holds the lane's elements again: wmma.load writes every copy,
 * wmma.mma reads the first. The .row/.col of wmma.mma do not change the
 * fragment (the ISA requires them to equal the loads'); they are accepted.
 *
 * Arithmetic: mma.c's model (mma_dot): exact products accumulated in k order
 * with one f32 rounding per addition (f64: fma chain; integers: exact with
 * wrap or .satfinite clamp; b1: C plus the popc of a AND/XOR b); an f16 D
 * is rounded once from that f32. The default stride and the 32-byte
 * alignment are awaiting a GPU check (tests/gpu/README.md). */
#include "mma.h"

enum { WA, WB, WC };                   /* fragment kinds; D is a C fragment */

typedef struct WFrag {
  uint8_t ek, nreg, rows, cols;
} WFrag;

typedef struct WmmaMem {               /* wmma.load / wmma.store */
  WFrag f;
  bool col;                            /* .col layout */
  bool base64;
  uint32_t base, stride;               /* address register, stride slot (NOSLOT: default) */
  uint32_t slot[8];
} WmmaMem;

typedef struct WmmaMma {
  WFrag f[4];                          /* D, A, B, C */
  uint8_t k;
  uint8_t flags;                       /* mma_dot's MD_* */
  uint32_t slot[4][8];
} WmmaMma;

/* Bytes accessed for one element (s4/u4: the byte holding its nibble). */
static int ek_size(int ek) { return ek_bits(ek) < 8 ? 1 : ek_bits(ek) / 8; }
static bool int8(int ek) { return ek == EK_S8 || ek == EK_U8; }
static bool int4(int ek) { return ek == EK_S4 || ek == EK_U4; }

/* The fragment of kind `which` of shape (m, n, k) for element kind ek. */
static WFrag frag_of(int which, int m, int n, int k, int ek) {
  WFrag f = {(uint8_t)ek, 0, (uint8_t)(which == WB ? k : m), (uint8_t)(which == WA ? k : n)};
  int per_lane = f.rows * f.cols / WARP_SIZE;
  f.nreg = (uint8_t)((ek == EK_F16 && which != WC) ? 8 : per_lane / ek_epr(ek));
  return f;
}

/* Row-major matrix index of element q of lane l (the header's layout). */
static int frag_index(const WFrag *f, int l, int q) {
  int n = f->rows * f->cols / WARP_SIZE;
  return l * n + q % n;
}

static uint64_t frag_get(Warp *w, const WFrag *f, const uint32_t *slot, int l, int q) {
  int epr = ek_epr(f->ek), bits = ek_bits(f->ek);
  if (f->ek == EK_F64) return R64(w, slot[q])[l];
  uint64_t emask = (1ull << bits) - 1;
  return R32(w, slot[q / epr])[l] >> (bits * (q % epr)) & emask;
}

/* Packs the matrix mat (row-major raw elements) into the fragment's registers. */
static void frag_put(Warp *w, const WFrag *f, const uint32_t *slot, const uint64_t *mat) {
  int epr = ek_epr(f->ek), bits = ek_bits(f->ek);
  FOR_LANES(l) for (int r = 0; r < f->nreg; r++) {
    if (slot[r] == NOSLOT) continue;
    uint64_t v = 0;
    for (int j = 0; j < epr; j++) v |= mat[frag_index(f, l, r * epr + j)] << (bits * j);
    if (f->ek == EK_F64) R64(w, slot[r])[l] = v;
    else R32(w, slot[r])[l] = (uint32_t)v;
  }
}

/* Unpacks the fragment (its first copy) into mat. */
static void frag_take(Warp *w, const WFrag *f, const uint32_t *slot, uint64_t *mat) {
  int n = f->rows * f->cols / WARP_SIZE;
  FOR_LANES(l) for (int q = 0; q < n; q++) mat[frag_index(f, l, q)] = frag_get(w, f, slot, l, q);
}

/* ---- wmma.load, wmma.store ---- */

/* Lane 0's base address and stride, checked to be every lane's and aligned. */
static bool mem_base(Warp *w, const XInsn *x, const WmmaMem *o, const char *name, uint64_t *p,
                     uint64_t *ld) {
  Space sp = (Space)x->space;
  *p = lane_address(w, sp, x->imm, o->base, o->base64, 0);
  *ld = o->stride == NOSLOT ? (o->col ? o->f.rows : o->f.cols) : R32(w, o->stride)[0];
  if (o->f.ek == EK_B1 && o->stride != NOSLOT) {   /* b1: the stride counts bits */
    if (*ld % 8)
      return exec_fault(w, x, -1, "%s: a .b1 stride of %llu bits is not a whole number of bytes",
                        name, (unsigned long long)*ld), false;
    *ld /= 8;
  }
  uint64_t ld0 = o->stride == NOSLOT ? *ld : R32(w, o->stride)[0];
  FOR_LANES(l) {
    uint64_t pl = lane_address(w, sp, x->imm, o->base, o->base64, l);
    uint64_t sl = o->stride == NOSLOT ? ld0 : R32(w, o->stride)[l];
    if (pl != *p || sl != ld0) {
      exec_fault(w, x, l, "%s: lane %d gives address 0x%llx and stride %llu, lane 0 0x%llx and "
                 "%llu: every lane of the warp must give the same", name, l,
                 (unsigned long long)pl, (unsigned long long)sl, (unsigned long long)*p,
                 (unsigned long long)ld0);
      return false;
    }
  }
  if (*p % 32) {
    exec_fault_kind(w, x, -1, FAULT_MISALIGNED, "%s: address 0x%llx is not 32-byte (256-bit) "
                    "aligned", name, (unsigned long long)*p);
    return false;
  }
  return true;
}

static uint64_t elem_addr(const WmmaMem *o, uint64_t p, uint64_t ld, int i, int j) {
  uint64_t off = o->col ? (uint64_t)j * ld + (uint64_t)i : (uint64_t)i * ld + (uint64_t)j;
  return int4(o->f.ek) ? p + off / 2 : p + off * (uint64_t)ek_size(o->f.ek);
}

HANDLER(exec_wmma_load) {
  if (mma_converged(w, x, mask, "wmma.load") != XS_NEXT) return XS_TRAP;
  const WmmaMem *o = x->aux;
  uint64_t p, ld, mat[32 * 16];
  if (!mem_base(w, x, o, "wmma.load", &p, &ld)) return XS_TRAP;
  int s = ek_size(o->f.ek), n = o->f.rows * o->f.cols / WARP_SIZE;
  for (int e = 0; e < o->f.rows * o->f.cols; e++) {
    int i = e / o->f.cols, j = e % o->f.cols;
    uint64_t a = elem_addr(o, p, ld, i, j);
    const void *h = mem_access(w, x, e / n, (Space)x->space, a, (uint32_t)s, (uint32_t)s, ACC_LD);
    if (!h) return XS_TRAP;
    uint64_t v = 0;
    memcpy(&v, h, (size_t)s);            /* little-endian host, as mem.c assumes */
    if (int4(o->f.ek)) {                 /* the lower nibble holds the lower element */
      uint64_t off = o->col ? (uint64_t)j * ld + (uint64_t)i : (uint64_t)i * ld + (uint64_t)j;
      v = v >> (4 * (off & 1)) & 0xf;
    }
    mat[e] = v;
  }
  frag_put(w, &o->f, o->slot, mat);
  return XS_NEXT;
}

HANDLER(exec_wmma_store) {
  if (mma_converged(w, x, mask, "wmma.store") != XS_NEXT) return XS_TRAP;
  const WmmaMem *o = x->aux;
  uint64_t p, ld, mat[32 * 16];
  if (!mem_base(w, x, o, "wmma.store", &p, &ld)) return XS_TRAP;
  frag_take(w, &o->f, o->slot, mat);
  int s = ek_size(o->f.ek), n = o->f.rows * o->f.cols / WARP_SIZE, E = o->f.rows * o->f.cols;
  void *h[32 * 16];
  for (int e = 0; e < E; e++)            /* every address is checked before any is written */
    if (!(h[e] = mem_ptr(w, x, e / n, (Space)x->space,
                         elem_addr(o, p, ld, e / o->f.cols, e % o->f.cols), (uint32_t)s,
                         (uint32_t)s, true)))
      return XS_TRAP;
  for (int e = 0; e < E; e++) {
    memcpy(h[e], &mat[e], (size_t)s);
    if (mem_observed(w))
      mem_observe(w, x, e / n, (Space)x->space, elem_addr(o, p, ld, e / o->f.cols, e % o->f.cols),
                  h[e], (uint32_t)s, ACC_ST, false);
  }
  return XS_NEXT;
}

/* ---- wmma.mma ---- */

HANDLER(exec_wmma_mma) {
  if (mma_converged(w, x, mask, "wmma.mma") != XS_NEXT) return XS_TRAP;
  const WmmaMma *o = x->aux;
  int M = o->f[0].rows, N = o->f[0].cols, K = o->k;
  uint64_t A[32 * 16], B[16 * 32], C[32 * 16], D[32 * 16];
  frag_take(w, &o->f[1], o->slot[1], A);
  frag_take(w, &o->f[2], o->slot[2], B);
  frag_take(w, &o->f[3], o->slot[3], C);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      D[i * N + j] = mma_dot(o->f[0].ek, o->f[1].ek, o->f[2].ek, o->f[3].ek, o->flags, K, A + i * K, 1,
                             B + j, N, C[i * N + j]);
  frag_put(w, &o->f[0], o->slot[0], D);
  return XS_NEXT;
}

/* ---- selection ---- */

/* Whether A/B kind ab with C/D kinds c, d is a form of shape (m, n, k). */
static bool wmma_form(int m, int n, int k, int ab, int c, int d) {
  bool big = k == 16 && ((m == 16 && n == 16) || (m == 32 && n == 8) || (m == 8 && n == 32));
  bool f = (c == EK_F16 || c == EK_F32) && (d == EK_F16 || d == EK_F32);
  if (big && ab == EK_F16) return f;
  if (big && ab == EK_BF16) return c == EK_F32 && d == EK_F32;
  if (big && (ab == EK_S8 || ab == EK_U8)) return c == EK_S32 && d == EK_S32;
  if (m == 16 && n == 16 && k == 8) return ab == EK_TF32 && c == EK_F32 && d == EK_F32;
  if (m == 8 && n == 8 && k == 4) return ab == EK_F64 && c == EK_F64 && d == EK_F64;
  if (m == 8 && n == 8 && k == 32) return int4(ab) && c == EK_S32 && d == EK_S32;
  if (m == 8 && n == 8 && k == 128) return ab == EK_B1 && c == EK_S32 && d == EK_S32;
  return false;
}

static Type wreg_type(int ek) {
  return ek == EK_F64 ? TY_F64 : ek == EK_F32 ? TY_F32 : ek == EK_S32 ? TY_S32 : TY_B32;
}

/* Shape, layouts (.row = false) and element kinds of the modifiers. */
static void scan(const Insn *in, int *m, int *n, int *k, bool *col, int *nlay, int *ek, int *nt) {
  *nlay = *nt = 0;
  for (int i = 0; i < in->nmods; i++) {
    const char *s = in->mods[i];
    int kind = mma_kind_of(s);
    if (kind >= 0) { if (*nt < 4) ek[*nt] = kind; (*nt)++; continue; }
    if (!strcmp(s, ".row") || !strcmp(s, ".col")) { if (*nlay < 2) col[*nlay] = s[1] == 'c'; (*nlay)++; }
    sscanf(s, ".m%dn%dk%d", m, n, k);
  }
}

/* A shape the executed forms have, for the given fragment kind and type. */
static bool mem_form(int which, int m, int n, int k, int ek) {
  static const int abk[] = {EK_F16, EK_BF16, EK_S8, EK_U8, EK_TF32, EK_F64, EK_S4, EK_U4, EK_B1};
  static const int ck[] = {EK_F16, EK_F32, EK_S32, EK_F64};
  if (which == WC) {
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 9; j++)
        if (ck[i] == ek && wmma_form(m, n, k, abk[j], ek, ek)) return true;
    return false;
  }
  for (int i = 0; i < 4; i++) if (wmma_form(m, n, k, ek, ck[i], ck[i])) return true;
  return false;
}

static bool select_mem(Lower *L, const Insn *in, XInsn *x, bool store) {
  int m = 0, n = 0, k = 0, nlay, ek[4], nt;
  bool col[2];
  scan(in, &m, &n, &k, col, &nlay, ek, &nt);
  int which = store || insn_has_mod(in, ".c") ? WC : insn_has_mod(in, ".a") ? WA : WB;
  if (nt != 1 || nlay != 1 || !mem_form(which, m, n, k, ek[0])) return false;
  const char *name = op_info[in->op].mnemonic;
  (void)col;   /* a sub-byte A is .row, B .col: validated (mmaform.c) */
  if (ek[0] == EK_B1) k /= 8;   /* K bits as K/8 bytes (EK_B1) */
  if (in->nopds != 2 && in->nopds != 3)
    lower_refuse(L, "%s: needs 2 or 3 operands (fragment, address, stride), not %d", name, in->nopds);
  WmmaMem *o = lower_aux(L, sizeof *o);
  o->f = frag_of(which, m, n, k, ek[0]);
  o->col = col[0];
  const Operand *addr = &in->opds[store ? 0 : 1], *regs = &in->opds[store ? 1 : 0];
  if (addr->kind != OPD_ADDR || addr->n)
    lower_refuse(L, "%s: the address must be [reg], [var] or [reg+imm]", name);
  Space sp = lower_space(in);
  x->space = (uint8_t)sp;
  x->imm = lower_addr(L, addr, sp, &o->base);
  o->base64 = addr->sym && addr->sym->kind == SYM_REG && type_size(addr->sym->type) == 8;
  o->stride = in->nopds == 3 ? lower_src(L, &in->opds[2], TY_U32) : NOSLOT;
  mma_lower_regs(L, in, regs, o->f.nreg, !store, wreg_type(ek[0]), o->slot,
                 store ? "the source" : "the destination");
  x->aux = o;
  x->nslots = 0;
  x->fn = store ? exec_wmma_store : exec_wmma_load;
  return true;
}

static bool select_mma(Lower *L, const Insn *in, XInsn *x) {
  int m = 0, n = 0, k = 0, nlay, ek[4], nt;
  bool col[2];
  scan(in, &m, &n, &k, col, &nlay, ek, &nt);
  int d, a, c;
  if (nt == 2) { d = ek[0]; c = ek[1]; a = EK_F16; }        /* f16: .dtype .ctype */
  else if (nt == 4 && (ek[1] == ek[2] || (int8(ek[1]) && int8(ek[2])) || (int4(ek[1]) && int4(ek[2])))) {
    d = ek[0]; a = ek[1]; c = ek[3];
  }
  else return false;
  if (nlay != 2 || !wmma_form(m, n, k, a, c, d)) return false;
  bool sat = insn_has_mod(in, ".satfinite");
  bool b1 = a == EK_B1, and = insn_has_mod(in, ".and"), xor = insn_has_mod(in, ".xor");
  if (sat && (d != EK_S32 || b1)) return false;             /* f16/f32 .satfinite: not yet */
  if (b1 != insn_has_mod(in, ".popc") || b1 != (and || xor)) return false;
  if ((b1 || int4(a)) && (col[0] || !col[1]))
    lower_refuse(L, "wmma.mma: the sub-byte forms are .row.col only");
  if (b1) k /= 8;   /* K bits as K/8 bytes (EK_B1) */
  for (int i = 0; i < in->nmods; i++) {
    const char *s = in->mods[i];
    if (!strcmp(s, ".rz") || !strcmp(s, ".rm") || !strcmp(s, ".rp")) return false;
    if (!strcmp(s, ".rn") && a != EK_F64) return false;
  }
  if (in->nopds != 4) lower_refuse(L, "wmma.mma: needs 4 operands (d, a, b, c), not %d", in->nopds);
  WmmaMma *o = lower_aux(L, sizeof *o);
  o->f[0] = frag_of(WC, m, n, k, d);
  o->f[1] = frag_of(WA, m, n, k, nt == 4 ? ek[1] : a);
  o->f[2] = frag_of(WB, m, n, k, nt == 4 ? ek[2] : a);
  o->f[3] = frag_of(WC, m, n, k, c);
  o->k = (uint8_t)k;
  o->flags = (uint8_t)((sat ? MD_SAT : 0) | (and ? MD_AND : 0) | (xor ? MD_XOR : 0));
  static const char *const what[4] = {"d", "a", "b", "c"};
  for (int q = 0; q < 4; q++)
    mma_lower_regs(L, in, &in->opds[q], o->f[q].nreg, q == 0, wreg_type(o->f[q].ek), o->slot[q],
                   what[q]);
  x->aux = o;
  x->nslots = 0;
  x->fn = exec_wmma_mma;
  return true;
}

bool wmma_select(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_WMMA_LOAD: return select_mem(L, in, x, false);
  case OP_WMMA_STORE: return select_mem(L, in, x, true);
  case OP_WMMA_MMA: case OP_WMMA_MMA_B1: return select_mma(L, in, x);
  default: return false;
  }
}
