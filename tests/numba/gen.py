#!/usr/bin/env python3
"""gen.py: Numba-cuda kernels compiled for sm_90 without a GPU, and their numpy references.

    pip install numba-cuda nvidia-nvvm numpy   # then, from the repository root:
    python3 tests/numba/gen.py                 # rewrites tests/numba/{ptx,data,MANIFEST}

Each kernel is compiled by numba.cuda.compile_ptx(..., cc=(9, 0)) with the
NVVM that numba-cuda finds (the nvidia-nvvm wheel: CUDA 13.5's writes PTX ISA
9.5); the PTX goes to ptx/NAME.ptx, the inputs (numpy, fixed seeds) to data/,
and the launch with numpy's expected output to MANIFEST, which tests/run.py
runs (ids numba:NAME). The versions used are written into the MANIFEST header.

A Numba kernel takes each array as its data model's fields, one parameter
each: meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim]
(in bytes); `array_args` builds them, and the generator checks the count
against the kernel's parameters (`ptxvm info`, else the PTX). The numpy
references compute in float32 in the kernels' own order of operations, so
every expected output is byte-exact, but for libm (libdevice's expf and sinf).
"""
import math
import os
import sys

import numpy as np
import numba
from numba import cuda, float32, int32

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import realgen  # noqa: E402

TPB = 128


def block_reduce(a, out):
    sm = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = a[i] if i < a.size else float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


def warp_reduce(a, out):
    i = cuda.grid(1)
    v = a[i] if i < a.size else float32(0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xffffffff, v, off)
        off //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


def atomics(x, hist, mx):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.add(hist, v % 32, 1)
        cuda.atomic.max(mx, v % 7, v)


def stencil(a, out):
    i, j = cuda.grid(2)
    n, m = a.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        out[i, j] = (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) * float32(0.25)
    elif i < n and j < m:
        out[i, j] = a[i, j]


def warp_vote(x, out):
    i = cuda.grid(1)
    p = x[i] > 0
    b = cuda.ballot_sync(0xffffffff, p)
    a = cuda.all_sync(0xffffffff, p)
    y = cuda.any_sync(0xffffffff, x[i] > 90)
    if cuda.laneid == 0:
        w = i // 32
        out[3 * w] = cuda.popc(b)
        out[3 * w + 1] = a
        out[3 * w + 2] = y


def float_atomics(x, sums, slots, olds):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(sums, i % 4, x[i])
        olds[i] = cuda.atomic.cas(slots, i, 0, i + 1)


def libm(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.exp(x[i]) + math.sqrt(abs(x[i])) + math.sin(x[i])


def array_args(corpus, base, arr, output=False):
    """The -a specs of one array argument: its data model's fields."""
    buf = ("%s[%d]:zero" % (realgen.PTXVM_TYPE[str(arr.dtype)], arr.size) if output
           else corpus.buffer(base, arr))
    return (["u64:0", "u64:0", "s64:%d" % arr.size, "s64:%d" % arr.itemsize, buf]
            + ["s64:%d" % d for d in arr.shape] + ["s64:%d" % s for s in arr.strides])


def launch(corpus, base, fn, sig, arrays, grid, block, outputs, expected):
    """Compile fn for sig, write it and one MANIFEST line. arrays: (array,
    is_output) per argument; outputs: which arguments to dump."""
    ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0))
    path = corpus.write_ptx(base, ptx)
    args, first = [], []
    for k, (arr, out) in enumerate(arrays):
        first.append(len(args) + 4)              # the data pointer's parameter
        args += array_args(corpus, "%s.%d" % (base, k), arr, out)
    params = realgen.entry_params(ptx)
    assert len(params) == len(args), "%s: %d parameters, %d arguments" % (base, len(params), len(args))
    opts = ["-g", ",".join(map(str, grid)), "-b", ",".join(map(str, block))]
    for a in args:
        opts += ["-a", a]
    for o in outputs:
        opts += ["-o", str(first[o])]
    kernel = realgen.ENTRY_RE.search(ptx).group(1)
    corpus.add(path, kernel, opts, expected)


def tree_sum(x, width):
    """Sum each group of `width` float32 values as the halving trees above do:
    s[t] += s[t + h] for h = width/2, ..., 1, in float32."""
    s = x.reshape(-1, width).copy()
    h = width // 2
    while h:
        s[:, :h] = s[:, :h] + s[:, h:2 * h]
        h //= 2
    return s[:, 0]


