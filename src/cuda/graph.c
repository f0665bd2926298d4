/* graph.c: operations, stream capture and graphs (CUDA driver API, "Graph
 * Management" and the capture calls of "Stream Management").
 *
 * One record, DrvOp (driver.h), describes every piece of work a stream can
 * hold: a kernel launch, a copy, a set, a host function, an event record or
 * wait, a child graph (its ops in order), nothing (an empty node). The entry points that take a stream build
 * the op of their call and give it to drv_capture first; while the stream
 * is capturing, the op becomes a node of the capture's graph (a kernel's
 * argument values are copied then, as the driver copies them at the call)
 * and nothing runs. A graph is a list of nodes in creation order, each with
 * the op and the nodes it depends on. cuGraphInstantiate orders the nodes
 * topologically (Kahn's algorithm, ready nodes in creation order; a cycle is
 * refused) and copies their ops; cuGraphLaunch runs them in that order
 * through the entry points they came from (cuLaunchKernel, the Async copies
 * and sets, ...), on the launch stream. Work is synchronous, so an order
 * consistent with the dependencies is all a graph needs.
 *
 * A capture sequence (DrvCapture) starts on one stream (its origin) and
 * grows to the streams that wait on events recorded in it (a fork); each
 * stream keeps the nodes its next captured node depends on. An event recorded
 * in a capturing stream remembers those nodes instead of a time. At
 * cuStreamEndCapture every other stream must have been joined back (its
 * last nodes are ancestors of the origin's), else CUDA_ERROR_STREAM_CAPTURE_UNJOINED.
 * A call that breaks the rules (synchronizing a capturing stream, using the
 * legacy stream while a blocking stream captures, waiting on an event from
 * outside the capture) fails and invalidates the capture: its later work
 * fails with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and cuStreamEndCapture
 * returns no graph.
 *
 * All capture and graph state is under one lock, never held while a host
 * function or another entry point runs. As cuda.h says, a graph object is
 * not to be used by two threads at once. Not implemented (stubs, or refused
 * by name): memory allocation, conditional and semaphore nodes, CUDA
 * arrays, capture of the per-thread default stream, kernel node attributes
 * other than the cluster dimension and cooperative (a kernel op keeps those
 * two, from a captured cuLaunchKernelEx or cuLaunchCooperativeKernel or
 * from cuGraphKernelNodeSetAttribute), cuGraphExecUpdate,
 * cuGraphChildGraphNodeGetGraph (a child graph node keeps its
 * graph's ops in order, as an executable graph does, not the graph).
 * A graph owns references to user objects (userobj.c); its clones,
 * executable graphs and child graph nodes own copies of them. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

struct CUgraphNode_st {
  uint32_t magic;
  CUgraph graph;
  size_t index;              /* in graph->nodes: creation order */
  DrvOp op;                  /* a kernel's params point into blob */
  void *blob;
  CUgraphNode *deps;         /* the nodes this one depends on */
  size_t ndeps, capdeps;
  CUgraphNode origin;        /* of a clone: the node it copies (compared only) */
};

struct CUgraph_st {
  uint32_t magic;
  CUgraphNode *nodes;
  size_t n, cap;
  struct DrvCapture *capture;   /* the capture writing into it, or NULL */
  CUgraph origin;               /* of a clone: the graph it copies (compared only) */
  DrvUserRefs refs;             /* user object references it owns (userobj.c) */
};

typedef struct ExecNode {
  CUgraphNode from;          /* compared, never dereferenced: may be gone */
  DrvOp op;
  void *blob;
} ExecNode;

struct CUgraphExec_st {
  uint32_t magic;
  ExecNode *nodes;           /* in a topological order */
  size_t n;
  DrvUserRefs refs;          /* its graph's user object references, retained again */
};

typedef struct DrvCapture {
  CUgraph graph;
  CUstream origin;
  CUstreamCaptureMode mode;
  pthread_t thread;          /* that began it */
  uint64_t id;
  bool invalidated;
  bool own_graph;            /* made by the capture (not cuStreamBeginCaptureToGraph's) */
  CUstream *streams;         /* every stream in it, origin first */
  size_t nstreams, capstreams;
  struct DrvCapture *next;
} DrvCapture;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static DrvCapture *captures;           /* in progress */
static atomic_int ncaptures;           /* their number: the hook's fast path */
static uint64_t next_capture_id = 1;
static _Thread_local CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

static CUresult exec_clone(CUgraphExec src, CUgraphExec *out);
static CUresult edges_check(const CUgraphEdgeData *edgeData, size_t n);
static void exec_discard(CUgraphExec e);
static CUresult exec_run(CUgraphExec e, CUstream s);

/* Frees what an op owns (its blob: argument values, or a child graph's ops). */
static void blob_free(const DrvOp *op, void *blob) {
  if (!blob) return;
  if (op->kind == DRV_OP_GRAPH) exec_discard(blob);
  else free(blob);
}

static bool is_legacy(CUstream s) { return s == NULL || s == CU_STREAM_LEGACY; }
static bool is_default(CUstream s) { return is_legacy(s) || s == CU_STREAM_PER_THREAD; }
/* Stream 0 of a per-thread flavour (_ptsz). */
static CUstream per_thread(CUstream s) { return s ? s : CU_STREAM_PER_THREAD; }

/* Appends x (size bytes) to the array whose pointer is at v (n used, cap
 * allocated); false: out of memory. The pointer is read and written as
 * bytes, whatever its type (object pointers share one representation on
 * every target of ptxvm). */
static bool push(void *v, size_t *n, size_t *cap, const void *x, size_t size) {
  char *p;
  memcpy(&p, v, sizeof p);
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 4;
    char *q = realloc(p, c * size);
    if (!q) return false;
    p = q;
    memcpy(v, &p, sizeof p);
    *cap = c;
  }
  memcpy(p + *n * size, x, size);
  (*n)++;
  return true;
}

/* ---- ops: copies and execution ---- */

