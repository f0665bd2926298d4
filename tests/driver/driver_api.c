/* driver_api.c: a self-checking program on the CUDA driver API, run by
 * tests/run.py as `ptxvm exec OPTIONS PROGRAM` against ptxvm's libcuda.so.1
 * (built with cc against the toolkit's cuda.h, linked with -lcuda; skipped
 * where cuda.h is absent). It prints "N passed, M failed" (tests/unit/check.h),
 * naming each failed check, and exits 1 on a failure. The expected values are the
 * CUDA driver API's documented answers and plain arithmetic on the inputs.
 *
 * EXEC: -j 2 --stats
 * Lines run.py checks on standard error (each substring must occur; ONCE:
 * exactly once); the eight launches that ran are counted by --stats:
 * STDERR: ptxvm: stats: launches 8,
 * STDERR-ONCE: ptxvm: cuGraphicsUnregisterResource is not implemented
 * STDERR: ptxvm: st.global.u32: 4-byte global access at 0x10 is outside every allocation
 * STDERR: ptxvm:   at <ptx>:8:3, kernel fault, %ctaid (0,0,0), %tid (0,0,0)
 * STDERR: ptxvm: deadlock: kernel hang, %ctaid (0,0,0): no warp can progress
 * STDERR: 32 of 64 threads arrived
 * STDERR: ptxvm: trap
 * STDERR: ptxvm: <ptx>:14:3: multimem.red.relaxed.sys.global.add.u32 is not supported
 * STDERR: ptxvm: <image>: a cubin holds SASS only (no PTX): ptxvm runs PTX
 * STDERR: ptxvm: <image>: fatbin of 0 + 0 bytes does not fit
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"


static const char vadd_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n"
  "  .reg .pred %p; .reg .b32 %r<6>; .reg .b64 %rd<8>; .reg .f32 %f<4>;\n"
  "  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c]; ld.param.u32 %r1, [n];\n"
  "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
  "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
  "  setp.ge.u32 %p, %r5, %r1;\n"
  "  @%p bra DONE;\n"
  "  mul.wide.u32 %rd4, %r5, 4;\n"
  "  add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;\n"
  "  ld.global.f32 %f1, [%rd5]; ld.global.f32 %f2, [%rd6]; add.f32 %f3, %f1, %f2;\n"
  "  st.global.f32 [%rd7], %f3;\n"
  "DONE:\n  ret;\n}\n";

/* counter and scale live in the module; bump adds 1 per thread to counter
 * and thread 0 stores scale[0] * 10 + scale[1]. */
static const char globals_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .global .align 4 .u32 counter = 5;\n"
  ".visible .const .align 4 .u32 scale[2] = {3, 4};\n"
  ".visible .entry bump(.param .u64 out)\n{\n"
  "  .reg .pred %p; .reg .b32 %r<6>; .reg .b64 %rd<3>;\n"
  "  atom.global.add.u32 %r1, [counter], 1;\n"
  "  mov.u32 %r2, %tid.x;\n"
  "  setp.ne.u32 %p, %r2, 0;\n"
  "  @%p bra DONE;\n"
  "  ld.const.u32 %r3, [scale]; ld.const.u32 %r4, [scale+4];\n"
  "  mad.lo.u32 %r5, %r3, 10, %r4;\n"
  "  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd2, %rd1;\n"
  "  st.global.u32 [%rd2], %r5;\n"
  "DONE:\n  ret;\n}\n";

/* fault stores to address 0x10; hang waits at a barrier for 64 threads of a
 * 32-thread CTA; trapk traps. */
static const char bad_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry fault()\n{\n"
  "  .reg .b32 %r1; .reg .b64 %rd1;\n"
  "  mov.u64 %rd1, 16; mov.u32 %r1, 7;\n"
  "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n"
  ".visible .entry hang()\n{\n"
  "  bar.sync 0, 64;\n  ret;\n}\n"
  ".visible .entry trapk()\n{\n"
  "  trap;\n  ret;\n}\n";

/* tensorcp holds an instruction ptxvm cannot execute yet; seven does not. */
static const char partly_ptx[] =
  ".version 8.1\n.target sm_90\n.address_size 64\n"
  ".visible .entry seven(.param .u64 p)\n{\n"
  "  .reg .b32 %r1; .reg .b64 %rd1;\n"
  "  ld.param.u64 %rd1, [p]; mov.u32 %r1, 7; st.global.u32 [%rd1], %r1;\n  ret;\n}\n"
  ".visible .entry tensorcp(.param .u64 p)\n{\n"
  "  .reg .b32 %r<5>; .reg .b64 %rd<2>;\n"
  "  ld.param.u64 %rd1, [p]; mov.u32 %r1, 0; mov.u32 %r2, 0; mov.u32 %r3, 0; mov.u32 %r4, 0;\n"
  "  multimem.red.relaxed.sys.global.add.u32 [%rd1], %r2;\n"
  "  ret;\n}\n";

static void *sym(const char *name) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return h ? dlsym(h, name) : NULL;
}

