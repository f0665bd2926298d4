/* module.c: modules, libraries, and their functions, kernels and globals.
 *
 * Images. cuModuleLoadData and its relatives take PTX text, a fatbin
 * (magic 0xBA55ED50), the runtime's __fatBinC_Wrapper_t (0x466243B1) or an
 * ELF file (a cubin, an executable); ptxvm_module_load_image finds the PTX
 * in them (ptxvm.h "device code in executables and fatbins"), the size of
 * an image in memory coming from its own headers, as the driver API gives
 * none. An image without PTX that ptxvm can run is
 * CUDA_ERROR_NO_BINARY_FOR_GPU, its message naming the kernels that lack
 * PTX and how to rebuild; a malformed one CUDA_ERROR_INVALID_IMAGE.
 *
 * Loading. A module is prepared at its load (ptxvm_module_prepare: its
 * .global/.const variables placed and initialised, so cuModuleGetGlobal
 * has addresses before any launch; a module that cannot run as a whole
 * fails the load, as a JIT error would), and each kernel is lowered at
 * its first launch, with what it can call: CUDA's lazy loading, the
 * default since CUDA 12.2, so a fatbin of hundreds of CUB kernels costs
 * only the ones used. CUDA_MODULE_LOADING=EAGER lowers the whole module at
 * its load instead (cuModuleGetLoadingMode says which; cuFuncIsLoaded
 * whether a kernel is lowered, cuFuncLoad lowers it). A kernel holding
 * an instruction ptxvm cannot execute yet fails its own launches
 * (CUDA_ERROR_NOT_SUPPORTED, with the instruction's FILE:LINE:COL); the
 * module's other kernels run.
 *
 * Libraries (cuLibrary*, what the CUDA 13 runtime uses). CUDA loads a
 * library into every context, eagerly or at first use; ptxvm, with one
 * device, loads it once, into the context current at cuLibraryLoadData
 * (the primary context, retained until cuLibraryUnload, when none is
 * current), and uses it from that context only: asked for from another
 * context, its module, functions and globals are refused by name
 * (CUDA_ERROR_NOT_SUPPORTED). A CUkernel is the CUfunction of that module
 * (the same object), so it may be passed wherever a CUfunction is taken.
 *
 * ptxvm's messages are printed on stderr, each line prefixed "ptxvm: ". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"


static bool live_module(CUmodule m) { return drv_live(m, MAGIC_MOD); }

/* ---- the loading mode (CUDA_MODULE_LOADING) ---- */

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static bool eager;

static void read_mode(void) {
  const char *v = getenv("CUDA_MODULE_LOADING");
  eager = v && !strcmp(v, "EAGER");
}

