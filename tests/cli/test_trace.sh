#!/bin/sh
# test_trace.sh: `ptxvm run --trace FILE.json` (docs/cli.md): the events of
# tests/trace/timeline.ptx checked by tests/trace/check_trace.py, and the
# "screenshot": the trace rendered as a text timeline (tests/trace/render.py)
# equals the committed tests/trace/timeline.txt; and exec --trace.
#   sh tests/cli/test_trace.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
out=$(python3 tests/trace/check_trace.py "$B/ptxvm")
echo "$out" | grep FAIL
p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
pass=$((pass + ${p% *}))
fail=$((fail + ${p#* }))
[ -n "$p" ] || { fail=$((fail + 1)); echo "FAIL: check_trace.py: $out"; }
"$B/ptxvm" run tests/trace/timeline.ptx -g 2 -b 64 -a 'u32[128]:iota' -a 'u32[4]:zero' -q --trace "$T/t.json" >/dev/null
if python3 tests/trace/render.py "$T/t.json" >"$T/t.txt" && diff -u tests/trace/timeline.txt "$T/t.txt"; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: the rendered timeline differs from tests/trace/timeline.txt"; fi
# exec --trace: each launch of a program on ptxvm's driver gets its file ("%n")
if [ -x "$B/driver-tests/launch" ]; then
  if "$B/ptxvm" exec -q --trace "$T/e-%n.json" "$B/driver-tests/launch" >/dev/null 2>&1 &&
     python3 -c 'import glob, json, sys
fs = glob.glob(sys.argv[1] + "/e-*.json")
assert fs and "e-1.json" in " ".join(fs), fs
for f in fs:
    assert any(e["ph"] == "X" for e in json.load(open(f))["traceEvents"]), f' "$T"; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: exec --trace FILE-%n.json: no valid trace per launch"; fi
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