static void test_device(void) {
  int v = 0, n = 0;
  CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 13000);
  CHECK(cuDeviceGetCount(&n) == CUDA_SUCCESS && n == 1);
  CUdevice d = -1;
  CHECK(cuDeviceGet(&d, 0) == CUDA_SUCCESS && d == 0);
  CHECK(cuDeviceGet(&d, 1) == CUDA_ERROR_INVALID_DEVICE);
  char name[128] = "";
  CHECK(cuDeviceGetName(name, sizeof name, 0) == CUDA_SUCCESS && strstr(name, "sm_90"));
  int major = 0, minor = -1, warp = 0, smem = 0, cluster = 0;
  CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0) == CUDA_SUCCESS);
  CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0) == CUDA_SUCCESS);
  CHECK(major == 9 && minor == 0);
  CHECK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0) == CUDA_SUCCESS && warp == 32);
  CHECK(cuDeviceGetAttribute(&smem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0) ==
            CUDA_SUCCESS && smem == 227 * 1024);
  CHECK(cuDeviceGetAttribute(&cluster, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0) == CUDA_SUCCESS && cluster == 1);
  CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0) == CUDA_ERROR_INVALID_VALUE);
  size_t total = 0;
  CHECK(cuDeviceTotalMem(&total, 0) == CUDA_SUCCESS && total >= ((size_t)1 << 21));
  CUuuid u;
  CHECK(cuDeviceGetUuid(&u, 0) == CUDA_SUCCESS);
  const char *s = NULL;
  CHECK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s) == CUDA_SUCCESS && !strcmp(s, "CUDA_ERROR_ILLEGAL_ADDRESS"));
  CHECK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s) == CUDA_SUCCESS && !strcmp(s, "invalid value"));
  CHECK(cuGetErrorName((CUresult)12345, &s) == CUDA_ERROR_INVALID_VALUE);
}

