/* mma.c: family MMA, the warp-level matrix instructions (PTX ISA 9.0
 * §9.7.14): ldmatrix, stmatrix, movmatrix, mma.sync and mma.sp{::ordered_
 * metadata}, executed bit-exactly over the whole warp at once. The warpgroup
 * wgmma.* rows of this family are wgmma.c's, the wmma.* rows wmma.c's
 * (exec_select_MMA delegates them). The forms listed under "Refused" are not
 * executed: the selector refuses them by name at lowering (FILE:LINE:COL:
 * ... is not supported).
 *
 * Convergence. Every form is .sync.aligned: all 32 lanes of the warp must
 * execute the same instruction together, unguarded or with a guard true
 * for all. The handlers check it and fault otherwise ("reached by lanes
 * ... which are not converged"); a partial last warp cannot execute them.
 * The interpreter runs the lowest pc first and gives MMA the converged
 * treatment under --schedule (interp.c sched_free), so structured code
 * reaches them converged.
 *
 * Fragment layouts: the one place (the ISA's "Matrix fragments for mma.mXnYkZ"
 * tables, and ldmatrix's). For lane l, g = l >> 2 (groupID) and
 * t = l & 3 (threadID_in_group). A register holds `epr` elements (f16/bf16:
 * 2, tf32/f32/s32/f64: 1, s8/u8/e4m3/e5m2: 4, s4/u4: 8), element j in bits
 * [j*w, (j+1)*w) (the lower element in the lower bits); b1 is handled as
 * bytes of 8 consecutive k (EK_B1: K/8 byte elements, 4 a register, bit i
 * of a byte being k = 8*byte + i). For register r and element j of it:
 *
 *   A (M x K, .row):  row = g + 8*(r & 1)            (M = 16; M = 8: g)
 *                     col = epr*t + j + h*(r >> 1)
 *   B (K x N, .col):  row = epr*t + j + h*r          col = g
 *   with h = K/2, except h = 4 where a register holds one element (tf32, f64)
 *   C, D (M x N):     e = r*epr + j;  row = g + 8*(e >> 1),  col = 2*t + (e & 1)
 *
 * which gives, per shape (registers A/B/C of f32 C):
 *   m16n8k16 f16/bf16: A 4 (g|g+8, 2t+j | +8), B 2 (2t+j | +8, g), C 4
 *   m16n8k8  f16/bf16: A 2, B 1, C 4;  tf32: A 4 (col t | t+4), B 2 (row t | t+4)
 *   m16n8k4  tf32: A 2 (g|g+8, t), B 1 (t, g)
 *   m16n8k32 s8/u8: A 4 (4t+j | +16), B 2 (4t+j | +16, g), C 4 (s32)
 *   m16n8k16 s8/u8: A 2, B 1
 *   m8n8k4   f64: A 1 (g, t), B 1 (t, g), C 2 (g, 2t + e)
 *   m16n8k4/k8/k16 f64 (sm_90): A 2/4/8 (g|g+8, t + 4*(r>>1)), B 1/2/4 (t + 4r, g), C 4
 *
 * mma.m8n8k4 with .f16 inputs (sm_70) is four independent 8x8x4 products:
 * product q = (l >> 2) & 3 is computed by lanes 4q..4q+3 (low group, rows
 * or columns 0-3) and 16+4q..16+4q+3 (high group, 4-7); with i the element
 * index (a0..a3, b0..b3, c0..c7) and h = 4 for the high group, else 0:
 *   A .row: (l%4 + h, i)       A .col: (i + h, l%4)
 *   B .row: (l%4, i + h)       B .col: (i, l%4 + h)
 *   C .f16: (l%4 + h, i)
 *   C .f32: ((l&1) + (i&2) + h, (i&4) + (l&2) + (i&1))
 *   m16n8k32 e4m3/e5m2: as s8 (C f32 4, f16 2)
 *   m8n8k16 s8/u8: A 1 (g, 4t+j), B 1 (4t+j, g), C 2 (g, 2t + e)
 *   m16n8k64 s4/u4: A 4 (8t+j | +32), B 2 (8t+j | +32, g); m16n8k32: A 2, B 1;
 *   m8n8k32: A 1 (g, 8t+j), B 1, C 2
 *   b1 m16n8k256: A 4 (bits 32t+i | +128), B 2; m16n8k128: A 2, B 1;
 *   m8n8k128: A 1 (g, bits 32t+i), B 1, C 2
 * An .f16 accumulator holds C/D in 2 registers of f16x2 (e as above).
 *
 * Sparse A (mma.sp, §9.7.14.6): the logical A is M x K, each row made of
 * chunks (2:4 for f16/bf16/s8/u8/e4m3/e5m2: 4 columns, 2 non-zero; 1:2 for
 * tf32: 2 columns, 1; 4:8 pairwise for s4/u4: 8 columns, 2 non-zero pairs).
 * The operand a holds the compressed M x K/2 in the dense layout of the same
 * type with K/2 (the sparse fragment tables); B is the dense K x N (h above).
 * Each chunk has 4 bits of metadata: two 2-bit indices, slot 0 (the lower
 * compressed element) in the low bits; tf32: 0b0100 = element 0, 0b1110 =
 * element 1; s4/u4: the indices of the two pairs. A group of 4 lanes (g)
 * holds its rows' metadata in n = K/chunk/4 lanes, sel*n .. sel*n+n-1 (the
 * selector f: n = 1: 0-3, 2: 0-1, 4: 0); lane j of them holds 8 chunks:
 * 16/32-bit types: chunks 4j..4j+3 of row g in bits 0-15, of row g+8 in
 * 16-31; 8/4-bit types: chunks 8(j>>1)..+7 of row g + 8(j&1) (the ISA's
 * figures; read here from the MLIR m16n8k32 f16 GPU test and CUTLASS's
 * wgmma sparse metadata layouts, which agree: tests/gpu/README.md lists what
 * a recording must confirm). Equal indices, ::ordered_metadata indices not
 * increasing from the LSB, and tf32 values other than 0b0100/0b1110 are
 * undefined: a located fault. A selector out of range: refused at lowering.
 *
 * ldmatrix / stmatrix .m8n8 .b16 (.x1/.x2/.x4 = 1, 2, 4 matrices of 8x8
 * 16-bit elements; each row is 16 contiguous bytes, 16-byte aligned): row
 * r of matrix i is at the address lane 8*i + r supplies (lanes past
 * 8*count are ignored); register i of lane l holds matrix i's elements
 * (g, 2t) and (g, 2t+1), with .trans (2t, g) and (2t+1, g). movmatrix
 * transposes one such fragment across the warp (the .trans of register to
 * register).
 *
 * Arithmetic model (the ISA leaves the order and intermediate precision of
 * the accumulation unspecified; this is ptxvm's documented choice):
 *   - floating point (f16, bf16, tf32, e4m3, e5m2 inputs; f32 or f16
 *     D and C, each of either type; an fp8 product is exact in f32 as well):
 *     for each element of D, acc = C (widened to f32, exactly), then for
 *     k = 0 .. K-1 in order acc = fmaf(a[k], b[k], acc): each product is
 *     exact (an f16, bf16 or tf32 value is an exact f32 and the fused
 *     multiply-add rounds once) and each addition rounds to nearest even in
 *     f32, subnormals kept. An .f16 D is acc rounded once to f16 (.rn).
 *     tf32 inputs use the tf32 bits of their .b32 register only (sign,
 *     8-bit exponent, 10-bit fraction): the low 13 bits are ignored
 *     (truncated), as the ISA's tf32 format has no such bits.
 *   - f64 (m8n8k4): the same chain with fma() in double (.rn; the only
 *     rounding executed).
 *   - s8/u8/s4/u4: exact sum of the products and C in 64 bits; without
 *     .satfinite D wraps to 32 bits, with it D clamps to [INT32_MIN,
 *     INT32_MAX].
 *   - b1: D = C + the number of k with a AND b (.and) or a XOR b (.xor)
 *     set (.popc), wrapping in 32 bits.
 *   - A NaN result is the canonical NaN of its format (fpconv.h).
 * The tests use inputs whose results are exact under any order
 * (tests/ptx/mma/, generated by tests/ptx/mma/gen.py from numpy).
 *
 * Refused (lowering): mma.sp with fp8 and an .f16 D/C (sm_120), the
 * .kind:: / .block_scale forms (sm_120a); ldmatrix .m16n16/.m8n16 and
 * .b8/.b8x16 forms; stmatrix .m16n8 and .b8. Combinations that are no
 * form of the ISA (.satfinite outside the integer forms, a rounding other
 * than .rn with f64, layouts other than .row.col except m8n8k4 .f16, a
 * shape without the types) are validation errors (src/front/mmaform.c). */