/* The extra buffer of a launch (CU_LAUNCH_PARAM_BUFFER_POINTER/_SIZE). */
static CUresult extra_buffer(void **extra, const void **buf, size_t *size) {
  *buf = NULL;
  *size = 0;
  for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) *buf = extra[i + 1];
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) *size = *(size_t *)extra[i + 1];
    else return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* A kernel op whose argument values live in *blob (the values at each
 * parameter's offset, then the pointer array), as the launch would read them. */
static CUresult kernel_clone(const DrvOp *src, DrvOp *dst, void **blob) {
  CUfunction f = src->u.kernel.f;
  if (!drv_live_function(f)) return CUDA_ERROR_INVALID_VALUE;
  void **params = src->u.kernel.params, **extra = src->u.kernel.extra;
  if (params && extra) return CUDA_ERROR_INVALID_VALUE;
  int n = f->info.nparams;
  size_t bytes = f->info.param_bytes, vals = (bytes + 15) & ~(size_t)15;
  const void *buf = NULL;
  size_t bufsize = 0;
  if (extra) {
    CUresult r = extra_buffer(extra, &buf, &bufsize);
    if (r != CUDA_SUCCESS) return r;
    if (n && (!buf || bufsize < bytes)) return CUDA_ERROR_INVALID_VALUE;
  } else if (n && !params) return CUDA_ERROR_INVALID_VALUE;
  char *b = calloc(1, vals + (size_t)n * sizeof(void *) + 1);
  if (!b) return CUDA_ERROR_OUT_OF_MEMORY;
  void **ptrs = (void **)(b + vals);
  if (buf) memcpy(b, buf, bytes);
  CUcontext c;
  CUresult r = drv_enter(f->mod->ctx, &c);   /* ptxvm calls on the context need its lock */
  if (r != CUDA_SUCCESS) {
    free(b);
    return r;
  }
  for (int i = 0; i < n && r == CUDA_SUCCESS; i++) {
    ptxvm_param_info pi;
    if (ptxvm_function_get_param(f->vm, 0, i, &pi) != PTXVM_SUCCESS || pi.offset + pi.size > bytes)
      r = CUDA_ERROR_INVALID_VALUE;
    else {
      if (!buf) memcpy(b + pi.offset, params[i], pi.size);
      ptrs[i] = b + pi.offset;
    }
  }
  drv_leave(c);
  if (r != CUDA_SUCCESS) {
    free(b);
    return r;
  }
  *dst = *src;
  dst->u.kernel.params = ptrs;
  dst->u.kernel.extra = NULL;
  *blob = b;
  return CUDA_SUCCESS;
}

/* A copy's operand kinds: host, device, or unified (either); CUDA arrays are
 * not implemented. */
static CUresult copy_check(const CUDA_MEMCPY3D *p) {
  CUmemorytype t[2] = {p->srcMemoryType, p->dstMemoryType};
  for (int i = 0; i < 2; i++) {
    if (t[i] == CU_MEMORYTYPE_ARRAY) {
      drv_say("a copy of a CUDA array is not implemented");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (t[i] != CU_MEMORYTYPE_HOST && t[i] != CU_MEMORYTYPE_DEVICE && t[i] != CU_MEMORYTYPE_UNIFIED)
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1) return CUDA_ERROR_INVALID_VALUE;
  size_t h = p->Height ? p->Height : 1, d = p->Depth ? p->Depth : 1;
  if (h > 1 || d > 1) {
    if (p->srcPitch < p->srcXInBytes + p->WidthInBytes || p->dstPitch < p->dstXInBytes + p->WidthInBytes)
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (d > 1 && (p->srcHeight < p->srcY + h || p->dstHeight < p->dstY + h)) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

static CUresult set_check(const CUDA_MEMSET_NODE_PARAMS *p) {
  unsigned e = p->elementSize;
  if (e != 1 && e != 2 && e != 4) return CUDA_ERROR_INVALID_VALUE;
  if (p->height > 1 && p->pitch < p->width * e) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

/* A copy of *src that owns what it points to (the kernel's arguments). */
static CUresult op_clone(const DrvOp *src, DrvOp *dst, void **blob) {
  *blob = NULL;
  switch (src->kind) {
  case DRV_OP_KERNEL: return kernel_clone(src, dst, blob);
  case DRV_OP_COPY: {
    CUresult r = copy_check(&src->u.copy);
    if (r != CUDA_SUCCESS) return r;
    break;
  }
  case DRV_OP_SET: {
    CUresult r = set_check(&src->u.set);
    if (r != CUDA_SUCCESS) return r;
    break;
  }
  case DRV_OP_HOST:
    if (!src->u.host.fn) return CUDA_ERROR_INVALID_VALUE;
    break;
  case DRV_OP_EVENT_RECORD:
  case DRV_OP_EVENT_WAIT:
    if (!drv_live(src->u.event, MAGIC_EVENT)) return CUDA_ERROR_INVALID_VALUE;
    break;
  case DRV_OP_GRAPH: {
    CUgraphExec child;
    CUresult r = exec_clone(src->u.graph, &child);
    if (r != CUDA_SUCCESS) return r;
    *dst = *src;
    dst->u.graph = child;
    *blob = child;
    return CUDA_SUCCESS;
  }
  case DRV_OP_EMPTY: break;
  }
  *dst = *src;
  return CUDA_SUCCESS;
}

/* One operand address of a copy at byte offset off: a host pointer (*host)
 * or a device address. A unified address is device memory if an allocation
 * holds it. */
static void *operand(CUmemorytype t, const void *host, CUdeviceptr dev, size_t off, bool *is_host) {
  if (t == CU_MEMORYTYPE_UNIFIED) {
    CUdeviceptr base;
    size_t size;
    t = cuMemGetAddressRange_v2(&base, &size, dev) == CUDA_SUCCESS ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    host = (const void *)(uintptr_t)dev;
  }
  *is_host = t == CU_MEMORYTYPE_HOST;
  return *is_host ? (char *)(uintptr_t)host + off : (void *)(uintptr_t)(dev + off);
}

/* A 3D copy, row by row, through the 1D Async copies. */
static CUresult copy_run(const CUDA_MEMCPY3D *p, CUstream s) {
  size_t h = p->Height ? p->Height : 1, d = p->Depth ? p->Depth : 1, w = p->WidthInBytes;
  for (size_t z = 0; z < d && w; z++)
    for (size_t y = 0; y < h; y++) {
      size_t so = p->srcXInBytes + (p->srcY + y) * p->srcPitch + (p->srcZ + z) * p->srcPitch * p->srcHeight;
      size_t doff = p->dstXInBytes + (p->dstY + y) * p->dstPitch + (p->dstZ + z) * p->dstPitch * p->dstHeight;
      bool sh, dh;
      void *src = operand(p->srcMemoryType, p->srcHost, p->srcDevice, so, &sh);
      void *dst = operand(p->dstMemoryType, p->dstHost, p->dstDevice, doff, &dh);
      CUresult r = CUDA_SUCCESS;
      if (sh && dh) memmove(dst, src, w);
      else if (sh) r = cuMemcpyHtoDAsync_v2((CUdeviceptr)(uintptr_t)dst, src, w, s);
      else if (dh) r = cuMemcpyDtoHAsync_v2(dst, (CUdeviceptr)(uintptr_t)src, w, s);
      else r = cuMemcpyDtoDAsync_v2((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, w, s);
      if (r != CUDA_SUCCESS) return r;
    }
  return CUDA_SUCCESS;
}

static CUresult set_run(const CUDA_MEMSET_NODE_PARAMS *p, CUstream s) {
  for (size_t y = 0; y < (p->height ? p->height : 1); y++) {
    CUdeviceptr dst = p->dst + y * p->pitch;
    CUresult r = p->elementSize == 1   ? cuMemsetD8Async(dst, (unsigned char)p->value, p->width, s)
                 : p->elementSize == 2 ? cuMemsetD16Async(dst, (unsigned short)p->value, p->width, s)
                                       : cuMemsetD32Async(dst, p->value, p->width, s);
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}

/* Runs an op now, on stream s (not capturing), through its entry point. */
static CUresult op_run(const DrvOp *op, CUstream s) {
  switch (op->kind) {
  case DRV_OP_KERNEL: {
    const unsigned *g = op->u.kernel.grid, *b = op->u.kernel.block, *c = op->u.kernel.cluster;
    LaunchRequest q = {.grid = {g[0], g[1], g[2]}, .block = {b[0], b[1], b[2]}, .dyn = op->u.kernel.shared,
                       .stream = s, .has_cluster = op->u.kernel.has_cluster,
                       .cooperative = op->u.kernel.cooperative, .cluster = {c[0], c[1], c[2]}};
    return drv_launch(op->u.kernel.f, &q, op->u.kernel.params, NULL);
  }
  case DRV_OP_COPY: return copy_run(&op->u.copy, s);
  case DRV_OP_SET: return set_run(&op->u.set, s);
  case DRV_OP_HOST: drv_run_host_fn(op->u.host.fn, op->u.host.userData); return CUDA_SUCCESS;
  case DRV_OP_EVENT_RECORD: return cuEventRecord(op->u.event, s);
  case DRV_OP_GRAPH: return exec_run(op->u.graph, s);
  case DRV_OP_EVENT_WAIT:    /* everything before it has run */
  case DRV_OP_EMPTY: return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/* The op of a kernel node's parameters. */
static DrvOp kernel_op(const CUDA_KERNEL_NODE_PARAMS *p) {
  return (DrvOp){DRV_OP_KERNEL, .u.kernel = {p->func, {p->gridDimX, p->gridDimY, p->gridDimZ},
                                             {p->blockDimX, p->blockDimY, p->blockDimZ}, p->sharedMemBytes,
                                             p->kernelParams, p->extra, false, false, {0, 0, 0}}};
}

/* ---- graphs and nodes (under the lock) ---- */

static bool live_graph(CUgraph g) { return drv_live(g, MAGIC_GRAPH); }
static bool live_node(CUgraphNode n) { return drv_live(n, MAGIC_NODE); }

/* Checks a dependency list: live nodes of g, no duplicates. */
static CUresult deps_check(CUgraph g, const CUgraphNode *deps, size_t n) {
  if (n && !deps) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; i++) {
    if (!live_node(deps[i]) || deps[i]->graph != g) return CUDA_ERROR_INVALID_VALUE;
    for (size_t j = 0; j < i; j++)
      if (deps[j] == deps[i]) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static void node_free(CUgraphNode n) {
  drv_handle_remove(n);
  blob_free(&n->op, n->blob);
  free(n->deps);
  free(n);
}

/* Adds a node owning op (already cloned, with its blob) to g after deps
 * (checked); on failure frees the blob. */
static CUresult node_insert(CUgraph g, const CUgraphNode *deps, size_t ndeps, const DrvOp *op, void *blob,
                            CUgraphNode *out) {
  CUgraphNode n = calloc(1, sizeof *n);
  if (n && ndeps) n->deps = malloc(ndeps * sizeof *n->deps);
  if (!n || (ndeps && !n->deps) || !drv_handle_add(n)) {
    if (n) free(n->deps);
    free(n);
    blob_free(op, blob);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  n->magic = MAGIC_NODE;
  n->graph = g;
  n->op = *op;
  n->blob = blob;
  if (ndeps) memcpy(n->deps, deps, ndeps * sizeof *deps);
  n->ndeps = n->capdeps = ndeps;
  n->index = g->n;
  if (!push(&g->nodes, &g->n, &g->cap, &n, sizeof n)) {
    node_free(n);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *out = n;
  return CUDA_SUCCESS;
}

/* The common path of every cuGraphAdd*Node. */
static CUresult node_add(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, const DrvOp *op) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  DrvOp copy;
  void *blob;
  r = op_clone(op, &copy, &blob);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  r = live_graph(g) ? deps_check(g, deps, ndeps) : CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) r = node_insert(g, deps, ndeps, &copy, blob, out);
  else blob_free(&copy, blob);
  pthread_mutex_unlock(&lock);
  return r;
}

static void graph_free(CUgraph g) {
  for (size_t i = 0; i < g->n; i++) node_free(g->nodes[i]);
  drv_refs_clear(&g->refs);
  drv_handle_remove(g);
  free(g->nodes);
  free(g);
}

/* ---- capture sequences (under the lock) ---- */

static DrvCapture *capture_by_id(uint64_t id) {
  for (DrvCapture *c = captures; c; c = c->next)
    if (c->id == id) return c;
  return NULL;
}

/* s's capture dependencies become the n nodes deps. */
static bool set_deps(CUstream s, const CUgraphNode *deps, size_t n) {
  if (n > s->capdeps) {
    CUgraphNode *d = realloc(s->deps, n * sizeof *d);
    if (!d) return false;
    s->deps = d;
    s->capdeps = n;
  }
  if (n) memcpy(s->deps, deps, n * sizeof *deps);
  s->ndeps = n;
  return true;
}

static void leave_capture(CUstream s) {
  s->capture = NULL;
  free(s->deps);
  s->deps = NULL;
  s->ndeps = s->capdeps = 0;
}

/* Ends capture c: its streams leave it; its graph is freed unless kept. */
static void capture_end(DrvCapture *c, bool keep_graph) {
  for (DrvCapture **p = &captures; *p; p = &(*p)->next)
    if (*p == c) {
      *p = c->next;
      break;
    }
  atomic_fetch_sub(&ncaptures, 1);
  for (size_t i = 0; i < c->nstreams; i++) leave_capture(c->streams[i]);
  c->graph->capture = NULL;
  if (!keep_graph && c->own_graph) graph_free(c->graph);
  free(c->streams);
  free(c);
}

/* Invalidates every capture that the legacy stream of the calling thread's
 * context would implicitly wait for (one holding a blocking stream of that
 * context); whether there was one. */
static bool legacy_conflict(bool invalidate) {
  CUcontext cur = drv_current();
  bool hit = false;
  for (DrvCapture *c = captures; c; c = c->next)
    for (size_t i = 0; i < c->nstreams; i++)
      if (c->streams[i]->ctx == cur && !(c->streams[i]->flags & CU_STREAM_NON_BLOCKING)) {
        if (invalidate) c->invalidated = true;
        hit = true;
        break;
      }
  return hit;
}

bool drv_capture(CUstream s, const DrvOp *op, CUresult *r) {
  if (atomic_load(&ncaptures) == 0 || s == CU_STREAM_PER_THREAD) return false;
  pthread_mutex_lock(&lock);
  if (is_legacy(s)) {
    bool hit = legacy_conflict(true);
    pthread_mutex_unlock(&lock);
    if (hit) *r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    return hit;
  }
  DrvCapture *c = s->capture;
  uint64_t id = c ? c->id : 0;
  bool invalid = c && c->invalidated;
  pthread_mutex_unlock(&lock);
  if (!c) return false;
  if (invalid) {
    *r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    return true;
  }
  CUcontext ctx;
  *r = drv_enter_work(s->ctx, &ctx);   /* a sticky error is the answer, as for any call */
  if (*r != CUDA_SUCCESS) return true;
  drv_leave(ctx);
  DrvOp copy;
  void *blob = NULL;
  *r = op_clone(op, &copy, &blob);
  pthread_mutex_lock(&lock);
  c = s->capture;
  if (!c || c->id != id) {   /* ended meanwhile, by another thread */
    pthread_mutex_unlock(&lock);
    blob_free(&copy, blob);
    *r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    return true;
  }
  CUgraphNode n;
  if (*r == CUDA_SUCCESS) *r = node_insert(c->graph, s->deps, s->ndeps, &copy, blob, &n);
  if (*r == CUDA_SUCCESS && !set_deps(s, &n, 1)) *r = CUDA_ERROR_OUT_OF_MEMORY;
  if (*r != CUDA_SUCCESS) c->invalidated = true;   /* an error in capture ends its use */
  pthread_mutex_unlock(&lock);
  return true;
}

bool drv_capture_copy(CUstream s, CUdeviceptr dst_d, void *dst_h, CUdeviceptr src_d, const void *src_h,
                      size_t bytes, CUresult *r) {
  DrvOp op = {DRV_OP_COPY, .u.copy = {
    .srcMemoryType = src_h ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE, .srcHost = src_h, .srcDevice = src_d,
    .dstMemoryType = dst_h ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE, .dstHost = dst_h, .dstDevice = dst_d,
    .WidthInBytes = bytes, .Height = 1, .Depth = 1}};
  return drv_capture(s, &op, r);
}

bool drv_capture_set(CUstream s, CUdeviceptr dst, unsigned value, unsigned elem_size, size_t n, CUresult *r) {
  DrvOp op = {DRV_OP_SET, .u.set = {.dst = dst, .value = value, .elementSize = elem_size, .width = n, .height = 1}};
  return drv_capture(s, &op, r);
}

/* Whether the calling thread may make "potentially unsafe" calls
 * (cuThreadExchangeStreamCaptureMode); if not, the captures that forbid it
 * are invalidated. */
CUresult drv_capture_unsafe(void) {
  if (atomic_load(&ncaptures) == 0 || thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_SUCCESS;
  bool hit = false;
  pthread_t self = pthread_self();
  pthread_mutex_lock(&lock);
  for (DrvCapture *c = captures; c; c = c->next) {
    bool mine = pthread_equal(c->thread, self);
    if ((mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
        (!mine && thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
      c->invalidated = true;
      hit = true;
    }
  }
  pthread_mutex_unlock(&lock);
  return hit ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

CUresult drv_capture_sync(CUstream s) {
  if (atomic_load(&ncaptures) == 0 || s == CU_STREAM_PER_THREAD) return CUDA_SUCCESS;
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&lock);
  if (is_legacy(s)) {
    if (legacy_conflict(true)) r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  } else if (s->capture) {
    s->capture->invalidated = true;
    r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

void drv_capture_stream_gone(CUstream s) {
  pthread_mutex_lock(&lock);
  DrvCapture *c = s->capture;
  if (c && c->origin == s) capture_end(c, false);   /* nobody can end it now */
  else if (c) {
    c->invalidated = true;   /* its work can no longer be joined */
    for (size_t i = 0; i < c->nstreams; i++)
      if (c->streams[i] == s) c->streams[i] = c->streams[--c->nstreams];
    leave_capture(s);
  }
  pthread_mutex_unlock(&lock);
}

/* The event's capture state (under the lock): dropped, or the given nodes. */
static bool event_set(CUevent e, uint64_t id, const CUgraphNode *nodes, size_t n) {
  CUgraphNode *copy = NULL;
  if (n && !(copy = malloc(n * sizeof *copy))) return false;
  if (n) memcpy(copy, nodes, n * sizeof *copy);
  free(e->nodes);
  e->nodes = copy;
  e->nnodes = n;
  e->capture_id = id;
  return true;
}

void drv_capture_event_gone(CUevent e) {
  pthread_mutex_lock(&lock);
  event_set(e, 0, NULL, 0);
  pthread_mutex_unlock(&lock);
}

bool drv_event_captured(CUevent e) {
  pthread_mutex_lock(&lock);
  bool captured = e->capture_id != 0;
  pthread_mutex_unlock(&lock);
  return captured;
}

/* s waits on e, recorded in capture ec (NULL: ended), under the lock. */
static CUresult wait_captured(CUstream s, CUevent e, DrvCapture *ec) {
  DrvCapture *sc = is_default(s) ? NULL : s->capture;
  if (!ec) return CUDA_ERROR_CAPTURED_EVENT;
  if (sc && sc != ec) {
    sc->invalidated = ec->invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_MERGE;
  }
  if (sc) {   /* a join: the union of both dependency sets */
    for (size_t i = 0; i < e->nnodes; i++) {
      bool have = false;
      for (size_t j = 0; j < s->ndeps && !have; j++) have = s->deps[j] == e->nodes[i];
      if (!have && !push(&s->deps, &s->ndeps, &s->capdeps, &e->nodes[i], sizeof e->nodes[i]))
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
  }
  if (s == CU_STREAM_PER_THREAD) {
    drv_say("cuStreamWaitEvent: capture of the per-thread default stream is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (is_legacy(s)) {   /* the legacy stream cannot be captured */
    ec->invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  }
  /* a fork: s joins the capture after the event's nodes */
  if (!push(&ec->streams, &ec->nstreams, &ec->capstreams, &s, sizeof s)) return CUDA_ERROR_OUT_OF_MEMORY;
  s->capture = ec;
  if (!set_deps(s, e->nodes, e->nnodes)) {
    ec->nstreams--;
    leave_capture(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  return CUDA_SUCCESS;
}

bool drv_capture_event(CUstream s, CUevent e, unsigned flags, bool wait, CUresult *r) {
  *r = CUDA_SUCCESS;
  pthread_mutex_lock(&lock);
  bool captured = e->capture_id != 0;
  if (atomic_load(&ncaptures) == 0 && !captured) {
    pthread_mutex_unlock(&lock);
    if (flags) *r = CUDA_ERROR_INVALID_VALUE;   /* the EXTERNAL flags are for capture only */
    return flags != 0;
  }
  DrvCapture *c = is_default(s) ? NULL : s->capture;
  bool done = true;
  if (c && c->invalidated) *r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  else if (!c && is_legacy(s) && legacy_conflict(true)) *r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  else if (wait && captured) *r = wait_captured(s, e, capture_by_id(e->capture_id));
  else if (c && flags) done = false;   /* an external event node, added below */
  else if (c && !wait) {
    if (!event_set(e, c->id, s->deps, s->ndeps)) *r = CUDA_ERROR_OUT_OF_MEMORY;
  } else if (c && e->recorded) {   /* a wait on work outside the capture */
    c->invalidated = true;
    *r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
  } else if (!c && flags) *r = CUDA_ERROR_INVALID_VALUE;
  else if (!c && !wait) {
    event_set(e, 0, NULL, 0);   /* recorded now, outside any capture */
    done = false;
  } else done = c != NULL;   /* a wait on an event never recorded: nothing to wait for */
  pthread_mutex_unlock(&lock);
  if (done) return true;
  if (!c) return false;
  DrvOp op = {wait ? DRV_OP_EVENT_WAIT : DRV_OP_EVENT_RECORD, .u.event = e};
  return drv_capture(s, &op, r);
}

/* ---- cuStream*Capture* ---- */

/* Begins a capture on s into a new graph, or into graph `into` after the
 * nodes deps. */
static CUresult begin_capture(CUstream s, CUstreamCaptureMode mode, CUgraph into, const CUgraphNode *deps,
                              size_t ndeps) {
  CUcontext sc, c;
  CUresult r = drv_stream_ctx(s, &sc);
  if (r != CUDA_SUCCESS) return r;
  if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
  if (s == CU_STREAM_PER_THREAD) {
    drv_say("cuStreamBeginCapture: capture of the per-thread default stream is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (is_legacy(s)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  r = drv_enter_work(sc, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  DrvCapture *cap = calloc(1, sizeof *cap);
  CUgraph g = into ? into : calloc(1, sizeof *g);
  if (!cap || !g || (!into && !drv_handle_add(g))) {
    free(cap);
    if (!into) free(g);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (!into) g->magic = MAGIC_GRAPH;
  *cap = (DrvCapture){.graph = g, .origin = s, .mode = mode, .thread = pthread_self(), .own_graph = !into};
  pthread_mutex_lock(&lock);
  if (s->capture) r = CUDA_ERROR_ILLEGAL_STATE;
  else if (into && (!live_graph(into) || into->capture)) r = CUDA_ERROR_INVALID_VALUE;
  else if (into) r = deps_check(into, deps, ndeps);
  if (r == CUDA_SUCCESS && (!push(&cap->streams, &cap->nstreams, &cap->capstreams, &s, sizeof s) ||
                            !set_deps(s, deps, into ? ndeps : 0)))
    r = CUDA_ERROR_OUT_OF_MEMORY;
  if (r == CUDA_SUCCESS) {
    cap->id = next_capture_id++;
    cap->next = captures;
    captures = cap;
    atomic_fetch_add(&ncaptures, 1);
    s->capture = cap;
    g->capture = cap;
  }
  pthread_mutex_unlock(&lock);
  if (r != CUDA_SUCCESS) {
    if (!into) {
      drv_handle_remove(g);
      free(g);
    }
    free(cap->streams);
    free(cap);
  }
  return r;
}

CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
  return begin_capture(hStream, mode, NULL, NULL, 0);
}

/* The per-thread flavour: stream 0 is the per-thread default stream there. */
CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode);
CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) {
  return begin_capture(per_thread(hStream), mode, NULL, NULL, 0);
}

/* CUDA 10.0's form, before capture modes: the global mode. */
#undef cuStreamBeginCapture
CUresult cuStreamBeginCapture(CUstream hStream);
CUresult cuStreamBeginCapture(CUstream hStream) {
  return begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL, NULL, 0);
}
CUresult cuStreamBeginCapture_ptsz(CUstream hStream);
CUresult cuStreamBeginCapture_ptsz(CUstream hStream) {
  return cuStreamBeginCapture_v2_ptsz(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

/* Capture into an existing graph, after the given nodes; cuStreamEndCapture
 * returns that graph (a failed capture leaves the nodes it added). */
CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                     const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                     CUstreamCaptureMode mode) {
  if (!hGraph) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = edges_check(dependencyData, numDependencies);
  return r != CUDA_SUCCESS ? r : begin_capture(hStream, mode, hGraph, dependencies, numDependencies);
}

CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                          const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                          CUstreamCaptureMode mode);
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                          const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                          CUstreamCaptureMode mode) {
  return cuStreamBeginCaptureToGraph(per_thread(hStream), hGraph, dependencies, dependencyData, numDependencies,
                                     mode);
}

/* Adds nodes of the capture's graph to s's dependency set, or replaces it. */
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                              const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                              unsigned int flags) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES) return CUDA_ERROR_INVALID_VALUE;
  r = edges_check(dependencyData, numDependencies);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  DrvCapture *c = is_default(hStream) ? NULL : hStream->capture;
  if (!c) r = CUDA_ERROR_ILLEGAL_STATE;
  else r = deps_check(c->graph, dependencies, numDependencies);
  if (r == CUDA_SUCCESS && flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES) {
    if (!set_deps(hStream, dependencies, numDependencies)) r = CUDA_ERROR_OUT_OF_MEMORY;
  } else
    for (size_t i = 0; r == CUDA_SUCCESS && i < numDependencies; i++) {
      bool have = false;
      for (size_t j = 0; j < hStream->ndeps && !have; j++) have = hStream->deps[j] == dependencies[i];
      if (!have && !push(&hStream->deps, &hStream->ndeps, &hStream->capdeps, &dependencies[i], sizeof *dependencies))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
  pthread_mutex_unlock(&lock);
  return r;
}

#undef cuStreamUpdateCaptureDependencies
CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies, size_t numDependencies,
                                           unsigned int flags);
CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies, size_t numDependencies,
                                           unsigned int flags) {
  return cuStreamUpdateCaptureDependencies_v2(hStream, dependencies, NULL, numDependencies, flags);
}

CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies, size_t numDependencies,
                                                unsigned int flags);
CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies, size_t numDependencies,
                                                unsigned int flags) {
  return cuStreamUpdateCaptureDependencies_v2(per_thread(hStream), dependencies, NULL, numDependencies, flags);
}
CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                   const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                                   unsigned int flags);
CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                   const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                                   unsigned int flags) {
  return cuStreamUpdateCaptureDependencies_v2(per_thread(hStream), dependencies, dependencyData, numDependencies,
                                              flags);
}

/* Every node another stream of c would depend on next is an ancestor of
 * (or one of) the origin's: marks the origin's nodes and their ancestors
 * (depth first, an explicit stack: captured chains can be long), then looks. */
static CUresult joined(DrvCapture *c) {
  size_t n = c->graph->n, top = 0;
  bool *seen = calloc(n + 1, 1);
  CUgraphNode *stack = malloc((n + 1) * sizeof *stack);
  CUresult r = seen && stack ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
  for (size_t j = 0; r == CUDA_SUCCESS && j < c->origin->ndeps; j++)
    if (!seen[c->origin->deps[j]->index]) {
      seen[c->origin->deps[j]->index] = true;
      stack[top++] = c->origin->deps[j];
    }
  while (r == CUDA_SUCCESS && top) {
    CUgraphNode u = stack[--top];
    for (size_t k = 0; k < u->ndeps; k++)
      if (!seen[u->deps[k]->index]) {
        seen[u->deps[k]->index] = true;
        stack[top++] = u->deps[k];
      }
  }
  for (size_t i = 1; i < c->nstreams && r == CUDA_SUCCESS; i++)
    for (size_t k = 0; k < c->streams[i]->ndeps; k++)
      if (!seen[c->streams[i]->deps[k]->index]) r = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
  free(seen);
  free(stack);
  return r;
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!phGraph) return CUDA_ERROR_INVALID_VALUE;
  if (is_default(hStream)) return CUDA_ERROR_ILLEGAL_STATE;
  pthread_mutex_lock(&lock);
  DrvCapture *c = hStream->capture;
  if (!c) r = CUDA_ERROR_ILLEGAL_STATE;
  else if (c->origin != hStream) r = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self()))
    r = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  else {
    if (c->invalidated) r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    else r = joined(c);
    *phGraph = r == CUDA_SUCCESS ? c->graph : NULL;
    capture_end(c, r == CUDA_SUCCESS);
  }
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph);
CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) {
  return cuStreamEndCapture(per_thread(hStream), phGraph);
}

/* Capture state of s; the legacy stream cannot capture, and asking about it
 * while a blocking stream captures is CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (the
 * capture goes on). */
static CUresult capture_info(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                             const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *ndeps) {
  static _Thread_local CUgraphEdgeData *zero_edges;   /* default edge data, as many as asked */
  static _Thread_local size_t nzero;
  CUcontext sc;
  CUresult r = drv_stream_ctx(s, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!status || (edges && !deps)) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  DrvCapture *c = is_default(s) ? NULL : s->capture;
  if (is_legacy(s) && legacy_conflict(false)) r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  *status = !c ? CU_STREAM_CAPTURE_STATUS_NONE : c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                               : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (r == CUDA_SUCCESS && *status == CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    if (edges && s->ndeps > nzero) {
      CUgraphEdgeData *z = calloc(s->ndeps, sizeof *z);
      if (!z) r = CUDA_ERROR_OUT_OF_MEMORY;
      else {
        free(zero_edges);
        zero_edges = z;
        nzero = s->ndeps;
      }
    }
    if (id) *id = c->id;
    if (graph) *graph = c->graph;
    if (deps) *deps = s->deps;
    if (edges) *edges = zero_edges;
    if (ndeps) *ndeps = s->ndeps;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus) {
  return capture_info(hStream, captureStatus, NULL, NULL, NULL, NULL, NULL);
}

CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
                                   CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                   const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out) {
  return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                      numDependencies_out);
}

/* CUDA 10.1's and 11.3's forms, without edge data. */
#undef cuStreamGetCaptureInfo
CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out);
CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out) {
  return capture_info(hStream, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}
CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
                                   CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                   size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
                                   CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                   size_t *numDependencies_out) {
  return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out);
}

CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus);
CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus) {
  return capture_info(per_thread(hStream), captureStatus, NULL, NULL, NULL, NULL, NULL);
}
CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out);
CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out) {
  return capture_info(per_thread(hStream), captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out, size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out, size_t *numDependencies_out) {
  return capture_info(per_thread(hStream), captureStatus_out, id_out, graph_out, dependencies_out, NULL,
                      numDependencies_out);
}
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out,
                                        size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out,
                                        size_t *numDependencies_out) {
  return capture_info(per_thread(hStream), captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                      numDependencies_out);
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
  CUstreamCaptureMode old = thread_mode;
  thread_mode = *mode;
  *mode = old;
  return CUDA_SUCCESS;
}

