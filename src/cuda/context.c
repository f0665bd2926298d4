/* context.c: contexts, the primary context and each thread's context stack.
 *
 * A context is a ptxvm_context with the environment's launch options
 * applied and device printf written to standard output. Its lock serialises
 * the driver's calls into it (ptxvm.h: one thread at a time per context);
 * calls that do work on it first return its sticky error (a kernel fault, as
 * on a GPU: the context is unusable afterwards, cuCtxDestroy or
 * cuDevicePrimaryCtxReset being the way out). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudaProfiler.h>

#include "driver.h"

enum { STACK_MAX = 64 };
static _Thread_local CUcontext stack[STACK_MAX];   /* [depth-1] is current */
static _Thread_local int depth;

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary;        /* device 0's, while retained */
static int primary_refs;
static unsigned primary_flags;

CUcontext drv_current(void) { return depth ? stack[depth - 1] : NULL; }

/* Device printf output is held, as in the GPU's FIFO, until a
 * synchronizing call (cuCtxSynchronize, cuStreamSynchronize,
 * cuEventSynchronize, a blocking copy, the next launch, a host function's
 * start, a module's load or unload, a context's destruction, or the
 * process's exit) writes it to stdout (the host's own stdio buffer, so host
 * and device lines keep that order under a pipe). One process-wide queue:
 * synchronizing any context flushes all. */
static pthread_mutex_t printf_lock = PTHREAD_MUTEX_INITIALIZER;
static char *printf_held;
static size_t printf_len, printf_cap;
static bool printf_atexit;

void drv_printf_flush(void) {
  pthread_mutex_lock(&printf_lock);
  if (printf_len) fwrite(printf_held, 1, printf_len, stdout);
  printf_len = 0;
  pthread_mutex_unlock(&printf_lock);
}

static void flush_at_exit(void) {
  drv_printf_flush();
  pthread_mutex_lock(&printf_lock);
  free(printf_held);
  printf_held = NULL;
  printf_cap = 0;
  pthread_mutex_unlock(&printf_lock);
}

static void write_printf(const char *text, size_t len, void *user) {
  (void)user;
  pthread_mutex_lock(&printf_lock);
  if (!printf_atexit) printf_atexit = atexit(flush_at_exit) == 0;
  if (printf_len + len > printf_cap) {
    size_t cap = printf_cap ? printf_cap : 4096;
    while (cap < printf_len + len) cap *= 2;
    char *p = printf_atexit ? realloc(printf_held, cap) : NULL;
    if (!p) {   /* cannot hold it: write what is held and this, now */
      if (printf_len) fwrite(printf_held, 1, printf_len, stdout);
      fwrite(text, 1, len, stdout);
      printf_len = 0;
      pthread_mutex_unlock(&printf_lock);
      return;
    }
    printf_held = p;
    printf_cap = cap;
  }
  memcpy(printf_held + printf_len, text, len);
  printf_len += len;
  pthread_mutex_unlock(&printf_lock);
}

