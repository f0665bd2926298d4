#!/bin/sh
# test_args.sh: the argument specs of issue 20 (docs/cli.md "Struct
# arguments", "Small float types", "--schedules"): what a struct argument
# lays out and refuses, f16/bf16/e4m3/e5m2 parsed and printed as numbers,
# and --schedules telling a racy kernel from a synchronized one (and its
# --check findings printed once each).
#   sh tests/cli/test_args.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
PTXVM="$B/ptxvm"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# expect_exit CODE STDERR-SUBSTRING ARGS...: exit status and a stderr substring
expect_exit() {
  code=$1; msg=$2; shift 2
  "$PTXVM" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = "$code" ] && grep -qF -- "$msg" "$T/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: ptxvm $*: exit $rc (want $code), stderr: $(head -c 400 "$T/err") (want '$msg')"
  fi
}

# expect_out LINE ARGS...: exit 0 and exactly this stdout
expect_out() {
  want=$1; shift
  got=$("$PTXVM" "$@" 2>"$T/err")
  rc=$?
  if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: ptxvm $*: exit $rc, got '$got', want '$want'; stderr: $(head -c 400 "$T/err")"
  fi
}

# ---- struct arguments ----
# s: .align 8 .b8[24]; t: .align 4 .b8[12]; d: a buffer parameter. The
# kernel copies s's 24 bytes into d, so the layout can be read back.
cat > "$T/s.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .align 8 .b8 s[24], .param .align 4 .b8 t[12], .param .u64 d)
{
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [d];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [s+8];
  ld.param.u64 %rd4, [s+16];
  st.global.u64 [%rd1], %rd2;
  st.global.u64 [%rd1+8], %rd3;
  st.global.u64 [%rd1+16], %rd4;
  ret;
}
PTX
S="$T/s.ptx"
# C layout: u8 at 0, u32 at 4, u16 at 8, u64 at 16 (3 + 6 bytes of padding)
expect_out "1 0 0 0 5 0 0 0 7 0 0 0 0 0 0 0 9 0 0 0 0 0 0 0" \
  run "$S" -a '{u8:1, u32:5, u16:7, u64:9}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 2
# a nested {u32, u8} is 8 bytes aligned 4 (its tail padded): at 12, and the
# whole rounded up from 20 to 24
expect_out "0 0 0 0 0 0 0 0 0 0 0 0 3 0 0 0 2 0 0 0 0 0 0 0" \
  run "$S" -a '{u64:0, u32:0, {u32:3, u8:2}}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 2 -q
# mismatched sizes name the parameter and both sizes
expect_exit 2 "argument 0 '{u64:1, u32:2}' lays out 16 bytes (C struct rules: each field at its natural alignment, the size a multiple of the largest, 8) but parameter s is .b8[24] of 24 bytes" \
  run "$S" -a '{u64:1, u32:2}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "argument 1 '{u32:0, u32:0, u32:0, u8:1}' lays out 16 bytes" \
  run "$S" -a '{u64:1, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0, u8:1}' -a 'u8[24]:zero'
# an 8-byte field in a 4-aligned parameter
expect_exit 2 "argument 1 '{u64:0, u32:0}' needs 8-byte alignment (its widest field) but parameter t is .b8[12] aligned to 4 bytes" \
  run "$S" -a '{u64:1, u64:2, u64:3}' -a '{u64:0, u32:0}' -a 'u8[24]:zero'
# a parameter aligned beyond its fields (alignas(16)): the tail is padded to
# its alignment, as C pads such a struct; q copies its 32 bytes into d
cat > "$T/q.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry q(.param .align 16 .b8 s[32], .param .u64 d)
{
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [d];
  ld.param.v2.u64 {%rd2, %rd3}, [s];
  ld.param.v2.u64 {%rd4, %rd5}, [s+16];
  st.global.v2.u64 [%rd1], {%rd2, %rd3};
  st.global.v2.u64 [%rd1+16], {%rd4, %rd5};
  ret;
}
PTX
expect_out "1 2 3 0" run "$T/q.ptx" -a '{u64:1, u64:2, u32:3}' -a 'u64[4]:fill=9' -o 1
expect_exit 2 "argument 0 '{u64:1, u64:2, u64:3, u64:4, u32:5}' lays out 40 bytes, 48 with tail padding to the parameter's alignment (C struct rules" \
  run "$T/q.ptx" -a '{u64:1, u64:2, u64:3, u64:4, u32:5}' -a 'u64[4]:zero'
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .align 4 .b8 t[16])\n{\n  ret;\n}\n' > "$T/a4.ptx"
expect_exit 2 "argument 0 '{u64:0, u64:0}' needs 8-byte alignment (its widest field) but parameter t is .b8[16] aligned to 4 bytes" \
  run "$T/a4.ptx" -a '{u64:0, u64:0}'
