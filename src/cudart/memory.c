/* memory.c: device and host memory, copies, sets and symbols.
 *
 * Each call forwards to the driver (ptxvm's work runs synchronously, in
 * issue order, so the Async forms complete before they return; a copy still
 * reports the sticky error of an earlier fault, as on a GPU). The runtime
 * adds what the driver does not know: a cudaMemcpyKind (cudaMemcpyDefault
 * tells device from host memory by cuMemGetAddressRange, unified
 * addressing), and symbols (host shadow -> device variable of the
 * registered fatbin, cuModuleGetGlobal). Where the driver answers
 * CUDA_ERROR_NOT_SUPPORTED, so does the runtime, truthfully. The 3-D
 * forms are memory3d.c's. */
#include <string.h>

#include "runtime.h"

#define INIT()                                                                 \
  do {                                                                         \
    cudaError_t e_ = rt_init();                                                \
    if (e_ != cudaSuccess) return rt_ret(e_);                                  \
  } while (0)

static CUdeviceptr dp(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

cudaError_t cudaMalloc(void **devPtr, size_t size) {
  if (!devPtr) return rt_ret(cudaErrorInvalidValue);
  INIT();
  if (!size) {   /* the runtime gives NULL for 0 bytes */
    *devPtr = NULL;
    return cudaSuccess;
  }
  CUdeviceptr p = 0;
  CUresult r = cuMemAlloc(&p, size);
  if (r == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)p;
  return rt_cu(r);
}

cudaError_t cudaFree(void *devPtr) {
  INIT();   /* cudaFree(0) is the idiom that initialises the runtime */
  if (!devPtr) return cudaSuccess;
  return rt_cu(cuMemFree(dp(devPtr)));   /* a bad pointer: cudaErrorInvalidValue (not the
                                            deprecated cudaErrorInvalidDevicePointer) */
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
  if (!devPtr || !pitch) return rt_ret(cudaErrorInvalidValue);
  INIT();
  CUdeviceptr p = 0;
  CUresult r = cuMemAllocPitch(&p, pitch, width, height, 16);
  if (r == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)p;
  return rt_cu(r);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
  if (!devPtr) return rt_ret(cudaErrorInvalidValue);
  INIT();
  CUdeviceptr p = 0;
  CUresult r = cuMemAllocManaged(&p, size, flags);
  if (r == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)p;
  return rt_cu(r);
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  if (!ptr) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuMemAllocHost(ptr, size));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
  if (!pHost) return rt_ret(cudaErrorInvalidValue);
  INIT();
  /* cudaHostAlloc's flags are CU_MEMHOSTALLOC_*'s */
  return rt_cu(cuMemHostAlloc(pHost, size, flags));
}

cudaError_t cudaFreeHost(void *ptr) {
  INIT();
  if (!ptr) return cudaSuccess;
  return rt_cu(cuMemFreeHost(ptr));
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  INIT();
  return rt_cu(cuMemHostRegister(ptr, size, flags));
}

cudaError_t cudaHostUnregister(void *ptr) {
  INIT();
  return rt_cu(cuMemHostUnregister(ptr));
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
  if (!pDevice) return rt_ret(cudaErrorInvalidValue);
  INIT();
  CUdeviceptr p = 0;
  CUresult r = cuMemHostGetDevicePointer(&p, pHost, flags);
  if (r == CUDA_SUCCESS) *pDevice = (void *)(uintptr_t)p;
  return rt_cu(r);
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
  INIT();
  return rt_cu(cuMemHostGetFlags(pFlags, pHost));
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream) {
  if (!devPtr) return rt_ret(cudaErrorInvalidValue);
  INIT();
  CUdeviceptr p = 0;
  CUresult r = cuMemAllocAsync(&p, size, hStream);
  if (r == CUDA_SUCCESS) *devPtr = (void *)(uintptr_t)p;
  return rt_cu(r);
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) {
  INIT();
  return rt_cu(cuMemFreeAsync(dp(devPtr), hStream));
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  INIT();
  return rt_cu(cuMemGetInfo(free, total));
}

bool rt_on_device(const void *p) {
  CUdeviceptr base = 0;
  size_t size = 0;
  return p && cuMemGetAddressRange(&base, &size, dp(p)) == CUDA_SUCCESS;
}

