/* memory.c: the driver's memory entry points over unified addresses, a
 * self-checking program run by tests/run.py through `ptxvm exec` (see
 * driver_api.c). Managed memory written by the host, read and written by a
 * kernel and read back by the host through the same pointer; mapped host
 * memory (cuMemHostAlloc, cuMemHostGetDevicePointer) and registered
 * malloc'd memory used by kernels; pointer attributes of each kind of
 * memory; 2-D and 3-D copies and sets against plain C loops on the same
 * data; the stream-ordered allocator; address ranges; a device buffer that
 * host code cannot dereference; a kernel store to host memory that is not
 * registered faults; 2-D copies and sets captured into a graph. Expected
 * values: the CUDA documentation's answers and plain arithmetic.
 *
 * EXEC: -j 2
 * STDERR: ptxvm: st.global.u32: 4-byte global access at 0x
 * STDERR: is outside every allocation
 * STDERR: kernel scale, %ctaid (0,0,0), %tid (0,0,0)
 * STDERR-ONCE: ptxvm: copies to or from CUDA arrays (CU_MEMORYTYPE_ARRAY) are not implemented
 * STDERR-ONCE: ptxvm: cuMemAllocAsync in stream capture (memory allocation nodes) is not implemented
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/check.h"

/* scale: dst[i] = 3 * src[i] + 1 for i < n. */
static const char scale_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry scale(.param .u64 src, .param .u64 dst, .param .u32 n)\n{\n"
  "  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<6>;\n"
  "  ld.param.u64 %rd1, [src]; ld.param.u64 %rd2, [dst]; ld.param.u32 %r1, [n];\n"
  "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
  "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
  "  setp.ge.u32 %p, %r5, %r1;\n"
  "  @%p bra DONE;\n"
  "  mul.wide.u32 %rd3, %r5, 4;\n"
  "  add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
  "  ld.global.u32 %r6, [%rd4]; mad.lo.u32 %r7, %r6, 3, 1;\n"
  "  st.global.u32 [%rd5], %r7;\n"
  "DONE:\n  ret;\n}\n";

enum { N = 300 };

static CUfunction scale_fn;

static CUresult scale(CUdeviceptr src, CUdeviceptr dst, unsigned n) {
  void *args[] = {&src, &dst, &n};
  CUresult r = cuLaunchKernel(scale_fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, NULL);
  return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
}

static unsigned mem_type(CUdeviceptr p, CUresult *r) {
  unsigned t = 0;
  *r = cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
  return t;
}

static void test_managed(void) {
  CUdeviceptr a = 0, b = 0;
  CHECK(cuMemAllocManaged(&a, N * 4, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuMemAllocManaged(&b, N * 4, CU_MEM_ATTACH_HOST) == CUDA_SUCCESS);
  CHECK(cuMemAllocManaged(&b, N * 4, 4) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemAllocManaged(&b, 0, CU_MEM_ATTACH_GLOBAL) == CUDA_ERROR_INVALID_VALUE);
  uint32_t *ha = (uint32_t *)(uintptr_t)a, *hb = (uint32_t *)(uintptr_t)b;
  for (int i = 0; i < N; i++) ha[i] = (uint32_t)i * 7u;
  CUmemLocation dev = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, host = {CU_MEM_LOCATION_TYPE_HOST, 0};
  CHECK(cuMemPrefetchAsync(a, N * 4, dev, 0, 0) == CUDA_SUCCESS);
  CHECK(cuMemAdvise(a, N * 4, CU_MEM_ADVISE_SET_READ_MOSTLY, dev) == CUDA_SUCCESS);
  CHECK(cuMemAdvise(a, N * 4 + 1, CU_MEM_ADVISE_SET_READ_MOSTLY, dev) == CUDA_ERROR_INVALID_VALUE);
  CHECK(scale(a, b, N) == CUDA_SUCCESS);
  CHECK(cuMemPrefetchAsync(b, N * 4, host, 0, 0) == CUDA_SUCCESS);
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= hb[i] == (uint32_t)i * 21u + 1u;
  CHECK(ok);
  /* the host writes, the kernel sees it again, in place */
  hb[5] = 100;
  CHECK(scale(b, b, N) == CUDA_SUCCESS && hb[5] == 301 && hb[6] == (6u * 21u + 1u) * 3u + 1u);
  uint32_t back[N];
  CHECK(cuMemcpyDtoH(back, b, sizeof back) == CUDA_SUCCESS && back[5] == 301);
  CHECK(cuMemFree(a) == CUDA_SUCCESS && cuMemFree(b) == CUDA_SUCCESS);
}

static void test_host_alloc(void) {
  void *h = NULL;
  CUdeviceptr dp = 0, out = 0;
  CHECK(cuMemHostAlloc(&h, N * 4, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) == CUDA_SUCCESS && h);
  CHECK(cuMemHostAlloc(&h, N * 4, 0x80) == CUDA_ERROR_INVALID_VALUE);
  uint32_t *hp = h;
  for (int i = 0; i < N; i++) hp[i] = (uint32_t)i;
  CHECK(cuMemHostGetDevicePointer(&dp, hp + 2, 0) == CUDA_SUCCESS && dp == (CUdeviceptr)(uintptr_t)(hp + 2));
  CHECK(cuMemHostGetDevicePointer(&dp, h, 1) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemHostGetDevicePointer(&dp, h, 0) == CUDA_SUCCESS);
  unsigned flags = 0;
  CHECK(cuMemHostGetFlags(&flags, h) == CUDA_SUCCESS &&
        flags == (CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  CHECK(cuMemAlloc(&out, N * 4) == CUDA_SUCCESS);
  CHECK(scale(dp, out, N) == CUDA_SUCCESS);
  uint32_t back[N];
  CHECK(cuMemcpyDtoH(back, out, sizeof back) == CUDA_SUCCESS);
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= back[i] == 3u * (uint32_t)i + 1u;
  CHECK(ok);
  /* the kernel writes host memory: the host reads it at once */
  CHECK(scale(out, dp, N) == CUDA_SUCCESS && hp[10] == 3u * 31u + 1u);
  CHECK(cuMemFreeHost((void *)(uintptr_t)out) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemFree(dp) == CUDA_ERROR_INVALID_VALUE);   /* host memory: cuMemFreeHost's */
  CHECK(cuMemFreeHost(h) == CUDA_SUCCESS);
  CHECK(cuMemFreeHost(h) == CUDA_ERROR_INVALID_VALUE);
  void *h2 = NULL;
  CHECK(cuMemAllocHost(&h2, 64) == CUDA_SUCCESS && h2 && cuMemHostGetFlags(&flags, h2) == CUDA_SUCCESS && flags == 0);
  CHECK(cuMemFreeHost(h2) == CUDA_SUCCESS);
  CHECK(cuMemFree(out) == CUDA_SUCCESS);
}

static void test_register(void) {
  uint32_t *in = malloc(N * 4), *out = malloc(N * 4 + 64);
  if (!in || !out) {
    CHECK(0);
    return;
  }
  for (int i = 0; i < N; i++) in[i] = (uint32_t)(i * i);
  memset(out, 0, N * 4 + 64);
  CHECK(cuMemHostRegister(in, N * 4, CU_MEMHOSTREGISTER_READ_ONLY) == CUDA_SUCCESS);
  CHECK(cuMemHostRegister(out, N * 4, CU_MEMHOSTREGISTER_DEVICEMAP) == CUDA_SUCCESS);
  CHECK(cuMemHostRegister(out + 4, 16, 0) == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  CUdeviceptr din = 0;
  CHECK(cuMemHostGetDevicePointer(&din, in, 0) == CUDA_SUCCESS && din == (CUdeviceptr)(uintptr_t)in);
  CHECK(scale((CUdeviceptr)(uintptr_t)in, (CUdeviceptr)(uintptr_t)out, N) == CUDA_SUCCESS);
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= out[i] == 3u * (uint32_t)(i * i) + 1u;
  CHECK(ok && out[N] == 0);
  /* copies reach registered memory as device memory */
  CUdeviceptr d = 0;
  CHECK(cuMemAlloc(&d, 16) == CUDA_SUCCESS && cuMemcpyDtoD(d, (CUdeviceptr)(uintptr_t)(in + 3), 16) == CUDA_SUCCESS);
  uint32_t four[4];
  CHECK(cuMemcpyDtoH(four, d, 16) == CUDA_SUCCESS && four[0] == 9 && four[3] == 36);
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
  unsigned flags = 0;
  CHECK(cuMemHostGetFlags(&flags, out) == CUDA_SUCCESS && flags == CU_MEMHOSTREGISTER_DEVICEMAP);
  CHECK(cuMemHostUnregister(out + 1) == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  CHECK(cuMemHostUnregister(in) == CUDA_SUCCESS && cuMemHostUnregister(out) == CUDA_SUCCESS);
  CHECK(cuMemHostUnregister(in) == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  CHECK(cuMemHostGetDevicePointer(&din, in, 0) == CUDA_ERROR_INVALID_VALUE);
  /* memory that is not mapped cannot be registered */
  long pg = sysconf(_SC_PAGESIZE);
  void *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m != MAP_FAILED) {
    munmap((char *)m + pg, (size_t)pg);
    CHECK(cuMemHostRegister(m, (size_t)pg * 2, 0) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemHostRegister(m, (size_t)pg, 0) == CUDA_SUCCESS && cuMemHostUnregister(m) == CUDA_SUCCESS);
    munmap(m, (size_t)pg);
  }
  free(in);
  free(out);
}

static void test_attributes(CUcontext ctx) {
  CUdeviceptr d = 0, m = 0;
  void *h = NULL;
  uint32_t *reg = malloc(256);
  CHECK(cuMemAlloc(&d, 1000) == CUDA_SUCCESS && cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuMemHostAlloc(&h, 128, 0) == CUDA_SUCCESS && reg && cuMemHostRegister(reg, 256, 0) == CUDA_SUCCESS);
  CUdeviceptr hd = (uintptr_t)h, rd = (uintptr_t)reg;
  CUresult r;
  CHECK(mem_type(d + 10, &r) == CU_MEMORYTYPE_DEVICE && r == CUDA_SUCCESS);
  CHECK(mem_type(m, &r) == CU_MEMORYTYPE_DEVICE && r == CUDA_SUCCESS);
  CHECK(mem_type(hd + 127, &r) == CU_MEMORYTYPE_HOST && r == CUDA_SUCCESS);
  CHECK(mem_type(rd, &r) == CU_MEMORYTYPE_HOST && r == CUDA_SUCCESS);
  int local = 0;
  mem_type((uintptr_t)&local, &r);
  CHECK(r == CUDA_ERROR_INVALID_VALUE);   /* host memory not registered */
  mem_type(d + 1000, &r);
  CHECK(r == CUDA_ERROR_INVALID_VALUE);   /* one past the end */
  CUcontext c = NULL;
  CHECK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, d) == CUDA_SUCCESS && c == ctx);
  CHECK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, rd + 8) == CUDA_SUCCESS && c == ctx);
  CUdeviceptr dp = 0;
  CHECK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 12) == CUDA_SUCCESS && dp == d + 12);
  CHECK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, hd) == CUDA_SUCCESS && dp == hd);
  CHECK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (uintptr_t)&local) == CUDA_ERROR_INVALID_VALUE);
  void *hp = NULL;
  CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, m + 4) == CUDA_SUCCESS && hp == (void *)(uintptr_t)(m + 4));
  CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, rd) == CUDA_SUCCESS && hp == reg);
  bool managed = true;
  CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d) == CUDA_SUCCESS && !managed);
  CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m) == CUDA_SUCCESS && managed);
  CUdeviceptr start = 0;
  size_t size = 0;
  CHECK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 999) == CUDA_SUCCESS && start == d);
  CHECK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 999) == CUDA_SUCCESS && size == 1000);
  CHECK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, rd + 3) == CUDA_SUCCESS && size == 256);
  unsigned long long id1 = 0, id2 = 0, id3 = 0;
  CHECK(cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, d) == CUDA_SUCCESS);
  CHECK(cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, m) == CUDA_SUCCESS);
  CHECK(cuPointerGetAttribute(&id3, CU_POINTER_ATTRIBUTE_BUFFER_ID, d + 5) == CUDA_SUCCESS);
  CHECK(id1 && id2 && id1 != id2 && id1 == id3);
  int ordinal = -1;
  CHECK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, m) == CUDA_SUCCESS && ordinal == 0);
  bool mapped = false;
  CHECK(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, d) == CUDA_SUCCESS && mapped);
  /* all at once; a pointer in no allocation gets null values */
  CUpointer_attribute at[4] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                               CU_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_IS_MANAGED};
  unsigned type = 99;
  c = NULL;
  hp = (void *)1;
  managed = true;
  void *data[4] = {&type, &c, &hp, &managed};
  CHECK(cuPointerGetAttributes(4, at, data, d) == CUDA_SUCCESS && type == CU_MEMORYTYPE_DEVICE && c == ctx &&
        hp == NULL && !managed);
  CHECK(cuPointerGetAttributes(4, at, data, (uintptr_t)&local) == CUDA_SUCCESS && type == 0 && c == NULL &&
        hp == NULL && !managed);
  CHECK(cuPointerGetAttributes(4, at, data, m) == CUDA_SUCCESS && type == CU_MEMORYTYPE_DEVICE && managed &&
        hp == (void *)(uintptr_t)m);
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
  mem_type(d, &r);
  CHECK(r == CUDA_ERROR_INVALID_VALUE);   /* freed */
  CHECK(cuMemFree(m) == CUDA_SUCCESS && cuMemFreeHost(h) == CUDA_SUCCESS && cuMemHostUnregister(reg) == CUDA_SUCCESS);
  free(reg);
}

