/* advice.c: the hints of managed memory: cuMemAdvise, cuMemPrefetchAsync,
 * and cuMemRangeGetAttribute(s), which report them back.
 *
 * A managed allocation is one arena both sides read (ptxvm.h "device
 * memory"), so neither hint moves data; what they leave is what the range
 * attributes report, per CPU page as CUDA keeps it: read-mostly, the
 * preferred location, the processors it is accessed by, and the last
 * location it was prefetched to (CUDA: "the last location that the
 * application requested to prefetch the memory range to"). Advice applies
 * to whole pages (the range's ends rounded out to pages, as CUDA does). A
 * prefetch is a stream operation: its stream is checked and, the work of a
 * stream running in issue order at once, it is recorded when called; in a
 * stream capture it would be a graph node CUDA has no kind for, so it is
 * refused there by name. The records of an allocation are made at its
 * first hint and dropped when it is freed (drv_advice_forget); a
 * __managed__ variable's go with its module.
 *
 * Locations: device 0 (the one device), the host (CU_DEVICE_CPU in the
 * legacy forms), a host NUMA node; CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT is
 * node 0, the one node of ptxvm's model of the host. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

#undef cuMemPrefetchAsync
#undef cuMemAdvise

/* One page's hints. A location is its type (CU_MEM_LOCATION_TYPE_INVALID:
 * none) and id. accessed: ACCESSED_DEVICE | ACCESSED_HOST. */
typedef struct PageHint {
  uint8_t read_mostly, accessed;
  uint8_t pref_type, last_type;
  int pref_id, last_id;
} PageHint;

enum { ACCESSED_DEVICE = 1, ACCESSED_HOST = 2 };

typedef struct Hints {
  uint64_t id;               /* the allocation's (ptxvm_mem_range.id, never reused) */
  CUdeviceptr base;
  size_t npages;
  PageHint *pages;
} Hints;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Hints *hints;
static int nhints, caphints;

static size_t page_bytes(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (size_t)p : 4096;
}

/* The records of allocation m, made (all pages without hints) if `make`;
 * NULL if there are none (or no memory for them). Call it holding lock. */
static Hints *hints_of(const ptxvm_mem_range *m, bool make) {
  for (int i = 0; i < nhints; i++)
    if (hints[i].id == m->id) return &hints[i];
  if (!make) return NULL;
  if (nhints == caphints) {
    int nc = caphints ? 2 * caphints : 16;
    Hints *n = realloc(hints, (size_t)nc * sizeof *n);
    if (!n) return NULL;
    hints = n, caphints = nc;
  }
  size_t pg = page_bytes(), np = (m->size + (m->base % pg) + pg - 1) / pg;
  PageHint *pages = calloc(np ? np : 1, sizeof *pages);
  if (!pages) return NULL;
  hints[nhints] = (Hints){m->id, m->base, np, pages};
  return &hints[nhints++];
}

void drv_advice_forget(uint64_t id) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nhints; i++)
    if (hints[i].id == id) {
      free(hints[i].pages);
      hints[i] = hints[--nhints];
      break;
    }
  pthread_mutex_unlock(&lock);
}

/* [p, p + n) inside one managed allocation, described in *m; its pages,
 * [*first, *end) of the allocation's. */
static CUresult managed_range(CUdeviceptr p, size_t n, ptxvm_mem_range *m, size_t *first, size_t *end) {
  CUcontext c;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  if (!n || !drv_mem_owner(p, m) || m->kind != PTXVM_MEM_MANAGED || n > m->size - (p - m->base))
    return CUDA_ERROR_INVALID_VALUE;
  size_t pg = page_bytes(), lo = m->base - m->base % pg;
  *first = (p - lo) / pg;
  *end = (p + n - 1 - lo) / pg + 1;
  return CUDA_SUCCESS;
}

/* A location of the one device or the host, as recorded (HOST_NUMA_CURRENT:
 * node 0). */
static CUresult location(CUmemLocation l, CUmemLocation *out) {
  switch (l.type) {
  case CU_MEM_LOCATION_TYPE_DEVICE:
    if (l.id != 0) return CUDA_ERROR_INVALID_DEVICE;
    break;
  case CU_MEM_LOCATION_TYPE_HOST: l.id = 0; break;
  case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    if (l.id != 0) return CUDA_ERROR_INVALID_VALUE;   /* the host has one node */
    break;
  case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: l.type = CU_MEM_LOCATION_TYPE_HOST_NUMA, l.id = 0; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  *out = l;
  return CUDA_SUCCESS;
}

/* The legacy forms' device: an ordinal, or CU_DEVICE_CPU for the host. */
static CUmemLocation legacy(CUdevice d) {
  return (CUmemLocation){d == CU_DEVICE_CPU ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE,
                         d == CU_DEVICE_CPU ? 0 : d};
}

/* ---- advice ---- */

CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation loc) {
  if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
    return CUDA_ERROR_INVALID_VALUE;
  ptxvm_mem_range m;
  size_t first, end;
  CUresult r = managed_range(devPtr, count, &m, &first, &end);
  /* read-mostly ignores the location */
  if (r == CUDA_SUCCESS && advice > CU_MEM_ADVISE_UNSET_READ_MOSTLY) r = location(loc, &loc);
  if (r != CUDA_SUCCESS) return r;
  uint8_t who = loc.type == CU_MEM_LOCATION_TYPE_DEVICE ? ACCESSED_DEVICE : ACCESSED_HOST;
  pthread_mutex_lock(&lock);
  Hints *h = hints_of(&m, true);
  for (size_t i = first; h && i < end; i++) {
    PageHint *p = &h->pages[i];
    switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY: p->read_mostly = 1; break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY: p->read_mostly = 0; break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: p->pref_type = (uint8_t)loc.type, p->pref_id = loc.id; break;
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: p->pref_type = CU_MEM_LOCATION_TYPE_INVALID; break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY: p->accessed |= who; break;
    default: p->accessed &= (uint8_t)~who; break;
    }
  }
  pthread_mutex_unlock(&lock);
  return h ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device);
CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device) {
  return cuMemAdvise_v2(devPtr, count, advice, legacy(device));
}

/* ---- prefetch ---- */

CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation loc, unsigned int flags,
                               CUstream hStream) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r == CUDA_SUCCESS && flags) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) r = location(loc, &loc);
  ptxvm_mem_range m;
  size_t first, end;
  if (r == CUDA_SUCCESS) r = managed_range(devPtr, count, &m, &first, &end);
  if (r != CUDA_SUCCESS) return r;
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(hStream, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE) {
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&said)) drv_say("cuMemPrefetchAsync in stream capture is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  pthread_mutex_lock(&lock);
  Hints *h = hints_of(&m, true);
  for (size_t i = first; h && i < end; i++) h->pages[i].last_type = (uint8_t)loc.type, h->pages[i].last_id = loc.id;
  pthread_mutex_unlock(&lock);
  return h ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* CUDA 8's form: a device ordinal, CU_DEVICE_CPU for the host. */
CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream);
CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream) {
  return cuMemPrefetchAsync_v2(devPtr, count, legacy(dstDevice), 0, hStream);
}
PER_THREAD(cuMemPrefetchAsync_ptsz, cuMemPrefetchAsync)
PER_THREAD(cuMemPrefetchAsync_v2_ptsz, cuMemPrefetchAsync_v2)

/* ---- range attributes ---- */

/* The location every page of [first, end) has (pref: the preferred one,
 * else the last prefetch's); type INVALID where they differ or one has none. */
static CUmemLocation common_location(const Hints *h, size_t first, size_t end, bool pref) {
  CUmemLocation l = {CU_MEM_LOCATION_TYPE_INVALID, 0};
  for (size_t i = first; h && i < end; i++) {
    const PageHint *p = &h->pages[i];
    CUmemLocation q = {pref ? p->pref_type : p->last_type, pref ? p->pref_id : p->last_id};
    if (q.type == CU_MEM_LOCATION_TYPE_INVALID || (i > first && (q.type != l.type || q.id != l.id)))
      return (CUmemLocation){CU_MEM_LOCATION_TYPE_INVALID, 0};
    l = q;
  }
  return l;
}

/* The legacy answer for a location: the device ordinal, CU_DEVICE_CPU for
 * the host (a NUMA node of it too), CU_DEVICE_INVALID for none. */
static int legacy_of(CUmemLocation l) {
  return l.type == CU_MEM_LOCATION_TYPE_DEVICE ? l.id
         : l.type == CU_MEM_LOCATION_TYPE_INVALID ? CU_DEVICE_INVALID : CU_DEVICE_CPU;
}

/* Writes attribute a of the pages [first, end) of h (NULL: no hints). */
static CUresult range_attribute(void *data, size_t size, CUmem_range_attribute a, const Hints *h, size_t first,
                                size_t end) {
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  if (a == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {   /* the processors set on every page, then INVALID */
    if (!size || size % 4) return CUDA_ERROR_INVALID_VALUE;
    uint8_t all = ACCESSED_DEVICE | ACCESSED_HOST;
    for (size_t i = first; i < end; i++) all &= h ? h->pages[i].accessed : 0;
    int *out = data;
    size_t n = size / 4, k = 0;
    if ((all & ACCESSED_DEVICE) && k < n) out[k++] = 0;
    if ((all & ACCESSED_HOST) && k < n) out[k++] = CU_DEVICE_CPU;
    while (k < n) out[k++] = CU_DEVICE_INVALID;
    return CUDA_SUCCESS;
  }
  if (size != 4) return CUDA_ERROR_INVALID_VALUE;   /* an int, or a CUmemLocationType */
  int v;
  switch (a) {
  case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
    v = 1;
    for (size_t i = first; i < end; i++) v &= h ? h->pages[i].read_mostly : 0;
    break;
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: v = legacy_of(common_location(h, first, end, true)); break;
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: v = legacy_of(common_location(h, first, end, false)); break;
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: v = (int)common_location(h, first, end, true).type; break;
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: v = common_location(h, first, end, true).id; break;
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE: v = (int)common_location(h, first, end, false).type; break;
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID: v = common_location(h, first, end, false).id; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  memcpy(data, &v, 4);
  return CUDA_SUCCESS;
}

CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                 size_t numAttributes, CUdeviceptr devPtr, size_t count) {
  if (!data || !dataSizes || !attributes || !numAttributes) return CUDA_ERROR_INVALID_VALUE;
  ptxvm_mem_range m;
  size_t first, end;
  CUresult r = managed_range(devPtr, count, &m, &first, &end);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  const Hints *h = hints_of(&m, false);
  for (size_t i = 0; i < numAttributes && r == CUDA_SUCCESS; i++)
    r = range_attribute(data[i], dataSizes[i], attributes[i], h, first, end);
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute, CUdeviceptr devPtr,
                                size_t count) {
  return cuMemRangeGetAttributes(&data, &dataSize, &attribute, 1, devPtr, count);
}