#include <math.h>

#include "mma.h"

typedef struct MmaOp {
  uint8_t m, n, k;               /* shape (k: the logical K; A holds k/2 of it when sparse) */
  uint8_t ek[4];                 /* element kinds of D, A, B, C */
  uint8_t nreg[4];               /* registers of D, A, B, C */
  uint8_t flags;                 /* MD_SAT, MD_AND, MD_XOR */
  uint8_t sparse;                /* 0; SP_ANY (mma.sp); SP_ORDERED (::ordered_metadata) */
  uint8_t sel;                   /* sparsity selector */
  uint32_t meta;                 /* slot of the metadata register e */
  uint32_t slot[4][8];           /* slots of D, A, B, C (f64 m16n8k16 A: 8) */
} MmaOp;

enum { SP_ANY = 1, SP_ORDERED = 2 };

enum { OD, OA, OB, OC };

/* ---- convergence ---- */

XStatus mma_converged(Warp *w, const XInsn *x, uint32_t mask, const char *name) {
  if (mask == 0xffffffffu) return XS_NEXT;
  char t1[160], t2[160];
  lanes_text(mask, t1, sizeof t1);
  lanes_text(warp_live(w), t2, sizeof t2);
  if (mask == warp_live(w))
    return exec_fault(w, x, -1, "%s.sync.aligned executed by warp %d with only lanes %s: it "
                      "needs all 32 lanes of the warp (a partial warp, or lanes that exited)",
                      name, w->id, t1);
  return exec_fault(w, x, -1, "%s.sync.aligned reached by lanes %s of warp %d, which are not "
                    "converged: every lane of the warp (0-31) must execute it together; its "
                    "non-exited lanes are %s", name, t1, w->id, t2);
}

