/* memory.c: device memory of a context (ptxvm.h "device memory").
 *
 * The context's Device (src/mem/device.c) is created at the first call that
 * needs it: reserving the arena's address space is cheap but not free, and a
 * context that only checks PTX never needs one. Its size is what
 * ptxvm_set_device_memory set, else PTXVM_DEVICE_MEMORY, else 3/4 of what
 * the host can give when it is created (MemAvailable, and the cgroup's
 * remaining memory.max), at most 64 GiB: allocations beyond it are refused
 * with PTXVM_ERROR_OUT_OF_DEVICE_MEMORY instead of the host's OOM killer
 * ending the process once a kernel writes them. Every copy and set checks
 * that its device range lies inside one live allocation, with dev_host.
 * Managed, host and registered memory are entries of the same table
 * (src/mem/device.c), so copies, kernels and queries treat them alike. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mem/mem.h"
#include "../util/text.h"
#include "api.h"

#define DEVICE_MAX ((uint64_t)64 << 30)

/* The number after `key` in a /proc-style file, times `unit`; 0 if absent. */
static uint64_t file_number(const char *path, const char *key, uint64_t unit) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[256];
  uint64_t v = 0;
  size_t kl = strlen(key);
  while (!v && fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl)) v = strtoull(line + kl, NULL, 10) * unit;
  fclose(f);
  return v;
}

/* Bytes the host can give this process now: MemAvailable (else the free
 * pages), less if the cgroup (v2) allows less. */
static uint64_t host_available(void) {
  uint64_t avail = file_number("/proc/meminfo", "MemAvailable:", 1024);
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (!avail && pages > 0 && page > 0) avail = (uint64_t)pages * (uint64_t)page;
  uint64_t max = file_number("/sys/fs/cgroup/memory.max", "", 1);
  uint64_t cur = file_number("/sys/fs/cgroup/memory.current", "", 1);
  if (max && (max < cur ? 0 : max - cur) < avail) avail = max < cur ? 0 : max - cur;
  return avail;
}

/* The device size of ctx (ptxvm.h ptxvm_set_device_memory), or 0 after
 * recording the error of a bad PTXVM_DEVICE_MEMORY. */
static uint64_t device_size(Ctx *ctx) {
  if (ctx->device_limit) return ctx->device_limit;
  const char *e = getenv("PTXVM_DEVICE_MEMORY");
  uint64_t v;
  if (e && *e) {
    if (text_parse_size(e, &v) && v) return v;
    api_fail(ctx, PTXVM_ERROR_INVALID_VALUE,
             "PTXVM_DEVICE_MEMORY='%s' is not a size (bytes, or a number with K, M or G)", e);
    return 0;
  }
  v = host_available() / 4 * 3;
  return v < DEVICE_MAX ? v : DEVICE_MAX;
}

ptxvm_status api_device(Ctx *ctx, Device **out) {
  if (!ctx->dev) {
    uint64_t size = device_size(ctx);
    if (!size) return PTXVM_ERROR_INVALID_VALUE;
    if (!(ctx->dev = dev_create(size)))
      return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "cannot reserve device memory");
    dev_set_limit(ctx->dev, size);
  }
  *out = ctx->dev;
  return PTXVM_SUCCESS;
}

static ptxvm_status set_device_memory(Ctx *ctx, size_t bytes) {
  uint64_t old = ctx->device_limit;
  ctx->device_limit = bytes;
  if (ctx->dev) {
    uint64_t size = device_size(ctx);
    if (!size || !dev_set_limit(ctx->dev, size)) {
      ctx->device_limit = old;
      if (!size) return PTXVM_ERROR_INVALID_VALUE;
      return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE,
                      "ptxvm_set_device_memory: %" PRIu64 " bytes is more than the %" PRIu64 " the "
                      "context reserved at its first allocation or launch; set it before those",
                      size, dev_reserved(ctx->dev));
    }
  }
  return api_ok(ctx);
}

static ptxvm_status mem_get_info(Ctx *ctx, size_t *free_bytes, size_t *total_bytes) {
  if (!free_bytes || !total_bytes)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_get_info: NULL argument");
  Device *d;
  ptxvm_status st = api_device(ctx, &d);
  if (st != PTXVM_SUCCESS) return st;
  uint64_t lim = dev_limit(d), used = dev_used(d);
  *total_bytes = (size_t)lim;
  *free_bytes = (size_t)(used < lim ? lim - used : 0);
  return api_ok(ctx);
}

