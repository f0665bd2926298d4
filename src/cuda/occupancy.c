/* occupancy.c: the occupancy calculator (cuOccupancy*), answered by ptxvm's
 * model of the device (ptxvm.h ptxvm_function_occupancy: CTA slots, warps,
 * registers and shared memory of an sm_90 SM; 132 SMs), so that what it
 * says a launch can have is what the launch checks allow, and a cooperative
 * grid of cuOccupancyMaxActiveBlocksPerMultiprocessor x
 * CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT CTAs launches.
 *
 * Dynamic shared memory beyond the function's limit
 * (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) gives 0 CTAs, as that
 * launch would fail. The flags (CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE) are
 * about global caching on older GPUs and change nothing on sm_90. Cluster
 * answers count clusters on the whole device, without GPC boundaries (the
 * model has none: a GPU may hold fewer). */
#include "driver.h"

/* Enters f's context (locked) after checking the common arguments. */
static CUresult enter(CUfunction f, const void *out, CUcontext *c) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!drv_live_function(f)) return CUDA_ERROR_INVALID_HANDLE;
  return drv_enter(f->mod->ctx, c);
}

/* Under the lock: *occ for CTAs of `threads` threads and `dyn` dynamic
 * shared bytes in clusters of `ctas` (zero when the launch would be refused
 * for its dynamic shared memory). */
static CUresult model(CUfunction f, int threads, size_t dyn, unsigned ctas, ptxvm_occupancy *occ) {
  ptxvm_function_resources res;
  CUresult r = drv_function_resources(f, &res);
  if (r != CUDA_SUCCESS) return r;
  if (threads <= 0) return CUDA_ERROR_INVALID_VALUE;
  *occ = (ptxvm_occupancy){0, 0};
  if (dyn > drv_dyn_limit(f, res.shared_bytes)) return CUDA_SUCCESS;
  ptxvm_status st = ptxvm_function_occupancy(f->vm, (unsigned)threads, dyn, ctas, occ);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : drv_result(f->mod->ctx, st, CUDA_ERROR_INVALID_VALUE);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func, int blockSize,
                                                              size_t dynamicSMemSize, unsigned int flags) {
  CUcontext c;
  CUresult r = enter(func, numBlocks, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_occupancy occ;
  r = flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE ? CUDA_ERROR_INVALID_VALUE
                                                    : model(func, blockSize, dynamicSMemSize, 1, &occ);
  drv_leave(c);
  if (r == CUDA_SUCCESS) *numBlocks = (int)occ.ctas_per_sm;
  return r;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                              CU_OCCUPANCY_DEFAULT);
}

/* The block size with the most resident threads per SM, the largest of
 * those (the fewest CTAs), trying the limit and each whole warp below it. */
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func,
                                                   CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                   size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags) {
  CUcontext c;
  CUresult r = enter(func, minGridSize, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_function_resources res;
  r = !blockSize || blockSizeLimit < 0 || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE
          ? CUDA_ERROR_INVALID_VALUE : drv_function_resources(func, &res);
  int best = 0, best_ctas = 0;
  if (r == CUDA_SUCCESS) {
    int top = blockSizeLimit && blockSizeLimit < (int)res.max_threads ? blockSizeLimit : (int)res.max_threads;
    long best_threads = 0;
    for (int bs = top; bs > 0 && r == CUDA_SUCCESS; bs = (bs - 1) / 32 * 32) {
      ptxvm_occupancy occ;
      r = model(func, bs, blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(bs) : dynamicSMemSize, 1, &occ);
      if (r == CUDA_SUCCESS && (long)occ.ctas_per_sm * bs > best_threads) {
        best_threads = (long)occ.ctas_per_sm * bs;
        best = bs;
        best_ctas = (int)occ.ctas_per_sm;
      }
    }
  }
  drv_leave(c);
  if (r != CUDA_SUCCESS) return r;
  *blockSize = best;
  *minGridSize = best_ctas * drv_device_attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
                                          int blockSizeLimit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                                                   dynamicSMemSize, blockSizeLimit, CU_OCCUPANCY_DEFAULT);
}