/* ---- cuGraph*: building ---- */

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!phGraph || flags) return CUDA_ERROR_INVALID_VALUE;
  CUgraph g = calloc(1, sizeof *g);
  if (!g || !drv_handle_add(g)) {
    free(g);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  g->magic = MAGIC_GRAPH;
  *phGraph = g;
  return CUDA_SUCCESS;
}

/* A graph being captured into cannot be destroyed (cuStreamGetCaptureInfo). */
CUresult cuGraphDestroy(CUgraph hGraph) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  r = !live_graph(hGraph) || hGraph->capture ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
  if (r == CUDA_SUCCESS) graph_free(hGraph);
  pthread_mutex_unlock(&lock);
  drv_user_objects_reap();
  return r;
}

/* The graph's references to user objects (userobj.c). */
CUresult cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count, unsigned int flags) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (flags & ~(unsigned)CU_GRAPH_USER_OBJECT_MOVE) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  r = live_graph(graph) ? drv_refs_add(&graph->refs, object, count, flags != 0) : CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuGraphReleaseUserObject(CUgraph graph, CUuserObject object, unsigned int count) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  r = live_graph(graph) ? drv_refs_remove(&graph->refs, object, count) : CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  drv_user_objects_reap();
  return r;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                 size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  if (!nodeParams->func && nodeParams->kern) {
    drv_say("cuGraphAddKernelNode: a CUkernel (library kernel) is not implemented; give a CUfunction");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  DrvOp op = kernel_op(nodeParams);
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

/* CUDA 10.0's form: the parameters without kern and ctx. */
#undef cuGraphAddKernelNode
CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUDA_KERNEL_NODE_PARAMS p;
  memcpy(&p, nodeParams, sizeof *nodeParams);
  p.kern = NULL;
  p.ctx = NULL;
  return cuGraphAddKernelNode_v2(phGraphNode, hGraph, dependencies, numDependencies, &p);
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx) {
  if (!copyParams) return CUDA_ERROR_INVALID_VALUE;
  if (ctx && !drv_live(ctx, MAGIC_CTX)) return CUDA_ERROR_INVALID_CONTEXT;
  DrvOp op = {DRV_OP_COPY, .u.copy = *copyParams};
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx) {
  if (!memsetParams) return CUDA_ERROR_INVALID_VALUE;
  if (ctx && !drv_live(ctx, MAGIC_CTX)) return CUDA_ERROR_INVALID_CONTEXT;
  DrvOp op = {DRV_OP_SET, .u.set = *memsetParams};
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                            size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = {DRV_OP_HOST, .u.host = *nodeParams};
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                             size_t numDependencies) {
  DrvOp op = {DRV_OP_EMPTY, .u.event = NULL};
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                   size_t numDependencies, CUevent event) {
  DrvOp op = {DRV_OP_EVENT_RECORD, .u.event = event};
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                 size_t numDependencies, CUevent event) {
  DrvOp op = {DRV_OP_EVENT_WAIT, .u.event = event};
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

/* Edges with non-default data (programmatic ports) are not implemented. */
static CUresult edges_check(const CUgraphEdgeData *edgeData, size_t n) {
  static const CUgraphEdgeData zero;
  for (size_t i = 0; edgeData && i < n; i++)
    if (memcmp(&edgeData[i], &zero, sizeof zero)) {
      drv_say("graph edges with non-default CUgraphEdgeData (ports, programmatic dependencies) are not implemented");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
  return CUDA_SUCCESS;
}

CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *edgeData, size_t numDependencies) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (numDependencies && (!from || !to)) return CUDA_ERROR_INVALID_VALUE;
  r = edges_check(edgeData, numDependencies);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  if (!live_graph(hGraph)) r = CUDA_ERROR_INVALID_VALUE;
  /* all checked first, so that a refused call adds nothing */
  for (size_t i = 0; i < numDependencies && r == CUDA_SUCCESS; i++) {
    if (deps_check(hGraph, &from[i], 1) != CUDA_SUCCESS || deps_check(hGraph, &to[i], 1) != CUDA_SUCCESS) {
      r = CUDA_ERROR_INVALID_VALUE;
      break;
    }
    for (size_t k = 0; k < to[i]->ndeps; k++)
      if (to[i]->deps[k] == from[i]) r = CUDA_ERROR_INVALID_VALUE;   /* an existing edge */
    for (size_t j = 0; j < i; j++)
      if (from[j] == from[i] && to[j] == to[i]) r = CUDA_ERROR_INVALID_VALUE;
  }
  for (size_t i = 0; i < numDependencies && r == CUDA_SUCCESS; i++)
    if (!push(&to[i]->deps, &to[i]->ndeps, &to[i]->capdeps, &from[i], sizeof from[i])) r = CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_unlock(&lock);
  return r;
}