static ptxvm_status mem_alloc(Ctx *ctx, size_t bytes, ptxvm_devptr *out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_alloc: NULL argument");
  Device *d;
  ptxvm_status st = api_device(ctx, &d);
  if (st != PTXVM_SUCCESS) return st;
  uint64_t a = dev_alloc(d, bytes, 256, ctx->alloc_padding);
  if (!a)
    return api_fail(ctx, PTXVM_ERROR_OUT_OF_DEVICE_MEMORY,
                    "cannot allocate %zu bytes of device memory: %" PRIu64 " of the context's %" PRIu64
                    " bytes are in use (set the size with --device-memory, PTXVM_DEVICE_MEMORY or "
                    "ptxvm_set_device_memory; by default 3/4 of the host's available memory, at most 64 GiB)",
                    bytes, dev_used(d), dev_limit(d));
  *out = a;
  return api_ok(ctx);
}

static ptxvm_status mem_free(Ctx *ctx, ptxvm_devptr ptr) {
  if (ptr == 0) return api_ok(ctx);
  if (!ctx->dev || !dev_free_user(ctx->dev, ptr))
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
                    "ptxvm_mem_free: 0x%" PRIx64 " starts no allocation of ptxvm_mem_alloc, _managed or _host", ptr);
  return api_ok(ctx);
}

static ptxvm_status mem_size(Ctx *ctx, ptxvm_devptr ptr, size_t *out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_size: NULL argument");
  /* a zero-size allocation has size 0 but starts one: check the start */
  uint64_t start, size;
  if (!ctx->dev || !dev_find(ctx->dev, ptr, &start, &size, NULL) || start != ptr)
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
                    "ptxvm_mem_size: 0x%" PRIx64 " is not the start of an allocation", ptr);
  *out = (size_t)size;
  return api_ok(ctx);
}

static ptxvm_status mem_get_range(Ctx *ctx, ptxvm_devptr ptr, ptxvm_devptr *base, size_t *size) {
  DevRange r;
  if (!ctx->dev || !dev_range(ctx->dev, ptr, &r))
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS, "ptxvm_mem_get_range: 0x%" PRIx64 " is in no allocation",
                    ptr);
  if (base) *base = r.start;
  if (size) *size = (size_t)r.size;
  return api_ok(ctx);
}

/* Host pointer for a device range, or NULL with the error recorded. */
static void *range(Ctx *ctx, const char *fn, ptxvm_devptr p, size_t bytes) {
  void *h = ctx->dev ? dev_host(ctx->dev, p, bytes) : NULL;
  if (!h)
    api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
             "%s: %zu bytes at 0x%" PRIx64 " are not inside one allocation", fn, bytes, p);
  return h;
}

static ptxvm_status memcpy_htod(Ctx *ctx, ptxvm_devptr dst, const void *src, size_t bytes) {
  if (!src && bytes)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_memcpy_htod: NULL argument");
  void *d = range(ctx, "ptxvm_memcpy_htod", dst, bytes);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  if (bytes) memcpy(d, src, bytes);
  dev_set_written(ctx->dev, d, bytes);
  return api_ok(ctx);
}

static ptxvm_status memcpy_dtoh(Ctx *ctx, void *dst, ptxvm_devptr src, size_t bytes) {
  if (!dst && bytes)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_memcpy_dtoh: NULL argument");
  const void *s = range(ctx, "ptxvm_memcpy_dtoh", src, bytes);
  if (!s) return PTXVM_ERROR_INVALID_ADDRESS;
  if (bytes) memcpy(dst, s, bytes);
  return api_ok(ctx);
}

static ptxvm_status memcpy_dtod(Ctx *ctx, ptxvm_devptr dst, ptxvm_devptr src, size_t bytes) {
  void *d = range(ctx, "ptxvm_memcpy_dtod", dst, bytes);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  const void *s = range(ctx, "ptxvm_memcpy_dtod", src, bytes);
  if (!s) return PTXVM_ERROR_INVALID_ADDRESS;
  if (bytes) memmove(d, s, bytes);
  dev_set_written(ctx->dev, d, bytes);   /* the source's state is not copied */
  return api_ok(ctx);
}

static ptxvm_status memset_d8(Ctx *ctx, ptxvm_devptr dst, uint8_t value, size_t count) {
  void *d = range(ctx, "ptxvm_memset_d8", dst, count);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  if (count) memset(d, value, count);
  dev_set_written(ctx->dev, d, count);
  return api_ok(ctx);
}

static ptxvm_status memset_d32(Ctx *ctx, ptxvm_devptr dst, uint32_t value, size_t count) {
  if (dst & 3)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE,
                    "ptxvm_memset_d32: 0x%" PRIx64 " is not 4-byte aligned", dst);
  if (count > SIZE_MAX / 4)
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS, "ptxvm_memset_d32: count too large");
  uint8_t *d = range(ctx, "ptxvm_memset_d32", dst, count * 4);
  if (!d) return PTXVM_ERROR_INVALID_ADDRESS;
  for (size_t i = 0; i < count; i++) memcpy(d + 4 * i, &value, 4);
  dev_set_written(ctx->dev, d, count * 4);
  return api_ok(ctx);
}

