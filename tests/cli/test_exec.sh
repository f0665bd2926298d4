#!/bin/sh
# test_exec.sh: `ptxvm exec [OPTIONS] [--] PROGRAM [ARGS...]` (README "ptxvm
# exec"): option errors exit 2, the options become the PTXVM_* variables the
# driver reads, the library directory goes first in LD_LIBRARY_PATH, the
# program's own arguments are not read, its exit status is passed on; a
# program built with the static CUDA runtime is refused with the fix.
#   sh tests/cli/test_exec.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
PTXVM="$B/ptxvm"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_exit CODE STDERR-SUBSTRING ARGS...
expect_exit() {
  code=$1; msg=$2; shift 2
  "$PTXVM" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = "$code" ] && grep -qF -- "$msg" "$T/err"; then ok; else
    bad "ptxvm $*: exit $rc (want $code), stderr: $(head -c 300 "$T/err") (want '$msg')"; fi
}

expect_exit 2 "no PROGRAM given" exec
# every command takes --help
"$PTXVM" exec --help >"$T/out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q "ptxvm exec \[OPTIONS\]" "$T/out"; then ok; else bad "exec --help: exit $rc"; fi
expect_exit 2 "no PROGRAM given" exec --check --
expect_exit 2 "unknown option --bogus" exec --bogus true
expect_exit 2 "-j needs an unsigned number" exec -j x true
expect_exit 2 "--max-steps needs an unsigned number" exec --max-steps -5 true
expect_exit 2 "--schedule needs an unsigned number" exec --schedule
if [ ! -e "$B/libcuda.so.1" ]; then
  # built without the toolkit's cuda.h: exec says what is missing
  expect_exit 2 "libcuda.so.1 is neither beside this executable nor in ../lib/ptxvm" exec true
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
  exit
fi
expect_exit 127 "ptxvm exec: /nonexistent/prog: No such file or directory" exec /nonexistent/prog
# ... and that line alone: no notice about nvJitLink for a program that is not there
if [ "$(wc -l <"$T/err")" = 1 ]; then ok; else bad "missing program: stderr $(cat "$T/err")"; fi
expect_exit 127 "ptxvm exec: no-such-program-ptxvm: No such file or directory" exec no-such-program-ptxvm
: >"$T/noexec"
expect_exit 126 "ptxvm exec: $T/noexec: Permission denied" exec "$T/noexec"

# the program's exit status is the command's
"$PTXVM" exec -q sh -c 'exit 7' 2>"$T/err"
rc=$?
if [ "$rc" = 7 ]; then ok; else bad "exit status $rc, want 7"; fi

# options -> environment; the program's own arguments stay its own
"$PTXVM" exec --check -j 3 --schedule 5 --async-delay 9 --max-steps 11 --stats -q -- \
  sh -c 'echo "$PTXVM_CHECK $PTXVM_JOBS $PTXVM_SCHEDULE $PTXVM_ASYNC_DELAY $PTXVM_MAX_STEPS $PTXVM_STATS $PTXVM_QUIET|$*"' \
  sh -j --check >"$T/out"
want="1 3 5 9 11 1 1|-j --check"
if [ "$(cat "$T/out")" = "$want" ]; then ok; else bad "environment: $(cat "$T/out") (want $want)"; fi

# the directory of ptxvm's libcuda.so.1 first in LD_LIBRARY_PATH, the old value kept after it
dir=$(cd "$B" && pwd -P)
got=$(LD_LIBRARY_PATH=/old/lib "$PTXVM" exec -q sh -c 'echo "$LD_LIBRARY_PATH"')
if [ "$got" = "$dir:/old/lib" ]; then ok; else bad "LD_LIBRARY_PATH=$got (want $dir:/old/lib)"; fi
got=$(env -u LD_LIBRARY_PATH "$PTXVM" exec -q sh -c 'echo "$LD_LIBRARY_PATH"')
if [ "$got" = "$dir" ]; then ok; else bad "LD_LIBRARY_PATH=$got (want $dir)"; fi

