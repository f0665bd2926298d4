/* runtime.h: ptxvm's CUDA runtime (libcudart.so.13), the internals its
 * files share.
 *
 * The runtime is a layer on the public CUDA driver API (cuda.h, served by
 * ptxvm's libcuda.so.1) and on nothing of ptxvm's internals. It keeps what
 * the driver does not know: the device code nvcc registers before main()
 * (each translation unit's fatbin, its kernels by host stub address, its
 * variables by host shadow address), the <<<>>> call configuration, each
 * thread's last error, and the primary context every thread works in.
 * cudaStream_t, cudaEvent_t and cudaFunction_t are the driver's CUstream,
 * CUevent and CUfunction; a cudaKernel_t is the runtime's record of one
 * registered kernel (struct CUkern_st, below).
 *
 * Files: entries.c (every exported symbol: stubs for what is not
 * implemented, the _ptds/_ptsz variants), error.c (errors: the CUresult
 * mapping, last error, names), context.c (initialisation, the primary
 * context, devices, versions), register.c (the registration calls and the
 * lazy loading of each fatbin's module), launch.c (call configuration,
 * launches, function attributes, occupancy), memory.c (allocation, copies,
 * sets, symbols), stream.c (streams, events, host functions), graph.c
 * (stream capture, graphs). */
#ifndef PTXVM_CUDART_RUNTIME_H
#define PTXVM_CUDART_RUNTIME_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { RT_KERNEL_MAGIC = 0x4b524e21 };

typedef struct RtFatbin RtFatbin;

/* A registered kernel: __cudaRegisterFunction's host stub and device name;
 * its CUfunction once its fatbin's module is loaded. */
struct CUkern_st {
  uint32_t magic;
  RtFatbin *fatbin;
  const void *host;          /* the host stub's address: the program's handle */
  const char *name;          /* the mangled name (nvcc's string, static) */
  CUfunction fn;             /* NULL until loaded (and again after a reset) */
  unsigned epoch;            /* rt_epoch when fn was looked up */
};

/* The registration and launch calls of nvcc's generated code, as
 * crt/host_runtime.h and crt/device_functions.h declare them (C++ headers). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
char __cudaInitModule(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream);

/* ---- error.c ---- */
/* The cudaError_t the runtime returns for a driver result. */
cudaError_t rt_error(CUresult r);
/* Records e as the calling thread's last error (unless cudaSuccess) and
 * returns it: every entry point returns through it. */
cudaError_t rt_ret(cudaError_t e);
static inline cudaError_t rt_cu(CUresult r) { return rt_ret(rt_error(r)); }
/* "ptxvm: " and the formatted text, with a newline, on stderr. */
void rt_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Says once per process that `what` is not implemented; cudaErrorNotSupported. */
cudaError_t rt_unsupported(const char *what);

/* ---- memory.c ---- */
/* Whether p lies in an allocation of the driver (device, managed, pinned or
 * registered memory: a copy's device side under cudaMemcpyDefault). */
bool rt_on_device(const void *p);

/* ---- context.c ---- */
/* Makes the primary context current on the calling thread (initialising
 * the driver and retaining it on first use): cudaSuccess or the error. */
cudaError_t rt_init(void);
/* Bumped by cudaDeviceReset: modules and functions of an older epoch are
 * gone with the context that held them. */
extern _Atomic unsigned rt_epoch;

/* ---- register.c ---- */
/* The kernel registered for host stub `host` (NULL if none). */
struct CUkern_st *rt_kernel_of(const void *host);
/* The kernel whose cudaKernel_t is p (NULL if p is none). */
struct CUkern_st *rt_kernel_handle(const void *p);
/* Its CUfunction, loading its fatbin's module on first use. */
cudaError_t rt_function(struct CUkern_st *k, CUfunction *out);
/* A registered variable's device address and size, by its host shadow
 * address (cudaMemcpyToSymbol ...; a __managed__ variable's is its storage):
 * cudaErrorInvalidSymbol if none. */
cudaError_t rt_symbol(const void *host, CUdeviceptr *dptr, size_t *size);
/* Forgets every loaded module (cudaDeviceReset, before the context goes). */
void rt_modules_forget(void);
/* Loads again each module that has __managed__ variables (the first
 * runtime call after cudaDeviceReset), aiming the host's pointers. */
void rt_managed_reaim(void);

#endif
