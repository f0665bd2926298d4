/* gpurun.c: `ptxvm run` on a real GPU, for ground truth.
 *
 *   gpurun [RUN OPTIONS] FILE.ptx [KERNEL]
 *
 * Takes the options and argument specs of `ptxvm run` (runargs.c: the same
 * parser, the same buffers, the same dump format) and launches the kernel
 * through the CUDA driver API instead of ptxvm, so that the two outputs can
 * be compared byte for byte (tests/gpu/README.md). ptxvm's library reads the
 * module only for the kernel's parameters and directives; the driver JIT
 * compiles the PTX itself. Options that exist only in ptxvm (-j, --check,
 * --schedule, --schedules, --max-steps, --async-delay, --stats) are accepted and ignored.
 * A kernel that never ends is not this program's business: run it under
 * timeout(1). Exit status as ptxvm's: 0 ran, 1 the launch failed on the
 * device (trap, bad address, ...), 2 the input was unusable. */
#include <cuda.h>
#include <stdlib.h>
#include <string.h>

#include "runargs.h"

static int cuda_bad(CUresult r, const char *what) {
  const char *name = "?", *text = "?";
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  fprintf(stderr, "gpurun: %s: %s: %s\n", what, name, text);
  return EXIT_FAULT;
}

/* The file's bytes, NUL-terminated (cuModuleLoadDataEx takes a C string). */
static char *slurp(const char *path) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return NULL;
  size_t n;
  char *buf = (char *)run_read_stream(f, (size_t)1 << 30, &n);
  if (f != stdin) fclose(f);
  if (buf) buf[n] = 0;
  return buf;
}

static int cu_htod(void *u, uint64_t addr, const void *src, size_t bytes) {
  (void)u;
  return cuMemcpyHtoD(addr, src, bytes) != CUDA_SUCCESS;
}
static int cu_dtoh(void *u, void *dst, uint64_t addr, size_t bytes) {
  (void)u;
  return cuMemcpyDtoH(dst, addr, bytes) != CUDA_SUCCESS;
}

static const char *cu_alloc(void *u, size_t bytes, uint64_t *addr) {
  (void)u;
  CUdeviceptr p;
  CUresult r = cuMemAlloc(&p, bytes ? bytes : 1);   /* cuMemAlloc refuses 0 bytes; ptxvm's allocation keeps its size */
  const char *name = "cuMemAlloc failed";
  if (r) {
    cuGetErrorName(r, &name);
    return name;
  }
  *addr = p;
  return NULL;
}
static void cu_free(void *u, uint64_t addr) {
  (void)u;
  cuMemFree(addr);
}

/* A tensormap:... argument: the GPU's own encoding of the same fields. */
static const char *cu_tensor_map(void *u, void *out, const TmapSpec *s, uint64_t addr) {
  (void)u;
  if (s->im2col) {
    CUresult r = cuTensorMapEncodeIm2col(out, (CUtensorMapDataType)s->dtype, s->rank, (void *)(uintptr_t)addr,
                                         s->dim, s->stride, s->lower, s->upper, s->cpp, s->ppc, s->estride,
                                         (CUtensorMapInterleave)s->interleave, (CUtensorMapSwizzle)s->swizzle,
                                         CU_TENSOR_MAP_L2_PROMOTION_NONE, (CUtensorMapFloatOOBfill)s->oobfill);
    return r == CUDA_SUCCESS ? NULL : "cuTensorMapEncodeIm2col refused the map";
  }
  CUresult r = cuTensorMapEncodeTiled(out, (CUtensorMapDataType)s->dtype, s->rank, (void *)(uintptr_t)addr,
                                      s->dim, s->stride, s->box, s->estride, (CUtensorMapInterleave)s->interleave,
                                      (CUtensorMapSwizzle)s->swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                      (CUtensorMapFloatOOBfill)s->oobfill);
  return r == CUDA_SUCCESS ? NULL : "cuTensorMapEncodeTiled refused the map";
}

/* The driver's verdict on the PTX first: the JIT compiler's log when it
 * rejects it (exit 2), whatever ptxvm thinks of it. */
