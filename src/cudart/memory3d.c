/* memory3d.c: pitched 3-D memory: cudaMalloc3D, cudaMemcpy3D (Async, Peer),
 * cudaMemset3D (Async).
 *
 * A 3-D allocation is a pitched one of height * depth rows (cuMemAllocPitch:
 * rows of `pitch` bytes, slices of ysize = height rows), described by a
 * cudaPitchedPtr. A 3-D copy is the driver's CUDA_MEMCPY3D: positions and
 * widths in bytes (no array is involved), each side's pitch and rows per
 * slice from its cudaPitchedPtr, the memory types from the cudaMemcpyKind
 * (cudaMemcpyDefault: by the allocation table, as memory.c does). A 3-D set
 * is one 2-D set per slice. CUDA arrays (cudaArray_t) are not implemented:
 * a copy naming one is refused by name, cudaErrorNotSupported. */
#include <string.h>

#include "runtime.h"

#define INIT()                                                                 \
  do {                                                                         \
    cudaError_t e_ = rt_init();                                                \
    if (e_ != cudaSuccess) return rt_ret(e_);                                  \
  } while (0)

static CUdeviceptr dp(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent) {
  if (!pitchedDevPtr) return rt_ret(cudaErrorInvalidValue);
  INIT();
  *pitchedDevPtr = (struct cudaPitchedPtr){NULL, 0, extent.width, extent.height};
  if (!extent.width || !extent.height || !extent.depth) return cudaSuccess;   /* as cudaMalloc of 0 bytes */
  if (extent.height > SIZE_MAX / extent.depth) return rt_ret(cudaErrorMemoryAllocation);
  CUdeviceptr p = 0;
  size_t pitch = 0;
  CUresult r = cuMemAllocPitch(&p, &pitch, extent.width, extent.height * extent.depth, 16);
  if (r == CUDA_SUCCESS) *pitchedDevPtr = (struct cudaPitchedPtr){(void *)(uintptr_t)p, pitch, extent.width,
                                                                  extent.height};
  return rt_cu(r);
}

static cudaError_t no_arrays(cudaArray_t src, cudaArray_t dst) {
  return src || dst ? rt_unsupported("cudaMemcpy3D with a CUDA array (cudaArray_t)") : cudaSuccess;
}

/* One side of a copy in the driver's terms: `device` tells the memory type. */
static void side(CUDA_MEMCPY3D *c, bool src, bool device, struct cudaPitchedPtr p, struct cudaPos pos) {
  CUmemorytype t = device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  if (src) {
    c->srcMemoryType = t;
    if (device) c->srcDevice = dp(p.ptr);
    else c->srcHost = p.ptr;
    c->srcXInBytes = pos.x, c->srcY = pos.y, c->srcZ = pos.z;
    c->srcPitch = p.pitch, c->srcHeight = p.ysize;
  } else {
    c->dstMemoryType = t;
    if (device) c->dstDevice = dp(p.ptr);
    else c->dstHost = p.ptr;
    c->dstXInBytes = pos.x, c->dstY = pos.y, c->dstZ = pos.z;
    c->dstPitch = p.pitch, c->dstHeight = p.ysize;
  }
}

static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p, bool async, cudaStream_t stream) {
  if (!p) return rt_ret(cudaErrorInvalidValue);
  INIT();
  cudaError_t e = no_arrays(p->srcArray, p->dstArray);
  if (e != cudaSuccess) return rt_ret(e);
  enum cudaMemcpyKind k = p->kind;
  if ((unsigned)k > cudaMemcpyDefault) return rt_ret(cudaErrorInvalidMemcpyDirection);
  if (k == cudaMemcpyDefault) {
    bool d = rt_on_device(p->dstPtr.ptr), s = rt_on_device(p->srcPtr.ptr);
    k = d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
          : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  if (!p->extent.width || !p->extent.height || !p->extent.depth) return cudaSuccess;
  CUDA_MEMCPY3D c;
  memset(&c, 0, sizeof c);
  side(&c, true, k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice, p->srcPtr, p->srcPos);
  side(&c, false, k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice, p->dstPtr, p->dstPos);
  c.WidthInBytes = p->extent.width, c.Height = p->extent.height, c.Depth = p->extent.depth;
  return rt_cu(async ? cuMemcpy3DAsync(&c, stream) : cuMemcpy3D(&c));
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) { return copy_3d(p, false, NULL); }

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
  return copy_3d(p, true, stream);
}

/* One device: a peer copy is a device-to-device copy on device 0. */
static cudaError_t copy_3d_peer(const struct cudaMemcpy3DPeerParms *p, bool async, cudaStream_t stream) {
  if (!p) return rt_ret(cudaErrorInvalidValue);
  if (p->srcDevice != 0 || p->dstDevice != 0) return rt_ret(cudaErrorInvalidDevice);
  struct cudaMemcpy3DParms q = {p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos, p->dstPtr,
                                p->extent, cudaMemcpyDeviceToDevice};
  return copy_3d(&q, async, stream);
}

cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p) { return copy_3d_peer(p, false, NULL); }

cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream) {
  return copy_3d_peer(p, true, stream);
}

/* Each slice z of the box: a 2-D set of height rows at ptr + z * pitch * ysize. */
static cudaError_t set_3d(struct cudaPitchedPtr p, int value, struct cudaExtent x, bool async, cudaStream_t s) {
  INIT();
  if (!x.width || !x.height || !x.depth) return cudaSuccess;
  if (x.width > p.pitch || (x.depth > 1 && x.height > p.ysize)) return rt_ret(cudaErrorInvalidValue);
  /* the whole box in one allocation before a byte is written */
  CUdeviceptr base = 0;
  size_t size = 0;
  size_t rows = (x.depth - 1) * p.ysize + x.height - 1;
  CUresult r = cuMemGetAddressRange(&base, &size, dp(p.ptr));
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_FOUND) return rt_cu(r);   /* a sticky error, ... */
  if (r != CUDA_SUCCESS || (p.pitch && rows > SIZE_MAX / p.pitch) || dp(p.ptr) - base + rows * p.pitch + x.width > size)
    return rt_ret(cudaErrorInvalidValue);
  for (size_t z = 0; z < x.depth; z++) {
    CUdeviceptr slice = dp(p.ptr) + z * p.pitch * p.ysize;
    r = async ? cuMemsetD2D8Async(slice, p.pitch, (unsigned char)value, x.width, x.height, s)
              : cuMemsetD2D8(slice, p.pitch, (unsigned char)value, x.width, x.height);
    if (r != CUDA_SUCCESS) return rt_cu(r);
  }
  return cudaSuccess;
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent) {
  return set_3d(pitchedDevPtr, value, extent, false, NULL);
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                              cudaStream_t stream) {
  return set_3d(pitchedDevPtr, value, extent, true, stream);
}
