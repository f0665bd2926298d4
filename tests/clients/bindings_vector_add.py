"""cuda.bindings.driver: a vector add from PTX text, the way cuda-python's
driver-API examples do it (cuInit, cuDevicePrimaryCtxRetain, cuModuleLoadData,
cuModuleGetFunction, cuMemAlloc, cuMemcpyHtoD, cuLaunchKernel, cuMemcpyDtoH),
checked against numpy. Run: ptxvm exec python3 bindings_vector_add.py"""
import ctypes
import sys

import numpy as np
from cuda.bindings import driver as cu

# the PTX nvcc -arch=sm_90 -ptx writes for
#   __global__ void vadd(const float *a, const float *b, float *c, int n)
#   { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
PTX = rb"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.s32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd8, %rd7, %rd5;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd6];
  add.f32 %f3, %f2, %f1;
  cvta.to.global.u64 %rd9, %rd3;
  add.s64 %rd10, %rd9, %rd5;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}
""" + b"\0"


def check(res, what):
    """The values a cuda.bindings call returns after its CUresult; exits on an error."""
    err, *vals = res
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        sys.exit("FAIL %s: %s" % (what, name.decode() if name else err))
    return vals[0] if len(vals) == 1 else tuple(vals)


def main():
    check(cu.cuInit(0), "cuInit")
    dev = check(cu.cuDeviceGet(0), "cuDeviceGet")
    major = check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
                  "cuDeviceGetAttribute")
    ctx = check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    mod = check(cu.cuModuleLoadData(PTX), "cuModuleLoadData")
    fn = check(cu.cuModuleGetFunction(mod, b"vadd"), "cuModuleGetFunction")

    n = 10000
    rng = np.random.default_rng(1)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, dtype=np.float32)
    nbytes = a.nbytes
    da = check(cu.cuMemAlloc(nbytes), "cuMemAlloc")
    db = check(cu.cuMemAlloc(nbytes), "cuMemAlloc")
    dc = check(cu.cuMemAlloc(nbytes), "cuMemAlloc")
    stream = check(cu.cuStreamCreate(0), "cuStreamCreate")
    check(cu.cuMemcpyHtoDAsync(da, a.ctypes.data, nbytes, stream), "cuMemcpyHtoDAsync")
    check(cu.cuMemcpyHtoDAsync(db, b.ctypes.data, nbytes, stream), "cuMemcpyHtoDAsync")

    # kernelParams: an array of pointers to each argument's value
    args = [np.array([int(da)], dtype=np.uint64), np.array([int(db)], dtype=np.uint64),
            np.array([int(dc)], dtype=np.uint64), np.array([n], dtype=np.int32)]
    params = np.array([x.ctypes.data for x in args], dtype=np.uint64)
    block = 256
    grid = (n + block - 1) // block
    check(cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, stream, params.ctypes.data, 0), "cuLaunchKernel")
    check(cu.cuMemcpyDtoHAsync(c.ctypes.data, dc, nbytes, stream), "cuMemcpyDtoHAsync")
    check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize")

    # the same launch with the argument values in a packed `extra` buffer
    c2 = np.zeros(n, dtype=np.float32)
    check(cu.cuMemsetD32(dc, 0, n), "cuMemsetD32")
    buf = (ctypes.c_uint64 * 4)(int(da), int(db), int(dc), n)
    size = ctypes.c_size_t(ctypes.sizeof(buf))
    extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(buf), 2, ctypes.addressof(size), 0)  # BUFFER_POINTER, BUFFER_SIZE, END
    check(cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, stream, 0, ctypes.addressof(extra)), "cuLaunchKernel extra")
    check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize")
    check(cu.cuMemcpyDtoH(c2.ctypes.data, dc, nbytes), "cuMemcpyDtoH")

    for p in (da, db, dc):
        check(cu.cuMemFree(p), "cuMemFree")
    check(cu.cuStreamDestroy(stream), "cuStreamDestroy")
    check(cu.cuModuleUnload(mod), "cuModuleUnload")
    check(cu.cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease")

    want = a + b  # float32 + float32, rounded once: the kernel's add.f32
    if major != 9:
        sys.exit("FAIL compute capability major %d, want 9" % major)
    if not np.array_equal(c, want):
        sys.exit("FAIL kernelParams launch: %d of %d differ" % (np.count_nonzero(c != want), n))
    if not np.array_equal(c2, want):
        sys.exit("FAIL extra launch: %d of %d differ" % (np.count_nonzero(c2 != want), n))
    print("PASS cuda.bindings.driver vector add (%d elements, kernelParams and extra)" % n)


if __name__ == "__main__":
    main()
