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
 * the PTX in it and lowers each kernel at its first launch), once per
 * context, so a program that never launches costs nothing and a program's
 * many kernels share one module per translation unit.
 *
 * Relocatable device code (-rdc=true): __cudaRegisterLinkedBinary_<id> are
 * the program's own (crt/link.stub, compiled in by nvcc's device link):
 * each unit's constructor hands its relocatable fatbin and registration
 * callback to its one; the last registers the device link's fatbin through
 * __cudaRegisterFatBinary, with a wrapper of version 2 whose second field
 * lists each object's relocatable fatbin (NULL-terminated), and calls every
 * unit's callback with that one handle. So all kernels and variables of the
 * program's device code are the one fatbin's, and its module is the
 * objects' PTX linked (link_objects) rather than the wrapper's SASS.
 * CUDA 13's runtime has no texture or surface references
 * (__cudaRegisterTexture/Surface are not among its symbols).
 *
 * A __managed__ variable is .attribute(.managed) in the PTX, which the
 * driver places in managed memory. The host reaches it through a pointer
 * nvcc's code keeps (__cudaRegisterManagedVar receives its address): each
 * host access first calls __cudaInitModule (once per translation unit),
 * which loads the module and aims every such pointer of it at its
 * variable; any other load of the module (a launch, a symbol call) aims
 * them again. cudaDeviceReset frees them with the context (the pointers
 * become NULL); the first runtime call after it loads those modules again
 * (rt_managed_reaim), since nvcc's code calls __cudaInitModule only once.
 * The runtime calls that name a managed variable get the variable itself,
 * the storage the pointer points at, as their symbol. */
#include <dlfcn.h>
#include <fatbinary_section.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

enum { FATBIN_MAGIC = 0x52544642 };

