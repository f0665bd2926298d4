/* tensormap.c: ptxvm_tensor_map_encode, ptxvm_tensor_map_encode_im2col and
 * ptxvm_tensor_map_replace_address
 * (ptxvm.h "tensor maps"): the checks and the bytes are src/mem/tensormap.c's;
 * this file records the refusal's reason on the context, when one is given. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../mem/tensormap.h"
#include "api.h"

/* status with why recorded on h (when h is a usable context). */
static ptxvm_status refuse(ptxvm_context *h, ptxvm_status status, const char *why) {
  if (!h) return status;
  Ctx *ctx;
  if (api_enter(h, H_CONTEXT, &ctx, NULL) != PTXVM_SUCCESS) return status;
  return api_leave(ctx, api_fail(ctx, status, "tensor map: %s", why));
}

/* The checks and fields both encodings share; false after refusing. */
static bool start(ptxvm_context *h, const void *map, int dtype, int interleave, int swizzle, int l2_promotion,
                  int oob_fill, uint64_t global_address, TensorMap *m, ptxvm_status *st) {
  *st = PTXVM_ERROR_INVALID_VALUE;
  if ((uintptr_t)map % 64) return *st = refuse(h, *st, "the map must be 64-byte aligned"), false;
  if (dtype < 0 || interleave < 0 || swizzle < 0 || l2_promotion < 0 || oob_fill < 0)
    return *st = refuse(h, *st, "an enum value out of range"), false;
  *m = (TensorMap){.dtype = (unsigned)dtype, .interleave = (unsigned)interleave, .swizzle = (unsigned)swizzle,
                   .l2promo = (unsigned)l2_promotion, .oobfill = (unsigned)oob_fill, .addr = global_address};
  return true;
}

/* The encoder's verdict r (0, 1 invalid, 2 not supported) on bytes. */
static ptxvm_status finish(ptxvm_context *h, void *map, const uint8_t bytes[TMAP_BYTES], int r, const char *why) {
  if (r) return refuse(h, r == 1 ? PTXVM_ERROR_INVALID_VALUE : PTXVM_ERROR_NOT_SUPPORTED, why);
  memcpy(map, bytes, TMAP_BYTES);
  return PTXVM_SUCCESS;
}

ptxvm_status ptxvm_tensor_map_encode(ptxvm_context *h, void *map, int dtype, unsigned rank,
                                     uint64_t global_address, const uint64_t *global_dim,
                                     const uint64_t *global_strides, const uint32_t *box_dim,
                                     const uint32_t *element_strides, int interleave, int swizzle,
                                     int l2_promotion, int oob_fill) {
  if (!map || !global_dim || !box_dim || !element_strides || (rank > 1 && !global_strides))
    return refuse(h, PTXVM_ERROR_INVALID_VALUE, "a NULL argument");
  TensorMap m;
  ptxvm_status st;
  if (!start(h, map, dtype, interleave, swizzle, l2_promotion, oob_fill, global_address, &m, &st)) return st;
  m.rank = rank;
  for (unsigned i = 0; i < rank && i < TMAP_MAX_RANK; i++) {
    m.dim[i] = global_dim[i];
    m.box[i] = box_dim[i];
    m.estride[i] = element_strides[i];
    if (i) m.stride[i] = global_strides[i - 1];
  }
  const char *why = NULL;
  uint8_t bytes[TMAP_BYTES];
  int r = tensormap_encode(bytes, &m, &why);
  return finish(h, map, bytes, r, why);
}

ptxvm_status ptxvm_tensor_map_encode_im2col(ptxvm_context *h, void *map, int dtype, unsigned rank,
                                            uint64_t global_address, const uint64_t *global_dim,
                                            const uint64_t *global_strides, const int *lower_corner,
                                            const int *upper_corner, uint32_t channels_per_pixel,
                                            uint32_t pixels_per_column, const uint32_t *element_strides,
                                            int interleave, int swizzle, int l2_promotion, int oob_fill) {
  if (!map || !global_dim || !global_strides || !lower_corner || !upper_corner || !element_strides)
    return refuse(h, PTXVM_ERROR_INVALID_VALUE, "a NULL argument");
  TensorMap m;
  ptxvm_status st;
  if (!start(h, map, dtype, interleave, swizzle, l2_promotion, oob_fill, global_address, &m, &st)) return st;
  m.rank = rank; m.mode = TMAP_IM2COL; m.cpp = channels_per_pixel; m.ppc = pixels_per_column;
  for (unsigned i = 0; i < rank && i < TMAP_MAX_RANK; i++) {
    m.dim[i] = global_dim[i];
    m.estride[i] = element_strides[i];
    if (i) m.stride[i] = global_strides[i - 1];
    if (i + 2 < rank && i < 3) { m.lower[i] = lower_corner[i]; m.upper[i] = upper_corner[i]; }
  }
  const char *why = NULL;
  uint8_t bytes[TMAP_BYTES];
  int r = tensormap_encode_im2col(bytes, &m, &why);
  return finish(h, map, bytes, r, why);
}

ptxvm_status ptxvm_tensor_map_replace_address(ptxvm_context *h, void *map, uint64_t global_address) {
  if (!map || (uintptr_t)map % 64) return refuse(h, PTXVM_ERROR_INVALID_VALUE, "the map must be 64-byte aligned");
  TensorMap m;
  const char *why;
  if (!tensormap_decode(map, &m, &why)) return refuse(h, PTXVM_ERROR_INVALID_VALUE, why);
  if (global_address % 16) return refuse(h, PTXVM_ERROR_INVALID_VALUE, "the global address must be 16-byte aligned");
  memcpy((uint8_t *)map + 16, &global_address, 8);
  return PTXVM_SUCCESS;
}