static int driver_load(const char *ptx, CUmodule *mod) {
  CUdevice dev;
  CUcontext cctx;
  CUresult r;
  if ((r = cuInit(0)) || (r = cuDeviceGet(&dev, 0)) || (r = cuDevicePrimaryCtxRetain(&cctx, dev)) ||
      (r = cuCtxSetCurrent(cctx)))
    return cuda_bad(r, "no device");
  static char log[1 << 14];
  CUjit_option jo[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *jv[] = {log, (void *)(uintptr_t)sizeof log};
  if ((r = cuModuleLoadDataEx(mod, ptx, 2, jo, jv))) {
    fprintf(stderr, "gpurun: the driver rejects the PTX:\n%s\n", log);
    cuda_bad(r, "cuModuleLoadDataEx");
    return EXIT_INPUT;
  }
  return EXIT_OK;
}

/* Copies the buffers, launches, synchronizes, dumps. */
static int launch_on_gpu(const RunOpts *o, Arg *args, ptxvm_function *fn, CUmodule mod) {
  ptxvm_function_info fi;
  ptxvm_function_get_info(fn, &fi);
  unsigned block[3], cluster[3];
  run_launch_shape(fn, o, block, cluster);
  CUresult r;
  CUfunction f;
  if ((r = cuModuleGetFunction(&f, mod, fi.name))) return cuda_bad(r, "cuModuleGetFunction");
  /* --printf-buffer: the FIFO (before the first launch; --device-memory
     has no GPU counterpart) */
  if (o->printf_buffer && (r = cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, (size_t)o->printf_buffer)))
    return cuda_bad(r, "printf buffer size");
  void **values = calloc((size_t)o->nspecs + 1, sizeof *values);
  if (!values) return run_bad("out of memory");
  RunDevice dev = {cu_htod, cu_dtoh, cu_alloc, cu_free, false, NULL, cu_tensor_map, NULL};   /* cudaMalloc: undef as is */
  int rc = run_bind(o, args, &dev, values);
  if (rc != EXIT_OK) {
    free(values);
    return rc;
  }
  if (o->shared > 48 * 1024 &&
      (r = cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)o->shared))) {
    free(values);
    return cuda_bad(r, "dynamic shared memory size");
  }
  /* a cluster shape from -c (a .reqnctapercluster one is compiled in) */
  CUlaunchAttribute attrs[2] = {{.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION}};
  attrs[0].value.clusterDim.x = cluster[0];
  attrs[0].value.clusterDim.y = cluster[1];
  attrs[0].value.clusterDim.z = cluster[2];
  bool cluster_attr = o->has_cluster && !fi.reqnctapercluster[0];
  if (cluster_attr && cluster[0] * cluster[1] * cluster[2] > 8)
    cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  unsigned nattrs = cluster_attr ? 1 : 0;
  if (o->cooperative) {   /* --cooperative: cuLaunchCooperativeKernel's semantics */
    attrs[nattrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[nattrs++].value.cooperative = 1;
  }
  CUlaunchConfig cfg = {
    .gridDimX = o->grid[0], .gridDimY = o->grid[1], .gridDimZ = o->grid[2],
    .blockDimX = block[0], .blockDimY = block[1], .blockDimZ = block[2],
    .sharedMemBytes = o->shared, .attrs = attrs, .numAttrs = nattrs,
  };
  r = cuLaunchKernelEx(&cfg, f, values, NULL);
  free(values);
  if (r) return cuda_bad(r, "launch");
  if ((r = cuCtxSynchronize())) return cuda_bad(r, "kernel");
  fflush(stdout);   /* the device's printf output comes first, as in ptxvm */
  for (int i = 0; rc == EXIT_OK && i < o->ndumps; i++) rc = run_dump(&args[o->dumps[i].arg], &o->dumps[i], &dev);
  return rc;
}

static void usage(FILE *f) {
  fputs("usage: gpurun [ptxvm run OPTIONS] FILE.ptx [KERNEL]\n"
        "runs the kernel on GPU 0 through the CUDA driver API; see `ptxvm run --help`\n", f);
}

int main(int argc, char **argv) {
  run_prog = "gpurun";
  RunOpts o;
  Arg *args;
  int rc = run_begin(argc, argv, &o, &args, usage);
  char *ptx = NULL;
  ptxvm_context *ctx = NULL;
  ptxvm_module *mod = NULL;
  ptxvm_function *fn = NULL;
  CUmodule cmod = NULL;
  if (rc == EXIT_OK && !(ptx = slurp(o.file))) rc = run_bad("cannot read %s", o.file);
  if (rc == EXIT_OK) rc = driver_load(ptx, &cmod);
  if (rc == EXIT_OK && ptxvm_context_create(&ctx) != PTXVM_SUCCESS) rc = run_bad("out of memory");
  if (rc == EXIT_OK && ptxvm_module_load_data(ctx, ptx, strlen(ptx), o.file, &mod) != PTXVM_SUCCESS)
    rc = run_bad("the driver accepts the module; ptxvm rejects it:\n%s", ptxvm_last_error(ctx));
  if (rc == EXIT_OK && !(fn = run_pick_kernel(mod, o.kernel))) rc = EXIT_INPUT;
  if (rc == EXIT_OK) rc = run_check_args(fn, &o, args);
  if (rc == EXIT_OK) rc = launch_on_gpu(&o, args, fn, cmod);
  ptxvm_context_destroy(ctx);
  free(ptx);
  run_end(&o, args);
  return rc;
}
