/* launch.c: a function's attributes and kernel launches.
 *
 * A launch runs to completion before cuLaunchKernel returns; a fault makes
 * the context's error sticky, and, as on a GPU, the launch itself still
 * returns CUDA_SUCCESS: the error comes from the next call (cuCtxSynchronize,
 * a copy, ...). ptxvm's report is printed on stderr, each line prefixed
 * "ptxvm: ". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"


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
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
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
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
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
    drv_say_lines(msg);
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
    drv_say_lines(msg);
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
  if (!drv_live_function(f)) return CUDA_ERROR_INVALID_HANDLE;
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
  DrvOp op = {DRV_OP_KERNEL, .u.kernel = {f, {gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ},
                                          sharedMemBytes, kernelParams, extra}};
  if (drv_capture(hStream, &op, &r)) return r;   /* captured into a graph (graph.c) */
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