/* ---- fragment layouts (the header's table) ---- */

/* Row and column of element j of register r of operand `which` for lane l. */
static void frag_pos(const MmaOp *m, int which, int r, int j, int l, int *row, int *col) {
  int g = l >> 2, t = l & 3, epr = ek_epr(m->ek[which]);
  int half = 4 * epr;   /* the k of one register's 4 lanes */
  if (which == OA) {
    *row = m->m == 16 ? g + 8 * (r & 1) : g;
    *col = epr * t + j + half * (r >> 1);
  } else if (which == OB) {
    *row = epr * t + j + half * r;
    *col = g;
  } else {
    int e = r * epr + j;
    *row = g + 8 * (e >> 1);
    *col = 2 * t + (e & 1);
  }
}

static uint64_t reg_read(Warp *w, const MmaOp *m, int which, int r, int l) {
  uint32_t s = m->slot[which][r];
  return m->ek[which] == EK_F64 ? R64(w, s)[l] : R32(w, s)[l];
}

/* Unpacks operand `which` into mat[row * ld + col] (raw element encodings). */
static void gather(Warp *w, const MmaOp *m, int which, uint64_t *mat, int ld) {
  int bits = ek_bits(m->ek[which]), epr = ek_epr(m->ek[which]);
  uint64_t emask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  FOR_LANES(l) for (int r = 0; r < m->nreg[which]; r++) {
    uint64_t v = reg_read(w, m, which, r, l);
    for (int j = 0; j < epr; j++) {
      int row, col;
      frag_pos(m, which, r, j, l, &row, &col);
      mat[row * ld + col] = v >> (bits * j) & emask;
    }
  }
}

uint64_t mma_dot(int ed, int ea, int eb, int ec, int flags, int K, const uint64_t *a, int as,
                 const uint64_t *b, int bs, uint64_t c) {
  if (ea == EK_F64) {
    double acc = bits_f64(c);
    for (int k = 0; k < K; k++) acc = fma(bits_f64(a[k * as]), bits_f64(b[k * bs]), acc);
    uint64_t u = f64_bits(acc);
    return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? F64_CNAN : u;
  }
  if (ea == EK_B1) {   /* popc(a op b) + c: wraps in 32 bits (no .satfinite) */
    uint32_t acc = (uint32_t)c;
    for (int k = 0; k < K; k++) {
      uint64_t v = flags & MD_XOR ? a[k * as] ^ b[k * bs] : a[k * as] & b[k * bs];
      acc += (uint32_t)__builtin_popcountll(v & 0xff);
    }
    return acc;
  }
  if (ea == EK_S8 || ea == EK_U8 || ea == EK_S4 || ea == EK_U4) {
    int64_t acc = ek_int(ec, c);
    for (int k = 0; k < K; k++) acc += ek_int(ea, a[k * as]) * ek_int(eb, b[k * bs]);
    if (flags & MD_SAT) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
    return (uint32_t)acc;
  }
  float acc = ek_f32(ec, c);
  for (int k = 0; k < K; k++) acc = fmaf(ek_f32(ea, a[k * as]), ek_f32(eb, b[k * bs]), acc);
  if (ed == EK_F16) return f32_to_f16(acc, FR_RN);
  uint32_t u = f32_bits(acc);
  return f32_is_nan(u) ? F32_CNAN : u;
}

/* ---- mma.sp: the sparse A (the header's "Sparse A") ---- */

/* Logical columns of a chunk and the compressed elements it holds. */
static int chunk_width(int ek) { return ek == EK_TF32 ? 2 : ek == EK_S4 || ek == EK_U4 ? 8 : 4; }

int mma_sp_lanes(int ea, int K) { return K / chunk_width(ea) / 4; }

/* The 4-bit metadata of chunk c of row i: the lane and bit that hold it. */
static void meta_pos(int ea, int K, int sel, int i, int c, int *lane, int *bit) {
  int n = mma_sp_lanes(ea, K), half = i >= 8, j, nib;
  if (ek_bits(ea) >= 16) { j = c / 4; nib = c % 4 + 4 * half; }
  else { j = 2 * (c / 8) + half; nib = c % 8; }
  *lane = 4 * (i & 7) + sel * n + j;
  *bit = 4 * nib;
}

