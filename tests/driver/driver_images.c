/* driver_images.c: modules from what nvcc builds, on ptxvm's CUDA driver
 * (src/cuda/module.c), run by tests/run.py as `ptxvm exec PROGRAM` (see
 * driver_api.c). The images are nvcc's fatbins of images.cu (images.h,
 * written by gen_images.py): PTX compressed with zstd and with LZ4, and
 * SASS only. Checked: each loads through cuModuleLoadData, ...Ex,
 * ...FatBinary, a __fatBinC_Wrapper_t and cuModuleLoad of a file, and its
 * kernels compute what images.cu says (plain arithmetic on the inputs); a
 * global has its initial value before any launch; SASS alone, as a fatbin
 * or a cubin, is CUDA_ERROR_NO_BINARY_FOR_GPU naming the kernel and the
 * fix; malformed images are CUDA_ERROR_INVALID_IMAGE; a module that cannot
 * run as a whole fails its load, while one kernel that cannot is refused
 * at its own launch; kernels are enumerated and named
 * (cuModuleGetFunctionCount, cuModuleEnumerateFunctions, cuFuncGetName,
 * cuFuncGetModule); the loading mode is lazy: a kernel is loaded at its
 * first launch or cuFuncLoad (cuFuncIsLoaded).
 *
 * STDERR: ptxvm: <image>: the image holds SASS only (no PTX) for kernels sass_only: ptxvm runs PTX; rebuild with -arch=sm_90 (or -gencode arch=compute_90,code=[sm_90,compute_90])
 * STDERR: ptxvm: <image>: a cubin holds SASS only (no PTX) for kernels sass_only: ptxvm runs PTX
 * STDERR: ptxvm: <image>: fatbin entry's zstd data is corrupt
 * STDERR: does not fit in the 300 bytes of the image
 * STDERR: ptxvm: <ptx>: the frame of 'f' (3000000000 bytes of local memory per thread) is too large
 * STDERR: ptxvm: <ptx>:14:3: multimem.red.relaxed.sys.global.add.u32 is not supported (in 'tensorcp', which kernel 'viaf' can call)
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <fatbinary_section.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "../unit/check.h"
#include "images.h"

enum { N = 100 };

/* addbias over N ints that start at 0: p[i] = bias + i. */
static void check_addbias(CUmodule mod, int bias) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "addbias") == CUDA_SUCCESS);
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, N * sizeof(int)) == CUDA_SUCCESS);
  CHECK(cuMemsetD32(p, 0, N) == CUDA_SUCCESS);
  int n = N;
  void *args[] = {&p, &n};
  CHECK(cuLaunchKernel(f, (N + 31) / 32, 1, 1, 32, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  int out[N];
  CHECK(cuMemcpyDtoH(out, p, sizeof out) == CUDA_SUCCESS);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += out[i] != bias + i;
  CHECK(bad == 0);
  CHECK(cuMemFree(p) == CUDA_SUCCESS);
}

/* scale over 32 floats i: i * 2.5 (exact in binary). */
static void check_scale(CUmodule mod) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "scale") == CUDA_SUCCESS);
  float in[32], out[32], s = 2.5f;
  for (int i = 0; i < 32; i++) in[i] = (float)i;
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, sizeof in) == CUDA_SUCCESS && cuMemcpyHtoD(p, in, sizeof in) == CUDA_SUCCESS);
  void *args[] = {&p, &s};
  CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(out, p, sizeof out) == CUDA_SUCCESS);
  int bad = 0;
  for (int i = 0; i < 32; i++) bad += out[i] != (float)i * 2.5f;
  CHECK(bad == 0);
  CHECK(cuMemFree(p) == CUDA_SUCCESS);
}

