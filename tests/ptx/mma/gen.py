#!/usr/bin/env python3
"""gen.py: writes the conformance cases of tests/ptx/mma/ (ldmatrix,
stmatrix, movmatrix, mma.sync) with numpy as the independent reference.

    python3 tests/ptx/mma/gen.py        # rewrites the .ptx files here

Each kernel is one warp. The mma kernels load every lane's fragment
registers from a buffer that this script packs from whole matrices by the
PTX ISA's fragment tables ("Matrix fragments for mma.m16n8k16" etc.,
written out again below, separately from src/exec/mma.c), run one mma, and
store the D registers; the expected output is numpy's A @ B + C packed the
same way. The inputs are small integers and powers of two, so every result
is exact under any order of accumulation. ldmatrix/stmatrix move 8x8 b16
matrices through shared memory with row addresses in a scrambled order;
movmatrix transposes a fragment. Deterministic (fixed seeds)."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


# ---- the ISA's fragment tables (lane l: g = l >> 2, t = l % 4) ----

def frag_a(shape, kind, l, i):
    """(row, col) of element i of A (the i-th element of the lane's list)."""
    m, n, k = shape
    g, t = l >> 2, l % 4
    if kind in ("f16", "bf16"):
        row = g if (i < 2 or 4 <= i < 6) else g + 8
        col = t * 2 + (i & 1) + (8 if i >= 4 else 0)
    elif kind == "tf32":
        row = g + 8 * (i & 1)          # a0, a2: g; a1, a3: g + 8
        col = t + (4 if i >= 2 else 0)
    elif kind in ("s8", "u8", "e4m3", "e5m2"):
        if m == 8:                      # m8n8k16
            return g, t * 4 + i
        row = g if (i < 4 or 8 <= i < 12) else g + 8
        col = t * 4 + (i & 3) + (16 if i >= 8 else 0)
    elif kind in ("s4", "u4"):
        if m == 8:                      # m8n8k32
            return g, t * 8 + i
        row = g if (i < 8 or 16 <= i < 24) else g + 8
        col = t * 8 + (i & 7) + (32 if i >= 16 else 0)
    elif kind == "b1":
        if m == 8:                      # m8n8k128
            return g, t * 32 + i
        row = g if (i < 32 or 64 <= i < 96) else g + 8
        col = t * 32 + (i & 31) + (128 if i >= 64 else 0)
    elif m == 16:                       # f64 m16n8k4/k8/k16 (sm_90)
        row = g if i % 2 == 0 else g + 8
        col = i * 2 + t if i % 2 == 0 else i * 2 - 2 + t
    else:                               # f64 m8n8k4
        row, col = g, t
    return row, col


def frag_b(shape, kind, l, i):
    g, t = l >> 2, l % 4
    if kind in ("f16", "bf16"):
        row = t * 2 + (i & 1) + (8 if i >= 2 else 0)
    elif kind == "tf32":
        row = t + (4 if i >= 1 else 0)
    elif kind in ("s8", "u8", "e4m3", "e5m2"):
        row = t * 4 + (i & 3) + (16 if i >= 4 else 0)
    elif kind in ("s4", "u4"):
        row = t * 8 + (i & 7) + (32 if i >= 8 else 0)
    elif kind == "b1":
        row = t * 32 + (i & 31) + (128 if i >= 32 else 0)
    else:                               # f64: m8n8k4 b0; m16n8k* b0..b3
        row = t + 4 * i
    return row, g


def frag_c(shape, kind, l, i):
    g, t = l >> 2, l % 4
    if shape[0] == 8:                   # f64 m8n8k4
        return g, t * 2 + i
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s32": 32,
        "e4m3": 8, "e5m2": 8, "s4": 4, "u4": 4, "b1": 1}


def fp8(v, mbits, bias):
    """The e4m3 (3, 7) / e5m2 (2, 15) encoding of v, exact for the values used."""
    if v == 0:
        return 0
    sign = 0x80 if v < 0 else 0
    a = abs(float(v))
    e = int(np.floor(np.log2(a)))
    frac = a / 2.0 ** e - 1
    mant = int(round(frac * (1 << mbits)))
    assert mant / (1 << mbits) == frac and 0 < e + bias < (1 << (7 - mbits)), v
    return sign | (e + bias) << mbits | mant