XStatus mma_sp_columns(Warp *w, const XInsn *x, int ea, int K, int sel, bool ordered, uint32_t meta,
                       uint8_t *col) {
  const char *name = op_info[x->op].mnemonic;
  int Kc = K / 2, cw = chunk_width(ea);
  const uint32_t *e = R32(w, meta);
  for (int i = 0; i < 16; i++)
    for (int c = 0; c < K / cw; c++) {
      int lane, bit;
      meta_pos(ea, K, sel, i, c, &lane, &bit);
      unsigned v = e[lane] >> bit & 0xfu, i0 = v & 3, i1 = v >> 2;
      if (cw == 2) {   /* tf32 1:2: 0b0100 (element 0) or 0b1110 (element 1) */
        if (v != 0x4 && v != 0xe)
          return exec_fault(w, x, lane, "%s: metadata 0x%x of lane %d (bits %d-%d) gives the "
                            "tf32 chunk %d of row %d the index 0b%d%d%d%d; only 0b0100 and 0b1110 "
                            "are defined (PTX ISA 9.7.14.6.1)", name, e[lane], lane, bit, bit + 3, c,
                            i, v >> 3 & 1, v >> 2 & 1, v >> 1 & 1, v & 1);
        col[i * Kc + c] = (uint8_t)(2 * c + (v == 0xe));
        continue;
      }
      if (i0 == i1 || (ordered && i0 > i1))
        return exec_fault(w, x, lane, "%s: metadata 0x%x of lane %d (bits %d-%d) gives chunk %d of "
                          "row %d the indices %u and %u: %s (PTX ISA 9.7.14.6.1)", name, e[lane],
                          lane, bit, bit + 3, c, i, i0, i1,
                          i0 == i1 ? "two equal indices are undefined"
                                   : "::ordered_metadata needs them increasing from the LSB");
      unsigned idx[2] = {i0, i1};
      for (int s = 0; s < 2; s++) {
        if (cw == 4) col[i * Kc + 2 * c + s] = (uint8_t)(4 * c + (int)idx[s]);
        else for (int h = 0; h < 2; h++)   /* s4/u4: pairs of 2 in a chunk of 8 */
          col[i * Kc + 4 * c + 2 * s + h] = (uint8_t)(8 * c + 2 * (int)idx[s] + h);
      }
    }
  return XS_NEXT;
}

/* D[i][j] from row i of A, column j of B and C[i][j] (the header's model). */
static uint64_t dot(const MmaOp *m, const uint64_t *A, const uint64_t *B, uint64_t c, int i, int j) {
  return mma_dot(m->ek[OD], m->ek[OA], m->ek[OB], m->ek[OC], m->flags, m->k, A + i * m->k, 1,
                 B + j, m->n, c);
}

HANDLER(exec_mma) {
  if (mma_converged(w, x, mask, "mma") != XS_NEXT) return XS_TRAP;
  const MmaOp *m = x->aux;
  uint64_t A[16 * 128], B[128 * 8], C[16 * 8], D[16 * 8];   /* K up to 128 (sparse s4/u4) */
  if (m->sparse) {   /* the compressed A, expanded by the metadata (zeros elsewhere) */
    uint64_t Ac[16 * 64];
    uint8_t col[16 * 64];
    int K = m->k, Kc = K / 2;
    gather(w, m, OA, Ac, Kc);
    if (mma_sp_columns(w, x, m->ek[OA], K, m->sel, m->sparse == SP_ORDERED, m->meta, col) != XS_NEXT)
      return XS_TRAP;
    memset(A, 0, sizeof(uint64_t) * 16 * (size_t)K);
    for (int i = 0; i < 16 * Kc; i++) A[i / Kc * K + col[i]] = Ac[i];
  } else {
    gather(w, m, OA, A, m->k);
  }
  gather(w, m, OB, B, m->n);
  gather(w, m, OC, C, m->n);
  for (int i = 0; i < m->m; i++)
    for (int j = 0; j < m->n; j++) D[i * m->n + j] = dot(m, A, B, C[i * m->n + j], i, j);
  int bits = ek_bits(m->ek[OD]), epr = ek_epr(m->ek[OD]);
  FOR_LANES(l) for (int r = 0; r < m->nreg[OD]; r++) {
    uint64_t v = 0;
    for (int j = 0; j < epr; j++) {
      int row, col;
      frag_pos(m, OD, r, j, l, &row, &col);
      v |= D[row * m->n + col] << (bits * j);
    }
    if (m->slot[OD][r] == NOSLOT) continue;
    if (m->ek[OD] == EK_F64) R64(w, m->slot[OD][r])[l] = v;
    else R32(w, m->slot[OD][r])[l] = (uint32_t)v;
  }
  return XS_NEXT;
}

/* ---- mma.m8n8k4 with .f16 inputs: four 8x8x4 products (the header's table) ---- */

typedef struct Mma884 {
  bool acol, bcol;               /* .col layouts of A, B */
  uint8_t ed, ec;                /* EK_F16 or EK_F32 */
  uint32_t slot[4][8];           /* D 8/4, A 2, B 2, C 8/4 registers */
} Mma884;

/* (row, col) of element i of operand `which` for lane l in its product. */
static void pos884(const Mma884 *o, int which, int l, int i, int *row, int *col) {
  int h = l >= 16 ? 4 : 0, q4 = l & 3;
  if (which == OA) {
    *row = o->acol ? i + h : q4 + h;
    *col = o->acol ? q4 : i;
  } else if (which == OB) {
    *row = o->bcol ? i : q4;
    *col = o->bcol ? q4 + h : i + h;
  } else if ((which == OC ? o->ec : o->ed) == EK_F16) {
    *row = q4 + h;
    *col = i;
  } else {
    *row = (l & 1) + (i & 2) + h;
    *col = (i & 4) + (l & 2) + (i & 1);
  }
}