# a program with device code but without libcudart.so among its needed
# libraries (nvcc's default static runtime) is refused, with the fix, exit 1;
# the same program needing the shared runtime is started
cat > "$T/dev.c" <<'C'
__attribute__((section(".nv_fatbin"), used)) static const unsigned char fatbin[16] = {0x50, 0xed, 0x55, 0xba};
int main(void) { return 3; }
C
if cc -o "$T/static-app" "$T/dev.c" 2>"$T/cc.err"; then
  expect_exit 1 "is linked with the static CUDA runtime, which ptxvm cannot serve: rebuild it with \`nvcc -cudart shared\` (CMake: CUDA_RUNTIME_LIBRARY Shared)" exec "$T/static-app"
  if [ -e "$B/libcudart.so.13" ]; then
    cc -o "$T/shared-app" "$T/dev.c" -Wl,--no-as-needed -L"$B" -l:libcudart.so.13 2>"$T/cc.err"
    "$PTXVM" exec "$T/shared-app" 2>"$T/err"
    rc=$?
    if [ "$rc" = 3 ]; then ok; else bad "a program needing libcudart.so.13: exit $rc ($(head -c 200 "$T/err"))"; fi
  fi
  # without device code: started whatever it links
  cc -o "$T/plain" -x c - <<'C'
int main(void) { return 4; }
C
  "$PTXVM" exec "$T/plain"
  rc=$?
  if [ "$rc" = 4 ]; then ok; else bad "a plain program: exit $rc"; fi
else
  bad "cc: $(head -c 200 "$T/cc.err")"
fi

# nvJitLink hidden (README "Python"): the two placeholders last in LD_PRELOAD,
# after the user's; ASan's link-order check off, after the user's options;
# the notice once; -q and PTXVM_QUIET=1 silence it; --keep-nvjitlink leaves all as it was
hid="$dir/nvjitlink/libnvJitLink.so.13:$dir/nvjitlink/libnvJitLink.so.12"
env -u LD_PRELOAD -u ASAN_OPTIONS "$PTXVM" exec sh -c 'echo "$LD_PRELOAD|$ASAN_OPTIONS"' >"$T/out" 2>"$T/err"
want="$hid|verify_asan_link_order=0"
if [ "$(cat "$T/out")" = "$want" ]; then ok; else bad "hidden: $(cat "$T/out") (want $want)"; fi
n=$(grep -c "^ptxvm exec: nvJitLink hidden, so CUDA Python links PTX with the driver's cuLink\*" "$T/err")
if [ "$n" = 1 ]; then ok; else bad "nvJitLink notice $n times: $(head -c 300 "$T/err")"; fi
LD_PRELOAD=/u.so ASAN_OPTIONS=a=1 "$PTXVM" exec -q sh -c 'echo "$LD_PRELOAD|$ASAN_OPTIONS"' >"$T/out" 2>"$T/err"
want="/u.so:$hid|a=1:verify_asan_link_order=0"
if [ "$(cat "$T/out")" = "$want" ] && ! grep -q nvJitLink "$T/err"; then ok; else
  bad "hidden after the user's: $(cat "$T/out") (want $want), stderr $(head -c 200 "$T/err")"; fi
PTXVM_QUIET=1 "$PTXVM" exec true 2>"$T/err"
if [ ! -s "$T/err" ]; then ok; else bad "PTXVM_QUIET=1: stderr $(head -c 200 "$T/err")"; fi
LD_PRELOAD=/u.so ASAN_OPTIONS=a=1 "$PTXVM" exec --keep-nvjitlink sh -c 'echo "$LD_PRELOAD|$ASAN_OPTIONS"' \
  >"$T/out" 2>"$T/err"
if [ "$(cat "$T/out")" = "/u.so|a=1" ] && ! grep -q nvJitLink "$T/err"; then ok; else
  bad "--keep-nvjitlink: $(cat "$T/out"), stderr $(head -c 200 "$T/err")"; fi
# what cuda.pathfinder asks (a library loaded under the soname) finds the
# placeholder, which lacks __nvJitLinkVersion, so cuda.core uses cuLink*
if command -v python3 >/dev/null; then
  probe='import ctypes, os
h = ctypes.CDLL("libnvJitLink.so.13", os.RTLD_NOLOAD)
g = ctypes.CDLL("libnvJitLink.so.12", os.RTLD_NOLOAD)
print(hasattr(h, "ptxvm_nvjitlink_hidden"), hasattr(h, "__nvJitLinkVersion"), hasattr(g, "nvJitLinkCreate"))'
  got=$("$PTXVM" exec -q python3 -c "$probe" 2>&1)
  if [ "$got" = "True False False" ]; then ok; else bad "placeholder probe: $got (want True False False)"; fi
fi
# a program with gcc's dynamic ASan runtime still runs with the placeholder preloaded
if printf 'int main(void) { return 3; }\n' >"$T/a.c" && cc -fsanitize=address -o "$T/asan" "$T/a.c" 2>/dev/null; then
  "$PTXVM" exec -q "$T/asan" 2>"$T/err"
  rc=$?
  if [ "$rc" = 3 ]; then ok; else bad "ASan program under exec: exit $rc, $(head -c 300 "$T/err")"; fi
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