/* 2-D: a box of a host image with a row pitch of 40 into a pitched device
 * buffer, back to a host image of pitch 64; compared with the same box
 * moved by loops. */
static void test_copy2d(void) {
  enum { W = 13, H = 5, SP = 40, SH = 9, DP = 64 };
  uint8_t src[SP * SH], back[DP * 12], want[DP * 12];
  for (int i = 0; i < SP * SH; i++) src[i] = (uint8_t)(i * 37 + 11);
  CUdeviceptr d = 0;
  size_t pitch = 0;
  CHECK(cuMemAllocPitch(&d, &pitch, 30, 12, 4) == CUDA_SUCCESS && pitch >= 30 && pitch % 4 == 0);
  CHECK(cuMemAllocPitch(&d, &pitch, 30, 12, 3) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemsetD8(d, 0xee, pitch * 12) == CUDA_SUCCESS);
  CUDA_MEMCPY2D p;
  memset(&p, 0, sizeof p);
  p.srcMemoryType = CU_MEMORYTYPE_HOST, p.srcHost = src, p.srcPitch = SP, p.srcXInBytes = 3, p.srcY = 2;
  p.dstMemoryType = CU_MEMORYTYPE_DEVICE, p.dstDevice = d, p.dstPitch = pitch, p.dstXInBytes = 5, p.dstY = 1;
  p.WidthInBytes = W, p.Height = H;
  CHECK(cuMemcpy2D(&p) == CUDA_SUCCESS);
  /* the whole device buffer back into rows of DP bytes (unified type) */
  memset(back, 0, sizeof back);
  CUDA_MEMCPY2D q;
  memset(&q, 0, sizeof q);
  q.srcMemoryType = CU_MEMORYTYPE_UNIFIED, q.srcDevice = d, q.srcPitch = pitch;
  q.dstMemoryType = CU_MEMORYTYPE_HOST, q.dstHost = back, q.dstPitch = DP;
  q.WidthInBytes = 30, q.Height = 12;
  CHECK(cuMemcpy2DUnaligned(&q) == CUDA_SUCCESS);
  for (int y = 0; y < 12; y++)
    for (int x = 0; x < DP; x++) want[y * DP + x] = x < 30 ? 0xee : 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) want[(y + 1) * DP + x + 5] = src[(y + 2) * SP + x + 3];
  CHECK(!memcmp(back, want, sizeof want));
  /* a box running past the buffer's end, a pitch below the width: refused */
  p.dstY = 12 - H + 1;
  CHECK(cuMemcpy2D(&p) == CUDA_ERROR_INVALID_VALUE);
  p.dstY = 0, p.srcPitch = W - 1;
  CHECK(cuMemcpy2D(&p) == CUDA_ERROR_INVALID_VALUE);
  p.srcPitch = SP, p.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  CHECK(cuMemcpy2DAsync(&p, 0) == CUDA_ERROR_NOT_SUPPORTED && cuMemcpy2D(&p) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
}