static ptxvm_status mem_alloc_managed(Ctx *ctx, size_t bytes, ptxvm_devptr *out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_alloc_managed: NULL argument");
  Device *d;
  ptxvm_status st = api_device(ctx, &d);
  if (st != PTXVM_SUCCESS) return st;
  uint64_t a = dev_alloc_managed(d, bytes, ctx->alloc_padding);
  if (!a)
    return api_fail(ctx, PTXVM_ERROR_OUT_OF_DEVICE_MEMORY,
                    "cannot allocate %zu bytes of managed memory: %" PRIu64 " of the context's %" PRIu64
                    " bytes of device memory are in use", bytes, dev_used(d), dev_limit(d));
  *out = a;
  return api_ok(ctx);
}

static ptxvm_status mem_alloc_host(Ctx *ctx, size_t bytes, void **out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_alloc_host: NULL argument");
  Device *d;
  ptxvm_status st = api_device(ctx, &d);
  if (st != PTXVM_SUCCESS) return st;
  void *p = dev_alloc_host(d, bytes);
  if (!p) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory", bytes);
  *out = p;
  return api_ok(ctx);
}

static ptxvm_status mem_register(Ctx *ctx, void *p, size_t bytes, int readonly) {
  Device *d;
  ptxvm_status st = api_device(ctx, &d);
  if (st != PTXVM_SUCCESS) return st;
  const char *why = NULL;
  ptxvm_status err = PTXVM_ERROR_INVALID_VALUE;
  switch (dev_register(d, p, bytes, readonly != 0)) {
  case REG_OK: return api_ok(ctx);
  case REG_EMPTY: why = "is NULL, empty or wraps around"; break;
  case REG_WINDOW: why = "overlaps ptxvm's shared, local or param window (docs/ARCHITECTURE.md)"; break;
  case REG_UNMAPPED:
    why = readonly ? "is not all mapped readable by the host" : "is not all mapped readable and writable by the host";
    break;
  case REG_OVERLAP: why = "overlaps an allocation of the context"; err = PTXVM_ERROR_INVALID_ADDRESS; break;
  default: return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "ptxvm_mem_register: out of host memory");
  }
  return api_fail(ctx, err, "ptxvm_mem_register: the %zu bytes at %p %s", bytes, p, why);
}

static ptxvm_status mem_unregister(Ctx *ctx, void *p) {
  if (!ctx->dev || !dev_unregister(ctx->dev, (uintptr_t)p))
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS, "ptxvm_mem_unregister: no registered range starts at %p", p);
  return api_ok(ctx);
}

static ptxvm_status mem_query(Ctx *ctx, ptxvm_devptr ptr, ptxvm_mem_range *out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_query: NULL argument");
  DevRange r;
  if (!ctx->dev || !dev_range(ctx->dev, ptr, &r)) return PTXVM_ERROR_NOT_FOUND;
  static const ptxvm_mem_kind kinds[] = {[MK_DEVICE] = PTXVM_MEM_DEVICE, [MK_MANAGED] = PTXVM_MEM_MANAGED,
                                         [MK_HOST] = PTXVM_MEM_HOST, [MK_REGISTERED] = PTXVM_MEM_REGISTERED};
  *out = (ptxvm_mem_range){r.start, (size_t)r.size, kinds[r.kind], r.readonly, r.id, r.user};
  return PTXVM_SUCCESS;
}

static ptxvm_status mem_set_user(Ctx *ctx, ptxvm_devptr ptr, unsigned user) {
  if (!ctx->dev || !dev_set_user(ctx->dev, ptr, user))
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
                    "ptxvm_mem_set_user: 0x%" PRIx64 " is not the start of an allocation", ptr);
  return api_ok(ctx);
}

static ptxvm_status mem_host_ptr(Ctx *ctx, ptxvm_devptr ptr, size_t bytes, void **host) {
  if (!host) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_mem_host_ptr: NULL argument");
  void *h = range(ctx, "ptxvm_mem_host_ptr", ptr, bytes);
  if (!h) return PTXVM_ERROR_INVALID_ADDRESS;
  dev_set_written(ctx->dev, h, bytes);   /* the caller may write through it */
  *host = h;
  return api_ok(ctx);
}

