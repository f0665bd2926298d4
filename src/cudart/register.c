/* register.c: the registration calls nvcc's generated code makes
 * (crt/host_runtime.h) and the loading of each fatbin's module.
 *
 * Before main(), each translation unit's constructor registers its fatbin
 * (__cudaRegisterFatBinary with the __fatBinC_Wrapper_t of
 * crt/fatbinary_section.h), then each kernel (host stub address -> mangled
 * name) and each variable (host shadow address -> device name, size,
 * __constant__ or not); an atexit handler unregisters the fatbin. Nothing
 * touches the driver then: the module is loaded on first use of one of its
 * kernels or variables (cuModuleLoadData of the wrapper: the driver finds
 * the PTX in it and lowers each kernel at its first launch), once per context, so a program that never launches costs nothing and a
 * program's many kernels share one module per translation unit.
 *
 * Relocatable device code (-rdc=true) is refused at first use: ptxvm has no
 * linker of PTX modules yet. Its __cudaRegisterLinkedBinary_* functions are
 * the program's own (crt/link.stub, compiled in by nvcc): they register the
 * device-linked fatbin through __cudaRegisterFatBinary, with a wrapper of
 * version 2 that lists each object's relocatable fatbin, which is how the
 * runtime tells. CUDA 13's runtime has no texture or surface references
 * (__cudaRegisterTexture/Surface are not among its symbols).
 * __managed__ variables are refused at first use too (managed memory is not
 * there yet): by the runtime calls that name them, and, for the host's own
 * accesses, by __cudaInitModule. */
#include <fatbinary_section.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

enum { FATBIN_MAGIC = 0x52544642 };

typedef struct RtVar {
  RtFatbin *fatbin;
  const void *host;          /* the host shadow's address */
  const char *name;          /* the device name (nvcc's string, static) */
  size_t size;
  bool constant, managed;
  bool said;                 /* a managed variable's refusal was said */
} RtVar;

struct RtFatbin {
  uint32_t magic;
  const __fatBinC_Wrapper_t *wrapper;
  CUmodule module;           /* loaded in epoch `epoch`; NULL before */
  unsigned epoch;
  cudaError_t error;         /* a failed load, kept for that epoch: said once */
  unsigned error_epoch;
  bool dead;                 /* unregistered (at exit) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUkern_st **kernels;
static int nkernels, cap_kernels;
static RtVar *vars;
static int nvars, cap_vars;

static bool grow(void **arr, int *cap, int n, size_t elem) {
  if (n < *cap) return true;
  int nc = *cap ? 2 * *cap : 64;
  void *p = realloc(*arr, (size_t)nc * elem);
  if (!p) return false;
  *arr = p;
  *cap = nc;
  return true;
}

void **__cudaRegisterFatBinary(void *fatCubin) {
  RtFatbin *fb = calloc(1, sizeof *fb);
  if (!fb) {
    rt_say("out of memory registering device code");
    return NULL;
  }
  fb->magic = FATBIN_MAGIC;
  fb->wrapper = fatCubin;
  return (void **)fb;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) { (void)fatCubinHandle; }

/* At exit: the module goes with the context (or with the process); the
 * records stay, as a later destructor may still name them (and get
 * cudaErrorCudartUnloading, as from NVIDIA's runtime in its teardown). */
void __cudaUnregisterFatBinary(void **fatCubinHandle) {
  RtFatbin *fb = (RtFatbin *)fatCubinHandle;
  if (fb && fb->magic == FATBIN_MAGIC) fb->dead = true;
}

/* nvcc's code calls this before the host first reads or writes a
 * __managed__ variable of the translation unit, through the pointer
 * __cudaRegisterManagedVar received, which the runtime must aim at the
 * variable's managed memory. ptxvm has no managed memory yet: the pointer
 * stays NULL, so the access that follows faults; say why first. */
char __cudaInitModule(void **fatCubinHandle) {
  bool managed = false;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nvars; i++)
    if (vars[i].fatbin == (RtFatbin *)fatCubinHandle && vars[i].managed) {
      managed = true;
      if (!vars[i].said) {
        vars[i].said = true;
        rt_say("__managed__ variable %s: managed memory is not implemented yet, so the host cannot reach it "
               "(its address is NULL)", vars[i].name);
      }
    }
  pthread_mutex_unlock(&lock);
  return !managed;
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
  (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
  RtFatbin *fb = (RtFatbin *)fatCubinHandle;
  struct CUkern_st *k = calloc(1, sizeof *k);
  pthread_mutex_lock(&lock);
  if (!k || !fb || !grow((void **)&kernels, &cap_kernels, nkernels, sizeof *kernels)) {
    pthread_mutex_unlock(&lock);
    free(k);
    rt_say("out of memory registering kernel %s", deviceName);
    return;
  }
  *k = (struct CUkern_st){RT_KERNEL_MAGIC, fb, hostFun, deviceName, NULL, 0};
  kernels[nkernels++] = k;
  pthread_mutex_unlock(&lock);
}

static void add_var(void **fatCubinHandle, const void *host, const char *name, size_t size, int constant,
                    bool managed) {
  pthread_mutex_lock(&lock);
  if (!fatCubinHandle || !grow((void **)&vars, &cap_vars, nvars, sizeof *vars)) {
    pthread_mutex_unlock(&lock);
    rt_say("out of memory registering variable %s", name);
    return;
  }
  vars[nvars++] = (RtVar){(RtFatbin *)fatCubinHandle, host, name, size, constant != 0, managed, false};
  pthread_mutex_unlock(&lock);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global) {
  (void)deviceAddress, (void)ext, (void)global;
  add_var(fatCubinHandle, hostVar, deviceName, size, constant, false);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global) {
  (void)deviceAddress, (void)ext, (void)global;
  add_var(fatCubinHandle, hostVarPtrAddress, deviceName, size, constant, true);
}

/* ---- loading ---- */

/* Relocatable device code: a version 2 wrapper that lists prelinked
 * fatbins (crt/link.stub). */
static bool relocatable(const RtFatbin *fb) {
  return fb->wrapper->version == 2 && fb->wrapper->filename_or_fatbins &&
         ((void *const *)fb->wrapper->filename_or_fatbins)[0];
}

/* fb's module in the current context; the runtime's lock is held. */
static cudaError_t module_of(RtFatbin *fb, CUmodule *out) {
  if (fb->dead) return cudaErrorCudartUnloading;   /* a destructor after the unregistration */
  if (fb->module && fb->epoch == rt_epoch) {
    *out = fb->module;
    return cudaSuccess;
  }
  if (fb->error != cudaSuccess && fb->error_epoch == rt_epoch) return fb->error;
  CUmodule m = NULL;
  cudaError_t e = cudaSuccess;
  if (relocatable(fb)) {
    rt_say("relocatable device code (nvcc -rdc=true) is not supported yet: ptxvm has no linker of "
           "PTX modules; build without -rdc=true");
    e = cudaErrorNotSupported;
  } else {   /* the driver takes the wrapper and finds its PTX (ptxvm.h "images") */
    CUresult r = cuModuleLoadData(&m, fb->wrapper);
    e = r == CUDA_ERROR_INVALID_PTX          ? cudaErrorInvalidPtx
        : r == CUDA_ERROR_NO_BINARY_FOR_GPU  ? cudaErrorNoKernelImageForDevice
        : r == CUDA_ERROR_INVALID_IMAGE      ? cudaErrorInvalidKernelImage
                                             : rt_error(r);
  }
  if (e != cudaSuccess) {
    fb->error = e;
    fb->error_epoch = rt_epoch;
    return e;
  }
  fb->module = m;
  fb->epoch = rt_epoch;
  *out = m;
  return cudaSuccess;
}

struct CUkern_st *rt_kernel_of(const void *host) {
  struct CUkern_st *k = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nkernels && !k; i++)
    if (kernels[i]->host == host) k = kernels[i];
  pthread_mutex_unlock(&lock);
  return k;
}