# addresses: &N must name a buffer; an address field is 64 bits
expect_exit 2 "&1 names no buffer" run "$S" -a '{&1, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "&9 names no buffer" run "$S" -a '{&9, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "holds an address, which takes a 64-bit integer type" \
  run "$S" -a '{u32:&2, u32:0, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
# syntax
expect_exit 2 "empty struct" run "$S" -a '{}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "expected ',' or '}' at the end" run "$S" -a '{u64:1, u64:2, u64:3' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "unknown field type 'x64'" run "$S" -a '{x64:1, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "field 'nope' is not a u64 value" run "$S" -a '{u64:nope, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "unexpected 'x' after the struct" run "$S" -a '{u64:1, u64:2, u64:3} x' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
# an inline buffer is buffer 3 here (after the three -a): -o 3 dumps it
expect_out "6 7 8" run "$S" -a '{u32[3]:6,7,8, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 3
# blanks after an inline list's commas are fine; a short list is named
expect_out "6 7 8" run "$S" -a '{u32[3]:6, 7, 8, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 3
expect_exit 2 "in a struct, an element list TYPE[N]:V0,V1,... takes exactly N values" \
  run "$S" -a '{u32[3]:6,7, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "'u32[3]:6,7': 2 values given for 3 elements" run "$S" -a '{u64:1, u64:2, u32[3]:6,7}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero'
expect_exit 2 "-o 4: there is no argument 4 (3 given with -a, numbered from 0, then the inline buffers)" \
  run "$S" -a '{u32[3]:6,7,8, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 4
expect_exit 2 "-o 0: argument 0 is not a buffer" run "$S" -a '{u32[3]:iota, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 0

# ---- small float types ----
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n  ret;\n}\n' > "$T/k.ptx"
K="$T/k.ptx"
# f16 (%.5g): 0.1 is 0.0999755859375; 6e-8 the smallest subnormal 2^-24;
# 2049 a tie between 2048 and 2050 (even: 2048), 2051 one between 2050 and 2052
expect_out "1 0.099976 65504 -2.5 inf -inf nan 5.9605e-08 2048 2052 -0" \
  run "$K" -a 'f16[11]:1,0.1,65504,-2.5,inf,-inf,nan,6e-8,2049,2051,-0' -o 0
# round to nearest even from the decimal itself: 1 + 2^-11 is a tie (to 1),
# a hair above it rounds up, a hair below down (the nearest double of
# either is the tie itself)
expect_out "1 1.001 1" run "$K" -a 'f16[3]:1.00048828125,1.00048828125000000001,1.00048828124999999999' -o 0
expect_out "65504" run "$K" -a 'f16[1]:65519' -o 0
expect_exit 2 "'65520' is not a f16 value (beyond f16's range: its largest finite value is 65504)" run "$K" -a 'f16[1]:65520'
expect_exit 2 "is not a f16 value (beyond f16's range" run "$K" -a 'f16:1e6'
# bf16 (%.4g): pi is 3.140625
expect_out "1 3.141 -inf 9.969e+37 -0.007812" run "$K" -a 'bf16[5]:1,3.14159,-inf,1e38,-0.0078125' -o 0
expect_exit 2 "'1e39' is not a bf16 value (beyond bf16's range" run "$K" -a 'bf16[1]:fill=1e39'
# e4m3 (%.3g): no infinity, 448 the largest, 464 a tie that rounds to it
expect_out "448 0.102 0.00195 nan -1.25 448" run "$K" -a 'e4m3[6]:448,0.1,0.001953125,nan,-1.25,464' -o 0
expect_exit 2 "'465' is not a e4m3 value (beyond e4m3's range: its largest finite value is 448)" run "$K" -a 'e4m3[1]:465'
expect_exit 2 "'inf' is not a e4m3 value (e4m3 has no infinity; its largest finite value is 448)" run "$K" -a 'e4m3[1]:inf'
# e5m2 (%.3g): IEEE-like, 57344 the largest finite value
expect_out "5.73e+04 1.25 inf -inf nan 1.53e-05" run "$K" -a 'e5m2[6]:57344,1.25,inf,-inf,nan,0.0000152587890625' -o 0
expect_exit 2 "'61440' is not a e5m2 value (beyond e5m2's range" run "$K" -a 'e5m2[1]:61440'
# the bits: 0h and 2 hex digits per byte
expect_out "1 nan -2" run "$K" -a 'f16[3]:0h3c00,0h7e00,0hc000' -o 0
expect_out "1 -inf" run "$K" -a 'e5m2[2]:0h3c,0hfc' -o 0
expect_exit 2 "is not a f16 value" run "$K" -a 'f16[1]:0h3c'
# parsing rounds the decimal itself to nearest even: decimals at, just above
# and just below the midpoints between neighbouring values (25 digits, so
# the double nearest each is the midpoint), and random ones, against exact
# rational arithmetic in Python (fractions; the values decoded as above)
python3 - "$PTXVM" "$K" <<'PY' > "$T/ties" 2>&1
import random, struct, subprocess, sys
from decimal import Decimal, getcontext
from fractions import Fraction
ptxvm, k = sys.argv[1], sys.argv[2]
getcontext().prec = 60
import math
def e4m3(b):   # exact as a double, as every value of these formats is
    e, m = b >> 3 & 15, b & 7
    if e == 15 and m == 7: return None
    v = m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
    return -v if b & 0x80 else v
def finite(v): return None if math.isinf(v) or math.isnan(v) else v
def f16(b): return finite(struct.unpack("<e", struct.pack("<H", b))[0])
def bf16(b): return finite(struct.unpack("<f", struct.pack("<I", b << 16))[0])
def e5m2(b): return f16(b << 8)
random.seed(20)
bad = total = 0
for name, n, dec in (("f16", 65536, f16), ("bf16", 65536, bf16), ("e4m3", 256, e4m3), ("e5m2", 256, e5m2)):
    pos = sorted((Fraction(v), b) for b, v in ((b, dec(b)) for b in range(n >> 1)) if v is not None)
    def nearest(x):   # |x| below the largest finite value
        lo, hi = 0, len(pos) - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if pos[mid][0] <= abs(x): lo = mid
            else: hi = mid
        (a, ba), (c, bc) = pos[lo], pos[hi]
        d1, d2 = abs(x) - a, c - abs(x)
        b = ba if d1 < d2 else bc if d2 < d1 else (ba if ba % 2 == 0 else bc)
        return b | (n >> 1) if x < 0 else b   # -0 below the smallest
    texts = []
    for _ in range(300 if n > 256 else 100):
        i = random.randrange(len(pos) - 1)
        m = (pos[i][0] + pos[i + 1][0]) / 2
        md = Decimal(m.numerator) / Decimal(m.denominator)
        for t in (md, md + md.scaleb(-24), md - md.scaleb(-24)):
            texts.append(format(t if random.random() < 0.5 else -t, ".25g"))
        r = pos[i][0] + (pos[i + 1][0] - pos[i][0]) * Fraction(random.random())
        texts.append(format(Decimal(r.numerator) / Decimal(r.denominator), ".12g"))
    for j in range(0, len(texts), 500):
        chunk = texts[j:j + 500]
        r = subprocess.run([ptxvm, "run", k, "-a", "%s[%d]:%s" % (name, len(chunk), ",".join(chunk)),
                            "-o", "0=%s.ties" % k], capture_output=True, text=True)
        if r.returncode:
            print("FAIL: %s: %s" % (name, r.stderr[:300])); bad += 1; continue
        got = struct.unpack("<%d%s" % (len(chunk), "H" if n > 256 else "B"), open(k + ".ties", "rb").read())
        for t, g in zip(chunk, got):
            total += 1
            want = nearest(Fraction(t))
            if g != want:
                bad += 1
                if bad < 6: print("FAIL: %s %s parses to 0x%x, not 0x%x" % (name, t, g, want))
print("checked", total, "bad", bad)
PY
if grep -q "bad 0$" "$T/ties"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: rounding from decimals: $(head -6 "$T/ties")"; fi
# iota converts as cvt.rn (f16: 65520 and up are inf) and, for the f8
# formats, as cvt.rn.satfinite (the one f32 -> f8 conversion of the ISA):
# 17 ties to 16, 19 to 20, and 449..499 saturate to 448
expect_out "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 16 18 20" run "$K" -a 'e4m3[20]:iota' -o 0
got=$("$PTXVM" run "$K" -a 'e4m3[500]:iota' -o 0 | awk '{print $449, $450, $NF}')
if [ "$got" = "448 448 448" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: e4m3 iota saturates: $got"; fi
got=$("$PTXVM" run "$K" -a 'f16[70000]:iota' -o 0 | awk '{print $2050, $2051, $65505, $NF}')
if [ "$got" = "2048 2050 65504 inf" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: f16 iota: $got"; fi
# rand=SEED: the f32 of the documented generator, rounded to the type
# (computed apart in Python: struct's 'e' for f16, bf16 by hand)
expect_out "0.13318 0.49146 0.94189 -0.11127" run "$K" -a 'f16[4]:rand=1' -o 0
expect_out "0.1328 0.4922 0.9414 -0.1113" run "$K" -a 'bf16[4]:rand=1' -o 0
# every f16, bf16, e5m2 and e4m3 value: the dump prints the number Python
# decodes from the bits (struct 'e'; bf16 the upper half of an f32, e5m2
# of an f16; e4m3 by hand; a NaN as nan or
# -nan, by its sign, as f32 prints), and parsing what is
# printed gives the bits back (in lists of 4096, under the argument limit)
python3 - "$PTXVM" "$K" <<'PY' > "$T/all16" 2>&1
import struct, subprocess, sys, math
ptxvm, k = sys.argv[1], sys.argv[2]
bad = 0
def e4m3(b):   # 1-4-3, bias 7, no infinity, S.1111.111 NaN
    e, m = b >> 3 & 15, b & 7
    v = float("nan") if e == 15 and m == 7 else (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    return -v if b & 0x80 else v
for name, n, dec, digits in (("f16", 65536, lambda b: struct.unpack("<e", struct.pack("<H", b))[0], 5),
                             ("bf16", 65536, lambda b: struct.unpack("<f", struct.pack("<I", b << 16))[0], 4),
                             ("e5m2", 256, lambda b: struct.unpack("<e", struct.pack("<H", b << 8))[0], 3),
                             ("e4m3", 256, e4m3, 3)):
    with open(k + ".bin", "wb") as f:
        f.write(struct.pack("<%d%s" % (n, "H" if n > 256 else "B"), *range(n)))
    out = subprocess.run([ptxvm, "run", k, "-a", "%s[]:@%s.bin" % (name, k), "-o", "0"],
                         capture_output=True, text=True).stdout.split()
    if len(out) != n:
        print("FAIL: %s: %d values printed" % (name, len(out))); sys.exit(1)
    for b, text in enumerate(out):
        v = dec(b)
        if math.isnan(v):
            bad += text != ("-nan" if b & (n >> 1) else "nan")   # the sign, as f32 prints it
        elif float(text) != float("%.*g" % (digits, v)) or text != "%.*g" % (digits, v):
            bad += 1
            if bad < 5: print("FAIL: %s 0x%04x prints %s, not %.*g" % (name, b, text, digits, v))
    finite = [b for b in range(n) if not math.isnan(dec(b))]
    for i in range(0, len(finite), 4096):
        chunk = finite[i:i + 4096]
        got = subprocess.run([ptxvm, "run", k, "-a", "%s[%d]:%s" % (name, len(chunk), ",".join(out[b] for b in chunk)),
                              "-o", "0=%s.out" % k], capture_output=True, text=True)
        back = struct.unpack("<%d%s" % (len(chunk), "H" if n > 256 else "B"), open(k + ".out", "rb").read())
        for b, r in zip(chunk, back):
            if b != r:
                bad += 1
                if bad < 5: print("FAIL: %s 0x%04x printed as %s parses to 0x%04x" % (name, b, out[b], r))
print("bad", bad)
PY
if [ "$(tail -1 "$T/all16")" = "bad 0" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: all small float values: $(head -5 "$T/all16")"; fi
# scalars and struct fields of the small types: their bytes, read back
expect_out "0 60 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" \
  run "$S" -a '{f16:1, bf16:0, e4m3:0, e5m2:0, u64:0, u64:0}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 2
expect_out "0 0 128 63 56 60 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" \
  run "$S" -a '{bf16:0, bf16:1, e4m3:1, e5m2:1, u64:0, u64:0}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 2
expect_exit 2 "unknown type 'f8'" run "$K" -a 'f8[1]:zero'

# ---- --schedules ----
# w: every warp stores its index to a[0] (the last warp to run wins) and
# 1 to b[warp] (the same under any order); a trap when the flag is 1
cat > "$T/w.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry w(.param .u64 a, .param .u64 b, .param .u32 flag)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  ld.param.u32 %r3, [flag];
  setp.ne.u32 %p, %r3, 0;
  @%p trap;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  st.global.u32 [%rd1], %r2;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], 1;
  ret;
}
PTX
W="$T/w.ptx"
expect_exit 2 "bad schedule count '0'" run --schedules 0 "$W" -a 'u32[1]:zero' -a 'u32[8]:zero' -a u32:0
expect_exit 2 "--schedule SEED runs one schedule, --schedules N the seeds 0 to N-1: give one of them" \
  run --schedule 3 --schedules 2 "$W" -a 'u32[1]:zero' -a 'u32[8]:zero' -a u32:0
# without -o every buffer is compared; with -o only those dumped
expect_exit 1 "buffer 0 ('u32[1]:zero') element 0 is 7 under schedule 0" \
  run --schedules 3 -b 256 "$W" -a 'u32[1]:zero' -a 'u32[8]:zero' -a u32:0
expect_out "1 1 1 1 1 1 1 1" run --schedules 3 -b 256 "$W" -a 'u32[1]:zero' -a 'u32[8]:zero' -a u32:0 -o 1
if grep -qF "ptxvm: 3 schedules (seeds 0 to 2): the same results under each" "$T/err"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --schedules -o 1 summary: $(cat "$T/err")"; fi
# fresh inputs for every seed: a fill=5 buffer is 5 again before each run,
# so the stores of one seed cannot leak into the next
expect_exit 1 "element 0 is 7 under schedule 0 and" \
  run --schedules 2 -b 256 "$W" -a 'u32[1]:fill=5' -a 'u32[8]:fill=5' -a u32:0 -o 0 -o 1
if [ "$(cat "$T/out")" = "$(printf '7\n1 1 1 1 1 1 1 1')" ]; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --schedules dumps seed 0's buffers: $(cat "$T/out")"; fi
# a zero buffer is zero again for every seed (a fresh allocation reads
# zero, also where a freed one was): one thread's a[0] += 1 gives 1 each time
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry inc(.param .u64 a)\n{\n  .reg .b32 %%r1;\n  .reg .b64 %%rd1;\n  ld.param.u64 %%rd1, [a];\n  ld.global.u32 %%r1, [%%rd1];\n  add.u32 %%r1, %%r1, 1;\n  st.global.u32 [%%rd1], %%r1;\n  ret;\n}\n' > "$T/inc.ptx"
expect_out "1" run --schedules 5 "$T/inc.ptx" -a 'u32[1]:zero' -o 0
expect_exit 0 "ptxvm: --schedules 1 ran schedule 0 only: there is nothing to compare it with" \
  run --schedules 1 "$T/inc.ptx" -a 'u32[1]:zero'
# an inline buffer of a struct is compared too, by its number
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry v(.param .align 8 .b8 s[8])\n{\n  .reg .b32 %%r<3>;\n  .reg .b64 %%rd1;\n  ld.param.u64 %%rd1, [s];\n  mov.u32 %%r1, %%tid.x;\n  shr.u32 %%r2, %%r1, 5;\n  st.global.u32 [%%rd1], %%r2;\n  ret;\n}\n' > "$T/v.ptx"
expect_exit 1 "buffer 1 ('u32[2]:zero') element 0 is 3 under schedule 0" run --schedules 4 -b 128 "$T/v.ptx" -a '{u32[2]:zero}'
# a fault under a schedule: its report, which schedule, exit 1, no dump
expect_exit 1 "(under schedule 0, round-robin)" run --schedules 3 "$W" -a 'u32[1]:zero' -a 'u32[8]:zero' -a u32:1 -o 0
if [ ! -s "$T/out" ] && grep -q "trap" "$T/err"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --schedules fault: $(cat "$T/out") $(cat "$T/err")"; fi

# --check findings under --schedules: each distinct one once, in order of
# first appearance, "  (under seeds ... of 0 to N-1)" after one that not
# every completed seed gave. r: thread 32 stores 7 to s[0], thread 0 loads
# it with no barrier between: a data race under every seed, an
# uninitialized read where the ld runs first (seeds 0 to 3, 7, ...), and a
# trap where it reads 7 (seed 4 first). Seeds 0 to 3's findings come before
# seed 4's trap, whose report has its own findings.
cat > "$T/r.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .pred %p<4>; .reg .b32 %r<8>;
  .shared .align 4 .b32 s[64];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  setp.ne.u32 %p1, %r1, 32;
  @%p1 bra SKIP;
  mov.u32 %r3, 7;
  st.shared.u32 [%r2], %r3;
SKIP:
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra END;
  ld.shared.u32 %r4, [%r2];
  setp.eq.u32 %p3, %r4, 7;
  @%p3 trap;
END:
  ret;
}
PTX
UNINIT="uninitialized read of .shared bytes [0x0, 0x4) in s+0 by ld at $T/r.ptx:17:3, kernel k, %ctaid (0,0,0) %tid (0,0,0): no thread of its CTA wrote them
  (shared memory starts undefined in each CTA: store before loading, with a barrier between threads)"
RACE="data race on .shared: st at $T/r.ptx:13:3 by %ctaid (0,0,0) %tid (32,0,0) and ld at $T/r.ptx:17:3 by %ctaid (0,0,0) %tid (0,0,0), bytes [0x0, 0x4): no synchronization orders them
  in kernel k (a missing barrier, __syncwarp, mbarrier wait or cp.async wait, or a flag without release/acquire)"
# expect_err CODE WANT ARGS...: exit status and exactly this stderr
expect_err() {
  code=$1; want=$2; shift 2
  "$PTXVM" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = "$code" ] && [ "$(cat "$T/err")" = "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: ptxvm $*: exit $rc (want $code), stderr: $(cat "$T/err") (want: $want)"
  fi
}
expect_err 1 "$UNINIT
$RACE
ptxvm: 4 schedules (seeds 0 to 3): the same results under each" run --check --schedules 4 -b 64 "$T/r.ptx"
expect_err 1 "$UNINIT
$RACE
trap
  at $T/r.ptx:19:8, kernel k, %ctaid (0,0,0), %tid (0,0,0)
$RACE
ptxvm: (under schedule 4; schedules 0 to 3 completed)" run --check --schedules 6 -b 64 "$T/r.ptx"
sed 's/^  @%p3 trap;$/  \/\/ no trap/' "$T/r.ptx" > "$T/r2.ptx" && mv "$T/r2.ptx" "$T/r.ptx"
expect_err 1 "$UNINIT
  (under seeds 0, 1, 2, 3, 7, 8 of 0 to 8)
$RACE
ptxvm: 9 schedules (seeds 0 to 8): the same results under each" run --check --schedules 9 -b 64 "$T/r.ptx"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
