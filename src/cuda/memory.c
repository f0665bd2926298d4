/* memory.c: memory: allocation, host memory, copies and sets, pointer
 * attributes, the stream-ordered allocator.
 *
 * Unified addressing (ptxvm.h "device memory"): a device pointer is the
 * host address of its bytes, and every allocation of a context — device,
 * managed, host (cuMemHostAlloc) and registered (cuMemHostRegister) — is an
 * entry of its ptxvm allocation table, which ptxvm_mem_query reads. A
 * pointer's context is found by asking each live context (the list below);
 * copies resolve each side to a host pointer (ptxvm_mem_host_ptr: a device
 * buffer's second mapping; the others are their own address), a pointer in
 * no allocation being plain host memory where the call allows one. So the
 * generic cuMemcpy, the 2-D and 3-D copies and the copies between contexts
 * are one routine, copy3d. A device range outside one live allocation is
 * CUDA_ERROR_INVALID_VALUE, as the driver answers it.
 *
 * Work is synchronous, so the Async forms run at once on the calling thread
 * (after checking their stream), and the per-thread default stream variants
 * (_ptds, _ptsz) are the same functions. The stream-ordered allocator has
 * one pool, the device's default (and current) pool: cuMemAllocAsync is an
 * allocation marked as the pool's (ptxvm_mem_set_user), cuMemFreeAsync frees
 * it at once, so the pool keeps no memory in reserve and trimming it has
 * nothing to do (in a stream capture they would be memory nodes: refused
 * by name). Copies and sets go through stream capture's hook (graph.c
 * drv_capture) first, as one CUDA_MEMCPY3D or memset record. The hints of
 * managed memory are advice.c's. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* cuda.h maps these names to their newest ABI; the older symbols are
 * defined here too, under their own names. */
#undef cuMemHostRegister

/* ptxvm_mem_range.user: the flags of cuMemHostAlloc / cuMemHostRegister in
 * the low byte; POOL_MARK on the stream-ordered allocator's allocations. */
enum { POOL_MARK = 1u << 31 };

/* ---- the live contexts ---- */

static pthread_mutex_t ctxs_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext *ctxs;
static int nctxs, capctxs;

bool drv_mem_ctx_add(CUcontext c) {
  pthread_mutex_lock(&ctxs_lock);
  bool ok = true;
  if (nctxs == capctxs) {
    int nc = capctxs ? 2 * capctxs : 8;
    CUcontext *n = realloc(ctxs, (size_t)nc * sizeof *n);
    if (n) ctxs = n, capctxs = nc;
    ok = n != NULL;
  }
  if (ok) ctxs[nctxs++] = c;
  pthread_mutex_unlock(&ctxs_lock);
  return ok;
}

void drv_mem_ctx_remove(CUcontext c) {
  pthread_mutex_lock(&ctxs_lock);
  for (int i = 0; i < nctxs; i++)
    if (ctxs[i] == c) ctxs[i] = ctxs[--nctxs];
  if (!nctxs) {
    free(ctxs);
    ctxs = NULL;
    capctxs = 0;
  }
  pthread_mutex_unlock(&ctxs_lock);
}

static bool holds(CUcontext c, CUdeviceptr ptr, ptxvm_mem_range *r) {
  pthread_mutex_lock(&c->lock);
  bool yes = ptxvm_mem_query(c->vm, ptr, r) == PTXVM_SUCCESS;
  pthread_mutex_unlock(&c->lock);
  return yes;
}

/* The context whose allocation holds ptr (*r describes it), or NULL: the
 * calling thread's current context first (the usual answer), then every
 * other. Call it holding no context's lock. */
static CUcontext owner(CUdeviceptr ptr, ptxvm_mem_range *r) {
  CUcontext cur = drv_current(), found = NULL;
  pthread_mutex_lock(&ctxs_lock);
  for (int i = 0; i < nctxs && cur; i++)
    if (ctxs[i] == cur) found = holds(cur, ptr, r) ? cur : NULL;
  for (int i = 0; i < nctxs && !found; i++)
    if (ctxs[i] != cur && holds(ctxs[i], ptr, r)) found = ctxs[i];
  pthread_mutex_unlock(&ctxs_lock);
  return found;
}

CUcontext drv_mem_owner(CUdeviceptr ptr, ptxvm_mem_range *r) { return owner(ptr, r); }

/* The host pointer of [ptr, ptr + bytes): inside an allocation, what
 * ptxvm_mem_host_ptr gives; in none, ptr itself if host memory is allowed
 * there (`host_ok`), else CUDA_ERROR_INVALID_VALUE. */
