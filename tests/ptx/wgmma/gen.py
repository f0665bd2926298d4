#!/usr/bin/env python3
"""gen.py: writes the conformance cases of tests/ptx/wgmma/ (wgmma.mma_async
for sm_90a) with numpy as the independent reference.

    /usr/bin/python3 tests/ptx/wgmma/gen.py     # rewrites wgmma_*.ptx here

Each kernel is one warpgroup (128 threads). It copies a shared-memory
image, built here from whole matrices by the PTX ISA's canonical layouts
(core matrices of 8 rows of 16 bytes; leading/stride byte offsets; the
swizzle modes, written out again below, separately from src/exec/wgmma.c),
into a 1024-byte-aligned .shared array (then fence.proxy.async: wgmma
reads it through the async proxy), makes the descriptors from the
array's address, loads A registers (when A comes from registers) and the
accumulator, runs wgmma.fence, one or two wgmma.mma_async (a second one
continues along K: its descriptors are advanced by one instruction's K),
commit_group and wait_group 0, and stores the accumulator registers thread
by thread. The expected output is numpy's scale_d*C + (sa*A) @ (sb*B) packed
the same way (in NAME.out). The inputs are small integers, so every result
is exact under any order of accumulation. Deterministic (fixed seeds)."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = ".version 8.4\n.target sm_90a\n.address_size 64\n"
# b1 matrices are laid out as bytes of 8 consecutive k (bit i of byte c: k = 8c + i)
KIND_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
             "f32": 32, "s32": 32, "b1": 8}
KOF = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}
INT = ("s8", "u8", "b1")
SWZ = {"none": (0, 1), "128B": (1, 8), "64B": (2, 4), "32B": (3, 2)}   # mode field, width/16B


# ---- element encodings ----

def fp8_value(code, e4m3):
    s = -1.0 if code & 0x80 else 1.0
    eb, mb, bias = (4, 3, 7) if e4m3 else (5, 2, 15)
    e, m = (code >> mb) & ((1 << eb) - 1), code & ((1 << mb) - 1)
    if e4m3 and e == 15 and m == 7:
        return None
    if not e4m3 and e == 31:
        return None
    if e == 0:
        return s * m / (1 << mb) * 2.0 ** (1 - bias)
    return s * (1 + m / (1 << mb)) * 2.0 ** (e - bias)


FP8 = {k: {fp8_value(c, k == "e4m3"): c for c in range(256) if fp8_value(c, k == "e4m3") is not None}
       for k in ("e4m3", "e5m2")}


def encode(kind, v):
    if kind == "f16":
        return int(np.float16(v).view(np.uint16))
    if kind == "bf16":
        return int(np.float32(v).view(np.uint32)) >> 16
    if kind in ("tf32", "f32"):
        return int(np.float32(v).view(np.uint32))
    if kind in ("e4m3", "e5m2"):
        return FP8[kind][float(v) + 0.0]
    return int(v) & ((1 << KIND_BITS[kind]) - 1)


# ---- the canonical shared-memory layouts ----

def layout_offset(swz, major, size, lbo, sbo, mn, k):
    """Byte offset (before the swizzle) of element (mn, k) from the start."""
    T, W = 16 // size, SWZ[swz][1]
    if major == "K":
        core, r = divmod(mn, 8)
        chunk, kin = divmod(k, T)
        if swz == "none":
            return core * sbo + chunk * lbo + r * 16 + kin * size
        return core * sbo + r * 16 * W + chunk * 16 + kin * size
    chunk, mnin = divmod(mn, T)
    grp, kr = divmod(k, 8)
    if swz == "none":
        return chunk * sbo + grp * lbo + kr * 16 + mnin * size
    atom, cin = divmod(chunk, W)
    return atom * lbo + grp * sbo + kr * 16 * W + cin * 16 + mnin * size


def swizzle(swz, addr):
    W = SWZ[swz][1]
    return addr ^ (((addr >> 7) % W) << 4)


def place(img, base, X, kind, swz, major, lbo, sbo):
    """Writes matrix X (rows mn, columns k) at img[base...]."""
    size = KIND_BITS[kind] // 8
    seen = set()
    for mn in range(X.shape[0]):
        for k in range(X.shape[1]):
            a = swizzle(swz, base + layout_offset(swz, major, size, lbo, sbo, mn, k))
            assert a not in seen and a + size <= len(img), (a, mn, k)
            seen.add(a)
            img[a:a + size] = encode(kind, X[mn, k]).to_bytes(size, "little")


def desc_const(lbo, sbo, swz):
    return (lbo >> 4) << 16 | (sbo >> 4) << 32 | SWZ[swz][0] << 62


# ---- fragments (lane l of warp w; g = l >> 2, t = l % 4) ----

def d_pos(w, l, e):
    g, t = l >> 2, l % 4
    return 16 * w + g + 8 * ((e >> 1) & 1), 8 * (e >> 2) + 2 * t + (e & 1)


def a_pos(w, l, r, j, epr, K):
    g, t = l >> 2, l % 4
    return 16 * w + g + 8 * (r & 1), epr * t + j + (K // 2) * (r >> 1)


def pack_d(D, kind, N):
    per = 2 if kind == "f16" else 1
    out = []
    for tid in range(128):
        w, l = divmod(tid, 32)
        for r in range(N // 2 // per):
            v = 0
            for j in range(per):
                row, col = d_pos(w, l, r * per + j)
                v |= encode(kind, D[row, col]) << (16 * j)
            out.append(v)
    return out


def pack_a(A, kind, K):
    bits = KIND_BITS[kind]
    epr = 32 // bits
    out = []
    for tid in range(128):
        w, l = divmod(tid, 32)
        for r in range(4):
            v = 0
            for j in range(epr):
                row, col = a_pos(w, l, r, j, epr, K)
                v |= encode(kind, A[row, col]) << (bits * j)
            out.append(v)
    return out


# ---- kernels ----

def kernel(name, c, nd, words, descs):
    dty = "f32" if c["d"] == "f32" else "b32"
    sp = "sp" in c
    s = [f".visible .entry {name}(.param .u64 pd, .param .u64 pa, .param .u64 pimg, "
         ".param .u64 pc, .param .u32 ps" + (", .param .u64 pe)" if sp else ")"), "{",
         "  .reg .b32 %r<10>;\n  .reg .b64 %rd<20>;\n  .reg .pred %p<3>;",
         f"  .reg .{dty} %d<{nd}>;\n  .reg .b32 %a<4>;",
         f"  .shared .align 1024 .b8 sm[{words * 4}];",
         "  mov.u32 %r1, %tid.x;\n  ld.param.u64 %rd1, [pimg];\n  mov.u32 %r5, sm;\n  mov.u32 %r2, %r1;",
         "$copy:",
         f"  setp.ge.u32 %p1, %r2, {words};\n  @%p1 bra $copied;",
         "  mul.wide.u32 %rd2, %r2, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  ld.global.b32 %r3, [%rd3];",
         "  shl.b32 %r4, %r2, 2;\n  add.u32 %r4, %r4, %r5;\n  st.shared.b32 [%r4], %r3;",
         "  add.u32 %r2, %r2, 128;\n  bra $copy;", "$copied:",
         # the generic stores reach wgmma's async-proxy reads only across this fence (PTX ISA 9.7.15.4)
         "  fence.proxy.async.shared::cta;", "  bar.sync 0;"]
    for i, (off, const) in enumerate(descs):   # descriptor i in %rd(10+i)
        s.append(f"  add.u32 %r6, %r5, {off};\n  cvt.u64.u32 %rd4, %r6;\n  shr.u64 %rd4, %rd4, 4;")
        s.append(f"  and.b64 %rd4, %rd4, 16383;\n  or.b64 %rd{10 + i}, %rd4, {const};")
    if not c["adesc"]:
        s.append("  ld.param.u64 %rd5, [pa];\n  mul.wide.u32 %rd6, %r1, 16;\n  add.u64 %rd5, %rd5, %rd6;")
        s += [f"  ld.global.b32 %a{r}, [%rd5+{4 * r}];" for r in range(4)]
    s.append(f"  ld.param.u64 %rd7, [pc];\n  mul.wide.u32 %rd6, %r1, {4 * nd};\n  add.u64 %rd7, %rd7, %rd6;")
    s += [f"  ld.global.{dty} %d{r}, [%rd7+{4 * r}];" for r in range(nd)]
    s.append("  ld.param.u32 %r7, [ps];\n  setp.ne.u32 %p2, %r7, 0;")
    if sp:   # each thread's sp-meta
        s.append("  ld.param.u64 %rd15, [pe];\n  mul.wide.u32 %rd16, %r1, 4;\n  add.u64 %rd15, %rd15, %rd16;")
        s.append("  ld.global.b32 %r8, [%rd15];")
    s.append("  wgmma.fence.sync.aligned;")
    dl = "{" + ", ".join(f"%d{r}" for r in range(nd)) + "}"
    mn = (f"wgmma.mma_async.sp.sync.aligned.m64n{c['n']}k{2 * KOF[c['a']]}" if sp else
          f"wgmma.mma_async.sync.aligned.m64n{c['n']}k{KOF[c['a']]}")
    if c["a"] == "b1":
        mn += ".s32.b1.b1.and.popc"
    elif c["a"] in ("s8", "u8"):
        mn += (".satfinite" if c.get("sat") else "") + f".s32.{c['a']}.{c['b']}"
    else:
        mn += f".{c['d']}.{c['a']}.{c['b']}"
    for step in range(c.get("steps", 1)):
        ad = f"%rd{10 + 2 * step}" if c["adesc"] else "{%a0, %a1, %a2, %a3}"
        bd = f"%rd{11 + 2 * step}"
        tail = []
        if c["a"] not in INT:
            tail += [str(c.get("sa", 1)), str(c.get("sb", 1))]
        if c["a"] in ("f16", "bf16"):
            if c["adesc"]:
                tail.append(str(int(c.get("ta", "K") == "MN")))
            tail.append(str(int(c.get("tb", "K") == "MN")))
        spo = f", %r8, {c['sp']}" if sp else ""
        s.append(f"  {mn} {dl}, {ad}, {bd}{spo}, %p2" + "".join(", " + t for t in tail) + ";")
    s.append("  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;")
    s.append("  ld.param.u64 %rd8, [pd];\n  add.u64 %rd8, %rd8, %rd6;")
    s += [f"  st.global.{dty} [%rd8+{4 * r}], %d{r};" for r in range(nd)]
    s.append("  ret;\n}")
    return "\n".join(s) + "\n"


def offsets(swz, major, kind, rows, K):
    """(lbo, sbo, bytes) of a tile of rows x K (K of the whole tile)."""
    size = KIND_BITS[kind] // 8
    T, W = 16 // size, SWZ[swz][1]
    if major == "K":
        if swz == "none":       # cores along K next to each other, then a gap of 128 bytes
            lbo = 128
            sbo = 128 * (K // T) + 128
            return lbo, sbo, sbo * (rows // 8)
        assert K * size <= 16 * W
        sbo = 128 * W
        return 16, sbo, sbo * (rows // 8)
    if swz == "none":            # cores along MN first, then the next 8 K
        sbo = 128
        lbo = 128 * (rows // T)
        return lbo, sbo, lbo * (K // 8)
    atom = 128 * W               # 8 K-rows of 16*W bytes
    sbo = atom                   # the next 8 K follow the atom
    lbo = atom * (K // 8)        # the next atom along MN after all of K
    return lbo, sbo, lbo * max(1, -(-rows // (T * W)))


def vals(rng, kind, lo, hi, shape):
    if kind == "b1":
        lo, hi = 0, 1
    if kind == "u8":
        lo = max(lo, 0)
    if kind == "s8":
        hi = min(hi, 127)
    return rng.integers(lo, hi, endpoint=True, size=shape)


# ---- wgmma.mma_async.sp: the sparse A (PTX ISA 9.7.15.6; the same chunks and
# metadata as mma.sp, tests/ptx/mma/gen.py, for each warp's 16 rows) ----

def sparse_a(rng, kind, lo, hi, K):
    """(logical 64 x K A, compressed 64 x K/2, 4-bit metadata per chunk)."""
    cw = 2 if kind == "tf32" else 4
    A = np.zeros((64, K), dtype=object)
    Ac = np.zeros((64, K // 2), dtype=object)
    nib = np.zeros((64, K // cw), dtype=np.int64)
    for i in range(64):
        for ch in range(K // cw):
            if cw == 2:
                p = int(rng.integers(0, 2))
                nib[i, ch] = 0b1110 if p else 0b0100
                A[i, 2 * ch + p] = Ac[i, ch] = int(vals(rng, kind, lo, hi, 1)[0])
                continue
            p0, p1 = sorted(rng.choice(4, size=2, replace=False))
            if rng.integers(0, 2):
                p0, p1 = p1, p0            # either order of the two indices
            nib[i, ch] = p0 | p1 << 2
            for sl, p in enumerate((p0, p1)):
                A[i, 4 * ch + p] = Ac[i, 2 * ch + sl] = int(vals(rng, kind, lo, hi, 1)[0])
    return A, Ac, nib


def expand(Ac, nib):
    """The logical A of a compressed 2:4 Ac by its 4-bit chunk metadata."""
    A = np.zeros((Ac.shape[0], 2 * Ac.shape[1]), dtype=object)
    for i in range(Ac.shape[0]):
        for ch in range(nib.shape[1]):
            v = int(nib[i, ch])
            A[i, 4 * ch + (v & 3)] = Ac[i, 2 * ch]
            A[i, 4 * ch + (v >> 2)] = Ac[i, 2 * ch + 1]
    return A


def meta_words(rng, nib, kind, sel):
    """sp-meta of the 128 threads: lane 4g + sel*n + j of warp w holds chunks
    of rows 16w+g and 16w+g+8 (16/32-bit: chunks 4j.. in bits 0-15 / 16-31;
    8-bit: chunks 8(j>>1).. of row + 8(j&1)); other lanes random."""
    chunks = nib.shape[1]
    n = chunks // 4
    E = [int(v) for v in rng.integers(0, 2**32, size=128)]
    for w in range(4):
        for g in range(8):
            for j in range(n):
                word = 0
                if KIND_BITS[kind] >= 16:
                    for h in range(2):
                        for q in range(4):
                            word |= int(nib[16 * w + g + 8 * h, 4 * j + q]) << (16 * h + 4 * q)
                else:
                    for q in range(8):
                        word |= int(nib[16 * w + g + 8 * (j & 1), 8 * (j >> 1) + q]) << (4 * q)
                E[32 * w + 4 * g + sel * n + j] = word
    return E


def gen_case(name, c, seed):
    rng = np.random.default_rng(seed)
    sp = "sp" in c
    N, Ki = c["n"], KOF[c["a"]] * (2 if sp else 1)
    K = Ki * c.get("steps", 1)
    lo, hi = c["range"]
    A = vals(rng, c["a"], lo, hi, (64, K)).astype(object)
    if sp:
        A, Ac, nib = sparse_a(rng, c["a"], lo, hi, K)
    B = vals(rng, c["b"], lo, hi, (K, N)).astype(object)
    clo, chi = c["crange"]
    C = rng.integers(clo, chi, endpoint=True, size=(64, N)).astype(object)
    if c.get("sat"):
        C = rng.choice([2**31 - 5, -2**31 + 5, 0, 7], size=(64, N)).astype(object)
        A = rng.choice([127, -128] if c["a"] == "s8" else [255], size=(64, K)).astype(object)
        B = rng.choice([127, -128] if c["b"] == "s8" else [255], size=(K, N)).astype(object)
        if sp:   # the extremes in the non-zero places only
            Ac = rng.choice([127, -128] if c["a"] == "s8" else [255], size=(64, K // 2)).astype(object)
            A = expand(Ac, nib)
    scale_d = c.get("scale_d", 1)
    D = (c.get("sa", 1) * A) @ (c.get("sb", 1) * B) + (C if scale_d else 0)
    if c["d"] == "s32":
        lim = (lambda v: max(-2**31, min(2**31 - 1, v))) if c.get("sat") else (lambda v: v)
        D = np.vectorize(lim, otypes=[object])(D)
    if c["a"] == "b1":   # bits to bytes along k, for the layout and the registers
        A = np.array([[sum(int(A[m, 8 * j + i]) << i for i in range(8)) for j in range(K // 8)]
                      for m in range(64)], dtype=object)
        B = np.array([[sum(int(B[8 * j + i, n]) << i for i in range(8)) for n in range(N)]
                      for j in range(K // 8)], dtype=object)
        K, Ki = K // 8, Ki // 8
    if sp:   # A holds the compressed 64 x K/2 in the layouts of a dense A of K/2
        A, KA = Ac, K // 2
    else:
        KA = K
    img = bytearray(65536)
    descs = []
    ta, tb = c.get("ta", "K"), c.get("tb", "K")
    top = 0
    parts = []
    if c["adesc"]:
        lbo, sbo, nb = offsets(c["swz_a"], ta, c["a"], 64, KA)
        parts.append(("A", A, c["a"], c["swz_a"], ta, lbo, sbo, top))
        top = (top + nb + 1023) // 1024 * 1024
    lbo, sbo, nb = offsets(c["swz_b"], tb, c["b"], N, K)
    parts.append(("B", B.T, c["b"], c["swz_b"], tb, lbo, sbo, top))
    top = top + nb
    starts = {}
    for (which, X, kind, swz, major, lbo, sbo, base) in parts:
        place(img, base, X, kind, swz, major, lbo, sbo)
        starts[which] = (base, lbo, sbo, swz, major, kind)
    for step in range(c.get("steps", 1)):
        for which in ("A", "B"):
            if which not in starts:
                descs.append((0, 0))
                continue
            base, lbo, sbo, swz, major, kind = starts[which]
            size = KIND_BITS[kind] // 8
            adv = layout_offset(swz, major, size, lbo, sbo, 0, step * Ki)   # the next K block
            descs.append((base + adv, desc_const(lbo, sbo, swz)))
    words = (top + 3) // 4
    img = img[:words * 4]
    nd = N // 4 if c["d"] == "f16" else N // 2
    ptx = kernel(name, c, nd, words, descs)
    pimg = [int.from_bytes(img[i:i + 4], "little") for i in range(0, len(img), 4)]
    pa = pack_a(A, c["a"], KA) if not c["adesc"] else [0]
    pc = pack_d(C, c["d"], N)
    pd = pack_d(D, c["d"], N)
    def arg(v):
        if not any(v):   # keeps the N = 256 command line short
            return f"-a 'u32[{len(v)}]:zero'"
        return f"-a 'u32[{len(v)}]:" + ",".join(str(x) for x in v) + "'"
    run = (f"// RUN: ptxvm run %s {name} -b 128 -a 'u32[{len(pd)}]:zero' {arg(pa)} {arg(pimg)} "
           f"{arg(pc)} -a u32:{scale_d}" + (f" {arg(meta_words(rng, nib, c['a'], c['sp']))}" if sp else "")
           + " -o 0")
    return run, ptx, " ".join(str(v) for v in pd)


F16 = dict(range=(-3, 3), crange=(-16, 16))
CASES = [
    ("f32_f16_none", dict(d="f32", a="f16", b="f16", n=64, adesc=True, swz_a="none", swz_b="none", **F16)),
    ("f16_f16_sw128", dict(d="f16", a="f16", b="f16", n=32, adesc=True, swz_a="128B", swz_b="128B", **F16)),
    ("f32_bf16_sw64_tb", dict(d="f32", a="bf16", b="bf16", n=128, adesc=True, swz_a="64B", swz_b="64B",
                              tb="MN", range=(-8, 8), crange=(-100, 100))),
    ("f32_f16_sw32_ta_tb", dict(d="f32", a="f16", b="f16", n=16, adesc=True, swz_a="32B", swz_b="32B",
                                ta="MN", tb="MN", **F16)),
    ("f32_f16_none_ta_tb", dict(d="f32", a="f16", b="f16", n=24, adesc=True, swz_a="none", swz_b="none",
                                ta="MN", tb="MN", **F16)),
    ("f32_f16_sw128_tb", dict(d="f32", a="f16", b="f16", n=256, adesc=True, swz_a="128B", swz_b="128B",
                              ta="MN", tb="MN", range=(-3, 3), crange=(0, 0))),
    ("f32_f16_areg_sw128", dict(d="f32", a="f16", b="f16", n=64, adesc=False, swz_b="128B", tb="MN", **F16)),
    ("f32_f16_chain_sw128", dict(d="f32", a="f16", b="f16", n=64, adesc=True, swz_a="128B", swz_b="128B",
                                 steps=2, **F16)),
    ("f32_f16_scales", dict(d="f32", a="f16", b="f16", n=8, adesc=True, swz_a="none", swz_b="64B",
                            sa=-1, sb=-1, **F16)),
    ("f32_f16_nod", dict(d="f32", a="f16", b="f16", n=16, adesc=True, swz_a="32B", swz_b="none",
                         scale_d=0, sa=-1, **F16)),
    ("f32_tf32_sw128", dict(d="f32", a="tf32", b="tf32", n=64, adesc=True, swz_a="128B", swz_b="128B",
                            range=(-100, 100), crange=(-1000, 1000))),
    ("f32_tf32_areg_none", dict(d="f32", a="tf32", b="tf32", n=8, adesc=False, swz_b="none",
                                range=(-100, 100), crange=(-1000, 1000))),
    ("f32_e4m3_e5m2_sw64", dict(d="f32", a="e4m3", b="e5m2", n=64, adesc=True, swz_a="64B", swz_b="64B",
                                range=(-7, 7), crange=(-100, 100))),
    ("f16_e4m3_areg_sw32", dict(d="f16", a="e4m3", b="e4m3", n=16, adesc=False, swz_b="32B",
                                range=(-4, 4), crange=(-16, 16))),
    ("s32_s8_u8_none", dict(d="s32", a="s8", b="u8", n=64, adesc=True, swz_a="none", swz_b="none",
                            range=(-128, 127), crange=(-10**6, 10**6))),
    ("s32_u8_areg_sw128", dict(d="s32", a="u8", b="s8", n=48, adesc=False, swz_b="128B",
                               range=(-128, 255), crange=(-10**6, 10**6))),
    ("s32_b1_sw128", dict(d="s32", a="b1", b="b1", n=64, adesc=True, swz_a="128B", swz_b="128B",
                          range=(0, 1), crange=(-1000, 1000))),
    ("s32_b1_areg_none", dict(d="s32", a="b1", b="b1", n=24, adesc=False, swz_b="none",
                              range=(0, 1), crange=(-1000, 1000))),
    ("s32_s8_sat_sw32", dict(d="s32", a="s8", b="s8", n=32, adesc=True, swz_a="32B", swz_b="32B",
                             sat=True, range=(-128, 127), crange=(0, 0))),
    # wgmma.mma_async.sp: sp = the sparsity selector
    ("sp_f32_f16_none_s1", dict(d="f32", a="f16", b="f16", n=32, adesc=True, swz_a="none", swz_b="none",
                                sp=1, **F16)),
    ("sp_f16_f16_sw128_s0", dict(d="f16", a="f16", b="f16", n=64, adesc=True, swz_a="128B", swz_b="128B",
                                 sp=0, **F16)),
    ("sp_f32_bf16_areg_sw64_tb", dict(d="f32", a="bf16", b="bf16", n=16, adesc=False, swz_b="64B",
                                      tb="MN", sp=1, range=(-8, 8), crange=(-100, 100))),
    ("sp_f32_f16_sw32_ta_tb", dict(d="f32", a="f16", b="f16", n=24, adesc=True, swz_a="32B", swz_b="32B",
                                   ta="MN", tb="MN", sp=0, sa=-1, **F16)),
    ("sp_f32_tf32_sw128_s1", dict(d="f32", a="tf32", b="tf32", n=16, adesc=True, swz_a="128B",
                                  swz_b="128B", sp=1, range=(-100, 100), crange=(-1000, 1000))),
    ("sp_f32_tf32_areg_none_s0", dict(d="f32", a="tf32", b="tf32", n=8, adesc=False, swz_b="none",
                                      sp=0, range=(-100, 100), crange=(-1000, 1000))),
    ("sp_f32_e4m3_e5m2_sw64", dict(d="f32", a="e4m3", b="e5m2", n=32, adesc=True, swz_a="64B",
                                   swz_b="64B", sp=0, range=(-7, 7), crange=(-100, 100))),
    ("sp_f16_e5m2_areg_sw128", dict(d="f16", a="e5m2", b="e4m3", n=16, adesc=False, swz_b="128B",
                                    sp=0, range=(-4, 4), crange=(-16, 16))),
    ("sp_s32_s8_u8_sw128", dict(d="s32", a="s8", b="u8", n=48, adesc=True, swz_a="128B", swz_b="128B",
                                sp=0, range=(-128, 127), crange=(-10**6, 10**6))),
    ("sp_s32_u8_areg_none_sat", dict(d="s32", a="u8", b="u8", n=16, adesc=False, swz_b="none",
                                     sp=0, sat=True, range=(0, 255), crange=(0, 0))),
]


def main():
    for i, (name, c) in enumerate(CASES):
        run, ptx, expect = gen_case(name, c, 2000 + i)
        hdr = ["// wgmma.mma_async (generated by gen.py: numpy's scale_d*C + (sa*A) @ (sb*B) in the",
               "// ISA's shared-memory layouts and fragments; exact small-integer inputs).",
               "// The RUN prints the accumulator registers thread by thread; NAME.out holds them.", run]
        path = os.path.join(HERE, f"wgmma_{name}.ptx")
        with open(path, "w") as f:
            f.write("\n".join(hdr) + "\n" + HEAD + "\n" + ptx)
        with open(path[:-4] + ".out", "w") as f:
            f.write(expect + "\n")


if __name__ == "__main__":
    main()