#undef cuGraphAddDependencies
CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                size_t numDependencies);
CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                size_t numDependencies) {
  return cuGraphAddDependencies_v2(hGraph, from, to, NULL, numDependencies);
}

/* ---- cuGraph*: queries ---- */

/* Fills list (up to *count entries, NULL beyond what there is) with the nodes
 * of n (count only when list is NULL) for which keep says yes. */
static CUresult list_nodes(CUgraphNode *list, size_t *count, CUgraphNode const *nodes, size_t n,
                           bool roots_only) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (roots_only && nodes[i]->ndeps) continue;
    if (list && k < *count) list[k] = nodes[i];
    k++;
  }
  if (list) {
    for (size_t i = k; i < *count; i++) list[i] = NULL;
    if (k < *count) *count = k;
  } else *count = k;
  return CUDA_SUCCESS;
}

static CUresult graph_nodes(CUgraph g, CUgraphNode *nodes, size_t *num, bool roots) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!num) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  r = live_graph(g) ? list_nodes(nodes, num, g->nodes, g->n, roots) : CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes) {
  return graph_nodes(hGraph, nodes, numNodes, false);
}

CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes) {
  return graph_nodes(hGraph, rootNodes, numRootNodes, true);
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type) {
  static const CUgraphNodeType types[] = {
    [DRV_OP_EMPTY] = CU_GRAPH_NODE_TYPE_EMPTY, [DRV_OP_KERNEL] = CU_GRAPH_NODE_TYPE_KERNEL,
    [DRV_OP_COPY] = CU_GRAPH_NODE_TYPE_MEMCPY, [DRV_OP_SET] = CU_GRAPH_NODE_TYPE_MEMSET,
    [DRV_OP_HOST] = CU_GRAPH_NODE_TYPE_HOST, [DRV_OP_EVENT_RECORD] = CU_GRAPH_NODE_TYPE_EVENT_RECORD,
    [DRV_OP_EVENT_WAIT] = CU_GRAPH_NODE_TYPE_WAIT_EVENT, [DRV_OP_GRAPH] = CU_GRAPH_NODE_TYPE_GRAPH};
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!type) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  if (live_node(hNode)) *type = types[hNode->op.kind];
  else r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies, CUgraphEdgeData *edgeData,
                                       size_t *numDependencies) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!numDependencies || (edgeData && !dependencies)) return CUDA_ERROR_INVALID_VALUE;
  size_t asked = *numDependencies;
  pthread_mutex_lock(&lock);
  r = live_node(hNode) ? list_nodes(dependencies, numDependencies, hNode->deps, hNode->ndeps, false)
                       : CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  if (r == CUDA_SUCCESS && edgeData) memset(edgeData, 0, asked * sizeof *edgeData);
  return r;
}

