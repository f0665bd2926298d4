#!/usr/bin/env python3
"""Independent reference for tests/ptx/mov/prmt_modes.ptx: prmt.b32{.mode}
d, a, b, c (PTX ISA §9.7.9.7), written from the ISA's text and mode table,
not from ptxvm. Source bytes: {b, a} = {b7..b4, b3..b0}. Default mode: d.bi
takes byte c[4i+2:4i], and c bit 4i+3 replicates that byte's msb over the 8
bits. Other modes: c[1:0] picks a table row; no sign extension.
Prints the -a specs and the EXPECT line."""

# ISA table, columns in the ISA's order: d.b3, d.b2, d.b1, d.b0 source
TABLE = {
    'f4e':  [(3, 2, 1, 0), (4, 3, 2, 1), (5, 4, 3, 2), (6, 5, 4, 3)],
    'b4e':  [(5, 6, 7, 0), (6, 7, 0, 1), (7, 0, 1, 2), (0, 1, 2, 3)],
    'rc8':  [(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)],
    'ecl':  [(3, 2, 1, 0), (3, 2, 1, 1), (3, 2, 2, 2), (3, 3, 3, 3)],
    'ecr':  [(0, 0, 0, 0), (1, 1, 1, 0), (2, 2, 1, 0), (3, 2, 1, 0)],
    'rc16': [(1, 0, 1, 0), (3, 2, 3, 2), (1, 0, 1, 0), (3, 2, 3, 2)],
}
MODES = ['f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16']

def src_bytes(a, b):
    v = b << 32 | a
    return [v >> (8 * k) & 0xff for k in range(8)]

def prmt(a, b, c, mode=None):
    s = src_bytes(a, b)
    out = []
    if mode is None:
        for i in range(4):
            sel = c >> (4 * i) & 0xf
            byte = s[sel & 7]
            if sel & 8:
                byte = 0xff if byte & 0x80 else 0
            out.append(byte)
    else:
        b3, b2, b1, b0 = TABLE[mode][c & 3]
        out = [s[b0], s[b1], s[b2], s[b3]]
    return sum(x << (8 * i) for i, x in enumerate(out))

def lcg(n, seed):
    x, r = seed, []
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        r.append(x >> 32)
    return r

# thread i: a = A[i], b = B[i], c = C[i]
A = [0xf372b140, 0x00000000, 0xffffffff, 0x80808080] + lcg(28, 1)
B = [0x9716d584, 0x7f7f7f7f, 0x01020304, 0x8000007f] + lcg(28, 2)
C = [0x3210, 0x7654, 0xba98, 0xfedc, 0x89ab, 0xcdef, 0x0000f0f1, 0xffff8888] + lcg(24, 3)
# every mode row: c[1:0] cycles 0..3 over the threads, high bits kept random
C = [(c & ~3) | (i & 3) for i, c in enumerate(C)]

def spec(v):
    return "'u32[%d]:%s'" % (len(v), ','.join('0x%x' % x for x in v))

if __name__ == '__main__':
    out = []
    for a, b, c in zip(A, B, C):
        out.append(prmt(a, b, c))
        out += [prmt(a, b, c, m) for m in MODES]
        out.append(0)
    print('-a', spec(A), '-a', spec(B), '-a', spec(C))
    print('EXPECT:', *out)
