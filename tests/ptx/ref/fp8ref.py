#!/usr/bin/env python3
"""Independent reference for tests/ptx/cvt/fp8_*.ptx (cvt to and from
.e4m3x2/.e5m2x2, PTX ISA section 9.7.9.21 and section 5.2.5.1). Written from the format
definitions, not from ptxvm: every finite value of the format is listed
(exact Fractions) and an input goes to the nearest one, ties to the even
encoding. The list ends with one "overflow" value, the next step of the top
binade past the largest finite one (e4m3: 480, whose code S.1111.111 is NaN;
e5m2: 65536, infinity), so an input rounds there exactly when it overflows
under round-to-nearest-even with an unbounded exponent.

  .satfinite: overflow and +-inf give the largest finite value of that
              sign (e4m3 448 = 0x7e, e5m2 57344 = 0x7b); NaN gives NaN.
  .relu:      a negative value becomes +0 first; NaN stays NaN. -0 becomes
              +0 too (the ISA: "clamps the result to 0 if negative" leaves -0
              open; an H200 gives +0: tests/gpu/sm90_truth.json).
  NaN results are written 0x7f (fp8) and 0x7fff (f16): the canonical NaNs
  ptxvm documents (fpconv.h); the ISA leaves payloads open.

Prints, for each conformance file, the -a argument and the EXPECT line.
"""
from fractions import Fraction as Q
import math, struct

NAN = 'nan'

def f8_values(e4m3):
    ebits, mbits = (4, 3) if e4m3 else (5, 2)
    bias = (1 << (ebits - 1)) - 1
    vals = []  # (value, code) for codes with sign 0
    for code in range(1 << (ebits + mbits)):
        e, m = code >> mbits, code & ((1 << mbits) - 1)
        if e4m3 and code == 0x7f:
            continue
        if not e4m3 and e == 31:
            continue
        if e == 0:
            v = Q(m, 1 << mbits) * Q(2) ** (1 - bias)
        else:
            v = (1 + Q(m, 1 << mbits)) * Q(2) ** (e - bias)
        vals.append((v, code))
    top = vals[-1][0]
    ulp = Q(2) ** ((15 - 7 if e4m3 else 30 - 15) - mbits)
    vals.append((top + ulp, 'ovf'))
    return vals, vals[-2][1]

def decode_f8(code, e4m3):
    """code -> Fraction, or NAN, or ('inf', sign)."""
    s = -1 if code & 0x80 else 1
    c = code & 0x7f
    if e4m3 and c == 0x7f: return NAN
    if not e4m3 and c >= 0x7c: return NAN if c > 0x7c else ('inf', s)
    if c == 0: return ('zero', s)
    for v, k in f8_values(e4m3)[0]:
        if k == c: return s * v
    raise AssertionError

def to_f8(x, e4m3, relu, sat=True):
    """x: Fraction, NAN, ('inf', sign) or ('zero', sign)."""
    if x == NAN: return 0x7f
    if isinstance(x, tuple) and x[0] == 'zero':
        return 0x80 if x[1] < 0 and not relu else 0
    if isinstance(x, tuple):
        sign = x[1] < 0
        if relu and sign: return 0
        assert sat
        return (0x80 if sign else 0) | f8_values(e4m3)[1]
    if relu and x < 0: x = Q(0)
    sign = x < 0
    a = -x if sign else x
    vals, maxcode = f8_values(e4m3)
    best = None
    for v, k in [(Q(0), 0)] + vals:
        d = abs(a - v)
        if best is None or d < best[0] or (d == best[0] and k != 'ovf' and best[1] != 'ovf'
                                              and k % 2 == 0):
            best = (d, k, v)
        elif d == best[0] and k == 'ovf':
            # tie with the overflow step: the step's code is odd for e4m3
            # (0x7f) and even for e5m2 (0x7c)
            if not e4m3: best = (d, k, v)
    k = best[1]
    if k == 'ovf':
        assert sat
        k = maxcode
    return (0x80 if sign else 0) | k

def f32_in(bits):
    """f32 bits -> input value for to_f8."""
    s = -1 if bits >> 31 else 1
    e, m = bits >> 23 & 0xff, bits & 0x7fffff
    if e == 255: return NAN if m else ('inf', s)
    if e == 0 and m == 0: return ('zero', s)
    v = Q(m, 1 << 23) * Q(2) ** -126 if e == 0 else (1 + Q(m, 1 << 23)) * Q(2) ** (e - 127)
    return s * v

def f16_in(h):
    s = -1 if h >> 15 else 1
    e, m = h >> 10 & 31, h & 1023
    if e == 31: return NAN if m else ('inf', s)
    if e == 0 and m == 0: return ('zero', s)
    v = Q(m, 1024) * Q(2) ** -14 if e == 0 else (1 + Q(m, 1024)) * Q(2) ** (e - 15)
    return s * v

def to_f16(x, relu):
    """Exact (every fp8 value is an f16 value)."""
    if x == NAN: return 0x7fff
    if isinstance(x, tuple) and x[0] == 'zero': return 0x8000 if x[1] < 0 and not relu else 0
    if isinstance(x, tuple):
        if relu and x[1] < 0: return 0
        return (0x8000 if x[1] < 0 else 0) | 0x7c00
    if relu and x < 0: x = Q(0)
    sign = x < 0
    a = -x if sign else x
    if a == 0: return 0
    e = math.floor(math.log2(a))
    while Q(2) ** e > a: e -= 1
    while Q(2) ** (e + 1) <= a: e += 1
    if e < -14:
        m = a / Q(2) ** -24; assert m.denominator == 1; enc = int(m)
    else:
        m = a / Q(2) ** (e - 10) - 1024; assert m.denominator == 1
        enc = (e + 15) << 10 | int(m)
    return (0x8000 if sign else 0) | enc

