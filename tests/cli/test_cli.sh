#!/bin/sh
# test_cli.sh: the `ptxvm run` command line (shared CLI.md): argument errors
# exit 2 with a message on stderr, dumps print in the documented formats,
# rand=SEED matches the README's definition (computed here independently in
# Python), @PATH and -o N=PATH move raw bytes.
#   sh tests/cli/test_cli.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
PTXVM="$B/ptxvm"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

cat > "$T/k.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  ret;
}
PTX
cat > "$T/two.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry a(.param .u32 x)
{
  ret;
}
.visible .entry b(.param .u32 x)
{
  ret;
}
PTX

# expect_exit CODE STDERR-SUBSTRING ARGS...: exit status and a stderr substring
expect_exit() {
  code=$1; msg=$2; shift 2
  "$PTXVM" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = "$code" ] && grep -qF -- "$msg" "$T/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: ptxvm $*: exit $rc (want $code), stderr: $(head -c 300 "$T/err") (want '$msg')"
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
    echo "FAIL: ptxvm $*: exit $rc, got '$got', want '$want'; stderr: $(head -c 300 "$T/err")"
  fi
}

K="$T/k.ptx"
# ---- argument errors: exit 2 ----
expect_exit 2 "missing FILE" run
expect_exit 2 "unknown option" run --bogus "$K"
expect_exit 2 "needs a value" run "$K" -a
expect_exit 2 "bad grid" run -g 0 "$K" -a 'u32[1]:zero'
expect_exit 2 "bad block" run -b 4,x "$K" -a 'u32[1]:zero'
expect_exit 2 "bad grid" run -g 1,2,3,4 "$K" -a 'u32[1]:zero'
expect_exit 2 "bad shared" run -s -1 "$K" -a 'u32[1]:zero'
expect_exit 2 "bad job count" run -j 0 "$K" -a 'u32[1]:zero'
expect_exit 2 "bad dump" run -o x "$K" -a 'u32[1]:zero'
expect_exit 2 "unknown type" run "$K" -a 'i32:1'
expect_exit 2 "is not a u8 value" run "$K" -a 'u8:256'
expect_exit 2 "is not a u32 value" run "$K" -a 'u32:-1'
expect_exit 2 "is not a s8 value" run "$K" -a 's8:128'
expect_exit 2 "is not a f32 value" run "$K" -a 'f32:1.5x'
expect_exit 2 "is not a f32 value" run "$K" -a 'f32:0f123'
expect_exit 2 "3 values given for 2 elements" run "$K" -a 'u32[2]:1,2,3'
expect_exit 2 "bad element count" run "$K" -a 'u32[x]:zero'
expect_exit 2 "only with @PATH" run "$K" -a 'u32[]:zero'
expect_exit 2 "cannot read" run "$K" -a "u32[]:@$T/missing.bin"
# a device or pipe is read no further than N elements; a directory is named;
# a long element list is counted before anything is allocated
expect_exit 2 "/dev/zero holds more than 3 elements of 4 bytes" run "$K" -a 'u32[3]:@/dev/zero'
expect_exit 2 "is a directory" run "$K" -a "u32[]:@$T"
expect_exit 2 "2 values given for 4294967297 elements" run "$K" -a 'b64[4294967297]:1,2'
expect_exit 2 "'1e39' is not a f32 value" run "$K" -a 'f32[1]:1e39'
expect_exit 2 "takes 1 parameter, 0 given" run "$K"
expect_exit 2 "takes 1 parameter, 2 given" run "$K" -a 'u32[1]:zero' -a 'u32[1]:zero'
expect_exit 2 "parameter p is .u64 of 8 bytes" run "$K" -a 'u32:1'
expect_exit 2 "not a buffer" run "$K" -a 'u64:1' -o 0
expect_exit 2 "there is no argument 1" run "$K" -a 'u32[1]:zero' -o 1
expect_exit 2 "cannot write there: No such file or directory" run "$K" -a 'u32[1]:zero' -o 0=/nonexistent/dir/x.bin
expect_exit 2 "no kernel 'nope'" run "$K" nope -a 'u32[1]:zero'
expect_exit 2 "has 2 kernels" run "$T/two.ptx" -a 'u32:1'
expect_exit 2 "No such file" run "$T/none.ptx"
expect_exit 2 "unexpected argument" run "$K" k extra
expect_exit 2 "2048 threads" run -b 512,4 "$K" -a 'u32[1]:zero'
expect_exit 2 "not a multiple" run -g 3 -c 2 "$K" -a 'u32[1]:zero'

