#!/usr/bin/env python3
"""gen.py: the tensor-copy conformance cases of this folder (issue 18).

    python3 tests/ptx/tma/gen.py      # rewrites tma_*.ptx and tma_*.out

Each case is a kernel that moves one box between a tensor in global memory
(a numpy array, dimension 0 innermost) and shared memory with
cp.async.bulk.tensor, and dumps the result. The expected output is computed
here from numpy alone, independently of ptxvm: the box is gathered with
numpy indexing (out-of-bounds elements zero, or 0x7fff for the f16 NaN
request), then laid out as tensormap.h says (dense rows; with a swizzle, the
16-byte chunk j of 128-byte row r moves to chunk j ^ (r % 8 & m), m = 1, 3, 7
for 32B, 64B, 128B) — the assumptions tests/gpu/README.md lists for a GPU.
The im2col cases gather their box from the ISA's words (§5.5.4, written out
in im2col_pixels), the reductions (tma_reduce_*) apply each .redOp to the
elements' bits with exact rational arithmetic rounded to nearest even
(fencode), both here and independently of ptxvm's C code. The interleaved
cases (tma_il*) build the NC/xHWCx image of a logical NCHW tensor and read
each box element back from the logical tensor (il_tensor, il_box).
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SWM = {"none": 0, "32B": 1, "64B": 3, "128B": 7}

HEAD = """.version 8.0
.target sm_90
.address_size 64
.shared .align 1024 .b8 sm[{B}];
.shared .align 8 .b64 bar;
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 src, .param .u64 out,
                  .param .s32 c0, .param .s32 c1, .param .s32 c2, .param .s32 c3, .param .s32 c4)
{{
  .reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.s32 %r1, [c0]; ld.param.s32 %r2, [c1]; ld.param.s32 %r3, [c2];
  ld.param.s32 %r4, [c3]; ld.param.s32 %r5, [c4];
  mov.u32 %r0, %tid.x;
  setp.eq.u32 %p1, %r0, 0;
"""

WAIT_COPY = """WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
  @!%p2 bra.uni WAIT;
  mov.u32 %r10, %r0;
COPY:                              // out[i] = sm[i], u32 words
  setp.ge.u32 %p3, %r10, {W};
  @%p3 bra.uni DONE;
  shl.b32 %r11, %r10, 2;
  mov.u32 %r12, sm;
  add.u32 %r12, %r12, %r11;
  ld.shared.u32 %r13, [%r12];
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r13;
  add.u32 %r10, %r10, 128;
  bra.uni COPY;
DONE:
  ret;
}}
"""

LOAD = """  @%p1 mbarrier.init.shared.b64 [bar], 1;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd5, [bar], {B};
  {MAPSETUP}@%p1 cp.async.bulk.tensor.{R}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sm], [{MAP}, {{{C}}}], [bar];
""" + WAIT_COPY


STORE = """  mov.u64 %rd2, %rd1;
  mov.u32 %r10, %r0;
FILL:                              // sm[i] = out[i] (argument 2), u32 words
  setp.ge.u32 %p3, %r10, {W};
  @%p3 bra.uni STORE;
  shl.b32 %r11, %r10, 2;
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r13, [%rd7];
  mov.u32 %r12, sm;
  add.u32 %r12, %r12, %r11;
  st.shared.u32 [%r12], %r13;
  add.u32 %r10, %r10, 128;
  bra.uni FILL;
