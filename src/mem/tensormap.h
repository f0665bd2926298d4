/* tensormap.h: ptxvm's layout of the 128-byte tensor map (the CUtensorMap
 * of cuTensorMapEncodeTiled, the tensorMap operand of cp.async.bulk.tensor,
 * PTX ISA 9.0 §5.5.8 "Tensor Map"). The object is opaque to programs; this
 * header is the one place that defines its bytes. Little-endian, 64-byte
 * aligned, every byte not listed is zero:
 *
 *   offset size  field
 *      0    4    magic TMAP_MAGIC ("PTM1"): a map ptxvm encoded
 *      4    1    rank, 1..5
 *      5    1    data type (CUtensorMapDataType's value)
 *      6    1    element size in bytes (1, 2, 4, 8)
 *      7    1    interleave (CUtensorMapInterleave's value: NONE, 16B, 32B;
 *                 an im2col map's only NONE)
 *      8    1    swizzle (CUtensorMapSwizzle's value: NONE, 32B, 64B, 128B run)
 *      9    1    L2 promotion (a hint)
 *     10    1    out-of-bounds fill: 0 zeros, 1 NaN (floating-point types)
 *     11    1    mode: 0 tile, 1 im2col (cuTensorMapEncodeIm2col)
 *     16    8    global address (16-byte aligned)
 *     24   40    global dimensions, u64[5] (elements; dims beyond rank 1)
 *     64   32    global strides of dimensions 1..4, u64[4] (bytes; dimension
 *                0's is the element size)
 *     96   10    box dimensions, u16[5] (elements, 1..256)
 *    106    5    element strides, u8[5] (1..8; dimension 0's is ignored
 *                 unless the map is interleaved)
 *    112    6    im2col: the bounding box's lower corner, s16[3] (dimension
 *                 1 (W), 2 (H), 3 (D); those past rank - 2 zero)
 *    118    6    im2col: its upper corner, s16[3], likewise
 *    124    2    im2col: channels per pixel, u16 (1..256)
 *    126    2    im2col: pixels per column, u16 (1..1024)
 * (an im2col map's box dimensions are 1.)
 *
 * The shared-memory box (what a tile copy writes or reads): the elements
 * ceil(box[i] / elementStride[i]) per dimension (dimension 0: box[0], or
 * with an interleaved map ceil(box[0] / elementStride[0])), dimension 0
 * innermost and dense (row after row, rows of n0 * element size bytes),
 * then the swizzle:
 * byte offset o of the shared address becomes o ^ ((o >> 7) & m) << 4 with
 * m = 1, 3, 7 for 32B, 64B, 128B (16-byte chunks XOR-ed with the row index
 * within 256, 512, 1024 bytes), applied to the shared::cta address itself.
 * An im2col copy's box is pixels-per-column rows of channels-per-pixel
 * elements (src/exec/im2col.c), laid out and swizzled the same way.
 *
 * Interleave (PTX ISA 9.0 §5.5.6; NC/8HWC8 with 16B, NC/16HWC16 with 32B):
 * the map describes the interleaved tensor itself, dimension 0 the
 * channels of one 16- or 32-byte slice, then W, H, (D,) C / slice, N, so
 * a copy walks it as any tile map; the differences are cuda.h's rules
 * (rank 3..5, no multiple-of-16 box row, no swizzle-span limit, 32B
 * interleave: 32B swizzle, 32-byte address and strides) and dimension 0's
 * element stride, which an interleaved map honours (§5.5.3.2). ptxvm
 * executes the boxes whose dimension-0 row is whole slices, where a dense
 * row and a row padded to the slice agree (tests/gpu/README.md). */
#ifndef PTXVM_MEM_TENSORMAP_H
#define PTXVM_MEM_TENSORMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TMAP_MAGIC 0x314d5450u   /* "PTM1" */
#define TMAP_BYTES 128
#define TMAP_MAX_RANK 5

typedef struct TensorMap {
  unsigned rank, dtype, esize, interleave, swizzle, l2promo, oobfill;
  uint64_t addr;
  uint64_t dim[TMAP_MAX_RANK];
  uint64_t stride[TMAP_MAX_RANK];   /* bytes; stride[0] = esize */
  uint32_t box[TMAP_MAX_RANK];
  uint32_t estride[TMAP_MAX_RANK];
  unsigned mode;                    /* TMAP_TILE or TMAP_IM2COL */
  int32_t lower[3], upper[3];       /* im2col: the corners, spatial dimensions 1.. */
  uint32_t cpp, ppc;                /* im2col: channels per pixel, pixels per column */
} TensorMap;