static CUresult resolve(CUdeviceptr ptr, size_t bytes, bool host_ok, void **out) {
  ptxvm_mem_range r;
  CUcontext c = owner(ptr, &r);
  if (!c) {
    if (!host_ok || !ptr) return CUDA_ERROR_INVALID_VALUE;
    *out = (void *)(uintptr_t)ptr;
    return CUDA_SUCCESS;
  }
  pthread_mutex_lock(&c->lock);
  ptxvm_status st = ptxvm_mem_host_ptr(c->vm, ptr, bytes, out);
  pthread_mutex_unlock(&c->lock);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The message of a form ptxvm does not implement, printed once. */
#define SAY_ONCE(...)                                                          \
  do {                                                                         \
    static atomic_flag said_ = ATOMIC_FLAG_INIT;                               \
    if (!atomic_flag_test_and_set(&said_)) drv_say(__VA_ARGS__);               \
  } while (0)

/* An Async form's stream must be valid; the work itself runs at once. */
static CUresult on_stream(CUstream s) {
  CUcontext sc;
  return drv_stream_ctx(s, &sc);
}

/* The current context, checked (initialised, live, no sticky error), not
 * left locked. */
static CUresult current_ok(CUcontext *out) {
  CUresult r = drv_enter_work(NULL, out);
  if (r == CUDA_SUCCESS) drv_leave(*out);
  return r;
}

/* ---- allocation ---- */

static struct CUmemPoolHandle_st {
  uint32_t magic;
  pthread_mutex_t lock;
  int reuse[3];              /* CU_MEMPOOL_ATTR_REUSE_* (1..3) */
  cuuint64_t threshold;      /* CU_MEMPOOL_ATTR_RELEASE_THRESHOLD */
  cuuint64_t used, high;     /* bytes of its live allocations; their peak */
} default_pool = {0x504f4f4c, PTHREAD_MUTEX_INITIALIZER, {1, 1, 1}, 0, 0, 0};

static void pool_count(size_t bytes, bool add) {
  pthread_mutex_lock(&default_pool.lock);
  if (add) default_pool.used += bytes;
  else default_pool.used -= bytes < default_pool.used ? bytes : default_pool.used;
  if (default_pool.used > default_pool.high) default_pool.high = default_pool.used;
  pthread_mutex_unlock(&default_pool.lock);
}

enum AllocKind { A_DEVICE, A_MANAGED, A_POOL };

static CUresult alloc(CUdeviceptr *dptr, size_t bytes, enum AllocKind kind) {
  CUcontext c;
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_devptr p = 0;
  /* the allocators refuse 0 bytes */
  ptxvm_status st = !bytes ? PTXVM_ERROR_INVALID_VALUE
                    : kind == A_MANAGED ? ptxvm_mem_alloc_managed(c->vm, bytes, &p)
                                        : ptxvm_mem_alloc(c->vm, bytes, &p);
  if (st == PTXVM_SUCCESS && kind == A_POOL) ptxvm_mem_set_user(c->vm, p, POOL_MARK);
  /* device memory starts uninitialized: under --check a kernel's load of
     bytes nothing wrote is a finding (a no-op otherwise) */
  if (st == PTXVM_SUCCESS && kind != A_MANAGED && (st = ptxvm_mem_set_uninitialized(c->vm, p)) != PTXVM_SUCCESS)
    ptxvm_mem_free(c->vm, p);   /* no memory for its bitmap */
  drv_leave(c);
  if (st != PTXVM_SUCCESS)
    return st == PTXVM_ERROR_INVALID_VALUE ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
  if (kind == A_POOL) pool_count(bytes, true);
  *dptr = p;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) { return alloc(dptr, bytesize, A_DEVICE); }

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
  return alloc(dptr, bytesize, A_MANAGED);
}

/* The pitch of cuMemAllocPitch: rows start 512-byte aligned, as the
 * CUDA driver lays them out on sm_90 (it is free to choose). */
enum { PITCH_ALIGN = 512 };

CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes) {
  if (!dptr || !pPitch || !WidthInBytes || !Height ||
      (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
    return CUDA_ERROR_INVALID_VALUE;
  size_t pitch = (WidthInBytes + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
  if (pitch < WidthInBytes || Height > SIZE_MAX / pitch) return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult r = alloc(dptr, pitch * Height, A_DEVICE);
  if (r == CUDA_SUCCESS) *pPitch = pitch;
  return r;
}

/* Frees ptr if it starts an allocation of a kind in `kinds` (a bit per
 * ptxvm_mem_kind) of the context that owns it. */
static CUresult free_kind(CUdeviceptr ptr, unsigned kinds) {
  CUcontext c;
  CUresult r = current_ok(&c);
  if (r != CUDA_SUCCESS || !ptr) return r;
  ptxvm_mem_range m;
  CUcontext o = owner(ptr, &m);
  if (!o || m.base != ptr || !(kinds & 1u << m.kind)) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&o->lock);
  ptxvm_status st = ptxvm_mem_free(o->vm, ptr);
  pthread_mutex_unlock(&o->lock);
  if (st != PTXVM_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
  if (m.user & POOL_MARK) pool_count(m.size, false);
  if (m.kind == PTXVM_MEM_MANAGED) drv_advice_forget(m.id);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  return free_kind(dptr, 1u << PTXVM_MEM_DEVICE | 1u << PTXVM_MEM_MANAGED);
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
  CUresult r = current_ok(&c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_mem_range m;
  if (!owner(dptr, &m)) return CUDA_ERROR_NOT_FOUND;
  if (pbase) *pbase = m.base;
  if (psize) *psize = m.size;
  return CUDA_SUCCESS;
}

/* ---- host memory ---- */

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  CUcontext c;
  if (!pp || !bytesize ||
      (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED)))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  void *p = NULL;
  ptxvm_status st = ptxvm_mem_alloc_host(c->vm, bytesize, &p);
  if (st == PTXVM_SUCCESS) ptxvm_mem_set_user(c->vm, (uintptr_t)p, Flags);
  drv_leave(c);
  if (st != PTXVM_SUCCESS) return CUDA_ERROR_OUT_OF_MEMORY;
  *pp = p;
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) { return cuMemHostAlloc(pp, bytesize, 0); }

CUresult cuMemFreeHost(void *p) { return free_kind((uintptr_t)p, 1u << PTXVM_MEM_HOST); }

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) {
  CUcontext c;
  unsigned known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_IOMEMORY |
                   CU_MEMHOSTREGISTER_READ_ONLY;
  if (!p || !bytesize || (Flags & ~known)) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = current_ok(&c);
  if (r != CUDA_SUCCESS) return r;
  if (Flags & CU_MEMHOSTREGISTER_IOMEMORY) {
    SAY_ONCE("cuMemHostRegister: CU_MEMHOSTREGISTER_IOMEMORY is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  ptxvm_mem_range m;
  CUcontext o = owner((uintptr_t)p, &m);
  if (!o) o = owner((uintptr_t)p + bytesize - 1, &m);
  if (o) return m.kind == PTXVM_MEM_REGISTERED || m.kind == PTXVM_MEM_HOST ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
                                                                           : CUDA_ERROR_INVALID_VALUE;
  if ((r = drv_enter_work(c, &c)) != CUDA_SUCCESS) return r;
  ptxvm_status st = ptxvm_mem_register(c->vm, p, bytesize, (Flags & CU_MEMHOSTREGISTER_READ_ONLY) != 0);
  if (st == PTXVM_SUCCESS) ptxvm_mem_set_user(c->vm, (uintptr_t)p, Flags);
  drv_leave(c);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS
         : st == PTXVM_ERROR_INVALID_ADDRESS ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
         : st == PTXVM_ERROR_OUT_OF_MEMORY ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
SAME_AS(cuMemHostRegister, cuMemHostRegister_v2)

CUresult cuMemHostUnregister(void *p) {
  CUcontext c;
  CUresult r = current_ok(&c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_mem_range m;
  CUcontext o = p ? owner((uintptr_t)p, &m) : NULL;
  if (!o || m.kind != PTXVM_MEM_REGISTERED || m.base != (uintptr_t)p) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  pthread_mutex_lock(&o->lock);
  ptxvm_status st = ptxvm_mem_unregister(o->vm, p);
  pthread_mutex_unlock(&o->lock);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

/* The host allocation or registration that holds p, in *m. */
static CUresult host_range(void *p, ptxvm_mem_range *m) {
  CUcontext c;
  CUresult r = current_ok(&c);
  if (r != CUDA_SUCCESS) return r;
  if (!p || !owner((uintptr_t)p, m) || (m->kind != PTXVM_MEM_HOST && m->kind != PTXVM_MEM_REGISTERED))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
  ptxvm_mem_range m;
  if (!pdptr || Flags) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = host_range(p, &m);
  if (r == CUDA_SUCCESS) *pdptr = (uintptr_t)p;   /* unified addressing: the same address */
  return r;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p) {
  ptxvm_mem_range m;
  if (!pFlags) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = host_range(p, &m);
  if (r == CUDA_SUCCESS) *pFlags = m.user & 0xff;
  return r;
}

/* ---- copies ---- */

/* One side of a copy: where (type; the host pointer or the device
 * address) and its shape (x in bytes, y, z; pitch and height of its rows). */
typedef struct Side {
  CUmemorytype type;
  const void *host;
  CUdeviceptr dev;
  size_t x, y, z, pitch, height;
} Side;

static bool mul_add(size_t a, size_t b, size_t c, size_t *out) {
  if (b && a > (SIZE_MAX - c) / b) return false;
  *out = a * b + c;
  return true;
}

/* The host pointer of side s's first byte, with the rows and slices of a
 * width x height x depth copy lying inside one allocation (device memory)
 * or in host memory. */
static CUresult side_ptr(const Side *s, size_t width, size_t height, size_t depth, uint8_t **out) {
  if (s->type == CU_MEMORYTYPE_ARRAY) {
    SAY_ONCE("copies to or from CUDA arrays (CU_MEMORYTYPE_ARRAY) are not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (s->type != CU_MEMORYTYPE_HOST && s->type != CU_MEMORYTYPE_DEVICE && s->type != CU_MEMORYTYPE_UNIFIED)
    return CUDA_ERROR_INVALID_VALUE;
  if (s->type == CU_MEMORYTYPE_HOST && !s->host) return CUDA_ERROR_INVALID_VALUE;
  if ((height > 1 || depth > 1) && s->pitch < width) return CUDA_ERROR_INVALID_VALUE;
  if (depth > 1 && s->height < height) return CUDA_ERROR_INVALID_VALUE;
  size_t rows, first, last;
  if (!mul_add(s->z, s->height, s->y, &rows) || !mul_add(rows, s->pitch, s->x, &first) ||
      !mul_add(depth - 1, s->height, height - 1, &rows) || !mul_add(rows, s->pitch, width, &last))
    return CUDA_ERROR_INVALID_VALUE;
  uintptr_t base = s->type == CU_MEMORYTYPE_HOST ? (uintptr_t)s->host : s->dev;
  if (base + first < base || base + first + last < base + first) return CUDA_ERROR_INVALID_VALUE;
  void *p;
  CUresult r = resolve(base + first, last, s->type != CU_MEMORYTYPE_DEVICE, &p);
  *out = p;
  return r;
}

/* Copies a width x height x depth box of bytes from src to dst. */
static CUresult copy3d(const Side *dst, const Side *src, size_t width, size_t height, size_t depth) {
  CUcontext c;
  CUresult r = current_ok(&c);
  if (r != CUDA_SUCCESS || !width || !height || !depth) return r;
  uint8_t *d, *s;
  if ((r = side_ptr(dst, width, height, depth, &d)) != CUDA_SUCCESS) return r;
  if ((r = side_ptr(src, width, height, depth, &s)) != CUDA_SUCCESS) return r;
  /* hold the context's lock, so the copy is ordered with its launches */
  if ((r = drv_enter_work(c, &c)) != CUDA_SUCCESS) return r;
  for (size_t z = 0; z < depth; z++)
    for (size_t y = 0; y < height; y++)
      memmove(d + (z * dst->height + y) * dst->pitch, s + (z * src->height + y) * src->pitch, width);
  drv_leave(c);
  return CUDA_SUCCESS;
}

/* Every copy is a CUDA_MEMCPY3D: handed to stream capture (graph.c; the
 * synchronous forms as the legacy stream's, s NULL), else run at once. */
static CUresult copy_do(CUstream s, CUDA_MEMCPY3D c, bool blocking) {
  const CUDA_MEMCPY3D *p = &c;
  if (blocking) drv_printf_flush();   /* a blocking copy synchronizes */
  if (p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  DrvOp op = {DRV_OP_COPY, .u.copy = *p};
  if (drv_capture(s, &op, &r)) return r;
  Side dst = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch, p->dstHeight};
  Side src = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcZ, p->srcPitch, p->srcHeight};
  if (p->Depth <= 1) dst.height = dst.height ? dst.height : p->Height, src.height = src.height ? src.height : p->Height;
  return copy3d(&dst, &src, p->WidthInBytes, p->Height, p->Depth);
}

static CUresult copy_op(CUstream s, CUDA_MEMCPY3D c) { return copy_do(s, c, true); }

/* The same for an Async form: its stream is checked first. */
static CUresult copy_async(CUstream s, CUDA_MEMCPY3D c) {
  CUresult r = on_stream(s);
  return r != CUDA_SUCCESS ? r : copy_do(s, c, false);
}

static CUDA_MEMCPY3D linear(CUmemorytype dt, void *dh, CUdeviceptr dd, CUmemorytype st, const void *sh,
                            CUdeviceptr sd, size_t n) {
  CUDA_MEMCPY3D p = {.srcMemoryType = st, .srcHost = sh, .srcDevice = sd, .dstMemoryType = dt, .dstHost = dh,
                     .dstDevice = dd, .WidthInBytes = n, .Height = 1, .Depth = 1};
  return p;
}

#define HTOD(dst, src, n) linear(CU_MEMORYTYPE_DEVICE, NULL, dst, CU_MEMORYTYPE_HOST, src, 0, n)
#define DTOH(dst, src, n) linear(CU_MEMORYTYPE_HOST, dst, 0, CU_MEMORYTYPE_DEVICE, NULL, src, n)
#define DTOD(dst, src, n) linear(CU_MEMORYTYPE_DEVICE, NULL, dst, CU_MEMORYTYPE_DEVICE, NULL, src, n)
#define UNIFIED(dst, src, n) linear(CU_MEMORYTYPE_UNIFIED, NULL, dst, CU_MEMORYTYPE_UNIFIED, NULL, src, n)

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return copy_op(NULL, HTOD(dst, src, n)); }
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return copy_op(NULL, DTOH(dst, src, n)); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy_op(NULL, DTOD(dst, src, n)); }
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy_op(NULL, UNIFIED(dst, src, n)); }

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  return copy_async(s, HTOD(dst, src, n));
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(s, DTOH(dst, src, n));
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(s, DTOD(dst, src, n));
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(s, UNIFIED(dst, src, n));
}

/* One device: a peer copy is a copy between two contexts of it. */
static CUresult contexts_ok(CUcontext a, CUcontext b) {
  CUcontext c;
  CUresult r = current_ok(&c);
  if (r == CUDA_SUCCESS && (!drv_live(a, MAGIC_CTX) || !drv_live(b, MAGIC_CTX))) r = CUDA_ERROR_INVALID_CONTEXT;
  return r;
}

CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dstContext, CUdeviceptr src, CUcontext srcContext, size_t n) {
  CUresult r = contexts_ok(dstContext, srcContext);
  return r != CUDA_SUCCESS ? r : copy_op(NULL, DTOD(dst, src, n));
}
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstContext, CUdeviceptr src, CUcontext srcContext, size_t n,
                           CUstream s) {
  CUresult r = contexts_ok(dstContext, srcContext);
  return r != CUDA_SUCCESS ? r : copy_async(s, DTOD(dst, src, n));
}

static CUDA_MEMCPY3D from2d(const CUDA_MEMCPY2D *p) {
  CUDA_MEMCPY3D q = {.srcXInBytes = p->srcXInBytes, .srcY = p->srcY, .srcMemoryType = p->srcMemoryType,
                     .srcHost = p->srcHost, .srcDevice = p->srcDevice, .srcArray = p->srcArray,
                     .srcPitch = p->srcPitch, .srcHeight = p->Height, .dstXInBytes = p->dstXInBytes,
                     .dstY = p->dstY, .dstMemoryType = p->dstMemoryType, .dstHost = p->dstHost,
                     .dstDevice = p->dstDevice, .dstArray = p->dstArray, .dstPitch = p->dstPitch,
                     .dstHeight = p->Height, .WidthInBytes = p->WidthInBytes, .Height = p->Height, .Depth = 1};
  return q;
}

static CUDA_MEMCPY3D from_peer(const CUDA_MEMCPY3D_PEER *p) {
  CUDA_MEMCPY3D q = {p->srcXInBytes, p->srcY, p->srcZ, p->srcLOD, p->srcMemoryType, p->srcHost, p->srcDevice,
                     p->srcArray, NULL, p->srcPitch, p->srcHeight, p->dstXInBytes, p->dstY, p->dstZ, p->dstLOD,
                     p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, NULL, p->dstPitch, p->dstHeight,
                     p->WidthInBytes, p->Height, p->Depth};
  return q;
}

static CUresult peer_ok(const CUDA_MEMCPY3D_PEER *p) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  if ((p->srcContext && !drv_live(p->srcContext, MAGIC_CTX)) || (p->dstContext && !drv_live(p->dstContext, MAGIC_CTX)))
    return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) { return p ? copy_op(NULL, from2d(p)) : CUDA_ERROR_INVALID_VALUE; }
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) { return cuMemcpy2D_v2(p); }
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return p ? copy_op(NULL, *p) : CUDA_ERROR_INVALID_VALUE; }
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p) {
  CUresult r = peer_ok(p);
  return r != CUDA_SUCCESS ? r : copy_op(NULL, from_peer(p));
}
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream s) {
  return p ? copy_async(s, from2d(p)) : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream s) {
  return p ? copy_async(s, *p) : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream s) {
  CUresult r = peer_ok(p);
  return r != CUDA_SUCCESS ? r : copy_async(s, from_peer(p));
}