#undef cuGraphNodeGetDependencies
CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies, size_t *numDependencies);
CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies, size_t *numDependencies) {
  return cuGraphNodeGetDependencies_v2(hNode, dependencies, NULL, numDependencies);
}

/* ---- executable graphs ---- */

static bool live_exec(CUgraphExec e) { return drv_live(e, MAGIC_EXEC); }

/* Frees an executable graph's ops (an unregistered one: a child's). */
static void exec_discard(CUgraphExec e) {
  for (size_t i = 0; i < e->n; i++) blob_free(&e->nodes[i].op, e->nodes[i].blob);
  drv_refs_clear(&e->refs);
  free(e->nodes);
  free(e);
}

static void exec_free(CUgraphExec e) {
  drv_handle_remove(e);
  exec_discard(e);
}

/* A copy of src's ops, unregistered (a child graph node's). */
static CUresult exec_clone(CUgraphExec src, CUgraphExec *out) {
  CUgraphExec e = calloc(1, sizeof *e);
  if (!e || !(e->nodes = calloc(src->n + 1, sizeof *e->nodes))) {
    free(e);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  CUresult r = CUDA_SUCCESS;
  for (size_t i = 0; i < src->n && r == CUDA_SUCCESS; i++) {
    e->nodes[i].from = src->nodes[i].from;
    r = op_clone(&src->nodes[i].op, &e->nodes[i].op, &e->nodes[i].blob);
    if (r == CUDA_SUCCESS) e->n = i + 1;
  }
  if (r == CUDA_SUCCESS) r = drv_refs_copy(&e->refs, &src->refs);
  if (r != CUDA_SUCCESS) exec_discard(e);
  else *out = e;
  return r;
}

/* Runs e's ops in order on s. Like a kernel launch, a kernel that faults
 * does not fail the call: the ops after it do not run, and the context's
 * sticky error is returned by the next call. */
static CUresult exec_run(CUgraphExec e, CUstream s) {
  CUcontext sc, c;
  CUresult r = drv_stream_ctx(s, &sc);
  for (size_t i = 0; i < e->n && r == CUDA_SUCCESS; i++) {
    r = op_run(&e->nodes[i].op, s);
    if (r != CUDA_SUCCESS) return r;
    if (drv_enter_work(sc, &c) != CUDA_SUCCESS) return CUDA_SUCCESS;   /* a fault: see above */
    drv_leave(c);
  }
  return r;
}

/* A node that v depends on and that Kahn's algorithm left (indeg > 0). */
static CUgraphNode left_pred(CUgraphNode v, const size_t *indeg) {
  for (size_t k = 0; k < v->ndeps; k++)
    if (indeg[v->deps[k]->index]) return v->deps[k];
  return v;   /* not reached: v was left, so one of its dependencies was */
}

/* g's nodes in a topological order, ready nodes in creation order (under
 * the lock); CUDA_ERROR_INVALID_VALUE and *cycle (the first node left) when
 * the dependencies hold a cycle. */
static CUresult topo_order(CUgraph g, CUgraphNode *order, CUgraphNode *cycle) {
  size_t n = g->n, *indeg = calloc(n + 1, sizeof *indeg), *start = calloc(n + 2, sizeof *start);
  size_t *succ = NULL, nedges = 0;
  for (size_t i = 0; i < n; i++) nedges += g->nodes[i]->ndeps;
  succ = malloc((nedges + 1) * sizeof *succ);
  CUresult r = indeg && start && succ ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
  if (r == CUDA_SUCCESS) {
    /* successor lists, by node index (counting sort of the edges) */
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < g->nodes[i]->ndeps; k++) start[g->nodes[i]->deps[k]->index + 2]++;
    for (size_t i = 0; i < n; i++) start[i + 2] += start[i + 1];
    for (size_t i = 0; i < n; i++) {
      indeg[i] = g->nodes[i]->ndeps;
      for (size_t k = 0; k < g->nodes[i]->ndeps; k++) succ[start[g->nodes[i]->deps[k]->index + 1]++] = i;
    }
    /* order doubles as the queue: [head, tail) are ready */
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
      if (!indeg[i]) order[tail++] = g->nodes[i];
    while (head < tail) {
      size_t u = order[head++]->index;
      for (size_t k = start[u]; k < start[u + 1]; k++)
        if (--indeg[succ[k]] == 0) order[tail++] = g->nodes[succ[k]];
    }
    if (tail < n) {   /* each node left waits for one left: walking back ends on a cycle */
      r = CUDA_ERROR_INVALID_VALUE;
      CUgraphNode u = NULL;
      for (size_t i = 0; i < n && !u; i++)
        if (indeg[i]) u = g->nodes[i];
      for (size_t step = 0; step < n; step++) u = left_pred(u, indeg);
      *cycle = u;   /* its first node in creation order */
      for (CUgraphNode v = left_pred(u, indeg); v != u; v = left_pred(v, indeg))
        if (v->index < (*cycle)->index) *cycle = v;
    }
  }
  free(indeg);
  free(start);
  free(succ);
  return r;
}

