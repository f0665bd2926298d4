/* context.c: initialisation, the primary context, devices, their
 * properties and attributes, limits, versions, device synchronisation and
 * reset.
 *
 * As NVIDIA's runtime does, every thread works in the device's primary
 * context: the first call that needs the device initialises the driver
 * (cuInit), retains the primary context once for the process and makes it
 * current on the calling thread. cudaDeviceReset releases it (its modules,
 * memory and sticky error go with it); the next call starts a fresh one.
 *
 * cudaGetDeviceProperties reads each field from the driver's attributes
 * (src/cuda/attributes.def is the one source of the device model): one row
 * of the table below per field. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

_Atomic unsigned rt_epoch;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary;      /* retained while non-NULL */
static CUresult init_result = CUDA_SUCCESS;
static bool initialised;
static _Thread_local CUcontext made_current;   /* what this thread last set */

/* *in_init: the error is cuInit's. */
static CUresult retain(bool *in_init) {
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&lock);
  if (!initialised) {
    init_result = cuInit(0);
    initialised = true;
  }
  r = init_result;
  *in_init = r != CUDA_SUCCESS;
  if (r == CUDA_SUCCESS && !primary) r = cuDevicePrimaryCtxRetain(&primary, 0);
  CUcontext c = primary;
  pthread_mutex_unlock(&lock);
  if (r != CUDA_SUCCESS) return r;
  CUcontext cur = NULL;
  cuCtxGetCurrent(&cur);
  if (cur != c || made_current != c) {
    r = cuCtxSetCurrent(c);
    if (r == CUDA_SUCCESS) made_current = c;
  }
  return r;
}

static atomic_bool reaim;   /* cudaDeviceReset freed the managed variables */

cudaError_t rt_init(void) {
  bool in_init = false;
  CUresult r = retain(&in_init);
  if (r == CUDA_ERROR_NO_DEVICE) return cudaErrorNoDevice;
  if (in_init) return cudaErrorInitializationError;   /* cuInit said why (a bad PTXVM_* variable) */
  if (r == CUDA_SUCCESS && atomic_exchange(&reaim, false)) rt_managed_reaim();
  return rt_error(r);
}

#define INIT()                                                                 \
  do {                                                                         \
    cudaError_t e_ = rt_init();                                                \
    if (e_ != cudaSuccess) return rt_ret(e_);                                  \
  } while (0)

/* ---- devices ---- */

cudaError_t cudaGetDeviceCount(int *count) {
  if (!count) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuDeviceGetCount(count));
}

cudaError_t cudaGetDevice(int *device) {
  if (!device) return rt_ret(cudaErrorInvalidValue);
  *device = 0;   /* the one device; its context is made current on first use */
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  int n = 0;
  INIT();
  cuDeviceGetCount(&n);
  if (device < 0 || device >= n) return rt_ret(cudaErrorInvalidDevice);
  return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  (void)flags;
  cudaError_t e = cudaSetDevice(device);
  if (e != cudaSuccess) return e;
  return deviceFlags ? cudaSetDeviceFlags(deviceFlags) : cudaSuccess;
}

cudaError_t cudaSetValidDevices(int *device_arr, int len) {
  if (len < 0 || (len && !device_arr)) return rt_ret(cudaErrorInvalidValue);
  for (int i = 0; i < len; i++)
    if (device_arr[i] != 0) return rt_ret(cudaErrorInvalidDevice);
  return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  INIT();
  /* cudaDeviceMapHost is implied (unified addressing), as in CUDA 13 */
  return rt_cu(cuDevicePrimaryCtxSetFlags(0, flags & ~(unsigned)cudaDeviceMapHost));
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  if (!flags) return rt_ret(cudaErrorInvalidValue);
  INIT();
  unsigned f = 0;
  int active = 0;
  CUresult r = cuDevicePrimaryCtxGetState(0, &f, &active);
  if (r == CUDA_SUCCESS) *flags = f | cudaDeviceMapHost;
  return rt_cu(r);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
  if (!value) return rt_ret(cudaErrorInvalidValue);
  INIT();
  if (device != 0) return rt_ret(cudaErrorInvalidDevice);
  /* cudaDeviceAttr's numbers are CUdevice_attribute's */
  return rt_cu(cuDeviceGetAttribute(value, (CUdevice_attribute)attr, 0));
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
  if (!device || !prop) return rt_ret(cudaErrorInvalidValue);
  *device = 0;   /* the only one */
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
  if (!pciBusId || len <= 0) return rt_ret(cudaErrorInvalidValue);
  INIT();
  if (device != 0) return rt_ret(cudaErrorInvalidDevice);
  return rt_cu(cuDeviceGetPCIBusId(pciBusId, len, 0));
}

