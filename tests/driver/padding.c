/* padding.c: a kernel's access just past the end of a cuMemAlloc buffer,
 * run by tests/run.py as `ptxvm exec --check PROGRAM` (see driver_api.c).
 * Every allocation is 256-byte aligned (as CUDA guarantees), so on a GPU
 * the bytes up to the next multiple of 256 are no other allocation's and
 * an access there does not fault: numba-cuda's
 * test_dispatcher_cpointer_arguments runs axpy over 16 elements of
 * 10-element (40-byte) buffers and checks the 10. ptxvm's driver pads the
 * same way (ptxvm_set_alloc_padding): the launch succeeds with the GPU's
 * results, the checker reports each access past the requested size (so
 * `ptxvm exec --check` exits 1), copies still end at the requested size,
 * and an access past the padding faults (sticky: in a context of its own).
 *
 * EXEC: --check
 * EXIT: 1
 * STDERR: ptxvm: launch 1 (kernel axpy): ld.global.u32: 4-byte global accesses run past the end of the 40-byte allocation at 0x
 * STDERR: st.global.u32: 4-byte global accesses run past the end of the 40-byte allocation at 0x
 * STDERR: into its padding (a GPU does not fault there)
 * STDERR: ptxvm: ld.global.u32: 4-byte global access at 0x
 * STDERR: runs past the end of the 4-byte allocation at
 */
#include <cuda.h>
#include <string.h>

#include "../unit/check.h"

/* axpy: r[i] = a * x[i] + y[i] for i < n (numba's test, in PTX). */
static const char ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry axpy(.param .u64 r, .param .u32 a, .param .u64 x, .param .u64 y, .param .u32 n)\n{\n"
  "  .reg .pred %p; .reg .b32 %r<9>; .reg .b64 %rd<9>;\n"
  "  ld.param.u64 %rd1, [r]; ld.param.u32 %r1, [a]; ld.param.u64 %rd2, [x];\n"
  "  ld.param.u64 %rd3, [y]; ld.param.u32 %r2, [n];\n"
  "  mov.u32 %r3, %tid.x;\n"
  "  setp.ge.u32 %p, %r3, %r2;\n"
  "  @%p bra DONE;\n"
  "  mul.wide.u32 %rd4, %r3, 4;\n"
  "  add.s64 %rd5, %rd2, %rd4; add.s64 %rd6, %rd3, %rd4; add.s64 %rd7, %rd1, %rd4;\n"
  "  ld.global.u32 %r4, [%rd5]; ld.global.u32 %r5, [%rd6];\n"
  "  mad.lo.u32 %r6, %r1, %r4, %r5;\n"
  "  st.global.u32 [%rd7], %r6;\n"
  "DONE:\n  ret;\n}\n";

static CUresult axpy(CUfunction f, CUdeviceptr r, unsigned a, CUdeviceptr x, CUdeviceptr y, unsigned n) {
  void *args[] = {&r, &a, &x, &y, &n};
  CUresult e = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
  return e == CUDA_SUCCESS ? cuCtxSynchronize() : e;
}

int main(void) {
  CUdevice dev;
  CUcontext ctx, other;
  CUmodule mod;
  CUfunction f;
  CHECK(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  CHECK(cuCtxCreate(&ctx, NULL, 0, dev) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&mod, ptx) == CUDA_SUCCESS && cuModuleGetFunction(&f, mod, "axpy") == CUDA_SUCCESS);
  int hx[10], hy[10], hr[16];
  for (int i = 0; i < 10; i++) hx[i] = i, hy[i] = 2 * i;
  CUdeviceptr x, y, r;
  CHECK(cuMemAlloc(&x, sizeof hx) == CUDA_SUCCESS && cuMemAlloc(&y, sizeof hy) == CUDA_SUCCESS &&
        cuMemAlloc(&r, sizeof hx) == CUDA_SUCCESS);
  CHECK(cuMemcpyHtoD(x, hx, sizeof hx) == CUDA_SUCCESS && cuMemcpyHtoD(y, hy, sizeof hy) == CUDA_SUCCESS);
  /* 16 elements of 10: reads and writes 24 bytes past each 40-byte buffer */
  CHECK(axpy(f, r, 5, x, y, 16) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(hr, r, 10 * sizeof(int)) == CUDA_SUCCESS);
  int ok = 1;
  for (int i = 0; i < 10; i++) ok &= hr[i] == 5 * hx[i] + hy[i];
  CHECK(ok);
  /* copies end at the requested size */
  CHECK(cuMemcpyDtoH(hr, r, sizeof hr) == CUDA_ERROR_INVALID_VALUE);
  size_t size = 0;
  CUdeviceptr base = 0;
  CHECK(cuMemGetAddressRange(&base, &size, r + 8) == CUDA_SUCCESS && base == r && size == 40);
  /* past the padding (64 elements: 256 bytes) faults, sticky */
  CHECK(cuCtxCreate(&other, NULL, 0, dev) == CUDA_SUCCESS);
  CUmodule m2;
  CUfunction f2;
  CHECK(cuModuleLoadData(&m2, ptx) == CUDA_SUCCESS && cuModuleGetFunction(&f2, m2, "axpy") == CUDA_SUCCESS);
  CUdeviceptr small, big;
  CHECK(cuMemAlloc(&small, 4) == CUDA_SUCCESS && cuMemAlloc(&big, 4096) == CUDA_SUCCESS);
  void *args[] = {&big, &(unsigned){1}, &small, &big, &(unsigned){32}};
  /* x = small: elements 0..63 lie in its 256 bytes; 128 reach past them */
  CHECK(cuLaunchKernel(f2, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  args[4] = &(unsigned){128};
  CHECK(cuLaunchKernel(f2, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK(cuCtxDestroy(other) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  CHECK(cuMemFree(x) == CUDA_SUCCESS && cuMemFree(y) == CUDA_SUCCESS && cuMemFree(r) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(ctx) == CUDA_SUCCESS);
  return unit_report();
}
