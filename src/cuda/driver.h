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
 * libraries, functions, kernels, globals), launch.c (launches), funcattr.c
 * (function attributes), occupancy.c (the occupancy calculator), stream.c
 * (streams, events, host functions), graph.c (operations, stream capture,
 * graphs), userobj.c (user objects). */
#ifndef PTXVM_CUDA_DRIVER_H
#define PTXVM_CUDA_DRIVER_H

#include <cuda.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../include/ptxvm.h"
#include "entries.h"

enum { MAGIC_CTX = 0x43545821, MAGIC_MOD = 0x4d4f4421, MAGIC_FN = 0x464e4321,
       MAGIC_STREAM = 0x53545221, MAGIC_EVENT = 0x45564e21, MAGIC_LIB = 0x4c494221,
       MAGIC_GRAPH = 0x47524121, MAGIC_NODE = 0x4e4f4421, MAGIC_EXEC = 0x45584521 };

/* link.c: the JIT linker (cuLink*), whose CUlinkState is its own. */
enum { MAGIC_LINK = 0x4c4e4b21 };

/* Launch options from the environment (init.c drv_options), applied to every
 * context's ptxvm_context. */
typedef struct DrvOptions {
  unsigned jobs;            /* PTXVM_JOBS (0: the CPUs) */
  bool check;               /* PTXVM_CHECK=1 */
  const char *trace;        /* PTXVM_TRACE: the timeline file (ptxvm_set_trace) */
  uint64_t schedule;        /* PTXVM_SCHEDULE */
  uint64_t max_steps;       /* PTXVM_MAX_STEPS (0: default) */
  bool quiet;               /* PTXVM_QUIET=1: no ptxvm notices, only errors */
  bool stats;               /* PTXVM_STATS=1: totals on stderr at exit */
  int check_fd;             /* PTXVM_CHECK_FD (set by `ptxvm exec --check`):
                               a byte is written there per launch with
                               findings; -1: none */
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
  /* set by cuFuncSetAttribute (launch.c); all zero (calloc) by default */
  bool max_dyn_set;         /* max_dyn_shared was set (else the default) */
  bool carveout_set;        /* PREFERRED_SHARED_MEMORY_CARVEOUT (else -1) */
  int carveout;
  unsigned req_cluster[3];  /* REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH */
  int nonportable;          /* NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
  int sched_policy;         /* CLUSTER_SCHEDULING_POLICY_PREFERENCE */
};

struct CUstream_st {
  uint32_t magic;
  CUcontext ctx;
  unsigned flags;
  int priority;
  /* stream capture (graph.c, under its lock): the capture sequence the
   * stream belongs to (NULL: none) and the nodes its next captured node
   * depends on */
  struct DrvCapture *capture;
  CUgraphNode *deps;
  size_t ndeps, capdeps;
};