static ptxvm_status mem_set_uninitialized(Ctx *ctx, ptxvm_devptr ptr) {
  DevRange r;
  if (!ctx->dev || !dev_range(ctx->dev, ptr, &r) || r.start != ptr || r.kind != MK_DEVICE)
    return api_fail(ctx, PTXVM_ERROR_INVALID_ADDRESS,
                    "ptxvm_mem_set_uninitialized: 0x%" PRIx64 " is not the start of a ptxvm_mem_alloc allocation", ptr);
  if (ctx->check && !dev_set_undef(ctx->dev, ptr))
    return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "ptxvm_mem_set_uninitialized: out of host memory");
  return api_ok(ctx);
}

/* ---- the public calls ---- */

ptxvm_status ptxvm_mem_alloc_managed(ptxvm_context *h, size_t bytes, ptxvm_devptr *out) {
  ON_CONTEXT(h, mem_alloc_managed(ctx, bytes, out));
}

ptxvm_status ptxvm_mem_alloc_host(ptxvm_context *h, size_t bytes, void **out) {
  ON_CONTEXT(h, mem_alloc_host(ctx, bytes, out));
}

ptxvm_status ptxvm_mem_register(ptxvm_context *h, void *p, size_t bytes, int readonly) {
  ON_CONTEXT(h, mem_register(ctx, p, bytes, readonly));
}

ptxvm_status ptxvm_mem_unregister(ptxvm_context *h, void *p) {
  ON_CONTEXT(h, mem_unregister(ctx, p));
}

ptxvm_status ptxvm_mem_query(ptxvm_context *h, ptxvm_devptr ptr, ptxvm_mem_range *out) {
  ON_CONTEXT(h, mem_query(ctx, ptr, out));
}

ptxvm_status ptxvm_mem_set_user(ptxvm_context *h, ptxvm_devptr ptr, unsigned user) {
  ON_CONTEXT(h, mem_set_user(ctx, ptr, user));
}

ptxvm_status ptxvm_mem_host_ptr(ptxvm_context *h, ptxvm_devptr ptr, size_t bytes, void **host) {
  ON_CONTEXT(h, mem_host_ptr(ctx, ptr, bytes, host));
}

ptxvm_status ptxvm_mem_set_uninitialized(ptxvm_context *h, ptxvm_devptr ptr) {
  ON_CONTEXT(h, mem_set_uninitialized(ctx, ptr));
}

ptxvm_status ptxvm_mem_free(ptxvm_context *h, ptxvm_devptr ptr) {
  ON_CONTEXT(h, mem_free(ctx, ptr));
}

ptxvm_status ptxvm_mem_size(ptxvm_context *h, ptxvm_devptr ptr, size_t *out) {
  ON_CONTEXT(h, mem_size(ctx, ptr, out));
}

ptxvm_status ptxvm_mem_get_range(ptxvm_context *h, ptxvm_devptr ptr, ptxvm_devptr *base, size_t *size) {
  ON_CONTEXT(h, mem_get_range(ctx, ptr, base, size));
}

ptxvm_status ptxvm_memcpy_htod(ptxvm_context *h, ptxvm_devptr dst, const void *src, size_t bytes) {
  ON_CONTEXT(h, memcpy_htod(ctx, dst, src, bytes));
}

ptxvm_status ptxvm_memcpy_dtoh(ptxvm_context *h, void *dst, ptxvm_devptr src, size_t bytes) {
  ON_CONTEXT(h, memcpy_dtoh(ctx, dst, src, bytes));
}

ptxvm_status ptxvm_memcpy_dtod(ptxvm_context *h, ptxvm_devptr dst, ptxvm_devptr src, size_t bytes) {
  ON_CONTEXT(h, memcpy_dtod(ctx, dst, src, bytes));
}

ptxvm_status ptxvm_memset_d8(ptxvm_context *h, ptxvm_devptr dst, uint8_t value, size_t count) {
  ON_CONTEXT(h, memset_d8(ctx, dst, value, count));
}

ptxvm_status ptxvm_memset_d32(ptxvm_context *h, ptxvm_devptr dst, uint32_t value, size_t count) {
  ON_CONTEXT(h, memset_d32(ctx, dst, value, count));
}

ptxvm_status ptxvm_set_device_memory(ptxvm_context *h, size_t bytes) {
  ON_CONTEXT(h, set_device_memory(ctx, bytes));
}

ptxvm_status ptxvm_mem_get_info(ptxvm_context *h, size_t *free_bytes, size_t *total_bytes) {
  ON_CONTEXT(h, mem_get_info(ctx, free_bytes, total_bytes));
}

ptxvm_status ptxvm_mem_alloc(ptxvm_context *h, size_t bytes, ptxvm_devptr *out) {
  ON_CONTEXT(h, mem_alloc(ctx, bytes, out));
}
