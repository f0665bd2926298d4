/* launch.c: the <<<>>> call configuration, kernel launches, function
 * attributes and occupancy.
 *
 * nvcc turns `k<<<g, b, s, st>>>(args)` into __cudaPushCallConfiguration
 * (before the arguments are evaluated, which may launch kernels of their
 * own: the configurations are a stack per thread), then the host stub k,
 * which pops it, finds its cudaKernel_t once (__cudaGetKernel) and calls
 * __cudaLaunchKernel with an array of pointers to its arguments, one per
 * .param of the kernel: cuLaunchKernel's kernelParams. A launch's own errors
 * (a bad configuration, an unknown kernel) are returned and become the last
 * error; a fault while it runs is the context's sticky error, reported by
 * the next call, as on a GPU. */
#include <pthread.h>
#include <string.h>

#include "runtime.h"

typedef struct CallConfig {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
} CallConfig;

enum { CONFIG_DEPTH = 32 };
static _Thread_local CallConfig configs[CONFIG_DEPTH];
static _Thread_local int nconfigs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream) {
  if (nconfigs == CONFIG_DEPTH) {
    rt_say("kernel launches nested %d deep in their arguments: too deep", CONFIG_DEPTH);
    rt_ret(cudaErrorLaunchOutOfResources);
    return 1;   /* the stub is not called */
  }
  configs[nconfigs++] = (CallConfig){gridDim, blockDim, sharedMem, stream};
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream) {
  if (!nconfigs) return rt_ret(cudaErrorMissingConfiguration);
  CallConfig c = configs[--nconfigs];
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared;
  *(cudaStream_t *)stream = c.stream;
  return cudaSuccess;
}

/* The kernel a launch names: a host stub, or a cudaKernel_t the runtime gave
 * (found by address among the registered kernels, never dereferenced
 * unchecked). */
static struct CUkern_st *kernel_named(const void *func) {
  struct CUkern_st *k = rt_kernel_of(func);
  return k ? k : rt_kernel_handle(func);
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) {
  if (!kernel) return rt_ret(cudaErrorInvalidValue);
  struct CUkern_st *k = rt_kernel_of(hostFun);
  if (!k) return rt_ret(cudaErrorInvalidDeviceFunction);
  *kernel = k;
  return cudaSuccess;
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
  return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

static cudaError_t function_of(const void *func, CUfunction *f) {
  struct CUkern_st *k = kernel_named(func);
  if (!k) return cudaErrorInvalidDeviceFunction;
  return rt_function(k, f);
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr) {
  if (!functionPtr) return rt_ret(cudaErrorInvalidValue);
  CUfunction f = NULL;
  cudaError_t e = function_of(symbolPtr, &f);
  if (e == cudaSuccess) *functionPtr = f;
  return rt_ret(e);
}

cudaError_t cudaFuncGetName(const char **name, const void *func) {
  if (!name) return rt_ret(cudaErrorInvalidValue);
  struct CUkern_st *k = kernel_named(func);
  if (!k) return rt_ret(cudaErrorInvalidDeviceFunction);
  *name = k->name;
  return cudaSuccess;
}

/* The runtime's own checks of a configuration (cudaErrorInvalidConfiguration
 * where the driver would say CUDA_ERROR_INVALID_VALUE). */
static cudaError_t check_config(dim3 g, dim3 b) {
  unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
  if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z || threads > 1024 || b.x > 1024 || b.y > 1024 ||
      b.z > 64 || g.y > 65535 || g.z > 65535 || g.x > 2147483647u)
    return cudaErrorInvalidConfiguration;
  return cudaSuccess;
}