# ---- dump formats ----
expect_out "1.5 -0 inf -inf nan 0.100000001 3.40282347e+38" run "$K" -a 'f32[7]:1.5,-0,inf,-inf,nan,0.1,0f7f7fffff' -o 0
expect_out "0.10000000000000001 -2 1.7976931348623157e+308 4.9406564584124654e-324" run "$K" -a 'f64[4]:0.1,-2,0d7fefffffffffffff,0d0000000000000001' -o 0
expect_out "-128 127 -1" run "$K" -a 's8[3]:-128,127,-1' -o 0
expect_out "18446744073709551615 0 255" run "$K" -a 'u64[3]:0xffffffffffffffff,0,0xff' -o 0
expect_out "-9223372036854775808" run "$K" -a 's64[1]:-9223372036854775808' -o 0
expect_out "65535 32768" run "$K" -a 'b16[2]:-1,0x8000' -o 0
expect_out "0 1 2 3 4" run "$K" -a 'u16[5]:iota' -o 0
expect_out "0 1 2 3" run "$K" -a 'f64[4]:iota' -o 0
expect_out "7 7 7" run "$K" -a 'u32[3]:fill=7' -o 0
expect_out "-2.5 -2.5" run "$K" -a 'f32[2]:fill=-2.5' -o 0
expect_out "0 0" run "$K" -a 'u8[2]:zero' -o 0
expect_out "" run "$K" -a 'u32[0]:zero' -o 0
expect_out "1 2" run - -a 'u32[2]:1,2' -o 0 <"$K"
expect_out "1 2" run "$K" k -q -a 'u32[2]:1,2' -o 0
expect_out "3 4" run --check -q --grid 2 --block 32 --jobs 2 --arg 'u32[2]:3,4' --dump 0 "$K"

# ---- rand=SEED: splitmix64, computed independently ----
for spec in u32:8:4 s8:1:12 u64:12345:3 f32:42:5 f64:0x2a:3 s16:0:4; do
  ty=${spec%%:*}; rest=${spec#*:}; seed=${rest%%:*}; n=${rest#*:}
  want=$(python3 - "$ty" "$seed" "$n" <<'PY'
import struct, sys
ty, seed, n = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3])
M = (1 << 64) - 1
s = seed
out = []
for _ in range(n):
    s = (s + 0x9E3779B97F4A7C15) & M
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    x = z ^ (z >> 31)
    if ty == "f32":
        v = struct.unpack("<f", struct.pack("<f", ((x >> 40) * 2.0**-24) * 2 - 1))[0]
        out.append("%.9g" % v)
    elif ty == "f64":
        out.append("%.17g" % (((x >> 11) * 2.0**-53) * 2 - 1))
    else:
        bits = int(ty[1:])
        v = x & ((1 << bits) - 1)
        if ty[0] == "s" and v >> (bits - 1):
            v -= 1 << bits
        out.append(str(v))
print(" ".join(out))
PY
)
  expect_out "$want" run "$K" -a "$ty[$n]:rand=$seed" -o 0
done

# ---- TYPE[N]:INIT for an array parameter (a struct by value): its bytes ----
cat > "$T/byval.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry byval(.param .align 8 .b8 s[12], .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b16 %h<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
  ld.param.u32 %r0, [s];
  ld.param.u32 %r1, [s+4];
  ld.param.v2.u16 {%h0, %h1}, [s+8];
  cvt.u32.u16 %r2, %h0;
  cvt.u32.u16 %r3, %h1;
  st.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};
  ret;
}
PTX
BV="$T/byval.ptx"
expect_out "1 4294967295 3 65535" run "$BV" -a 'u32[3]:1,0xffffffff,0xffff0003' -a 'u32[4]:zero' -o 1
expect_out "67305985 134678021 2571 3085" run "$BV" -a 'b8[12]:1,2,3,4,5,6,7,8,11,10,13,12' -a 'u32[4]:zero' -o 1
expect_out "1069547520 0 0 0" run "$BV" -a 'f32[3]:1.5,0,0' -a 'u32[4]:zero' -o 1
expect_out "65536 196610 4 5" run "$BV" -a 'u16[6]:iota' -a 'u32[4]:zero' -o 1
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<3I', 7, 8, 0x00050009))" >"$T/s.bin"
expect_out "7 8 9 5" run "$BV" -a "u32[]:@$T/s.bin" -a 'u32[4]:zero' -o 1
expect_exit 2 "is 8 bytes but parameter s is .b8[12] of 12 bytes" run "$BV" -a 'u32[2]:1,2' -a 'u32[4]:zero'
expect_exit 2 "is 16 bytes but parameter s is .b8[12] of 12 bytes" run "$BV" -a 'u32[4]:zero' -a 'u32[4]:zero'
expect_exit 2 "passed by value" run "$BV" -a 'u32[3]:zero' -a 'u32[4]:zero' -o 0
expect_exit 2 "parameter out is .u64 of 8 bytes" run "$BV" -a 'u32[3]:zero' -a 'u32:1'