static bool eager_loading(void) {
  pthread_once(&mode_once, read_mode);
  return eager;
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  *mode = eager_loading() ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

/* ---- JIT options ---- */

/* The one reading of JIT options, for loads and links (driver.h). */
void drv_jit_log_parse(DrvJitLog *log, unsigned n, CUjit_option *opts, void **vals) {
  memset(log, 0, sizeof *log);
  for (unsigned i = 0; opts && vals && i < n; i++) switch (opts[i]) {
    case CU_JIT_ERROR_LOG_BUFFER: log->err = vals[i]; break;
    case CU_JIT_INFO_LOG_BUFFER: log->info = vals[i]; break;
    /* a size option's value is the number itself, kept in the pointer slot */
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: log->err_size = (size_t *)&vals[i]; break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: log->info_size = (size_t *)&vals[i]; break;
    case CU_JIT_WALL_TIME: log->wall_ms = (float *)&vals[i]; break;
    default: break;   /* optimisation and target options do not change PTX's semantics */
    }
  log->err_cap = log->err_size ? *log->err_size : 0;
  log->info_cap = log->info_size ? *log->info_size : 0;
}

/* Writes text into a log buffer of cap bytes (cut to fit); *size becomes
 * the bytes written with the NUL. */
static void log_put(char *buf, size_t cap, size_t *size, const char *text) {
  if (!buf || !size || !cap) return;
  snprintf(buf, cap, "%s", text);
  *size = strlen(buf) + 1;
}

void drv_jit_log_error(DrvJitLog *log, const char *text) {
  if (log) log_put(log->err, log->err_cap, log->err_size, text);
}

void drv_jit_log_info(DrvJitLog *log, const char *text) {
  if (log) log_put(log->info, log->info_cap, log->info_size, text);
}

/* ---- loading ---- */

/* The CUDA error of a failed load. */
static CUresult load_error(ptxvm_status st) {
  switch (st) {
  case PTXVM_ERROR_INVALID_PTX: return CUDA_ERROR_INVALID_PTX;
  case PTXVM_ERROR_NO_PTX: return CUDA_ERROR_NO_BINARY_FOR_GPU;
  case PTXVM_ERROR_INVALID_IMAGE: return CUDA_ERROR_INVALID_IMAGE;
  case PTXVM_ERROR_NOT_SUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
  case PTXVM_ERROR_INVALID_VALUE: return CUDA_ERROR_INVALID_VALUE;
  default: return CUDA_ERROR_OUT_OF_MEMORY;
  }
}

/* Prepares vm (or, loading eagerly, lowers it all); the status of what
 * stops it as a whole, its message in *msg. */
static ptxvm_status prepare(CUcontext c, ptxvm_module *vm, const char **msg) {
  *msg = NULL;
  if (!eager_loading()) {
    ptxvm_status st = ptxvm_module_prepare(vm);
    if (st != PTXVM_SUCCESS) *msg = ptxvm_last_error(c->vm);
    return st;
  }
  int n = ptxvm_module_unsupported_count(vm);
  ptxvm_unsupported_info whole = {0};
  if (n < 0) {   /* the message says why */
    *msg = ptxvm_last_error(c->vm);
    return PTXVM_ERROR_OUT_OF_MEMORY;
  }
  if (n > 0 && ptxvm_module_unsupported(vm, 0, &whole) == PTXVM_SUCCESS && !whole.function) {
    *msg = whole.message;   /* the module as a whole */
    return PTXVM_ERROR_NOT_SUPPORTED;
  }
  return PTXVM_SUCCESS;
}

/* The driver's records for a loaded ptxvm module: one CUfunction per
 * function, by index. NULL when out of memory (vm is then unloaded). */
static CUmodule module_new(CUcontext c, ptxvm_module *vm) {
  CUmodule m = calloc(1, sizeof *m);
  int n = ptxvm_module_function_count(vm);
  struct CUfunc_st *fns = calloc((size_t)n + 1, sizeof *fns);
  if (!m || !fns) {
    free(m);
    free(fns);
    ptxvm_module_unload(vm);
    return NULL;
  }
  *m = (struct CUmod_st){.magic = MAGIC_MOD, .ctx = c, .vm = vm, .fns = fns, .nfns = n, .next = c->modules};
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
    free(fns);
    free(m);
    return NULL;
  }
  c->modules = m;
  return m;
}

/* Loads an image (`size` 0: in memory, as long as its headers or its NUL
 * say) into context c, entered. `name` names it in messages. */