/* g's ops in a topological order, as an unregistered exec (under the lock);
 * a cycle: *cycle, and the message for `who` in msg. */
static CUresult exec_build(CUgraph g, CUgraphExec *out, CUgraphNode *cycle, const char *who, char *msg,
                           size_t msgsize) {
  CUgraphExec e = NULL;
  CUgraphNode *order = NULL;
  CUresult r = CUDA_SUCCESS;
  if (!live_graph(g) || g->capture) r = CUDA_ERROR_INVALID_VALUE;
  else if (!(order = malloc((g->n + 1) * sizeof *order)) || !(e = calloc(1, sizeof *e)) ||
           !(e->nodes = calloc(g->n + 1, sizeof *e->nodes)))
    r = CUDA_ERROR_OUT_OF_MEMORY;
  else r = topo_order(g, order, cycle);
  for (size_t i = 0; r == CUDA_SUCCESS && i < g->n; i++) {
    e->nodes[i].from = order[i];
    r = op_clone(&order[i]->op, &e->nodes[i].op, &e->nodes[i].blob);
    if (r == CUDA_SUCCESS) e->n = i + 1;
  }
  if (r == CUDA_SUCCESS) r = drv_refs_copy(&e->refs, &g->refs);
  if (*cycle)
    snprintf(msg, msgsize, "%s: the graph's dependencies form a cycle (node %zu of %zu, in creation order, is on it)",
             who, (*cycle)->index + 1, g->n);
  free(order);
  if (r != CUDA_SUCCESS && e) {
    if (e->nodes) exec_discard(e);
    else free(e);
  }
  if (r == CUDA_SUCCESS) *out = e;
  return r;
}

/* The common path of the cuGraphInstantiate forms: *err (the node of a
 * cycle) and *result as cuGraphInstantiateWithParams reports them. */
static CUresult instantiate(CUgraphExec *out, CUgraph g, unsigned long long flags, CUgraphNode *err,
                            CUgraphInstantiateResult *result, char *log, size_t logsize) {
  CUcontext c;
  char msg[200];
  *result = CUDA_GRAPH_INSTANTIATE_ERROR;
  if (log && logsize) log[0] = 0;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  unsigned long long known = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                             CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
  if (flags & ~known) return CUDA_ERROR_INVALID_VALUE;
  if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
    drv_say("cuGraphInstantiate: CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH (device graph launch) is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  pthread_mutex_lock(&lock);
  CUgraphExec e = NULL;
  CUgraphNode cycle = NULL;
  r = exec_build(g, &e, &cycle, "cuGraphInstantiate", msg, sizeof msg);
  if (r == CUDA_SUCCESS) {
    e->magic = MAGIC_EXEC;
    if (!drv_handle_add(e)) {
      exec_discard(e);
      r = CUDA_ERROR_OUT_OF_MEMORY;
    }
  }
  pthread_mutex_unlock(&lock);
  if (cycle) {
    *err = cycle;
    *result = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
    drv_say("%s", msg);
    if (log && logsize) snprintf(log, logsize, "%s", msg);
  }
  if (r != CUDA_SUCCESS) return r;
  *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  *out = e;
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags) {
  CUgraphNode err = NULL;
  CUgraphInstantiateResult res;
  return instantiate(phGraphExec, hGraph, flags, &err, &res, NULL, 0);
}

CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams) {
  if (!instantiateParams) return CUDA_ERROR_INVALID_VALUE;
  CUDA_GRAPH_INSTANTIATE_PARAMS *p = instantiateParams;
  p->hErrNode_out = NULL;
  if (p->hUploadStream) {   /* the upload has nothing to do, but its stream must be valid */
    CUcontext sc;
    CUresult r = drv_stream_ctx(p->hUploadStream, &sc);
    if (r != CUDA_SUCCESS) return r;
  }
  return instantiate(phGraphExec, hGraph, p->flags, &p->hErrNode_out, &p->result_out, NULL, 0);
}

PER_THREAD(cuGraphInstantiateWithParams_ptsz, cuGraphInstantiateWithParams)

/* CUDA 10.0's and 11.0's form: the node at fault and a log. */
#undef cuGraphInstantiate
CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                               size_t bufferSize);
CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                               size_t bufferSize) {
  CUgraphNode err = NULL;
  CUgraphInstantiateResult res;
  CUresult r = instantiate(phGraphExec, hGraph, 0, &err, &res, logBuffer, bufferSize);
  if (phErrorNode) *phErrorNode = err;
  return r;
}
SAME_AS(cuGraphInstantiate, cuGraphInstantiate_v2)

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  if (live_exec(hGraphExec)) exec_free(hGraphExec);
  else r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  drv_user_objects_reap();
  return r;
}