def main():
    c = realgen.Corpus("numba")
    rng = np.random.default_rng(20261202)

    n = 1000
    a = rng.standard_normal(n).astype(np.float32)
    blocks = (n + TPB - 1) // TPB
    padded = np.zeros(blocks * TPB, np.float32)
    padded[:n] = a
    launch(c, "block_reduce", block_reduce, (float32[:], float32[:]),
           [(a, False), (np.zeros(blocks, np.float32), True)], (blocks,), (TPB,), [1],
           realgen.dump_text(tree_sum(padded, TPB)))

    # shfl_down_sync: lane l adds lane l+off (lanes past 31 give their own value,
    # which only lanes >= 32-off receive; lane 0's sum uses none of them)
    launch(c, "warp_reduce", warp_reduce, (float32[:], float32[:]),
           [(a, False), (np.zeros(blocks * TPB // 32, np.float32), True)], (blocks,), (TPB,), [1],
           realgen.dump_text(tree_sum(padded, 32)))

    x = rng.integers(0, 1 << 30, 3000).astype(np.int32)
    hist = np.bincount(x % 32, minlength=32).astype(np.int32)
    mx = np.array([x[x % 7 == r].max() for r in range(7)], np.int32)
    launch(c, "atomics", atomics, (int32[:], int32[:], int32[:]),
           [(x, False), (np.zeros(32, np.int32), True), (np.zeros(7, np.int32), True)],
           ((3000 + TPB - 1) // TPB,), (TPB,), [1, 2],
           realgen.dump_text(hist) + "\\n" + realgen.dump_text(mx))

    g = rng.standard_normal((30, 40)).astype(np.float32)
    s = g.copy()
    s[1:-1, 1:-1] = (((g[:-2, 1:-1] + g[2:, 1:-1]) + g[1:-1, :-2]) + g[1:-1, 2:]) * np.float32(0.25)
    launch(c, "stencil", stencil, (float32[:, :], float32[:, :]),
           [(g, False), (np.zeros_like(g), True)], (2, 3), (16, 16), [1], realgen.dump_text(s))

    v = rng.integers(-100, 101, 128).astype(np.int32)
    v[32:64] = np.abs(v[32:64]) + 1       # a warp where every lane votes yes
    w = v.reshape(4, 32)
    votes = np.stack([(w > 0).sum(axis=1), (w > 0).all(axis=1), (w > 90).any(axis=1)], 1)
    launch(c, "warp_vote", warp_vote, (int32[:], int32[:]),
           [(v, False), (np.zeros(12, np.int32), True)], (1,), (128,), [1],
           realgen.dump_text(votes.astype(np.int32)))

    # integer-valued floats: atom.add.f32 in any order sums to numpy's sum exactly; each
    # thread's cas on its own slot (i % 3) swaps in i+1 where the slot holds 0
    f = rng.integers(-1000, 1000, 1000).astype(np.float32)
    slots = (np.arange(1000) % 3).astype(np.int32)
    launch(c, "float_atomics", float_atomics, (float32[:], float32[:], int32[:], int32[:]),
           [(f, False), (np.zeros(4, np.float32), True), (slots, False),
            (np.zeros(1000, np.int32), True)], (8,), (TPB,), [1, 2, 3],
           "\\n".join([realgen.dump_text(f.reshape(-1, 4).sum(axis=0, dtype=np.float64)
                                          .astype(np.float32)),
                        realgen.dump_text(np.where(slots == 0, np.arange(1000) + 1, slots)
                                          .astype(np.int32)),
                        realgen.dump_text(slots)]))

    # libdevice's expf and sinf are not correctly rounded: compared within a tolerance
    y = (rng.standard_normal(500) * 2).astype(np.float32)
    y64 = y.astype(np.float64)
    ref = (np.exp(y64) + np.sqrt(np.abs(y64)) + np.sin(y64)).astype(np.float32)
    launch(c, "libm", libm, (float32[:], float32[:]), [(y, False), (np.zeros_like(y), True)],
           (4,), (TPB,), [1], "approx rtol=1e-6 atol=1e-6: " + realgen.dump_text(ref))

    from numba.cuda.cudadrv import nvvm
    c.write_manifest([
        "tests/numba/MANIFEST -- written by tests/numba/gen.py; do not edit.",
        "numba %s, numba-cuda %s, NVVM %s (IR %s), numpy %s; compile_ptx(..., cc=(9, 0))" % (
            numba.__version__, _version("numba-cuda"), _version("nvidia-nvvm"),
            ".".join(map(str, nvvm.NVVM().get_ir_version())), np.__version__),
        "Format: as tests/cuda/MANIFEST (FILE KERNEL | OPTIONS | EXPECTED), FILE relative to",
        "tests/numba/; the expected outputs are numpy's, byte-exact but libm's (libdevice's",
        "expf/sinf are not correctly rounded). Each array argument is",
        "7 (1-D) or 9 (2-D) parameters: meminfo, parent, nitems, itemsize, data, shape, strides.",
    ])


def _version(dist):
    from importlib.metadata import version
    return version(dist)


if __name__ == "__main__":
    main()
