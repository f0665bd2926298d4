/* alu.h: the lane loops of side-effect-free handlers (STYLE.md §2).
 *
 * ALUn(NAME, WD, WA, ..., EXPR) defines the handler NAME: it reads n source
 * slots of widths WA.. (32 or 64) as a, b, c, e, computes EXPR into t[l] for
 * all 32 lanes in a straight loop the compiler vectorises, and merges t into
 * the destination slot 0 of width WD under the mask. merge_pred writes a
 * predicate destination the same way; a sink (NOSLOT) is skipped. */
#ifndef PTXVM_ALU_H
#define PTXVM_ALU_H

#include "exec.h"

#define NOSLOT UINT32_MAX

#define ALU_HEAD(NAME) LANE_HANDLER(NAME)
#define ALU_TAIL(WD) \
  merge##WD(R##WD(w, x->slot[0]), t, mask); \
  return XS_NEXT;

#define ALU1(NAME, WD, WA, EXPR) \
  ALU_HEAD(NAME) { \
    const uint##WA##_t *a = R##WA(w, x->slot[1]); \
    uint##WD##_t t[WARP_SIZE]; \
    FOR_LANES(l) t[l] = (uint##WD##_t)(EXPR); \
    ALU_TAIL(WD) }
#define ALU2(NAME, WD, WA, WB, EXPR) \
  ALU_HEAD(NAME) { \
    const uint##WA##_t *a = R##WA(w, x->slot[1]); \
    const uint##WB##_t *b = R##WB(w, x->slot[2]); \
    uint##WD##_t t[WARP_SIZE]; \
    FOR_LANES(l) t[l] = (uint##WD##_t)(EXPR); \
    ALU_TAIL(WD) }
#define ALU3(NAME, WD, WA, WB, WC, EXPR) \
  ALU_HEAD(NAME) { \
    const uint##WA##_t *a = R##WA(w, x->slot[1]); \
    const uint##WB##_t *b = R##WB(w, x->slot[2]); \
    const uint##WC##_t *c = R##WC(w, x->slot[3]); \
    uint##WD##_t t[WARP_SIZE]; \
    FOR_LANES(l) t[l] = (uint##WD##_t)(EXPR); \
    ALU_TAIL(WD) }
#define ALU4(NAME, WD, WA, WB, WC, WE, EXPR) \
  ALU_HEAD(NAME) { \
    const uint##WA##_t *a = R##WA(w, x->slot[1]); \
    const uint##WB##_t *b = R##WB(w, x->slot[2]); \
    const uint##WC##_t *c = R##WC(w, x->slot[3]); \
    const uint##WE##_t *e = R##WE(w, x->slot[4]); \
    uint##WD##_t t[WARP_SIZE]; \
    FOR_LANES(l) t[l] = (uint##WD##_t)(EXPR); \
    ALU_TAIL(WD) }

static inline void merge_pred(Warp *w, uint32_t slot, uint32_t v, uint32_t mask) {
  if (slot == NOSLOT) return;
  w->pred[slot] = (w->pred[slot] & ~mask) | (v & mask);
}

#endif
