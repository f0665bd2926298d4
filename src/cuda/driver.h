/* driver.h: ptxvm's CUDA driver (libcuda.so.1), the internals its files share.
 *
 * The driver is a layer on top of the public API (include/ptxvm.h) and of
 * nothing else of ptxvm: each CUDA context owns one ptxvm_context (its
 * device memory, modules and launch options), a CUmodule a ptxvm_module, a
 * CUfunction a ptxvm_function. Work is executed synchronously, in issue
 * order, by the calling thread; streams and events keep CUDA's orderings
 * trivially. The handle types of cuda.h (struct CUctx_st ...) are defined
 * here; each starts with a magic word and is registered while it lives
 * (handles.c), so a stale or foreign handle is refused
 * (CUDA_ERROR_INVALID_HANDLE / INVALID_CONTEXT) rather than used.
 *
 * Files: entries.c (the table of entry points: exported symbols and
 * cuGetProcAddress, stubs for the unimplemented), init.c (cuInit, versions,
 * errors, options), handles.c, device.c, context.c, memory.c, module.c (modules,
 * libraries, functions, kernels, globals), launch.c (function attributes, launches), stream.c
 * (streams, events). */
#ifndef PTXVM_CUDA_DRIVER_H
#define PTXVM_CUDA_DRIVER_H

#include <cuda.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../include/ptxvm.h"
#include "entries.h"

enum { MAGIC_CTX = 0x43545821, MAGIC_MOD = 0x4d4f4421, MAGIC_FN = 0x464e4321,
       MAGIC_STREAM = 0x53545221, MAGIC_EVENT = 0x45564e21, MAGIC_LIB = 0x4c494221 };

/* Launch options from the environment (init.c drv_options), applied to every
 * context's ptxvm_context. */
typedef struct DrvOptions {
  unsigned jobs;            /* PTXVM_JOBS (0: the CPUs) */
  bool check;               /* PTXVM_CHECK=1 */
  uint64_t schedule;        /* PTXVM_SCHEDULE */
  uint64_t max_steps;       /* PTXVM_MAX_STEPS (0: default) */
  bool quiet;               /* PTXVM_QUIET=1: no ptxvm notices, only errors */
  bool stats;               /* PTXVM_STATS=1: totals on stderr at exit */
} DrvOptions;

struct CUctx_st {
  uint32_t magic;
  ptxvm_context *vm;
  pthread_mutex_t lock;     /* one ptxvm call at a time (ptxvm.h threads) */
  unsigned flags;
  bool primary;
  CUresult sticky;          /* a kernel fault: every later call returns it */
  size_t limits[CU_LIMIT_MAX];
  struct CUmod_st *modules;
};

struct CUmod_st {
  uint32_t magic;
  CUcontext ctx;
  ptxvm_module *vm;
  struct CUfunc_st *fns;    /* one per ptxvm function, by index */
  int nfns;
  struct CUmod_st *next;
  struct CUlib_st *lib;     /* the library whose module it is, or NULL */
};

/* A library (module.c): its module, in the context current at its load. */
struct CUlib_st {
  uint32_t magic;
  CUmodule mod;
  bool primary;             /* it retained the primary context */
};

struct CUfunc_st {
  uint32_t magic;
  CUmodule mod;
  ptxvm_function *vm;
  ptxvm_function_info info;
  int max_dyn_shared;       /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
};

struct CUstream_st {
  uint32_t magic;
  CUcontext ctx;
  unsigned flags;
  int priority;
};

struct CUevent_st {
  uint32_t magic;
  CUcontext ctx;
  unsigned flags;
  bool recorded;
  double t_ms;              /* host monotonic clock at the record, ms */
};

/* NAME is the same function as BASE (defined in the same file): the
 * per-thread default stream variants (_ptds, _ptsz), since synchronous work
 * in issue order makes them the legacy stream's, and older ABI variants with
 * the same arguments. */
#define SAME_AS(name, base) extern __typeof__(base) name __attribute__((alias(#base)));
#define PER_THREAD(name, base) SAME_AS(name, base)

/* ---- handles.c ---- */
/* Registers a new handle (false: out of memory); removes one before it is
 * freed; whether h is a live handle whose magic word is `magic`. */
bool drv_handle_add(const void *h);
void drv_handle_remove(const void *h);
bool drv_live(const void *h, uint32_t magic);
static inline bool drv_live_function(const void *f) { return drv_live(f, MAGIC_FN); }

/* ---- init.c ---- */
extern DrvOptions drv_opt;
/* CUDA_ERROR_NOT_INITIALIZED before cuInit, else CUDA_SUCCESS. */
CUresult drv_initialized(void);
/* Writes "ptxvm: " and the formatted text, with a newline, on stderr. */
void drv_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Each line of text on stderr, prefixed "ptxvm: ". */
void drv_say_lines(const char *text);
/* Adds a launch's counters to the totals PTXVM_STATS prints at exit. */
void drv_stats_add(const ptxvm_stats *s);

/* ---- context.c ---- */
/* The calling thread's current context (NULL when none). */
CUcontext drv_current(void);
/* Checks that ctx is a live context; locks it. NULL ctx: the current one.
 * Returns CUDA_SUCCESS with *out locked, or the error (not initialised, no
 * current context, invalid context). Does not check the sticky error. */
CUresult drv_enter(CUcontext ctx, CUcontext *out);
/* As drv_enter, then the sticky error of the context (unlocked again). */
CUresult drv_enter_work(CUcontext ctx, CUcontext *out);
void drv_leave(CUcontext ctx);
/* Maps a ptxvm status of a call on ctx->vm to a CUresult (not for
 * launches); prints ptxvm's message for errors the caller cannot see. */
CUresult drv_result(CUcontext ctx, ptxvm_status st, CUresult dflt);

/* ---- stream.c ---- */
/* Checks a stream handle (0, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are
 * the current context's default stream); sets *ctx to its context (NULL
 * for a default stream: the current one). */
CUresult drv_stream_ctx(CUstream s, CUcontext *ctx);

#endif
