/* initcheck.c: cuMemAlloc memory starts uninitialized under `ptxvm exec
 * --check` (issue 17): a kernel reading a fresh allocation is an
 * "uninitialized" finding (its launch still succeeds, the bytes read zero),
 * while one reading memory that cuMemcpyHtoD, cuMemsetD32 or an earlier
 * kernel's stores wrote is not. The finding's line names the allocation of
 * the first launch only, so it occurs exactly once; managed memory counts
 * as written. ptxvm exec exits 1 for the finding.
 *
 * EXEC: --check -j 1
 * EXIT: 1
 * STDERR-ONCE: uninitialized read of .global bytes
 * STDERR-ONCE: (1024 bytes) at offset 0 by ld at
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"

/* copy: dst[i] = src[i] for i < 256 (one CTA of 256 threads); fill:
 * dst[i] = i. */
static const char ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry copy(.param .u64 src, .param .u64 dst)\n{\n"
  "  .reg .b32 %r<4>; .reg .b64 %rd<6>;\n"
  "  ld.param.u64 %rd1, [src]; ld.param.u64 %rd2, [dst];\n"
  "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4;\n"
  "  add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
  "  ld.global.u32 %r2, [%rd4];\n"
  "  st.global.u32 [%rd5], %r2;\n"
  "  ret;\n}\n"
  ".visible .entry fill(.param .u64 dst)\n{\n"
  "  .reg .b32 %r<4>; .reg .b64 %rd<6>;\n"
  "  ld.param.u64 %rd1, [dst];\n"
  "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4;\n"
  "  add.s64 %rd4, %rd1, %rd3;\n"
  "  st.global.u32 [%rd4], %r1;\n"
  "  ret;\n}\n";

enum { N = 256 };

static CUfunction copy_fn, fill_fn;

static CUresult copy(CUdeviceptr src, CUdeviceptr dst) {
  void *args[] = {&src, &dst};
  CUresult r = cuLaunchKernel(copy_fn, 1, 1, 1, N, 1, 1, 0, 0, args, NULL);
  return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
}

int main(void) {
  CUcontext ctx = NULL;
  CUmodule mod = NULL;
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CHECK(cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&mod, ptx) == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&copy_fn, mod, "copy") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&fill_fn, mod, "fill") == CUDA_SUCCESS);
  if (!copy_fn || !fill_fn) return unit_report();
  CUdeviceptr fresh = 0, htod = 0, set = 0, byk = 0, managed = 0, out = 0;
  CHECK(cuMemAlloc(&out, N * 4) == CUDA_SUCCESS);
  /* 1: never written: the finding (the copy reads zero) */
  CHECK(cuMemAlloc(&fresh, N * 4) == CUDA_SUCCESS);
  CHECK(copy(fresh, out) == CUDA_SUCCESS);
  unsigned h[N];
  CHECK(cuMemcpyDtoH(h, out, sizeof h) == CUDA_SUCCESS);
  CHECK(h[0] == 0 && h[N - 1] == 0);
  /* 2: written by cuMemcpyHtoD */
  for (unsigned i = 0; i < N; i++) h[i] = 2 * i;
  CHECK(cuMemAlloc(&htod, N * 4) == CUDA_SUCCESS);
  CHECK(cuMemcpyHtoD(htod, h, sizeof h) == CUDA_SUCCESS);
  CHECK(copy(htod, out) == CUDA_SUCCESS);
  /* 3: written by cuMemsetD32 */
  CHECK(cuMemAlloc(&set, N * 4) == CUDA_SUCCESS);
  CHECK(cuMemsetD32(set, 5, N) == CUDA_SUCCESS);
  CHECK(copy(set, out) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(h, out, sizeof h) == CUDA_SUCCESS);
  CHECK(h[0] == 5 && h[N - 1] == 5);
  /* 4: written by an earlier launch's stores */
  CHECK(cuMemAlloc(&byk, N * 4) == CUDA_SUCCESS);
  void *args[] = {&byk};
  CHECK(cuLaunchKernel(fill_fn, 1, 1, 1, N, 1, 1, 0, 0, args, NULL) == CUDA_SUCCESS);
  CHECK(copy(byk, out) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(h, out, sizeof h) == CUDA_SUCCESS);
  CHECK(h[7] == 7);
  /* 5: managed memory counts as written */
  CHECK(cuMemAllocManaged(&managed, N * 4, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  CHECK(copy(managed, out) == CUDA_SUCCESS);
  CHECK(cuMemFree(fresh) == CUDA_SUCCESS && cuMemFree(htod) == CUDA_SUCCESS && cuMemFree(set) == CUDA_SUCCESS);
  CHECK(cuMemFree(byk) == CUDA_SUCCESS && cuMemFree(managed) == CUDA_SUCCESS && cuMemFree(out) == CUDA_SUCCESS);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(ctx) == CUDA_SUCCESS);
  return unit_report();
}