static void test_proc_address(void) {
  void *p = NULL;
  CUdriverProcAddressQueryResult st;
  CHECK(cuGetProcAddress("cuMemAlloc", &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st) == CUDA_SUCCESS);
  CHECK(st == CU_GET_PROC_ADDRESS_SUCCESS && p == (void *)cuMemAlloc_v2);
  CHECK(cuGetProcAddress("cuCtxCreate", &p, 11040, 0, &st) == CUDA_SUCCESS && p && p == sym("cuCtxCreate_v3"));
  CHECK(cuGetProcAddress("cuCtxCreate", &p, 12050, 0, &st) == CUDA_SUCCESS && p == (void *)cuCtxCreate_v4);
  /* an older ABI variant with the same arguments is implemented too: CUDA
     12's headers map cuCtxCreate to cuCtxCreate_v2 */
  CHECK(cuGetProcAddress("cuCtxCreate", &p, 3020, 0, &st) == CUDA_SUCCESS && p == sym("cuCtxCreate_v2"));
  CUcontext old_ctx = NULL, cur = NULL;
  CHECK(((CUresult(*)(CUcontext *, unsigned, CUdevice))p)(&old_ctx, 0, 0) == CUDA_SUCCESS && old_ctx);
  CHECK(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == old_ctx);
  CHECK(cuGetProcAddress("cuCtxDestroy", &p, 2000, 0, &st) == CUDA_SUCCESS && p == sym("cuCtxDestroy"));
  CHECK(((CUresult(*)(CUcontext))p)(old_ctx) == CUDA_SUCCESS);
  CHECK(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == NULL);
  CHECK(cuCtxDestroy(old_ctx) == CUDA_ERROR_INVALID_CONTEXT);   /* already destroyed */
  CHECK(cuGetProcAddress("cuMemcpyHtoD", &p, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) ==
            CUDA_SUCCESS && p && p == sym("cuMemcpyHtoD_v2_ptds"));
  CHECK(cuGetProcAddress("cuMemcpyHtoD", &p, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &st) == CUDA_SUCCESS &&
        p == (void *)cuMemcpyHtoD_v2);
  /* cuInit has no per-thread variant: the plain one */
  CHECK(cuGetProcAddress("cuInit", &p, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) ==
            CUDA_SUCCESS && p == (void *)cuInit);
  CHECK(cuGetProcAddress("cuNoSuchEntryPoint", &p, 13000, 0, &st) == CUDA_SUCCESS && !p &&
        st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  CHECK(cuGetProcAddress("cuLaunchKernelEx", &p, 11000, 0, &st) == CUDA_SUCCESS && !p &&
        st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  CHECK(cuGetProcAddress("cuInit", &p, 99000, 0, &st) == CUDA_ERROR_INVALID_VALUE);
  const void *table = &p;
  CUuuid id = {{0}};
  CHECK(cuGetExportTable(&table, &id) == CUDA_ERROR_NOT_FOUND && table == NULL);
  /* an entry point ptxvm does not implement: found, and it says so (once) */
  CHECK(cuGetProcAddress("cuGraphicsUnregisterResource", &p, 13000, 0, &st) == CUDA_SUCCESS && p);
  CHECK(((CUresult(*)(CUgraphicsResource))p)(NULL) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuGraphicsUnregisterResource(NULL) == CUDA_ERROR_NOT_SUPPORTED);
}

static void test_vadd(CUmodule mod) {
  enum { N = 1000 };
  static float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) { a[i] = (float)i; b[i] = (float)(2 * i) + 0.5f; }
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "vadd") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&f, mod, "nosuch") == CUDA_ERROR_NOT_FOUND);
  CUdeviceptr da, db, dc;
  CHECK(cuMemAlloc(&da, sizeof a) == CUDA_SUCCESS && cuMemAlloc(&db, sizeof b) == CUDA_SUCCESS &&
        cuMemAlloc(&dc, sizeof c) == CUDA_SUCCESS);
  CUdeviceptr base = 0;
  size_t size = 0;
  CHECK(cuMemGetAddressRange(&base, &size, db + 100) == CUDA_SUCCESS && base == db && size == sizeof b);
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CUevent e0, e1;
  CHECK(cuEventCreate(&e0, 0) == CUDA_SUCCESS && cuEventCreate(&e1, 0) == CUDA_SUCCESS);
  CHECK(cuEventRecord(e0, s) == CUDA_SUCCESS);
  CHECK(cuMemcpyHtoDAsync(da, a, sizeof a, s) == CUDA_SUCCESS);
  CHECK(cuMemcpyHtoD(db, b, sizeof b) == CUDA_SUCCESS);
  unsigned n = N;
  void *args[] = {&da, &db, &dc, &n};
  CHECK(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, NULL) == CUDA_SUCCESS);
  CHECK(cuEventRecord(e1, s) == CUDA_SUCCESS);
  CHECK(cuStreamSynchronize(s) == CUDA_SUCCESS && cuStreamQuery(s) == CUDA_SUCCESS);
  CHECK(cuEventSynchronize(e1) == CUDA_SUCCESS && cuEventQuery(e1) == CUDA_SUCCESS);
  float ms = -1;
  CHECK(cuEventElapsedTime(&ms, e0, e1) == CUDA_SUCCESS && ms >= 0);
  CHECK(cuMemcpyDtoHAsync(c, dc, sizeof c, s) == CUDA_SUCCESS);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += c[i] != a[i] + b[i];
  CHECK(bad == 0);
  /* the same launch with the parameters in one buffer (`extra`) */
  CHECK(cuMemsetD32(dc, 0, N) == CUDA_SUCCESS);
  struct { CUdeviceptr a, b, c; unsigned n; } buf = {db, db, dc, N};
  size_t bufsize = sizeof buf;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bufsize, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, NULL, extra) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(c, dc, sizeof c) == CUDA_SUCCESS);
  bad = 0;
  for (int i = 0; i < N; i++) bad += c[i] != b[i] + b[i];
  CHECK(bad == 0);
  /* both forms at once, or too many threads: refused, not sticky */
  CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, extra) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  /* dynamic shared memory above 48 KiB needs the function's attribute raised */
  int attr = 0;
  CHECK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS &&
        attr == 48 * 1024);
  CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 60000, NULL, args, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 228 * 1024) ==
        CUDA_ERROR_INVALID_VALUE);   /* above the 227 KiB opt-in */
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 60000) == CUDA_SUCCESS);
  CHECK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS &&
        attr == 60000);
  CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 60000, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  /* sets of each width, and a copy between buffers */
  unsigned char b8[8];
  unsigned short b16[4];
  unsigned b32[2];
  CHECK(cuMemsetD8(da, 0xab, 8) == CUDA_SUCCESS && cuMemcpyDtoH(b8, da, 8) == CUDA_SUCCESS);
  CHECK(b8[0] == 0xab && b8[7] == 0xab);
  CHECK(cuMemsetD16Async(da, 0x1234, 4, s) == CUDA_SUCCESS && cuMemcpyDtoH(b16, da, 8) == CUDA_SUCCESS);
  CHECK(b16[0] == 0x1234 && b16[3] == 0x1234);
  CHECK(cuMemsetD32(da, 0xdeadbeef, 2) == CUDA_SUCCESS && cuMemcpyDtoD(db, da, 8) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(b32, db, 8) == CUDA_SUCCESS && b32[0] == 0xdeadbeef && b32[1] == 0xdeadbeef);
  CHECK(cuMemsetD16(da + 1, 0, 1) == CUDA_ERROR_INVALID_VALUE);          /* misaligned */
  CHECK(cuMemsetD16(da, 0, 2 * N + 1) == CUDA_ERROR_INVALID_VALUE);      /* 2 bytes past the end */
  CHECK(cuMemcpyHtoD(da + sizeof a - 4, a, 8) == CUDA_ERROR_INVALID_VALUE);
  size_t free_b = 0, total_b = 0;
  CHECK(cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS && free_b < total_b);
  CHECK(cuEventDestroy(e0) == CUDA_SUCCESS && cuEventDestroy(e1) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(s) == CUDA_SUCCESS);
  CHECK(cuMemFree(da) == CUDA_SUCCESS && cuMemFree(db) == CUDA_SUCCESS && cuMemFree(dc) == CUDA_SUCCESS);
  CHECK(cuMemFree(da) == CUDA_ERROR_INVALID_VALUE);
}