/* 3-D: a box of a host volume into a device volume of other pitch and
 * height, back, against loops. */
static void test_copy3d(void) {
  enum { SW = 20, SH = 6, SD = 5, DW = 32, DH = 8, DD = 4, W = 7, H = 4, D = 3 };
  uint8_t src[SW * SH * SD], back[DW * DH * DD], want[DW * DH * DD];
  for (int i = 0; i < (int)sizeof src; i++) src[i] = (uint8_t)(i * 13 + 1);
  CUdeviceptr d = 0;
  CHECK(cuMemAlloc(&d, sizeof back) == CUDA_SUCCESS && cuMemsetD32(d, 0x01020304, sizeof back / 4) == CUDA_SUCCESS);
  CUDA_MEMCPY3D p;
  memset(&p, 0, sizeof p);
  p.srcMemoryType = CU_MEMORYTYPE_HOST, p.srcHost = src, p.srcPitch = SW, p.srcHeight = SH;
  p.srcXInBytes = 2, p.srcY = 1, p.srcZ = 2;
  p.dstMemoryType = CU_MEMORYTYPE_DEVICE, p.dstDevice = d, p.dstPitch = DW, p.dstHeight = DH;
  p.dstXInBytes = 9, p.dstY = 3, p.dstZ = 1;
  p.WidthInBytes = W, p.Height = H, p.Depth = D;
  CHECK(cuMemcpy3D(&p) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(back, d, sizeof back) == CUDA_SUCCESS);
  for (int i = 0; i < (int)sizeof want; i++) want[i] = (uint8_t)(4 - i % 4);
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        want[((z + 1) * DH + y + 3) * DW + x + 9] = src[((z + 2) * SH + y + 1) * SW + x + 2];
  CHECK(!memcmp(back, want, sizeof want));
  p.srcLOD = 1;
  CHECK(cuMemcpy3DAsync(&p, 0) == CUDA_ERROR_INVALID_VALUE);
  p.srcLOD = 0, p.dstZ = 2;   /* past the end of the device volume */
  CHECK(cuMemcpy3D(&p) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
}

static void test_memset(void) {
  enum { PITCH = 48, ROWS = 6, BYTES = PITCH * ROWS };
  CUdeviceptr d = 0;
  uint8_t back[BYTES], want[BYTES];
  CHECK(cuMemAlloc(&d, BYTES) == CUDA_SUCCESS);
  CHECK(cuMemsetD8(d, 0x5a, BYTES) == CUDA_SUCCESS);
  memset(want, 0x5a, BYTES);
  CHECK(cuMemsetD16(d + 2, 0xbeef, 7) == CUDA_SUCCESS);
  for (int i = 0; i < 7; i++) want[2 + 2 * i] = 0xef, want[3 + 2 * i] = 0xbe;
  CHECK(cuMemsetD32Async(d + 24, 0x11223344, 3, 0) == CUDA_SUCCESS);
  for (int i = 0; i < 3; i++) want[24 + 4 * i] = 0x44, want[25 + 4 * i] = 0x33, want[26 + 4 * i] = 0x22, want[27 + 4 * i] = 0x11;
  CHECK(cuMemsetD2D8(d + PITCH + 1, PITCH, 0x77, 5, 2) == CUDA_SUCCESS);
  for (int y = 1; y < 3; y++)
    for (int x = 1; x < 6; x++) want[y * PITCH + x] = 0x77;
  CHECK(cuMemsetD2D16Async(d + 3 * PITCH + 8, PITCH, 0xa1b2, 4, 2, 0) == CUDA_SUCCESS);
  for (int y = 3; y < 5; y++)
    for (int x = 0; x < 4; x++) want[y * PITCH + 8 + 2 * x] = 0xb2, want[y * PITCH + 9 + 2 * x] = 0xa1;
  CHECK(cuMemsetD2D32(d + 4 * PITCH + 32, PITCH, 0xcafef00d, 3, 2) == CUDA_SUCCESS);
  for (int y = 4; y < 6; y++)
    for (int x = 0; x < 3; x++) {
      uint8_t *w = &want[y * PITCH + 32 + 4 * x];
      w[0] = 0x0d, w[1] = 0xf0, w[2] = 0xfe, w[3] = 0xca;
    }
  CHECK(cuMemcpyDtoH(back, d, BYTES) == CUDA_SUCCESS && !memcmp(back, want, BYTES));
  /* refused, and nothing written: misaligned, past the end, pitch below the width */
  CHECK(cuMemsetD16(d + 1, 0, 2) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemsetD32(d + BYTES - 8, 0, 3) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemsetD2D8(d + 4 * PITCH, PITCH, 0, 4, 3) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemsetD2D8(d, 4, 0, 8, 2) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemcpyDtoH(back, d, BYTES) == CUDA_SUCCESS && !memcmp(back, want, BYTES));
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
}

static void test_pool(void) {
  CUmemoryPool pool = NULL, cur = NULL, from = NULL;
  CHECK(cuDeviceGetDefaultMemPool(&pool, 0) == CUDA_SUCCESS && pool);
  CHECK(cuDeviceGetMemPool(&cur, 0) == CUDA_SUCCESS && cur == pool);
  CHECK(cuDeviceGetDefaultMemPool(&pool, 1) == CUDA_ERROR_INVALID_DEVICE);
  CUdeviceptr a = 0, b = 0, plain = 0;
  cuuint64_t used = 1, high = 0;
  CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) == CUDA_SUCCESS && used == 0);
  CHECK(cuMemAllocAsync(&a, 1000, 0) == CUDA_SUCCESS && cuMemAllocFromPoolAsync(&b, 24, pool, 0) == CUDA_SUCCESS);
  CHECK(cuMemAllocFromPoolAsync(&b, 24, (CUmemoryPool)&used, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemAlloc(&plain, 8) == CUDA_SUCCESS);
  CHECK(cuPointerGetAttribute(&from, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a + 8) == CUDA_SUCCESS && from == pool);
  CHECK(cuPointerGetAttribute(&from, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, plain) == CUDA_SUCCESS && from == NULL);
  CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) == CUDA_SUCCESS && used == 1024);
  CHECK(cuMemsetD8Async(a, 1, 1000, 0) == CUDA_SUCCESS);
  CHECK(cuMemFreeAsync(a, 0) == CUDA_SUCCESS && cuMemFreeAsync(a, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) == CUDA_SUCCESS && used == 24);
  CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &high) == CUDA_SUCCESS && high == 1024);
  cuuint64_t zero = 0, seven = 7;
  CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero) == CUDA_SUCCESS);
  CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &high) == CUDA_SUCCESS && high == 24);
  CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &seven) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &seven) == CUDA_SUCCESS);
  CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &high) == CUDA_SUCCESS && high == 7);
  CHECK(cuMemPoolTrimTo(pool, 0) == CUDA_SUCCESS && cuDeviceSetMemPool(0, pool) == CUDA_SUCCESS);
  CHECK(cuMemFree(b) == CUDA_SUCCESS);   /* cuMemFree takes pool memory too */
  CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) == CUDA_SUCCESS && used == 0);
  CHECK(cuMemFree(plain) == CUDA_SUCCESS);
}