struct CUkern_st *rt_kernel_handle(const void *p) {
  struct CUkern_st *k = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nkernels && !k; i++)
    if (kernels[i] == p) k = kernels[i];
  pthread_mutex_unlock(&lock);
  return k;
}

cudaError_t rt_function(struct CUkern_st *k, CUfunction *out) {
  cudaError_t e = rt_init();
  if (e != cudaSuccess) return e;
  pthread_mutex_lock(&lock);
  if (!k->fn || k->epoch != rt_epoch) {
    CUmodule m = NULL;
    e = module_of(k->fatbin, &m);
    CUfunction f = NULL;
    if (e == cudaSuccess) {
      CUresult r = cuModuleGetFunction(&f, m, k->name);
      e = r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction : rt_error(r);
    }
    if (e == cudaSuccess) {
      k->fn = f;
      k->epoch = rt_epoch;
    }
  }
  *out = k->fn;
  pthread_mutex_unlock(&lock);
  return e;
}

cudaError_t rt_symbol(const void *host, CUdeviceptr *dptr, size_t *size) {
  cudaError_t e = rt_init();
  if (e != cudaSuccess) return e;
  pthread_mutex_lock(&lock);
  RtVar *v = NULL;
  for (int i = 0; i < nvars && !v; i++)
    if (vars[i].host == host) v = &vars[i];
  if (!v) e = cudaErrorInvalidSymbol;
  else if (v->managed) {
    rt_say("__managed__ variable %s: managed memory is not implemented yet", v->name);
    e = cudaErrorNotSupported;
  }
  CUmodule m = NULL;
  if (e == cudaSuccess) e = module_of(v->fatbin, &m);
  if (e == cudaSuccess) {
    CUresult r = cuModuleGetGlobal(dptr, size, m, v->name);
    e = r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidSymbol : rt_error(r);
  }
  pthread_mutex_unlock(&lock);
  return e;
}

void rt_modules_forget(void) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nkernels; i++) kernels[i]->fn = NULL;
  for (int i = 0; i < nvars; i++) vars[i].fatbin->module = NULL;
  for (int i = 0; i < nkernels; i++) kernels[i]->fatbin->module = NULL;
  pthread_mutex_unlock(&lock);
}

