"""Triton under `ptxvm exec`: a vector add and a row-wise softmax (Triton's
tutorials 01 and 02), checked against numpy, without torch.

Triton compiles a kernel through the stages ttir, ttgir, llir, ptx and cubin,
the last by running ptxas, and loads the cubin with cuModuleLoadData. ptxvm
runs PTX, not SASS: the stages-inspection hook Triton documents
(triton.knobs.runtime.add_stages_inspection_hook) replaces the cubin stage
by one that hands on the PTX text itself, NUL-terminated, so the launcher's
cuModuleLoadData receives PTX. The hook is called twice over: with no
arguments, for a cache key (so PTX "cubins" never mix with real ones in
Triton's cache), and with the backend's stages to edit.

Without torch, a tensor argument is any object with data_ptr() and dtype:
DeviceArray below, over cuda.bindings' cuMemAlloc.
Run: ptxvm exec python3 triton_kernels.py"""
import hashlib
import sys

import numpy as np
import triton
import triton.language as tl
from cuda.bindings import driver as cu

HOOK_KEY = "ptxvm-ptx-as-cubin"


def ptx_instead_of_cubin(*args):
    if not args:
        return HOOK_KEY, hashlib.sha256(HOOK_KEY.encode()).hexdigest()
    _backend, stages, _options, _language, _capability = args
    stages["cubin"] = lambda src, metadata: src.encode() + b"\0"


triton.knobs.runtime.add_stages_inspection_hook = ptx_instead_of_cubin


def check(res, what):
    err, *vals = res
    if err != cu.CUresult.CUDA_SUCCESS:
        sys.exit("FAIL %s: %s" % (what, cu.cuGetErrorName(err)[1]))
    return vals[0] if len(vals) == 1 else tuple(vals)


class DeviceArray:
    """Device memory that Triton takes as a tensor: data_ptr() and dtype."""

    def __init__(self, host):
        self.shape, self.dtype = host.shape, host.dtype
        self.nbytes = host.nbytes
        self.ptr = check(cu.cuMemAlloc(host.nbytes), "cuMemAlloc")
        check(cu.cuMemcpyHtoD(self.ptr, host.ctypes.data, host.nbytes), "cuMemcpyHtoD")

    def data_ptr(self):
        return int(self.ptr)

    def numpy(self):
        out = np.empty(self.shape, dtype=self.dtype)
        check(cu.cuMemcpyDtoH(out.ctypes.data, self.ptr, self.nbytes), "cuMemcpyDtoH")
        return out


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


def main():
    failures = []
    check(cu.cuInit(0), "cuInit")
    ctx = check(cu.cuDevicePrimaryCtxRetain(0), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    rng = np.random.default_rng(4)

    n = 98432 // 8
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    dx, dy, dout = DeviceArray(x), DeviceArray(y), DeviceArray(np.zeros_like(x))
    block = 1024
    add_kernel[(triton.cdiv(n, block),)](dx, dy, dout, n, BLOCK=block)
    got = dout.numpy()
    ok = np.array_equal(got, x + y)
    print("%s triton vector add (%d elements)" % ("PASS" if ok else "FAIL", n))
    if not ok:
        failures.append("vector add")

    rows, cols = 37, 781
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    da, dsm = DeviceArray(a), DeviceArray(np.zeros_like(a))
    softmax_kernel[(rows,)](dsm, da, a.strides[0] // 4, a.strides[0] // 4, cols,
                            BLOCK=triton.next_power_of_2(cols))
    got = dsm.numpy()
    e = np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    # tl.exp is ex2.approx: within a few float32 ulps of the exact softmax
    ok = np.allclose(got, want, rtol=1e-5, atol=1e-7) and np.allclose(got.sum(axis=1), 1, rtol=1e-5)
    print("%s triton softmax (%dx%d), max error %.2e" % ("PASS" if ok else "FAIL", rows, cols,
                                                       np.abs(got - want).max()))
    if not ok:
        failures.append("softmax")
    check(cu.cuDevicePrimaryCtxRelease(0), "cuDevicePrimaryCtxRelease")
    if failures:
        sys.exit("%d failed: %s" % (len(failures), ", ".join(failures)))


if __name__ == "__main__":
    main()