/* Runs the nodes in order on hStream (exec_run); into a capturing stream,
 * the graph becomes a child graph node. */
CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  CUcontext sc, c;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!live_exec(hGraphExec)) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = {DRV_OP_GRAPH, .u.graph = hGraphExec};
  if (drv_capture(hStream, &op, &r)) return r;   /* captured: a child graph node */
  r = drv_enter_work(sc, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  return exec_run(hGraphExec, hStream);
}

/* The child graph is copied now (its later changes do not reach the node);
 * a cycle in it is refused here. */
CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                  size_t numDependencies, CUgraph childGraph) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  char msg[200];
  CUgraphExec list = NULL;
  CUgraphNode cycle = NULL;
  pthread_mutex_lock(&lock);
  r = exec_build(childGraph, &list, &cycle, "cuGraphAddChildGraphNode", msg, sizeof msg);
  pthread_mutex_unlock(&lock);
  if (cycle) drv_say("%s", msg);
  if (r != CUDA_SUCCESS) return r;
  DrvOp op = {DRV_OP_GRAPH, .u.graph = list};
  r = node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
  exec_discard(list);
  drv_user_objects_reap();
  return r;
}

CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return cuGraphLaunch(hGraphExec, per_thread(hStream));
}

/* New kernel parameters keep the launch attributes the op had
 * (cuGraphKernelNodeSetAttribute's, or the captured launch's). */
static void keep_attributes(DrvOp *dst, const DrvOp *old) {
  if (dst->kind != DRV_OP_KERNEL || old->kind != DRV_OP_KERNEL) return;
  dst->u.kernel.cooperative = old->u.kernel.cooperative;
  dst->u.kernel.has_cluster = old->u.kernel.has_cluster;
  memcpy(dst->u.kernel.cluster, old->u.kernel.cluster, sizeof dst->u.kernel.cluster);
}

/* Replaces the op of exec node from hNode (of the same kind) by a copy of op. */
static CUresult exec_set(CUgraphExec e, CUgraphNode hNode, const DrvOp *op) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  DrvOp copy;
  void *blob;
  r = op_clone(op, &copy, &blob);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  ExecNode *x = NULL;
  for (size_t i = 0; live_exec(e) && i < e->n && !x; i++)
    if (e->nodes[i].from == hNode && e->nodes[i].op.kind == op->kind) x = &e->nodes[i];
  if (x) {
    keep_attributes(&copy, &x->op);
    blob_free(&x->op, x->blob);
    x->op = copy;
    x->blob = blob;
  } else {
    blob_free(&copy, blob);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                           const CUDA_KERNEL_NODE_PARAMS *nodeParams) {
  if (!nodeParams || !nodeParams->func) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = kernel_op(nodeParams);
  return exec_set(hGraphExec, hNode, &op);
}

#undef cuGraphExecKernelNodeSetParams
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUDA_KERNEL_NODE_PARAMS p;
  memcpy(&p, nodeParams, sizeof *nodeParams);
  p.kern = NULL;
  p.ctx = NULL;
  return cuGraphExecKernelNodeSetParams_v2(hGraphExec, hNode, &p);
}

CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                      const CUDA_HOST_NODE_PARAMS *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = {DRV_OP_HOST, .u.host = *nodeParams};
  return exec_set(hGraphExec, hNode, &op);
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx) {
  if (!memsetParams) return CUDA_ERROR_INVALID_VALUE;
  if (ctx && !drv_live(ctx, MAGIC_CTX)) return CUDA_ERROR_INVALID_CONTEXT;
  DrvOp op = {DRV_OP_SET, .u.set = *memsetParams};
  return exec_set(hGraphExec, hNode, &op);
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D *copyParams,
                                        CUcontext ctx) {
  if (!copyParams) return CUDA_ERROR_INVALID_VALUE;
  if (ctx && !drv_live(ctx, MAGIC_CTX)) return CUDA_ERROR_INVALID_CONTEXT;
  DrvOp op = {DRV_OP_COPY, .u.copy = *copyParams};
  return exec_set(hGraphExec, hNode, &op);
}

/* Nothing to upload: the graph's work runs from the host. */
CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  return live_exec(hGraphExec) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return cuGraphUpload(hGraphExec, per_thread(hStream));
}

/* ---- node parameters ---- */

/* A copy of node n's op, when it is of the given kind (under the lock). */
static CUresult node_get(CUgraphNode n, DrvOpKind kind, DrvOp *out) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  if (live_node(n) && n->op.kind == kind) *out = n->op;
  else r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  return r;
}

/* Replaces node n's op by a copy of op (of the same kind). */
static CUresult node_set(CUgraphNode n, const DrvOp *op) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  DrvOp copy;
  void *blob;
  r = op_clone(op, &copy, &blob);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  if (live_node(n) && n->op.kind == op->kind) {
    keep_attributes(&copy, &n->op);
    blob_free(&n->op, n->blob);
    n->op = copy;
    n->blob = blob;
  } else {
    blob_free(&copy, blob);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

/* The parameters as the node holds them: kernelParams point to its own copy
 * of the argument values (valid until the node changes or goes). */
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams) {
  DrvOp op;
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = node_get(hNode, DRV_OP_KERNEL, &op);
  if (r != CUDA_SUCCESS) return r;
  const unsigned *g = op.u.kernel.grid, *b = op.u.kernel.block;
  *nodeParams = (CUDA_KERNEL_NODE_PARAMS){op.u.kernel.f, g[0], g[1], g[2], b[0], b[1], b[2], op.u.kernel.shared,
                                          op.u.kernel.params, NULL, NULL, NULL};
  return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams) {
  if (!nodeParams || !nodeParams->func) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = kernel_op(nodeParams);
  return node_set(hNode, &op);
}

/* CUDA 10.0's forms, without kern and ctx. */
#undef cuGraphKernelNodeGetParams
#undef cuGraphKernelNodeSetParams
CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  CUDA_KERNEL_NODE_PARAMS p;
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = cuGraphKernelNodeGetParams_v2(hNode, &p);
  if (r == CUDA_SUCCESS) memcpy(nodeParams, &p, sizeof *nodeParams);
  return r;
}
CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams);
CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  CUDA_KERNEL_NODE_PARAMS p = {0};
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  memcpy(&p, nodeParams, sizeof *nodeParams);
  return cuGraphKernelNodeSetParams_v2(hNode, &p);
}

/* ---- kernel node attributes ----
 * A kernel node keeps the cluster dimension and the cooperative flag, as
 * cuLaunchKernelEx takes them (a cluster dimension of 0,0,0: none, the
 * kernel's own shape); the launch checks them. Other attributes are refused
 * by name. */
static CUresult node_attr(CUgraphNode n, CUkernelNodeAttrID attr, CUkernelNodeAttrValue *get,
                          const CUkernelNodeAttrValue *set) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (attr != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION && attr != CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
    drv_say("%s: kernel node attribute %d is not implemented (the cluster dimension and cooperative are)",
            set ? "cuGraphKernelNodeSetAttribute" : "cuGraphKernelNodeGetAttribute", (int)attr);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (!get && !set) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  if (!live_node(n) || n->op.kind != DRV_OP_KERNEL) {
    pthread_mutex_unlock(&lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  __typeof__(n->op.u.kernel) *k = &n->op.u.kernel;
  if (attr == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
    if (set) k->cooperative = set->cooperative != 0;
    else get->cooperative = k->cooperative;
  } else if (set) {
    k->cluster[0] = set->clusterDim.x, k->cluster[1] = set->clusterDim.y, k->cluster[2] = set->clusterDim.z;
    k->has_cluster = k->cluster[0] || k->cluster[1] || k->cluster[2];
  } else {
    get->clusterDim.x = k->cluster[0], get->clusterDim.y = k->cluster[1], get->clusterDim.z = k->cluster[2];
  }
  pthread_mutex_unlock(&lock);
  return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr, CUkernelNodeAttrValue *value_out) {
  return node_attr(hNode, attr, value_out, NULL);
}

CUresult cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                       const CUkernelNodeAttrValue *value) {
  return node_attr(hNode, attr, NULL, value);
}

CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  if (live_node(dst) && live_node(src) && dst->op.kind == DRV_OP_KERNEL && src->op.kind == DRV_OP_KERNEL)
    keep_attributes(&dst->op, &src->op);
  else
    r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams) {
  DrvOp op;
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = node_get(hNode, DRV_OP_COPY, &op);
  if (r == CUDA_SUCCESS) *nodeParams = op.u.copy;
  return r;
}

CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = {DRV_OP_COPY, .u.copy = *nodeParams};
  return node_set(hNode, &op);
}

CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams) {
  DrvOp op;
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = node_get(hNode, DRV_OP_SET, &op);
  if (r == CUDA_SUCCESS) *nodeParams = op.u.set;
  return r;
}

CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = {DRV_OP_SET, .u.set = *nodeParams};
  return node_set(hNode, &op);
}

CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams) {
  DrvOp op;
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = node_get(hNode, DRV_OP_HOST, &op);
  if (r == CUDA_SUCCESS) *nodeParams = op.u.host;
  return r;
}

CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = {DRV_OP_HOST, .u.host = *nodeParams};
  return node_set(hNode, &op);
}

