/* driver_eager.c: CUDA_MODULE_LOADING=EAGER on ptxvm's CUDA driver
 * (src/cuda/module.c), run by tests/run.py as `ptxvm exec PROGRAM` (see
 * driver_api.c). The program sets the variable itself, before cuInit, as
 * an environment would. Eager loading lowers each module whole at its
 * load; what a launch sees is the same as with lazy loading
 * (driver_images.c): cuModuleGetLoadingMode says EAGER, cuFuncIsLoaded that
 * a kernel is loaded before its launch, a kernel that
 * cannot run is refused at its own launch while the others run, a module
 * that cannot run as a whole fails its load, and a fatbin's kernels
 * compute what images.cu says.
 *
 * STDERR: ptxvm: <ptx>:7:3: vadd.u32.u32.u32 is not supported
 * STDERR: ptxvm: <ptx>: the frame of 'f' (3000000000 bytes of local memory per thread) is too large
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "images.h"

static const char partly_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry bad()\n{\n"
  "  .reg .b32 %r<3>;\n  vadd.u32.u32.u32 %r1, %r2, %r2;\n  ret;\n}\n"
  ".visible .entry seven(.param .u64 p)\n{\n"
  "  .reg .b32 %r1; .reg .b64 %rd1;\n"
  "  ld.param.u64 %rd1, [p]; mov.u32 %r1, 7; st.global.u32 [%rd1], %r1;\n  ret;\n}\n";

int main(void) {
  CHECK(setenv("CUDA_MODULE_LOADING", "EAGER", 1) == 0);
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CUmoduleLoadingMode mode = CU_MODULE_LAZY_LOADING;
  CHECK(cuModuleGetLoadingMode(&mode) == CUDA_SUCCESS && mode == CU_MODULE_EAGER_LOADING);
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, partly_ptx) == CUDA_SUCCESS);
  CUfunction bad, seven;
  CHECK(cuModuleGetFunction(&bad, mod, "bad") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&seven, mod, "seven") == CUDA_SUCCESS);
  CUfunctionLoadingState state;
  CHECK(cuFuncIsLoaded(&state, seven) == CUDA_SUCCESS && state == CU_FUNCTION_LOADING_STATE_LOADED);
  CUdeviceptr out;
  unsigned v = 0;
  CHECK(cuMemAlloc(&out, 4) == CUDA_SUCCESS);
  void *args[] = {&out};
  CHECK(cuLaunchKernel(bad, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuLaunchKernel(seven, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(&v, out, 4) == CUDA_SUCCESS && v == 7);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  static const char big[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                            ".func f(.param .align 4 .b8 a[3000000000])\n{\n  ret;\n}\n"
                            ".visible .entry k()\n{\n  ret;\n}\n";
  CHECK(cuModuleLoadData(&mod, big) == CUDA_ERROR_NOT_SUPPORTED);
  /* scale over 4 floats i: i * 2.5 */
  CHECK(cuModuleLoadData(&mod, img_zstd) == CUDA_SUCCESS);
  CUfunction scale;
  CHECK(cuModuleGetFunction(&scale, mod, "scale") == CUDA_SUCCESS);
  float in[4] = {0, 1, 2, 3}, res[4], s = 2.5f;
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, sizeof in) == CUDA_SUCCESS && cuMemcpyHtoD(p, in, sizeof in) == CUDA_SUCCESS);
  void *sargs[] = {&p, &s};
  CHECK(cuLaunchKernel(scale, 1, 1, 1, 4, 1, 1, 0, NULL, sargs, NULL) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(res, p, sizeof res) == CUDA_SUCCESS);
  CHECK(res[0] == 0 && res[1] == 2.5f && res[2] == 5 && res[3] == 7.5f);
  CHECK(cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(ctx) == CUDA_SUCCESS);
  return unit_report();
}