static CUresult ctx_new(unsigned flags, bool is_primary, CUcontext *out) {
  CUcontext c = calloc(1, sizeof *c);
  if (!c) return CUDA_ERROR_OUT_OF_MEMORY;
  if (ptxvm_context_create(&c->vm) != PTXVM_SUCCESS) {
    free(c);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  pthread_mutex_init(&c->lock, NULL);
  c->magic = MAGIC_CTX;
  if (!drv_handle_add(c) || !drv_mem_ctx_add(c)) {
    drv_handle_remove(c);
    ptxvm_context_destroy(c->vm);
    free(c);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  c->flags = flags;
  c->primary = is_primary;
  c->limits[CU_LIMIT_STACK_SIZE] = 1024;
  c->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = PTXVM_PRINTF_BUFFER_DEFAULT;
  c->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = PTXVM_MALLOC_HEAP_DEFAULT;
  c->limits[CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2;
  c->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
  c->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 32;
  ptxvm_set_printf_callback(c->vm, write_printf, NULL);
  ptxvm_set_jobs(c->vm, drv_opt.jobs);
  ptxvm_set_check(c->vm, drv_opt.check);
  if (drv_opt.trace) ptxvm_set_trace(c->vm, drv_opt.trace, 0);
  ptxvm_set_alloc_padding(c->vm, 1);   /* a GPU's 256-byte alignment: small overruns do not fault */
  ptxvm_set_schedule(c->vm, drv_opt.schedule);
  ptxvm_set_max_steps(c->vm, drv_opt.max_steps);
  *out = c;
  return CUDA_SUCCESS;
}

/* Removes every entry of c from this thread's stack (other threads' stacks
 * cannot be reached: a context destroyed while current elsewhere leaves a
 * stale entry there, which drv_enter refuses, handles.c no longer knowing
 * it). */
static void unstack(CUcontext c) {
  int k = 0;
  for (int i = 0; i < depth; i++)
    if (stack[i] != c) stack[k++] = stack[i];
  depth = k;
}

static void ctx_free(CUcontext c) {
  drv_mem_ctx_remove(c);
  drv_printf_flush();
  while (c->modules) {
    struct CUmod_st *m = c->modules;
    c->modules = m->next;
    for (int i = 0; i < m->nfns; i++) drv_handle_remove(&m->fns[i]);
    drv_handle_remove(m);
    free(m->fns);
    free(m);
  }
  ptxvm_context_destroy(c->vm);
  drv_handle_remove(c);
  pthread_mutex_destroy(&c->lock);
  unstack(c);
  free(c);
}

CUresult drv_enter(CUcontext ctx, CUcontext *out) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!ctx) ctx = drv_current();
  if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
  if (!drv_live(ctx, MAGIC_CTX)) return CUDA_ERROR_INVALID_CONTEXT;
  pthread_mutex_lock(&ctx->lock);
  *out = ctx;
  return CUDA_SUCCESS;
}

CUresult drv_enter_work(CUcontext ctx, CUcontext *out) {
  CUresult r = drv_enter(ctx, out);
  if (r != CUDA_SUCCESS) return r;
  if ((*out)->sticky != CUDA_SUCCESS) {
    r = (*out)->sticky;
    drv_leave(*out);
  }
  return r;
}

void drv_leave(CUcontext ctx) { pthread_mutex_unlock(&ctx->lock); }

CUresult drv_result(CUcontext ctx, ptxvm_status st, CUresult dflt) {
  switch (st) {
  case PTXVM_SUCCESS: return CUDA_SUCCESS;
  case PTXVM_ERROR_INVALID_VALUE: return CUDA_ERROR_INVALID_VALUE;
  case PTXVM_ERROR_OUT_OF_MEMORY:
  case PTXVM_ERROR_OUT_OF_DEVICE_MEMORY: return CUDA_ERROR_OUT_OF_MEMORY;
  case PTXVM_ERROR_INVALID_ADDRESS: return CUDA_ERROR_INVALID_VALUE;
  case PTXVM_ERROR_NOT_FOUND: return CUDA_ERROR_NOT_FOUND;
  case PTXVM_ERROR_NOT_SUPPORTED:
    drv_say("%s", ptxvm_last_error(ctx->vm));
    return CUDA_ERROR_NOT_SUPPORTED;
  default:
    drv_say("%s", ptxvm_last_error(ctx->vm));
    return dflt;
  }
}

/* ---- cuCtx* ---- */

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags, CUdevice dev) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (params && (params->execAffinityParams || params->cigParams)) {
    drv_say("cuCtxCreate: execution affinity and CIG parameters are not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  CUcontext c;
  r = ctx_new(flags, false, &c);
  if (r != CUDA_SUCCESS) return r;
  if (depth == STACK_MAX) {
    ctx_free(c);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  stack[depth++] = c;   /* the new context becomes current (pushed) */
  *pctx = c;
  return CUDA_SUCCESS;
}

CUresult cuCtxDestroy_v2(CUcontext ctx) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live(ctx, MAGIC_CTX) || ctx->primary) return CUDA_ERROR_INVALID_CONTEXT;
  ctx_free(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live(ctx, MAGIC_CTX)) return CUDA_ERROR_INVALID_CONTEXT;
  if (depth == STACK_MAX) return CUDA_ERROR_OUT_OF_MEMORY;
  stack[depth++] = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!depth) return CUDA_ERROR_INVALID_CONTEXT;
  CUcontext c = stack[--depth];
  if (pctx) *pctx = c;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = drv_current();
  return CUDA_SUCCESS;
}