static cudaError_t launch(const void *func, dim3 g, dim3 b, void **args, size_t shared, cudaStream_t stream) {
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e == cudaSuccess) e = check_config(g, b);
  if (e == cudaSuccess && shared > 0xffffffffu) e = cudaErrorInvalidValue;
  if (e != cudaSuccess) return rt_ret(e);
  return rt_cu(cuLaunchKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)shared, stream, args, NULL));
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream) {
  return launch(kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream) {
  return launch(func, gridDim, blockDim, args, sharedMem, stream);
}

/* Attributes go to cuLaunchKernelEx unchanged: cudaLaunchAttribute and
 * CUlaunchAttribute have one layout and cudaLaunchAttributeID's numbers are
 * CUlaunchAttributeID's. */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
  if (!config) return rt_ret(cudaErrorInvalidValue);
  if (!config->numAttrs) return launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                                       config->stream);
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e == cudaSuccess) e = check_config(config->gridDim, config->blockDim);
  if (e != cudaSuccess) return rt_ret(e);
  _Static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute), "one layout");
  CUlaunchConfig c = {config->gridDim.x, config->gridDim.y, config->gridDim.z, config->blockDim.x,
                      config->blockDim.y, config->blockDim.z, (unsigned)config->dynamicSmemBytes,
                      config->stream, (CUlaunchAttribute *)config->attrs, config->numAttrs};
  return rt_cu(cuLaunchKernelEx(&c, f, args, NULL));
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream) {
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e == cudaSuccess) e = check_config(gridDim, blockDim);
  if (e != cudaSuccess) return rt_ret(e);
  return rt_cu(cuLaunchCooperativeKernel(f, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z,
                                         (unsigned)sharedMem, stream, args));
}

/* ---- function attributes ---- */

static int fattr(CUfunction f, CUfunction_attribute a) {
  int v = 0;
  return cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS ? v : 0;
}

/* Every field is the driver's answer (cuFuncGetAttribute). */
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
  if (!attr) return rt_ret(cudaErrorInvalidValue);
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e != cudaSuccess) return rt_ret(e);
  memset(attr, 0, sizeof *attr);
  attr->sharedSizeBytes = (size_t)fattr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  attr->constSizeBytes = (size_t)fattr(f, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  attr->localSizeBytes = (size_t)fattr(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  attr->numRegs = fattr(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
  attr->maxThreadsPerBlock = fattr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  attr->ptxVersion = fattr(f, CU_FUNC_ATTRIBUTE_PTX_VERSION);
  attr->binaryVersion = fattr(f, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  attr->cacheModeCA = fattr(f, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
  attr->maxDynamicSharedSizeBytes = fattr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  attr->preferredShmemCarveout = fattr(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
  attr->clusterDimMustBeSet = fattr(f, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET);
  attr->requiredClusterWidth = fattr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
  attr->requiredClusterHeight = fattr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
  attr->requiredClusterDepth = fattr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
  attr->clusterSchedulingPolicyPreference = fattr(f, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
  attr->nonPortableClusterSizeAllowed = fattr(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
  return cudaSuccess;
}

/* cudaFuncAttribute's numbers are CUfunction_attribute's. */
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e != cudaSuccess) return rt_ret(e);
  return rt_cu(cuFuncSetAttribute(f, (CUfunction_attribute)attr, value));
}

/* A preference for the L1/shared split: ptxvm has no caches. */
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e == cudaSuccess && (unsigned)cacheConfig > cudaFuncCachePreferEqual) e = cudaErrorInvalidValue;
  return e == cudaSuccess ? cudaSuccess : rt_ret(e);
}

/* ---- occupancy (the driver's answers) ---- */

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags) {
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e != cudaSuccess) return rt_ret(e);
  return rt_cu(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, f, blockSize, dynamicSMemSize, flags));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func, int numBlocks,
                                                      int blockSize) {
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e != cudaSuccess) return rt_ret(e);
  return rt_cu(cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, f, numBlocks, blockSize));
}

cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func, const cudaLaunchConfig_t *config) {
  if (!config) return rt_ret(cudaErrorInvalidValue);
  CUfunction f = NULL;
  cudaError_t e = function_of(func, &f);
  if (e != cudaSuccess) return rt_ret(e);
  CUlaunchConfig c = {config->gridDim.x, config->gridDim.y, config->gridDim.z, config->blockDim.x,
                      config->blockDim.y, config->blockDim.z, (unsigned)config->dynamicSmemBytes,
                      config->stream, (CUlaunchAttribute *)config->attrs, config->numAttrs};
  return rt_cu(cuOccupancyMaxActiveClusters(numClusters, f, &c));
}