# ---- @PATH in, N=PATH out ----
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<3i', -1, 2, 300))" >"$T/in.bin"
expect_out "-1 2 300" run "$K" -a "s32[]:@$T/in.bin" -o 0
expect_out "-1 2 300" run "$K" -a "s32[3]:@$T/in.bin" -o 0
expect_exit 2 "holds 12 bytes" run "$K" -a "s32[4]:@$T/in.bin" -o 0
expect_exit 2 "holds 12 bytes" run "$K" -a "f64[]:@$T/in.bin" -o 0
expect_out "" run "$K" -a "s32[]:@$T/in.bin" -o "0=$T/out.bin"
if cmp -s "$T/in.bin" "$T/out.bin"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: -o 0=PATH bytes differ"; fi

# ---- --max-steps: the watchdog ends a spin loop (exit 1, "runaway") ----
cat > "$T/spin.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry spin(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r0, 0;
L:
  add.u32 %r0, %r0, 1;
  setp.ne.u32 %p0, %r0, 0;
  @%p0 bra L;
  ret;
}
PTX
expect_exit 1 "runaway" run --max-steps 1000 "$T/spin.ptx" -a 'u32[1]:zero'
expect_exit 1 "without finishing (watchdog)" run --max-steps 1000 -b 64 "$T/spin.ptx" -a 'u32[1]:zero'
expect_exit 2 "bad step limit" run --max-steps 0 "$K" -a 'u32[1]:zero'
expect_exit 2 "bad step limit" run --max-steps x "$K" -a 'u32[1]:zero'
expect_exit 2 "bad async delay" run --async-delay x "$K" -a 'u32[1]:zero'
expect_out "" run --max-steps 1 "$K" -a 'u32[1]:zero'
"$PTXVM" run --help >"$T/help" 2>&1
if grep -q -- "--max-steps N" "$T/help" && grep -q "268435456" "$T/help" && grep -q "lane groups" "$T/help"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: run --help lacks --max-steps, its default or the --schedule lane groups"; fi

# every command takes --help and -h (check and info once took it for a FILE):
# its own usage on stdout, exit 0 (test_help.sh compares the whole text with
# docs/cli.md); --version is the header's version
for c in run check info exec ptx; do
  for h in --help -h; do
    if "$PTXVM" $c $h >"$T/help" 2>"$T/err" && grep -q "^usage: ptxvm $c" "$T/help" && [ ! -s "$T/err" ]; then
      pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: ptxvm $c $h: $(head -c 200 "$T/err")"; fi
  done
done
expect_exit 2 "unknown command" bogus --help
expect_exit 2 "No such file" check "$T/--help"
v=$(sed -n 's/^#define PTXVM_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' include/ptxvm.h | paste -sd.)
expect_out "ptxvm $v" --version

# SIGINT cancels a launch (ptxvm_cancel): exit 1, "ptxvm: cancelled", promptly.
# The loop counts, so the spin detector cannot prove it endless (a bare
# `bra.uni L` is a livelock reported at once).
cat > "$T/endless.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 0;
L:
  add.u32 %r1, %r1, 1;
  bra.uni L;
}
PTX
"$PTXVM" run --max-steps 100000000000000 -g 8 -b 64 "$T/endless.ptx" -a 'u32[1]:zero' 2>"$T/int.err" &
pid=$!
sleep 0.5
kill -INT "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$pid" 2>/dev/null; then
  kill -KILL "$pid"; wait "$pid"; fail=$((fail + 1)); echo "FAIL: SIGINT did not stop the launch within 5 s"
else
  wait "$pid"; rc=$?
  if [ "$rc" = 1 ] && grep -q "^ptxvm: cancelled$" "$T/int.err"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: SIGINT: exit $rc, stderr: $(cat "$T/int.err")"; fi
fi