/* Replaces the top of the stack; NULL pops it (cuda.h cuCtxSetCurrent). */
CUresult cuCtxSetCurrent(CUcontext ctx) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!ctx) {
    if (depth) depth--;
    return CUDA_SUCCESS;
  }
  if (!drv_live(ctx, MAGIC_CTX)) return CUDA_ERROR_INVALID_CONTEXT;
  if (depth) stack[depth - 1] = ctx;
  else stack[depth++] = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device) {
  CUcontext c;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetFlags(unsigned int *flags) {
  CUcontext c;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  *flags = c->flags;
  drv_leave(c);
  return CUDA_SUCCESS;
}

/* Work runs synchronously, so there is nothing to wait for but the sticky
 * error of an earlier fault; capture forbids it (graph.c). */
CUresult cuCtxSynchronize(void) {
  CUcontext c;
  drv_printf_flush();
  CUresult r = drv_initialized();
  if (r == CUDA_SUCCESS) r = drv_capture_unsafe();
  if (r != CUDA_SUCCESS) return r;
  r = drv_enter_work(NULL, &c);
  if (r == CUDA_SUCCESS) drv_leave(c);
  return r;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  CUcontext c;
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter(ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  *version = 3020;   /* the context ABI since CUDA 3.2, as the driver reports it */
  return CUDA_SUCCESS;
}

/* cuProfilerStart/Stop tell the profiling tool attached to the process to
 * start or stop collecting for the current context; no tool attaches to
 * ptxvm, so, as NVIDIA's driver without one, they change nothing (--stats
 * counts every launch). */
static CUresult profiler_switch(void) {
  CUcontext c;
  CUresult r = drv_enter(NULL, &c);
  if (r == CUDA_SUCCESS) drv_leave(c);
  return r;
}
CUresult cuProfilerStart(void) { return profiler_switch(); }
CUresult cuProfilerStop(void) { return profiler_switch(); }

CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit) {
  CUcontext c;
  if (!pvalue || (unsigned)limit >= CU_LIMIT_MAX) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  *pvalue = c->limits[limit];
  drv_leave(c);
  return CUDA_SUCCESS;
}

/* The printf FIFO size is ptxvm's printf buffer (ptxvm_set_printf_buffer:
 * per cluster, where CUDA's is per device; what does not fit is dropped and
 * reported). The malloc heap size is ptxvm_set_malloc_heap's: fixed by the
 * first launch of a kernel that calls malloc or free, after which another
 * value is CUDA_ERROR_INVALID_VALUE, as cuda.h documents. The stack size
 * and L2 fetch granularity are kept and reported back: ptxvm bounds a
 * thread's stack by its own model (a located "local stack overflow"
 * fault) and has no caches, so their values change nothing a program
 * sees. Other limits are refused. */
CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  CUcontext c;
  if ((unsigned)limit >= CU_LIMIT_MAX) return CUDA_ERROR_INVALID_VALUE;
  if (limit != CU_LIMIT_PRINTF_FIFO_SIZE && limit != CU_LIMIT_STACK_SIZE &&
      limit != CU_LIMIT_MALLOC_HEAP_SIZE && limit != CU_LIMIT_MAX_L2_FETCH_GRANULARITY) {
    drv_say("cuCtxSetLimit: limit %d is not implemented", (int)limit);
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  }
  CUresult r = drv_enter(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_status st = limit == CU_LIMIT_PRINTF_FIFO_SIZE ? ptxvm_set_printf_buffer(c->vm, value ? value : 1)
                     : limit == CU_LIMIT_MALLOC_HEAP_SIZE ? ptxvm_set_malloc_heap(c->vm, value)
                                                          : PTXVM_SUCCESS;
  if (st == PTXVM_SUCCESS) c->limits[limit] = value;
  drv_leave(c);
  if (st != PTXVM_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

/* ---- the primary context ---- */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&primary_lock);
  if (!primary) r = ctx_new(primary_flags, true, &primary);
  if (r == CUDA_SUCCESS) {
    primary_refs++;
    *pctx = primary;
  }
  pthread_mutex_unlock(&primary_lock);
  return r;
}

static CUresult primary_drop(CUdevice dev, bool all) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&primary_lock);
  if (!all && !primary_refs) r = CUDA_ERROR_INVALID_CONTEXT;
  else if (all || --primary_refs == 0) {
    if (primary) ctx_free(primary);
    primary = NULL;
    primary_refs = 0;
  }
  pthread_mutex_unlock(&primary_lock);
  return r;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) { return primary_drop(dev, false); }
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) { return primary_drop(dev, true); }

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&primary_lock);
  primary_flags = flags;
  if (primary) primary->flags = flags;
  pthread_mutex_unlock(&primary_lock);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&primary_lock);
  *flags = primary_flags;
  *active = primary != NULL;
  pthread_mutex_unlock(&primary_lock);
  return CUDA_SUCCESS;
}

/* ---- older ABI variants with the same arguments ----
 * Programs built against older cuda.h headers (CUDA 12 maps cuCtxCreate to
 * cuCtxCreate_v2) and cuGetProcAddress calls with an older cudaVersion get
 * these, not a stub; variants whose arguments changed width (the CUDA 2.0
 * 32-bit CUdeviceptr forms) stay stubs (entries.c). An alias must sit beside
 * its target's definition. */
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuCtxCreate
SAME_AS(cuCtxDestroy, cuCtxDestroy_v2)
SAME_AS(cuCtxPushCurrent, cuCtxPushCurrent_v2)
SAME_AS(cuCtxPopCurrent, cuCtxPopCurrent_v2)
SAME_AS(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2)
SAME_AS(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset_v2)
SAME_AS(cuDevicePrimaryCtxSetFlags, cuDevicePrimaryCtxSetFlags_v2)

/* cuCtxCreate (2.0) and cuCtxCreate_v2 (3.2): flags and device only. */
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return cuCtxCreate_v4(pctx, NULL, flags, dev);
}
SAME_AS(cuCtxCreate, cuCtxCreate_v2)

/* cuCtxCreate_v3 (11.4): execution affinity parameters, which ptxvm has not. */
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags,
                        CUdevice dev);
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags,
                        CUdevice dev) {
  if (paramsArray && numParams > 0) {
    drv_say("cuCtxCreate_v3: execution affinity parameters are not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return cuCtxCreate_v4(pctx, NULL, flags, dev);
}
