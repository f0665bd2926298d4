/* link.c: the JIT linker (cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy; src/cuda/link.c), as Numba and cuda.core
 * use it without nvJitLink: two PTX modules, one calling an .extern .func
 * and counting in an .extern .global that the other defines, linked,
 * loaded with cuModuleLoadData, cuModuleLoadDataEx and cuLibraryLoadData,
 * and launched; the variable is one (both kernels and cuModuleGetGlobal
 * see it). Link errors:
 * a duplicate .visible definition and an unresolved function, each named
 * with its input in the error log; a cubin input refused; a library
 * (libcudadevrt.a, where the toolkit has it) recorded, a kernel making a
 * device-side launch refused at its launch, named; the completed image linked again as a
 * CU_JIT_INPUT_OBJECT, and its fatbins as CU_JIT_INPUT_FATBINARY inputs. Expected values are plain arithmetic and the
 * documented answers. Prints "N passed, M failed".
 *
 * STDERR: ptxvm: b2.ptx:4:10: error: duplicate definition of .visible 'helper' (also defined at b.ptx:5:10)
 * STDERR: ptxvm: a.ptx:4:9: error: unresolved function 'helper'
 * STDERR: ptxvm: k.cubin: CU_JIT_INPUT_CUBIN is SASS, which ptxvm does not run
 * STDERR: ptxvm: bad.ptx:4:
 * STDERR: ptxvm: <image>#3:7:19: call to 'cudaLaunchDeviceV2', a function of the CUDA device runtime
 */
#define _POSIX_C_SOURCE 200809L   /* mkstemp */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

static const char a_ptx[] =
  HEAD
  ".extern .func (.param .b32 r) helper (.param .b32 x);\n"
  ".extern .global .align 4 .u32 counter;\n"
  ".visible .entry ka(.param .u64 p) {\n"
  " .reg .b32 %r<6>; .reg .b64 %rd<6>;\n"
  " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd2, %rd1; mov.u32 %r1, %tid.x;\n"
  " { .param .b32 x; st.param.b32 [x], %r1; .param .b32 r;\n"
  "   call.uni (r), helper, (x); ld.param.b32 %r2, [r]; }\n"
  " mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3; st.global.u32 [%rd4], %r2;\n"
  " mov.u64 %rd5, counter; atom.global.add.u32 %r3, [%rd5], 1;\n"
  " ret; }\n";

static const char b_ptx[] =
  HEAD
  ".visible .global .align 4 .u32 counter = 5;\n"
  ".visible .func (.param .b32 r) helper (.param .b32 x) {\n"
  " .reg .b32 %r<3>; ld.param.b32 %r1, [x]; mad.lo.s32 %r2, %r1, 3, 1; st.param.b32 [r], %r2; ret; }\n"
  ".visible .entry kb(.param .u64 p) {\n"
  " .reg .b32 %r<3>; .reg .b64 %rd<2>; ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
  " ld.global.u32 %r1, [counter]; st.global.u32 [%rd1], %r1; ret; }\n";

/* a second definition of helper */
static const char b2_ptx[] =
  HEAD ".visible .func (.param .b32 r) helper (.param .b32 x) { ret; }\n";

static char err_log[4096], info_log[4096];
static void *opt_vals[5];
static CUjit_option opts[5] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                               CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_WALL_TIME};

static CUlinkState create(void) {
  opt_vals[0] = err_log;
  opt_vals[1] = (void *)(uintptr_t)sizeof err_log;
  opt_vals[2] = info_log;
  opt_vals[3] = (void *)(uintptr_t)sizeof info_log;
  opt_vals[4] = NULL;
  err_log[0] = info_log[0] = 'x';
  CUlinkState s = NULL;
  CHECK(cuLinkCreate(5, opts, opt_vals, &s) == CUDA_SUCCESS && s);
  CHECK(err_log[0] == 0 && info_log[0] == 0);   /* logs start empty */
  return s;
}

static CUresult add_ptx(CUlinkState s, const char *text, const char *name) {
  /* the size with the NUL, as cuda-python and Numba pass it */
  return cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)text, strlen(text) + 1, name, 0, NULL, NULL);
}

