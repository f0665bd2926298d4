/* memory.c: device memory: allocation, information, copies and sets.
 *
 * Every copy and set is synchronous, so the Async forms run at once on the
 * calling thread (after checking their stream), and the per-thread default
 * stream variants (_ptds, _ptsz) are the same functions. A device pointer is
 * a ptxvm device address (ptxvm.h "device memory"); a range outside one live
 * allocation is CUDA_ERROR_INVALID_VALUE, as the driver answers it. */
#include <string.h>

#include "driver.h"


CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  CUcontext c;
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_devptr p = 0;
  /* cuMemAlloc refuses 0 bytes */
  ptxvm_status st = bytesize ? ptxvm_mem_alloc(c->vm, bytesize, &p) : PTXVM_ERROR_INVALID_VALUE;
  drv_leave(c);
  if (st == PTXVM_SUCCESS) *dptr = p;
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS
         : st == PTXVM_ERROR_INVALID_VALUE ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  CUcontext c;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_status st = ptxvm_mem_free(c->vm, dptr);
  drv_leave(c);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  CUcontext c;
  if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_mem_get_info(c->vm, free_bytes, total);
  drv_leave(c);
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
  CUcontext c;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_devptr base = 0;
  size_t size = 0;
  ptxvm_status st = ptxvm_mem_get_range(c->vm, dptr, &base, &size);
  drv_leave(c);
  if (st != PTXVM_SUCCESS) return CUDA_ERROR_NOT_FOUND;
  if (pbase) *pbase = base;
  if (psize) *psize = size;
  return CUDA_SUCCESS;
}

/* ---- copies ---- */

enum Dir { HTOD, DTOH, DTOD };

static CUresult copy(enum Dir dir, CUdeviceptr dst_d, void *dst_h, CUdeviceptr src_d, const void *src_h,
                     size_t bytes) {
  CUcontext c;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_status st = dir == HTOD   ? ptxvm_memcpy_htod(c->vm, dst_d, src_h, bytes)
                    : dir == DTOH ? ptxvm_memcpy_dtoh(c->vm, dst_h, src_d, bytes)
                                  : ptxvm_memcpy_dtod(c->vm, dst_d, src_d, bytes);
  drv_leave(c);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* An Async form's stream must be valid; the copy itself runs at once. */
static CUresult on_stream(CUstream s) {
  CUcontext sc;
  return drv_stream_ctx(s, &sc);
}

/* The synchronous forms are the legacy stream's: drv_capture refuses them
 * while a blocking stream captures (graph.c). */
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  drv_printf_flush();   /* a blocking copy synchronizes */
  CUresult r;
  return drv_capture_copy(NULL, dst, NULL, 0, src, n, &r) ? r : copy(HTOD, dst, NULL, 0, src, n);
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  drv_printf_flush();   /* a blocking copy synchronizes */
  CUresult r;
  return drv_capture_copy(NULL, 0, dst, src, NULL, n, &r) ? r : copy(DTOH, 0, dst, src, NULL, n);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  drv_printf_flush();   /* a blocking copy synchronizes */
  CUresult r;
  return drv_capture_copy(NULL, dst, NULL, src, NULL, n, &r) ? r : copy(DTOD, dst, NULL, src, NULL, n);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  CUresult r = on_stream(s);
  if (r == CUDA_SUCCESS && drv_capture_copy(s, dst, NULL, 0, src, n, &r)) return r;
  return r != CUDA_SUCCESS ? r : copy(HTOD, dst, NULL, 0, src, n);
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  CUresult r = on_stream(s);
  if (r == CUDA_SUCCESS && drv_capture_copy(s, 0, dst, src, NULL, n, &r)) return r;
  return r != CUDA_SUCCESS ? r : copy(DTOH, 0, dst, src, NULL, n);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  CUresult r = on_stream(s);
  if (r == CUDA_SUCCESS && drv_capture_copy(s, dst, NULL, src, NULL, n, &r)) return r;
  return r != CUDA_SUCCESS ? r : copy(DTOD, dst, NULL, src, NULL, n);
}