PER_THREAD(cuMemcpyHtoD_v2_ptds, cuMemcpyHtoD_v2)
PER_THREAD(cuMemcpyDtoH_v2_ptds, cuMemcpyDtoH_v2)
PER_THREAD(cuMemcpyDtoD_v2_ptds, cuMemcpyDtoD_v2)
PER_THREAD(cuMemcpy_ptds, cuMemcpy)
PER_THREAD(cuMemcpyPeer_ptds, cuMemcpyPeer)
PER_THREAD(cuMemcpy2D_v2_ptds, cuMemcpy2D_v2)
PER_THREAD(cuMemcpy2DUnaligned_v2_ptds, cuMemcpy2DUnaligned_v2)
PER_THREAD(cuMemcpy3D_v2_ptds, cuMemcpy3D_v2)
PER_THREAD(cuMemcpy3DPeer_ptds, cuMemcpy3DPeer)
PER_THREAD(cuMemcpyHtoDAsync_v2_ptsz, cuMemcpyHtoDAsync_v2)
PER_THREAD(cuMemcpyDtoHAsync_v2_ptsz, cuMemcpyDtoHAsync_v2)
PER_THREAD(cuMemcpyDtoDAsync_v2_ptsz, cuMemcpyDtoDAsync_v2)
PER_THREAD(cuMemcpyAsync_ptsz, cuMemcpyAsync)
PER_THREAD(cuMemcpyPeerAsync_ptsz, cuMemcpyPeerAsync)
PER_THREAD(cuMemcpy2DAsync_v2_ptsz, cuMemcpy2DAsync_v2)
PER_THREAD(cuMemcpy3DAsync_v2_ptsz, cuMemcpy3DAsync_v2)
PER_THREAD(cuMemcpy3DPeerAsync_ptsz, cuMemcpy3DPeerAsync)

