/* client_queries.c: the context queries CUDA Python makes before its first
 * launch (cuda.core's Device and Stream, Numba's context), served by the
 * driver (stream.c, context.c); run by tests/run.py as `ptxvm exec PROGRAM`
 * (tests/driver/driver_api.c says how). Expected values: cuda.h's documented
 * answers and the range an sm_80-or-later GPU reports (0 to -5);
 * cuProfilerStart/Stop (cudaProfiler.h), which cuda.bindings finds through
 * cuGetProcAddress, change nothing without a profiling tool. Prints
 * "N passed, M failed" and exits 1 on a failure. */
#include <cuda.h>
#include <cudaProfiler.h>

#include "../unit/check.h"

int main(void) {
  int least = 99, greatest = 99;
  CHECK(cuCtxGetStreamPriorityRange(&least, &greatest) == CUDA_ERROR_NOT_INITIALIZED);
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CHECK(cuCtxGetStreamPriorityRange(&least, &greatest) == CUDA_ERROR_INVALID_CONTEXT);
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  CHECK(cuCtxGetStreamPriorityRange(&least, &greatest) == CUDA_SUCCESS);
  CHECK(least == 0 && greatest == -5);
  /* either pointer may be NULL */
  least = greatest = 99;
  CHECK(cuCtxGetStreamPriorityRange(NULL, &greatest) == CUDA_SUCCESS && greatest == -5);
  CHECK(cuCtxGetStreamPriorityRange(&least, NULL) == CUDA_SUCCESS && least == 0);
  CHECK(cuCtxGetStreamPriorityRange(NULL, NULL) == CUDA_SUCCESS);
  CHECK(cuProfilerStart() == CUDA_SUCCESS && cuProfilerStop() == CUDA_SUCCESS);
  void *fn = NULL;
  CUdriverProcAddressQueryResult st;
  CHECK(cuGetProcAddress("cuProfilerStart", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st) == CUDA_SUCCESS &&
        st == CU_GET_PROC_ADDRESS_SUCCESS && fn == (void *)cuProfilerStart);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(NULL) == CUDA_SUCCESS);
  CHECK(cuProfilerStart() == CUDA_ERROR_INVALID_CONTEXT);
  return unit_report();
}