struct CUevent_st {
  uint32_t magic;
  CUcontext ctx;
  unsigned flags;
  bool recorded;
  double t_ms;              /* host monotonic clock at the record, ms */
  /* last recorded in a capturing stream (graph.c, under its lock): the
   * capture's id (0: not) and the nodes the record stood for */
  uint64_t capture_id;
  CUgraphNode *nodes;
  size_t nnodes;
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
/* CUDA_ERROR_NOT_INITIALIZED before cuInit, CUDA_ERROR_NOT_PERMITTED inside a
 * host function (stream.c), else CUDA_SUCCESS. */
CUresult drv_initialized(void);
/* Writes "ptxvm: " and the formatted text, with a newline, on stderr. */
void drv_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Each line of text on stderr, prefixed "ptxvm: ". */
void drv_say_lines(const char *text);
/* Adds a launch's counters to the totals PTXVM_STATS prints at exit. */
void drv_stats_add(const ptxvm_stats *s);
/* The host's monotonic clock, in milliseconds (events, JIT wall time). */
double drv_now_ms(void);

/* ---- device.c ---- */
/* The device's value of attribute a (attributes.def); 0 for no attribute. */
int drv_device_attribute(CUdevice_attribute a);

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

/* ---- launch.c ---- */
/* What a launch asks for, however it was called. */
typedef struct LaunchRequest {
  unsigned grid[3], block[3], dyn;
  CUstream stream;
  bool has_cluster, cooperative;
  unsigned cluster[3];
  CUevent events[2];        /* recorded when the launch ran (programmatic /
                               launch-completion events); NULL: none */
} LaunchRequest;
/* Under f's context lock: its resources (ptxvm_function_get_resources),
 * or the CUDA error, said. */
CUresult drv_function_resources(CUfunction f, ptxvm_function_resources *r);
/* The most dynamic shared memory f may launch with, given its static
 * shared bytes: cuFuncSetAttribute's, else the 48 KiB per block less them. */
uint64_t drv_dyn_limit(CUfunction f, uint64_t static_shared);
/* f's required cluster shape in out (each >= 1): its .reqnctapercluster,
 * else cuFuncSetAttribute's REQUIRED_CLUSTER_*: 1; 0 when it has none; -1
 * when those set are neither all 0 nor all positive. */
int drv_required_cluster(CUfunction f, unsigned out[3]);
/* The most CTAs a cluster of f may have. */
unsigned drv_cluster_limit(CUfunction f);
/* Adds launch attribute a to *q (cuLaunchKernelEx, cuOccupancy*). Accepted:
 * cooperative, cluster dimension, cluster scheduling policy (a placement
 * hint), programmatic stream serialization (work runs in issue order
 * already), priority, the shared memory carveout (a hint), the programmatic
 * and launch-completion events (recorded when the grid has run: every CTA
 * has triggered and begun by then). Others are not implemented, said by
 * name (CUDA_ERROR_NOT_SUPPORTED). */
CUresult drv_launch_attribute(const CUlaunchAttribute *a, LaunchRequest *q);
/* Launches f as q asks, with cuLaunchKernel's kernelParams or extra: the
 * launch of every entry point, and of a graph's kernel node (graph.c). */
CUresult drv_launch(CUfunction f, const LaunchRequest *q, void **kernelParams, void **extra);

/* ---- context.c (device printf) ---- */
/* Writes the device printf output held so far to stdout (context.c). */
void drv_printf_flush(void);

/* ---- module.c: JIT options ---- */
/* What the JIT options of a load or a link ask to be filled
 * (cuModuleLoadDataEx, cuLibraryLoadData, cuLinkCreate): the error and info
 * log buffers (their size options: in, the buffer's bytes, kept in *_cap;
 * out, the bytes written with the NUL) and CU_JIT_WALL_TIME (ms). A NULL
 * pointer: not asked. Other options (optimisation, target, ...) do not
 * change what PTX means and are ignored. */
typedef struct DrvJitLog {
  char *err, *info;
  size_t *err_size, *info_size;
  size_t err_cap, info_cap;
  float *wall_ms;
} DrvJitLog;
void drv_jit_log_parse(DrvJitLog *log, unsigned n, CUjit_option *opts, void **vals);
/* Replaces the error (info) log's text, cut to the buffer (log NULL: none). */
void drv_jit_log_error(DrvJitLog *log, const char *text);
void drv_jit_log_info(DrvJitLog *log, const char *text);

/* ---- memory.c ---- */
/* The live contexts, which a pointer's owner is looked up among: a new
 * context joins (false: out of memory), one about to be freed leaves
 * (holding no context's lock). */
bool drv_mem_ctx_add(CUcontext c);
void drv_mem_ctx_remove(CUcontext c);
/* The context whose allocation holds ptr (*r describes it), or NULL; call
 * it holding no context's lock. */
CUcontext drv_mem_owner(CUdeviceptr ptr, ptxvm_mem_range *r);

/* ---- advice.c ---- */
/* Drops the managed-memory hints of the allocation `id` (it was freed). */
void drv_advice_forget(uint64_t id);

/* ---- stream.c ---- */
/* Checks a stream handle (0, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are
 * the current context's default stream); sets *ctx to its context (NULL
 * for a default stream: the current one). */
CUresult drv_stream_ctx(CUstream s, CUcontext *ctx);


/* ---- userobj.c: user objects ----
 * The references to user objects a graph (or an executable graph) owns:
 * one entry per object with its count. drv_refs_add adds count references
 * (new ones, or moved from the caller: no retain); drv_refs_remove releases
 * count of them (CUDA_ERROR_INVALID_VALUE: the set holds fewer, or a bad
 * count); drv_refs_copy copies a set, each reference retained again;
 * drv_refs_clear releases them all. A released last reference queues the
 * object's destructor, which drv_user_objects_reap runs: call it, holding no
 * lock, at the end of an entry point that may have released one. */
typedef struct DrvUserRefs { struct DrvUserRef *v; size_t n; } DrvUserRefs;
CUresult drv_refs_add(DrvUserRefs *set, CUuserObject obj, unsigned count, bool move);
CUresult drv_refs_remove(DrvUserRefs *set, CUuserObject obj, unsigned count);
CUresult drv_refs_copy(DrvUserRefs *dst, const DrvUserRefs *src);
void drv_refs_clear(DrvUserRefs *set);
void drv_user_objects_reap(void);

/* ---- graph.c: operations, stream capture, graphs ----
 * Every piece of work a stream can hold is one DrvOp. An entry point that
 * takes a stream builds the DrvOp of its call and hands it to drv_capture
 * first: while the stream is capturing, the op becomes a node of the
 * capture's graph instead of running (a graph node holds the same record,
 * and cuGraphLaunch runs each node's op through the entry point it came
 * from, on the launch stream). The op's pointers are the caller's: a kernel
 * op's argument values are copied when it is captured. A new entry point
 * that takes a stream (a 2D/3D copy, cuLaunchKernelEx) builds its DrvOp the
 * same way (a CUDA_MEMCPY3D for any copy) and calls drv_capture first. */
typedef enum DrvOpKind {
  DRV_OP_EMPTY, DRV_OP_KERNEL, DRV_OP_COPY, DRV_OP_SET, DRV_OP_HOST, DRV_OP_EVENT_RECORD,
  DRV_OP_EVENT_WAIT, DRV_OP_GRAPH
} DrvOpKind;

typedef struct DrvOp {
  DrvOpKind kind;
  union {
    struct {
      CUfunction f;
      unsigned grid[3], block[3], shared;
      void **params, **extra;     /* as cuLaunchKernel takes them */
      /* the launch attributes a node keeps (cuLaunchKernelEx's, a
         cooperative launch's, cuGraphKernelNodeSetAttribute's) */
      bool cooperative, has_cluster;
      unsigned cluster[3];
    } kernel;
    CUDA_MEMCPY3D copy;           /* host, device or unified operands */
    CUDA_MEMSET_NODE_PARAMS set;
    CUDA_HOST_NODE_PARAMS host;
    CUevent event;                /* EVENT_RECORD, EVENT_WAIT */
    struct CUgraphExec_st *graph; /* GRAPH: a child graph's ops, in order */
  } u;
} DrvOp;

/* The hook, called at the top of every entry point that takes a stream (s
 * already checked by drv_stream_ctx). Returns true when the call is done,
 * with its result in *r: recorded into s's capture (CUDA_SUCCESS), refused
 * because of a capture (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED; for the
 * legacy stream while a blocking stream of its context captures,
 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, which invalidates that capture), or the
 * context's sticky error. false: nothing is capturing there; run the op now. */
bool drv_capture(CUstream s, const DrvOp *op, CUresult *r);
/* The same for a 1D copy (a NULL host pointer: that side is device memory)
 * and a 1D set of n elements of elem_size bytes. */
bool drv_capture_copy(CUstream s, CUdeviceptr dst_d, void *dst_h, CUdeviceptr src_d, const void *src_h,
                      size_t bytes, CUresult *r);
bool drv_capture_set(CUstream s, CUdeviceptr dst, unsigned value, unsigned elem_size, size_t n, CUresult *r);
/* For calls that capture forbids (documented as "potentially unsafe":
 * cuCtxSynchronize ...): CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, invalidating
 * the captures that forbid it, when the calling thread's capture mode and
 * the captures in progress forbid it (cuThreadExchangeStreamCaptureMode);
 * else CUDA_SUCCESS. */
CUresult drv_capture_unsafe(void);
/* The stream and event side of capture, for stream.c:
 * - drv_capture_sync: whether s may be synchronized or queried (or take a
 *   stream callback): CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED while it
 *   captures, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT for the legacy stream while
 *   a blocking stream captures (each invalidates that capture), else
 *   CUDA_SUCCESS;
 * - drv_capture_stream_gone: s is being destroyed (it leaves its capture;
 *   the origin's capture ends);
 * - drv_capture_event: the record of e on s (wait: s's wait on e, flags the
 *   CU_EVENT_RECORD/WAIT_EXTERNAL flag) as capture sees it; as drv_capture,
 *   true when done (*r) and false when the caller is to do it now;
 * - drv_event_captured: whether e was last recorded in a capture;
 * - drv_capture_event_gone: e is being destroyed. */
CUresult drv_capture_sync(CUstream s);
void drv_capture_stream_gone(CUstream s);
bool drv_capture_event(CUstream s, CUevent e, unsigned flags, bool wait, CUresult *r);
bool drv_event_captured(CUevent e);
void drv_capture_event_gone(CUevent e);
/* Whether the calling thread is inside a host function or stream callback,
 * where CUDA calls are refused with CUDA_ERROR_NOT_PERMITTED (stream.c). */
extern _Thread_local bool drv_in_host_fn;
/* Runs fn(data) as a host function of stream order (flag set around it). */
void drv_run_host_fn(CUhostFn fn, void *data);

#endif