typedef struct RtVar {
  RtFatbin *fatbin;
  const void *host;          /* the host shadow's address (managed: NULL) */
  void **pointer;            /* managed: nvcc's pointer the host reaches it by */
  const char *name;          /* the device name (nvcc's string, static) */
  size_t size;
  bool constant, managed;
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

static void add_var(void **fatCubinHandle, const void *host, void **pointer, const char *name, size_t size,
                    int constant) {
  pthread_mutex_lock(&lock);
  if (!fatCubinHandle || !grow((void **)&vars, &cap_vars, nvars, sizeof *vars)) {
    pthread_mutex_unlock(&lock);
    rt_say("out of memory registering variable %s", name);
    return;
  }
  vars[nvars++] = (RtVar){(RtFatbin *)fatCubinHandle, host, pointer, name, size, constant != 0, pointer != NULL};
  pthread_mutex_unlock(&lock);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global) {
  (void)deviceAddress, (void)ext, (void)global;
  add_var(fatCubinHandle, hostVar, NULL, deviceName, size, constant);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global) {
  (void)deviceAddress, (void)ext, (void)global;
  add_var(fatCubinHandle, NULL, hostVarPtrAddress, deviceName, size, constant);
}

/* ---- loading ---- */

/* Relocatable device code: a version 2 wrapper that lists prelinked
 * fatbins in filename_or_fatbins (crt/link.stub). */
static bool relocatable(const RtFatbin *fb) {
  return fb->wrapper->version == 2 && fb->wrapper->filename_or_fatbins &&
         ((void *const *)fb->wrapper->filename_or_fatbins)[0];
}

/* Aims the host's pointer of each managed variable of fb at the variable in
 * module m (the lock is held). A variable the module lacks: the pointer
 * stays as it is (NULL before the first load) and the load fails. */
static cudaError_t aim_managed(RtFatbin *fb, CUmodule m) {
  for (int i = 0; i < nvars; i++) {
    if (vars[i].fatbin != fb || !vars[i].managed) continue;
    CUdeviceptr p = 0;
    size_t n = 0;
    CUresult r = cuModuleGetGlobal(&p, &n, m, vars[i].name);
    if (r != CUDA_SUCCESS) {
      rt_say("__managed__ variable %s: not in the module's PTX", vars[i].name);
      return r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidSymbol : rt_error(r);
    }
    *vars[i].pointer = (void *)(uintptr_t)p;
  }
  return cudaSuccess;
}

/* The runtime's error for a driver's failed load or link of device code:
 * what the runtime documents for a JIT that fails (cudaErrorInvalidPtx),
 * code for no target it can run (cudaErrorNoKernelImageForDevice) and an
 * image it cannot read (cudaErrorInvalidKernelImage). */
static cudaError_t load_error(CUresult r) {
  return r == CUDA_ERROR_INVALID_PTX          ? cudaErrorInvalidPtx
         : r == CUDA_ERROR_NO_BINARY_FOR_GPU  ? cudaErrorNoKernelImageForDevice
         : r == CUDA_ERROR_INVALID_IMAGE      ? cudaErrorInvalidKernelImage
                                              : rt_error(r);
}

/* Relocatable device code: the PTX of each object's fatbin in the wrapper's
 * list (the order crt/link.stub registered them in, which is the link's)
 * linked into one module by the driver's linker, which says a failure
 * (FILE#N:LINE:COL, FILE the executable or library that holds the fatbin,
 * N its place in the list: the device link's order, in which `ptxvm ptx
 * FILE` lists the objects that have PTX) on stderr.
 * nvlink's SASS in the wrapper's own fatbin is not used. */
static CUresult link_objects(const RtFatbin *fb, CUmodule *out) {
  void *const *objs = (void *const *)fb->wrapper->filename_or_fatbins;
  CUlinkState s = NULL;
  CUresult r = cuLinkCreate(0, NULL, NULL, &s);
  int added = 0;
  for (int i = 0; r == CUDA_SUCCESS && objs[i]; i++) {
    Dl_info dl;
    char name[1100];
    snprintf(name, sizeof name, "%s#%d", dladdr(objs[i], &dl) && dl.dli_fname && *dl.dli_fname ? dl.dli_fname
                                                                                                  : "<image>", i + 1);
    r = cuLinkAddData(s, CU_JIT_INPUT_FATBINARY, objs[i], 0, name, 0, NULL, NULL);
    added += r == CUDA_SUCCESS;
    /* an object without PTX for sm_90 (said): left out, as `ptxvm run`
       leaves it out; libcudadevrt's is one (the device runtime, whose
       calls ptxvm refuses at launch) */
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) r = CUDA_SUCCESS;
  }
  if (r == CUDA_SUCCESS && !added) r = CUDA_ERROR_NO_BINARY_FOR_GPU;
  void *image = NULL;
  size_t size = 0;
  if (r == CUDA_SUCCESS) r = cuLinkComplete(s, &image, &size);
  if (r == CUDA_SUCCESS) r = cuModuleLoadData(out, image);   /* the image is the state's: loaded before it goes */
  if (s) cuLinkDestroy(s);
  return r;
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
  /* the driver takes a wrapper and finds its PTX (ptxvm.h "images") */
  cudaError_t e = load_error(relocatable(fb) ? link_objects(fb, &m) : cuModuleLoadData(&m, fb->wrapper));
  if (e == cudaSuccess && (e = aim_managed(fb, m)) != cudaSuccess) cuModuleUnload(m);
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

/* nvcc's code calls this before the host first reads or writes a
 * __managed__ variable of the translation unit (through the pointer
 * __cudaRegisterManagedVar received); loading the module aims the
 * pointers. Its answer is kept by the caller: 0, the load failed (said),
 * and the next access asks again. */
char __cudaInitModule(void **fatCubinHandle) {
  RtFatbin *fb = (RtFatbin *)fatCubinHandle;
  if (!fb || fb->magic != FATBIN_MAGIC || rt_init() != cudaSuccess) return 0;
  CUmodule m = NULL;
  pthread_mutex_lock(&lock);
  cudaError_t e = module_of(fb, &m);
  pthread_mutex_unlock(&lock);
  if (e != cudaSuccess) rt_say("the host cannot reach the __managed__ variables of a module that did not load (%s)",
                               cudaGetErrorName(e));
  return e == cudaSuccess;
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
  for (int i = 0; i < nvars && !v; i++)   /* a managed variable: the storage its pointer aims at */
    if (vars[i].managed ? host && *vars[i].pointer == host : vars[i].host == host) v = &vars[i];
  if (!v) e = cudaErrorInvalidSymbol;
  CUmodule m = NULL;
  if (e == cudaSuccess) e = module_of(v->fatbin, &m);
  if (e == cudaSuccess) {
    CUresult r = cuModuleGetGlobal(dptr, size, m, v->name);
    e = r == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidSymbol : rt_error(r);
  }
  pthread_mutex_unlock(&lock);
  return e;
}

/* After cudaDeviceReset: each module that has managed variables is loaded
 * in the new context, so the host's pointers aim at live storage again. */
void rt_managed_reaim(void) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nvars; i++) {
    CUmodule m;
    if (vars[i].managed && !vars[i].fatbin->dead) module_of(vars[i].fatbin, &m);   /* a failure is said */
  }
  pthread_mutex_unlock(&lock);
}

void rt_modules_forget(void) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nkernels; i++) kernels[i]->fn = NULL;
  /* the storage goes with the context: a host access before the next
     runtime call faults at NULL instead of reading freed memory */
  for (int i = 0; i < nvars; i++)
    if (vars[i].managed) *vars[i].pointer = NULL;
  for (int i = 0; i < nvars; i++) vars[i].fatbin->module = NULL;
  for (int i = 0; i < nkernels; i++) kernels[i]->fatbin->module = NULL;
  pthread_mutex_unlock(&lock);
}