static CUresult load_in(CUcontext c, CUmodule *out, const void *image, size_t size, const char *name,
                        DrvJitLog *log) {
  double t0 = drv_now_ms();
  ptxvm_module *vm = NULL;
  ptxvm_status st = ptxvm_module_load_image(c->vm, image, size, name, &vm);
  const char *msg = st == PTXVM_SUCCESS ? NULL : ptxvm_last_error(c->vm);
  /* an image's messages (fatbin.c, image.c) do not name it; PTX's and the
     preparation's start with FILE: */
  bool unnamed = st == PTXVM_ERROR_NO_PTX || st == PTXVM_ERROR_INVALID_IMAGE || st == PTXVM_ERROR_NOT_SUPPORTED;
  if (st == PTXVM_SUCCESS) st = prepare(c, vm, &msg);
  if (st != PTXVM_SUCCESS) {
    if (unnamed) drv_say("%s: %s", name, msg);
    else drv_say_lines(msg);
    drv_jit_log_error(log, msg);
    ptxvm_module_unload(vm);
    return load_error(st);
  }
  drv_jit_log_error(log, "");
  drv_jit_log_info(log, "");
  if (log && log->wall_ms) *log->wall_ms = (float)(drv_now_ms() - t0);
  *out = module_new(c, vm);
  return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* An image's name in messages: "<image>" for a fatbin, a wrapper or an
 * ELF file, else "<ptx>". Byte by byte, so a short PTX string is not
 * over-read: no magic number holds a zero byte. */
static const char *image_name(const void *image) {
  static const unsigned char magic[3][4] = {{0x50, 0xed, 0x55, 0xba}, {0xb1, 0x43, 0x62, 0x46},
                                            {0x7f, 'E', 'L', 'F'}};
  const unsigned char *b = image;
  for (int k = 0; k < 3; k++) {
    int i = 0;
    while (i < 4 && b[i] == magic[k][i]) i++;
    if (i == 4) return "<image>";
  }
  return "<ptx>";
}

/* Loads an image into the current context. */
static CUresult load(CUmodule *out, const void *image, size_t size, const char *name, DrvJitLog *log) {
  CUcontext c;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  drv_printf_flush();   /* module loads and unloads write held printf output, as on a GPU */
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  r = load_in(c, out, image, size, name ? name : image_name(image), log);
  drv_leave(c);
  return r;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) { return load(module, image, 0, NULL, NULL); }

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                            CUjit_option *options, void **optionValues) {
  DrvJitLog log;
  drv_jit_log_parse(&log, numOptions, options, optionValues);
  return load(module, image, 0, NULL, &log);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
  return load(module, fatCubin, 0, NULL, NULL);
}

/* The bytes of file fname (malloc'd, NUL-terminated, *n without the NUL):
 * CUDA_SUCCESS, CUDA_ERROR_FILE_NOT_FOUND or CUDA_ERROR_OUT_OF_MEMORY. */
static CUresult read_file(const char *fname, char **out, size_t *n) {
  FILE *f = fopen(fname, "rb");
  if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
  size_t cap = 1 << 16;
  *n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    *n += fread(buf + *n, 1, cap - *n, f);
    if (*n < cap) break;
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
  buf[*n] = 0;
  *out = buf;
  return CUDA_SUCCESS;
}

/* A file: PTX text, a cubin or a fatbin (of its own length). */
CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  if (!module || !fname) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  char *buf;
  size_t n;
  r = read_file(fname, &buf, &n);
  if (r != CUDA_SUCCESS) return r;
  r = n ? load(module, buf, n, fname, NULL) : CUDA_ERROR_INVALID_IMAGE;
  free(buf);
  return r;
}

/* Frees m's records; c is m's context, entered. */
static void module_free(CUcontext c, CUmodule m) {
  struct CUmod_st **pp = &c->modules;
  while (*pp && *pp != m) pp = &(*pp)->next;
  if (*pp) *pp = m->next;
  for (int i = 0; i < m->nfns; i++) drv_handle_remove(&m->fns[i]);
  drv_handle_remove(m);
  ptxvm_module_unload(m->vm);
  free(m->fns);
  free(m);
}

CUresult cuModuleUnload(CUmodule hmod) {
  drv_printf_flush();
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_module(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  if (hmod->lib) return CUDA_ERROR_NOT_PERMITTED;   /* cuLibraryUnload's */
  CUcontext c;
  r = drv_enter(hmod->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  module_free(c, hmod);
  drv_leave(c);
  return CUDA_SUCCESS;
}

/* ---- functions ---- */

static bool is_kernel(const struct CUfunc_st *f) { return f->info.is_entry && f->info.has_body; }

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!hfunc || !name) return CUDA_ERROR_INVALID_VALUE;
  if (!live_module(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  for (int i = 0; i < hmod->nfns; i++)
    if (is_kernel(&hmod->fns[i]) && !strcmp(hmod->fns[i].info.name, name)) {
      *hfunc = &hmod->fns[i];
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

/* The kernels of a module (.entry functions with a body; a .func has no
 * CUfunction): their count, or the first `max` of them into out. */
static unsigned kernels(CUmodule m, CUfunction *out, unsigned max) {
  unsigned n = 0;
  for (int i = 0; i < m->nfns; i++)
    if (is_kernel(&m->fns[i])) {
      if (out && n < max) out[n] = &m->fns[i];
      n++;
    }
  return n;
}

CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  if (!live_module(mod)) return CUDA_ERROR_INVALID_HANDLE;
  *count = kernels(mod, NULL, 0);
  return CUDA_SUCCESS;
}

CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions, CUmodule mod) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!functions) return CUDA_ERROR_INVALID_VALUE;
  if (!live_module(mod)) return CUDA_ERROR_INVALID_HANDLE;
  kernels(mod, functions, numFunctions);
  return CUDA_SUCCESS;
}