/* Runs ka then kb of mod over 4 threads: ka stores helper(i) = 3i + 1 and
 * adds 1 to counter per thread, kb stores counter. */
static void run_module(CUmodule mod) {
  CUfunction ka, kb;
  CHECK(cuModuleGetFunction(&ka, mod, "ka") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&kb, mod, "kb") == CUDA_SUCCESS);
  CUdeviceptr buf, counter;
  size_t bytes = 0;
  CHECK(cuMemAlloc(&buf, 16) == CUDA_SUCCESS);
  void *args[] = {&buf};
  CHECK(cuLaunchKernel(ka, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  unsigned got[4] = {0};
  CHECK(cuMemcpyDtoH(got, buf, 16) == CUDA_SUCCESS);
  for (unsigned i = 0; i < 4; i++) CHECK(got[i] == 3 * i + 1);
  CHECK(cuModuleGetGlobal(&counter, &bytes, mod, "counter") == CUDA_SUCCESS && bytes == 4);
  unsigned c = 0;
  CHECK(cuMemcpyDtoH(&c, counter, 4) == CUDA_SUCCESS && c == 5 + 4);
  CHECK(cuLaunchKernel(kb, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(got, buf, 4) == CUDA_SUCCESS && got[0] == 9);   /* the same variable */
  CHECK(cuMemFree(buf) == CUDA_SUCCESS);
}

/* The fatbins of a link image, read as ptxvm.h documents it (an ELF64
 * file whose __nv_relfatbin section holds one fatbin per input): the
 * first two, each added as CU_JIT_INPUT_FATBINARY, link again. */
static void test_fatbins(const unsigned char *img) {
  uint64_t shoff, off = 0, size = 0;
  uint16_t shnum, strndx;
  memcpy(&shoff, img + 0x28, 8);
  memcpy(&shnum, img + 0x3c, 2);
  memcpy(&strndx, img + 0x3e, 2);
  uint64_t stroff;
  memcpy(&stroff, img + shoff + strndx * 64 + 0x18, 8);
  for (unsigned i = 0; i < shnum; i++) {
    uint32_t name;
    memcpy(&name, img + shoff + i * 64, 4);
    if (strcmp((const char *)img + stroff + name, "__nv_relfatbin")) continue;
    memcpy(&off, img + shoff + i * 64 + 0x18, 8);
    memcpy(&size, img + shoff + i * 64 + 0x20, 8);
  }
  CHECK(off && size);
  if (!off) return;
  uint32_t magic;
  uint64_t first;
  memcpy(&magic, img + off, 4);
  memcpy(&first, img + off + 8, 8);
  CHECK(magic == 0xBA55ED50u && 16 + first < size);
  CUlinkState s = create();
  CHECK(cuLinkAddData(s, CU_JIT_INPUT_FATBINARY, (void *)(img + off), 16 + first, "a.fatbin", 0, NULL, NULL) ==
        CUDA_SUCCESS);
  CHECK(cuLinkAddData(s, CU_JIT_INPUT_FATBINARY, (void *)(img + off + 16 + first), 0, "b.fatbin", 0, NULL, NULL) ==
        CUDA_SUCCESS);
  void *image;
  CUmodule mod;
  CHECK(cuLinkComplete(s, &image, NULL) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&mod, image) == CUDA_SUCCESS);
  run_module(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuLinkDestroy(s) == CUDA_SUCCESS);
}

/* The two modules linked, the image loaded both ways; the image linked
 * again as an object. */
static void test_link(void) {
  CUlinkState s = create();
  CHECK(add_ptx(s, a_ptx, "a.ptx") == CUDA_SUCCESS);
  CHECK(add_ptx(s, b_ptx, "b.ptx") == CUDA_SUCCESS);
  void *image = NULL;
  size_t size = 0;
  CHECK(cuLinkComplete(s, &image, &size) == CUDA_SUCCESS && image && size > 64);
  CHECK(strstr(info_log, "linked 2 PTX inputs") != NULL);
  float ms;
  memcpy(&ms, &opt_vals[4], sizeof ms);
  CHECK(ms >= 0.0f);
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, image) == CUDA_SUCCESS);
  run_module(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  char log[256] = "x";
  CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *v[2] = {log, (void *)(uintptr_t)sizeof log};
  CHECK(cuModuleLoadDataEx(&mod, image, 2, o, v) == CUDA_SUCCESS && log[0] == 0);
  run_module(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  /* cuda.core's way: the image as a library */
  CUlibrary lib;
  CHECK(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS);
  CHECK(cuLibraryGetModule(&mod, lib) == CUDA_SUCCESS);
  run_module(mod);
  CHECK(cuLibraryUnload(lib) == CUDA_SUCCESS);
  /* the image is an object holding both modules: a link of it alone works */
  CUlinkState s2 = create();
  CHECK(cuLinkAddData(s2, CU_JIT_INPUT_OBJECT, image, size, "linked.o", 0, NULL, NULL) == CUDA_SUCCESS);
  void *image2 = NULL;
  CHECK(cuLinkComplete(s2, &image2, NULL) == CUDA_SUCCESS && image2);
  CHECK(cuModuleLoadData(&mod, image2) == CUDA_SUCCESS);
  run_module(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuLinkDestroy(s2) == CUDA_SUCCESS);
  test_fatbins(image);
  CHECK(cuLinkDestroy(s) == CUDA_SUCCESS);
  CHECK(add_ptx(s, a_ptx, "a.ptx") == CUDA_ERROR_INVALID_HANDLE);   /* destroyed */
  CHECK(cuLinkDestroy(s) == CUDA_ERROR_INVALID_HANDLE);
}

/* A PTX file added by path. */
static void test_file(void) {
  char path[] = "/tmp/ptxvm-link-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK(write(fd, b_ptx, strlen(b_ptx)) == (ssize_t)strlen(b_ptx));
  close(fd);
  CUlinkState s = create();
  CHECK(add_ptx(s, a_ptx, "a.ptx") == CUDA_SUCCESS);
  CHECK(cuLinkAddFile(s, CU_JIT_INPUT_PTX, path, 0, NULL, NULL) == CUDA_SUCCESS);
  CHECK(cuLinkAddFile(s, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, NULL, NULL) == CUDA_ERROR_FILE_NOT_FOUND);
  void *image;
  CUmodule mod;
  CHECK(cuLinkComplete(s, &image, NULL) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&mod, image) == CUDA_SUCCESS);
  run_module(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuLinkDestroy(s) == CUDA_SUCCESS);
  unlink(path);
}