/* The most dynamic shared memory at which numBlocks CTAs fit on an SM: the
 * model searched (it only falls as the bytes grow). numBlocks more than fit
 * with none is CUDA_ERROR_INVALID_VALUE. */
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func, int numBlocks,
                                                 int blockSize) {
  CUcontext c;
  CUresult r = enter(func, dynamicSmemSize, &c);
  if (r != CUDA_SUCCESS) return r;
  ptxvm_occupancy occ = {0, 0};
  r = numBlocks <= 0 ? CUDA_ERROR_INVALID_VALUE : model(func, blockSize, 0, 1, &occ);
  if (r == CUDA_SUCCESS && occ.ctas_per_sm < (unsigned)numBlocks) {
    drv_say("cuOccupancyAvailableDynamicSMemPerBlock: %d CTAs of %d threads of '%s' do not fit on an SM "
            "(at most %u)", numBlocks, blockSize, func->info.name, occ.ctas_per_sm);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  size_t lo = 0, hi = PTXVM_DEVICE_SHARED_PER_CTA;   /* lo fits; find the last that does */
  while (r == CUDA_SUCCESS && lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    r = model(func, blockSize, mid, 1, &occ);
    if (occ.ctas_per_sm >= (unsigned)numBlocks) lo = mid;
    else hi = mid - 1;
  }
  drv_leave(c);
  if (r == CUDA_SUCCESS) *dynamicSmemSize = lo;
  return r;
}

/* The cluster shape config asks for (its CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
 * else the kernel's required one): CTAs in *ctas, 0 when none. */
static CUresult config_cluster(CUfunction f, const CUlaunchConfig *config, unsigned *ctas) {
  LaunchRequest q = {0};
  for (unsigned i = 0; i < config->numAttrs; i++)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      CUresult r = drv_launch_attribute(&config->attrs[i], &q);
      if (r != CUDA_SUCCESS) return r;
    }
  unsigned req[3];
  int has_req = drv_required_cluster(f, req);
  if (has_req < 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  const unsigned *d = q.has_cluster ? q.cluster : has_req ? req : NULL;
  if (q.has_cluster && has_req && (req[0] != d[0] || req[1] != d[1] || req[2] != d[2]))
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  *ctas = d ? d[0] * d[1] * d[2] : 0;
  return d && (!*ctas || *ctas > drv_cluster_limit(f)) ? CUDA_ERROR_INVALID_CLUSTER_SIZE : CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func, const CUlaunchConfig *config) {
  CUcontext c;
  CUresult r = enter(func, numClusters, &c);
  if (r != CUDA_SUCCESS) return r;
  unsigned ctas = 0;
  ptxvm_occupancy occ;
  r = !config || (config->numAttrs && !config->attrs) ? CUDA_ERROR_INVALID_VALUE : config_cluster(func, config, &ctas);
  if (r == CUDA_SUCCESS && !ctas) r = CUDA_ERROR_INVALID_CLUSTER_SIZE;   /* "must be specified in config" */
  if (r == CUDA_SUCCESS)
    r = model(func, (int)(config->blockDimX * config->blockDimY * config->blockDimZ), config->sharedMemBytes,
              ctas, &occ);
  drv_leave(c);
  if (r == CUDA_SUCCESS) *numClusters = (int)occ.clusters;
  return r;
}

/* The required cluster's size if the kernel has one, else the largest
 * allowed (8, or 16 non-portable; .maxclusterrank) that the device holds. */
CUresult cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func, const CUlaunchConfig *config) {
  CUcontext c;
  CUresult r = enter(func, clusterSize, &c);
  if (r != CUDA_SUCCESS) return r;
  unsigned req[3], n = 0;
  ptxvm_occupancy occ;
  int has_req = drv_required_cluster(func, req);
  r = !config ? CUDA_ERROR_INVALID_VALUE : has_req < 0 ? CUDA_ERROR_INVALID_CLUSTER_SIZE
      : model(func, (int)(config->blockDimX * config->blockDimY * config->blockDimZ), config->sharedMemBytes, 1,
              &occ);
  if (r == CUDA_SUCCESS) {
    n = has_req ? req[0] * req[1] * req[2] : drv_cluster_limit(func);
    if (!has_req && n > occ.clusters) n = occ.clusters;   /* clusters of one: every CTA slot */
  }
  drv_leave(c);
  if (r == CUDA_SUCCESS) *clusterSize = (int)n;
  return r;
}