/* The driver's pointer attributes, as the runtime names them: managed
 * memory (IS_MANAGED) before device memory, host memory (pinned or
 * registered) reached by kernels at its own address (unified addressing). */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) {
  if (!attributes) return rt_ret(cudaErrorInvalidValue);
  INIT();
  memset(attributes, 0, sizeof *attributes);
  unsigned type = 0;
  bool managed = false;
  int ordinal = 0;
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void *data[] = {&type, &managed, &ordinal};
  CUresult r = cuPointerGetAttributes(3, which, data, dp(ptr));
  if (r != CUDA_SUCCESS) return rt_cu(r);
  void *p = (void *)(uintptr_t)ptr;
  if (managed) {
    attributes->type = cudaMemoryTypeManaged;
    attributes->devicePointer = attributes->hostPointer = p;
  } else if (type == CU_MEMORYTYPE_DEVICE) {
    attributes->type = cudaMemoryTypeDevice;
    attributes->devicePointer = p;
  } else if (type == CU_MEMORYTYPE_HOST) {
    attributes->type = cudaMemoryTypeHost;
    attributes->devicePointer = attributes->hostPointer = p;
  } else {   /* since CUDA 11: not an error, unregistered host memory */
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;
    return cudaSuccess;
  }
  attributes->device = ordinal;
  return cudaSuccess;
}

/* ---- managed memory hints (the driver keeps them: src/cuda/advice.c) ---- */

static CUmemLocation location(struct cudaMemLocation l) {   /* the same values */
  return (CUmemLocation){(CUmemLocationType)l.type, l.id};
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location_,
                                 unsigned int flags, cudaStream_t stream) {
  INIT();
  return rt_cu(cuMemPrefetchAsync_v2(dp(devPtr), count, location(location_), flags, stream));
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location_) {
  INIT();
  return rt_cu(cuMemAdvise_v2(dp(devPtr), count, (CUmem_advise)advice, location(location_)));
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, enum cudaMemRangeAttribute attribute,
                                     const void *devPtr, size_t count) {
  INIT();
  return rt_cu(cuMemRangeGetAttribute(data, dataSize, (CUmem_range_attribute)attribute, dp(devPtr), count));
}

cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes, enum cudaMemRangeAttribute *attributes,
                                      size_t numAttributes, const void *devPtr, size_t count) {
  INIT();
  /* the same values, in an enum of the same size */
  _Static_assert(sizeof(enum cudaMemRangeAttribute) == sizeof(CUmem_range_attribute), "range attributes");
  return rt_cu(cuMemRangeGetAttributes(data, dataSizes, (CUmem_range_attribute *)attributes, numAttributes, dp(devPtr), count));
}

/* ---- copies ---- */

static enum cudaMemcpyKind resolve(enum cudaMemcpyKind kind, void *dst, const void *src) {
  if (kind != cudaMemcpyDefault) return kind;
  bool d = rt_on_device(dst), s = rt_on_device(src);
  return d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
           : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
}

/* A copy of count bytes; stream NULL-or-given and async tell the driver call. */
static cudaError_t copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, bool async,
                        cudaStream_t stream) {
  if ((unsigned)kind > cudaMemcpyDefault) return rt_ret(cudaErrorInvalidMemcpyDirection);
  INIT();
  if (!count) return cudaSuccess;
  CUresult r;
  switch (resolve(kind, dst, src)) {
  case cudaMemcpyHostToHost:
    r = async ? cuStreamSynchronize(stream) : cuCtxSynchronize();   /* ordered after earlier work */
    if (r == CUDA_SUCCESS) memmove(dst, src, count);
    break;
  case cudaMemcpyHostToDevice:
    r = async ? cuMemcpyHtoDAsync(dp(dst), src, count, stream) : cuMemcpyHtoD(dp(dst), src, count);
    break;
  case cudaMemcpyDeviceToHost:
    r = async ? cuMemcpyDtoHAsync(dst, dp(src), count, stream) : cuMemcpyDtoH(dst, dp(src), count);
    break;
  default:
    r = async ? cuMemcpyDtoDAsync(dp(dst), dp(src), count, stream) : cuMemcpyDtoD(dp(dst), dp(src), count);
    break;
  }
  return rt_cu(r);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  return copy(dst, src, count, kind, false, NULL);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return copy(dst, src, count, kind, true, stream);
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
  if (dstDevice != 0 || srcDevice != 0) return rt_ret(cudaErrorInvalidDevice);
  return copy(dst, src, count, cudaMemcpyDeviceToDevice, false, NULL);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  if (dstDevice != 0 || srcDevice != 0) return rt_ret(cudaErrorInvalidDevice);
  return copy(dst, src, count, cudaMemcpyDeviceToDevice, true, stream);
}