/* Element i of operand `which` of lane l (raw encoding). */
static uint64_t elem884(Warp *w, const Mma884 *o, int which, int l, int i) {
  bool f32 = which == OC && o->ec == EK_F32;
  if (f32) return R32(w, o->slot[OC][i])[l];
  return R32(w, o->slot[which][i / 2])[l] >> (16 * (i & 1)) & 0xffffu;
}

HANDLER(exec_mma884) {
  if (mma_converged(w, x, mask, "mma") != XS_NEXT) return XS_TRAP;
  const Mma884 *o = x->aux;
  uint64_t A[4][8 * 4], B[4][4 * 8], C[4][8 * 8];
  FOR_LANES(l) {
    int q = (l >> 2) & 3, row, col;
    for (int i = 0; i < 4; i++) {
      pos884(o, OA, l, i, &row, &col);
      A[q][row * 4 + col] = elem884(w, o, OA, l, i);
      pos884(o, OB, l, i, &row, &col);
      B[q][row * 8 + col] = elem884(w, o, OB, l, i);
    }
    for (int i = 0; i < 8; i++) {
      pos884(o, OC, l, i, &row, &col);
      C[q][row * 8 + col] = elem884(w, o, OC, l, i);
    }
  }
  uint32_t out[8][WARP_SIZE];
  int nd = o->ed == EK_F16 ? 4 : 8;
  memset(out, 0, sizeof out);
  FOR_LANES(l) {
    int q = (l >> 2) & 3, row, col;
    for (int i = 0; i < 8; i++) {
      pos884(o, OD, l, i, &row, &col);
      uint64_t d = mma_dot(o->ed, EK_F16, EK_F16, o->ec, 0, 4, A[q] + row * 4, 1, B[q] + col, 8,
                           C[q][row * 8 + col]);
      if (o->ed == EK_F16) out[i / 2][l] |= (uint32_t)d << (16 * (i & 1));
      else out[i][l] = (uint32_t)d;
    }
  }
  for (int r = 0; r < nd; r++)
    if (o->slot[OD][r] != NOSLOT) memcpy(R32(w, o->slot[OD][r]), out[r], sizeof out[r]);
  return XS_NEXT;
}

/* ---- ldmatrix, stmatrix, movmatrix ---- */

typedef struct MatOp {
  uint32_t base;                 /* address register slot, or UINT32_MAX */
  bool base64, trans;
  uint8_t count;                 /* matrices: 1, 2, 4 */
  uint32_t slot[4];              /* registers: destinations (ld) or sources (st) */
} MatOp;

/* The 16-byte row r of matrix i, at the address of lane 8*i + r. */
static uint16_t *row_ptr(Warp *w, const XInsn *x, const MatOp *o, int i, int r, bool write) {
  int lane = 8 * i + r;
  uint64_t a = lane_address(w, (Space)x->space, x->imm, o->base, o->base64, lane);
  return write ? mem_ptr(w, x, lane, (Space)x->space, a, 16, 16, true)   /* observed once written */
               : mem_access(w, x, lane, (Space)x->space, a, 16, 16, ACC_LD);
}

/* Lane l's position (row, col) of element h (0, 1) in a fragment. */
static void mat_pos(bool trans, int l, int h, int *row, int *col) {
  int g = l >> 2, c = 2 * (l & 3) + h;
  *row = trans ? c : g;
  *col = trans ? g : c;
}

HANDLER(exec_ldmatrix) {
  if (mma_converged(w, x, mask, "ldmatrix") != XS_NEXT) return XS_TRAP;
  const MatOp *o = x->aux;
  uint16_t M[4][8][8];
  for (int i = 0; i < o->count; i++)
    for (int r = 0; r < 8; r++) {
      const uint16_t *p = row_ptr(w, x, o, i, r, false);
      if (!p) return XS_TRAP;
      memcpy(M[i][r], p, 16);
    }
  for (int i = 0; i < o->count; i++) {
    if (o->slot[i] == NOSLOT) continue;
    uint32_t *d = R32(w, o->slot[i]);
    FOR_LANES(l) {
      int r0, c0, r1, c1;
      mat_pos(o->trans, l, 0, &r0, &c0);
      mat_pos(o->trans, l, 1, &r1, &c1);
      d[l] = (uint32_t)M[i][r0][c0] | (uint32_t)M[i][r1][c1] << 16;
    }
  }
  return XS_NEXT;
}

HANDLER(exec_stmatrix) {
  if (mma_converged(w, x, mask, "stmatrix") != XS_NEXT) return XS_TRAP;
  const MatOp *o = x->aux;
  uint16_t M[4][8][8];
  for (int i = 0; i < o->count; i++) {
    const uint32_t *s = R32(w, o->slot[i]);
    FOR_LANES(l) for (int h = 0; h < 2; h++) {
      int r, c;
      mat_pos(o->trans, l, h, &r, &c);
      M[i][r][c] = (uint16_t)(s[l] >> (16 * h));
    }
  }
  /* every address is checked before any row is written */
  uint16_t *p[4][8];
  for (int i = 0; i < o->count; i++)
    for (int r = 0; r < 8; r++)
      if (!(p[i][r] = row_ptr(w, x, o, i, r, true))) return XS_TRAP;
  for (int i = 0; i < o->count; i++)
    for (int r = 0; r < 8; r++) {
      memcpy(p[i][r], M[i][r], 16);
      if (mem_observed(w)) {
        uint64_t a = lane_address(w, (Space)x->space, x->imm, o->base, o->base64, 8 * i + r);
        mem_observe(w, x, 8 * i + r, (Space)x->space, a, p[i][r], 16, ACC_ST, false);
      }
    }
  return XS_NEXT;
}

