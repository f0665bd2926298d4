"""Numba-cuda under `ptxvm exec`: @cuda.jit kernels launched on numpy arrays
(Numba copies them to the device and back), each result checked against
numpy: a vector add, a block reduction in shared memory with
cuda.syncthreads and cuda.atomic.add, a histogram of integer atomics,
a device function and a device array kept on the device across launches.
Numba compiles to PTX with NVVM (the nvidia-nvvm wheel); `ptxvm exec` hides
nvJitLink, so Numba links that PTX with the driver's cuLink*.
Run: ptxvm exec python3 numba_kernels.py"""
import sys

import numpy as np
from numba import cuda, float32, int32

failures = []


def expect(name, ok, detail=""):
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail and not ok else ""))
    if not ok:
        failures.append(name)


@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


TPB = 128


@cuda.jit
def block_sum(x, total):
    """Each CTA halves its slice in shared memory, then adds it to total."""
    s = cuda.shared.array(TPB, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(total, 0, s[0])


@cuda.jit
def histogram(keys, bins):
    i = cuda.grid(1)
    if i < keys.size:
        cuda.atomic.add(bins, keys[i], 1)
        cuda.atomic.max(bins, bins.size - 1, int32(keys[i]))


@cuda.jit(device=True)
def axpy1(a, x, y):
    return a * x + y


@cuda.jit
def saxpy(a, x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = axpy1(a, x[i], y[i])


def main():
    if not cuda.is_available():
        sys.exit("FAIL cuda.is_available() is False (run under ptxvm exec)")
    # ptxvm exec hides nvJitLink, so Numba links PTX with cuLink* (README "Python")
    from numba.cuda.cudadrv import driver
    expect("nvJitLink hidden (Numba links with the driver's cuLink*)", not driver._have_nvjitlink())
    cc = cuda.get_current_device().compute_capability
    expect("compute capability 9.0", cc == (9, 0), str(cc))
    rng = np.random.default_rng(3)

    n = 3000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.zeros_like(a)
    vadd[(n + 255) // 256, 256](a, b, c)
    expect("vector add", np.array_equal(c, a + b))

    # small integers: every partial sum is exact in float32, in any order
    x = rng.integers(0, 16, size=5000).astype(np.float32)
    total = np.zeros(1, dtype=np.float32)
    block_sum[(x.size + TPB - 1) // TPB, TPB](x, total)
    expect("shared-memory block sum + atomic.add", total[0] == x.sum(dtype=np.float64),
           "%r vs %r" % (total[0], x.sum()))

    nb = 17
    keys = rng.integers(0, nb - 1, size=4000).astype(np.int32)
    bins = np.zeros(nb, dtype=np.int32)
    histogram[(keys.size + 127) // 128, 128](keys, bins)
    want = np.bincount(keys, minlength=nb).astype(np.int32)
    want[nb - 1] = max(want[nb - 1], keys.max())
    expect("atomic.add histogram + atomic.max", np.array_equal(bins, want), "%s vs %s" % (bins, want))

    xs = rng.standard_normal(1000).astype(np.float32)
    ys = rng.standard_normal(1000).astype(np.float32)
    d_x = cuda.to_device(xs)
    d_y = cuda.to_device(ys)
    saxpy[4, 256](np.float32(2.0), d_x, d_y)
    saxpy[4, 256](np.float32(2.0), d_x, d_y)
    got = d_y.copy_to_host()
    two = np.float32(2.0)
    want = (two * xs + ys).astype(np.float32)
    want = (two * xs + want).astype(np.float32)
    # fma contraction: NVVM may fuse a*x+y, so allow one rounding's difference
    expect("device function, device arrays across launches", np.allclose(got, want, rtol=1e-6, atol=1e-6))

    if failures:
        sys.exit("%d failed: %s" % (len(failures), ", ".join(failures)))
    print("PASS numba-cuda kernels")


if __name__ == "__main__":
    main()