/* ---- sets ---- */

/* Sets `width` elements of `size` bytes (1, 2 or 4) in each of `height`
 * rows `pitch` bytes apart, from dst, to the low bytes of v; the whole box
 * must lie inside one allocation (checked before anything is written). */
static CUresult set2d(CUdeviceptr dst, size_t pitch, unsigned v, size_t width, size_t height, unsigned size) {
  CUcontext c;
  CUresult r = current_ok(&c);
  if (r != CUDA_SUCCESS) return r;
  if (dst % size || width > SIZE_MAX / size || (height > 1 && pitch < width * size)) return CUDA_ERROR_INVALID_VALUE;
  if (!width || !height) return CUDA_SUCCESS;
  size_t last;
  if (!mul_add(height - 1, pitch, width * size, &last)) return CUDA_ERROR_INVALID_VALUE;
  void *p;
  if ((r = resolve(dst, last, false, &p)) != CUDA_SUCCESS) return r;
  if ((r = drv_enter_work(c, &c)) != CUDA_SUCCESS) return r;
  for (size_t y = 0; y < height; y++) {
    uint8_t *row = (uint8_t *)p + y * pitch;
    if (size == 1) memset(row, (int)(v & 0xff), width);
    else if (size == 2)
      for (size_t i = 0; i < width; i++) memcpy(row + 2 * i, &(uint16_t){(uint16_t)v}, 2);
    else
      for (size_t i = 0; i < width; i++) memcpy(row + 4 * i, &v, 4);
  }
  drv_leave(c);
  return CUDA_SUCCESS;
}