static void test_errors(void) {
  void *image;
  /* a second .visible definition: both inputs named */
  CUlinkState s = create();
  CHECK(add_ptx(s, a_ptx, "a.ptx") == CUDA_SUCCESS);
  CHECK(add_ptx(s, b_ptx, "b.ptx") == CUDA_SUCCESS);
  CHECK(add_ptx(s, b2_ptx, "b2.ptx") == CUDA_SUCCESS);
  CHECK(cuLinkComplete(s, &image, NULL) == CUDA_ERROR_INVALID_PTX);
  CHECK(strstr(err_log, "b2.ptx:4:10: error: duplicate definition of .visible 'helper' (also defined at b.ptx:5:10)"));
  CHECK(cuLinkDestroy(s) == CUDA_SUCCESS);
  /* used and defined nowhere: named at its declaration */
  s = create();
  CHECK(add_ptx(s, a_ptx, "a.ptx") == CUDA_SUCCESS);
  CHECK(cuLinkComplete(s, &image, NULL) == CUDA_ERROR_INVALID_PTX);
  CHECK(strstr(err_log, "a.ptx:4:9: error: unresolved function 'helper'") != NULL);
  /* PTX that does not parse fails its own cuLinkAddData */
  CHECK(add_ptx(s, HEAD ".visible .entry k() { bogus; }\n", "bad.ptx") == CUDA_ERROR_INVALID_PTX);
  CHECK(strstr(err_log, "bad.ptx:4:") != NULL);
  /* SASS and LTO-IR are refused by name; a library must be an archive */
  static const unsigned char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, [16] = 2, [18] = 190};
  CHECK(cuLinkAddData(s, CU_JIT_INPUT_CUBIN, (void *)cubin, sizeof cubin, "k.cubin", 0, NULL, NULL) ==
        CUDA_ERROR_NO_BINARY_FOR_GPU);
  CHECK(strstr(err_log, "k.cubin: CU_JIT_INPUT_CUBIN is SASS") != NULL);
  CHECK(cuLinkAddData(s, CU_JIT_INPUT_NVVM, (void *)cubin, sizeof cubin, "k.ltoir", 0, NULL, NULL) ==
        CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuLinkAddData(s, CU_JIT_INPUT_LIBRARY, (void *)cubin, sizeof cubin, "k.a", 0, NULL, NULL) ==
        CUDA_ERROR_INVALID_IMAGE);
  CHECK(cuLinkComplete(NULL, &image, NULL) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuLinkDestroy(s) == CUDA_SUCCESS);
  s = create();
  CHECK(cuLinkComplete(s, &image, NULL) == CUDA_ERROR_INVALID_VALUE);   /* no input */
  CHECK(cuLinkDestroy(s) == CUDA_SUCCESS);
}