# Issue 13 item 7: the three spins at the default step limit (2^28; the
# watchdog took 15-62 s) are reported as livelocks within a second.
for t in "spin/livelock_bra.ptx -b 32" "spin/livelock_volatile.ptx -g 2 -b 64 -a u32[1]:zero" \
         "spin/livelock_test_wait.ptx -b 1"; do
  set -- $t
  f=$1; shift
  timeout 1 "$PTXVM" run "tests/ptx/$f" "$@" 2>"$T/spin.err"; rc=$?
  if [ "$rc" = 1 ] && grep -q "^livelock: kernel k" "$T/spin.err"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $f: exit $rc (124: not within 1 s), stderr: $(head -c 300 "$T/spin.err")"; fi
done

# A spin it cannot prove: after 4 s a note on stderr says it still runs and
# when the watchdog will stop it; -q silences it. SIGINT then cancels both.
"$PTXVM" run --max-steps 100000000000000 -b 32 "$T/endless.ptx" -a 'u32[1]:zero' 2>"$T/note.err" &
p1=$!
"$PTXVM" run -q --max-steps 100000000000000 -b 32 "$T/endless.ptx" -a 'u32[1]:zero' 2>"$T/noteq.err" &
p2=$!
sleep 5.5
kill -INT "$p1" "$p2"
wait "$p1"; wait "$p2"
if grep -q "^ptxvm: note: kernel k, %ctaid (0,0,0) still runs after 4 s (.* warp-instructions), a warp at .*endless.ptx:1[01]:3; if it spins forever, the watchdog stops it after 100000000000000 (--max-steps)$" "$T/note.err" &&
   ! grep -q "note" "$T/noteq.err"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: still-running note: $(cat "$T/note.err") | -q: $(cat "$T/noteq.err")"; fi

# --check with interleaved clusters (forward progress): the findings read in
# cluster order, as if the clusters ran one after another
"$PTXVM" run tests/ptx/sched/check_order_spin.ptx -g 8 -b 32 -j 1 --check -a 'u32[2]:zero' \
  2>"$T/order.err"
got=$(grep -o 'ptx:[0-9]*:3, kernel k, %ctaid ([0-9]' "$T/order.err" | tr '\n' ' ')
want='ptx:39:3, kernel k, %ctaid (0 ptx:41:3, kernel k, %ctaid (0 ptx:30:3, kernel k, %ctaid (7 '
if [ "$got" = "$want" ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: --check findings out of cluster order: $got"; fi

# ---- issue 13: an unknown INIT word is named ----
expect_exit 2 "unknown INIT 'bogus' (zero, undef, iota, fill=V, rand=SEED, @PATH" run "$K" -a 'u32[4]:bogus'
expect_exit 2 "1 values given for 4 elements (fill=V" run "$K" -a 'u32[4]:7'

# ---- issue 13: output that cannot be written is exit 2 with a message ----
expect_fail_write() {
  what=$1; shift
  "$PTXVM" "$@" >/dev/full 2>"$T/err"; rc=$?
  if [ "$rc" = 2 ] && grep -q "cannot write standard output: No space left on device" "$T/err"; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what > /dev/full: exit $rc, $(head -c 300 "$T/err")"; fi
}
expect_fail_write "a dump" run "$K" -a 'u32[4]:iota' -o 0
expect_fail_write "a long dump" run "$K" -a 'u32[1000000]:iota' -o 0
expect_fail_write "info" info "$K"
expect_fail_write "--help" --help
"$PTXVM" run "$K" -a 'u32[4]:iota' -o 0 >&- 2>"$T/err"; rc=$?
if [ "$rc" = 2 ] && grep -q "cannot write standard output" "$T/err"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: closed stdout: exit $rc, $(head -c 300 "$T/err")"; fi

# ---- issue 13: device printf is bounded per cluster (--printf-buffer) ----
# hello(n): every thread prints "hi\n" n times
cat > "$T/pf.ptx" <<'PTX'
.version 7.8
.target sm_90
.address_size 64
.extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);
.global .align 1 .b8 fmt[4] = {104, 105, 10, 0};
.visible .entry hello(.param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .reg .pred %p<2>;
  ld.param.u32 %r2, [n];
  mov.u32 %r3, 0;
  mov.u64 %rd1, fmt;
  cvta.global.u64 %rd2, %rd1;
  mov.u64 %rd1, 0;
L:
  {
  .param .b64 f;
  st.param.b64 [f], %rd2;
  .param .b64 a;
  st.param.b64 [a], %rd1;
  .param .b32 r;
  call.uni (r), vprintf, (f, a);
  ld.param.b32 %r1, [r];
  }
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r2;
  @%p1 bra L;
  ret;
}
PTX
PF="$T/pf.ptx"
# 3 CTAs x 4 threads x 10 calls of 3 bytes (and 9 more each in the buffer):
# 40 bytes keep 3 calls per CTA
"$PTXVM" run "$PF" -g 3 -b 4 -a u32:10 --printf-buffer 40 -q >"$T/pf.out" 2>"$T/pf.err"; rc=$?
if [ "$rc" = 0 ] && [ "$(wc -c < "$T/pf.out")" = 27 ] &&
   grep -q "printf output lost: 111 calls (333 bytes) beyond the 40-byte printf buffer of cluster (0,0,0) and 2 more clusters" "$T/pf.err"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --printf-buffer 40: exit $rc, $(wc -c < "$T/pf.out") bytes, $(cat "$T/pf.err")"; fi
