/* module.c: modules (PTX text), functions and kernel launches.
 *
 * A module is loaded and prepared at once (ptxvm_module_unsupported_count:
 * lowered, its .global/.const variables placed), so cuModuleGetGlobal has
 * addresses before any launch, and a module that cannot run as a whole
 * fails the load, as a JIT error would. A kernel holding an instruction
 * ptxvm cannot execute yet fails its own launches (CUDA_ERROR_NOT_SUPPORTED,
 * with the instruction's FILE:LINE:COL), as ptxvm refuses it; the module's
 * other kernels run. Images that are not PTX text (a cubin, a fatbin) are
 * refused by name. A launch runs to completion before cuLaunchKernel
 * returns; a fault makes the context's error sticky, and, as on a GPU, the
 * launch itself still returns CUDA_SUCCESS: the error comes from the next
 * call (cuCtxSynchronize, a copy, ...). ptxvm's report is printed on stderr,
 * each line prefixed "ptxvm: ". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"


/* Each line of text on stderr, prefixed "ptxvm: ". */
static void say_lines(const char *text) {
  while (*text) {
    const char *nl = strchr(text, '\n');
    int n = nl ? (int)(nl - text) : (int)strlen(text);
    fprintf(stderr, "ptxvm: %.*s\n", n, text);
    text += n + (nl != NULL);
  }
}

static bool live_module(CUmodule m) { return drv_live(m, MAGIC_MOD); }
static bool live_function(CUfunction f) { return drv_live(f, MAGIC_FN); }

/* JIT options cuModuleLoadDataEx fills: the error and info log buffers. */
typedef struct JitLog {
  char *err, *info;
  size_t *err_size, *info_size;   /* in: buffer bytes; out: bytes written */
} JitLog;

static void jit_log_parse(JitLog *log, unsigned n, CUjit_option *opts, void **vals) {
  memset(log, 0, sizeof *log);
  for (unsigned i = 0; opts && vals && i < n; i++) switch (opts[i]) {
    case CU_JIT_ERROR_LOG_BUFFER: log->err = vals[i]; break;
    case CU_JIT_INFO_LOG_BUFFER: log->info = vals[i]; break;
    /* the size option's value is the number itself, stored in the pointer */
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: log->err_size = (size_t *)&vals[i]; break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: log->info_size = (size_t *)&vals[i]; break;
    default: break;   /* optimisation and target options do not change PTX's semantics */
    }
}

static void jit_log_put(char *buf, size_t *size, const char *text) {
  if (!buf || !size || !*size) return;
  snprintf(buf, *size, "%s", text);
  size_t n = strlen(buf);
  *size = n + 1;
}