static void test_fatbins(void) {
  CUmodule mod;
  /* zstd: the global is placed, with its initializer, at the load */
  CHECK(cuModuleLoadData(&mod, img_zstd) == CUDA_SUCCESS);
  CUdeviceptr bias;
  size_t bytes = 0;
  int v = 0;
  CHECK(cuModuleGetGlobal(&bias, &bytes, mod, "bias") == CUDA_SUCCESS && bytes == sizeof(int));
  CHECK(cuMemcpyDtoH(&v, bias, sizeof v) == CUDA_SUCCESS && v == 100);
  check_addbias(mod, 100);
  v = -7;
  CHECK(cuMemcpyHtoD(bias, &v, sizeof v) == CUDA_SUCCESS);
  check_addbias(mod, -7);
  check_scale(mod);
  /* the kernels, in declaration order; a module's own functions */
  unsigned count = 0;
  CHECK(cuModuleGetFunctionCount(&count, mod) == CUDA_SUCCESS && count == 2);
  CUfunction fns[3] = {NULL, NULL, NULL};
  CHECK(cuModuleEnumerateFunctions(fns, 3, mod) == CUDA_SUCCESS && fns[2] == NULL);
  const char *name = NULL;
  CHECK(fns[0] && cuFuncGetName(&name, fns[0]) == CUDA_SUCCESS && !strcmp(name, "addbias"));
  CHECK(fns[1] && cuFuncGetName(&name, fns[1]) == CUDA_SUCCESS && !strcmp(name, "scale"));
  CUmodule owner = NULL;
  CHECK(cuFuncGetModule(&owner, fns[1]) == CUDA_SUCCESS && owner == mod);
  CUfunction one[1] = {NULL};
  CHECK(cuModuleEnumerateFunctions(one, 1, mod) == CUDA_SUCCESS && one[0] == fns[0]);
  CHECK(cuModuleEnumerateFunctions(NULL, 1, mod) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncGetName(NULL, fns[0]) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuFuncGetName(&name, fns[0]) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuModuleGetFunctionCount(&count, mod) == CUDA_ERROR_INVALID_HANDLE);
  /* LZ4, through cuModuleLoadFatBinary */
  CHECK(cuModuleLoadFatBinary(&mod, img_lz4) == CUDA_SUCCESS);
  check_addbias(mod, 100);
  check_scale(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  /* the runtime's wrapper (fatbinary_section.h), which points at a fatbin */
  __fatBinC_Wrapper_t w = {FATBINC_MAGIC, FATBINC_VERSION, (const unsigned long long *)img_lz4, NULL};
  CHECK(cuModuleLoadData(&mod, &w) == CUDA_SUCCESS);
  check_scale(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  /* a file, whose length is the file's */
  char path[] = "/tmp/ptxvm-driver-images-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK(write(fd, img_zstd, sizeof img_zstd) == (ssize_t)sizeof img_zstd);
  close(fd);
  CHECK(cuModuleLoad(&mod, path) == CUDA_SUCCESS);
  check_addbias(mod, 100);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  fd = open(path, O_WRONLY | O_TRUNC);
  CHECK(fd >= 0 && write(fd, img_zstd, 300) == 300);   /* cut short: its header says more */
  if (fd >= 0) close(fd);
  CHECK(cuModuleLoad(&mod, path) == CUDA_ERROR_INVALID_IMAGE);
  unlink(path);
  CHECK(cuModuleLoad(&mod, path) == CUDA_ERROR_FILE_NOT_FOUND);
}

static void test_refused(void) {
  CUmodule mod;
  /* SASS only, as a fatbin and as the cubin it holds (the payload of its
     one entry: the entry header's size is at +4, its payload's at +8) */
  char log[512] = "";
  CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *val[] = {log, (void *)(size_t)sizeof log};
  CHECK(cuModuleLoadDataEx(&mod, img_sass, 2, opt, val) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  CHECK(strstr(log, "SASS only (no PTX) for kernels sass_only") && strstr(log, "-arch=sm_90"));
  const unsigned char *entry = img_sass + 16;
  unsigned hsize = entry[4] | entry[5] << 8;
  const unsigned char *cubin = entry + hsize;
  CHECK(hsize >= 64 && !memcmp(cubin, "\x7f" "ELF", 4));
  CHECK(cuModuleLoadData(&mod, cubin) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  /* a zstd frame damaged: its compressed bytes (after the 16-byte fatbin
     header and the entry's) zeroed in the middle */
  static unsigned char bad[sizeof img_zstd];
  memcpy(bad, img_zstd, sizeof bad);
  unsigned ph = bad[16 + 4] | bad[16 + 5] << 8;
  memset(bad + 16 + ph + 8, 0, 32);
  CHECK(cuModuleLoadData(&mod, bad) == CUDA_ERROR_INVALID_IMAGE);
  /* a module that cannot run as a whole fails its load */
  static const char big[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                            ".func f(.param .align 4 .b8 a[3000000000])\n{\n  ret;\n}\n"
                            ".visible .entry k()\n{\n  ret;\n}\n";
  CHECK(cuModuleLoadData(&mod, big) == CUDA_ERROR_NOT_SUPPORTED);
}

/* Lazy loading: a kernel is lowered at its first launch, so one that
 * cannot run (it calls a .func holding a tensor copy) does not stop the
 * load, nor the launches of the others, before or after its own. */
static const char partly_ptx[] =
  ".version 8.1\n.target sm_90\n.address_size 64\n"
  ".visible .entry seven(.param .u64 p)\n{\n"
  "  .reg .b32 %r1; .reg .b64 %rd1;\n"
  "  ld.param.u64 %rd1, [p]; mov.u32 %r1, 7; st.global.u32 [%rd1], %r1;\n  ret;\n}\n"
  ".func tensorcp(.param .b64 p)\n{\n"
  "  .reg .b32 %r<5>; .reg .b64 %rd<2>;\n"
  "  ld.param.b64 %rd1, [p]; mov.u32 %r1, 0; mov.u32 %r2, 0; mov.u32 %r3, 0; mov.u32 %r4, 0;\n"
  "  multimem.red.relaxed.sys.global.add.u32 [%rd1], %r2;\n"
  "  ret;\n}\n"
  ".visible .entry viaf(.param .u64 p)\n{\n"
  "  .reg .b64 %rd1;\n  ld.param.u64 %rd1, [p];\n"
  "  { .param .b64 a; st.param.b64 [a], %rd1; call tensorcp, (a); }\n  ret;\n}\n";

static void test_lazy(void) {
  CUmoduleLoadingMode mode;
  const char *env = getenv("CUDA_MODULE_LOADING");
  CHECK(cuModuleGetLoadingMode(&mode) == CUDA_SUCCESS &&
        mode == (env && !strcmp(env, "EAGER") ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING));
  CHECK(cuModuleGetLoadingMode(NULL) == CUDA_ERROR_INVALID_VALUE);
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, partly_ptx) == CUDA_SUCCESS);
  CUfunction seven, viaf;
  CHECK(cuModuleGetFunction(&seven, mod, "seven") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&viaf, mod, "viaf") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&viaf, mod, "tensorcp") == CUDA_ERROR_NOT_FOUND);   /* a .func */
  CHECK(cuModuleGetFunction(&viaf, mod, "viaf") == CUDA_SUCCESS);
  unsigned count = 0;
  CHECK(cuModuleGetFunctionCount(&count, mod) == CUDA_SUCCESS && count == 2);
  /* loaded (lowered) at the first launch, or by cuFuncLoad */
  bool lazy = mode == CU_MODULE_LAZY_LOADING;
  CUfunctionLoadingState state;
  CHECK(cuFuncIsLoaded(&state, seven) == CUDA_SUCCESS &&
        state == (lazy ? CU_FUNCTION_LOADING_STATE_UNLOADED : CU_FUNCTION_LOADING_STATE_LOADED));
  CHECK(cuFuncIsLoaded(NULL, seven) == CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr out;
  unsigned v = 0;
  CHECK(cuMemAlloc(&out, 4) == CUDA_SUCCESS);
  void *args[] = {&out};
  CHECK(cuLaunchKernel(seven, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(&v, out, 4) == CUDA_SUCCESS && v == 7);
  CHECK(cuFuncIsLoaded(&state, seven) == CUDA_SUCCESS && state == CU_FUNCTION_LOADING_STATE_LOADED);
  CHECK(cuFuncIsLoaded(&state, viaf) == CUDA_SUCCESS &&
        state == (lazy ? CU_FUNCTION_LOADING_STATE_UNLOADED : CU_FUNCTION_LOADING_STATE_LOADED));
  CHECK(cuFuncLoad(viaf) == CUDA_SUCCESS);   /* loaded, and refused at its launches */
  CHECK(cuFuncIsLoaded(&state, viaf) == CUDA_SUCCESS && state == CU_FUNCTION_LOADING_STATE_LOADED);
  CHECK(cuLaunchKernel(viaf, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuMemsetD32(out, 0, 1) == CUDA_SUCCESS);   /* not sticky */
  CHECK(cuLaunchKernel(seven, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(&v, out, 4) == CUDA_SUCCESS && v == 7);
  CHECK(cuMemFree(out) == CUDA_SUCCESS);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
}

int main(void) {
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  test_fatbins();
  test_refused();
  test_lazy();
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  return unit_report();
}