CUresult cuFuncGetName(const char **name, CUfunction hfunc) {
  if (!name || !hfunc) return CUDA_ERROR_INVALID_VALUE;
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  *name = hfunc->info.name;
  return CUDA_SUCCESS;
}

CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!hmod) return CUDA_ERROR_INVALID_VALUE;
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  *hmod = hfunc->mod;
  return CUDA_SUCCESS;
}

/* Loaded: lowered (ptxvm_function_lowered). A kernel that ptxvm cannot
 * run is loaded all the same (its launches are refused). */
CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!state) return CUDA_ERROR_INVALID_VALUE;
  if (!drv_live_function(function)) return CUDA_ERROR_INVALID_HANDLE;
  CUcontext c;
  r = drv_enter(function->mod->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  int lowered = 0;
  ptxvm_status st = ptxvm_function_lowered(function->vm, &lowered);
  drv_leave(c);
  if (st != PTXVM_SUCCESS) return drv_result(c, st, CUDA_ERROR_INVALID_VALUE);
  *state = lowered ? CU_FUNCTION_LOADING_STATE_LOADED : CU_FUNCTION_LOADING_STATE_UNLOADED;
  return CUDA_SUCCESS;
}

CUresult cuFuncLoad(CUfunction function) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live_function(function)) return CUDA_ERROR_INVALID_HANDLE;
  CUcontext c;
  r = drv_enter(function->mod->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_status st = ptxvm_function_launchable(function->vm);
  r = st == PTXVM_SUCCESS || st == PTXVM_ERROR_NOT_SUPPORTED ? CUDA_SUCCESS   /* refused at its launches */
      : drv_result(c, st, CUDA_ERROR_INVALID_VALUE);
  drv_leave(c);
  return r;
}

/* ---- globals ---- */

/* Variable `name` of module m, in its context. */
static CUresult get_global(CUdeviceptr *dptr, size_t *bytes, CUmodule m, const char *name) {
  if (!name || (!dptr && !bytes)) return CUDA_ERROR_INVALID_VALUE;
  CUcontext c;
  CUresult r = drv_enter(m->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_devptr a = 0;
  size_t n = 0;
  ptxvm_status st = ptxvm_module_get_global(m->vm, name, &a, &n);
  drv_leave(c);
  if (st == PTXVM_ERROR_NOT_FOUND) return CUDA_ERROR_NOT_FOUND;
  if (st != PTXVM_SUCCESS) return drv_result(c, st, CUDA_ERROR_INVALID_VALUE);
  if (dptr) *dptr = a;
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_module(hmod)) return CUDA_ERROR_INVALID_HANDLE;
  return get_global(dptr, bytes, hmod, name);
}

/* ---- libraries ---- */

/* The library options ptxvm takes: CU_LIBRARY_BINARY_IS_PRESERVED, a hint
 * (the PTX is copied at the load either way; from a file it is invalid).
 * The host universal function and data table is not implemented. */
static CUresult library_options(CUlibraryOption *opts, void **vals, unsigned n, bool from_file) {
  if (n && (!opts || !vals)) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < n; i++) switch (opts[i]) {
    case CU_LIBRARY_BINARY_IS_PRESERVED:
      if (from_file) return CUDA_ERROR_INVALID_VALUE;
      break;
    case CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE:
      drv_say("cuLibraryLoad: CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE is not implemented");
      return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
  return CUDA_SUCCESS;
}