HANDLER(exec_movmatrix) {
  if (mma_converged(w, x, mask, "movmatrix") != XS_NEXT) return XS_TRAP;
  const uint32_t *a = R32(w, x->slot[1]);
  uint32_t t[WARP_SIZE];
  FOR_LANES(l) {
    uint32_t v = 0;
    for (int h = 0; h < 2; h++) {
      int r = 2 * (l & 3) + h, c = l >> 2;   /* D[g][2t+h] = A[2t+h][g] */
      v |= (a[r * 4 + c / 2] >> (16 * (c & 1)) & 0xffffu) << (16 * h);
    }
    t[l] = v;
  }
  if (x->slot[0] != NOSLOT) memcpy(R32(w, x->slot[0]), t, sizeof t);
  return XS_NEXT;
}

/* ---- selection ---- */

/* The registers of a brace list (or one register) into slots; n must match. */
void mma_lower_regs(Lower *L, const Insn *in, const Operand *o, int n, bool dst, Type t,
                    uint32_t *slots, const char *what) {
  const Operand *e = o->kind == OPD_VEC ? o->elems : o;
  int have = o->kind == OPD_VEC ? o->n : 1;
  if (have != n)   /* build/opcov reads "(operand K) needs N register" to size its lists */
    lower_refuse(L, "%s: %s (operand %d) needs %d register%s, not %d", op_info[in->op].mnemonic,
                 what, (int)(o - in->opds) + 1, n, n == 1 ? "" : "s", have);
  int file = type_size(t) == 8 ? 1 : 0;
  for (int i = 0; i < n; i++) {
    if (e[i].kind == OPD_SINK && dst) { slots[i] = NOSLOT; continue; }
    if (e[i].kind == OPD_REG && e[i].sym && e[i].sym->kind == SYM_REG &&
        lower_reg_file(e[i].sym) != file)
      lower_refuse(L, "%s: %s element %d must be a %d-bit register", op_info[in->op].mnemonic,
                   what, i, file ? 64 : 32);
    if (dst && e[i].kind != OPD_REG)
      lower_refuse(L, "%s: %s element %d must be a register", op_info[in->op].mnemonic, what, i);
    slots[i] = dst ? lower_dst(L, &e[i]) : lower_src(L, &e[i], t);
  }
}

int mma_kind_of(const char *mod) {
  static const char *const names[] = {".f16", ".bf16", ".tf32", ".f32", ".f64", ".s8", ".u8", ".s32",
                                      ".e4m3", ".e5m2", ".b1", ".s4", ".u4"};
  for (int i = 0; i < 13; i++) if (!strcmp(mod, names[i])) return i;
  return -1;
}

static Type reg_type(int ek) {
  return ek == EK_F64 ? TY_F64 : ek == EK_F32 ? TY_F32 : ek == EK_S32 ? TY_S32 : TY_B32;
}

/* Whether (shape, D, A, B, C) is a form this file executes. */
static bool mma_form(int m, int n, int k, const int *ek) {
  int d = ek[OD], a = ek[OA], b = ek[OB], c = ek[OC];
  bool fa = a == EK_F16 && b == EK_F16, ba = a == EK_BF16 && b == EK_BF16;
  bool ia = (a == EK_S8 || a == EK_U8) && (b == EK_S8 || b == EK_U8);
  bool i4 = (a == EK_S4 || a == EK_U4) && (b == EK_S4 || b == EK_U4);
  bool f8 = (a == EK_E4M3 || a == EK_E5M2) && (b == EK_E4M3 || b == EK_E5M2);
  bool s32 = d == EK_S32 && c == EK_S32;
  bool acc32 = d == EK_F32 && c == EK_F32;
  bool acc16 = (d == EK_F32 || d == EK_F16) && (c == EK_F32 || c == EK_F16);   /* which pairs: mmaform.c */
  if (m == 16 && n == 8 && (k == 16 || k == 8) && (fa ? acc16 : ba ? acc32 : false)) return true;
  if (m == 16 && n == 8 && (k == 8 || k == 4) && a == EK_TF32 && b == EK_TF32 && acc32) return true;
  if (m == 16 && n == 8 && (k == 32 || k == 16) && ia && d == EK_S32 && c == EK_S32) return true;
  if (m == 16 && n == 8 && k == 32 && f8 && acc16) return true;
  if (m == 8 && n == 8 && k == 16 && ia && s32) return true;
  if (((m == 8 && n == 8 && k == 32) || (m == 16 && n == 8 && (k == 32 || k == 64))) && i4 && s32)
    return true;
  if (((m == 8 && n == 8 && k == 128) || (m == 16 && n == 8 && (k == 128 || k == 256))) &&
      a == EK_B1 && b == EK_B1 && s32)
    return true;
  if (((m == 8 && n == 8 && k == 4) || (m == 16 && n == 8 && (k == 4 || k == 8 || k == 16))) &&
      a == EK_F64 && b == EK_F64 && d == EK_F64 && c == EK_F64)
    return true;
  return false;
}