static void test_ranges_and_copies(CUcontext ctx) {
  CUdeviceptr d = 0, base = 0;
  size_t size = 0;
  CHECK(cuMemAlloc(&d, 100) == CUDA_SUCCESS);
  CHECK(cuMemGetAddressRange(&base, &size, d + 99) == CUDA_SUCCESS && base == d && size == 100);
  CHECK(cuMemGetAddressRange(&base, &size, d + 100) == CUDA_ERROR_NOT_FOUND);
  int local = 0;
  CHECK(cuMemGetAddressRange(&base, &size, (uintptr_t)&local) == CUDA_ERROR_NOT_FOUND);
  /* generic copies: host -> device, device -> host, host -> host */
  uint32_t in[25], out[25], mid[25];
  for (int i = 0; i < 25; i++) in[i] = (uint32_t)i * 1000u;
  CHECK(cuMemcpy(d, (uintptr_t)in, 100) == CUDA_SUCCESS);
  CHECK(cuMemcpyAsync((uintptr_t)mid, d, 100, 0) == CUDA_SUCCESS && !memcmp(mid, in, 100));
  CHECK(cuMemcpy((uintptr_t)out, (uintptr_t)mid, 100) == CUDA_SUCCESS && !memcmp(out, in, 100));
  CHECK(cuMemcpyHtoD(d + 4, in, 100) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemcpyDtoH(out, (uintptr_t)in, 4) == CUDA_ERROR_INVALID_VALUE);   /* not device memory */
  /* a second context: its own, disjoint arena; peer copies between them */
  CUcontext other = NULL;
  CHECK(cuCtxCreate(&other, NULL, 0, 0) == CUDA_SUCCESS);
  CUdeviceptr e = 0;
  CHECK(cuMemAlloc(&e, 100) == CUDA_SUCCESS && e != d);
  CUcontext c = NULL;
  CHECK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, e) == CUDA_SUCCESS && c == other);
  CHECK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, d) == CUDA_SUCCESS && c == ctx);
  CHECK(cuMemcpyPeer(e, other, d, ctx, 100) == CUDA_SUCCESS);
  memset(out, 0, sizeof out);
  CHECK(cuMemcpyDtoH(out, e, 100) == CUDA_SUCCESS && !memcmp(out, in, 100));
  CHECK(cuMemFree(e) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(other) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  /* host code cannot dereference a device buffer (a child process tries) */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stderr);
    volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)d;
    _exit(*p == 0 ? 42 : 43);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 42 && WEXITSTATUS(status) != 43));
  CHECK(cuMemFree(d) == CUDA_SUCCESS);
}