/* A set, handed to stream capture first (as copy_op). */
static CUresult set_op(CUstream s, CUdeviceptr dst, size_t pitch, unsigned v, size_t w, size_t h, unsigned size) {
  CUresult r;
  DrvOp op = {DRV_OP_SET, .u.set = {.dst = dst, .pitch = pitch, .value = v, .elementSize = size, .width = w,
                                    .height = h}};
  return drv_capture(s, &op, &r) ? r : set2d(dst, pitch, v, w, h, size);
}

static CUresult set_async(CUstream s, CUdeviceptr dst, size_t pitch, unsigned v, size_t w, size_t h, unsigned size) {
  CUresult r = on_stream(s);
  return r != CUDA_SUCCESS ? r : set_op(s, dst, pitch, v, w, h, size);
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t n) { return set_op(NULL, dst, 0, uc, n, 1, 1); }
CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short us, size_t n) { return set_op(NULL, dst, 0, us, n, 1, 2); }
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int ui, size_t n) { return set_op(NULL, dst, 0, ui, n, 1, 4); }
CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w, size_t h) {
  return set_op(NULL, dst, pitch, uc, w, h, 1);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w, size_t h) {
  return set_op(NULL, dst, pitch, us, w, h, 2);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w, size_t h) {
  return set_op(NULL, dst, pitch, ui, w, h, 4);
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s) {
  return set_async(s, dst, 0, uc, n, 1, 1);
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short us, size_t n, CUstream s) {
  return set_async(s, dst, 0, us, n, 1, 2);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s) {
  return set_async(s, dst, 0, ui, n, 1, 4);
}
CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w, size_t h, CUstream s) {
  return set_async(s, dst, pitch, uc, w, h, 1);
}
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w, size_t h, CUstream s) {
  return set_async(s, dst, pitch, us, w, h, 2);
}
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w, size_t h, CUstream s) {
  return set_async(s, dst, pitch, ui, w, h, 4);
}

