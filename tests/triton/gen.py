#!/usr/bin/env python3
"""gen.py: Triton kernels compiled for sm_90 without a GPU, and their numpy references.

    pip install triton numpy      # then, from the repository root:
    python3 tests/triton/gen.py   # rewrites tests/triton/{ptx,data,MANIFEST}

Each kernel is compiled by triton.compile with GPUTarget("cuda", 90, 32)
(Triton writes .target sm_90a); the PTX goes to ptx/NAME.ptx, the inputs
(numpy, fixed seeds) to data/, and the launch with numpy's expected output
to MANIFEST, which tests/run.py runs (ids triton:NAME). The versions used
are written into the MANIFEST header. Triton appends two parameters to
every kernel, its global and profile scratch pointers; their number is read
from `ptxvm info` (build/ptxvm) or, where ptxvm does not read the module
yet, from the PTX. The profile scratch gets a null pointer (the generator
checks that Triton asked for none); the global scratch a null pointer too,
or, where Triton asked for some (tensor descriptors made on the device), a
zeroed buffer of its size times the number of programs.
"""
import os
import subprocess
import sys

import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import realgen  # noqa: E402

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(in_ptr + row * n_cols + cols, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=m)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=m)
    b = tl.load(b_ptr + cols, mask=m)
    tl.store(y_ptr + row * n_cols + cols, d * rstd * w + b, mask=m)


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    tl.store(out_ptr + pid, tl.max(x, axis=0))


@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    tl.atomic_add(bins_ptr + v, 1, mask=m)


