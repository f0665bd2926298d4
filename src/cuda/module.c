/* module.c: modules (PTX text) and their functions and globals.
 *
 * A module is loaded and prepared at once (ptxvm_module_unsupported_count:
 * lowered, its .global/.const variables placed), so cuModuleGetGlobal has
 * addresses before any launch, and a module that cannot run as a whole
 * fails the load, as a JIT error would. A kernel holding an instruction
 * ptxvm cannot execute yet fails its own launches (CUDA_ERROR_NOT_SUPPORTED,
 * with the instruction's FILE:LINE:COL), as ptxvm refuses it; the module's
 * other kernels run. Images that are not PTX text (a cubin, a fatbin) are
 * refused by name. ptxvm's messages are printed on stderr, each line
 * prefixed "ptxvm: ". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"


static bool live_module(CUmodule m) { return drv_live(m, MAGIC_MOD); }

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
    drv_say_lines(msg);
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