/* Loads a library's image into the current context (else the primary
 * context, retained). */
static CUresult library_load(CUlibrary *library, const void *code, size_t size, const char *name,
                             CUjit_option *jopts, void **jvals, unsigned njit, CUlibraryOption *lopts,
                             void **lvals, unsigned nlib, bool from_file) {
  if (!library || !code) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = library_options(lopts, lvals, nlib, from_file);
  if (r != CUDA_SUCCESS) return r;
  CUlibrary lib = calloc(1, sizeof *lib);
  if (!lib) return CUDA_ERROR_OUT_OF_MEMORY;
  lib->magic = MAGIC_LIB;
  CUcontext c = drv_current();
  if (!c) {
    r = cuDevicePrimaryCtxRetain(&c, 0);
    if (r != CUDA_SUCCESS) {
      free(lib);
      return r;
    }
    lib->primary = true;
  }
  DrvJitLog log;
  drv_jit_log_parse(&log, njit, jopts, jvals);
  CUcontext e;
  r = drv_enter_work(c, &e);
  if (r == CUDA_SUCCESS) {
    r = load_in(c, &lib->mod, code, size, name ? name : image_name(code), &log);
    if (r == CUDA_SUCCESS && !drv_handle_add(lib)) {
      module_free(c, lib->mod);
      r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS) lib->mod->lib = lib;
    drv_leave(c);
  }
  if (r != CUDA_SUCCESS) {
    if (lib->primary) cuDevicePrimaryCtxRelease(0);
    free(lib);
    return r;
  }
  *library = lib;
  return CUDA_SUCCESS;
}

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                           void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                           void **libraryOptionValues, unsigned int numLibraryOptions) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  return library_load(library, code, 0, NULL, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                      libraryOptionValues, numLibraryOptions, false);
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                               void **jitOptionsValues, unsigned int numJitOptions,
                               CUlibraryOption *libraryOptions, void **libraryOptionValues,
                               unsigned int numLibraryOptions) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!library || !fileName) return CUDA_ERROR_INVALID_VALUE;
  char *buf;
  size_t n;
  r = read_file(fileName, &buf, &n);
  if (r != CUDA_SUCCESS) return r;
  r = n ? library_load(library, buf, n, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                       libraryOptionValues, numLibraryOptions, true)
        : CUDA_ERROR_INVALID_IMAGE;
  free(buf);
  return r;
}

/* Whether lib is a live library. Its module is gone when its context was
 * destroyed (cuCtxDestroy, cuDevicePrimaryCtxReset): *mod is then NULL. */
static bool live_library(CUlibrary lib, CUmodule *mod) {
  if (!drv_live(lib, MAGIC_LIB)) return false;
  /* a module at the same address may be another's, made since */
  *mod = live_module(lib->mod) && lib->mod->lib == lib ? lib->mod : NULL;
  return true;
}

CUresult cuLibraryUnload(CUlibrary library) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  CUmodule m;
  if (!live_library(library, &m)) return CUDA_ERROR_INVALID_VALUE;
  drv_handle_remove(library);
  CUcontext c;
  if (m && drv_enter(m->ctx, &c) == CUDA_SUCCESS) {
    module_free(c, m);
    drv_leave(c);
  }
  if (library->primary) cuDevicePrimaryCtxRelease(0);
  free(library);
  return CUDA_SUCCESS;
}

/* The library's module, for a call that works in the current context:
 * CUDA_ERROR_CONTEXT_IS_DESTROYED when its context is gone, a refusal by
 * name (`what`) in any other context than the one it was loaded into. */
static CUresult library_here(CUlibrary lib, CUmodule *out, const char *what) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  CUmodule m;
  if (!live_library(lib, &m)) return CUDA_ERROR_INVALID_HANDLE;
  if (!m) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  CUcontext cur = drv_current();
  if (!cur) return CUDA_ERROR_INVALID_CONTEXT;
  if (cur != m->ctx) {
    drv_say("%s: a library is loaded into one context, the one current at cuLibraryLoadData; "
            "using it in another context is not implemented", what);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  *out = m;
  return CUDA_SUCCESS;
}

