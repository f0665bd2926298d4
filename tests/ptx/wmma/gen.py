#!/usr/bin/env python3
"""gen.py: writes tests/ptx/wmma/wmma.ptx, the conformance cases of
wmma.load / wmma.mma / wmma.store, with numpy as the independent reference.

    python3 tests/ptx/wmma/gen.py        # rewrites wmma.ptx here

Each kernel is one warp: it loads A, B and C from memory with wmma.load
(the case's .row/.col layouts and stride: a register, an immediate, or
none for the default), runs one wmma.mma and stores D with wmma.store. The
fragment layout is unspecified by the ISA, so the test sees only memory:
the expected output is numpy's A @ B + C written in D's layout, and the
padding between rows (columns) of every matrix holds a marker that must be
neither read nor overwritten. The state space is .global, generic, or
.shared (the kernel copies the matrices into shared memory first and D out
after). Inputs are small integers (and powers of two), so every result is
exact under any order of accumulation. Deterministic (fixed seeds)."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
SIZE = {"f16": 2, "bf16": 2, "tf32": 4, "f32": 4, "f64": 8, "s8": 1, "u8": 1, "s32": 4}
BITS = {"s4": 4, "u4": 4, "b1": 1}   # sub-byte: the lower bits hold the lower element
PAD = {"f16": 0x7e00, "bf16": 0x7fc0, "tf32": 0x7fc00000, "f32": 0x7fc00000,
       "f64": 0x7ff8000000000000, "s8": 0x5a, "u8": 0x5a, "s32": 0x5a5a5a5a,
       "s4": 0x5, "u4": 0x5, "b1": 1}
RTYPE = {"f16": "b32", "bf16": "b32", "tf32": "b32", "s8": "b32", "u8": "b32", "s4": "b32", "u4": "b32",
         "b1": "b32",
         "f32": "f32", "s32": "s32", "f64": "f64"}


def nregs(which, shape, kind):
    """The ISA's register counts of a fragment."""
    m, n, k = shape
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[which]
    if kind == "f16" and which != "c":
        return 8
    epr = {"f16": 2, "bf16": 2, "s8": 4, "u8": 4, "s4": 8, "u4": 8, "b1": 32}.get(kind, 1)
    return rows * cols // 32 // epr


def encode(kind, v):
    if kind == "f16":
        return int(np.float16(v).view(np.uint16))
    if kind == "bf16":
        return int(np.float32(v).view(np.uint32)) >> 16
    if kind in ("tf32", "f32"):
        return int(np.float32(v).view(np.uint32))
    if kind == "f64":
        return int(np.float64(v).view(np.uint64))
    if kind in ("s8", "u8"):
        return int(v) & 0xff
    if kind in ("s4", "u4"):
        return int(v) & 0xf
    if kind == "b1":
        return int(v) & 1
    return int(v) & 0xffffffff


def image(mat, kind, col, ld, junk=0):
    """The memory image of mat in layout col with leading dimension ld."""
    rows, cols = mat.shape
    outer = cols if col else rows
    img = [PAD[kind]] * (outer * ld)
    for i in range(rows):
        for j in range(cols):
            img[j * ld + i if col else i * ld + j] = encode(kind, mat[i, j]) | junk
    return img