def encode(kind, v):
    """Encoding of the integer-valued (or power-of-two) element v."""
    if kind == "f16":
        return int(np.float16(v).view(np.uint16))
    if kind == "bf16":
        return int(np.float32(v).view(np.uint32)) >> 16   # exact: small values
    if kind in ("tf32", "f32"):
        return int(np.float32(v).view(np.uint32))
    if kind == "f64":
        return int(np.float64(v).view(np.uint64))
    if kind in ("s8", "u8"):
        return int(v) & 0xff
    if kind == "e4m3":
        return fp8(v, 3, 7)
    if kind == "e5m2":
        return fp8(v, 2, 15)
    if kind in ("s4", "u4"):
        return int(v) & 0xf
    if kind == "b1":
        return int(v) & 1
    return int(v) & 0xffffffff


def pack(mat, kind, fragfn, shape):
    """Register values, lane-major: lane l's registers in order."""
    bits = BITS[kind]
    per = 64 // bits if kind == "f64" else 32 // bits
    nel = mat.size // 32
    out = []
    for l in range(32):
        regs = [0] * (nel // per)
        for i in range(nel):
            r, c = fragfn(shape, kind, l, i)
            regs[i // per] |= encode(kind, mat[r, c]) << (bits * (i % per))
        out += regs
    return out


def mma_kernel(name, mnem, nregs, wide):
    """PTX of a kernel: lane l loads nregs[q] registers of operand q from
    buffer q at l * nregs[q], runs mnem, stores D."""
    rt = {"d": wide[0], "a": wide[1], "b": wide[2], "c": wide[3]}
    s = [f".visible .entry {name}(.param .u64 pd, .param .u64 pa, .param .u64 pb, .param .u64 pc)", "{"]
    s.append("  .reg .b32 %r<2>;\n  .reg .b64 %rd<10>;")
    for q in "dabc":
        s.append(f"  .reg .{rt[q]} %{q}<{nregs[q]}>;")
    s.append("  mov.u32 %r1, %tid.x;")
    for j, q in enumerate("dabc"):
        size = int(rt[q][1:]) // 8
        s.append(f"  ld.param.u64 %rd{j}, [p{q}];")
        s.append(f"  mul.wide.u32 %rd{j + 4}, %r1, {nregs[q] * size};")
        s.append(f"  add.u64 %rd{j}, %rd{j}, %rd{j + 4};")
    for j, q in enumerate("abc"):
        size = int(rt[q][1:]) // 8
        for r in range(nregs[q]):
            s.append(f"  ld.global.{rt[q]} %{q}{r}, [%rd{j + 1}+{r * size}];")
    lists = ["{" + ", ".join(f"%{q}{r}" for r in range(nregs[q])) + "}" for q in "dabc"]
    s.append(f"  {mnem} {lists[0]}, {lists[1]}, {lists[2]}, {lists[3]};")
    size = int(rt["d"][1:]) // 8
    for r in range(nregs["d"]):
        s.append(f"  st.global.{rt['d']} [%rd0+{r * size}], %d{r};")
    s.append("  ret;\n}")
    return "\n".join(s) + "\n"


def regtype(kind):
    return {"f32": "f32", "f64": "f64", "s32": "b32"}.get(kind, "b32")


# (name, shape, D, A, B, C, satfinite, value range of A/B, of C)
MMA_CASES = [
    ("m16n8k16_f32_f16", (16, 8, 16), "f32", "f16", "f16", "f32", False, (-4, 4), (-64, 64)),
    ("m16n8k16_f16_f16", (16, 8, 16), "f16", "f16", "f16", "f16", False, (-3, 3), (-16, 16)),
    ("m16n8k16_f32_bf16", (16, 8, 16), "f32", "bf16", "bf16", "f32", False, (-8, 8), (-100, 100)),
    ("m16n8k8_f32_f16", (16, 8, 8), "f32", "f16", "f16", "f32", False, (-4, 4), (-64, 64)),
    ("m16n8k8_f32_bf16", (16, 8, 8), "f32", "bf16", "bf16", "f32", False, (-8, 8), (-64, 64)),
    ("m16n8k8_f32_tf32", (16, 8, 8), "f32", "tf32", "tf32", "f32", False, (-100, 100), (-1000, 1000)),
    ("m16n8k4_f32_tf32", (16, 8, 4), "f32", "tf32", "tf32", "f32", False, (-100, 100), (-1000, 1000)),
    ("m8n8k4_f64", (8, 8, 4), "f64", "f64", "f64", "f64", False, (-1000, 1000), (-10**6, 10**6)),
    ("m16n8k4_f64", (16, 8, 4), "f64", "f64", "f64", "f64", False, (-1000, 1000), (-10**6, 10**6)),
    ("m16n8k8_f64", (16, 8, 8), "f64", "f64", "f64", "f64", False, (-1000, 1000), (-10**6, 10**6)),
    ("m16n8k16_f64", (16, 8, 16), "f64", "f64", "f64", "f64", False, (-1000, 1000), (-10**6, 10**6)),
    ("m16n8k32_s32_s8", (16, 8, 32), "s32", "s8", "s8", "s32", False, (-128, 127), (-10**6, 10**6)),
    ("m16n8k32_s32_u8_s8", (16, 8, 32), "s32", "u8", "s8", "s32", False, (-128, 255), (-10**6, 10**6)),
    ("m16n8k16_s32_u8", (16, 8, 16), "s32", "u8", "u8", "s32", False, (0, 255), (-10**6, 10**6)),
    ("m16n8k32_s32_s8_sat", (16, 8, 32), "s32", "s8", "s8", "s32", True, (-128, 127), None),
    ("m16n8k32_s32_s8_wrap", (16, 8, 32), "s32", "s8", "s8", "s32", False, (-128, 127), None),
    ("m16n8k32_f32_e4m3", (16, 8, 32), "f32", "e4m3", "e4m3", "f32", False, (-8, 8), (-1000, 1000)),
    ("m16n8k32_f16_e5m2_e4m3", (16, 8, 32), "f16", "e5m2", "e4m3", "f16", False, (-4, 4), (-16, 16)),  # 8.7
    ("m8n8k16_s32_s8_u8", (8, 8, 16), "s32", "s8", "u8", "s32", False, (-128, 255), (-10**6, 10**6)),
    ("m8n8k32_s32_s4", (8, 8, 32), "s32", "s4", "s4", "s32", False, (-8, 7), (-1000, 1000)),
    ("m16n8k32_s32_u4_s4", (16, 8, 32), "s32", "u4", "s4", "s32", False, (-8, 15), (-1000, 1000)),
    ("m16n8k64_s32_s4_sat", (16, 8, 64), "s32", "s4", "u4", "s32", True, (-8, 15), (-1000, 1000)),
    ("m8n8k128_b1_xor", (8, 8, 128), "s32", "b1", "b1", "s32", False, (0, 1), (-1000, 1000)),
    ("m16n8k128_b1_and", (16, 8, 128), "s32", "b1", "b1", "s32", False, (0, 1), (-1000, 1000)),
    ("m16n8k256_b1_xor", (16, 8, 256), "s32", "b1", "b1", "s32", False, (0, 1), (-1000, 1000)),
]


def int_range(kind, lo, hi):
    if kind == "s8":
        return max(lo, -128), min(hi, 127)
    if kind == "u8":
        return max(lo, 0), min(hi, 255)
    if kind == "s4":
        return max(lo, -8), min(hi, 7)
    if kind == "u4":
        return max(lo, 0), min(hi, 15)
    return lo, hi


def run_line(name, wide, pd, pa, pb, pc, extra=""):
    """The RUN line of one warp kernel: D zeroed, then the A, B, C registers."""
    w = {q: wide[j][1:] for j, q in enumerate("dabc")}
    def arg(q, vals):
        return f"-a 'u{w[q]}[{len(vals)}]:" + ",".join(str(v) for v in vals) + "'"
    return (f"// RUN: ptxvm run %s {name} -b 32 -a 'u{w['d']}[{len(pd)}]:zero' "
            f"{arg('a', pa)} {arg('b', pb)} {arg('c', pc)} {extra}-o 0")


def gen_mma(fp8_f16=False):
    """mma_sync.ptx, or (fp8_f16) the fp8 cases with an .f16 D/C, which need PTX
    ISA 8.7 (ptxas: "mma with FP8 floating point type and FP16 accumulation")."""
    out = ["// mma.sync.aligned, one warp per kernel (generated by gen.py: numpy's A @ B + C",
           "// packed into the ISA's fragment layouts; exact small-integer inputs).",
           "// Each RUN prints the D registers lane by lane (lane 0's first) as bits."]
    kernels, expects = [], []
    for ci, (name, shape, dk, ak, bk, ck, sat, abr, cr) in enumerate(MMA_CASES):
        if fp8_f16 != (ak in ("e4m3", "e5m2") and dk == "f16"):
            continue
        rng = np.random.default_rng(1000 + ci)
        m, n, k = shape
        A = rng.integers(*int_range(ak, *abr), endpoint=True, size=(m, k))
        B = rng.integers(*int_range(bk, *abr), endpoint=True, size=(k, n))
        if cr is None:   # saturation / wrap: C near the int32 limits
            C = rng.choice([2**31 - 5, -2**31 + 5, 0, 7], size=(m, n))
            A[:, :] = rng.choice([127, -128], size=(m, k))
            B[:, :] = rng.choice([127, -128], size=(k, n))
        else:
            C = rng.integers(cr[0], cr[1], endpoint=True, size=(m, n))
        if ak in ("f16", "bf16", "tf32", "e4m3", "e5m2"):   # some powers of two below one
            A = A.astype(np.float64)
            A[0, :] = 0.25
            A[1, 0] = -0.5
        D = A.astype(object) @ B.astype(object) + C.astype(object)   # exact (Python ints/floats)
        if name.endswith("_xor"):   # popc(a xor b): the positions where the bits differ
            D = (A.astype(object) @ (1 - B).astype(object) + (1 - A).astype(object) @ B.astype(object)
                 + C.astype(object))
        if dk == "s32":
            D = np.array([[int(v) for v in row] for row in D], dtype=object)
            if sat:
                D = np.vectorize(lambda v: max(-2**31, min(2**31 - 1, v)), otypes=[object])(D)
        D = np.array(D, dtype=np.float64 if dk not in ("s32",) else object)
        mods = "mma.sync.aligned." + "m%dn%dk%d" % shape + ".row.col"
        if sat:
            mods += ".satfinite"
        mods += f".{dk}.{ak}.{bk}.{ck}"
        if ak == "b1":
            mods += ".xor.popc" if name.endswith("_xor") else ".and.popc"
        per = {q: (1 if kk == "f64" else 32 // BITS[kk]) for q, kk in zip("dabc", (dk, ak, bk, ck))}
        nregs = {"d": m * n // 32 // per["d"], "a": m * k // 32 // per["a"],
                 "b": k * n // 32 // per["b"], "c": m * n // 32 // per["c"]}
        wide = [regtype(kk) for kk in (dk, ak, bk, ck)]
        kernels.append(mma_kernel(name, mods, nregs, wide))
        pa = pack(A, ak, frag_a, shape)
        pb = pack(B, bk, frag_b, shape)
        pc = pack(C, ck, frag_c, shape)
        pd = pack(D, dk, frag_c, shape)
        out.append(run_line(name, wide, pd, pa, pb, pc))
        expects.append("// EXPECT: " + " ".join(str(v) for v in pd))
    head = HEAD.replace(".version 8.0", ".version 8.7" if fp8_f16 else ".version 8.4")   # e4m3/e5m2 mma: 8.4
    text = "\n".join(out + expects) + "\n" + head + "\n" + "\n".join(kernels)
    open(os.path.join(HERE, "mma_sync_fp8_f16.ptx" if fp8_f16 else "mma_sync.ptx"), "w").write(text)


# ---- mma.sp / mma.sp::ordered_metadata: sparse A (PTX ISA 9.7.14.6) ----
# The logical A (16 x K) is structured sparse: each chunk of a row ("Sparse
# matrix storage") holds its non-zeros in chosen positions; the operand a is
# the compressed 16 x K/2 matrix (the non-zeros in increasing metadata slot
# order), laid out as the dense fragment of the same type with K/2 (the
# sparse fragment tables: rows g | g+8, columns firstcol = the thread's chunk).
# Each chunk's 4 metadata bits: two 2-bit indices (slot 0 in the low bits);
# tf32 (1:2): 0b0100 = element 0, 0b1110 = element 1; s4/u4 (4:8 pairwise):
# the indices of the two non-zero pairs. The lanes that hold a group's
# metadata: sel*n .. sel*n+n-1 of its 4 (n = 1, 2, 4 by shape); lane j of them
# holds, for 16/32-bit types, chunks 4j..4j+3 of row g in bits 0-15 and of row
# g+8 in bits 16-31; for 8/4-bit types, chunks 8(j>>1).. +7 of row g + 8(j&1)
# (tests/gpu/README.md: the assumptions). Other lanes' e is random (unused).

def chunk_w(kind):
    return 2 if kind == "tf32" else 8 if kind in ("s4", "u4") else 4


def frag_b_sp(shape, kind, l, i):
    """B of the sparse shapes: registers of 4 lanes' worth of k, in order."""
    g, t = l >> 2, l % 4
    per = 1 if kind == "tf32" else 32 // BITS[kind]
    return t * per + (i % per) + 4 * per * (i // per), g


def gen_sparse():
    out = ["// mma.sp / mma.sp::ordered_metadata, one warp per kernel (generated by gen.py:",
           "// numpy's A @ B + C with A expanded from its chunks as the PTX ISA's \"Sparse",
           "// matrix storage\" describes; exact small-integer inputs). Output: D lane by lane."]
    kernels, expects = [], []
    for ci, (name, shape, dk, ak, bk, ck, sat, ordered, sel) in enumerate(SP_CASES):
        rng = np.random.default_rng(5000 + ci)
        m, n, k = shape
        cw = chunk_w(ak)
        lo, hi = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15)}.get(ak, (-4, 4))
        blo, bhi = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15)}.get(bk, (-4, 4))
        A = np.zeros((m, k), dtype=np.float64 if dk != "s32" else np.int64)
        Ac = np.zeros((m, k // 2), dtype=A.dtype)
        nib = np.zeros((m, k // cw), dtype=np.int64)
        for i in range(m):
            for c in range(k // cw):
                if cw == 2:   # one of two
                    p = int(rng.integers(0, 2))
                    nib[i, c] = 0b1110 if p else 0b0100
                    v = int(rng.integers(lo, hi, endpoint=True))
                    A[i, 2 * c + p] = Ac[i, c] = v
                    continue
                slots = 4 if cw == 4 else 4      # 4 positions (elements or pairs)
                p0, p1 = sorted(rng.choice(slots, size=2, replace=False))
                if not ordered and rng.integers(0, 2):
                    p0, p1 = p1, p0           # mma.sp: any order of the two indices
                nib[i, c] = p0 | p1 << 2
                for sl, p in enumerate((p0, p1)):
                    if cw == 4:
                        v = int(rng.integers(lo, hi, endpoint=True))
                        A[i, 4 * c + p] = Ac[i, 2 * c + sl] = v
                    else:                     # a pair of two elements
                        for h in range(2):
                            v = int(rng.integers(lo, hi, endpoint=True))
                            A[i, 8 * c + 2 * p + h] = Ac[i, 4 * c + 2 * sl + h] = v
        B = rng.integers(blo, bhi, endpoint=True, size=(k, n))
        C = rng.integers(-1000, 1000, endpoint=True, size=(m, n))
        if dk == "f16":
            C = rng.integers(-16, 16, endpoint=True, size=(m, n))
        D = A.astype(object) @ B.astype(object) + C.astype(object)
        if sat:
            D = np.vectorize(lambda v: max(-2**31, min(2**31 - 1, v)), otypes=[object])(D)
        D = np.array(D, dtype=np.float64 if dk != "s32" else object)
        # metadata registers
        nthr = (k // cw) // 4
        E = [int(v) for v in rng.integers(0, 2**32, size=32)]   # unused lanes: garbage
        for gi in range(8):
            for j in range(nthr):
                word = 0
                if BITS[ak] >= 16:
                    for h in range(2):
                        for q in range(4):
                            word |= int(nib[gi + 8 * h, 4 * j + q]) << (16 * h + 4 * q)
                else:
                    for q in range(8):
                        word |= int(nib[gi + 8 * (j & 1), 8 * (j >> 1) + q]) << (4 * q)
                E[4 * gi + sel * nthr + j] = word
        variant = "mma.sp::ordered_metadata" if ordered else "mma.sp"
        mods = f"{variant}.sync.aligned.m{m}n{n}k{k}.row.col" + (".satfinite" if sat else "")
        mods += f".{dk}.{ak}.{bk}.{ck}"
        per = {q: 32 // BITS[kk] for q, kk in zip("dabc", (dk, ak, bk, ck))}
        nregs = {"d": m * n // 32 // per["d"], "a": m * (k // 2) // 32 // per["a"],
                 "b": k * n // 32 // per["b"], "c": m * n // 32 // per["c"]}
        wide = [regtype(kk) for kk in (dk, ak, bk, ck)]
        kernels.append(sp_kernel(name, mods, nregs, wide, sel))
        pa = pack(Ac, ak, frag_a, (m, n, k // 2))
        pb = pack(B, bk, frag_b_sp, shape)
        pc = pack(C, ck, frag_c, shape)
        pd = pack(D, dk, frag_c, shape)
        out.append(run_line(name, wide, pd, pa, pb, pc, "-a 'u32[32]:" + ",".join(map(str, E)) + "' "))
        expects.append("// EXPECT: " + " ".join(str(v) for v in pd))
    head = HEAD.replace(".version 8.0", ".version 8.5")   # ::ordered_metadata: PTX ISA 8.5
    text = "\n".join(out + expects) + "\n" + head + "\n" + "\n".join(kernels)
    open(os.path.join(HERE, "mma_sp.ptx"), "w").write(text)


def sp_kernel(name, mnem, nregs, wide, sel):
    """mma_kernel's kernel with a fifth buffer: each lane's metadata e."""
    k = mma_kernel(name, mnem, nregs, wide)
    k = k.replace(", .param .u64 pc)", ", .param .u64 pc, .param .u64 pe)")
    k = k.replace("  .reg .b32 %r<2>;", "  .reg .b32 %r<2>;\n  .reg .b32 %e;")
    lines = k.split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith(mnem))
    lines[at:at] = ["  ld.param.u64 %rd9, [pe];", "  mul.wide.u32 %rd8, %r1, 4;",
                    "  add.u64 %rd9, %rd9, %rd8;", "  ld.global.b32 %e, [%rd9];"]
    lines[at + 4] = lines[at + 4].rstrip(";") + f", %e, {sel};"
    return "\n".join(lines)


# (name, shape, D, A, B, C, satfinite, ordered, selector)
SP_CASES = [
    ("sp_m16n8k16_f32_f16_s0", (16, 8, 16), "f32", "f16", "f16", "f32", False, False, 0),
    ("sp_m16n8k16_f32_f16_s3", (16, 8, 16), "f32", "f16", "f16", "f32", False, False, 3),
    ("sp_m16n8k16_f16_f16_o1", (16, 8, 16), "f16", "f16", "f16", "f16", False, True, 1),
    ("sp_m16n8k32_f32_f16_s0", (16, 8, 32), "f32", "f16", "f16", "f32", False, False, 0),
    ("sp_m16n8k32_f32_f16_o1", (16, 8, 32), "f32", "f16", "f16", "f32", False, True, 1),
    ("sp_m16n8k16_f32_bf16_s2", (16, 8, 16), "f32", "bf16", "bf16", "f32", False, False, 2),
    ("sp_m16n8k32_f32_bf16_o1", (16, 8, 32), "f32", "bf16", "bf16", "f32", False, True, 1),
    ("sp_m16n8k8_f32_tf32_s2", (16, 8, 8), "f32", "tf32", "tf32", "f32", False, False, 2),
    ("sp_m16n8k16_f32_tf32_o1", (16, 8, 16), "f32", "tf32", "tf32", "f32", False, True, 1),
    ("sp_m16n8k32_s32_u8_s8_s1", (16, 8, 32), "s32", "u8", "s8", "s32", False, False, 1),
    ("sp_m16n8k64_s32_s8_o0", (16, 8, 64), "s32", "s8", "s8", "s32", True, True, 0),
    ("sp_m16n8k64_s32_s4_u4_s1", (16, 8, 64), "s32", "s4", "u4", "s32", False, False, 1),
    ("sp_m16n8k128_s32_u4_o0", (16, 8, 128), "s32", "u4", "u4", "s32", True, True, 0),
    ("sp_m16n8k64_f32_e5m2_e4m3_s0", (16, 8, 64), "f32", "e5m2", "e4m3", "f32", False, False, 0),
    ("sp_m16n8k64_f32_e4m3_o0", (16, 8, 64), "f32", "e4m3", "e4m3", "f32", False, True, 0),
]


# ---- mma.m8n8k4 with .f16 inputs: four 8x8x4 products (sm_70) ----
# "Matrix Fragments for mma.m8n8k4 with .f16 floating point type": product
# q is computed by lanes 4q..4q+3 (low group) and 16+4q..16+4q+3 (high).

def f884(op, lay, l, i):
    """(row, col) of element i of operand op for lane l, as the ISA writes it."""
    hi = l >= 16
    if op == "a" and lay == "row":
        return (l % 4) + (4 if hi else 0), i
    if op == "a":
        return (i % 4) + (4 if hi else 0), l % 4
    if op == "b" and lay == "row":
        return l % 4, i + (4 if hi else 0)
    if op == "b":
        return i, (l % 4) + (4 if hi else 0)
    if lay == "f16":                    # C/D, .f16
        return (l % 4) + (4 if hi else 0), i
    x = (l & 1) + (i & 2)               # C/D, .f32
    return x + (4 if hi else 0), (i & 4) + (l & 2) + (i & 1)


def pack884(mats, op, lay, kind):
    out = []
    n = 4 if op in "ab" else 8
    for l in range(32):
        q = (l >> 2) & 3
        vals = [encode(kind, mats[q][f884(op, lay, l, i)]) for i in range(n)]
        if kind == "f16":
            out += [vals[2 * r] | vals[2 * r + 1] << 16 for r in range(n // 2)]
        else:
            out += vals
    return out


def gen_mma884():
    out = ["// mma.sync.aligned.m8n8k4 with .f16 inputs: four independent 8x8x4 products per",
           "// warp (generated by gen.py: numpy's A @ B + C per product, packed by the ISA's",
           "// m8n8k4 .f16 fragment tables; exact small-integer inputs). Output: D lane by lane."]
    kernels, expects = [], []
    ci = 0
    for al in ("row", "col"):
        for bl in ("row", "col"):
            for dk, ck in (("f32", "f32"), ("f16", "f16"), ("f32", "f16"), ("f16", "f32")):
                if (al, bl) != ("row", "col") and (dk, ck) not in (("f32", "f32"), ("f16", "f16")):
                    continue
                rng = np.random.default_rng(3000 + ci)
                ci += 1
                if (dk, ck) == ("f16", "f32"):   # ptxas: ".dtype must be '.f32' when .ctype is '.f32'"
                    continue
                A = [rng.integers(-4, 4, endpoint=True, size=(8, 4)).astype(np.float64) for _ in range(4)]
                B = [rng.integers(-4, 4, endpoint=True, size=(4, 8)).astype(np.float64) for _ in range(4)]
                C = [rng.integers(-32, 32, endpoint=True, size=(8, 8)).astype(np.float64) for _ in range(4)]
                A[1][0, :] = 0.25
                D = [A[q] @ B[q] + C[q] for q in range(4)]
                name = f"m8n8k4_{al}_{bl}_{dk}_{ck}"
                mnem = f"mma.sync.aligned.m8n8k4.{al}.{bl}.{dk}.f16.f16.{ck}"
                nregs = {"d": 4 if dk == "f16" else 8, "a": 2, "b": 2, "c": 4 if ck == "f16" else 8}
                wide = [regtype(dk) if dk == "f32" else "b32", "b32", "b32",
                        regtype(ck) if ck == "f32" else "b32"]
                kernels.append(mma_kernel(name, mnem, nregs, wide))
                pa, pb = pack884(A, "a", al, "f16"), pack884(B, "b", bl, "f16")
                pc = pack884(C, "c", ck, ck)
                pd = pack884(D, "d", dk, dk)
                out.append(f"// RUN: ptxvm run %s {name} -b 32 -a 'u32[{len(pd)}]:zero' "
                           + " ".join(f"-a 'u32[{len(v)}]:" + ",".join(map(str, v)) + "'"
                                      for v in (pa, pb, pc)) + " -o 0")
                expects.append("// EXPECT: " + " ".join(map(str, pd)))
    text = "\n".join(out + expects) + "\n" + HEAD.replace(".target sm_90", ".target sm_70") + "\n" \
        + "\n".join(kernels)
    open(os.path.join(HERE, "mma_m8n8k4.ptx"), "w").write(text)


# ---- ldmatrix / stmatrix / movmatrix ----

def frag_ld(mats, count, trans):
    """Lane l's registers after ldmatrix of count 8x8 matrices."""
    out = []
    for l in range(32):
        g, t = l >> 2, l % 4
        for i in range(count):
            M = mats[i].T if trans else mats[i]
            out.append(int(M[g, 2 * t]) | int(M[g, 2 * t + 1]) << 16)
    return out


def gen_matrix():
    rng = np.random.default_rng(7)
    mats = rng.integers(0, 65536, size=(4, 8, 8))
    order = rng.permutation(32)   # row j of the shared buffer holds matrix row order[j]
    smem = np.zeros((32, 8), dtype=np.int64)
    for j in range(32):
        smem[j] = mats[order[j] // 8, order[j] % 8]
    # lane L supplies the address of matrix L // 8, row L % 8: the shared row j with order[j] == L
    where = [int(np.nonzero(order == L)[0][0]) for L in range(32)]
    out = ["// ldmatrix, stmatrix, movmatrix .m8n8 .b16 (generated by gen.py from numpy).",
           "// The 4 8x8 matrices lie in shared memory in a scrambled row order; lane L",
           "// supplies the row address of matrix L/8, row L%8 (arg 2 gives each lane's row);",
           "// lanes past 8*count supply garbage (unused). Output: the registers lane by lane."]
    kernels, expects = [], []
    rows = ",".join(str(v) for v in where)
    smem_list = ",".join(str(int(v)) for v in smem.flatten())
    for count in (1, 2, 4):
        for trans in (False, True):
            name = f"ld_x{count}{'_trans' if trans else ''}"
            regs = "{" + ", ".join(f"%d{i}" for i in range(count)) + "}"
            body = LD_TEMPLATE.format(name=name, count=count, regs=regs, lanes=8 * count, bytes=4 * count,
                                      trans=".trans" if trans else "",
                                      stores="\n".join(f"  st.global.b32 [%rd4+{4 * i}], %d{i};"
                                                       for i in range(count)))
            kernels.append(body)
            exp = frag_ld(mats, count, trans)
            out.append(f"// RUN: ptxvm run %s {name} -b 32 -a 'u32[{32 * count}]:zero' "
                       f"-a 'u16[256]:{smem_list}' -a 'u32[32]:{rows}' -o 0")
            expects.append("// EXPECT: " + " ".join(map(str, exp)))
    # stmatrix: the fragments of ldmatrix, stored back: the shared image again
    for count in (1, 2, 4):
        for trans in (False, True):
            name = f"st_x{count}{'_trans' if trans else ''}"
            frags = frag_ld(mats, count, trans)
            regs = "{" + ", ".join(f"%d{i}" for i in range(count)) + "}"
            loads = "\n".join(f"  ld.global.b32 %d{i}, [%rd4+{4 * i}];" for i in range(count))
            kernels.append(ST_TEMPLATE.format(name=name, count=count, regs=regs, loads=loads,
                                              lanes=8 * count, bytes=4 * count,
                                              trans=".trans" if trans else ""))
            img = np.zeros((32, 8), dtype=np.int64)   # rows not written stay zero
            for j in range(32):
                if order[j] < 8 * count:
                    img[j] = mats[order[j] // 8, order[j] % 8]
            out.append(f"// RUN: ptxvm run %s {name} -b 32 -a 'u16[256]:zero' "
                       f"-a 'u32[{32 * count}]:" + ",".join(map(str, frags)) + f"' -a 'u32[32]:{rows}' -o 0")
            expects.append("// EXPECT: " + " ".join(str(int(v)) for v in img.flatten()))
    # movmatrix: the fragment of matrix 0 becomes that of its transpose
    kernels.append(MOV_TEMPLATE)
    out.append("// RUN: ptxvm run %s mov_trans -b 32 -a 'u32[32]:zero' -a 'u32[32]:"
               + ",".join(map(str, frag_ld(mats, 1, False))) + "' -o 0")
    expects.append("// EXPECT: " + " ".join(map(str, frag_ld(mats, 1, True))))
    text = "\n".join(out + expects) + "\n" + HEAD + "\n" + "\n".join(kernels)
    open(os.path.join(HERE, "matrix.ptx"), "w").write(text)


LD_TEMPLATE = """.visible .entry {name}(.param .u64 pout, .param .u64 pin, .param .u64 prow)
{{
  .reg .b32 %r<8>;
  .reg .b32 %d<4>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 16 .b8 sm[512];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [prow];
  ld.param.u64 %rd3, [pout];
  // lane l copies 16 bytes (one row) to shared memory
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd6, %rd1, %rd5;
  ld.global.v4.b32 {{%r2, %r3, %r4, %r5}}, [%rd6];
  mov.u32 %r6, sm;
  shl.b32 %r7, %r1, 4;
  add.u32 %r7, %r6, %r7;
  st.shared.v4.b32 [%r7], {{%r2, %r3, %r4, %r5}};
  bar.sync 0;
  // my row address: sm + 16 * row[l] (lanes past 8*count: an odd address, unused)
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd2, %rd5;
  ld.global.u32 %r2, [%rd6];
  shl.b32 %r2, %r2, 4;
  add.u32 %r2, %r6, %r2;
  setp.ge.u32 %p1, %r1, {lanes};
  @%p1 add.u32 %r2, %r2, 3;
  ldmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 {regs}, [%r2];
  mul.wide.u32 %rd5, %r1, {bytes};
  add.u64 %rd4, %rd3, %rd5;
{stores}
  ret;
}}
"""

ST_TEMPLATE = """.visible .entry {name}(.param .u64 pout, .param .u64 pin, .param .u64 prow)
{{
  .reg .b32 %r<8>;
  .reg .b32 %d<4>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 16 .b8 sm[512];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [prow];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r6, sm;
  shl.b32 %r7, %r1, 4;
  add.u32 %r7, %r6, %r7;
  mov.u32 %r2, 0;
  st.shared.v4.b32 [%r7], {{%r2, %r2, %r2, %r2}};
  bar.sync 0;
  mul.wide.u32 %rd5, %r1, {bytes};
  add.u64 %rd4, %rd1, %rd5;
{loads}
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd2, %rd5;
  ld.global.u32 %r2, [%rd6];
  shl.b32 %r2, %r2, 4;
  add.u32 %r2, %r6, %r2;
  setp.ge.u32 %p1, %r1, {lanes};
  @%p1 add.u32 %r2, %r2, 3;
  stmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 [%r2], {regs};
  bar.sync 0;
  ld.shared.v4.b32 {{%r2, %r3, %r4, %r5}}, [%r7];
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd6, %rd3, %rd5;
  st.global.v4.b32 [%rd6], {{%r2, %r3, %r4, %r5}};
  ret;
}}
"""

MOV_TEMPLATE = """.visible .entry mov_trans(.param .u64 pout, .param .u64 pin)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.b32 %r2, [%rd4];
  movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;
  add.u64 %rd5, %rd2, %rd3;
  st.global.b32 [%rd5], %r3;
  ret;
}
"""

if __name__ == "__main__":
    gen_mma()
    gen_mma(fp8_f16=True)
    gen_mma884()
    gen_sparse()
    gen_matrix()
