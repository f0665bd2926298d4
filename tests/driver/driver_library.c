/* driver_library.c: the library API of ptxvm's CUDA driver (cuLibrary*,
 * cuKernel*; src/cuda/module.c), what the CUDA 13 runtime uses, run by
 * tests/run.py as `ptxvm exec PROGRAM` (see driver_api.c) on the fatbins of
 * images.h (images.cu: addbias, scale, the global bias = 100). Checked, as
 * cuda.h documents them: a library loaded before any context is current
 * goes to the primary context; its kernels are counted, enumerated, named,
 * found by name; a CUkernel's function is the same handle, launches as a
 * CUfunction and has its attributes and parameter layout; its global has
 * its initial value; its module cannot be unloaded but by cuLibraryUnload;
 * a __managed__ variable (.attribute(.managed)) is found by
 * cuLibraryGetManaged and cuModuleGetGlobal at one address the host reads
 * and writes and a kernel updates, a plain global is not managed (not
 * found); unified functions are refused by name; a library
 * is loaded from a file and from PTX text; one whose context is destroyed
 * says so, and unloading invalidates it.
 *
 * STDERR-ONCE: ptxvm: cuLibraryGetUnifiedFunction: unified functions are not implemented
 * STDERR: ptxvm: cuKernelGetFunction: a library is loaded into one context, the one current at cuLibraryLoadData; using it in another context is not implemented
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check.h"
#include "images.h"

enum { N = 64 };

/* Launches addbias (as kernel k, a CUfunction) over N zeros: p[i] = bias + i. */
static void check_addbias(CUfunction f, int bias) {
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, N * sizeof(int)) == CUDA_SUCCESS && cuMemsetD32(p, 0, N) == CUDA_SUCCESS);
  int n = N;
  void *args[] = {&p, &n};
  CHECK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  int out[N];
  CHECK(cuMemcpyDtoH(out, p, sizeof out) == CUDA_SUCCESS);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += out[i] != bias + i;
  CHECK(bad == 0);
  CHECK(cuMemFree(p) == CUDA_SUCCESS);
}

static void test_library(CUlibrary lib) {
  unsigned count = 0;
  CHECK(cuLibraryGetKernelCount(&count, lib) == CUDA_SUCCESS && count == 2);
  CUkernel ks[2] = {NULL, NULL};
  CHECK(cuLibraryEnumerateKernels(ks, 2, lib) == CUDA_SUCCESS);
  const char *name = NULL;
  CHECK(ks[0] && cuKernelGetName(&name, ks[0]) == CUDA_SUCCESS && !strcmp(name, "addbias"));
  CHECK(ks[1] && cuKernelGetName(&name, ks[1]) == CUDA_SUCCESS && !strcmp(name, "scale"));
  CUkernel k = NULL;
  CHECK(cuLibraryGetKernel(&k, lib, "addbias") == CUDA_SUCCESS && k == ks[0]);
  CHECK(cuLibraryGetKernel(&k, lib, "nosuch") == CUDA_ERROR_NOT_FOUND);
  CHECK(cuLibraryGetKernel(&k, lib, "addbias") == CUDA_SUCCESS);
  CUlibrary owner = NULL;
  CHECK(cuKernelGetLibrary(&owner, k) == CUDA_SUCCESS && owner == lib);
  CUfunction f = NULL;
  CHECK(cuKernelGetFunction(&f, k) == CUDA_SUCCESS && f == (CUfunction)k);
  CHECK(cuFuncGetName(&name, f) == CUDA_SUCCESS && !strcmp(name, "addbias"));
  /* the global, initialised before any launch, in the current context */
  CUdeviceptr bias;
  size_t bytes = 0;
  int v = 0;
  CHECK(cuLibraryGetGlobal(&bias, &bytes, lib, "bias") == CUDA_SUCCESS && bytes == sizeof(int));
  CHECK(cuMemcpyDtoH(&v, bias, sizeof v) == CUDA_SUCCESS && v == 100);
  CHECK(cuLibraryGetGlobal(&bias, &bytes, lib, "nosuch") == CUDA_ERROR_NOT_FOUND);
  /* a CUkernel launches as a CUfunction */
  check_addbias((CUfunction)k, 100);
  v = 5;
  CHECK(cuMemcpyHtoD(bias, &v, sizeof v) == CUDA_SUCCESS);
  check_addbias(f, 5);
  /* attributes: one device, the function's */
  int attr = 0;
  CHECK(cuKernelGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0) == CUDA_SUCCESS && attr == 1024);
  CHECK(cuKernelGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 1) == CUDA_ERROR_INVALID_DEVICE);
  CHECK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 60000, k, 0) == CUDA_SUCCESS);
  CHECK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS &&
        attr == 60000);
  CHECK(cuKernelGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k, 0) == CUDA_SUCCESS &&
        attr == 60000);
  /* addbias(int *p, int n): p at 0 (8 bytes), n at 8 (4 bytes) */
  size_t off = 99, size = 99;
  CHECK(cuKernelGetParamInfo(k, 0, &off, &size) == CUDA_SUCCESS && off == 0 && size == 8);
  CHECK(cuKernelGetParamInfo(k, 1, &off, &size) == CUDA_SUCCESS && off == 8 && size == 4);
  CHECK(cuKernelGetParamInfo(k, 1, &off, NULL) == CUDA_SUCCESS && off == 8);
  CHECK(cuKernelGetParamInfo(k, 2, &off, &size) == CUDA_ERROR_INVALID_VALUE);
  /* a cache preference is accepted as the function's is (numba's cache_config) */
  CHECK(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_SHARED, 0) == CUDA_SUCCESS);
  CHECK(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_EQUAL, 0) == CUDA_SUCCESS);
  CHECK(cuKernelSetCacheConfig(k, (CUfunc_cache)7, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 1) == CUDA_ERROR_INVALID_DEVICE);
  /* the module: the current context's, owned by the library */
  CUmodule mod = NULL, fmod = NULL;
  CHECK(cuLibraryGetModule(&mod, lib) == CUDA_SUCCESS && mod);
  CHECK(cuFuncGetModule(&fmod, f) == CUDA_SUCCESS && fmod == mod);
  CHECK(cuModuleUnload(mod) == CUDA_ERROR_NOT_PERMITTED);
  /* what ptxvm does not implement, by name */
  CUdeviceptr dp;
  void *fp;
  CHECK(cuLibraryGetManaged(&dp, &bytes, lib, "bias") == CUDA_ERROR_NOT_FOUND);   /* not managed */
  CHECK(cuLibraryGetUnifiedFunction(&fp, lib, "addbias") == CUDA_ERROR_NOT_SUPPORTED);
  /* in another context: a kernel is still found, its function is refused */
  CUcontext here, other;
  CHECK(cuCtxGetCurrent(&here) == CUDA_SUCCESS);
  CHECK(cuCtxCreate(&other, NULL, 0, 0) == CUDA_SUCCESS);
  CHECK(cuLibraryGetKernel(&k, lib, "scale") == CUDA_SUCCESS);
  CHECK(cuKernelGetFunction(&f, k) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuCtxDestroy(other) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(here) == CUDA_SUCCESS);
  CHECK(cuKernelGetFunction(&f, k) == CUDA_SUCCESS);
}