# the output kept, and the report, are the same at every -j
for j in 1 2 4; do
  "$PTXVM" run "$PF" -g 40 -b 32 -a u32:50 --printf-buffer 1000 -j $j >"$T/pf.$j" 2>&1
done
if cmp -s "$T/pf.1" "$T/pf.2" && cmp -s "$T/pf.1" "$T/pf.4" && grep -q "and 39 more clusters" "$T/pf.1"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: printf output with losses differs between -j 1, 2, 4"; fi
# nothing lost, nothing said
expect_out "hi" run "$PF" -a u32:1
if [ ! -s "$T/err" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: printf without loss: $(cat "$T/err")"; fi
# a printf in a long loop: 6.4M calls, 19 MB of text, took all of it resident
"$PTXVM" run "$PF" -b 128 -a u32:50000 -j 1 --stats >/dev/null 2>"$T/pf.err"
kib=$(sed -n 's/^  peak memory: \([0-9]*\) KiB$/\1/p' "$T/pf.err")
if [ -n "$kib" ] && [ "$kib" -lt 16384 ] && grep -q "printf output lost: 6312619 calls" "$T/pf.err"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: printf in a loop: peak ${kib} KiB, $(head -c 300 "$T/pf.err")"; fi
expect_fail_write "printf output" run "$PF" -a u32:3
expect_exit 2 "bad printf buffer size 'x'" run --printf-buffer x "$PF" -a u32:1
expect_exit 2 "bad printf buffer size '0'" run --printf-buffer 0 "$PF" -a u32:1

# ---- issue 13: device memory has a size (--device-memory, PTXVM_DEVICE_MEMORY) ----
expect_exit 2 "cannot allocate 100000000 bytes of device memory: 0 of the context's 67108864 bytes are in use" \
  run --device-memory 64M "$K" -a 'u8[100000000]:zero'
PTXVM_DEVICE_MEMORY=0x100000 expect_exit 2 "of the context's 1048576 bytes" run "$K" -a 'u8[2000000]:zero'
PTXVM_DEVICE_MEMORY=lots expect_exit 2 "PTXVM_DEVICE_MEMORY='lots' is not a size" run "$K" -a 'u8[4]:zero'
expect_exit 2 "bad device memory size '12Q'" run --device-memory 12Q "$K" -a 'u8[4]:zero'
expect_out "0 0" run --device-memory 1K "$K" -a 'u8[2]:zero' -o 0
# a 1 GiB zero buffer costs the host nothing: it was cleared (committed) twice
"$PTXVM" run "$K" -a 'u8[1073741824]:zero' --stats >/dev/null 2>"$T/big.err"; rc=$?
kib=$(sed -n 's/^  peak memory: \([0-9]*\) KiB$/\1/p' "$T/big.err")
if [ "$rc" = 0 ] && [ -n "$kib" ] && [ "$kib" -lt 65536 ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: 1 GiB zero buffer: exit $rc, peak ${kib} KiB, $(head -c 300 "$T/big.err")"; fi
# ---- what ptxvm cannot execute yet (issue 12.16): `check` warns at the
# instruction and exits 0 (valid PTX); only the kernels reaching it are refused
U=tests/ptx/ctrl/unsupported_in_other_kernel.ptx
expect_exit 0 "$U:15:3: warning: multimem.red.relaxed.sys.global.add.u32 is not supported (ptxvm cannot execute it yet: the kernels that can call 'f' cannot be launched)" check "$U"
expect_exit 2 "$U:15:3: multimem.red.relaxed.sys.global.add.u32 is not supported (in 'f', which kernel 'b' can call)" run "$U" b -a 'u32[1]:zero'
expect_out 42 run -q "$U" a -a 'u32[1]:zero' -o 0
expect_exit 0 "multimem_refused.ptx:16:3: warning: multimem.red.relaxed.sys.global.add.u32 is not supported (ptxvm cannot execute it yet: kernel 'k' cannot be launched)" check tests/ptx/async/multimem_refused.ptx
# ---- tensor-map arguments (issue 18; docs/cli.md "Tensor maps"): a field
# ptxvm does not know, and each encoding rule, are errors that name them
TM=tests/ptx/tma/tma_load_2d.ptx
TMA="-a u16[3072]:iota -a u16[128]:zero -a s32:8 -a s32:4 -a s32:0 -a s32:0 -a s32:0"
expect_exit 2 "unknown tensor-map field 'bx=4x8'" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=64x48,bx=4x8' $TMA
expect_exit 2 "tensor map: the box's inner dimension must be a multiple of 16 bytes" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=64x48,box=4x8' $TMA
expect_exit 2 "tensor map: the NaN fill needs a floating-point data type" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=64x48,box=16x8,oob=nan' $TMA
expect_exit 2 "&5 names no buffer" run "$TM" -b 128 -a 'tensormap:u16,&5,dims=64x48,box=16x8' $TMA
expect_exit 2 "interleave= is none, 16B or 32B" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=64x48,box=16x8,interleave=8B' $TMA
expect_exit 2 "tensor map: an interleaved layout needs rank 3 or more" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=64x48,box=16x8,interleave=16B' $TMA
expect_exit 2 "tensor map: 32B interleave needs the 32B swizzle" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=16x4x2,box=16x4x2,interleave=32B' $TMA
expect_exit 2 "tensor map: interleaved im2col maps are not supported" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=8x9x4,lower=-1,upper=-1,channels=8,pixels=16,interleave=16B' $TMA
# im2col maps (lower=, upper=, channels=, pixels=): each missing or malformed, and an encoding rule
expect_exit 2 "an im2col tensor map needs TYPE, &N, dims=, lower=, upper=, channels= and pixels= (and no box=)" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=16x9x4,lower=-1,upper=-1,channels=8' $TMA
expect_exit 2 "an im2col map has 3 to 5 dims= and dims - 2 numbers in lower= and upper=" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=16x9x4,lower=-1x-1,upper=-1,channels=8,pixels=16' $TMA
expect_exit 2 "lower= takes 1 to 3 numbers, AxB... (W first)" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=16x9x4,lower=-1y,upper=-1,channels=8,pixels=16' $TMA
expect_exit 2 "tensor map: a bounding-box corner must be in [-128, 127] for rank 4" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=16x9x9x4,lower=-129x0,upper=0x0,channels=8,pixels=16' $TMA
expect_exit 2 "tensor map: pixels per column must be 1 to 1024" run "$TM" -b 128 -a 'tensormap:u16,&1,dims=16x9x4,lower=-1,upper=-1,channels=8,pixels=1025' $TMA
# a tile copy on an im2col map: a fault that names both
expect_exit 1 "cp.async.bulk.tensor: a tile copy needs a tiled tensor map (cuTensorMapEncodeTiled)" run tests/ptx/tma/tma_load_3d.ptx -b 128 -a 'tensormap:u16,&1,dims=16x8x6,lower=0,upper=0,channels=8,pixels=16' -a u16[768]:iota -a u16[96]:zero -a s32:4 -a s32:2 -a s32:1 -a s32:0 -a s32:0
expect_exit 0 "ok_016_kernel_param_space.ptx: warning: ptxvm cannot run this module: the frame of 'f'" check tests/ptx/diag/ok_016_kernel_param_space.ptx
if "$PTXVM" check "$K" 2>"$T/err" && [ ! -s "$T/err" ]; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: check of a runnable module printed: $(head -c 300 "$T/err")"; fi

# ---- parameter layouts in 64 bits, kernels within ptxas's limit (issue 13.1)
"$PTXVM" info tests/ptx/diag/ok_016_kernel_param_space.ptx >"$T/out" 2>"$T/err"
if grep -qx '.func f: 2 params, 6000000000 bytes' "$T/out" &&
   grep -qx '  param 1: b .param .b8 size 3000000000 align 4 offset 3000000000 \[3000000000\]' "$T/out"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: info of 6 GB of .func parameters: $(cat "$T/out")"; fi
printf '.version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .align 4 .b8 a[4294967292], .param .u64 b)\n{\n  ret;\n}\n' >"$T/p4g.ptx"
expect_exit 2 "p4g.ptx:4:39: error: kernel 'k' uses too much parameter space: 'a' ends at byte 4294967292, past the limit of 32764 bytes" info "$T/p4g.ptx"
expect_exit 2 "p4g.ptx:4:39: error: kernel 'k' uses too much parameter space" run "$T/p4g.ptx" -a 'b8[4294967292]:zero' -a u64:1

# images in place of PTX (tools/image.c; nvcc's own: tests/fatbin): a
# truncated ELF file, a fatbin whose entry overruns it, an ELF file without
# device code; `ptxvm ptx` of PTX text is the text
printf '\177ELF\002\001\001' >"$T/trunc.elf"
expect_exit 2 "trunc.elf: image of 7 bytes is too short" check "$T/trunc.elf"
printf '\120\355\125\272\001\000\020\000\100\000\000\000\000\000\000\000' >"$T/over.fatbin"
head -c 64 /dev/zero >>"$T/over.fatbin"
expect_exit 2 "does not fit" info "$T/over.fatbin"
{ printf '\177ELF\002\001\001'; head -c 57 /dev/zero; } >"$T/host.elf"
expect_exit 2 "holds no device code" run "$T/host.elf" k
"$PTXVM" ptx "$T/k.ptx" >"$T/k.out" 2>"$T/err"
if cmp -s "$T/k.ptx" "$T/k.out"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: ptx of PTX text"; fi

# opcov: one line per opcodes.def row and a total; add.s32 executes, fma.oob
# does not yet, call (operands "*") is unchecked
"$B/opcov" >"$T/opcov"
rows=$(grep -c '^X(' src/ir/opcodes.def)
if grep -q "^executes  *add  *ADD_INT" "$T/opcov" && grep -q "^not yet  *fma  *FMA_OOB" "$T/opcov" &&
   grep -q "^unchecked  *call " "$T/opcov" && tail -1 "$T/opcov" | grep -q "^$rows rows: " &&
   [ "$(wc -l < "$T/opcov")" -eq $((rows + 1)) ]; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: opcov output"; fi

# binary input: refused at its first NUL, located, without reading the rest
# (check /dev/zero used to read 4 GB first); control bytes are quoted as \xNN
expect_exit 2 "/dev/zero:1:1: error: NUL byte" check /dev/zero
start=$(date +%s)
timeout 20 "$PTXVM" check - </dev/zero >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && [ $(( $(date +%s) - start )) -le 2 ] && grep -qF "<stdin>:1:1: error: NUL byte" "$T/err"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: check - </dev/zero: exit $rc, $(head -c 200 "$T/err")"; fi
printf '.version 8.0\n.target sm_90\033[31m\001\n' >"$T/ctl.ptx"
"$PTXVM" check "$T/ctl.ptx" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && ! LC_ALL=C grep -q "$(printf '[\001\033]')" "$T/err" &&
   grep -qF 'sm_90\x1b[31m\x01' "$T/err"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: control bytes in a diagnostic: $(od -c "$T/err" | head -5)"; fi

# ---- issue 20: a misspelled command or option names the nearest (exit 2) ----
expect_exit 2 "unknown option --grd; did you mean --grid?" run --grd 4 "$K"
expect_exit 2 "unknown option --chek; did you mean --check?" run --chek "$K"
expect_exit 2 "unknown option --max-stesp; did you mean --max-steps?" run --max-stesp=9 "$K"
expect_exit 2 "bad step limit" run --max-step=9x "$K"   # a unique abbreviation is the option (getopt)
expect_exit 2 "ambiguous option --s: --shared, --schedule, --stats" run --s 1 "$K"
expect_exit 2 "unknown option -x" run -x "$K"
expect_exit 2 "unknown option --frobnicate" run --frobnicate "$K"
if ! grep -q "did you mean" "$T/err"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: --frobnicate got a suggestion: $(cat "$T/err")"; fi
expect_exit 2 "unknown command rn; did you mean run?" rn "$K"
expect_exit 2 "unknown command ifno; did you mean info?" ifno "$K"
expect_exit 2 "unknown option --verison; did you mean --version?" --verison
expect_exit 2 "unknown option --hlep; did you mean --help?" check --hlep "$K"
expect_exit 2 "unknown option --stat; did you mean --stats?" exec --stat true
expect_exit 2 "check: missing FILE" check
expect_exit 2 "unexpected argument" info "$K" "$K"

# ---- issue 20: kernels by demangled name or unique prefix ----
cat > "$T/cpp.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry _Z6reducePKiPii(.param .u64 a, .param .u64 b, .param .u32 n)
{
  ret;
}
.visible .entry _Z5scalePff(.param .u64 p, .param .f32 f)
{
  ret;
}
.visible .entry _Z5scalePdd(.param .u64 p, .param .f64 f)
{
  ret;
}
PTX
C="$T/cpp.ptx"
expect_out "" run "$C" _Z6reducePKiPii -a 's32[1]:zero' -a 's32[1]:zero' -a s32:1
expect_out "" run "$C" reduce -a 's32[1]:zero' -a 's32[1]:zero' -a s32:1
expect_out "" run "$C" red -a 's32[1]:zero' -a 's32[1]:zero' -a s32:1
expect_out "" run "$C" _Z6red -a 's32[1]:zero' -a 's32[1]:zero' -a s32:1
expect_out "" run "$C" 'reduce(int const*, int*, int)' -a 's32[1]:zero' -a 's32[1]:zero' -a s32:1
expect_out "" run "$C" 'scale(double*, double)' -a 'f64[1]:zero' -a f64:2
expect_exit 2 "kernel 'scale' is ambiguous: 2 kernels match it:" run "$C" scale -a 'f32[1]:zero' -a f32:2
if grep -q "^  _Z5scalePff  scale(float\*, float)$" "$T/err" && grep -q "^  _Z5scalePdd  scale(double\*, double)$" "$T/err" &&
   ! grep -q reduce "$T/err"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: ambiguous 'scale' lists: $(cat "$T/err")"; fi
expect_exit 2 "the module has 3 kernels; name one of them:" run "$C" -a 'f32[1]:zero'
if [ "$(grep -c '^  _Z' "$T/err")" = 3 ] && grep -q "^  _Z6reducePKiPii  reduce(int const\*, int\*, int)$" "$T/err"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: unnamed kernel lists: $(cat "$T/err")"; fi
expect_exit 2 "no kernel 'sum' in the module; its kernels:" run "$C" sum
# the exact name wins over a prefix: kernel a, and ab that a prefixes
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry a()\n{\n  ret;\n}\n.visible .entry ab()\n{\n  ret;\n}\n' > "$T/ab.ptx"
expect_out "" run "$T/ab.ptx" a
expect_out "" run "$T/ab.ptx" ab
"$PTXVM" info "$C" > "$T/info"
if grep -q '^\.entry _Z6reducePKiPii: 3 params, 20 bytes  // reduce(int const\*, int\*, int)$' "$T/info"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: info shows no demangled name: $(head -1 "$T/info")"; fi

# ---- issue 20: a scalar of the wrong type is an error, not raw bits ----
expect_exit 2 "argument 2 'f32:100' does not fit parameter n, which is .u32: an integer parameter takes u or s" \
  run "$C" reduce -a 's32[1]:zero' -a 's32[1]:zero' -a f32:100
expect_exit 2 "argument 1 'u32:1' does not fit parameter f, which is .f32: a float parameter takes f" \
  run "$C" _Z5scalePff -a 'f32[1]:zero' -a u32:1
expect_exit 2 "argument 1 'f64[1]:zero' is 8 bytes but parameter f is .f32" run "$C" _Z5scalePff -a 'f32[1]:zero' -a 'f64[1]:zero'
expect_exit 2 "argument 1 'f64[1]:zero' does not fit parameter f, which is .f64: a buffer passes its address" \
  run "$C" _Z5scalePdd -a 'f64[1]:zero' -a 'f64[1]:zero'
# the same width, reinterpreted as documented: s for u, b for anything
expect_out "" run "$C" reduce -a 's32[1]:zero' -a 's32[1]:zero' -a s32:-1
expect_out "" run "$C" reduce -a 's32[1]:zero' -a 's32[1]:zero' -a b32:0xffffffff
expect_out "" run "$C" _Z5scalePff -a 'f32[1]:zero' -a b32:0x3f800000
expect_out "" run "$C" _Z5scalePff -a 'f32[1]:zero' -a f32:1.5
expect_out "" run "$C" reduce -a 'u64:0' -a 's64:0' -a u32:1

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