static void test_globals(void) {
  CUmodule mod;
  char log[256] = "x";
  CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *val[] = {log, (void *)(size_t)sizeof log};
  CHECK(cuModuleLoadDataEx(&mod, globals_ptx, 2, opt, val) == CUDA_SUCCESS && log[0] == 0);
  CUdeviceptr counter, scale, out;
  size_t n = 0;
  CHECK(cuModuleGetGlobal(&counter, &n, mod, "counter") == CUDA_SUCCESS && n == 4);
  CHECK(cuModuleGetGlobal(&scale, &n, mod, "scale") == CUDA_SUCCESS && n == 8);
  CHECK(cuModuleGetGlobal(&out, &n, mod, "nosuch") == CUDA_ERROR_NOT_FOUND);
  CHECK(cuMemFree(counter) == CUDA_ERROR_INVALID_VALUE);   /* its module's, not cuMemAlloc's */
  unsigned v[2] = {0, 0};
  CHECK(cuMemcpyDtoH(v, counter, 4) == CUDA_SUCCESS && v[0] == 5);   /* its initializer, before any launch */
  CHECK(cuMemcpyDtoH(v, scale, 8) == CUDA_SUCCESS && v[0] == 3 && v[1] == 4);
  v[0] = 10;
  CHECK(cuMemcpyHtoD(counter, v, 4) == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&out, 4) == CUDA_SUCCESS);
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "bump") == CUDA_SUCCESS);
  int attr = 0;
  CHECK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS && attr == 1024);
  CHECK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS && attr == 0);
  void *args[] = {&out};
  CHECK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(v, counter, 4) == CUDA_SUCCESS && v[0] == 74);
  CHECK(cuMemcpyDtoH(v, out, 4) == CUDA_SUCCESS && v[0] == 34);
  CHECK(cuMemFree(out) == CUDA_SUCCESS);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  /* PTX that does not parse: the log names the line (the size option is
     in-out: the first load wrote back 1, the bytes it filled) */
  CHECK(val[1] == (void *)(size_t)1);
  val[1] = (void *)(size_t)sizeof log;
  CHECK(cuModuleLoadDataEx(&mod, ".version 8.0\n.target sm_90\nbogus;\n", 2, opt, val) == CUDA_ERROR_INVALID_PTX);
  CHECK(strstr(log, "<ptx>:3:") != NULL);
  {
    /* both logs and the wall time (one parser for loads and links): the
       error log cut to its 8 bytes, the info log emptied, the time set */
    char err[8], info[16] = "x";
    CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_WALL_TIME};
    void *w[] = {err, (void *)(size_t)sizeof err, info, (void *)(size_t)sizeof info, NULL};
    float ms = -1.0f;
    memcpy(&w[4], &ms, sizeof ms);
    CHECK(cuModuleLoadDataEx(&mod, ".version 8.0\n.target sm_90\nbogus;\n", 5, o, w) == CUDA_ERROR_INVALID_PTX);
    CHECK(strlen(err) == 7 && !strncmp(err, "<ptx>:3", 7) && w[1] == (void *)(size_t)8);
    w[1] = (void *)(size_t)sizeof err;
    CHECK(cuModuleLoadDataEx(&mod, globals_ptx, 5, o, w) == CUDA_SUCCESS);
    memcpy(&ms, &w[4], sizeof ms);
    CHECK(err[0] == 0 && info[0] == 0 && w[1] == (void *)(size_t)1 && w[3] == (void *)(size_t)1 && ms >= 0.0f);
    CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  }
  /* a kernel ptxvm cannot execute yet is refused at its launch, not
     sticky; the module's other kernels run */
  CHECK(cuModuleLoadData(&mod, partly_ptx) == CUDA_SUCCESS);
  CUfunction seven, tensorcp;
  CHECK(cuModuleGetFunction(&seven, mod, "seven") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&tensorcp, mod, "tensorcp") == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&out, 4) == CUDA_SUCCESS);
  CHECK(cuLaunchKernel(tensorcp, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuLaunchKernel(seven, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(v, out, 4) == CUDA_SUCCESS && v[0] == 7);
  CHECK(cuMemFree(out) == CUDA_SUCCESS);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  /* images without PTX to run: a cubin (an ELF header of machine EM_CUDA,
     190, without sections), a fatbin whose header is malformed */
  static const unsigned char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, [16] = 2, [18] = 190};
  static const unsigned fatbin[4] = {0xBA55ED50u, 1, 0, 0};
  CHECK(cuModuleLoadData(&mod, cubin) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  CHECK(cuModuleLoadData(&mod, fatbin) == CUDA_ERROR_INVALID_IMAGE);
}

/* A faulting kernel makes its context's error sticky; a deadlock is reported
 * and returned by the synchronizing call. Each in a context of its own. */
static void test_faults(void) {
  CUcontext prev, c;
  CHECK(cuCtxGetCurrent(&prev) == CUDA_SUCCESS);
  static const char *const kernels[] = {"fault", "hang", "trapk"};
  /* the codes a GPU gives: an illegal address; a hang (a GPU's watchdog
     reports a timeout); a trap is an unspecified launch failure */
  static const CUresult want[] = {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_TIMEOUT,
                                  CUDA_ERROR_LAUNCH_FAILED};
  for (int k = 0; k < 3; k++) {
    CHECK(cuCtxCreate(&c, NULL, 0, 0) == CUDA_SUCCESS);
    CUcontext cur;
    CHECK(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == c);
    CUmodule mod;
    CUfunction f;
    CHECK(cuModuleLoadData(&mod, bad_ptx) == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&f, mod, kernels[k]) == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS);
    CHECK(cuCtxSynchronize() == want[k]);
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, 16) == want[k]);   /* sticky */
    CHECK(cuCtxSynchronize() == want[k]);
    CHECK(cuCtxDestroy(c) == CUDA_SUCCESS);
  }
  CUcontext cur;
  CHECK(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == prev);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);   /* the other context is fine */
}

int main(void) {
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, 4) == CUDA_ERROR_NOT_INITIALIZED);
  CHECK(cuInit(0) == CUDA_SUCCESS);
  test_device();
  test_proc_address();
  CUcontext ctx;
  unsigned flags = 1;
  int active = 1;
  CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && !active);
  CHECK(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && active);
  CHECK(cuCtxSynchronize() == CUDA_ERROR_INVALID_CONTEXT);   /* retained, not current */
  CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  CUdevice d = -1;
  CHECK(cuCtxGetDevice(&d) == CUDA_SUCCESS && d == 0);
  size_t lim = 0;
  CHECK(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 1 << 22) == CUDA_SUCCESS);
  CHECK(cuCtxGetLimit(&lim, CU_LIMIT_PRINTF_FIFO_SIZE) == CUDA_SUCCESS && lim == 1 << 22);
  unsigned api = 0;
  CHECK(cuCtxGetApiVersion(ctx, &api) == CUDA_SUCCESS && api > 0);
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, vadd_ptx) == CUDA_SUCCESS);
  test_vadd(mod);
  test_globals();
  test_faults();
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuModuleUnload(mod) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && !active);
  return unit_report();
}