int main(void) {
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CUcontext cur = (CUcontext)1;
  CHECK(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == NULL);
  /* no context current: the library goes to the primary one */
  CUlibrary lib = NULL;
  CHECK(cuLibraryLoadData(&lib, img_zstd, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS && lib);
  unsigned flags = 0;
  int active = 0;
  CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && active);
  CUcontext primary;
  CHECK(cuDevicePrimaryCtxRetain(&primary, 0) == CUDA_SUCCESS && cuCtxSetCurrent(primary) == CUDA_SUCCESS);
  test_library(lib);
  CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);
  CHECK(cuLibraryUnload(lib) == CUDA_ERROR_INVALID_VALUE);
  unsigned count = 0;
  CHECK(cuLibraryGetKernelCount(&count, lib) == CUDA_ERROR_INVALID_HANDLE);

  /* options: the code preserved is a hint; from a file it is invalid */
  CUlibraryOption keep = CU_LIBRARY_BINARY_IS_PRESERVED;
  void *yes = (void *)1;
  CHECK(cuLibraryLoadData(&lib, img_lz4, NULL, NULL, 0, &keep, &yes, 1) == CUDA_SUCCESS);
  CUkernel k;
  CHECK(cuLibraryGetKernel(&k, lib, "addbias") == CUDA_SUCCESS);
  check_addbias((CUfunction)k, 100);
  CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);
  char path[] = "/tmp/ptxvm-driver-library-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, img_lz4, sizeof img_lz4) == (ssize_t)sizeof img_lz4);
  if (fd >= 0) close(fd);
  CHECK(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, &keep, &yes, 1) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS);
  CHECK(cuLibraryGetKernel(&k, lib, "addbias") == CUDA_SUCCESS);
  check_addbias((CUfunction)k, 100);
  CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);
  unlink(path);
  CHECK(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0) == CUDA_ERROR_FILE_NOT_FOUND);
  CHECK(cuLibraryLoadData(&lib, img_sass, NULL, NULL, 0, NULL, NULL, 0) == CUDA_ERROR_NO_BINARY_FOR_GPU);

  /* PTX text, in a context of its own, which is then destroyed */
  static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                            ".visible .global .attribute(.managed) .align 4 .u32 hits[2] = {7, 9};\n"
                            ".visible .entry nop()\n{\n  .reg .b32 %r<2>;\n"
                            "  ld.global.u32 %r1, [hits+4];\n  add.u32 %r1, %r1, 1;\n"
                            "  st.global.u32 [hits+4], %r1;\n  ret;\n}\n";
  CUcontext c;
  CHECK(cuCtxCreate(&c, NULL, 0, 0) == CUDA_SUCCESS);
  CHECK(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS);
  CHECK(cuLibraryGetKernel(&k, lib, "nop") == CUDA_SUCCESS);
  /* the managed variable: its initializer, the host's write, the kernel's */
  CUdeviceptr hits = 0, g = 0;
  size_t bytes = 0;
  unsigned *hp = NULL;
  CHECK(cuLibraryGetManaged(&hits, &bytes, lib, "hits") == CUDA_SUCCESS && bytes == 8);
  CHECK(cuLibraryGetGlobal(&g, &bytes, lib, "hits") == CUDA_SUCCESS && g == hits);
  CHECK(cuLibraryGetManaged(&g, &bytes, lib, "nothing") == CUDA_ERROR_NOT_FOUND);
  unsigned managed = 0;
  CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, hits) == CUDA_SUCCESS && managed);
  hp = (unsigned *)(uintptr_t)hits;
  CHECK(hp && hp[0] == 7 && hp[1] == 9);
  if (hp) hp[1] = 40;
  CHECK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(hp && hp[1] == 41);
  CHECK(cuCtxDestroy(c) == CUDA_SUCCESS);
  CHECK(cuLibraryGetKernel(&k, lib, "nop") == CUDA_ERROR_CONTEXT_IS_DESTROYED);
  CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);

  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  return unit_report();
}