static int attr(CUdevice_attribute a) {
  int v = 0;
  if (cuDeviceGetAttribute(&v, a, 0) != CUDA_SUCCESS) v = 0;
  return v;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
  if (!prop) return rt_ret(cudaErrorInvalidValue);
  INIT();
  if (device != 0) return rt_ret(cudaErrorInvalidDevice);
  memset(prop, 0, sizeof *prop);
  CUresult r = cuDeviceGetName(prop->name, sizeof prop->name, 0);
  if (r == CUDA_SUCCESS) r = cuDeviceGetUuid((CUuuid *)&prop->uuid, 0);
  size_t total = 0;
  if (r == CUDA_SUCCESS) r = cuDeviceTotalMem(&total, 0);
  if (r != CUDA_SUCCESS) return rt_cu(r);
  prop->totalGlobalMem = total;
#define I(field, a) prop->field = attr(CU_DEVICE_ATTRIBUTE_##a);
#define U(field, a) prop->field = (unsigned)attr(CU_DEVICE_ATTRIBUTE_##a);
#define Z(field, a) prop->field = (size_t)attr(CU_DEVICE_ATTRIBUTE_##a);
#define V(field, i, a) prop->field[i] = attr(CU_DEVICE_ATTRIBUTE_##a);
#include "props.def"
#undef I
#undef U
#undef Z
#undef V
  return cudaSuccess;
}

/* ---- limits, configuration ---- */

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  INIT();
  /* cudaLimit's numbers are CUlimit's */
  return rt_cu(cuCtxSetLimit((CUlimit)limit, value));
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit) {
  if (!pValue) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuCtxGetLimit(pValue, (CUlimit)limit));
}

static enum cudaFuncCache cache_config = cudaFuncCachePreferNone;

/* A preference for the L1/shared split: ptxvm has no caches, so it is kept
 * and reported back, as on devices where the split is fixed. */
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  if ((unsigned)cacheConfig > cudaFuncCachePreferEqual) return rt_ret(cudaErrorInvalidValue);
  INIT();
  cache_config = cacheConfig;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
  if (!pCacheConfig) return rt_ret(cudaErrorInvalidValue);
  INIT();
  *pCacheConfig = cache_config;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  INIT();
  return rt_cu(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
}

/* ---- synchronisation, reset ---- */

cudaError_t cudaDeviceSynchronize(void) {
  INIT();
  return rt_cu(cuCtxSynchronize());
}

cudaError_t cudaDeviceReset(void) {
  pthread_mutex_lock(&lock);
  bool had = primary != NULL;
  primary = NULL;
  rt_epoch++;
  pthread_mutex_unlock(&lock);
  rt_modules_forget();   /* and every thread's sticky error goes (error.c) */
  atomic_store(&reaim, true);
  if (had) {
    cuCtxSynchronize();   /* flushes device printf output; a sticky error is dropped */
    CUresult r = cuDevicePrimaryCtxReset(0);
    made_current = NULL;
    if (r != CUDA_SUCCESS) return rt_cu(r);
  }
  return cudaSuccess;
}

/* ---- versions ---- */

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
  if (!runtimeVersion) return rt_ret(cudaErrorInvalidValue);
  *runtimeVersion = CUDART_VERSION;   /* the headers this runtime is built with */
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion) {
  if (!driverVersion) return rt_ret(cudaErrorInvalidValue);
  int v = 0;
  CUresult r = cuDriverGetVersion(&v);
  *driverVersion = r == CUDA_SUCCESS ? v : 0;
  return cudaSuccess;
}

/* The driver's entry points, through its cuGetProcAddress (the flags and
 * the query results have the driver's numbers). */
cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus) {
  if (!symbol || !funcPtr) return rt_ret(cudaErrorInvalidValue);
  INIT();
  CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SUCCESS;
  CUresult r = cuGetProcAddress(symbol, funcPtr, (int)cudaVersion, flags, &q);
  if (driverStatus) *driverStatus = (enum cudaDriverEntryPointQueryResult)q;
  /* a symbol not found is a status, not an error */
  return r == CUDA_ERROR_NOT_FOUND ? cudaSuccess : rt_cu(r);
}

/* Deprecated, but what CUDA 12's TMA examples call: the symbol of the
 * runtime's own version (cuda_runtime_api.h says so). */
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus) {
  return cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}