static CUresult event_get(CUgraphNode n, DrvOpKind kind, CUevent *out) {
  DrvOp op;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = node_get(n, kind, &op);
  if (r == CUDA_SUCCESS) *out = op.u.event;
  return r;
}

CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out) {
  return event_get(hNode, DRV_OP_EVENT_RECORD, event_out);
}
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out) {
  return event_get(hNode, DRV_OP_EVENT_WAIT, event_out);
}
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event) {
  DrvOp op = {DRV_OP_EVENT_RECORD, .u.event = event};
  return node_set(hNode, &op);
}
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event) {
  DrvOp op = {DRV_OP_EVENT_WAIT, .u.event = event};
  return node_set(hNode, &op);
}

/* The generic form (CUDA 12.2) of the cuGraphAdd*Node calls above, for the
 * node types they implement. */
CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                           const CUgraphEdgeData *dependencyData, size_t numDependencies,
                           CUgraphNodeParams *nodeParams) {
  if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = edges_check(dependencyData, numDependencies);
  if (r != CUDA_SUCCESS) return r;
  CUgraphNodeParams *p = nodeParams;
  DrvOp op = {DRV_OP_EMPTY, .u.event = NULL};
  switch (p->type) {
  case CU_GRAPH_NODE_TYPE_KERNEL: {
    const CUDA_KERNEL_NODE_PARAMS_v3 *k = &p->kernel;
    if (!k->func && k->kern) {
      drv_say("cuGraphAddNode: a CUkernel (library kernel) is not implemented; give a CUfunction");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    op = (DrvOp){DRV_OP_KERNEL, .u.kernel = {k->func, {k->gridDimX, k->gridDimY, k->gridDimZ},
                                             {k->blockDimX, k->blockDimY, k->blockDimZ}, k->sharedMemBytes,
                                             k->kernelParams, k->extra, false, false, {0, 0, 0}}};
    break;
  }
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    if (p->memcpy.flags || p->memcpy.reserved) return CUDA_ERROR_INVALID_VALUE;
    op = (DrvOp){DRV_OP_COPY, .u.copy = p->memcpy.copyParams};
    break;
  case CU_GRAPH_NODE_TYPE_MEMSET: {
    const CUDA_MEMSET_NODE_PARAMS_v2 *m = &p->memset;
    op = (DrvOp){DRV_OP_SET, .u.set = {m->dst, m->pitch, m->value, m->elementSize, m->width, m->height}};
    break;
  }
  case CU_GRAPH_NODE_TYPE_HOST: op = (DrvOp){DRV_OP_HOST, .u.host = {p->host.fn, p->host.userData}}; break;
  case CU_GRAPH_NODE_TYPE_EMPTY: break;
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT: op = (DrvOp){DRV_OP_EVENT_WAIT, .u.event = p->eventWait.event}; break;
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD: op = (DrvOp){DRV_OP_EVENT_RECORD, .u.event = p->eventRecord.event}; break;
  default:
    drv_say("cuGraphAddNode: graph nodes of type %d are not implemented", (int)p->type);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return node_add(phGraphNode, hGraph, dependencies, numDependencies, &op);
}

#undef cuGraphAddNode
CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                        size_t numDependencies, CUgraphNodeParams *nodeParams);
CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                        size_t numDependencies, CUgraphNodeParams *nodeParams) {
  return cuGraphAddNode_v2(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams);
}

/* ---- edges and node removal ---- */

/* The edges of g as (from, to) pairs, in the order of the nodes' creation
 * and of each node's dependencies; the counting rules of cuGraphGetNodes. */
CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edgeData,
                            size_t *numEdges) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!numEdges || (!from) != (!to) || (edgeData && !from)) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  if (!live_graph(hGraph)) r = CUDA_ERROR_INVALID_VALUE;
  size_t k = 0;
  for (size_t i = 0; r == CUDA_SUCCESS && i < hGraph->n; i++)
    for (size_t d = 0; d < hGraph->nodes[i]->ndeps; d++, k++)
      if (from && k < *numEdges) {
        from[k] = hGraph->nodes[i]->deps[d];
        to[k] = hGraph->nodes[i];
      }
  pthread_mutex_unlock(&lock);
  if (r != CUDA_SUCCESS) return r;
  if (from) {
    for (size_t i = k; i < *numEdges; i++) from[i] = to[i] = NULL;
    if (edgeData) memset(edgeData, 0, *numEdges * sizeof *edgeData);
    if (k < *numEdges) *numEdges = k;
  } else *numEdges = k;
  return CUDA_SUCCESS;
}

#undef cuGraphGetEdges
CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges);
CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges) {
  return cuGraphGetEdges_v2(hGraph, from, to, NULL, numEdges);
}

CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes, CUgraphEdgeData *edgeData,
                                         size_t *numDependentNodes) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!numDependentNodes || (edgeData && !dependentNodes)) return CUDA_ERROR_INVALID_VALUE;
  size_t asked = *numDependentNodes, k = 0;
  pthread_mutex_lock(&lock);
  if (!live_node(hNode)) r = CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; r == CUDA_SUCCESS && i < hNode->graph->n; i++) {
    CUgraphNode m = hNode->graph->nodes[i];
    for (size_t d = 0; d < m->ndeps; d++)
      if (m->deps[d] == hNode) {
        if (dependentNodes && k < asked) dependentNodes[k] = m;
        k++;
      }
  }
  pthread_mutex_unlock(&lock);
  if (r != CUDA_SUCCESS) return r;
  if (dependentNodes) {
    for (size_t i = k; i < asked; i++) dependentNodes[i] = NULL;
    if (edgeData) memset(edgeData, 0, asked * sizeof *edgeData);
    if (k < asked) *numDependentNodes = k;
  } else *numDependentNodes = k;
  return CUDA_SUCCESS;
}

#undef cuGraphNodeGetDependentNodes
CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes, size_t *numDependentNodes);
CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes, size_t *numDependentNodes) {
  return cuGraphNodeGetDependentNodes_v2(hNode, dependentNodes, NULL, numDependentNodes);
}

/* Removes a node and every edge to or from it. A node that a capture in
 * progress would depend on next stays (CUDA does not let capture's graph
 * lose nodes). */
CUresult cuGraphDestroyNode(CUgraphNode hNode) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  if (!live_node(hNode) || hNode->graph->capture) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) {
    CUgraph g = hNode->graph;
    size_t at = hNode->index;
    for (size_t i = 0; i < g->n; i++) {
      CUgraphNode m = g->nodes[i];
      size_t k = 0;
      for (size_t d = 0; d < m->ndeps; d++)
        if (m->deps[d] != hNode) m->deps[k++] = m->deps[d];
      m->ndeps = k;
    }
    memmove(&g->nodes[at], &g->nodes[at + 1], (g->n - at - 1) * sizeof *g->nodes);
    g->n--;
    for (size_t i = at; i < g->n; i++) g->nodes[i]->index = i;
    node_free(hNode);
  }
  pthread_mutex_unlock(&lock);
  drv_user_objects_reap();   /* a child graph node's references */
  return r;
}

/* ---- clones ---- */

/* A copy of g, node by node in creation order (each remembering its
 * original, for cuGraphNodeFindInClone), then the edges; child graphs are
 * copied too. */
CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!phGraphClone) return CUDA_ERROR_INVALID_VALUE;
  CUgraph c;
  r = cuGraphCreate(&c, 0);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  CUgraph g = originalGraph;
  if (!live_graph(g)) r = CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; r == CUDA_SUCCESS && i < g->n; i++) {
    CUgraphNode n = g->nodes[i], copy;
    DrvOp op;
    void *blob;
    r = op_clone(&n->op, &op, &blob);
    if (r == CUDA_SUCCESS) r = node_insert(c, NULL, 0, &op, blob, &copy);
    if (r == CUDA_SUCCESS) copy->origin = n;
  }
  for (size_t i = 0; r == CUDA_SUCCESS && i < g->n; i++) {   /* an edge may come from a later node */
    CUgraphNode n = g->nodes[i], copy = c->nodes[i];
    if (n->ndeps && !(copy->deps = malloc(n->ndeps * sizeof *copy->deps))) r = CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t k = 0; r == CUDA_SUCCESS && k < n->ndeps; k++) copy->deps[k] = c->nodes[n->deps[k]->index];
    if (r == CUDA_SUCCESS) copy->ndeps = copy->capdeps = n->ndeps;
  }
  c->origin = g;
  if (r == CUDA_SUCCESS) r = drv_refs_copy(&c->refs, &g->refs);
  if (r != CUDA_SUCCESS) graph_free(c);
  pthread_mutex_unlock(&lock);
  if (r == CUDA_SUCCESS) *phGraphClone = c;
  return r;
}

CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!phNode) return CUDA_ERROR_INVALID_VALUE;
  r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; live_graph(hClonedGraph) && i < hClonedGraph->n && r != CUDA_SUCCESS; i++)
    if (hOriginalNode && hClonedGraph->nodes[i]->origin == hOriginalNode) {
      *phNode = hClonedGraph->nodes[i];
      r = CUDA_SUCCESS;
    }
  pthread_mutex_unlock(&lock);
  return r;
}