/* 2-D copies and sets on a capturing stream become graph nodes, run by
 * cuGraphLaunch; the stream-ordered allocator is refused there by name. */
static void test_capture(void) {
  enum { PITCH = 64, ROWS = 8, W = 16 };
  uint8_t src[W * 4], back[PITCH * ROWS], want[PITCH * ROWS];
  for (int i = 0; i < (int)sizeof src; i++) src[i] = (uint8_t)(i + 100);
  CUdeviceptr d = 0, x = 0;
  CUstream s = NULL;
  CHECK(cuMemAlloc(&d, sizeof back) == CUDA_SUCCESS && cuMemsetD8(d, 0, sizeof back) == CUDA_SUCCESS);
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuMemsetD2D32Async(d, PITCH, 0x01020304, W / 4 * 2, ROWS, s) == CUDA_SUCCESS);
  CUDA_MEMCPY2D p;
  memset(&p, 0, sizeof p);
  p.srcMemoryType = CU_MEMORYTYPE_HOST, p.srcHost = src, p.srcPitch = W;
  p.dstMemoryType = CU_MEMORYTYPE_DEVICE, p.dstDevice = d, p.dstPitch = PITCH, p.dstXInBytes = 8, p.dstY = 2;
  p.WidthInBytes = W, p.Height = 4;
  CHECK(cuMemcpy2DAsync(&p, s) == CUDA_SUCCESS);
  CHECK(cuMemAllocAsync(&x, 16, s) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuMemcpyDtoH(back, d, sizeof back) == CUDA_SUCCESS && back[0] == 0);   /* nothing ran yet */
  CUgraph g = NULL;
  CUgraphExec e = NULL;
  CHECK(cuStreamEndCapture(s, &g) == CUDA_SUCCESS && g);
  CHECK(cuGraphInstantiate(&e, g, 0) == CUDA_SUCCESS && cuGraphLaunch(e, s) == CUDA_SUCCESS);
  CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS);
  memset(want, 0, sizeof want);
  for (int y = 0; y < ROWS; y++)
    for (int i = 0; i < W / 4 * 2; i++) memcpy(&want[y * PITCH + 4 * i], &(uint32_t){0x01020304}, 4);
  for (int y = 0; y < 4; y++) memcpy(&want[(y + 2) * PITCH + 8], &src[y * W], W);
  CHECK(cuMemcpyDtoH(back, d, sizeof back) == CUDA_SUCCESS && !memcmp(back, want, sizeof want));
  CHECK(cuGraphExecDestroy(e) == CUDA_SUCCESS && cuGraphDestroy(g) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(s) == CUDA_SUCCESS && cuMemFree(d) == CUDA_SUCCESS);
}

