/* memory.c: device memory of a context (ptxvm.h "device memory").
 *
 * The context's Device (src/mem/device.c) is created at the first call that
 * needs it: reserving the arena's address space is cheap but not free, and a
 * context that only checks PTX never needs one. Every copy and set checks
 * that its device range lies inside one live allocation, with dev_host. */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "../mem/mem.h"
#include "api.h"

/* Address space reserved for a context's device memory (committed on use):
 * 64 GiB, or the host's RAM if that is less, so that a buffer the host
 * cannot hold is refused at allocation rather than thrashing the host. */
static size_t device_reserve(void) {
  size_t max = (size_t)64 << 30;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && (size_t)pages * (size_t)page < max) max = (size_t)pages * (size_t)page;
  return max;
}

Device *api_device(ptxvm_context *ctx) {
  if (!ctx->dev) ctx->dev = dev_create(device_reserve());
  return ctx->dev;
}

ptxvm_status ptxvm_mem_alloc(ptxvm_context *ctx, size_t bytes, ptxvm_devptr *out) {
  if (!ctx || !out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_alloc: NULL argument");
  Device *d = api_device(ctx);
  if (!d) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "cannot reserve device memory");
  uint64_t a = dev_alloc(d, bytes, 256);
  if (!a)
    return api_fail(ctx, PTXVM_ERROR_OUT_OF_DEVICE_MEMORY,
                    "cannot allocate %zu bytes of device memory (ptxvm's device memory is at most "
                    "the host's RAM, and 64 GiB)", bytes);
  *out = a;
  return api_ok(ctx);
}

ptxvm_status ptxvm_mem_free(ptxvm_context *ctx, ptxvm_devptr ptr) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  if (ptr == 0) return api_ok(ctx);
  if (!ctx->dev || !dev_free(ctx->dev, ptr))
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
                    "ptxvm_mem_free: 0x%" PRIx64 " is not the start of an allocation", ptr);
  return api_ok(ctx);
}

ptxvm_status ptxvm_mem_size(ptxvm_context *ctx, ptxvm_devptr ptr, size_t *out) {
  if (!ctx || !out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_size: NULL argument");
  /* a zero-size allocation has size 0 but starts one: check the start */
  uint64_t start, size;
  if (!ctx->dev || !dev_find(ctx->dev, ptr, &start, &size, NULL) || start != ptr)
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
                    "ptxvm_mem_size: 0x%" PRIx64 " is not the start of an allocation", ptr);
  *out = (size_t)size;
  return api_ok(ctx);
}

/* Host pointer for a device range, or NULL with the error recorded. */
static void *range(ptxvm_context *ctx, const char *fn, ptxvm_devptr p, size_t bytes) {
  void *h = ctx->dev ? dev_host(ctx->dev, p, bytes) : NULL;
  if (!h)
    api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
             "%s: %zu bytes at 0x%" PRIx64 " are not inside one allocation", fn, bytes, p);
  return h;
}

ptxvm_status ptxvm_memcpy_htod(ptxvm_context *ctx, ptxvm_devptr dst, const void *src, size_t bytes) {
  if (!ctx || (!src && bytes))
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_memcpy_htod: NULL argument");
  void *d = range(ctx, "ptxvm_memcpy_htod", dst, bytes);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  if (bytes) memcpy(d, src, bytes);
  return api_ok(ctx);
}

ptxvm_status ptxvm_memcpy_dtoh(ptxvm_context *ctx, void *dst, ptxvm_devptr src, size_t bytes) {
  if (!ctx || (!dst && bytes))
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_memcpy_dtoh: NULL argument");
  const void *s = range(ctx, "ptxvm_memcpy_dtoh", src, bytes);
  if (!s) return PTXVM_ERROR_INVALID_ADDRESS;
  if (bytes) memcpy(dst, s, bytes);
  return api_ok(ctx);
}

ptxvm_status ptxvm_memcpy_dtod(ptxvm_context *ctx, ptxvm_devptr dst, ptxvm_devptr src, size_t bytes) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  void *d = range(ctx, "ptxvm_memcpy_dtod", dst, bytes);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  const void *s = range(ctx, "ptxvm_memcpy_dtod", src, bytes);
  if (!s) return PTXVM_ERROR_INVALID_ADDRESS;
  if (bytes) memmove(d, s, bytes);
  return api_ok(ctx);
}

ptxvm_status ptxvm_memset_d8(ptxvm_context *ctx, ptxvm_devptr dst, uint8_t value, size_t count) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  void *d = range(ctx, "ptxvm_memset_d8", dst, count);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  if (count) memset(d, value, count);
  return api_ok(ctx);
}

ptxvm_status ptxvm_memset_d32(ptxvm_context *ctx, ptxvm_devptr dst, uint32_t value, size_t count) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  if (dst & 3)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE,
                    "ptxvm_memset_d32: 0x%" PRIx64 " is not 4-byte aligned", dst);
  if (count > SIZE_MAX / 4)
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS, "ptxvm_memset_d32: count too large");
  uint8_t *d = range(ctx, "ptxvm_memset_d32", dst, count * 4);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  for (size_t i = 0; i < count; i++) memcpy(d + 4 * i, &value, 4);
  return api_ok(ctx);
}