PER_THREAD(cuMemsetD8_v2_ptds, cuMemsetD8_v2)
PER_THREAD(cuMemsetD16_v2_ptds, cuMemsetD16_v2)
PER_THREAD(cuMemsetD32_v2_ptds, cuMemsetD32_v2)
PER_THREAD(cuMemsetD2D8_v2_ptds, cuMemsetD2D8_v2)
PER_THREAD(cuMemsetD2D16_v2_ptds, cuMemsetD2D16_v2)
PER_THREAD(cuMemsetD2D32_v2_ptds, cuMemsetD2D32_v2)
PER_THREAD(cuMemsetD8Async_ptsz, cuMemsetD8Async)
PER_THREAD(cuMemsetD16Async_ptsz, cuMemsetD16Async)
PER_THREAD(cuMemsetD32Async_ptsz, cuMemsetD32Async)
PER_THREAD(cuMemsetD2D8Async_ptsz, cuMemsetD2D8Async)
PER_THREAD(cuMemsetD2D16Async_ptsz, cuMemsetD2D16Async)
PER_THREAD(cuMemsetD2D32Async_ptsz, cuMemsetD2D32Async)

/* ---- pointer attributes ---- */

/* Writes attribute a of the allocation m of context c, which holds ptr
 * (c NULL: ptr is in no allocation). Sizes as the driver writes them: the
 * boolean attributes one byte (a C bool), the enumerations and the device
 * ordinal an unsigned int. */
static CUresult get_attribute(void *data, CUpointer_attribute a, CUdeviceptr ptr, CUcontext c,
                          const ptxvm_mem_range *m) {
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  bool device = m->kind == PTXVM_MEM_DEVICE || m->kind == PTXVM_MEM_MANAGED;
  switch (a) {
  case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = c; break;
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data = device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST; break;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = ptr; break;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    if (m->kind == PTXVM_MEM_DEVICE) return CUDA_ERROR_INVALID_VALUE;   /* host code cannot reach it */
    *(void **)data = (void *)(uintptr_t)ptr;
    break;
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *(bool *)data = true; break;   /* every operation is synchronous */
  case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = m->id; break;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(bool *)data = m->kind == PTXVM_MEM_MANAGED; break;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = 0; break;
  /* no IPC, no shareable handles, no GPUDirect RDMA, no decompression engine */
  case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
  case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
  case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: *(bool *)data = false; break;
  case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: *(unsigned *)data = CU_MEM_HANDLE_TYPE_NONE; break;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
  case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: *(CUdeviceptr *)data = m->base; break;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
  case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: *(size_t *)data = m->size; break;
  case CU_POINTER_ATTRIBUTE_MAPPED: *(bool *)data = true; break;
  case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
    *(unsigned *)data = m->readonly ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
    break;
  case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
    *(CUmemoryPool *)data = m->user & POOL_MARK ? &default_pool : NULL;
    break;
  case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: *(unsigned long long *)data = m->id; break;
  case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
    SAY_ONCE("cuPointerGetAttribute: CU_POINTER_ATTRIBUTE_P2P_TOKENS is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_POINTER && !drv_current()) return CUDA_ERROR_INVALID_CONTEXT;
  ptxvm_mem_range m;
  CUcontext c = owner(ptr, &m);
  return get_attribute(data, attribute, ptr, c, &m);
}

/* The size get_attribute writes for a, 0 for one it does not know. */
static size_t attribute_size(CUpointer_attribute a) {
  switch (a) {
  case CU_POINTER_ATTRIBUTE_CONTEXT: return sizeof(CUcontext);
  case CU_POINTER_ATTRIBUTE_HOST_POINTER: return sizeof(void *);
  case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: return sizeof(CUmemoryPool);
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
  case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: return sizeof(CUdeviceptr);
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
  case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: return sizeof(size_t);
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
  case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: return sizeof(unsigned long long);
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
  case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
  case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: return sizeof(unsigned);
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
  case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
  case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
  case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
  case CU_POINTER_ATTRIBUTE_MAPPED: return sizeof(bool);
  default: return 0;
  }
}

/* Unlike cuPointerGetAttribute, a pointer in no allocation is no error:
 * each attribute gets its null value (MEMORY_TYPE 0, CONTEXT NULL, MAPPED
 * false, ...), as does HOST_POINTER of device memory. */
CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                CUdeviceptr ptr) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!attributes || !data) return CUDA_ERROR_INVALID_VALUE;
  ptxvm_mem_range m;
  CUcontext c = owner(ptr, &m);
  for (unsigned i = 0; i < numAttributes; i++) {
    size_t size = attribute_size(attributes[i]);
    if (!data[i] || !size) return CUDA_ERROR_INVALID_VALUE;
    if (!c || (attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER && m.kind == PTXVM_MEM_DEVICE))
      memset(data[i], 0, size);
    else if ((r = get_attribute(data[i], attributes[i], ptr, c, &m)) != CUDA_SUCCESS)
      return r;
  }
  return CUDA_SUCCESS;
}

