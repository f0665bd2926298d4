#!/usr/bin/env python3
"""Independent reference for tests/ptx/int/cc_mixed.ptx: multi-word
arithmetic through the carry flag (PTX ISA §9.7.2), in Python's big
integers, not from ptxvm. Thread i reads the 128-bit a = A[i], b = B[i]
(two u64 words each, low first) and writes 16 u64 words:
  0-1   a + b mod 2^128, 32-bit limbs (add.cc, addc.cc, addc.cc, addc)
  2-3   a - b mod 2^128, 32-bit limbs (sub.cc, subc.cc, subc.cc, subc)
  4-5   a + b, 64-bit limbs as nvcc emits __int128 (add.cc.s64, addc.cc.s64)
  6-7   a - b, 64-bit limbs as nvcc emits it (sub.cc.s64, subc.cc.s64)
  8-9   a * b mod 2^128 as nvcc emits it (mul.lo/mul.hi/add, no carry)
  10-11 a0 * b0 (the 64-bit low words) in full, 32-bit limbs through
        mad.lo.cc / madc.hi.cc / madc.lo.cc / addc
  12    1 if a >= b (unsigned): sub.cc.u64, subc.cc.u64, then addc.u64 0, 0
        reads the carry: NOT borrow
  13    addc.cc.u64 chain of a + b, then subc.u64 0, 0: carry - 1, i.e.
        0 if a + b >= 2^128, else 2^64 - 1
  14    a mixed chain: add.cc.u32 of the low 32-bit halves of a0 and b0,
        then subc.u32 of their high halves: hi(a0) - hi(b0) - 1 + carry
  15    sub.cc.u32 of the low halves, addc.u32 0, 0: 1 if lo(a0) >= lo(b0)
The carry after a subtraction is that of a + ~b + 1 (no borrow = 1), and
subc computes a - b - (1 - CF): what ptxas compiles (and folds: sub.cc.u32
1, 2 then addc.u32 0, 0 is 0). Prints the -a specs and the EXPECT line."""

M32, M64, M128 = 2**32 - 1, 2**64 - 1, 2**128 - 1

A = [0, M128, 1, 2**64, 2**64 - 1, 0x0123456789abcdef_fedcba9876543210,
     0xffffffff_00000000_ffffffff_00000000, 0x80000000_00000000_00000000_00000001]
B = [0, 1, 2, 1, 2**64 - 1, 0xfedcba9876543210_0123456789abcdef,
     0x00000001_ffffffff_00000001_ffffffff, 0x7fffffff_ffffffff_ffffffff_ffffffff]


def words(x):
    return [x & M64, x >> 64 & M64]


def row(a, b):
    a0, b0 = a & M64, b & M64
    s, d, p = (a + b) & M128, (a - b) & M128, (a * b) & M128
    out = words(s) + words(d) + words(s) + words(d) + words(p) + words(a0 * b0)
    out.append(1 if a >= b else 0)
    out.append(0 if a + b > M128 else M64)
    c = ((a0 & M32) + (b0 & M32)) >> 32
    out.append(((a0 >> 32) - (b0 >> 32) - 1 + c) & M32)
    out.append(1 if (a0 & M32) >= (b0 & M32) else 0)
    return out


def spec(v):
    return "'u64[%d]:%s'" % (2 * len(v), ','.join('0x%x' % w for x in v for w in words(x)))


if __name__ == '__main__':
    print('-a', spec(A), '-a', spec(B))
    print('EXPECT:', *[w for a, b in zip(A, B) for w in row(a, b)])
