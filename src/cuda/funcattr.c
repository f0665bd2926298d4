/* funcattr.c: a function's attributes (cuFuncGetAttribute,
 * cuFuncSetAttribute, cuFuncSetCacheConfig, cuFuncSetSharedMemConfig) and
 * its parameter layout (cuFuncGetParamInfo).
 *
 * What the PTX says comes from ptxvm_function_get_resources: static shared
 * memory, the module's .const bytes, the kernel's .local bytes, the threads
 * a CTA may have (.maxntid/.reqntid), the .target (PTX_VERSION, "the PTX
 * virtual architecture": 90 for sm_90) and the registers, which PTX does
 * not allocate: ptxvm assumes 32 per thread, or .maxnreg when lower (ptxvm.h
 * ptxvm_function_resources; the occupancy model uses the same count). The
 * binary version is the device's, 90: ptxvm runs every module as sm_90.
 * The settable attributes are the ones cuda.h lists for cuFuncSetAttribute;
 * setting another is CUDA_ERROR_INVALID_VALUE, as cuda.h says, and a
 * required cluster dimension that the PTX fixes is CUDA_ERROR_NOT_PERMITTED.
 * The carveout, cache and bank-size preferences are hints a GPU may also
 * ignore; ptxvm has no L1 to trade for shared memory, so they change
 * nothing but what is read back. */
#include <stdio.h>

#include "driver.h"

/* f's resources, taking its context's lock. */
static CUresult resources(CUfunction f, ptxvm_function_resources *res) {
  CUcontext c;
  CUresult r = drv_enter(f->mod->ctx, &c);
  if (r != CUDA_SUCCESS) return r;
  r = drv_function_resources(f, res);
  drv_leave(c);
  return r;
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  if ((unsigned)attrib >= CU_FUNC_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
  ptxvm_function_resources res;
  r = resources(hfunc, &res);
  if (r != CUDA_SUCCESS) return r;
  unsigned req[3] = {0, 0, 0};
  if (drv_required_cluster(hfunc, req) <= 0)
    for (int i = 0; i < 3; i++) req[i] = hfunc->req_cluster[i];   /* as set, if at all */
  int cc = drv_device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
           drv_device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = (int)res.max_threads; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)res.shared_bytes; break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = (int)res.const_bytes; break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = (int)res.local_bytes; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = (int)res.regs_per_thread; break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = (int)res.target; break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = cc; break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;   /* no -Xptxas --dlcm=ca: ptxas never ran */
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = (int)drv_dyn_limit(hfunc, res.shared_bytes); break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = hfunc->carveout_set ? hfunc->carveout : -1; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = hfunc->info.explicitcluster; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *pi = (int)req[0]; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *pi = (int)req[1]; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = (int)req[2]; break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = hfunc->nonportable; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = hfunc->sched_policy; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
    ptxvm_function_resources res;
    r = resources(hfunc, &res);
    if (r != CUDA_SUCCESS) return r;
    if (value < 0 || (uint64_t)value + res.shared_bytes >
                         (uint64_t)drv_device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
      return CUDA_ERROR_INVALID_VALUE;
    hfunc->max_dyn_shared = value;
    hfunc->max_dyn_set = true;
    return CUDA_SUCCESS;
  }
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
    hfunc->carveout = value;
    hfunc->carveout_set = true;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    if (hfunc->info.reqnctapercluster[0]) return CUDA_ERROR_NOT_PERMITTED;   /* fixed by the PTX */
    if (value < 0 || value > PTXVM_DEVICE_CLUSTER_MAX) return CUDA_ERROR_INVALID_VALUE;
    hfunc->req_cluster[attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = (unsigned)value;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    if (value != 0 && value != 1) return CUDA_ERROR_INVALID_VALUE;
    hfunc->nonportable = value;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    if (value < CU_CLUSTER_SCHEDULING_POLICY_DEFAULT || value > CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING)
      return CUDA_ERROR_INVALID_VALUE;
    hfunc->sched_policy = value;
    return CUDA_SUCCESS;
  default:   /* read-only, or no attribute */
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  return (unsigned)config <= CU_FUNC_CACHE_PREFER_EQUAL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  return (unsigned)config <= CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The offset and size of a parameter in the kernel's parameter space (also
 * cuKernelGetParamInfo's answer). */
CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!drv_live_function(func)) return CUDA_ERROR_INVALID_HANDLE;
  if (!paramOffset || paramIndex >= (size_t)func->info.nparams) return CUDA_ERROR_INVALID_VALUE;
  CUcontext c;
  r = drv_enter(func->mod->ctx, &c);   /* ptxvm calls on the context need its lock */
  if (r != CUDA_SUCCESS) return r;
  ptxvm_param_info pi;
  ptxvm_status st = ptxvm_function_get_param(func->vm, 0, (int)paramIndex, &pi);
  r = st == PTXVM_SUCCESS ? CUDA_SUCCESS : drv_result(c, st, CUDA_ERROR_INVALID_VALUE);
  drv_leave(c);
  if (r != CUDA_SUCCESS) return r;
  *paramOffset = (size_t)pi.offset;
  if (paramSize) *paramSize = (size_t)pi.size;
  return CUDA_SUCCESS;
}