def words(img, kind):
    """The image as u32 words (little-endian)."""
    if kind in BITS:
        bits = BITS[kind]
        n = sum(v << (bits * i) for i, v in enumerate(img))
        b = n.to_bytes(len(img) * bits // 8, "little")
    else:
        b = b"".join(v.to_bytes(SIZE[kind], "little") for v in img)
    return [int.from_bytes(b[i:i + 4], "little") for i in range(0, len(b), 4)]


def copy(src, sym, nwords, out):
    """PTX: the warp copies nwords words between global %rd{src} and sym."""
    lab = f"{sym}_{'out' if out else 'in'}"
    ld, st = ("ld.shared.b32 %r2, [%r3];", "st.global.b32 [%rd6], %r2;") if out else \
             ("ld.global.b32 %r2, [%rd6];", "st.shared.b32 [%r3], %r2;")
    return f"""  mov.u32 %r1, %tid.x;
{lab}_loop:
  setp.ge.u32 %p1, %r1, {nwords};
  @%p1 bra {lab}_done;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd{src}, %rd5;
  mov.u32 %r3, {sym};
  shl.b32 %r4, %r1, 2;
  add.u32 %r3, %r3, %r4;
  {ld}
  {st}
  add.u32 %r1, %r1, 32;
  bra {lab}_loop;
{lab}_done:
  bar.sync 0;"""


def kernel(c, sizes):
    """PTX of case c; sizes: bytes of the D, A, B, C images."""
    name, shape, (dk, ak, bk, ck), lay, strides, space, sat = c
    m, n, k = shape
    shp = "m%dn%dk%d" % shape
    kinds = {"d": dk, "a": ak, "b": bk, "c": ck}
    nr = {q: nregs("c" if q == "d" else q, shape, kinds[q]) for q in "dabc"}
    s = [f".visible .entry {name}(.param .u64 pd, .param .u64 pa, .param .u64 pb, .param .u64 pc)", "{",
         "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;"]
    for q in "dabc":
        s.append(f"  .reg .{RTYPE[kinds[q]]} %{q}<{nr[q]}>;")
    for j, q in enumerate("dabc"):
        s.append(f"  ld.param.u64 %rd{j}, [p{q}];")
    if space == "shared":
        for j, q in enumerate("dabc"):
            s.append(f"  .shared .align 32 .b8 s{q}[{sizes[j]}];")
        for j, q in enumerate("abc"):
            s.append(copy(j + 1, "s" + q, sizes[j + 1] // 4, False))
        s.append(copy(0, "sd", sizes[0] // 4, False))
    ss = {"global": ".global", "generic": "", "shared": ".shared"}[space]
    addr = {q: (f"s{q}" if space == "shared" else f"%rd{j}") for j, q in enumerate("dabc")}
    for j, q in enumerate("dabc"):
        st = strides[j]
        if st is None:
            s.append(f"  // {q}: default stride")
        elif st[0] == "r":
            s.append(f"  mov.u32 %r{4 + j}, {st[1:]};")
    def stride_opd(j):
        st = strides[j]
        return "" if st is None else f", %r{4 + j}" if st[0] == "r" else f", {st[1:]}"
    regs = {q: "{" + ", ".join(f"%{q}{r}" for r in range(nr[q])) + "}" for q in "dabc"}
    for j, q in enumerate("abc"):
        t = "f32" if kinds[q] == "tf32" and q == "c" else kinds[q]
        s.append(f"  wmma.load.{q}.sync.aligned.{lay[j + 1]}.{shp}{ss}.{t} {regs[q]}, [{addr[q]}]"
                 f"{stride_opd(j + 1)};")
    types = f".{dk}.{ck}" if ak == "f16" else f".{dk}.{ak}.{bk}.{ck}"
    bop = (".xor.popc" if name.endswith("_xor") else ".and.popc") if ak == "b1" else ""
    s.append(f"  wmma.mma{bop}.sync.aligned.{lay[1]}.{lay[2]}.{shp}{types}{'.satfinite' if sat else ''} "
             f"{regs['d']}, {regs['a']}, {regs['b']}, {regs['c']};")
    s.append(f"  wmma.store.d.sync.aligned.{lay[0]}.{shp}{ss}.{dk} [{addr['d']}], {regs['d']}"
             f"{stride_opd(0)};")
    if space == "shared":
        s.append("  bar.sync 0;")
        s.append(copy(0, "sd", sizes[0] // 4, True))
    s.append("  ret;\n}")
    return "\n".join(s) + "\n"


F16 = ("f32", "f16", "f16", "f32")
# (name, shape, (D, A, B, C), layouts of (D, A, B, C), strides (None: default,
#  "rN": register N, "iN": immediate N; in elements), space, satfinite)
CASES = [
    ("h16_f32_rrr", (16, 16, 16), F16, ("row", "row", "row", "row"), (None, None, None, None), "global", False),
    ("h16_f32_ccc", (16, 16, 16), F16, ("col", "col", "col", "col"), ("r24", "i24", "r32", "i20"), "global", False),
    ("h16_f16_rc", (16, 16, 16), ("f16", "f16", "f16", "f16"), ("col", "row", "col", "row"), ("i24", "r16", "r24", None), "generic", False),
    ("h16_f16d_f32c", (16, 16, 16), ("f16", "f16", "f16", "f32"), ("row", "col", "row", "col"), (None, None, None, None), "shared", False),
    ("h16_f32d_f16c", (16, 16, 16), ("f32", "f16", "f16", "f16"), ("row", "row", "col", "row"), ("r20", None, None, "r32"), "global", False),
    ("h32x8_f32", (32, 8, 16), F16, ("row", "row", "row", "col"), (None, "r24", None, None), "global", False),
    ("h32x8_f16", (32, 8, 16), ("f16", "f16", "f16", "f16"), ("col", "col", "row", "row"), ("r40", None, "i16", None), "shared", False),
    ("h8x32_f32", (8, 32, 16), F16, ("col", "row", "col", "row"), (None, None, "r24", "i40"), "generic", False),
    ("h8x32_f16", (8, 32, 16), ("f16", "f16", "f16", "f16"), ("row", "col", "row", "col"), ("r40", "r16", None, None), "global", False),
    ("bf16_16", (16, 16, 16), ("f32", "bf16", "bf16", "f32"), ("row", "row", "col", "row"), ("r20", None, "i24", None), "global", False),
    ("bf16_32x8", (32, 8, 16), ("f32", "bf16", "bf16", "f32"), ("col", "col", "row", "col"), (None, None, None, "r40"), "shared", False),
    ("bf16_8x32", (8, 32, 16), ("f32", "bf16", "bf16", "f32"), ("row", "row", "row", "row"), (None, "r24", None, None), "generic", False),
    ("tf32_16x16x8", (16, 16, 8), ("f32", "tf32", "tf32", "f32"), ("row", "row", "col", "col"), ("r20", "r12", None, None), "global", False),
    ("tf32_cr", (16, 16, 8), ("f32", "tf32", "tf32", "f32"), ("col", "col", "row", "row"), (None, None, "r20", None), "shared", False),
    ("f64_8x8x4", (8, 8, 4), ("f64", "f64", "f64", "f64"), ("row", "row", "col", "row"), (None, "r6", None, "r10"), "global", False),
    ("f64_cc", (8, 8, 4), ("f64", "f64", "f64", "f64"), ("col", "col", "row", "col"), ("r12", None, "i10", None), "generic", False),
    ("s8_16", (16, 16, 16), ("s32", "s8", "s8", "s32"), ("row", "row", "col", "row"), (None, "r32", None, None), "global", False),
    ("u8_32x8", (32, 8, 16), ("s32", "u8", "u8", "s32"), ("col", "col", "row", "row"), ("r40", None, None, "r12"), "shared", False),
    ("s8_8x32", (8, 32, 16), ("s32", "s8", "s8", "s32"), ("row", "row", "row", "col"), (None, None, "r48", None), "generic", False),
    ("s8_16_sat", (16, 16, 16), ("s32", "s8", "s8", "s32"), ("row", "row", "col", "row"), (None, None, None, None), "global", True),
    ("s8_16_wrap", (16, 16, 16), ("s32", "s8", "s8", "s32"), ("row", "row", "col", "row"), (None, None, None, None), "global", False),
    ("s4_8x8x32", (8, 8, 32), ("s32", "s4", "s4", "s32"), ("row", "row", "col", "row"), (None, "r48", None, None), "global", False),
    ("u4_sat", (8, 8, 32), ("s32", "u4", "u4", "s32"), ("col", "row", "col", "col"), ("r16", None, "i64", None), "shared", True),
    ("b1_xor", (8, 8, 128), ("s32", "b1", "b1", "s32"), ("row", "row", "col", "row"), (None, "r256", None, None), "generic", False),
    ("b1_and", (8, 8, 128), ("s32", "b1", "b1", "s32"), ("col", "row", "col", "row"), (None, None, "i256", "r16"), "shared", False),
]


def rand(rng, kind, shape, which):
    if kind in ("s8", "u8"):
        lo, hi = (-128, 127) if kind == "s8" else (0, 255)
    elif kind in ("s4", "u4"):
        lo, hi = (-8, 7) if kind == "s4" else (0, 15)
    elif kind == "b1":
        lo, hi = 0, 1
    elif kind == "f64":
        lo, hi = (-1000, 1000) if which != "c" else (-10**6, 10**6)
    elif kind == "tf32":
        lo, hi = (-100, 100) if which != "c" else (-1000, 1000)
    elif kind == "bf16":
        lo, hi = (-8, 8) if which != "c" else (-100, 100)
    elif kind == "s32":
        lo, hi = -10**6, 10**6
    else:
        lo, hi = (-3, 3) if which != "c" else (-16, 16)
    return rng.integers(lo, hi, endpoint=True, size=shape)


def main():
    head = ["// wmma.load/.mma/.store, one warp per kernel (generated by gen.py: numpy's",
            "// A @ B + C in memory, in each matrix's layout and stride, padding marked).",
            "// Each RUN prints D's buffer (padding included) as bits."]
    kernels, expects = [], []
    for ci, c in enumerate(CASES):
        name, shape, kinds, lay, strides, space, sat = c
        dk, ak, bk, ck = kinds
        m, n, k = shape
        rng = np.random.default_rng(2000 + ci)
        A = rand(rng, ak, (m, k), "a").astype(object)
        B = rand(rng, bk, (k, n), "b").astype(object)
        C = rand(rng, ck, (m, n), "c").astype(object)
        if name.endswith(("_sat", "_wrap")):
            C = rng.choice([2**31 - 5, -2**31 + 5, 0, 7], size=(m, n)).astype(object)
            hi = {"s8": [127, -128], "u4": [15, 0], "s4": [7, -8]}
            A[:, :] = rng.choice(hi[ak], size=(m, k))
            B[:, :] = rng.choice(hi[bk], size=(k, n))
        if ak in ("f16", "bf16", "tf32"):
            A[0, :] = 0.25
            A[1, 0] = -0.5
        D = A @ B + C
        if name.endswith("_xor"):   # popc(a xor b): the k where the bits differ
            D = A @ (1 - B) + (1 - A) @ B + C
        if dk == "s32":
            D = np.vectorize(lambda v: max(-2**31, min(2**31 - 1, v)) if sat else v, otypes=[object])(D)
        dims = {"d": (m, n), "a": (m, k), "b": (k, n), "c": (m, n)}
        imgs, sizes = [], []
        for j, (q, mat, kind) in enumerate(zip("dabc", (D, A, B, C), kinds)):
            col = lay[j] == "col"
            st = strides[j]
            ld = (dims[q][0] if col else dims[q][1]) if st is None else int(st[1:])
            junk = 0x155 if kind == "tf32" else 0    # low tf32 bits are ignored
            img = image(mat if q != "d" else np.zeros(dims[q], dtype=object), kind, col, ld, junk)
            if q == "d":
                exp = image(mat, kind, col, ld)
                exp = [v & 0xffffffff for v in exp] if kind == "s32" else exp
            imgs.append(words(img, kind))
            sizes.append(len(imgs[-1]) * 4)
        kernels.append(kernel(c, sizes))
        args = " ".join(f"-a 'u32[{len(wd)}]:" + ",".join(map(str, wd)) + "'" for wd in imgs)
        head.append(f"// RUN: ptxvm run %s {name} -b 32 {args} -o 0")
        expects.append("// EXPECT: " + " ".join(map(str, words(exp, dk))))
    text = "\n".join(head + expects) + "\n" + HEAD + "\n" + "\n".join(kernels)
    open(os.path.join(HERE, "wmma.ptx"), "w").write(text)


if __name__ == "__main__":
    main()