/* The library's module whatever the current context (kernels are
 * context-independent handles). */
static CUresult library_module(CUlibrary lib, CUmodule *out) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_library(lib, out)) return CUDA_ERROR_INVALID_HANDLE;
  return *out ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library) {
  if (!pMod) return CUDA_ERROR_INVALID_VALUE;
  return library_here(library, pMod, "cuLibraryGetModule");
}

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name) {
  if (!pKernel || !name) return CUDA_ERROR_INVALID_VALUE;
  CUmodule m;
  CUresult r = library_module(library, &m);
  if (r != CUDA_SUCCESS) return r;
  CUfunction f;
  r = cuModuleGetFunction(&f, m, name);
  if (r == CUDA_SUCCESS) *pKernel = (CUkernel)f;
  return r;
}

CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  CUmodule m;
  CUresult r = library_module(lib, &m);
  if (r != CUDA_SUCCESS) return r;
  *count = kernels(m, NULL, 0);
  return CUDA_SUCCESS;
}

CUresult cuLibraryEnumerateKernels(CUkernel *out, unsigned int numKernels, CUlibrary lib) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  CUmodule m;
  CUresult r = library_module(lib, &m);
  if (r != CUDA_SUCCESS) return r;
  kernels(m, (CUfunction *)out, numKernels);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  CUmodule m;
  CUresult r = library_here(library, &m, "cuLibraryGetGlobal");
  return r != CUDA_SUCCESS ? r : get_global(dptr, bytes, m, name);
}

/* A __managed__ variable (.attribute(.managed)) is in managed memory, which
 * the allocation table tells; a variable of another kind is not found, as
 * CUDA answers. */
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  CUmodule m;
  CUresult r = library_here(library, &m, "cuLibraryGetManaged");
  CUdeviceptr a = 0;
  size_t n = 0;
  if (r == CUDA_SUCCESS) r = get_global(&a, &n, m, name);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_mem_range range;
  if (!drv_mem_owner(a, &range) || range.kind != PTXVM_MEM_MANAGED) return CUDA_ERROR_NOT_FOUND;
  if (dptr) *dptr = a;
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetUnifiedFunction(void **fptr, CUlibrary library, const char *symbol) {
  (void)fptr, (void)symbol;
  CUmodule m;
  CUresult r = library_module(library, &m);
  if (r != CUDA_SUCCESS) return r;
  drv_say("cuLibraryGetUnifiedFunction: unified functions are not implemented");
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- kernels: a CUkernel is its library module's CUfunction ---- */

static CUfunction kernel_function(CUkernel k) {
  CUfunction f = (CUfunction)k;
  return drv_live_function(f) && f->mod->lib ? f : NULL;
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel) {
  if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
  CUfunction f = kernel_function(kernel);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  CUmodule m;
  CUresult r = library_here(f->mod->lib, &m, "cuKernelGetFunction");
  if (r == CUDA_SUCCESS) *pFunc = f;
  return r;
}

CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pLib) return CUDA_ERROR_INVALID_VALUE;
  CUfunction f = kernel_function(kernel);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  *pLib = f->mod->lib;
  return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc) {
  if (!name || !hfunc) return CUDA_ERROR_INVALID_VALUE;
  CUfunction f = kernel_function(hfunc);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  *name = f->info.name;
  return CUDA_SUCCESS;
}

CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  CUfunction f = kernel_function(kernel);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncGetAttribute(pi, attrib, f);
}

/* One device: the kernel's setting is its function's (cuFuncSetAttribute
 * of the same CUfunction overrides it, as CUDA documents). */
CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  CUfunction f = kernel_function(kernel);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetAttribute(f, attrib, val);
}

/* A cache preference is a hint (ptxvm has no L1 to split); checked as
 * cuFuncSetCacheConfig checks it. */
CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  CUfunction f = kernel_function(kernel);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetCacheConfig(f, config);
}

/* The kernel's function answers (funcattr.c): one place for the layout. */
CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  CUfunction f = kernel_function(kernel);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  return cuFuncGetParamInfo(f, paramIndex, paramOffset, paramSize);
}
