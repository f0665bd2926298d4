/* launch.c: kernel launches (cuLaunchKernel, cuLaunchKernelEx,
 * cuLaunchCooperativeKernel) and what they share with the function
 * attributes (funcattr.c) and the occupancy calculator (occupancy.c): the
 * dynamic shared memory limit, the required cluster shape, the cluster
 * size limit.
 *
 * A launch runs to completion before it returns; a fault makes the
 * context's error sticky, and, as on a GPU, the launch itself still
 * returns CUDA_SUCCESS: the error comes from the next call
 * (cuCtxSynchronize, a copy, ...). ptxvm's report is printed on stderr,
 * each line prefixed "ptxvm: ". A configuration a GPU refuses at launch is
 * refused here with its CUDA error and a line saying why: more dynamic
 * shared memory than the function allows (CUDA_ERROR_INVALID_VALUE), a
 * cluster shape that breaks the kernel's or the device's rules
 * (CUDA_ERROR_INVALID_CLUSTER_SIZE), a cooperative grid larger than the
 * device holds at once (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
 *
 * Cluster shapes (PTX ISA §11.7, .reqnctapercluster and .explicitcluster):
 * a launch without one takes the kernel's required shape (its
 * .reqnctapercluster, else the one cuFuncSetAttribute set); a kernel with
 * .explicitcluster and no required shape must be given one; a shape that
 * differs from the required one is refused. A cluster may have
 * PTXVM_DEVICE_CLUSTER_PORTABLE CTAs, PTXVM_DEVICE_CLUSTER_MAX with
 * CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, at most the
 * kernel's .maxclusterrank.
 *
 * Cooperative launches are ptxvm_launch_ex's: every CTA resident at once,
 * and the grid workspace cooperative_groups::this_grid() reads from
 * %envreg1/%envreg2. A plain launch has no workspace, so grid_group::sync()
 * there traps (CUDA_ERROR_LAUNCH_FAILED), as its is_valid() check makes it. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

CUresult drv_function_resources(CUfunction f, ptxvm_function_resources *r) {
  CUcontext c = f->mod->ctx;
  ptxvm_status st = ptxvm_function_get_resources(f->vm, r);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : drv_result(c, st, CUDA_ERROR_INVALID_VALUE);
}

uint64_t drv_dyn_limit(CUfunction f, uint64_t static_shared) {
  if (f->max_dyn_set) return (uint64_t)f->max_dyn_shared;
  uint64_t def = (uint64_t)drv_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  return static_shared < def ? def - static_shared : 0;
}

int drv_required_cluster(CUfunction f, unsigned out[3]) {
  const unsigned *r = f->info.reqnctapercluster[0] ? f->info.reqnctapercluster : f->req_cluster;
  if (!r[0] && !r[1] && !r[2]) return 0;
  if (r == f->req_cluster && (!r[0] || !r[1] || !r[2])) return -1;   /* "all 0 or all positive" */
  for (int i = 0; i < 3; i++) out[i] = r[i] ? r[i] : 1;
  return 1;
}

unsigned drv_cluster_limit(CUfunction f) {
  unsigned rank = f->info.maxclusterrank;
  unsigned n = f->nonportable || rank > PTXVM_DEVICE_CLUSTER_PORTABLE ? PTXVM_DEVICE_CLUSTER_MAX
                                                                      : PTXVM_DEVICE_CLUSTER_PORTABLE;
  return rank && rank < n ? rank : n;
}

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

/* The cluster shape of the launch in shape[], or CUDA_ERROR_INVALID_CLUSTER_SIZE
 * after a line saying why (the rules in the header). */
