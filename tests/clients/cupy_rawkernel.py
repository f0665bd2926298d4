"""CuPy under `ptxvm exec`: a RawKernel vector add compiled by NVRTC to PTX
(CUPY_COMPILE_WITH_PTX=1, so CuPy loads PTX, not a cubin), checked against
numpy. CuPy calls the CUDA runtime (libcudart), and NVIDIA's libcudart reaches
the driver through undocumented export tables that ptxvm does not implement:
CuPy needs ptxvm's own runtime. Without it (no libcudart.so.13 beside
ptxvm's libcuda.so.1) this test is skipped, exit 77, saying why.
Run: CUPY_COMPILE_WITH_PTX=1 ptxvm exec python3 cupy_rawkernel.py BUILD_DIR"""
import os
import sys

import numpy as np

build = sys.argv[1] if len(sys.argv) > 1 else "build"
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
