/* device.c: the one device, an sm_90 modelled on an NVIDIA H100/H200
 * (attributes.def holds every attribute's value). */
#include <stdio.h>
#include <string.h>

#include "driver.h"

static const int attributes[] = {
  0,   /* attribute numbers start at 1 */
#define A(name, value) [CU_DEVICE_ATTRIBUTE_##name] = value,
#include "attributes.def"
#undef A
};
_Static_assert(sizeof attributes / sizeof attributes[0] == CU_DEVICE_ATTRIBUTE_MAX,
               "attributes.def: one row per CU_DEVICE_ATTRIBUTE_*");

int drv_device_attribute(CUdevice_attribute a) {
  return a > 0 && a < CU_DEVICE_ATTRIBUTE_MAX ? attributes[a] : 0;
}

static const char DEVICE_NAME[] = "ptxvm sm_90 (modelled on an NVIDIA H200)";

/* Checks the device number (one device: 0). */
static CUresult check_dev(CUdevice dev) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetCount(int *count) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  CUresult r = check_dev(dev);
  if (r != CUDA_SUCCESS) return r;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  snprintf(name, (size_t)len, "%s", DEVICE_NAME);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
  CUresult r = check_dev(dev);
  if (r != CUDA_SUCCESS) return r;
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  static const char id[16] = "ptxvm-sm_90-dev0";   /* fixed: one device, always the same */
  memcpy(uuid->bytes, id, sizeof uuid->bytes);
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  CUresult r = check_dev(dev);
  if (r != CUDA_SUCCESS) return r;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  /* what a context gets: ask a fresh one (cheap: no memory is committed) */
  ptxvm_context *vm;
  size_t free_bytes;
  if (ptxvm_context_create(&vm) != PTXVM_SUCCESS) return CUDA_ERROR_OUT_OF_MEMORY;
  ptxvm_status st = ptxvm_mem_get_info(vm, &free_bytes, bytes);
  ptxvm_context_destroy(vm);
  return st == PTXVM_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  CUresult r = check_dev(dev);
  if (r != CUDA_SUCCESS) return r;
  if (!pi || attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
  *pi = attributes[attrib];
  return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  CUresult r = check_dev(dev);
  if (r != CUDA_SUCCESS) return r;
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  *major = attributes[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR];
  *minor = attributes[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR];
  return CUDA_SUCCESS;
}

/* ---- older ABI variants with the same arguments ----
 * Programs built against older cuda.h headers (CUDA 12 maps cuCtxCreate to
 * cuCtxCreate_v2) and cuGetProcAddress calls with an older cudaVersion get
 * these, not a stub; variants whose arguments changed width (the CUDA 2.0
 * 32-bit CUdeviceptr forms) stay stubs (entries.c). An alias must sit beside
 * its target's definition. */
#undef cuDeviceGetUuid
SAME_AS(cuDeviceGetUuid, cuDeviceGetUuid_v2)