static CUresult cluster_shape(CUfunction f, const LaunchRequest *q, unsigned shape[3]) {
  const char *name = f->info.name;
  unsigned req[3];
  int has_req = drv_required_cluster(f, req);
  if (has_req < 0) {
    drv_say("'%s': the required cluster shape set by cuFuncSetAttribute (%u,%u,%u) must be all 0 or all "
            "positive", name, f->req_cluster[0], f->req_cluster[1], f->req_cluster[2]);
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  if (q->has_cluster) {
    if (!q->cluster[0] || !q->cluster[1] || !q->cluster[2]) {
      drv_say("'%s': cluster dimension %u,%u,%u has a zero", name, q->cluster[0], q->cluster[1], q->cluster[2]);
      return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    if (has_req && memcmp(req, q->cluster, sizeof req)) {
      drv_say("'%s': cluster %u,%u,%u differs from the kernel's required cluster shape %u,%u,%u", name,
              q->cluster[0], q->cluster[1], q->cluster[2], req[0], req[1], req[2]);
      return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    memcpy(shape, q->cluster, sizeof req);
  } else if (has_req) {
    memcpy(shape, req, sizeof req);
  } else if (f->info.explicitcluster) {
    drv_say("'%s' is .explicitcluster without .reqnctapercluster: launch it with a cluster dimension "
            "(cuLaunchKernelEx, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)", name);
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  } else {
    shape[0] = shape[1] = shape[2] = 1;
  }
  uint64_t n = (uint64_t)shape[0] * shape[1] * shape[2];
  if (n > drv_cluster_limit(f)) {
    drv_say("'%s': a cluster of %llu CTAs is more than the %u allowed%s", name, (unsigned long long)n,
            drv_cluster_limit(f), drv_cluster_limit(f) == PTXVM_DEVICE_CLUSTER_PORTABLE
                ? " (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED allows 16)" : "");
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  for (int i = 0; i < 3; i++)
    if (q->grid[i] % shape[i]) {
      drv_say("'%s': grid dimension %c (%u) is not a multiple of the cluster's (%u)", name, "xyz"[i],
              q->grid[i], shape[i]);
      return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
  return CUDA_SUCCESS;
}

/* The checks a GPU makes before it runs anything, under f's context lock:
 * dynamic shared memory, cluster shape, cooperative grid size. */
static CUresult check_request(CUfunction f, const LaunchRequest *q, unsigned shape[3]) {
  ptxvm_function_resources res;
  CUresult r = drv_function_resources(f, &res);
  if (r != CUDA_SUCCESS) return r;
  uint64_t dyn_max = drv_dyn_limit(f, res.shared_bytes);
  if (q->dyn > dyn_max) {
    drv_say("'%s': %u bytes of dynamic shared memory exceed its limit of %llu "
            "(cuFuncSetAttribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES raises it)",
            f->info.name, q->dyn, (unsigned long long)dyn_max);
    return CUDA_ERROR_INVALID_VALUE;
  }
  r = cluster_shape(f, q, shape);
  if (r != CUDA_SUCCESS || !q->cooperative) return r;
  uint64_t threads = (uint64_t)q->block[0] * q->block[1] * q->block[2];
  unsigned ctas = shape[0] * shape[1] * shape[2];
  ptxvm_occupancy occ;
  if (threads == 0 || threads > res.max_threads) {
    drv_say("'%s': a CTA of %llu threads; the kernel allows 1 to %u", f->info.name,
            (unsigned long long)threads, res.max_threads);
    return CUDA_ERROR_INVALID_VALUE;
  }
  ptxvm_status st = ptxvm_function_occupancy(f->vm, (unsigned)threads, q->dyn, ctas, &occ);
  if (st != PTXVM_SUCCESS) return drv_result(f->mod->ctx, st, CUDA_ERROR_INVALID_VALUE);
  uint64_t want = (uint64_t)q->grid[0] * q->grid[1] * q->grid[2] / ctas;
  if (want > occ.clusters) {
    drv_say("'%s': a cooperative grid of %llu %s is more than the %u the device holds at once "
            "(%d SMs x %u CTAs per SM; cuOccupancyMaxActiveBlocksPerMultiprocessor)",
            f->info.name, (unsigned long long)want, ctas > 1 ? "clusters" : "CTAs", occ.clusters,
            PTXVM_DEVICE_SMS, occ.ctas_per_sm);
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  }
  return CUDA_SUCCESS;
}

/* The launches that reached ptxvm, in the process, counting from 1: the
 * index --check findings name. Per process, not per context, so that the
 * numbers follow the program's own order of <<<>>> and cuLaunchKernel. */
static _Atomic uint64_t launches;

/* --check findings of the index-th launch, of kernel f: on stderr, the first
 * line naming the launch; then one byte down PTXVM_CHECK_FD (`ptxvm exec`
 * exits 1 when a program that exits 0 had findings). The launch succeeds. */
static void say_findings(CUfunction f, uint64_t index, const char *msg) {
  char *text = NULL;
  if (asprintf(&text, "launch %llu (kernel %s): %s", (unsigned long long)index, f->info.name, msg) < 0)
    text = NULL;
  drv_say_lines(text ? text : msg);
  free(text);
  if (drv_opt.check_fd >= 0) {   /* nonblocking: a full pipe already says so */
    ssize_t w = write(drv_opt.check_fd, "!", 1);
    (void)w;
  }
}

/* A failed launch's status as the CUDA error of its context. A kernel fault
 * or a deadlock makes it sticky; a refused configuration does not. */
static CUresult launch_result(CUcontext c, CUfunction f, uint64_t index, ptxvm_status st) {
  const char *msg = ptxvm_last_error(c->vm);
  switch (st) {
  case PTXVM_SUCCESS: return CUDA_SUCCESS;
  case PTXVM_ERROR_HAZARD:   /* ran to completion; the findings are the report */
    say_findings(f, index, msg);
    return CUDA_SUCCESS;
  case PTXVM_ERROR_INVALID_CONFIG:
  case PTXVM_ERROR_INVALID_VALUE:
    drv_say_lines(msg);
    return CUDA_ERROR_INVALID_VALUE;
  case PTXVM_ERROR_NOT_SUPPORTED:
    drv_say_lines(msg);
    return CUDA_ERROR_NOT_SUPPORTED;
  case PTXVM_ERROR_OUT_OF_MEMORY:
  case PTXVM_ERROR_OUT_OF_DEVICE_MEMORY:
    drv_say_lines(msg);
    return CUDA_ERROR_OUT_OF_MEMORY;
  case PTXVM_ERROR_DEADLOCK:
    drv_say_lines(msg);
    c->sticky = CUDA_ERROR_LAUNCH_TIMEOUT;   /* a GPU would hang until its watchdog */
    return CUDA_SUCCESS;
  default: {
    /* the codes an H200 gave for the same faults (tests/gpu/sm90_truth.json:
       a local stack overflow is an illegal address there too) */
    static const CUresult codes[] = {
      [PTXVM_FAULT_NONE] = CUDA_ERROR_LAUNCH_FAILED, [PTXVM_FAULT_ADDRESS] = CUDA_ERROR_ILLEGAL_ADDRESS,
      [PTXVM_FAULT_MISALIGNED] = CUDA_ERROR_MISALIGNED_ADDRESS, [PTXVM_FAULT_TRAP] = CUDA_ERROR_LAUNCH_FAILED,
      [PTXVM_FAULT_ASSERT] = CUDA_ERROR_ASSERT, [PTXVM_FAULT_OTHER] = CUDA_ERROR_LAUNCH_FAILED};
    /* a failed device assert: first the lines a GPU prints, unprefixed, so
       what matches them on a GPU matches them here; then the located report */
    const char *gpu = ptxvm_launch_assertion(c->vm);
    if (gpu) {
      fputs(gpu, stderr);
      fflush(stderr);
    }
    drv_say_lines(msg);
    c->sticky = codes[ptxvm_launch_fault(c->vm)];
    return CUDA_SUCCESS;
  }
  }
}

/* The statistics of a launch that ran: PTXVM_STATS totals, lost printf output. */
static void after_run(CUcontext c, ptxvm_status st) {
  bool ran = st == PTXVM_SUCCESS || st == PTXVM_ERROR_HAZARD || st == PTXVM_ERROR_LAUNCH_FAILED ||
             st == PTXVM_ERROR_DEADLOCK || st == PTXVM_ERROR_CANCELLED;
  ptxvm_stats s;   /* a refused launch leaves the previous one's: only for one that ran */
  if (!ran || ptxvm_launch_stats(c->vm, &s) != PTXVM_SUCCESS) return;
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

/* A launch on a capturing stream becomes a graph node (graph.c), which holds
 * what cuLaunchKernel takes and the cluster shape and cooperative flag; a
 * launch with events to record cannot be one yet, and is refused by name.
 * CUDA_ERROR_NOT_FOUND: the stream does not capture, run it. */
static CUresult capture(CUfunction f, const LaunchRequest *q, void **kernelParams, void **extra) {
  CUresult r;
  if (q->events[0] || q->events[1]) {
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(q->stream, &cs) != CUDA_SUCCESS || cs == CU_STREAM_CAPTURE_STATUS_NONE)
      return CUDA_ERROR_NOT_FOUND;
    drv_say("'%s': capturing a launch with a programmatic or launch-completion event into a graph is not "
            "implemented", f->info.name);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  DrvOp op = {DRV_OP_KERNEL, .u.kernel = {f, {q->grid[0], q->grid[1], q->grid[2]},
                                          {q->block[0], q->block[1], q->block[2]}, q->dyn, kernelParams, extra,
                                          q->cooperative, q->has_cluster, {q->cluster[0], q->cluster[1], q->cluster[2]}}};
  return drv_capture(q->stream, &op, &r) ? r : CUDA_ERROR_NOT_FOUND;
}

CUresult drv_launch(CUfunction f, const LaunchRequest *q, void **kernelParams, void **extra) {
  CUcontext sc, c;
  drv_printf_flush();   /* a launch writes the output of the kernels before it */
  CUresult r = drv_stream_ctx(q->stream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live_function(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  ptxvm_launch_options o = {.dyn_shared_bytes = q->dyn, .cluster_nonportable = f->nonportable,
                            .cooperative = q->cooperative};
  r = drv_enter(f->mod->ctx, &c);   /* ptxvm calls on the context need its lock */
  if (r != CUDA_SUCCESS) return r;
  r = check_request(f, q, o.cluster);
  unsigned req[3];
  if (!q->has_cluster && drv_required_cluster(f, req) == 0)
    memset(o.cluster, 0, sizeof o.cluster);   /* not a cluster launch: %is_explicit_cluster false */
  drv_leave(c);
  if (r != CUDA_SUCCESS) return r;
  r = capture(f, q, kernelParams, extra);
  if (r != CUDA_ERROR_NOT_FOUND) return r;   /* captured into a graph (graph.c), or refused */
  r = drv_enter_work(f->mod->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  void **params = kernelParams, **owned = NULL;
  if (r == CUDA_SUCCESS && extra) {
    r = extra_params(f, extra, &owned);
    params = owned;
  }
  if (r == CUDA_SUCCESS && f->info.nparams && !params) r = CUDA_ERROR_INVALID_VALUE;
  if (r != CUDA_SUCCESS) {
    drv_leave(c);
    return r;
  }
  uint64_t index = ++launches;
  ptxvm_status st = ptxvm_launch_ex(f->vm, q->grid, q->block, &o, params);
  after_run(c, st);
  r = launch_result(c, f, index, st);
  drv_leave(c);
  free(owned);
  bool done = st == PTXVM_SUCCESS || st == PTXVM_ERROR_HAZARD;
  for (int i = 0; i < 2 && done && r == CUDA_SUCCESS; i++)   /* the grid has run: every trigger happened */
    if (q->events[i]) r = cuEventRecord(q->events[i], q->stream);
  return r;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
  LaunchRequest q = {.grid = {gridDimX, gridDimY, gridDimZ}, .block = {blockDimX, blockDimY, blockDimZ},
               .dyn = sharedMemBytes, .stream = hStream};
  return drv_launch(f, &q, kernelParams, extra);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                   unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams) {
  LaunchRequest q = {.grid = {gridDimX, gridDimY, gridDimZ}, .block = {blockDimX, blockDimY, blockDimZ},
               .dyn = sharedMemBytes, .stream = hStream, .cooperative = true};
  return drv_launch(f, &q, kernelParams, NULL);
}

/* The names of the launch attributes this driver does not implement. */
static const char *attribute_name(CUlaunchAttributeID id) {
  switch (id) {
  case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: return "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW";
  case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: return "CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY";
  case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: return "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP";
  case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: return "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN";
  case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION: return "CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION";
  case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE: return "CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE";
  case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
    return "CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING";
  default: return NULL;
  }
}

CUresult drv_launch_attribute(const CUlaunchAttribute *a, LaunchRequest *q) {
  const CUlaunchAttributeValue *v = &a->value;
  switch (a->id) {
  case CU_LAUNCH_ATTRIBUTE_IGNORE: return CUDA_SUCCESS;
  case CU_LAUNCH_ATTRIBUTE_COOPERATIVE: q->cooperative = v->cooperative != 0; return CUDA_SUCCESS;
  case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    q->has_cluster = true;
    q->cluster[0] = v->clusterDim.x;
    q->cluster[1] = v->clusterDim.y;
    q->cluster[2] = v->clusterDim.z;
    return CUDA_SUCCESS;
  case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    return (unsigned)v->clusterSchedulingPolicyPreference <= CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING
               ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
  case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    return CUDA_SUCCESS;
  case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    return v->sharedMemCarveout <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
    q->events[0] = v->programmaticEvent.event;
    return q->events[0] ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
    q->events[1] = v->launchCompletionEvent.event;
    return q->events[1] ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  default: {
    const char *name = attribute_name(a->id);
    if (!name) {
      drv_say("cuLaunchKernelEx: launch attribute %d is not one of cuda.h's", (int)a->id);
      return CUDA_ERROR_INVALID_VALUE;
    }
    drv_say("cuLaunchKernelEx: %s is not implemented", name);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  }
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
  LaunchRequest q = {.grid = {config->gridDimX, config->gridDimY, config->gridDimZ},
               .block = {config->blockDimX, config->blockDimY, config->blockDimZ},
               .dyn = config->sharedMemBytes, .stream = config->hStream};
  for (unsigned i = 0; i < config->numAttrs; i++) {
    r = drv_launch_attribute(&config->attrs[i], &q);
    if (r != CUDA_SUCCESS) return r;
  }
  return drv_launch(f, &q, kernelParams, extra);
}

PER_THREAD(cuLaunchKernel_ptsz, cuLaunchKernel)
PER_THREAD(cuLaunchKernelEx_ptsz, cuLaunchKernelEx)
PER_THREAD(cuLaunchCooperativeKernel_ptsz, cuLaunchCooperativeKernel)