/* Loads NUL-terminated PTX text into the current context. */
static CUresult load(CUmodule *out, const void *image, const char *name, JitLog *log) {
  CUcontext c;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  /* The first 4 bytes, read up to a NUL: safe for a short PTX string, and
     the binary images' magic numbers hold no zero byte. */
  const unsigned char *b = image;
  uint32_t magic = 0;
  for (int i = 0; i < 4 && (i == 0 || b[i - 1]); i++) magic |= (uint32_t)b[i] << (8 * i);
  if (magic == 0x464c457fu) {   /* "\x7fELF" */
    drv_leave(c);
    drv_say("%s: the image is a cubin (SASS); ptxvm runs PTX: build with -arch=sm_90 or "
            "code=compute_90 so the program carries PTX", name);
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  if (magic == 0xBA55ED50u || magic == 0x466243b1u) {
    drv_leave(c);
    drv_say("%s: fatbin images are not implemented yet: load the PTX text instead", name);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  ptxvm_module *vm = NULL;
  ptxvm_status st = ptxvm_module_load_data(c->vm, image, strlen(image), name, &vm);
  ptxvm_unsupported_info whole = {0};
  if (st == PTXVM_SUCCESS) {
    int n = ptxvm_module_unsupported_count(vm);
    if (n < 0) st = PTXVM_ERROR_OUT_OF_MEMORY;   /* the message says why */
    else if (n > 0 && ptxvm_module_unsupported(vm, 0, &whole) == PTXVM_SUCCESS && !whole.function)
      st = PTXVM_ERROR_NOT_SUPPORTED;             /* the module as a whole */
  }
  if (st != PTXVM_SUCCESS) {
    const char *msg = whole.message ? whole.message : ptxvm_last_error(c->vm);
    say_lines(msg);
    if (log) jit_log_put(log->err, log->err_size, msg);
    ptxvm_module_unload(vm);
    drv_leave(c);
    return st == PTXVM_ERROR_INVALID_PTX ? CUDA_ERROR_INVALID_PTX
           : st == PTXVM_ERROR_NOT_SUPPORTED ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (log) {
    jit_log_put(log->err, log->err_size, "");
    jit_log_put(log->info, log->info_size, "");
  }
  CUmodule m = calloc(1, sizeof *m);
  int n = ptxvm_module_function_count(vm);
  struct CUfunc_st *fns = calloc((size_t)n + 1, sizeof *fns);
  if (!m || !fns) {
    free(m);
    free(fns);
    ptxvm_module_unload(vm);
    drv_leave(c);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *m = (struct CUmod_st){MAGIC_MOD, c, vm, fns, n, c->modules};
  bool ok = drv_handle_add(m);
  for (int i = 0; i < n; i++) {
    ok = ok && drv_handle_add(&fns[i]);
    fns[i].magic = MAGIC_FN;
    fns[i].mod = m;
    fns[i].vm = ptxvm_module_function_at(vm, i);
    ptxvm_function_get_info(fns[i].vm, &fns[i].info);
  }
  if (!ok) {
    for (int i = 0; i < n; i++) drv_handle_remove(&fns[i]);
    drv_handle_remove(m);
    ptxvm_module_unload(vm);
    drv_leave(c);
    free(fns);
    free(m);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  c->modules = m;
  drv_leave(c);
  *out = m;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) { return load(module, image, "<ptx>", NULL); }

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                            CUjit_option *options, void **optionValues) {
  JitLog log;
  jit_log_parse(&log, numOptions, options, optionValues);
  return load(module, image, "<ptx>", &log);
}

/* A file: PTX text (or an image load() refuses by name). */
CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  if (!module || !fname) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  FILE *f = fopen(fname, "rb");
  if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *nb = cap > ((size_t)1 << 31) ? NULL : realloc(buf, 2 * cap + 1);
    if (!nb) { free(buf); buf = NULL; }
    else { buf = nb; cap *= 2; }
  }
  bool bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    return bad ? CUDA_ERROR_FILE_NOT_FOUND : CUDA_ERROR_OUT_OF_MEMORY;
  }
  buf[n] = 0;
  r = load(module, buf, fname, NULL);
  free(buf);
  return r;
}

CUresult cuModuleUnload(CUmodule hmod) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_module(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  CUcontext c;
  r = drv_enter(hmod->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  struct CUmod_st **pp = &c->modules;
  while (*pp && *pp != hmod) pp = &(*pp)->next;
  if (*pp) *pp = hmod->next;
  for (int i = 0; i < hmod->nfns; i++) drv_handle_remove(&hmod->fns[i]);
  drv_handle_remove(hmod);
  ptxvm_module_unload(hmod->vm);
  drv_leave(c);
  free(hmod->fns);
  free(hmod);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!hfunc || !name) return CUDA_ERROR_INVALID_VALUE;
  if (!live_module(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  for (int i = 0; i < hmod->nfns; i++)
    if (hmod->fns[i].info.is_entry && !strcmp(hmod->fns[i].info.name, name)) {
      *hfunc = &hmod->fns[i];
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  if (!live_module(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  CUcontext c;
  r = drv_enter(hmod->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_devptr a = 0;
  size_t n = 0;
  ptxvm_status st = ptxvm_module_get_global(hmod->vm, name, &a, &n);
  drv_leave(c);
  if (st == PTXVM_ERROR_NOT_FOUND) return CUDA_ERROR_NOT_FOUND;
  if (st != PTXVM_SUCCESS) return drv_result(c, st, CUDA_ERROR_INVALID_VALUE);
  if (dptr) *dptr = a;
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

/* ---- function attributes ---- */

static int dim_product(const unsigned d[3]) {
  return d[0] ? (int)(d[0] * (d[1] ? d[1] : 1) * (d[2] ? d[2] : 1)) : 0;
}

static size_t static_shared(CUfunction f) {
  size_t n = 0;
  CUcontext c;
  if (drv_enter(f->mod->ctx, &c) != CUDA_SUCCESS) return 0;
  ptxvm_function_static_shared(f->vm, &n);   /* prepared at load: cannot fail */
  drv_leave(c);
  return n;
}

enum { SHARED_OPTIN = 232448, SHARED_DEFAULT = 49152 };   /* attributes.def: per block */

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  if (!live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  const ptxvm_function_info *fi = &hfunc->info;
  int threads = dim_product(fi->reqntid) ? dim_product(fi->reqntid) : dim_product(fi->maxntid);
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = threads ? threads : 1024; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)static_shared(hfunc); break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *pi = hfunc->max_dyn_shared ? hfunc->max_dyn_shared : SHARED_DEFAULT - (int)static_shared(hfunc);
    if (*pi < 0) *pi = 0;
    break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = -1; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = fi->explicitcluster; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *pi = (int)fi->reqnctapercluster[0]; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *pi = (int)fi->reqnctapercluster[1]; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = (int)fi->reqnctapercluster[2]; break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = 0; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
  default:
    /* registers, local and constant sizes, PTX version: not known to ptxvm */
    drv_say("cuFuncGetAttribute: attribute %d is not modelled", (int)attrib);
    return (unsigned)attrib < CU_FUNC_ATTRIBUTE_MAX ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    if (value < 0 || (size_t)value + static_shared(hfunc) > SHARED_OPTIN) return CUDA_ERROR_INVALID_VALUE;
    hfunc->max_dyn_shared = value;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:   /* a hint */
    return value < -1 || value > 100 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
  default:
    drv_say("cuFuncSetAttribute: attribute %d is not implemented", (int)attrib);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

/* ---- launches ---- */

/* params[i] for a launch given `extra`: pointers into the caller's buffer at
 * each parameter's offset (CU_LAUNCH_PARAM_BUFFER_POINTER/_SIZE). */
static CUresult extra_params(CUfunction f, void **extra, void ***out) {
  void *buf = NULL;
  size_t *size = NULL;
  for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = extra[i + 1];
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = extra[i + 1];
    else return CUDA_ERROR_INVALID_VALUE;
  }
  int n = f->info.nparams;
  if (n && (!buf || !size || *size < f->info.param_bytes)) return CUDA_ERROR_INVALID_VALUE;
  void **p = calloc((size_t)n + 1, sizeof *p);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  for (int i = 0; i < n; i++) {
    ptxvm_param_info pi;
    ptxvm_function_get_param(f->vm, 0, i, &pi);
    p[i] = (char *)buf + pi.offset;
  }
  *out = p;
  return CUDA_SUCCESS;
}

/* A failed launch's status as the CUDA error of its context. A kernel fault
 * or a deadlock makes it sticky; a refused configuration does not. */
static CUresult launch_result(CUcontext c, ptxvm_status st) {
  const char *msg = ptxvm_last_error(c->vm);
  switch (st) {
  case PTXVM_SUCCESS: return CUDA_SUCCESS;
  case PTXVM_ERROR_HAZARD:   /* ran to completion; the findings are the report */
    say_lines(msg);
    return CUDA_SUCCESS;
  case PTXVM_ERROR_INVALID_CONFIG:
  case PTXVM_ERROR_INVALID_VALUE:
    say_lines(msg);
    return CUDA_ERROR_INVALID_VALUE;
  case PTXVM_ERROR_NOT_SUPPORTED:
    say_lines(msg);
    return CUDA_ERROR_NOT_SUPPORTED;
  case PTXVM_ERROR_OUT_OF_MEMORY:
  case PTXVM_ERROR_OUT_OF_DEVICE_MEMORY:
    say_lines(msg);
    return CUDA_ERROR_OUT_OF_MEMORY;
  case PTXVM_ERROR_DEADLOCK:
    say_lines(msg);
    c->sticky = CUDA_ERROR_LAUNCH_TIMEOUT;   /* a GPU would hang until its watchdog */
    return CUDA_SUCCESS;
  default: {
    /* the codes an H200 gave for the same faults (tests/gpu/sm90_truth.json:
       a local stack overflow is an illegal address there too) */
    static const CUresult codes[] = {
      [PTXVM_FAULT_NONE] = CUDA_ERROR_LAUNCH_FAILED, [PTXVM_FAULT_ADDRESS] = CUDA_ERROR_ILLEGAL_ADDRESS,
      [PTXVM_FAULT_MISALIGNED] = CUDA_ERROR_MISALIGNED_ADDRESS, [PTXVM_FAULT_TRAP] = CUDA_ERROR_LAUNCH_FAILED,
      [PTXVM_FAULT_ASSERT] = CUDA_ERROR_ASSERT, [PTXVM_FAULT_OTHER] = CUDA_ERROR_LAUNCH_FAILED};
    say_lines(msg);
    c->sticky = codes[ptxvm_launch_fault(c->vm)];
    return CUDA_SUCCESS;
  }
  }
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
  CUcontext sc, c;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!live_function(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  size_t st_shared = static_shared(f);
  size_t dyn_max = f->max_dyn_shared ? (size_t)f->max_dyn_shared
                   : st_shared < SHARED_DEFAULT ? SHARED_DEFAULT - st_shared : 0;
  if (sharedMemBytes > dyn_max) {
    drv_say("cuLaunchKernel: %u bytes of dynamic shared memory for '%s' exceed its limit of %zu "
            "(cuFuncSetAttribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raises it)",
            sharedMemBytes, f->info.name, dyn_max);
    return CUDA_ERROR_INVALID_VALUE;
  }
  r = drv_enter_work(f->mod->ctx, &c);   /* ptxvm calls on the context need its lock */
  if (r != CUDA_SUCCESS) return r;
  void **params = kernelParams, **owned = NULL;
  if (extra) {
    r = extra_params(f, extra, &owned);
    params = owned;
  }
  if (r == CUDA_SUCCESS && f->info.nparams && !params) r = CUDA_ERROR_INVALID_VALUE;
  if (r != CUDA_SUCCESS) {
    drv_leave(c);
    return r;
  }
  unsigned grid[3] = {gridDimX, gridDimY, gridDimZ}, block[3] = {blockDimX, blockDimY, blockDimZ};
  unsigned cluster[3] = {1, 1, 1};   /* the kernel's .reqnctapercluster, else 1,1,1 */
  for (int i = 0; i < 3; i++)
    if (f->info.reqnctapercluster[i]) cluster[i] = f->info.reqnctapercluster[i];
  ptxvm_status st = ptxvm_launch(f->vm, grid, block, cluster, sharedMemBytes, params);
  bool ran = st == PTXVM_SUCCESS || st == PTXVM_ERROR_HAZARD || st == PTXVM_ERROR_LAUNCH_FAILED ||
             st == PTXVM_ERROR_DEADLOCK || st == PTXVM_ERROR_CANCELLED;
  ptxvm_stats s;   /* a refused launch leaves the previous one's: only for one that ran */
  if (ran && ptxvm_launch_stats(c->vm, &s) == PTXVM_SUCCESS) {
    if (drv_opt.stats) drv_stats_add(&s);
    if (s.printf_lost_calls) {   /* the output is incomplete: say so, as ptxvm run does */
      char more[64] = "";
      if (s.printf_lost_clusters > 1)
        snprintf(more, sizeof more, " and %llu more", (unsigned long long)(s.printf_lost_clusters - 1));
      drv_say("printf output lost: %llu call%s (%llu bytes) beyond the %zu-byte printf buffer of cluster "
              "(%u,%u,%u)%s; cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE) keeps more",
              (unsigned long long)s.printf_lost_calls, s.printf_lost_calls == 1 ? "" : "s",
              (unsigned long long)s.printf_lost_bytes, c->limits[CU_LIMIT_PRINTF_FIFO_SIZE],
              s.printf_lost_first[0], s.printf_lost_first[1], s.printf_lost_first[2], more);
    }
  }
  r = launch_result(c, st);
  drv_leave(c);
  free(owned);
  return r;
}

PER_THREAD(cuLaunchKernel_ptsz, cuLaunchKernel)