/* libcudadevrt.a: accepted (its device code is SASS, nothing to link);
 * a kernel making a device-side launch is refused at its launch, named. */
static void test_devrt(void) {
  const char *lib = "/usr/local/cuda/lib64/libcudadevrt.a";
  if (access(lib, R_OK) != 0) {
    printf("note: %s not found; its checks are skipped\n", lib);
    return;
  }
  static const char dp_ptx[] =
    HEAD ".extern .func (.param .b32 r) cudaLaunchDeviceV2 (.param .b64 a, .param .b64 s);\n"
    ".visible .entry parent() { .reg .b64 %rd<2>; .reg .b32 %r<2>; mov.u64 %rd1, 0;\n"
    " { .param .b64 a; st.param.b64 [a], %rd1; .param .b64 s; st.param.b64 [s], %rd1;\n"
    "   .param .b32 r; call.uni (r), cudaLaunchDeviceV2, (a, s); ld.param.b32 %r1, [r]; }\n"
    " ret; }\n";
  CUlinkState s = create();
  CHECK(cuLinkAddFile(s, CU_JIT_INPUT_LIBRARY, lib, 0, NULL, NULL) == CUDA_SUCCESS);
  CHECK(add_ptx(s, a_ptx, "a.ptx") == CUDA_SUCCESS);
  CHECK(add_ptx(s, b_ptx, "b.ptx") == CUDA_SUCCESS);
  void *image;
  CHECK(cuLinkComplete(s, &image, NULL) == CUDA_SUCCESS);
  CHECK(strstr(info_log, "libcudadevrt.a: no PTX for sm_90") != NULL);
  /* a device-side launch links; its kernel is refused at the launch, named,
     and the others run */
  CHECK(add_ptx(s, dp_ptx, "dp.ptx") == CUDA_SUCCESS);
  CHECK(cuLinkComplete(s, &image, NULL) == CUDA_SUCCESS);
  CHECK(strstr(info_log, "dp.ptx:7:19: call to 'cudaLaunchDeviceV2', a function of the CUDA device runtime") &&
        strstr(info_log, "device-side kernel launches"));
  CUmodule mod;
  CUfunction parent;
  CHECK(cuModuleLoadData(&mod, image) == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&parent, mod, "parent") == CUDA_SUCCESS);
  CHECK(cuLaunchKernel(parent, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL) == CUDA_ERROR_NOT_SUPPORTED);
  run_module(mod);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuLinkDestroy(s) == CUDA_SUCCESS);
}

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      cuCtxCreate(&ctx, NULL, 0, dev) != CUDA_SUCCESS) {
    printf("no device\n0 passed, 1 failed\n");
    return 1;
  }
  test_link();
  test_file();
  test_errors();
  test_devrt();
  CHECK(cuCtxDestroy(ctx) == CUDA_SUCCESS);
  return unit_report();
}