/* SYNC_MEMOPS is the one settable attribute; every operation is
 * synchronous already. */
CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  ptxvm_mem_range m;
  if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS || !owner(ptr, &m) || m.kind != PTXVM_MEM_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

/* ---- the stream-ordered allocator ---- */

static CUresult pool_ok(CUmemoryPool pool) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  return pool == &default_pool ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pool_out) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  *pool_out = &default_pool;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) { return cuDeviceGetDefaultMemPool(pool, dev); }

/* The default pool is the only pool (cuMemPoolCreate is not implemented). */
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return pool_ok(pool);
}

/* Whether s captures: its allocations and frees would be memory nodes of
 * the graph (graph.c), which are not implemented. */
static bool capturing(CUstream s) {
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  return cuStreamIsCapturing(s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) {
  CUresult r = on_stream(hStream);
  if (r == CUDA_SUCCESS && capturing(hStream)) {
    SAY_ONCE("cuMemAllocAsync in stream capture (memory allocation nodes) is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return r != CUDA_SUCCESS ? r : alloc(dptr, bytesize, A_POOL);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
  CUresult r = pool_ok(pool);
  return r != CUDA_SUCCESS ? r : cuMemAllocAsync(dptr, bytesize, hStream);
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  CUresult r = on_stream(hStream);
  if (r == CUDA_SUCCESS && capturing(hStream)) {
    SAY_ONCE("cuMemFreeAsync in stream capture (memory free nodes) is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return r != CUDA_SUCCESS ? r : free_kind(dptr, 1u << PTXVM_MEM_DEVICE);
}

/* The pool holds no freed memory: nothing to trim. */
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  (void)minBytesToKeep;
  return pool_ok(pool);
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  CUresult r = pool_ok(pool);
  if (r != CUDA_SUCCESS) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&default_pool.lock);
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: default_pool.reuse[attr - 1] = *(int *)value != 0; break;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: default_pool.threshold = *(cuuint64_t *)value; break;
  /* the high-water marks may be reset (to the current value) by setting 0 */
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    if (*(cuuint64_t *)value) r = CUDA_ERROR_INVALID_VALUE;
    else default_pool.high = default_pool.used;
    break;
  default: r = CUDA_ERROR_INVALID_VALUE;
  }
  pthread_mutex_unlock(&default_pool.lock);
  return r;
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  CUresult r = pool_ok(pool);
  if (r != CUDA_SUCCESS) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&default_pool.lock);
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: *(int *)value = default_pool.reuse[attr - 1]; break;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *(cuuint64_t *)value = default_pool.threshold; break;
  /* reserved = used: freed memory goes back at once */
  case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
  case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *(cuuint64_t *)value = default_pool.used; break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *(cuuint64_t *)value = default_pool.high; break;
  default: r = CUDA_ERROR_INVALID_VALUE;
  }
  pthread_mutex_unlock(&default_pool.lock);
  return r;
}

PER_THREAD(cuMemAllocAsync_ptsz, cuMemAllocAsync)
PER_THREAD(cuMemAllocFromPoolAsync_ptsz, cuMemAllocFromPoolAsync)
PER_THREAD(cuMemFreeAsync_ptsz, cuMemFreeAsync)
