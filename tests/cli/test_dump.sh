#!/bin/sh
# test_dump.sh: `ptxvm check --dump-lowered FILE [KERNEL]` (README "Command
# line"; src/lower/dump.c): the lowered code of each tests/cli/dump/NAME.ptx
# must be NAME.dump exactly (NAME.KERNEL.dump: of that function only). The
# goldens were checked by hand against the PTX (register and constant slots
# in declaration order, branch targets, guards, handlers by name); a change
# to lowering that moves them is reviewed the same way, never just copied.
# Also: an unknown function, a file that does not parse, an image and a
# missing file exit 2 with a message.
#   sh tests/cli/test_dump.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
PTXVM="$B/ptxvm"
D=$(dirname "$0")/dump
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

for golden in "$D"/*.dump; do
  base=$(basename "$golden" .dump)
  name=${base%%.*}
  kernel=${base#"$name"}
  kernel=${kernel#.}
  if "$PTXVM" check --dump-lowered "$D/$name.ptx" $kernel > "$T/out" 2> "$T/err" &&
     cmp -s "$golden" "$T/out"; then ok; else
    bad "dump of $name.ptx${kernel:+ $kernel} differs from $golden:"
    diff "$golden" "$T/out" | head -20; cat "$T/err"; fi
done

# expect_fail STDERR-SUBSTRING ARGS...: exit 2 and the message
expect_fail() {
  msg=$1; shift
  "$PTXVM" check --dump-lowered "$@" > "$T/out" 2> "$T/err"
  rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$msg" "$T/err" && [ ! -s "$T/out" ]; then ok; else
    bad "check --dump-lowered $*: exit $rc (want 2), stderr: $(head -2 "$T/err")"; fi
}
expect_fail "has no function 'nope'" "$D/basic.ptx" nope
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  frob.u32 %%r1;\n}\n' > "$T/bad.ptx"
expect_fail "bad.ptx:6:3: error:" "$T/bad.ptx"
expect_fail "cannot read" "$T/missing.ptx"
printf '\177ELF\002\001\001\000' > "$T/img"
head -c 200 /dev/zero >> "$T/img"
"$PTXVM" check --dump-lowered "$T/img" > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "an ELF file: exit status not 2"
# the plain check is unchanged by the option's existence
"$PTXVM" check "$D/basic.ptx" > "$T/out" 2>&1 && [ ! -s "$T/out" ] && ok || bad "plain check of basic.ptx"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