STORE:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 cp.async.bulk.tensor.{R}d.global.shared::cta.tile.bulk_group [tm, {{{C}}}], [sm];
  @%p1 cp.async.bulk.commit_group;
  @%p1 cp.async.bulk.wait_group 0;
  ret;
}}
"""


def nbox(box, es):
    return [box[0]] + [-(-b // e) for b, e in zip(box[1:], es[1:])]


def gather(t, dims, box, es, c, fill):
    """The box as an array indexed [i_{R-1}, ..., i_0] (dimension 0 last)."""
    n = nbox(box, es)
    out = np.full(n[::-1], fill, dtype=t.dtype)
    for idx in np.ndindex(*n[::-1]):
        k = idx[::-1]
        g = [c[0] + k[0]] + [c[d] + k[d] * es[d] for d in range(1, len(dims))]
        if all(0 <= g[d] < dims[d] for d in range(len(dims))):
            out[idx] = t[tuple(g[::-1])]
    return out


def swizzle_bytes(dense, sw):
    """Chunk j of 128-byte row r -> chunk j ^ (r % 8 & m)."""
    m = SWM[sw]
    if not m:
        return dense
    out = np.zeros_like(dense)
    for o in range(0, len(dense), 16):
        r, j = o // 128, (o // 16) % 8
        d = r * 128 + (j ^ (r % 8 & m)) * 16
        out[d:d + 16] = dense[o:o + 16]
    return out


def spec(dims, box, es, sw, oob, typ="u16", shape=None, il="none"):
    """The -a 'tensormap:...' of a tile map (box) or, with shape (the
    lower=...,pixels= fields), an im2col one."""
    s = "tensormap:%s,&1,dims=%s,%s" % (typ, "x".join(map(str, dims)), shape or "box=" + "x".join(map(str, box)))
    if any(e != 1 for e in es):
        s += ",estrides=" + "x".join(map(str, es))
    if sw != "none":
        s += ",swizzle=" + sw
    if oob != "zero":
        s += ",oob=" + oob
    if il != "none":
        s += ",interleave=" + il
    return s


def generic_map(ptx):
    """The tensor map as a register holding the kernel parameter's generic
    address (what nvcc writes for a __grid_constant__ CUtensorMap): ptxas
    refuses a .param symbol named directly ("State space mismatch"). On the
    line of the .reg declarations, so no later line moves."""
    if "[tm, {" not in ptx:
        return ptx
    ptx = ptx.replace("[tm, {", "[%tmap, {")
    i = ptx.index("  .reg .pred")
    j = ptx.index("\n", i)
    return ptx[:j] + " .reg .b64 %tmap; mov.u64 %tmap, tm; cvta.param.u64 %tmap, %tmap;" + ptx[j:]


def write(name, comment, ptx, run, out_line):
    ptx = generic_map(ptx)
    with open(os.path.join(HERE, name + ".ptx"), "w") as f:
        f.write("// %s\n// Generated by gen.py (numpy reference); do not edit.\n" % comment)
        f.write("// RUN: %s\n" % run)
        f.write(ptx)
    with open(os.path.join(HERE, name + ".out"), "w") as f:
        f.write(out_line + "\n")


def coords(c):
    return " ".join("-a s32:%d" % v for v in (list(c) + [0] * 5)[:5])


def load_case(name, dims, box, c, es=None, sw="none", oob="zero", map_reg=False):
    R = len(dims)
    es = es or [1] * R
    total = int(np.prod(dims))
    t = (np.arange(total) % 65536).astype(np.uint16).reshape(dims[::-1])   # iota, as -a u16[N]:iota
    fill = 0x7FFF if oob == "nan" else 0
    dense = gather(t, dims, box, es, c, fill).tobytes()
    img = np.frombuffer(swizzle_bytes(np.frombuffer(dense, np.uint8).copy(), sw).tobytes(), np.uint16)
    B = len(dense)
    C = ", ".join("%%r%d" % (i + 1) for i in range(R))
    setup = "mov.u64 %rd3, tm;\n  cvta.param.u64 %rd3, %rd3;\n  " if map_reg else ""
    ptx = HEAD.format(B=B) + LOAD.format(B=B, R=R, C=C, W=B // 4, MAP="%rd3" if map_reg else "tm",
                                         MAPSETUP=setup)
    typ = "f16" if oob == "nan" else "u16"
    run = "ptxvm run %%s -b 128 -a '%s' -a u16[%d]:iota -a u16[%d]:zero %s -o 2" % (
        spec(dims, box, es, sw, oob, typ), total, B // 2, coords(c))
    if oob == "nan":   # an f16 map over the same bits: iota's f16 values are the integers
        run = run.replace("u16[%d]:iota" % total, "u16[%d]:iota" % total)
    desc = "cp.async.bulk.tensor.%dd load: dims %s, box %s at %s, element strides %s, swizzle %s, oob %s%s" % (
        R, dims, box, list(c), es, sw, oob, ", the map by generic address" if map_reg else "")
    write(name, desc, ptx, run, " ".join(str(int(v)) for v in img))


def store_case(name, dims, box, c):
    R = len(dims)
    es = [1] * R
    n = nbox(box, es)
    B = int(np.prod(n)) * 2
    smem = (np.arange(B // 2) + 1000).astype(np.uint16)   # shared box = 1000, 1001, ...
    total = int(np.prod(dims))
    t = np.zeros(dims[::-1], dtype=np.uint16)
    sb = smem.reshape(n[::-1])
    for idx in np.ndindex(*n[::-1]):
        k = idx[::-1]
        g = [c[d] + k[d] for d in range(R)]
        if all(0 <= g[d] < dims[d] for d in range(R)):
            t[tuple(g[::-1])] = sb[idx]
    C = ", ".join("%%r%d" % (i + 1) for i in range(R))
    ptx = HEAD.format(B=B) + STORE.format(R=R, C=C, W=B // 4)
    # argument 1 (the tensor) starts zero, argument 2 is the shared box's source
    run = "ptxvm run %%s -b 128 -a '%s' -a u16[%d]:zero -a u16[%d]:list %s -o 1" % (
        spec(dims, box, es, "none", "zero"), total, B // 2, coords(c))
    run = run.replace("u16[%d]:list" % (B // 2), "u16[%d]:%s" % (B // 2, ",".join(str(int(v)) for v in smem)))
    desc = "cp.async.bulk.tensor.%dd store: dims %s, box %s at %s (out-of-bounds elements not written)" % (
        R, dims, box, list(c))
    write(name, desc, ptx, run.replace("ptxvm run %s", "ptxvm run %s"), " ".join(str(int(v)) for v in t.ravel()))


# ---- interleaved maps (PTX ISA 9.0 §5.5.6; cuTensorMapEncodeTiled's
# interleave): the tensor NC/xHWCx, x channels in a 16- or 32-byte slice
# (the last slice padded with zeros), is given to the map as its own tensor
# of dims [x, W, (H, (D,)) C/x (, N)], dimension 0 the channels of a slice.
# The box is then a tile box of that tensor, except that dimension 0's
# element stride counts (§5.5.3.2): element k of dimension d at
# c[d] + k * es[d] for every d, ceil(box[d] / es[d]) of them; dense rows
# in shared memory, then the swizzle (the assumptions tests/gpu/README.md
# lists). The reference reads each element from the logical NCHW tensor X. ----
NPT = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32}
SLICE = {"16B": 16, "32B": 32}


def il_tensor(typ, il, C, sp, N, keep_n):
    """Logical X[n][c][spatial, outermost first] (values 1, 2, ... so the zero
    padding shows), the map's dims and its interleaved memory image."""
    S = SLICE[il] // np.dtype(NPT[typ]).itemsize
    cs = -(-C // S)
    X = ((np.arange(N * C * int(np.prod(sp))) + 1) % (1 << (8 * np.dtype(NPT[typ]).itemsize))).astype(
        NPT[typ]).reshape([N, C] + sp[::-1])
    assert keep_n or N == 1
    dims = [S] + sp + [cs] + ([N] if keep_n else [])
    mem = np.zeros(dims[::-1], NPT[typ])            # mem[(n,) c/S, (d,) (h,) w, k]
    for idx in np.ndindex(*X.shape):
        n, c, spat = idx[0], idx[1], idx[2:]
        mem[((n,) if keep_n else ()) + (c // S,) + spat + (c % S,)] = X[idx]
    return X, S, dims, mem


def il_box(X, S, dims, box, es, c, keep_n, fill=0):
    """The box, dense, read from X: channel cs * S + g[0] of image n at the
    spatial g[1..], out of bounds (fill) outside dims, the slice's padding
    (a channel past C) zero."""
    R = len(dims)
    n = [-(-b // e) for b, e in zip(box, es)]
    out = np.full(n[::-1], fill, X.dtype)
    ns = R - 2 - (1 if keep_n else 0)
    for idx in np.ndindex(*n[::-1]):
        k = idx[::-1]
        g = [c[d] + k[d] * es[d] for d in range(R)]
        if not all(0 <= g[d] < dims[d] for d in range(R)):
            continue
        img = g[R - 1] if keep_n else 0
        ch = g[1 + ns] * S + g[0]
        out[idx] = X[(img, ch) + tuple(g[1:1 + ns][::-1])] if ch < X.shape[1] else 0
    return out


def il_load_case(name, typ, il, C, sp, N, keep_n, box, c, es=None, sw="none", prefetch=False):
    X, S, dims, mem = il_tensor(typ, il, C, sp, N, keep_n)
    R = len(dims)
    es = es or [1] * R
    dense = il_box(X, S, dims, box, es, c, keep_n).tobytes()
    img = np.frombuffer(swizzle_bytes(np.frombuffer(dense, np.uint8).copy(), sw).tobytes(), NPT[typ])
    B = len(dense)
    C_ = ", ".join("%%r%d" % (i + 1) for i in range(R))
    ptx = HEAD.format(B=B) + LOAD.format(B=B, R=R, C=C_, W=B // 4, MAP="tm", MAPSETUP="")
    if prefetch:   # a hint first: it reads and checks the map, moves nothing
        ptx = ptx.replace("  @%p1 cp.async.bulk.tensor.", "  @%%p1 cp.async.bulk.prefetch.tensor.%dd.L2.global.tile "
                          "[tm, {%s}];\n  @%%p1 cp.async.bulk.tensor." % (R, C_), 1)
    run = "ptxvm run %%s -b 128 -a '%s' -a %s[%d]:%s -a %s[%d]:zero %s -o 2" % (
        spec(dims, box, es, sw, "zero", typ, il=il), typ, mem.size, ",".join(str(int(v)) for v in mem.ravel()),
        typ, img.size, coords(c))
    desc = ("cp.async.bulk.tensor.%dd load, %s interleave (NC/%dHWC%d of %s, C = %d): dims %s, box %s at %s, "
            "element strides %s, swizzle %s%s" % (R, il, S, S, typ, C, dims, box, list(c), es, sw,
                                                  ", after a prefetch" if prefetch else ""))
    write(name, desc, ptx, run, " ".join(str(int(v)) for v in img))


def il_store_case(name, typ, il, dims, box, c, es=None, sw="none"):
    """A store to an interleaved map: the in-bounds box elements land at
    their elements of the tensor (element k of dimension d at
    c[d] + k * es[d]); the others, and the elements between (es[0] > 1), keep
    their values (the tensor starts 7, 8, ...). Shared memory holds the
    values 1000, 1001, ... as bytes; with a swizzle the dense box is their
    unswizzled order (the XOR is its own inverse)."""
    R = len(dims)
    es = es or [1] * R
    n = [-(-b // e) for b, e in zip(box, es)]
    t = ((np.arange(int(np.prod(dims))) + 7) % 200).astype(NPT[typ]).reshape(dims[::-1])
    init = t.copy()
    shm = ((np.arange(int(np.prod(n))) + 1000) % (1 << (8 * t.itemsize))).astype(NPT[typ])
    sb = np.frombuffer(swizzle_bytes(np.frombuffer(shm.tobytes(), np.uint8).copy(), sw).tobytes(),
                       NPT[typ]).reshape(n[::-1])
    for idx in np.ndindex(*n[::-1]):
        k = idx[::-1]
        g = [c[d] + k[d] * es[d] for d in range(R)]
        if all(0 <= g[d] < dims[d] for d in range(R)):
            t[tuple(g[::-1])] = sb[idx]
    B = sb.nbytes
    C_ = ", ".join("%%r%d" % (i + 1) for i in range(R))
    ptx = HEAD.format(B=B) + STORE.format(R=R, C=C_, W=B // 4)
    run = "ptxvm run %%s -b 128 -a '%s' -a %s[%d]:%s -a %s[%d]:%s %s -o 1" % (
        spec(dims, box, es, sw, "zero", typ, il=il), typ, init.size, ",".join(str(int(v)) for v in init.ravel()),
        typ, shm.size, ",".join(str(int(v)) for v in shm), coords(c))
    desc = "cp.async.bulk.tensor.%dd store, %s interleave: dims %s, box %s at %s, element strides %s, swizzle %s" % (
        R, il, dims, box, list(c), es, sw)
    write(name, desc, ptx, run, " ".join(str(int(v)) for v in t.ravel()))


def il_refused_case(name, typ, il, dims, box, es, sw, why):
    """A valid interleaved map whose box ptxvm does not lay out: the
    encoder refuses it by name (cuTensorMapEncodeTiled returns
    CUDA_ERROR_NOT_SUPPORTED), before the kernel runs."""
    R = len(dims)
    B = 256
    ptx = HEAD.format(B=B) + LOAD.format(B=B, R=R, C=", ".join("%%r%d" % (i + 1) for i in range(R)), W=B // 4,
                                         MAP="tm", MAPSETUP="")
    sp = spec(dims, box, es, sw, "zero", typ, il=il)
    run = "ptxvm run %%s -b 128 -a '%s' -a %s[%d]:zero -a u8[256]:zero %s" % (
        sp, typ, int(np.prod(dims)), coords([0] * R))
    ptx = generic_map(ptx)
    with open(os.path.join(HERE, name + ".ptx"), "w") as f:
        f.write("// An interleaved map (%s) whose box's dimension-0 row is not whole slices: valid for\n"
                "// cuTensorMapEncodeTiled, refused by ptxvm's encoder by name (the shared layout of a\n"
                "// partial slice is undocumented). Generated by gen.py; do not edit.\n" % il)
        f.write("// RUN: %s\n// EXIT: 2\n" % run)
        f.write("// STDERR: %s\n" % why)
        f.write(ptx)


# ---- cp.reduce.async.bulk.tensor: the reference arithmetic, from the ISA's
# words (§9.7.9.25.4.2, §9.7.9.25.5.3), on the elements' bits ----
from fractions import Fraction
import math
import struct

FMT = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23)}
BITS = {"u32": 32, "s32": 32, "u64": 64, "s64": 64, "f16": 16, "bf16": 16, "f32": 32}


def fdecode(v, typ):
    """The value of the bits v (a Fraction, or 'nan', or a signed zero as (0, sign))."""
    e, m = FMT[typ]
    sign = v >> (e + m) & 1
    ex = v >> m & ((1 << e) - 1)
    fr = v & ((1 << m) - 1)
    if ex == (1 << e) - 1:
        return "nan" if fr else ("inf", sign)
    mag = Fraction(fr, 1 << m) * Fraction(2) ** (1 - ((1 << (e - 1)) - 1)) if ex == 0 else \
        (1 + Fraction(fr, 1 << m)) * Fraction(2) ** (ex - ((1 << (e - 1)) - 1))
    return (mag, sign)


def fencode(x, typ):
    """(magnitude Fraction, sign) -> bits, rounded to nearest even."""
    e, m = FMT[typ]
    mag, sign = x
    bias = (1 << (e - 1)) - 1
    if mag == 0:
        return sign << (e + m)
    ex = math.floor(math.log2(mag))
    while Fraction(2) ** ex > mag:
        ex -= 1
    while Fraction(2) ** (ex + 1) <= mag:
        ex += 1
    ex = max(ex, 1 - bias)                      # subnormals share the lowest exponent
    q = mag / Fraction(2) ** ex * (1 << m)       # the significand in units of the last place
    n = math.floor(q)
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n & 1):
        n += 1
    if n >= (2 << m):
        n >>= 1
        ex += 1
    if ex > bias:
        return sign << (e + m) | ((1 << e) - 1) << m   # infinity
    if n < (1 << m):                                   # subnormal
        return sign << (e + m) | n
    return sign << (e + m) | (ex + bias) << m | (n - (1 << m))


def fadd(a, b, typ):
    qnan = {"f16": 0x7e00, "bf16": 0x7fc0, "f32": 0x7fc00000}[typ]
    x, y = fdecode(a, typ), fdecode(b, typ)
    if typ == "f32":                             # subnormal inputs flush to sign-preserving zero
        x = (Fraction(0), x[1]) if x != "nan" and x[0] != "inf" and 0 < x[0] < Fraction(2) ** -126 else x
        y = (Fraction(0), y[1]) if y != "nan" and y[0] != "inf" and 0 < y[0] < Fraction(2) ** -126 else y
    assert x != "nan" and y != "nan" and x[0] != "inf" and y[0] != "inf", "keep the add cases finite"
    s = (-1) ** x[1] * x[0] + (-1) ** y[1] * y[0]
    if s == 0:
        sign = x[1] & y[1]                       # x + (-x) = +0 to nearest
        r = fencode((Fraction(0), sign), typ)
    else:
        r = fencode((abs(s), 1 if s < 0 else 0), typ)
    if typ == "f32" and (r & 0x7f800000) == 0 and r & 0x7fffff:
        r &= 0x80000000                          # a subnormal result flushes too
    return r


def fminmax(op, a, b, typ):
    x, y = fdecode(a, typ), fdecode(b, typ)
    if x == "nan" and y == "nan":                # as min/max.f16: the canonical NaN
        return {"f16": 0x7fff, "bf16": 0x7fff}[typ]
    if x == "nan":
        return b
    if y == "nan":
        return a
    def val(v):
        mag, sign = v
        return (Fraction(10) ** 400 if mag == "inf" else mag) * (-1) ** sign
    vx, vy = val(x), val(y)
    if vx == vy:                                 # -0 < +0
        neg = a if x[1] else b
        pos = b if x[1] else a
        return neg if op == "min" else pos
    return (a if vx < vy else b) if op == "min" else (a if vx > vy else b)


def red_elem(op, typ, r, s):
    if typ in FMT:
        return fadd(r, s, typ) if op == "add" else fminmax(op, r, s, typ)
    n = BITS[typ]
    mask = (1 << n) - 1
    sg = lambda v: v - (1 << n) if typ[0] == "s" and v >> (n - 1) else v
    if op == "add":
        return (r + s) & mask
    if op in ("min", "max"):
        pick = (sg(r) < sg(s)) == (op == "min")
        return r if pick else s
    if op == "inc":
        return 0 if r >= s else r + 1
    if op == "dec":
        return s if r == 0 or r > s else r - 1
    return {"and": r & s, "or": r | s, "xor": r ^ s}[op]


def reduce_case(name, op, typ, dims, box, c, tvals, svals, ctas=1, il="none"):
    """cp.reduce.async.bulk.tensor.Rd...OP.tile: the tensor tvals (bits,
    dimension 0 innermost) op= the shared box svals where the box lies in
    bounds, once per CTA (ctas of them reduce the same box: atomic element
    updates, no race under --check); out-of-bounds box elements are skipped."""
    R = len(dims)
    n = nbox(box, [1] * R)
    bt = {16: "u16", 32: "u32", 64: "u64"}[BITS[typ]]
    es = BITS[typ] // 8
    B = int(np.prod(n)) * es
    total = int(np.prod(dims))
    assert len(tvals) == total and len(svals) == B // es
    t = list(tvals)
    for flat, idx in enumerate(np.ndindex(*n[::-1])):
        k = idx[::-1]
        g = [c[d] + k[d] for d in range(R)]
        if all(0 <= g[d] < dims[d] for d in range(R)):
            lin = 0
            for d in range(R - 1, -1, -1):
                lin = lin * dims[d] + g[d]
            for _ in range(ctas):
                t[lin] = red_elem(op, typ, t[lin], svals[flat])
    C = ", ".join("%%r%d" % (i + 1) for i in range(R))
    ptx = HEAD.format(B=B) + STORE.format(R=R, C=C, W=B // 4).replace(
        "cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group" % R,
        "cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.tile.bulk_group" % (R, op))
    run = "ptxvm run %%s%s -b 128 -a '%s' -a %s[%d]:%s -a %s[%d]:%s %s -o 1" % (
        " -g %d" % ctas if ctas > 1 else "", spec(dims, box, [1] * R, "none", "zero", typ, il=il), bt, total,
        ",".join(str(v) for v in tvals),
        bt, B // es, ",".join(str(v) for v in svals), coords(c))
    desc = ("cp.reduce.async.bulk.tensor.%dd .%s on %s: dims %s, box %s at %s (out-of-bounds box "
            "elements skipped)%s%s, the tensor's bits after" % (
                R, op, typ, dims, box, list(c), ", by %d CTAs" % ctas if ctas > 1 else "",
                ", %s interleave" % il if il != "none" else ""))
    write(name, desc, ptx, run, " ".join(str(v) for v in t))


def reduce_cases():
    rng = np.random.default_rng(18)
    def ints(typ, k, lo=None, hi=None):
        n = BITS[typ]
        if lo is None:
            return [int(v) for v in rng.integers(0, 1 << min(n, 62), k, dtype=np.int64)] if n < 64 else \
                   [int(v) << 2 | 3 for v in rng.integers(0, 1 << 62, k, dtype=np.int64)]
        return [int(v) & ((1 << n) - 1) for v in rng.integers(lo, hi, k)]
    dims, box, c = [24, 6], [16, 4], [12, 4]      # the box overhangs dimension 0 and 1
    T, S = 24 * 6, 16 * 4
    reduce_case("tma_reduce_add_u32", "add", "u32", dims, box, c, ints("u32", T), ints("u32", S))
    reduce_case("tma_reduce_add_s32", "add", "s32", dims, box, c, ints("s32", T, -1000, 1000), ints("s32", S, -1000, 1000))
    reduce_case("tma_reduce_add_u64", "add", "u64", [8, 6], [8, 4], [0, 3], ints("u64", 48), ints("u64", 32))
    reduce_case("tma_reduce_min_s32", "min", "s32", dims, box, c, ints("s32", T, -50, 50), ints("s32", S, -50, 50))
    reduce_case("tma_reduce_max_u32", "max", "u32", dims, box, c, ints("u32", T), ints("u32", S))
    reduce_case("tma_reduce_min_u64", "min", "u64", [8, 6], [8, 4], [0, -1], ints("u64", 48), ints("u64", 32))
    reduce_case("tma_reduce_max_s64", "max", "s64", [8, 6], [8, 4], [0, 3], ints("s64", 48, -99, 99), ints("s64", 32, -99, 99))
    reduce_case("tma_reduce_inc_u32", "inc", "u32", dims, box, c, ints("u32", T, 0, 8), ints("u32", S, 0, 8))
    reduce_case("tma_reduce_dec_u32", "dec", "u32", dims, box, c, ints("u32", T, 0, 8), ints("u32", S, 0, 8))
    reduce_case("tma_reduce_and_u32", "and", "u32", dims, box, c, ints("u32", T), ints("u32", S))
    reduce_case("tma_reduce_or_s32", "or", "s32", dims, box, c, ints("s32", T, -9999, 9999), ints("s32", S, -9999, 9999))
    reduce_case("tma_reduce_xor_u64", "xor", "u64", [8, 6], [8, 4], [0, 3], ints("u64", 48), ints("u64", 32))
    # floats: finite values of every magnitude (subnormals, ties), 3D box
    def fl(typ, k, special=()):
        e, m = FMT[typ]
        top = ((1 << e) - 2) << m | ((1 << m) - 1)      # the largest finite magnitude
        lim = min(top, (((1 << (e - 1)) + 3) << m))        # keep sums finite: exponents to bias + 4
        v = [int(x) | (int(sg) << (e + m)) for x, sg in zip(rng.integers(0, lim, k), rng.integers(0, 2, k))]
        for i, x in enumerate(special):
            v[i] = x
        return v
    d3, b3, c3 = [8, 5, 3], [8, 4, 2], [0, 2, 1]
    T3, S3 = 8 * 5 * 3, 8 * 4 * 2
    # in the box at (0, 2, 1) first: 1 + 2^-11 ties (f16 0x3c00 + 0x1000 -> even), subnormal + subnormal
    reduce_case("tma_reduce_add_f16", "add", "f16", d3, b3, c3,
                fl("f16", T3, [0] * 56 + [0x3c00, 0x0001, 0x8001, 0x3c01, 0x7bff]),
                fl("f16", S3, [0x1000, 0x0001, 0x0001, 0x1000, 0x7bff]))
    reduce_case("tma_reduce_add_bf16", "add", "bf16", d3, b3, c3,
                fl("bf16", T3, [0] * 56 + [0x3f80, 0x0001, 0x8001, 0x3f81]),
                fl("bf16", S3, [0x3380, 0x0001, 0x0001, 0x3380]))
    reduce_case("tma_reduce_add_f32", "add", "f32", d3, b3, c3,
                fl("f32", T3, [0] * 56 + [0x3f800000, 0x00000001, 0x00800000, 0x00800001]),
                fl("f32", S3, [0x33800000, 0x00400000, 0x80000001, 0x80800000]))
    nan = {"f16": 0x7e00, "bf16": 0x7fc0}
    for typ in ("f16", "bf16"):
        e, m = FMT[typ]
        z = 1 << (e + m)
        sp_t = [0] * 56 + [nan[typ], 0x0001, 0, z, nan[typ]]
        sp_s = [0x0003, nan[typ], z, 0, nan[typ]]
        reduce_case("tma_reduce_min_%s" % typ, "min", typ, d3, b3, c3, fl(typ, T3, sp_t), fl(typ, S3, sp_s))
        reduce_case("tma_reduce_max_%s" % typ, "max", typ, d3, b3, c3, fl(typ, T3, sp_t), fl(typ, S3, sp_s))
    # four CTAs reduce into the same box (split-K): element-wise atomic, no race under --check
    reduce_case("tma_reduce_add_u32_4cta", "add", "u32", dims, box, c, ints("u32", T), ints("u32", S), ctas=4)


# ---- im2col: the ISA's definition (§5.5.4), written out here ----

def im2col_pixels(dims, lower, upper, es, c, ppc):
    """The ppc pixels of an im2col copy at coordinates c: (n, [filter base
    per spatial dimension, W first]). Filter bases run over lower ..
    dims - 1 + upper in steps of the traversal stride, W fastest, then H,
    D, then the next image."""
    R = len(dims)
    S = R - 2
    pos, n = list(c[1:R - 1]), c[R - 1]
    out = []
    for _ in range(ppc):
        out.append((n, list(pos)))
        i = 0
        while True:
            if i == S:
                n += 1
                break
            pos[i] += es[i + 1]
            if pos[i] <= dims[i + 1] - 1 + upper[i]:
                break
            pos[i] = lower[i]
            i += 1
    return out


def im2col_elems(dims, lower, upper, es, c, offs, cpp, ppc):
    """Per box element, in shared-memory order: its tensor index (numpy
    order, dimension 0 last) or None when out of bounds."""
    R = len(dims)
    res = []
    for n, base in im2col_pixels(dims, lower, upper, es, c, ppc):
        sp = [b + o for b, o in zip(base, offs)]
        for ch in range(cpp):
            g = [c[0] + ch] + sp + [n]
            res.append(tuple(g[::-1]) if all(0 <= g[d] < dims[d] for d in range(R)) else None)
    return res


def im2col_spec(typ, dims, lower, upper, cpp, ppc, es, sw, oob):
    return spec(dims, None, es, sw, oob, typ, "lower=%s,upper=%s,channels=%d,pixels=%d" % (
        "x".join(map(str, lower)), "x".join(map(str, upper)), cpp, ppc))


def offs_setup(offs):
    return "".join("mov.b16 %%rs%d, %d;\n  " % (i + 1, o) for i, o in enumerate(offs))


def im2col_load_case(name, dims, lower, upper, cpp, ppc, c, offs, es=None, sw="none", oob="zero",
                     prefetch=False, fault=None):
    R = len(dims)
    es = es or [1] * R
    total = int(np.prod(dims))
    t = (np.arange(total) % 65536).astype(np.uint16).reshape(dims[::-1])   # iota, as -a u16[N]:iota
    fill = 0x7FFF if oob == "nan" else 0
    vals = [int(t[ix]) if ix is not None else fill for ix in im2col_elems(dims, lower, upper, es, c, offs, cpp, ppc)]
    dense = np.array(vals, dtype=np.uint16).tobytes()
    img = np.frombuffer(swizzle_bytes(np.frombuffer(dense, np.uint8).copy(), sw).tobytes(), np.uint16)
    B = len(dense)
    C = ", ".join("%%r%d" % (i + 1) for i in range(R))
    O = ", ".join("%%rs%d" % (i + 1) for i in range(R - 2))
    ptx = HEAD.format(B=B) + LOAD.format(B=B, R=R, C=C, W=B // 4, MAP="tm", MAPSETUP=offs_setup(offs))
    ptx = ptx.replace(".reg .pred %p<4>;", ".reg .pred %p<4>; .reg .b16 %rs<4>;").replace(
        "global.tile.mbarrier::complete_tx::bytes [sm], [tm, {%s}], [bar];" % C,
        "global.im2col.mbarrier::complete_tx::bytes [sm], [tm, {%s}], [bar], {%s};" % (C, O))
    if prefetch:   # a hint first: it reads and checks the map, moves nothing
        ptx = ptx.replace("  @%p1 cp.async.bulk.tensor.", "  @%%p1 cp.async.bulk.prefetch.tensor.%dd.L2.global.im2col "
                          "[tm, {%s}], {%s};\n  @%%p1 cp.async.bulk.tensor." % (R, C, O), 1)
    typ = "f16" if oob == "nan" else "u16"
    run = "ptxvm run %%s -b 128 -a '%s' -a u16[%d]:iota -a u16[%d]:zero %s -o 2" % (
        im2col_spec(typ, dims, lower, upper, cpp, ppc, es, sw, oob), total, B // 2, coords(c))
    if fault:      # coordinates the ISA does not allow: a fault that says why
        ptx = generic_map(ptx)
        with open(os.path.join(HERE, name + ".ptx"), "w") as f:
            f.write("// cp.async.bulk.tensor.%dd.im2col at %s, offsets %s: %s. Generated by gen.py; do not edit.\n"
                    % (R, list(c), offs, fault))
            f.write("// RUN: %s\n// EXIT: 1\n// STDERR: cp.async.bulk.tensor.%dd.im2col: %s\n" % (
                run.replace(" -o 2", ""), R, fault))
            f.write(ptx)
        return
    desc = ("cp.async.bulk.tensor.%dd.im2col load: dims %s, corners %s / %s, %d channels x %d pixels at %s, "
            "offsets %s, element strides %s, swizzle %s, oob %s%s" % (R, dims, lower, upper, cpp, ppc, list(c),
                                                                     offs, es, sw, oob,
                                                                     ", after a prefetch" if prefetch else ""))
    write(name, desc, ptx, run, " ".join(str(int(v)) for v in img))


def im2col_store_case(name, dims, lower, upper, cpp, ppc, c, op=None):
    """.im2col_no_offs store (or, with op, reduction .add on u32) of the box
    1000, 1001, ... (u16) or 1, 2, ... (u32): in-bounds elements only."""
    R = len(dims)
    es = [1] * R
    typ, bt = ("u32", "u32") if op else ("u16", "u16")
    esz = 4 if op else 2
    B = cpp * ppc * esz
    n = B // esz
    smem = [(1 + i) if op else (1000 + i) for i in range(n)]
    total = int(np.prod(dims))
    base = [(7 * i) % 50 for i in range(total)] if op else [0] * total
    t = np.array(base, dtype=np.int64).reshape(dims[::-1])
    for k, ix in enumerate(im2col_elems(dims, lower, upper, es, c, [0] * (R - 2), cpp, ppc)):
        if ix is not None:
            t[ix] = t[ix] + smem[k] if op else smem[k]
    C = ", ".join("%%r%d" % (i + 1) for i in range(R))
    ptx = HEAD.format(B=B) + STORE.format(R=R, C=C, W=B // 4)
    instr = "cp.reduce.async.bulk.tensor.%dd.global.shared::cta.add.im2col_no_offs.bulk_group" % R if op else \
        "cp.async.bulk.tensor.%dd.global.shared::cta.im2col_no_offs.bulk_group" % R
    ptx = ptx.replace("cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group" % R, instr)
    run = "ptxvm run %%s -b 128 -a '%s' -a %s[%d]:%s -a %s[%d]:%s %s -o 1" % (
        im2col_spec(typ, dims, lower, upper, cpp, ppc, es, "none", "zero"), bt, total,
        ",".join(map(str, base)) if op else "zero", bt, n, ",".join(map(str, smem)), coords(c))
    desc = "%s.%dd.im2col_no_offs: dims %s, corners %s / %s, %d channels x %d pixels at %s" % (
        "cp.reduce.async.bulk.tensor .add" if op else "cp.async.bulk.tensor store", R, dims, lower, upper,
        cpp, ppc, list(c))
    write(name, desc, ptx, run, " ".join(str(int(v)) for v in t.ravel()))


REPLACE = """.version 8.3
.target sm_90a
.address_size 64
.shared .align 1024 .b8 sm[{B}];
.shared .align 128 .b8 tms[128];
.shared .align 8 .b64 bar;
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 src, .param .u64 out, .param .u64 src2,
                  .param .u64 scratch)
{{
  .reg .pred %p<4>; .reg .b16 %rs<4>; .reg .b32 %r<24>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [src2];
  ld.param.u64 %rd3, [scratch];
  mov.u32 %r0, %tid.x;
  setp.lt.u32 %p1, %r0, 16;                // 16 threads copy the parameter's map to shared memory
  @!%p1 bra.uni COPIED;
  shl.b32 %r10, %r0, 3;
  cvt.u64.u32 %rd4, %r10;
  mov.u64 %rd5, tm;
  add.u64 %rd5, %rd5, %rd4;
  ld.param.u64 %rd6, [%rd5];
  mov.u32 %r11, tms;
  add.u32 %r11, %r11, %r10;
  st.shared.u64 [%r11], %rd6;
COPIED:
  bar.sync 0;
  setp.lt.u32 %p1, %r0, 32;                // warp 0 edits and publishes it, lane 0 edits
  @!%p1 bra.uni PUBLISHED;
  setp.ne.u32 %p3, %r0, 0;
  @%p3 bra.uni EDITED;
  mov.u32 %r1, {N2};
  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tms], %rd2;
  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tms], {LAST}, %r1;
EDITED:
  bar.warp.sync -1;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd3], [tms], 128;
PUBLISHED:
  bar.sync 0;
  fence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;
  setp.eq.u32 %p1, %r0, 0;
  @%p1 mbarrier.init.shared.b64 [bar], 1;
  bar.sync 0;
  {SETUP}@%p1 mbarrier.arrive.expect_tx.shared.b64 %rd5, [bar], {B};
  @%p1 cp.async.bulk.tensor.{R}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [sm], [%rd3, {{{C}}}], [bar], {{{O}}};
""" + WAIT_COPY


def im2col_replace_case(name, dims, lower, upper, cpp, ppc, c, offs, n2, box_dim=False):
    """tensormap.replace on an im2col map: a copy of the parameter's map gets
    buffer 3's address and n2 images (its last global_dim), is published with
    tensormap.cp_fenceproxy and loaded through: the gather of buffer 3
    (values 1000 + i), its images past n2 out of bounds."""
    R = len(dims)
    total = int(np.prod(dims))
    d2 = list(dims[:-1]) + [n2]
    t2 = ((np.arange(int(np.prod(d2))) + 1000) % 65536).astype(np.uint16).reshape(d2[::-1])
    vals = [int(t2[ix]) if ix is not None else 0
            for ix in im2col_elems(d2, lower, upper, [1] * R, c, offs, cpp, ppc)]
    B = len(vals) * 2
    C = ", ".join(str(v) for v in c)
    ptx = REPLACE.format(B=B, R=R, C=", ".join("%%r%d" % (i + 2) for i in range(R)), W=B // 4, N2=n2,
                         LAST=R - 1, O=", ".join("%%rs%d" % (i + 1) for i in range(R - 2)),
                         SETUP=offs_setup(offs) + "".join("mov.u32 %%r%d, %d;\n  " % (i + 2, v)
                                                          for i, v in enumerate(c)))
    run = "ptxvm run %%s -b 128 -a '%s' -a u16[%d]:iota -a u16[%d]:zero -a u16[%d]:%s -a u8[128]:zero -o 2" % (
        im2col_spec("u16", dims, lower, upper, cpp, ppc, [1] * R, "none", "zero"), total, B // 2,
        int(np.prod(d2)), ",".join(str(1000 + i) for i in range(int(np.prod(d2)))))
    if box_dim:    # an im2col map has no box: tensormap.replace of .box_dim faults, naming it
        ptx = ptx.replace(".global_dim.shared::cta.b1024.b32 [tms], %d, %%r1;" % (R - 1),
                          ".box_dim.shared::cta.b1024.b32 [tms], 0, %r1;")
        ptx = generic_map(ptx)
        with open(os.path.join(HERE, name + ".ptx"), "w") as f:
            f.write("// tensormap.replace.tile.box_dim on an im2col map (its box is pixels x channels): a "
                    "fault.\n// Generated by gen.py; do not edit.\n")
            f.write("// RUN: %s\n// EXIT: 1\n" % run.replace(" -o 2", ""))
            f.write("// STDERR: tensormap.replace: an im2col map has no box dimensions (its box is pixels x "
                    "channels) (value %d)\n" % n2)
            f.write(ptx)
        return
    desc = ("tensormap.replace of .global_address and .global_dim (N = %d) on a copy of an im2col map %s, "
            "corners %s / %s, %d x %d at %s offsets %s, then a load through it" % (n2, dims, lower, upper,
                                                                                   cpp, ppc, c, offs))
    write(name, desc, ptx, run, " ".join(str(v) for v in vals))


def im2col_multicast_case(name, dims, lower, upper, cpp, ppc, c, offs):
    """.im2col with .multicast::cluster: CTA 0 loads into both CTAs."""
    R = len(dims)
    total = int(np.prod(dims))
    t = (np.arange(total) % 65536).astype(np.uint16).reshape(dims[::-1])
    img = [int(t[ix]) if ix is not None else 0 for ix in im2col_elems(dims, lower, upper, [1] * R, c, offs, cpp, ppc)]
    B = len(img) * 2
    C = ", ".join("%%r%d" % (i + 1) for i in range(R))
    O = ", ".join("%%rs%d" % (i + 2) for i in range(R - 2))
    setup = "".join("mov.u32 %%r%d, %d;\n  " % (i + 1, v) for i, v in enumerate(c)) + \
        "".join("mov.b16 %%rs%d, %d;\n  " % (i + 2, v) for i, v in enumerate(offs))
    ptx = MCAST.format(B=B, W=B // 4).replace(".reg .b16 %rs<2>;", ".reg .b16 %rs<6>;").replace(
        "  @%p5 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
        "[sm], [tm, {%r1, %r2}], [bar], %rs1;",
        "  " + setup + "@%%p5 cp.async.bulk.tensor.%dd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        ".multicast::cluster [sm], [tm, {%s}], [bar], {%s}, %%rs1;" % (R, C, O))
    assert "im2col" in ptx
    run = "ptxvm run %%s -g 2 -b 128 -c 2 -a '%s' -a u16[%d]:iota -a u16[%d]:zero -a s32:0 -a s32:0 -o 2" % (
        im2col_spec("u16", dims, lower, upper, cpp, ppc, [1] * R, "none", "zero"), total, B)
    desc = ("cp.async.bulk.tensor.%dd.im2col .multicast::cluster: CTA 0 of a 2-CTA cluster loads dims %s, corners "
            "%s / %s, %d x %d at %s offsets %s into both CTAs" % (R, dims, lower, upper, cpp, ppc, c, offs))
    write(name, desc, ptx, run, " ".join(str(v) for v in img + img))


def im2col_cases():
    # 3D NWC: C=16, W=20, N=3; pad 2 on the left, filter 5 (upper = 2 - 4 = -2): W bases -2 .. 17
    im2col_load_case("tma_im2col_3d", [16, 20, 3], [-2], [-2], 8, 32, [4, 10, 0], [1], prefetch=True)
    # the column runs past the last image: out-of-bounds pixels are zero
    im2col_load_case("tma_im2col_3d_batch_end", [8, 10, 2], [0], [0], 8, 16, [0, 6, 1], [0])
    # 4D NHWC: the ISA's example 1 (pad 1, 3x3 filter), a smaller C
    im2col_load_case("tma_im2col_4d_pad", [16, 9, 14, 2], [-1, -1], [-1, -1], 8, 64, [0, 7, 4, 0], [0, 0])
    # the ISA's example 2: corners 0 / -2, offsets (2, 2)
    im2col_load_case("tma_im2col_4d_offs", [16, 9, 14, 2], [0, 0], [-2, -2], 8, 64, [8, 6, 4, 0], [2, 2])
    # traversal strides 2 in W and H (the ISA's stride example, smaller), channels past C out of bounds
    im2col_load_case("tma_im2col_4d_stride", [16, 8, 14, 2], [-1, -1], [-1, -1], 16, 32, [8, 5, 5, 0], [1, 1],
                     es=[1, 2, 2, 1])
    # 5D NDHWC with a 128B swizzle: 64 channels of u16 per pixel, 16 pixels
    im2col_load_case("tma_im2col_5d_sw128", [64, 4, 3, 3, 2], [-1, -1, 0], [0, 0, -1], 64, 16, [0, 2, 2, 1, 0],
                     [1, 0, 1], sw="128B")
    # the NaN fill of an f16 map
    im2col_load_case("tma_im2col_4d_nan", [8, 5, 5, 1], [-2, -2], [0, 0], 8, 24, [0, -2, -2, 0], [0, 0], oob="nan")
    im2col_replace_case("tma_im2col_replace", [8, 6, 4, 3], [-1, -1], [-1, -1], 8, 48, [0, 2, 2, 0], [1, 0], 1)
    im2col_replace_case("tma_im2col_replace_box", [8, 6, 4, 3], [-1, -1], [-1, -1], 8, 48, [0, 2, 2, 0], [1, 0], 1,
                        box_dim=True)
    # 5D with traversal strides in W, H and D
    im2col_load_case("tma_im2col_5d_strides", [8, 7, 6, 5, 2], [-1, -1, -1], [-1, 0, -1], 8, 40, [0, 1, -1, 1, 0],
                     [1, 1, 1], es=[1, 2, 3, 2, 1])
    im2col_multicast_case("tma_im2col_multicast", [8, 7, 5, 2], [-1, -1], [0, 0], 8, 32, [0, 3, 1, 0], [1, 1])
    im2col_load_case("tma_im2col_bad_base", [16, 9, 14, 2], [-1, -1], [-1, -1], 8, 64, [0, 8, 4, 0], [0, 0],
                     fault="the filter base 8 of dimension 1 lies outside the bounding box [-1, 7]")
    im2col_load_case("tma_im2col_bad_offset", [8, 6, 5, 4, 2], [0, 0, 0], [0, 0, 0], 8, 16, [0, 0, 0, 0, 0],
                     [0, 32, 0], fault="the im2col offset 32 of dimension 2 is past 31, the limit of rank 5")
    im2col_store_case("tma_im2col_store_4d", [8, 6, 5, 2], [-1, -1], [-1, -1], 8, 40, [0, 2, 0, 0])
    im2col_store_case("tma_im2col_reduce_3d", [8, 12, 2], [-1], [-1], 8, 16, [0, 5, 0], op="add")


def reduce_refused_case(name, op, typ, why):
    """A map whose element type the ISA's table does not pair with op: the
    copy faults at issue, naming the op, the type and the types allowed."""
    bt = {16: "u16", 32: "u32", 64: "u64"}[BITS.get(typ, 64)]
    es = BITS.get(typ, 64) // 8
    B = 16 * 4 * es
    ptx = HEAD.format(B=B) + STORE.format(R=2, C="%r1, %r2", W=B // 4).replace(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.%s.tile.bulk_group" % op)
    line = ptx.split("\n").index(next(l for l in ptx.split("\n") if "cp.reduce" in l)) + 7
    run = "ptxvm run %%s -b 128 -a '%s' -a %s[96]:zero -a %s[64]:zero %s" % (
        spec([24, 4], [16, 4], [1, 1], "none", "zero", typ), bt, bt, coords([0, 0]))
    ptx = generic_map(ptx)
    with open(os.path.join(HERE, name + ".ptx"), "w") as f:
        f.write("// cp.reduce.async.bulk.tensor .%s on a %s map: not a pair of the ISA's table, a fault\n"
                "// at the instruction. Generated by gen.py; do not edit.\n" % (op, typ))
        f.write("// RUN: %s\n// EXIT: 1\n" % run)
        f.write("// STDERR: cp.reduce.async.bulk.tensor.%s: the tensor map's element type %s is not one .%s "
                "takes (%s)\n// STDERR: at tests/ptx/tma/%s.ptx:%d:8, kernel k\n" % (op, typ, op, why, name, line))
        f.write(ptx)


MCAST = """.version 8.0
.target sm_90
.address_size 64
.shared .align 1024 .b8 sm[{B}];
.shared .align 8 .b64 bar;
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 src, .param .u64 out,
                  .param .s32 c0, .param .s32 c1)
{{
  .reg .pred %p<8>; .reg .b16 %rs<2>; .reg .b32 %r<24>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.s32 %r1, [c0]; ld.param.s32 %r2, [c1];
  mov.u32 %r0, %tid.x;
  mov.u32 %r20, %cluster_ctarank;
  setp.eq.u32 %p1, %r0, 0;
  setp.eq.u32 %p4, %r20, 0;
  and.pred %p5, %p1, %p4;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], {B};
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  mov.b16 %rs1, 3;                 // ctaMask: CTAs 0 and 1 of the cluster
  @%p5 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [sm], [tm, {{%r1, %r2}}], [bar], %rs1;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra.uni WAIT;
  mul.lo.u32 %r14, %r20, {B};      // out[rank * B + i] = sm[i]
  cvt.u64.u32 %rd8, %r14;
  add.s64 %rd1, %rd1, %rd8;
  mov.u32 %r10, %r0;
COPY:
  setp.ge.u32 %p3, %r10, {W};
  @%p3 bra.uni DONE;
  shl.b32 %r11, %r10, 2;
  mov.u32 %r12, sm;
  add.u32 %r12, %r12, %r11;
  ld.shared.u32 %r13, [%r12];
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r13;
  add.u32 %r10, %r10, 128;
  bra.uni COPY;
DONE:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}}
"""


def multicast_case(name, dims, box, c):
    total = int(np.prod(dims))
    t = (np.arange(total) % 65536).astype(np.uint16).reshape(dims[::-1])
    img = gather(t, dims, box, [1, 1], c, 0).ravel()
    B = img.size * 2
    run = "ptxvm run %%s -g 2 -b 128 -c 2 -a '%s' -a u16[%d]:iota -a u16[%d]:zero -a s32:%d -a s32:%d -o 2" % (
        spec(dims, box, [1, 1], "none", "zero"), total, B, c[0], c[1])
    desc = ("cp.async.bulk.tensor.2d .multicast::cluster: CTA 0 of a 2-CTA cluster loads dims %s, box %s at %s "
            "into both CTAs' shared memory (ctaMask 3), each completing its own mbarrier" % (dims, box, list(c)))
    write(name, desc, MCAST.format(B=B, W=B // 4), run, " ".join(str(int(v)) for v in np.concatenate([img, img])))


def race_case(name):
    """tma_load_2d without the mbarrier wait, under --check: a data race."""
    dims, box, c = [64, 48], [16, 8], [8, 4]
    B = 16 * 8 * 2
    ptx = HEAD.format(B=B) + LOAD.format(B=B, R=2, C="%r1, %r2", W=B // 4, MAP="tm", MAPSETUP="")
    ptx = ptx.replace("WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n  @!%p2 bra.uni WAIT;\n", "")
    run = "ptxvm run --check %%s -b 128 -a '%s' -a u16[%d]:iota -a u16[%d]:zero %s" % (
        spec(dims, box, [1, 1], "none", "zero"), 64 * 48, B // 2, coords(c))
    path = os.path.join(HERE, name + ".ptx")
    ptx = generic_map(ptx)
    with open(path, "w") as f:
        f.write("// A tensor load read before its mbarrier phase completes: a data race under --check\n"
                "// (the landing is a write of the async proxy). Generated by gen.py; do not edit.\n")
        f.write("// RUN: %s\n// EXIT: 1\n" % run)
        f.write("// STDERR: data race on .shared: async copy write at tests/ptx/tma/%s.ptx:24:8\n" % name)
        f.write(ptx)


def il_replace_case(name, il_value, fault=None):
    """tensormap.replace of .interleave_layout (the ISA's 1: 16B) and
    dimension 0's .element_stride (2) on a copy of a plain u8 map over the
    NC/16WC16 image of 16 channels, published with tensormap.cp_fenceproxy,
    then a tile load through it: the even channels (dimension 0's stride
    counts once interleaved). With fault, the interleave il_value breaks a
    rule of the map and the load faults, naming it."""
    X, S, dims, mem = il_tensor("u8", "16B", 16, [6], 1, False)
    box, c = [32, 4, 1], [0, 1, 0]
    es = [2, 1, 1]
    vals = il_box(X, S, dims, box, es, c, False).ravel()
    B = vals.size
    R = 3
    ptx = REPLACE.format(B=B, R=R, C="%r2, %r3, %r4", W=B // 4, N2=2, LAST=0, O="",
                         SETUP="".join("mov.u32 %%r%d, %d;\n  " % (i + 2, v) for i, v in enumerate(c)))
    ptx = ptx.replace("  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tms], %rd2;\n",
                      "  tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [tms], %d;\n" % il_value)
    ptx = ptx.replace(".global_dim.shared::cta.b1024.b32 [tms], 0, %r1;", ".element_stride.shared::cta.b1024.b32 [tms], 0, %r1;")
    ptx = ptx.replace(".global.im2col.mbarrier::complete_tx::bytes [sm], [%rd3, {%r2, %r3, %r4}], [bar], {};",
                      ".global.tile.mbarrier::complete_tx::bytes [sm], [%rd3, {%r2, %r3, %r4}], [bar];")
    assert ".interleave_layout" in ptx and ".element_stride" in ptx and ".tile.mbarrier" in ptx
    run = "ptxvm run %%s -b 128 -a '%s' -a u8[%d]:%s -a u8[%d]:zero -a u8[16]:zero -a u8[128]:zero -o 2" % (
        spec(dims, [32, 4, 1], [1, 1, 1], "none", "zero", "u8"), mem.size, ",".join(str(int(v)) for v in mem.ravel()),
        B)
    if fault:
        lines = generic_map(ptx).split("\n")
        at = next(i for i, l in enumerate(lines) if ".tile.mbarrier" in l)
        with open(os.path.join(HERE, name + ".ptx"), "w") as f:
            f.write("// tensormap.replace of .interleave_layout to %d on a copy of a plain rank-3 map: %s.\n"
                    "// Generated by gen.py; do not edit.\n" % (il_value, fault))
            f.write("// RUN: %s\n// EXIT: 1\n" % run.replace(" -o 2", ""))
            f.write("// STDERR: cp.async.bulk.tensor: %s\n" % fault)
            f.write("// STDERR: at tests/ptx/tma/%s.ptx:%d:%d, kernel k\n" % (
                name, at + 7, lines[at].index("cp.async") + 1))
            f.write(generic_map(ptx))
        return
    desc = ("tensormap.replace of .interleave_layout (1, 16B) and .element_stride[0] (2) on a copy of a u8 map "
            "dims %s box %s, then a load at %s: the even channels of the NC/16WC16 image" % (dims, box, c))
    write(name, desc, ptx, run, " ".join(str(int(v)) for v in vals))


def il_cases():
    il_replace_case("tma_il16_replace", 1)
    il_replace_case("tma_il32_replace_bad", 2, fault="the tensor map's 32B interleave needs the 32B swizzle")
    # NC/8HWC8 u16, 12 channels (the second slice half padding), 2 images: rank 5, partly out of bounds
    il_load_case("tma_il16_load_5d", "u16", "16B", 12, [5, 3], 2, True, [8, 4, 2, 2, 1], [0, 2, 2, 0, 1],
                 prefetch=True)
    # NC/16HWC16 u16, 20 channels, with the 32B swizzle it needs: rank 4 (one image)
    il_load_case("tma_il32_load_4d_sw32", "u16", "32B", 20, [4, 4], 1, False, [16, 4, 2, 2], [0, 0, 1, 0],
                 sw="32B")
    # 16B interleave with the 128B swizzle: 16-byte rows, chunk j of each 128 bytes to j ^ row
    il_load_case("tma_il16_load_4d_sw128", "u16", "16B", 16, [8, 4], 1, False, [8, 8, 4, 1], [0, 0, 0, 1],
                 sw="128B")
    # u8 (16 channels a 16-byte slice), dimension 0's element stride 2: the even or odd channels
    il_load_case("tma_il16_load_estride", "u8", "16B", 16, [6, 2], 1, False, [32, 6, 2, 1], [1, 4, 0, 0],
                 es=[2, 2, 1, 1])
    il_store_case("tma_il16_store_3d", "u16", "16B", [8, 10, 2], [8, 4, 2], [0, 8, 1])
    il_store_case("tma_il32_store_sw32", "u16", "32B", [16, 4, 3], [16, 4, 2], [0, 0, 1], sw="32B")
    il_store_case("tma_il16_store_estride", "u8", "16B", [16, 6, 2], [32, 4, 1], [0, 1, 1], es=[2, 1, 1])
    rng = np.random.default_rng(1818)
    dims, box = [4, 6, 3], [4, 4, 2]
    reduce_case("tma_il16_reduce_add_u32", "add", "u32", dims, box, [0, 3, 2],
                [int(v) for v in rng.integers(0, 1 << 32, 72, dtype=np.int64)],
                [int(v) for v in rng.integers(0, 1 << 32, 32, dtype=np.int64)], il="16B")
    il_refused_case("tma_il32_refused_half_slice", "u16", "32B", [16, 4, 2], [8, 4, 2], [1, 1, 1], "32B",
                    "argument 0 'tensormap:u16,&1,dims=16x4x2,box=8x4x2,swizzle=32B,interleave=32B': tensor map: "
                    "an interleaved box whose dimension-0 row (ceil(box[0] / elementStrides[0]) elements) is "
                    "not a whole number of 32-byte slices is not supported")


if __name__ == "__main__":
    multicast_case("tma_multicast_2cta", [64, 32], [16, 8], [16, 8])
    race_case("tma_race_nowait")
    load_case("tma_load_2d", [64, 48], [16, 8], [8, 4])
    load_case("tma_load_2d_oob", [40, 20], [16, 8], [32, -3])
    load_case("tma_load_3d", [16, 8, 6], [8, 4, 3], [4, 2, 1])
    load_case("tma_load_1d", [100], [32], [80])
    load_case("tma_load_5d", [8, 3, 4, 3, 2], [8, 2, 2, 2, 2], [0, 2, 3, 1, -1])
    load_case("tma_load_estride", [16, 16, 4], [8, 8, 2], [2, 1, 0], es=[1, 2, 2])
    load_case("tma_load_sw32", [64, 64], [16, 16], [16, 8], sw="32B")
    load_case("tma_load_sw64", [64, 64], [32, 16], [0, 8], sw="64B")
    load_case("tma_load_sw128", [128, 64], [64, 16], [32, 40], sw="128B")
    load_case("tma_load_nan", [24, 10], [16, 8], [16, 6], oob="nan")
    load_case("tma_load_generic_map", [64, 48], [16, 8], [0, 0], map_reg=True)
    store_case("tma_store_2d", [40, 20], [16, 8], [8, 4])
    store_case("tma_store_2d_oob", [40, 20], [16, 8], [32, 15])
    store_case("tma_store_3d", [16, 8, 4], [8, 4, 2], [8, 6, 3])
    reduce_cases()
    im2col_cases()
    il_cases()
    reduce_refused_case("tma_reduce_bad_add_s64", "add", "s64", ".u32, .s32, .u64, .f32, .f16, .bf16")
    reduce_refused_case("tma_reduce_bad_inc_s32", "inc", "s32", ".u32")
    reduce_refused_case("tma_reduce_bad_xor_f32", "xor", "f32", ".b32, .b64 (integer)")
