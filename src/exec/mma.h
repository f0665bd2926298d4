/* mma.h: what the warp-level (mma.c) and warpgroup-level (wgmma.c) matrix
 * instructions share: element kinds and their decoding (the arithmetic
 * model is documented in mma.c), the convergence check, and the lowering
 * of register lists. */
#ifndef PTXVM_MMA_H
#define PTXVM_MMA_H

#include "program.h"
#include "alu.h"
#include "fpconv.h"

/* Element kinds of the operands. */
/* EK_B1: 1-bit elements, handled 8 to a byte (one "element" is a byte of
 * 8 consecutive k), as the popc of an AND needs no order inside it. */
typedef enum { EK_F16, EK_BF16, EK_TF32, EK_F32, EK_F64, EK_S8, EK_U8, EK_S32, EK_E4M3, EK_E5M2, EK_B1,
               EK_S4, EK_U4 } EKind;

static inline int ek_bits(int ek) {
  switch (ek) {
  case EK_F16: case EK_BF16: return 16;
  case EK_S8: case EK_U8: case EK_E4M3: case EK_E5M2: case EK_B1: return 8;
  case EK_F64: return 64;
  case EK_S4: case EK_U4: return 4;
  default: return 32;
  }
}
static inline int ek_epr(int ek) { return ek == EK_F64 ? 1 : 32 / ek_bits(ek); }

/* f32 value of an f16/bf16/tf32/f32/e4m3/e5m2 element (exact: each is an
 * f32 value); tf32 ignores the low 13 bits of its .b32. */
static inline float ek_f32(int ek, uint64_t v) {
  switch (ek) {
  case EK_F16: return f16_to_f32((uint16_t)v);
  case EK_BF16: return bf16_to_f32((uint16_t)v);
  case EK_TF32: return bits_f32((uint32_t)v & 0xffffe000u);
  case EK_E4M3: return (float)f8_decode((uint8_t)v, true);
  case EK_E5M2: return (float)f8_decode((uint8_t)v, false);
  default: return bits_f32((uint32_t)v);
  }
}

static inline int64_t ek_int(int ek, uint64_t v) {
  switch (ek) {
  case EK_S8: return (int8_t)(uint8_t)v;
  case EK_U8: return (uint8_t)v;
  case EK_S4: return (int64_t)((v & 0xf) ^ 8) - 8;
  case EK_U4: return (int64_t)(v & 0xf);
  default: return (int32_t)(uint32_t)v;
  }
}

/* The kind a type modifier names (".f16" ...), or -1. */
int mma_kind_of(const char *mod);

/* XS_NEXT when all 32 lanes of w execute x (mask), else a located fault
 * naming `name` (".sync.aligned" is appended). */
XStatus mma_converged(Warp *w, const XInsn *x, uint32_t mask, const char *name);

/* Lowers the registers of a brace list (or one register) into slots; n must
 * match, each of the width of t (a destination may be the sink _). */
void mma_lower_regs(Lower *L, const Insn *in, const Operand *o, int n, bool dst, Type t,
                    uint32_t *slots, const char *what);

/* mma_dot's flags: .satfinite of an s32 D; the b1 operation (.and/.xor .popc). */
enum { MD_SAT = 1, MD_AND = 2, MD_XOR = 4 };

/* One element of D = A * B + C by the arithmetic model of mma.c's header:
 * the K raw elements a[k * as] (kind ea) and b[k * bs] (kind eb; EK_B1: K
 * bytes of 8 bits), c of kind ec; the result encoded as kind ed. */
uint64_t mma_dot(int ed, int ea, int eb, int ec, int flags, int K, const uint64_t *a, int as,
                 const uint64_t *b, int bs, uint64_t c);

/* Sparse A (mma.c's header, "Sparse A"): how many lanes of a group of 4
 * hold the metadata of a 16-row A of kind ea and logical K (1, 2, 4; the
 * selector takes 4/that values), and the logical column col[i * K/2 + c] of
 * each compressed element of the 16 rows from the metadata register slot
 * `meta` (selector sel; ordered: ::ordered_metadata). Metadata the ISA
 * leaves undefined is a located fault (XS_TRAP). */
int mma_sp_lanes(int ea, int K);
XStatus mma_sp_columns(Warp *w, const XInsn *x, int ea, int K, int sel, bool ordered, uint32_t meta,
                       uint8_t *col);

/* wmma.load/.store/.mma (src/exec/wmma.c); exec_select_MMA delegates them. */
bool wmma_select(Lower *L, const Insn *in, XInsn *x);

#endif
