/* tensormap.c: cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col and
 * cuTensorMapReplaceAddress. The
 * map's bytes are ptxvm's own layout (ptxvm.h "tensor maps"), made by
 * ptxvm_tensor_map_encode, which checks every requirement cuda.h lists: a
 * broken one is CUDA_ERROR_INVALID_VALUE, a valid map that ptxvm cannot
 * execute (packed types, interleaved boxes of partial slices, interleaved
 * im2col maps, 128B swizzles with 32B/64B atoms)
 * CUDA_ERROR_NOT_SUPPORTED (ptxvm_tensor_map_encode_im2col likewise).
 * cuTensorMapEncodeIm2colWide (compute capability 10.0) keeps the stub of
 * entries.c, which names it and returns CUDA_ERROR_NOT_SUPPORTED. */
#include "driver.h"

static CUresult result(ptxvm_status st) {
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS
       : st == PTXVM_ERROR_NOT_SUPPORTED ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim,
                                const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
                                const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                CUtensorMapFloatOOBfill oobFill) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  return result(ptxvm_tensor_map_encode(NULL, tensorMap, (int)tensorDataType, tensorRank,
                                        (uint64_t)(uintptr_t)globalAddress, globalDim, globalStrides,
                                        boxDim, elementStrides, (int)interleave, (int)swizzle,
                                        (int)l2Promotion, (int)oobFill));
}

CUresult cuTensorMapEncodeIm2col(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                 cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim,
                                 const cuuint64_t *globalStrides, const int *pixelBoxLowerCorner,
                                 const int *pixelBoxUpperCorner, cuuint32_t channelsPerPixel,
                                 cuuint32_t pixelsPerColumn, const cuuint32_t *elementStrides,
                                 CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                 CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  return result(ptxvm_tensor_map_encode_im2col(NULL, tensorMap, (int)tensorDataType, tensorRank,
                                               (uint64_t)(uintptr_t)globalAddress, globalDim, globalStrides,
                                               pixelBoxLowerCorner, pixelBoxUpperCorner, channelsPerPixel,
                                               pixelsPerColumn, elementStrides, (int)interleave, (int)swizzle,
                                               (int)l2Promotion, (int)oobFill));
}

CUresult cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  return result(ptxvm_tensor_map_replace_address(NULL, tensorMap, (uint64_t)(uintptr_t)globalAddress));
}