/* Last: a kernel store to host memory that is not registered faults (the
 * context's error is sticky afterwards), and the memory is untouched. */
static void test_unregistered_fault(void) {
  uint32_t *h = calloc(N, 4), in[N];
  CUdeviceptr d = 0;
  for (int i = 0; i < N; i++) in[i] = 1;
  CHECK(h && cuMemAlloc(&d, sizeof in) == CUDA_SUCCESS && cuMemcpyHtoD(d, in, sizeof in) == CUDA_SUCCESS);
  CHECK(scale(d, (uintptr_t)h, N) == CUDA_ERROR_ILLEGAL_ADDRESS);
  int untouched = 1;
  for (int i = 0; h && i < N; i++) untouched &= h[i] == 0;
  CHECK(untouched);
  free(h);
}

int main(void) {
  CUcontext ctx = NULL;
  CUmodule mod = NULL;
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CHECK(cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&mod, scale_ptx) == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&scale_fn, mod, "scale") == CUDA_SUCCESS);
  if (!scale_fn) return unit_report();
  /* the device says what the driver does */
  int v[6] = {0};
  CUdevice_attribute at[6] = {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY,
                              CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED,
                              CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                              CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM};
  for (int i = 0; i < 6; i++) CHECK(cuDeviceGetAttribute(&v[i], at[i], 0) == CUDA_SUCCESS && v[i] == 1);
  test_managed();
  test_host_alloc();
  test_register();
  test_attributes(ctx);
  test_copy2d();
  test_copy3d();
  test_memset();
  test_pool();
  test_capture();
  test_ranges_and_copies(ctx);
  test_unregistered_fault();
  cuCtxDestroy(ctx);
  return unit_report();
}