/* Whether (shape, D, A, B, C) is a form of mma.sp (up to sm_90) this file executes. */
static bool mma_sp_form(int m, int n, int k, const int *ek) {
  int d = ek[OD], a = ek[OA], b = ek[OB], c = ek[OC];
  if (m != 16 || n != 8) return false;
  bool i8 = (a == EK_S8 || a == EK_U8) && (b == EK_S8 || b == EK_U8);
  bool i4 = (a == EK_S4 || a == EK_U4) && (b == EK_S4 || b == EK_U4);
  bool f8 = (a == EK_E4M3 || a == EK_E5M2) && (b == EK_E4M3 || b == EK_E5M2);
  bool s32 = d == EK_S32 && c == EK_S32, f32 = d == EK_F32 && c == EK_F32;
  bool f16f32 = (d == EK_F16 || d == EK_F32) && (c == EK_F16 || c == EK_F32);
  if (a == EK_F16 && b == EK_F16) return (k == 16 || k == 32) && f16f32;
  if (a == EK_BF16 && b == EK_BF16) return (k == 16 || k == 32) && f32;
  if (a == EK_TF32 && b == EK_TF32) return (k == 8 || k == 16) && f32;
  if (i8) return (k == 32 || k == 64) && s32;
  if (i4) return (k == 64 || k == 128) && s32;
  if (f8) return k == 64 && f32;   /* an f16 D/C with fp8: sm_120 */
  return false;
}

static bool select_mma(Lower *L, const Insn *in, XInsn *x, int sparse) {
  int ek[4], nt = 0, nlay = 0, m = 0, n = 0, k = 0;
  bool rnd_other = false;
  const char *lay[2] = {NULL, NULL};
  for (int i = 0; i < in->nmods; i++) {
    const char *s = in->mods[i];
    int kind = mma_kind_of(s);
    if (kind >= 0) { if (nt < 4) ek[nt] = kind; nt++; continue; }
    if (!strcmp(s, ".row") || !strcmp(s, ".col")) { if (nlay < 2) lay[nlay] = s; nlay++; continue; }
    if (sscanf(s, ".m%dn%dk%d", &m, &n, &k) == 3) continue;
    if (!strcmp(s, ".rz") || !strcmp(s, ".rm") || !strcmp(s, ".rp")) rnd_other = true;
  }
  if (nt != 4 || nlay != 2 || !(sparse ? mma_sp_form(m, n, k, ek) : mma_form(m, n, k, ek)))
    return false;
  if (strcmp(lay[0], ".row") || strcmp(lay[1], ".col")) return false;
  bool sat = insn_has_mod(in, ".satfinite");
  bool b1 = ek[OA] == EK_B1, and = insn_has_mod(in, ".and"), xor = insn_has_mod(in, ".xor");
  if (sat && (ek[OD] != EK_S32 || b1)) return false;
  if (b1 != insn_has_mod(in, ".popc") || b1 != (and || xor)) return false;   /* b1: .and/.xor .popc */
  if (b1) k /= 8;   /* K bits as K/8 bytes (EK_B1) */
  if ((insn_has_mod(in, ".rn") && ek[OA] != EK_F64) || rnd_other) return false;
  const char *name = op_info[in->op].mnemonic;
  if (in->nopds != (sparse ? 6 : 4))
    lower_refuse(L, "%s: needs %s operands, not %d", name,
                 sparse ? "6 (d, a, b, c, e, f)" : "4 (d, a, b, c)", in->nopds);
  MmaOp *o = lower_aux(L, sizeof *o);
  o->m = (uint8_t)m; o->n = (uint8_t)n; o->k = (uint8_t)k;
  if (sparse) {   /* f: the contributing lanes of each group of 4, a constant */
    const Operand *f = &in->opds[5];
    int nsel = 4 / mma_sp_lanes(ek[OA], k);
    if (f->kind != OPD_IMM)
      lower_refuse(L, "%s: the sparsity selector f must be an integer constant", name);
    if (f->ival < 0 || f->ival >= nsel)
      lower_refuse(L, "%s: sparsity selector %lld is undefined for this shape and type: it must be "
                   "%s (PTX ISA 9.7.14.6.1)", name, (long long)f->ival,
                   nsel == 4 ? "0..3" : nsel == 2 ? "0 or 1" : "0");
    o->sparse = (uint8_t)sparse;
    o->sel = (uint8_t)f->ival;
    o->meta = lower_src(L, &in->opds[4], TY_B32);
  }
  o->flags = (uint8_t)((sat ? MD_SAT : 0) | (and ? MD_AND : 0) | (xor ? MD_XOR : 0));
  for (int q = 0; q < 4; q++) {
    o->ek[q] = (uint8_t)ek[q];
    int epr = ek_epr(ek[q]);
    int elems = q == OA ? m * k / (sparse ? 2 : 1) : q == OB ? k * n : m * n;
    o->nreg[q] = (uint8_t)(elems / WARP_SIZE / epr);
  }
  static const char *const what[4] = {"d", "a", "b", "c"};
  for (int q = 0; q < 4; q++)
    mma_lower_regs(L, in, &in->opds[q], o->nreg[q], q == OD, reg_type(ek[q]), o->slot[q], what[q]);
  x->aux = o;
  x->nslots = 0;
  x->fn = exec_mma;
  return true;
}

/* mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype (the row's
 * pattern fixes the shape and the f16 inputs). */
static bool select_mma884(Lower *L, const Insn *in, XInsn *x) {
  int ek[4], nt = 0, nlay = 0;
  bool col[2] = {false, false};
  for (int i = 0; i < in->nmods; i++) {
    const char *s = in->mods[i];
    int kind = mma_kind_of(s);
    if (kind >= 0) { if (nt < 4) ek[nt] = kind; nt++; continue; }
    if (!strcmp(s, ".row") || !strcmp(s, ".col")) { if (nlay < 2) col[nlay] = s[1] == 'c'; nlay++; }
  }
  if (nt != 4 || nlay != 2 || ek[OA] != EK_F16 || ek[OB] != EK_F16) return false;
  if (in->nopds != 4) lower_refuse(L, "mma: needs 4 operands (d, a, b, c), not %d", in->nopds);
  Mma884 *o = lower_aux(L, sizeof *o);
  o->acol = col[0]; o->bcol = col[1];
  o->ed = (uint8_t)ek[OD]; o->ec = (uint8_t)ek[OC];
  static const char *const what[4] = {"d", "a", "b", "c"};
  for (int q = 0; q < 4; q++) {
    int e = q == OD ? ek[OD] : q == OC ? ek[OC] : EK_F16;
    int n = q == OA || q == OB ? 2 : e == EK_F16 ? 4 : 8;
    mma_lower_regs(L, in, &in->opds[q], n, q == OD, e == EK_F32 ? TY_F32 : TY_B32, o->slot[q],
                   what[q]);
  }
  x->aux = o;
  x->nslots = 0;
  x->fn = exec_mma884;
  return true;
}

static bool select_matrix(Lower *L, const Insn *in, XInsn *x, bool store) {
  if (!insn_has_mod(in, ".m8n8") || !insn_has_mod(in, ".b16")) return false;
  if (in->nopds != 2) return false;
  MatOp *o = lower_aux(L, sizeof *o);
  o->count = insn_has_mod(in, ".x4") ? 4 : insn_has_mod(in, ".x2") ? 2 : 1;
  o->trans = insn_has_mod(in, ".trans");
  const Operand *addr = &in->opds[store ? 0 : 1], *regs = &in->opds[store ? 1 : 0];
  if (addr->kind != OPD_ADDR || addr->n)
    lower_refuse(L, "%s: the address must be [reg], [var] or [reg+imm]", op_info[in->op].mnemonic);
  Space sp = lower_space(in);
  x->space = (uint8_t)sp;
  x->imm = lower_addr(L, addr, sp, &o->base);
  o->base64 = addr->sym && addr->sym->kind == SYM_REG && type_size(addr->sym->type) == 8;
  mma_lower_regs(L, in, regs, o->count, !store, TY_B32, o->slot, store ? "the source" : "the destination");
  x->aux = o;
  x->nslots = 0;
  x->fn = store ? exec_stmatrix : exec_ldmatrix;
  return true;
}

bool exec_select_MMA(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_LDMATRIX: return select_matrix(L, in, x, false);
  case OP_STMATRIX: return select_matrix(L, in, x, true);
  case OP_MOVMATRIX:
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->slot[1] = lower_src(L, &in->opds[1], TY_B32);
    x->nslots = 2;
    x->fn = exec_movmatrix;
    return true;
  case OP_MMA: case OP_MMA_SM75: case OP_MMA_F8: case OP_MMA_F64:
    return select_mma(L, in, x, 0);
  case OP_MMA_SP: case OP_MMA_SP_F8:
    return select_mma(L, in, x, SP_ANY);
  case OP_MMA_SP_ORDERED: case OP_MMA_SP_ORDERED_F8:
    return select_mma(L, in, x, SP_ORDERED);
  case OP_MMA_M8N8K4:
    return select_mma884(L, in, x);
  case OP_WGMMA_FENCE: case OP_WGMMA_COMMIT_GROUP: case OP_WGMMA_WAIT_GROUP:
  case OP_WGMMA_F16: case OP_WGMMA_TF32: case OP_WGMMA_F8: case OP_WGMMA_I8: case OP_WGMMA_U8:
  case OP_WGMMA_I8_MIXED: case OP_WGMMA_B1:
  case OP_WGMMA_SP_F16: case OP_WGMMA_SP_TF32: case OP_WGMMA_SP_F8: case OP_WGMMA_SP_I8:
    return wgmma_select(L, in, x);
  case OP_WMMA_LOAD: case OP_WMMA_STORE: case OP_WMMA_MMA: case OP_WMMA_MMA_B1:
    return wmma_select(L, in, x);
  default:
    return false;
  }
}