enum { TMAP_TILE, TMAP_IM2COL };

/* CUtensorMapDataType / Swizzle / Interleave values the tiles use. */
enum { TMAP_U8, TMAP_U16, TMAP_U32, TMAP_S32, TMAP_U64, TMAP_S64, TMAP_F16, TMAP_F32,
       TMAP_F64, TMAP_BF16, TMAP_F32_FTZ, TMAP_TF32, TMAP_TF32_FTZ, TMAP_16U4_ALIGN8B,
       TMAP_16U4_ALIGN16B, TMAP_16U6_ALIGN16B };
enum { TMAP_SWIZZLE_NONE, TMAP_SWIZZLE_32B, TMAP_SWIZZLE_64B, TMAP_SWIZZLE_128B,
       TMAP_SWIZZLE_128B_ATOM_32B, TMAP_SWIZZLE_128B_ATOM_32B_FLIP_8B, TMAP_SWIZZLE_128B_ATOM_64B };

/* The result of tensormap_encode: 0 encoded, 1 an invalid argument (the
 * documented requirements of cuTensorMapEncodeTiled), 2 valid but a form
 * ptxvm does not execute (packed types, an interleaved box of partial
 * slices, the 128B atom swizzles). *why names the rule. */
int tensormap_encode(uint8_t out[TMAP_BYTES], const TensorMap *m, const char **why);
/* The same for an im2col map (m->mode TMAP_IM2COL; cuTensorMapEncodeIm2col's
 * requirements: rank 3..5, the corners in the range of the rank, a
 * bounding box of non-zero area, channels per pixel 1..256, pixels per
 * column 1..1024, and the tiled rules for the rest; m->box is ignored). */
int tensormap_encode_im2col(uint8_t out[TMAP_BYTES], const TensorMap *m, const char **why);
/* Why ptxvm does not execute interleaved tile map m: its box's
 * dimension-0 row, ceil(box[0] / elementStrides[0]) elements, is not a
 * whole number of slices (16 or 32 bytes); NULL when it is, or m is not
 * interleaved. */
const char *tensormap_interleave_unsupported(const TensorMap *m);
/* Decodes the 128 bytes; false (with *why) when they are not a map ptxvm
 * encoded or a field is out of range (a tensormap.replace can write one). */
bool tensormap_decode(const uint8_t in[TMAP_BYTES], TensorMap *m, const char **why);
/* The name of a data type (CUtensorMapDataType's value): "u8" ... "bf16". */
const char *tensormap_type_name(unsigned dtype);
/* Element size in bytes of a data type, 0 for the packed and unknown ones. */
unsigned tensormap_esize(unsigned dtype);
/* The fields tensormap.replace edits (PTX ISA 9.0 §9.7.9.27). */
typedef enum { TMF_GLOBAL_ADDRESS, TMF_RANK, TMF_BOX_DIM, TMF_GLOBAL_DIM, TMF_GLOBAL_STRIDE,
               TMF_ELEMENT_STRIDE, TMF_ELEMTYPE, TMF_INTERLEAVE, TMF_SWIZZLE_MODE,
               TMF_SWIZZLE_ATOMICITY, TMF_FILL_MODE } TensorMapField;
/* tensormap.replace of field f (its ordinal ord for the per-dimension
 * fields: the dimension for box_dim, global_dim, element_stride; for
 * global_stride, ord k is dimension k + 1's stride, the k-th of
 * cuTensorMapEncodeTiled's globalStrides) with the ISA's value v (rank:
 * the rank minus one; elemtype, interleave, swizzle, fill: the ISA's
 * numbering, Table 33) on the 128 bytes m. The bytes become a ptxvm map
 * (the magic is written), so a kernel may build one from zeros; decoding
 * checks the result when a copy uses it. On an im2col map every field but
 * box_dim applies (the ISA's tensormap.replace has .tile fields only; the
 * im2col ones stay cuTensorMapEncodeIm2col's). False (with *why) for a
 * value the layout cannot hold or ptxvm does not support. */
bool tensormap_replace(uint8_t m[TMAP_BYTES], TensorMapField f, unsigned ord, uint64_t v, const char **why);

/* The swizzled shared-memory byte address of a (dense) box byte address. */
static inline uint32_t tensormap_swizzle(unsigned swizzle, uint32_t a) {
  uint32_t m = swizzle == TMAP_SWIZZLE_32B ? 1 : swizzle == TMAP_SWIZZLE_64B ? 3
             : swizzle == TMAP_SWIZZLE_128B ? 7 : 0;
  return a ^ (((a >> 7) & m) << 4);
}

#endif
