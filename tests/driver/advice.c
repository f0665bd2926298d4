/* advice.c: the hints of managed memory (src/cuda/advice.c), a
 * self-checking program run by tests/run.py through `ptxvm exec` (see
 * driver_api.c). cuMemAdvise and cuMemPrefetchAsync leave per-page records
 * that cuMemRangeGetAttribute(s) report as cuda.h documents them: a value
 * only where every page of the range has it (else 0, CU_DEVICE_INVALID or
 * CU_MEM_LOCATION_TYPE_INVALID), accessed-by as a list padded with
 * CU_DEVICE_INVALID; the legacy device-ordinal forms; the errors for memory
 * that is not managed, bad sizes and devices; a prefetch in stream capture
 * refused by name.
 *
 * STDERR-ONCE: ptxvm: cuMemPrefetchAsync in stream capture is not implemented
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "../unit/check.h"

/* CUDA 8's form, which cuda.h maps to cuMemAdvise_v2: a device ordinal,
 * CU_DEVICE_CPU for the host */
#undef cuMemAdvise
CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device);

static int attr(CUmem_range_attribute a, CUdeviceptr p, size_t n) {
  int v = 12345;
  CHECK(cuMemRangeGetAttribute(&v, 4, a, p, n) == CUDA_SUCCESS);
  return v;
}

int main(void) {
  CUcontext ctx = NULL;
  CHECK(cuInit(0) == CUDA_SUCCESS && cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
  size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = 3 * pg;
  CUdeviceptr m = 0, d = 0;
  CHECK(cuMemAllocManaged(&m, n, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS && m % pg == 0);
  CHECK(cuMemAlloc(&d, 256) == CUDA_SUCCESS);
  CUmemLocation dev = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, host = {CU_MEM_LOCATION_TYPE_HOST, 0};

  /* no hints yet */
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, n) == 0);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, n) == CU_DEVICE_INVALID);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, n) == CU_MEM_LOCATION_TYPE_INVALID);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, n) == CU_DEVICE_INVALID);
  int by[3] = {7, 7, 7};
  CHECK(cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, n) == CUDA_SUCCESS);
  CHECK(by[0] == CU_DEVICE_INVALID && by[1] == CU_DEVICE_INVALID && by[2] == CU_DEVICE_INVALID);

  /* read-mostly on the first page only (a byte of it: the whole page) */
  CHECK(cuMemAdvise_v2(m + 10, 1, CU_MEM_ADVISE_SET_READ_MOSTLY, dev) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, pg) == 1);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, n) == 0);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + pg, 4) == 0);
  CHECK(cuMemAdvise_v2(m, n, CU_MEM_ADVISE_SET_READ_MOSTLY, dev) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, n) == 1);
  CHECK(cuMemAdvise_v2(m + pg, 1, CU_MEM_ADVISE_UNSET_READ_MOSTLY, dev) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, n) == 0 && attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, pg) == 1);

  /* preferred location: the device everywhere, then the host on page 1 */
  CHECK(cuMemAdvise_v2(m, n, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, n) == 0);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, n) == CU_MEM_LOCATION_TYPE_DEVICE);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, m, n) == 0);
  CHECK(cuMemAdvise_v2(m + pg, pg, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, n) == CU_DEVICE_INVALID);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m + pg, 8) == CU_DEVICE_CPU);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m + pg, 8) == CU_MEM_LOCATION_TYPE_HOST);
  CHECK(cuMemAdvise_v2(m, n, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, dev) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m + pg, 8) == CU_DEVICE_INVALID);

  /* accessed by: the device, then also the host (the legacy form) */
  CHECK(cuMemAdvise_v2(m, n, CU_MEM_ADVISE_SET_ACCESSED_BY, dev) == CUDA_SUCCESS);
  CHECK(cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, n) == CUDA_SUCCESS);
  CHECK(by[0] == 0 && by[1] == CU_DEVICE_INVALID && by[2] == CU_DEVICE_INVALID);
  CHECK(cuMemAdvise(m, pg, CU_MEM_ADVISE_SET_ACCESSED_BY, CU_DEVICE_CPU) == CUDA_SUCCESS);
  CHECK(cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, pg) == CUDA_SUCCESS);
  CHECK(by[0] == 0 && by[1] == CU_DEVICE_CPU && by[2] == CU_DEVICE_INVALID);
  CHECK(cuMemRangeGetAttribute(by, 4, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, pg) == CUDA_SUCCESS && by[0] == 0);
  CHECK(cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, n) == CUDA_SUCCESS);
  CHECK(by[0] == 0 && by[1] == CU_DEVICE_INVALID);   /* the host is not on every page */
  CHECK(cuMemAdvise_v2(m, n, CU_MEM_ADVISE_UNSET_ACCESSED_BY, dev) == CUDA_SUCCESS);
  CHECK(cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, pg) == CUDA_SUCCESS);
  CHECK(by[0] == CU_DEVICE_CPU && by[1] == CU_DEVICE_INVALID);

  /* prefetch: the last location asked for, per page */
  CHECK(cuMemPrefetchAsync(m, n, host, 0, NULL) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, n) == CU_DEVICE_CPU);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m, n) == CU_MEM_LOCATION_TYPE_HOST);
  CUstream s = NULL;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CHECK(cuMemPrefetchAsync(m + 2 * pg, pg, dev, 0, s) == CUDA_SUCCESS);
  CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, n) == CU_DEVICE_INVALID);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m + 2 * pg, pg) == 0);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, m + 2 * pg, pg) == 0);
  /* several attributes at once */
  int rm = -1, last = -1;
  void *data[2] = {&rm, &last};
  size_t sizes[2] = {4, 4};
  CUmem_range_attribute which[2] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};
  CHECK(cuMemRangeGetAttributes(data, sizes, which, 2, m, pg) == CUDA_SUCCESS && rm == 1 && last == CU_DEVICE_CPU);

  /* errors */
  int v = 0;
  CHECK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemRangeGetAttribute(&v, 8, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemRangeGetAttribute(by, 6, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, n + 1) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemRangeGetAttribute(&v, 4, (CUmem_range_attribute)99, m, 4) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemAdvise_v2(d, 4, CU_MEM_ADVISE_SET_READ_MOSTLY, dev) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemAdvise_v2(m, 4, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, (CUmemLocation){CU_MEM_LOCATION_TYPE_DEVICE, 3}) ==
        CUDA_ERROR_INVALID_DEVICE);
  CHECK(cuMemPrefetchAsync(d, 4, dev, 0, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemPrefetchAsync(m, 4, dev, 1, NULL) == CUDA_ERROR_INVALID_VALUE);

  /* in a stream capture: no graph node for it, refused by name */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuMemPrefetchAsync(m, n, dev, 0, s) == CUDA_ERROR_NOT_SUPPORTED);
  CUgraph g = NULL;
  CHECK(cuStreamEndCapture(s, &g) == CUDA_SUCCESS && g);
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);

  /* freed and allocated again: no hints */
  CHECK(cuMemFree(m) == CUDA_SUCCESS);
  CHECK(cuMemAllocManaged(&m, n, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  CHECK(attr(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, pg) == 0);
  CHECK(cuMemFree(m) == CUDA_SUCCESS && cuMemFree(d) == CUDA_SUCCESS && cuStreamDestroy(s) == CUDA_SUCCESS);
  cuCtxDestroy(ctx);
  return unit_report();
}