PER_THREAD(cuMemcpyHtoD_v2_ptds, cuMemcpyHtoD_v2)
PER_THREAD(cuMemcpyDtoH_v2_ptds, cuMemcpyDtoH_v2)
PER_THREAD(cuMemcpyDtoD_v2_ptds, cuMemcpyDtoD_v2)
PER_THREAD(cuMemcpyHtoDAsync_v2_ptsz, cuMemcpyHtoDAsync_v2)
PER_THREAD(cuMemcpyDtoHAsync_v2_ptsz, cuMemcpyDtoHAsync_v2)
PER_THREAD(cuMemcpyDtoDAsync_v2_ptsz, cuMemcpyDtoDAsync_v2)

/* ---- sets ---- */

/* Sets n elements of `size` bytes (1, 2 or 4) at dst to the low bytes of v:
 * d8 and d32 through ptxvm, d16 (which ptxvm has no call for) by copying a
 * pattern block at a time. */
static CUresult set(CUdeviceptr dst, unsigned v, size_t n, unsigned size) {
  CUcontext c;
  if (size > 1 && dst % size) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_status st = PTXVM_SUCCESS;
  if (size == 1) st = ptxvm_memset_d8(c->vm, dst, (uint8_t)v, n);
  else if (size == 4) st = ptxvm_memset_d32(c->vm, dst, v, n);
  else {
    uint16_t block[4096];
    for (size_t i = 0; i < 4096; i++) block[i] = (uint16_t)v;
    ptxvm_devptr base;
    size_t asize;
    if (n > SIZE_MAX / 2 || ptxvm_mem_get_range(c->vm, dst, &base, &asize) != PTXVM_SUCCESS ||
        dst - base > asize || asize - (dst - base) < 2 * n)
      st = PTXVM_ERROR_INVALID_ADDRESS;   /* all or nothing: check the range first */
    for (size_t i = 0; i < n && st == PTXVM_SUCCESS; i += 4096) {
      size_t k = n - i < 4096 ? n - i : 4096;
      st = ptxvm_memcpy_htod(c->vm, dst + 2 * i, block, 2 * k);
    }
  }
  drv_leave(c);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t n) {
  CUresult r;   /* the legacy stream's, as the copies */
  return drv_capture_set(NULL, dst, uc, 1, n, &r) ? r : set(dst, uc, n, 1);
}
CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short us, size_t n) {
  CUresult r;
  return drv_capture_set(NULL, dst, us, 2, n, &r) ? r : set(dst, us, n, 2);
}
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int ui, size_t n) {
  CUresult r;
  return drv_capture_set(NULL, dst, ui, 4, n, &r) ? r : set(dst, ui, n, 4);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s) {
  CUresult r = on_stream(s);
  if (r == CUDA_SUCCESS && drv_capture_set(s, dst, uc, 1, n, &r)) return r;
  return r != CUDA_SUCCESS ? r : set(dst, uc, n, 1);
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short us, size_t n, CUstream s) {
  CUresult r = on_stream(s);
  if (r == CUDA_SUCCESS && drv_capture_set(s, dst, us, 2, n, &r)) return r;
  return r != CUDA_SUCCESS ? r : set(dst, us, n, 2);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s) {
  CUresult r = on_stream(s);
  if (r == CUDA_SUCCESS && drv_capture_set(s, dst, ui, 4, n, &r)) return r;
  return r != CUDA_SUCCESS ? r : set(dst, ui, n, 4);
}

PER_THREAD(cuMemsetD8_v2_ptds, cuMemsetD8_v2)
PER_THREAD(cuMemsetD16_v2_ptds, cuMemsetD16_v2)
PER_THREAD(cuMemsetD32_v2_ptds, cuMemsetD32_v2)
PER_THREAD(cuMemsetD8Async_ptsz, cuMemsetD8Async)
PER_THREAD(cuMemsetD16Async_ptsz, cuMemsetD16Async)
PER_THREAD(cuMemsetD32Async_ptsz, cuMemsetD32Async)
