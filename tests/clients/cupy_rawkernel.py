"""CuPy under `ptxvm exec`: a RawKernel vector add compiled by NVRTC to PTX
(CUPY_COMPILE_WITH_PTX=1, so CuPy loads PTX, not a cubin), checked against
numpy. CuPy calls the CUDA runtime, and NVIDIA's runtime reaches the driver
through undocumented export tables (cuGetExportTable) that ptxvm does not
implement, so it needs ptxvm's own runtime (libcudart.so.13 beside ptxvm's
libcuda.so.1). The cupy-cuda13x wheels link NVIDIA's runtime statically
(libcudart_static, inside cupy_backends' runtime module): with those this
test is skipped, exit 77, saying why, as it is without ptxvm's runtime.
Run: CUPY_COMPILE_WITH_PTX=1 ptxvm exec python3 cupy_rawkernel.py BUILD_DIR"""
import importlib.util
import os
import sys

import numpy as np

build = sys.argv[1] if len(sys.argv) > 1 else "build"
spec = importlib.util.find_spec("cupy_backends.cuda.api.runtime")
if spec is None:
    print("SKIP CuPy is not installed")
    sys.exit(77)
with open(spec.origin, "rb") as f:
    if b"libcudart_static" in f.read():
        print("SKIP CuPy: %s links NVIDIA's static CUDA runtime, which needs the driver's undocumented "
              "export tables (ptxvm answers cuGetExportTable with CUDA_ERROR_NOT_FOUND)" % os.path.basename(spec.origin))
        sys.exit(77)
if not os.path.exists(os.path.join(build, "libcudart.so.13")):
    print("SKIP CuPy: %s has no libcudart.so.13 (ptxvm's CUDA runtime); NVIDIA's needs the driver's "
          "export tables, which ptxvm does not implement" % build)
    sys.exit(77)
if os.environ.get("CUPY_COMPILE_WITH_PTX") != "1":
    sys.exit("FAIL run with CUPY_COMPILE_WITH_PTX=1 (CuPy would load a cubin)")

import cupy as cp  # noqa: E402

SRC = r"""
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
"""


def main():
    kernel = cp.RawKernel(SRC, "vadd")
    n = 4000
    rng = np.random.default_rng(5)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    da, db = cp.asarray(a), cp.asarray(b)
    dc = cp.zeros_like(da)
    kernel(((n + 255) // 256,), (256,), (da, db, dc, np.int32(n)))
    c = cp.asnumpy(dc)
    if not np.array_equal(c, a + b):
        sys.exit("FAIL CuPy RawKernel vector add: %d of %d differ" % (np.count_nonzero(c != a + b), n))
    print("PASS CuPy RawKernel (PTX) vector add (%d elements)" % n)


if __name__ == "__main__":
    main()
