/* proc_table.c: a program that finds every driver entry point the way
 * cuda-bindings (and so Numba) and the CUDA runtime do: it dlopens
 * libcuda.so.1, looks up cuGetProcAddress_v2 and asks it for each entry by
 * base name and CUDA version, never linking to libcuda. It loads PTX from a
 * file (cuModuleLoad), runs a kernel that calls device printf and divides by
 * zero, under `ptxvm exec --check`: the printf lines reach standard output in
 * thread order, the finding reaches stderr prefixed "ptxvm: ", and the launch
 * still completes (CUDA_SUCCESS, with ptxvm's documented all-ones quotient).
 * Prints "N passed, M failed" (tests/unit/check.h); exits 1 on a failure
 * (a FAIL line), and `ptxvm exec --check` exits 1 for the finding anyway.
 *
 * EXEC: --check -j 1
 * EXIT: 1
 * STDERR: ptxvm: printf output lost: 3 calls (18 bytes) beyond the 16-byte printf buffer of cluster (0,0,0)
 * STDERR: ptxvm: launch 1 (kernel divk): div.u32: integer division by zero in lane 0 (2 lanes): undefined result; ptxvm gives all ones
 */
#define _DEFAULT_SOURCE   /* mkstemp */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check.h"


static const char ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".extern .func (.param .b32 r) vprintf(.param .b64 fmt, .param .b64 args);\n"
  ".global .align 1 .b8 fmt[10] = {116, 105, 100, 32, 37, 100, 10, 0};\n"   /* "tid %d\n" */
  ".visible .entry divk(.param .u64 out)\n{\n"
  "  .reg .b32 %r<6>; .reg .b64 %rd<8>;\n"
  "  .local .align 4 .b8 buf[4];\n"
  "  mov.u32 %r1, %tid.x;\n"
  "  mov.u64 %rd1, buf; cvta.local.u64 %rd2, %rd1; st.local.u32 [buf], %r1;\n"
  "  mov.u64 %rd3, fmt; cvta.global.u64 %rd4, %rd3;\n"
  "  { .param .b64 p0; st.param.b64 [p0], %rd4; .param .b64 p1; st.param.b64 [p1], %rd2;\n"
  "    .param .b32 r; call.uni (r), vprintf, (p0, p1); }\n"
  "  and.b32 %r2, %r1, 1;\n"                  /* lanes 0 and 2 divide by zero */
  "  div.u32 %r3, 100, %r2;\n"
  "  ld.param.u64 %rd5, [out]; cvta.to.global.u64 %rd6, %rd5;\n"
  "  mul.wide.u32 %rd7, %r1, 4; add.s64 %rd6, %rd6, %rd7;\n"
  "  st.global.u32 [%rd6], %r3;\n"
  "  ret;\n}\n";

/* d_NAME: the entry point NAME as cuGetProcAddress gives it for CUDA version ver */
#define ENTRY(type, name, ver) type d_##name = (type)get(#name, ver)
static PFN_cuGetProcAddress_v12000 gpa;
static void *get(const char *name, int version) {
  void *p = NULL;
  CUdriverProcAddressQueryResult st;
  CUresult r = gpa(name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &st);
  CHECK(r == CUDA_SUCCESS && st == CU_GET_PROC_ADDRESS_SUCCESS && p);
  if (r != CUDA_SUCCESS || !p) {
    printf("proc_table: %s (%d) not found\n", name, version);
    exit(1);
  }
  return p;
}

int main(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  CHECK(lib != NULL);
  if (!lib) return 1;
  gpa = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
  CHECK(gpa != NULL);
  if (!gpa) return 1;
  ENTRY(PFN_cuInit_v2000, cuInit, 2000);
  ENTRY(PFN_cuDevicePrimaryCtxRetain_v7000, cuDevicePrimaryCtxRetain, 7000);
  ENTRY(PFN_cuDevicePrimaryCtxRelease_v11000, cuDevicePrimaryCtxRelease, 11000);
  ENTRY(PFN_cuCtxSetCurrent_v4000, cuCtxSetCurrent, 4000);
  ENTRY(PFN_cuCtxSynchronize_v2000, cuCtxSynchronize, 2000);
  ENTRY(PFN_cuModuleLoad_v2000, cuModuleLoad, 2000);
  ENTRY(PFN_cuModuleGetFunction_v2000, cuModuleGetFunction, 2000);
  ENTRY(PFN_cuMemAlloc_v3020, cuMemAlloc, 13000);
  ENTRY(PFN_cuMemcpyDtoH_v3020, cuMemcpyDtoH, 13000);
  ENTRY(PFN_cuLaunchKernel_v4000, cuLaunchKernel, 13000);
  ENTRY(PFN_cuGetErrorName_v6000, cuGetErrorName, 13000);
  ENTRY(PFN_cuCtxSetLimit_v3010, cuCtxSetLimit, 13000);
  CHECK(d_cuInit(0) == CUDA_SUCCESS);
  CUcontext ctx;
  CHECK(d_cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
  CHECK(d_cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  char path[] = "/tmp/ptxvm_proc_table_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, ptx, sizeof ptx - 1) == (ssize_t)(sizeof ptx - 1));
  close(fd);
  CUmodule mod;
  CUresult r = d_cuModuleLoad(&mod, path);
  unlink(path);
  const char *name = "";
  d_cuGetErrorName(r, &name);
  CHECK(r == CUDA_SUCCESS || !printf("cuModuleLoad: %s\n", name));
  CUfunction f;
  CHECK(d_cuModuleGetFunction(&f, mod, "divk") == CUDA_SUCCESS);
  CUdeviceptr out;
  CHECK(d_cuMemAlloc(&out, 16) == CUDA_SUCCESS);
  void *args[] = {&out};
  fflush(stdout);
  CHECK(d_cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(d_cuCtxSynchronize() == CUDA_SUCCESS);   /* a finding is not a fault */
  unsigned q[4];
  CHECK(d_cuMemcpyDtoH(q, out, sizeof q) == CUDA_SUCCESS);
  CHECK(q[0] == 0xffffffffu && q[1] == 100 && q[2] == 0xffffffffu && q[3] == 100);
  /* a 16-byte printf FIFO keeps the first call ("tid 0\n" takes 6 + 9 bytes
     in ptxvm's buffer) and drops the other three, saying so */
  CHECK(d_cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 16) == CUDA_SUCCESS);
  fflush(stdout);
  CHECK(d_cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(d_cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(d_cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  return unit_report();
}