/* 2D: cuMemcpy2D with the memory types of the kind. */
static cudaError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                           enum cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  if ((unsigned)kind > cudaMemcpyDefault) return rt_ret(cudaErrorInvalidMemcpyDirection);
  INIT();
  if (!width || !height) return cudaSuccess;
  if (width > dpitch || width > spitch) return rt_ret(cudaErrorInvalidPitchValue);
  enum cudaMemcpyKind k = resolve(kind, dst, src);
  CUDA_MEMCPY2D c;
  memset(&c, 0, sizeof c);
  bool sd = k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice;
  bool dd = k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice;
  c.srcMemoryType = sd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  if (sd) c.srcDevice = dp(src);
  else c.srcHost = src;
  c.srcPitch = spitch;
  c.dstMemoryType = dd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  if (dd) c.dstDevice = dp(dst);
  else c.dstHost = dst;
  c.dstPitch = dpitch;
  c.WidthInBytes = width;
  c.Height = height;
  return rt_cu(async ? cuMemcpy2DAsync(&c, stream) : cuMemcpy2D(&c));
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, false, NULL);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, true, stream);
}

/* ---- sets ---- */

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  INIT();
  if (!count) return cudaSuccess;
  return rt_cu(cuMemsetD8(dp(devPtr), (unsigned char)value, count));
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
  INIT();
  if (!count) return cudaSuccess;
  return rt_cu(cuMemsetD8Async(dp(devPtr), (unsigned char)value, count, stream));
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
  INIT();
  if (!width || !height) return cudaSuccess;
  return rt_cu(cuMemsetD2D8(dp(devPtr), pitch, (unsigned char)value, width, height));
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  INIT();
  if (!width || !height) return cudaSuccess;
  return rt_cu(cuMemsetD2D8Async(dp(devPtr), pitch, (unsigned char)value, width, height, stream));
}

/* ---- symbols ---- */

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  if (!devPtr) return rt_ret(cudaErrorInvalidValue);
  CUdeviceptr p = 0;
  size_t n = 0;
  cudaError_t e = rt_symbol(symbol, &p, &n);
  if (e == cudaSuccess) *devPtr = (void *)(uintptr_t)p;
  return rt_ret(e);
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  if (!size) return rt_ret(cudaErrorInvalidValue);
  CUdeviceptr p = 0;
  cudaError_t e = rt_symbol(symbol, &p, size);
  return rt_ret(e);
}

/* A symbol's bytes [offset, offset+count): its device address. */
static cudaError_t symbol_range(const void *symbol, size_t count, size_t offset, CUdeviceptr *p) {
  size_t n = 0;
  cudaError_t e = rt_symbol(symbol, p, &n);
  if (e != cudaSuccess) return e;
  if (offset > n || count > n - offset) return cudaErrorInvalidValue;
  *p += offset;
  return cudaSuccess;
}

static cudaError_t to_symbol(const void *symbol, const void *src, size_t count, size_t offset,
                             enum cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return rt_ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr p = 0;
  cudaError_t e = symbol_range(symbol, count, offset, &p);
  if (e != cudaSuccess) return rt_ret(e);
  return copy((void *)(uintptr_t)p, src, count, kind, async, stream);
}

static cudaError_t from_symbol(void *dst, const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return rt_ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr p = 0;
  cudaError_t e = symbol_range(symbol, count, offset, &p);
  if (e != cudaSuccess) return rt_ret(e);
  return copy(dst, (const void *)(uintptr_t)p, count, kind, async, stream);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  return to_symbol(symbol, src, count, offset, kind, false, NULL);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, true, stream);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  return from_symbol(dst, symbol, count, offset, kind, false, NULL);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, true, stream);
}

/* ---- channel descriptors (arrays and textures are not implemented; the
 * descriptor itself is plain data) ---- */

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
  return (struct cudaChannelFormatDesc){x, y, z, w, f};
}
