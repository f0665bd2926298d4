/* bulkred.h: element-wise reductions of bulk copies (PTX ISA 9.0
 * §9.7.9.25.4.2 cp.reduce.async.bulk, §9.7.9.25.5.3
 * cp.reduce.async.bulk.tensor): dst[i] = op(dst[i], src[i]) over an array of
 * one element type, applied when the copy lands. */
#ifndef PTXVM_EXEC_BULKRED_H
#define PTXVM_EXEC_BULKRED_H

#include <stdint.h>

typedef enum { BR_ADD, BR_MIN, BR_MAX, BR_INC, BR_DEC, BR_AND, BR_OR, BR_XOR } BulkRedOp;
typedef enum { BRT_U32, BRT_S32, BRT_U64, BRT_S64, BRT_F16, BRT_BF16, BRT_F32, BRT_F64 } BulkRedType;

/* The ISA's name of op (".add") and of type (".u32"). */
const char *bulkred_op_name(BulkRedOp op);
const char *bulkred_type_name(BulkRedType t);
/* Element size in bytes. */
unsigned bulkred_size(BulkRedType t);
/* Reduces the n bytes at dst (n a multiple of the element size) with those
 * at src, element by element, each element one host atomic (CTAs run on
 * several host threads). Integer add/min/max by type, inc(r, s) = r >= s ?
 * 0 : r + 1, dec(r, s) = r == 0 || r > s ? s : r - 1, bitwise and/or/xor;
 * float add rounds to nearest even (.f32 flushes subnormal inputs and
 * results to sign-preserving zero, .f16/.bf16 keep them, as the ISA says of
 * cp.reduce.async.bulk), float min/max as min/max.f16: a NaN operand yields
 * the other, -0 < +0; a NaN result is the canonical NaN (every fraction bit
 * set, sign clear). The caller checks the op/type pair. */
void bulkred_apply(BulkRedOp op, BulkRedType t, uint8_t *dst, const uint8_t *src, uint32_t n);

#endif