@triton.jit
def rowsum_pipelined_kernel(x_ptr, out_ptr, n_rows, K, BM: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    acc = tl.zeros((BM, BK), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        cols = k + tl.arange(0, BK)
        m = (rows[:, None] < n_rows) & (cols[None, :] < K)
        acc += tl.load(x_ptr + rows[:, None] * K + cols[None, :], mask=m, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, sm_scale, HEAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh * N_CTX * HEAD
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD + offs_d[None, :])
    m_i = tl.zeros((BM,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BM,), dtype=tl.float32) + 1.0
    acc = tl.zeros((BM, HEAD), dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, (start_m + 1) * BM, BN):
        cols = start_n + offs_n
        kt = tl.load(k_ptr + base + cols[None, :] * HEAD + offs_d[:, None])
        qk = tl.dot(q, kt)
        qk = tl.where(offs_m[:, None] >= cols[None, :], qk * qk_scale, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + base + cols[:, None] * HEAD + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD + offs_d[None, :], acc)

@triton.jit
def matmul_desc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_d = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_d = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_d.load([pid_m * BM, k])
        b = b_d.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_d.store([pid_m * BM, pid_n * BN], acc)


TARGET = GPUTarget("cuda", 90, 32)


def compile_kernel(fn, signature, constexprs, options):
    types = dict(signature)
    for k in constexprs:
        types[k] = "constexpr"
    k = triton.compile(ASTSource(fn=fn, signature=types, constexprs=constexprs), target=TARGET,
                       options=options)
    md = k.metadata
    assert md.profile_scratch_size == 0, fn.__name__
    return k.asm["ptx"], md


def launch(corpus, base, fn, signature, constexprs, args, grid, outputs, expected, options=None,
           needs=None):
    """Compile fn (options: Triton's num_warps, num_stages), write it and one
    MANIFEST line: args are -a specs of the kernel's own parameters, in order;
    outputs the indexes to dump; needs a string the PTX must contain."""
    ptx, md = compile_kernel(fn, signature, constexprs, options or {})
    assert needs is None or needs in ptx, "%s: no %s in the PTX" % (base, needs)
    path = corpus.write_ptx(base, ptx)
    params = realgen.entry_params(ptx)
    extra = len(params) - len(args)
    assert extra == 2, "%s: %d parameters for %d arguments" % (base, len(params), len(args))
    # Triton's global scratch (one md.global_scratch_size slice per program:
    # where tl.make_tensor_descriptor builds its tensormaps), then its profile
    # scratch: none
    scratch = md.global_scratch_size * int(np.prod(grid))
    args = args + ["u8[%d]:zero" % scratch if scratch else "u64:0", "u64:0"]
    opts = ["-g", ",".join(str(g) for g in grid)]
    if md.shared:
        opts += ["-s", str(md.shared)]   # Triton's dynamic shared memory (global_smem)
    for a in args:
        opts += ["-a", a]
    for o in outputs:
        opts += ["-o", str(o)]
    corpus.add(path, md.name, opts, expected)


def int_matmul(corpus, rng, base, fn, mnk, tiles, grid, **kw):
    """One launch of an fp16 matmul kernel (fn's parameters: a, b, c, M, N, K;
    constexprs BM, BN, BK = tiles) on small integers: the products and every
    order of their sums are exact in the fp32 accumulator, so C is numpy's."""
    M, N, K = mnk
    A = rng.integers(-4, 5, (M, K)).astype(np.float16)
    B = rng.integers(-4, 5, (K, N)).astype(np.float16)
    launch(corpus, base, fn, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                              "K": "i32"}, dict(zip(("BM", "BN", "BK"), tiles)),
           [corpus.buffer(base + ".a", A), corpus.buffer(base + ".b", B), "f32[%d]:zero" % (M * N),
            "s32:%d" % M, "s32:%d" % N, "s32:%d" % K], grid, [2],
           realgen.dump_text(A.astype(np.float32) @ B.astype(np.float32)), **kw)


def main():
    c = realgen.Corpus("triton")
    rng = np.random.default_rng(20261201)

    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    launch(c, "add", add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
           {"BLOCK": 256}, [c.buffer("add.x", x), c.buffer("add.y", y), "f32[%d]:zero" % n, "s32:%d" % n],
           (4,), [2], realgen.dump_text(x + y))

    rows, cols = 6, 100
    a = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
    e = np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True))
    sm = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    launch(c, "softmax", softmax_kernel, {"out_ptr": "*fp32", "in_ptr": "*fp32", "n_cols": "i32"},
           {"BLOCK": 128}, ["f32[%d]:zero" % a.size, c.buffer("softmax.in", a), "s32:%d" % cols],
           (rows,), [0], "approx rtol=5e-6 atol=1e-9: " + realgen.dump_text(sm))

    rows, cols, eps = 5, 96, 1e-5
    a = (rng.standard_normal((rows, cols)) * 2 + 1).astype(np.float32)
    w = rng.standard_normal(cols).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    a64 = a.astype(np.float64)
    mean = a64.mean(axis=1, keepdims=True)
    var = ((a64 - mean) ** 2).mean(axis=1, keepdims=True)
    ln = ((a64 - mean) / np.sqrt(var + eps) * w + b).astype(np.float32)
    launch(c, "layernorm", layernorm_kernel,
           {"x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32",
            "eps": "fp32"}, {"BLOCK": 128},
           [c.buffer("layernorm.x", a), c.buffer("layernorm.w", w), c.buffer("layernorm.b", b),
            "f32[%d]:zero" % a.size, "s32:%d" % cols, "f32:%r" % eps],
           (rows,), [3], "approx rtol=5e-6 atol=1e-6: " + realgen.dump_text(ln))

    n = 3000
    v = rng.integers(-1000000, 1000000, n).astype(np.int32)
    sums = np.array([v[i:i + 1024].astype(np.int64).sum() for i in range(0, n, 1024)], np.int32)
    launch(c, "sum", sum_kernel, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}, {"BLOCK": 1024},
           [c.buffer("sum.x", v), "s32[3]:zero", "s32:%d" % n], (3,), [1], realgen.dump_text(sums))

    f = rng.standard_normal(n).astype(np.float32)
    maxes = np.array([f[i:i + 1024].max() for i in range(0, n, 1024)], np.float32)
    launch(c, "max", max_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 1024},
           [c.buffer("max.x", f), "f32[3]:zero", "s32:%d" % n], (3,), [1], realgen.dump_text(maxes))

    n, nbins = 2000, 64
    h = rng.integers(0, nbins, n).astype(np.int32)
    launch(c, "histogram", histogram_kernel, {"x_ptr": "*i32", "bins_ptr": "*i32", "n": "i32"},
           {"BLOCK": 512}, [c.buffer("histogram.x", h), "s32[%d]:zero" % nbins, "s32:%d" % n],
           (4,), [1], realgen.dump_text(np.bincount(h, minlength=nbins).astype(np.int32)))

    # integer-valued floats: every summation order gives numpy's sum exactly
    nr, K = 40, 300
    m = rng.integers(-50, 50, (nr, K)).astype(np.float32)
    launch(c, "rowsum_pipelined", rowsum_pipelined_kernel,
           {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "K": "i32"}, {"BM": 16, "BK": 64},
           [c.buffer("rowsum_pipelined.x", m), "f32[%d]:zero" % nr, "s32:%d" % nr, "s32:%d" % K],
           (3,), [1], realgen.dump_text(m.sum(axis=1, dtype=np.float64).astype(np.float32)))

    # tl.dot of fp16 tiles: wgmma on sm_90a (Triton's default num_warps=4)
    int_matmul(c, rng, "matmul", matmul_kernel, (96, 80, 64), (64, 64, 32), (2, 2))

    # the same with num_warps=8 (two warpgroups share each wgmma tile) and a
    # num_stages=3 cp.async pipeline over K
    int_matmul(c, rng, "matmul_w8", matmul_kernel, (128, 64, 160), (128, 64, 32), (1, 1),
               options={"num_warps": 8, "num_stages": 3}, needs="wgmma.mma_async")

    # causal attention forward (the fused-attention tutorial's online softmax):
    # f16 q, k, v, f32 accumulators; P is rounded to f16 before P@V, so the
    # float64 reference is met within that rounding: 2^-11 of sum(p|v|), |v| < 4.5
    # here, so under 2.2e-3 (ptxvm's largest difference: 3.4e-4)
    Z, H, N_CTX, D = 1, 2, 128, 64
    scale = 1.0 / np.sqrt(D)
    q, k, v = (rng.standard_normal((Z * H, N_CTX, D)).astype(np.float16) for _ in range(3))
    s64 = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * scale
    s64 = np.where(np.tril(np.ones((N_CTX, N_CTX), bool)), s64, -np.inf)
    p64 = np.exp(s64 - s64.max(axis=2, keepdims=True))
    o64 = (p64 / p64.sum(axis=2, keepdims=True)) @ v.astype(np.float64)
    launch(c, "attention", attn_fwd_kernel,
           {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp32", "N_CTX": "i32",
            "sm_scale": "fp32"}, {"HEAD": D, "BM": 64, "BN": 32},
           [c.buffer("attention.q", q), c.buffer("attention.k", k), c.buffer("attention.v", v),
            "f32[%d]:zero" % q.size, "s32:%d" % N_CTX, "f32:%r" % float(np.float32(scale))],
           (N_CTX // 64, Z * H), [3], "approx rtol=1e-3 atol=2.2e-3: " + realgen.dump_text(o64.astype(np.float32)),
           options={"num_warps": 4}, needs="wgmma.mma_async")

    # device-side tensor descriptors: each program writes its tensormaps into
    # Triton's global scratch (tensormap.replace), then loads and stores tiles
    # with cp.async.bulk.tensor
    int_matmul(c, rng, "matmul_desc", matmul_desc_kernel, (128, 128, 96), (64, 64, 32), (2, 2),
               options={"num_warps": 4}, needs="cp.async.bulk.tensor")

    # with fewer than 4 warps there is no warpgroup: Triton's tl.dot takes the
    # warp-level path, ldmatrix and mma.sync.aligned.m16n8k16
    int_matmul(c, rng, "matmul_w2", matmul_kernel, (64, 48, 64), (32, 32, 32), (2, 2),
               options={"num_warps": 2}, needs="mma.sync.aligned")

    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    vers = []
    for p in ("ptxas", "ptxas-blackwell"):
        if os.path.exists(os.path.join(ptxas, p)):
            out = subprocess.run([os.path.join(ptxas, p), "--version"], capture_output=True, text=True)
            vers.append("%s %s" % (p, out.stdout.strip().splitlines()[-2].split(",")[-1].strip()))
    c.write_manifest([
        "tests/triton/MANIFEST -- written by tests/triton/gen.py; do not edit.",
        "triton %s (%s), numpy %s; GPUTarget('cuda', 90, 32)" % (triton.__version__, ", ".join(vers),
                                                                 np.__version__),
        "Format: as tests/cuda/MANIFEST (FILE KERNEL | OPTIONS | EXPECTED), FILE relative to",
        "tests/triton/; the expected outputs are numpy's (an 'approx' line where the kernel's",
        "exp/sqrt are approximate); the last two -a are Triton's global scratch (u64:0, or a",
        "zeroed buffer where tensor descriptors live there) and profile scratch pointers.",
    ])


if __name__ == "__main__":
    main()
