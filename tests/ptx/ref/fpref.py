#!/usr/bin/env python3
"""Independent reference for tests/ptx/{float,half,cvt}: exact rational
arithmetic (fractions.Fraction) rounded to a binary format in a given
direction. Prints the EXPECT line of each conformance file (u32 dumps of the
result bits). Written from IEEE 754 definitions, not from ptxvm."""
from fractions import Fraction as Q
import math, struct

def f32(x):  # bits of a Python float as f32 (x must be exactly representable)
    return struct.unpack('<I', struct.pack('<f', x))[0]

def rnd(q, ebits, mbits, mode):
    """Round rational q to format (ebits, mbits); return the encoding."""
    bias = (1 << (ebits - 1)) - 1
    sign = 1 if q < 0 else 0
    a = -q if q < 0 else q
    if a == 0:
        return sign << (ebits + mbits)
    e = math.floor(math.log2(a))
    while Q(2) ** e > a: e -= 1
    while Q(2) ** (e + 1) <= a: e += 1
    e = max(e, 1 - bias)
    ulp = Q(2) ** (e - mbits)
    n = a / ulp
    fl = math.floor(n); frac = n - fl
    if mode == 'rn':   up = frac > Q(1, 2) or (frac == Q(1, 2) and fl % 2 == 1)
    elif mode == 'rz': up = False
    elif mode == 'rp': up = frac > 0 and not sign
    elif mode == 'rm': up = frac > 0 and sign
    m = fl + (1 if up else 0)
    val = m * ulp
    maxf = (2 - Q(2) ** -mbits) * Q(2) ** bias
    if val > maxf:
        inf = mode == 'rn' or (mode == 'rp' and not sign) or (mode == 'rm' and sign)
        enc = ((1 << ebits) - 1) << mbits if inf else (((1 << ebits) - 1) << mbits) - 1
        return (sign << (ebits + mbits)) | enc
    # encode val
    if val < Q(2) ** (1 - bias):
        enc = int(val / Q(2) ** (1 - bias - mbits))
    else:
        ee = math.floor(math.log2(val))
        while Q(2) ** ee > val: ee -= 1
        while Q(2) ** (ee + 1) <= val: ee += 1
        enc = ((ee + bias) << mbits) | int(val / Q(2) ** (ee - mbits) - (1 << mbits))
    return (sign << (ebits + mbits)) | enc

R32 = lambda q, m: rnd(q, 8, 23, m)
R16 = lambda q, m: rnd(q, 5, 10, m)

# tests/ptx/float/rounding.ptx: 1/3 and 1+2^-24 in every direction, fma
one_third = [R32(Q(1, 3), m) for m in ('rn', 'rz', 'rm', 'rp')]
tie = [R32(1 + Q(1, 2**24), m) for m in ('rn', 'rz', 'rm', 'rp')]
a = 1 + Q(1, 2**12)
fma = [R32(a * a - 1, 'rn')]
print('float/rounding:', *(one_third + tie + fma))

# tests/ptx/half/f16.ptx: f16x2 add with ties, f16 fma tie, cvt.rn.f16x2.f32
h = [R16(1 + Q(1, 2**11), 'rn') | (R16(1 + Q(1, 2**10) + Q(1, 2**11), 'rn') << 16),
     R16((1 + Q(1, 2**10)) ** 2 - 1, 'rn'),
     (R16(Q(1), 'rn') << 16) | R16(Q(-3, 4), 'rn')]
print('half/f16:', *h)

# tests/ptx/cvt/cvt.ptx: float->int rounding and saturation, int->float
c = [2, 4, (-3) & 0xffffffff, 0x7fffffff, 0, 0,
     R32(Q(16777217), 'rn'), R32(Q(16777217), 'rp'), R16(Q(70000), 'rz')]
print('cvt/cvt:', *c)
