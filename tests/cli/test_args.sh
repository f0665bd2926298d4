#!/bin/sh
# test_args.sh: the argument specs of issue 20 (docs/cli.md "Struct
# arguments", "Small float types", "--schedules"): what a struct argument
# lays out and refuses, f16/bf16/e4m3/e5m2 parsed and printed as numbers,
# and --schedules telling a racy kernel from a synchronized one.
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
expect_exit 2 "argument 1 '{u64:0, u32:0}' lays out 16 bytes" \
  run "$S" -a '{u64:1, u64:2, u64:3}' -a '{u64:0, u32:0}' -a 'u8[24]:zero'
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
expect_exit 2 "-o 4: there is no argument 4 (3 given with -a, numbered from 0, then the inline buffers)" \
  run "$S" -a '{u32[3]:6,7,8, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 4
expect_exit 2 "-o 0: argument 0 is not a buffer" run "$S" -a '{u32[3]:iota, u64:2, u64:3}' -a '{u32:0, u32:0, u32:0}' -a 'u8[24]:zero' -o 0

# ---- small float types ----

# ---- --schedules ----

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