def fb(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]

# ---- fp8_f32.ptx: thread i converts (a, b) = (in[2i], in[2i+1]) ----
F32_IN = [
    fb(1.0), fb(-1.0), 0, 0x80000000,            # one, zeros
    fb(448.0), fb(464.0), 0x43e80001, fb(480.0),  # e4m3 max, tie below overflow, just above, 480
    fb(1e6), 0x7f800000, 0xff800000, 0x7fc00000,  # overflow, +inf, -inf, NaN
    0xffc00001, fb(1.0625), fb(1.1875), fb(-1.0625),   # -NaN, ties to even 1.0 / 1.25
    fb(2.0 ** -9), fb(2.0 ** -10), fb(3 * 2.0 ** -10), 0x3a800001,  # e4m3 subnormal ties, 2^-10+
    fb(7 * 2.0 ** -9), fb(15 * 2.0 ** -10), fb(2.0 ** -6), fb(-13 * 2.0 ** -10),
    fb(57344.0), fb(61440.0), fb(61439.99609375), fb(-70000.0),  # e5m2 max, tie to overflow, below
    fb(2.0 ** -16), fb(2.0 ** -17), fb(3 * 2.0 ** -17), fb(5 * 2.0 ** -17),  # e5m2 subnormals
    fb(1.125), fb(1.375), fb(-1.125), fb(-1.375),  # e5m2 ties (1.25 step)
    0x00000001, 0x80400000, fb(0.1), fb(3.14159274),  # f32 subnormals, misc
    fb(-300.0), fb(1e-3), fb(240.0), fb(-464.0),
    fb(-0.5), fb(-7.0), fb(2.0 ** -20), fb(-2.0 ** -20),
    fb(20.0), fb(22.0), fb(26.0), fb(-30.0),       # e5m2 ties at 20-28 (step 4), e4m3 exact
    fb(0.01171875), fb(0.013671875), fb(100.0), fb(-100.0),
    fb(3e38), fb(-3e38), fb(65504.0), fb(-57344.0),
    fb(300.0), fb(-1e-45), fb(0.75), fb(17.0),
]
assert len(F32_IN) == 64

def fp8_f32():
    out = []
    for i in range(32):
        a, b = f32_in(F32_IN[2 * i]), f32_in(F32_IN[2 * i + 1])
        for e4, relu in ((True, False), (False, False), (True, True), (False, True)):
            out.append(to_f8(a, e4, relu) << 8 | to_f8(b, e4, relu))
    return out

# ---- fp8_f16x2.ptx: thread i converts in[i] (f16x2) ----
F16X2_IN = [
    0x3c00bc00, 0x00008000, 0x5f005f40,  # 1,-1; +0,-0; 448, 464 (tie -> 448)
    0x5f417800, 0x7c00fc00, 0x7e00fe01,  # 464+ulp, 32768; +inf, -inf; NaNs
    0x3c403cc0, 0x18001400, 0x1a001a01,  # 1.0625, 1.1875; 2^-9, 2^-10; 3*2^-10, +
    0x1f002400, 0x7b007b80,              # 15*2^-10 -> 2^-6, 2^-6; 57344, 61440
    0x7bff0100, 0x01800280,              # 65504, 2^-16; 3*2^-17 -> 2^-15, 5*2^-17
    0x3c803d80, 0xbc80bd80,              # 1.125, 1.375 and negatives
    0x0001 << 16 | 0x8001,               # f16 subnormals
    0x2e66_4248, 0xdcb0_1419,            # 0.1, 3.14; -300, 0.001
    0x5b80_df40, 0xb800_c700,            # 240, -464; -0.5, -7
    0x4d00_4d80, 0x4e80_cf80,            # 20, 22; 26, -30
    0x2200_2300, 0x5640_d640,            # 0.01171875, 0.013671875; 100, -100
    0x5cb0_4c40, 0x3a00_7bfe,            # 300, 17; 0.75, 65472
    0x7801_f800, 0x5c10_5c18,            # 32768+32, -32768; 260, 262
    0x5c20_5c28, 0xc000_4200,            # 264, 266; -2, 3
    0x3400_b400, 0x00ff_03ff,            # 0.25, -0.25; f16 subnormals
]
assert len(F16X2_IN) == 32

def fp8_f16x2():
    out = []
    for v in F16X2_IN:
        hi, lo = f16_in(v >> 16), f16_in(v & 0xffff)
        for e4, relu in ((True, False), (False, False), (True, True), (False, True)):
            out.append(to_f8(hi, e4, relu) << 8 | to_f8(lo, e4, relu))
    return out

# ---- fp8_to_f16x2.ptx: thread i (of 128) converts (2i+1) << 8 | 2i ----
def fp8_to_f16x2():
    out = []
    for i in range(128):
        hi, lo = 2 * i + 1, 2 * i
        for e4, relu in ((True, False), (False, False), (True, True), (False, True)):
            out.append(to_f16(decode_f8(hi, e4), relu) << 16 | to_f16(decode_f8(lo, e4), relu))
    return out

def spec(vals):
    return "'u32[%d]:%s'" % (len(vals), ','.join('0x%x' % v for v in vals))

if __name__ == '__main__':
    print('cvt/fp8_f32 -a', spec(F32_IN))
    print('cvt/fp8_f32 EXPECT:', *fp8_f32())
    print('cvt/fp8_f16x2 -a', spec(F16X2_IN))
    print('cvt/fp8_f16x2 EXPECT:', *fp8_f16x2())
    print('cvt/fp8_to_f16x2 EXPECT:', *fp8_to_f16x2())
