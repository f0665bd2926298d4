#!/usr/bin/env bash
# Check that every committed PTX file in tests/cuda/ptx/ is accepted by ptxas, the oracle for valid
# PTX: NAME.sm_90a.ptx with -arch=sm_90a, every other file with -arch=sm_90.
# Prints one line per rejected file (with ptxas' messages) and a summary "N passed, M failed".
# Exit status: 0 when all pass or when ptxas is absent (with a note), 1 when any file is rejected.
# Environment: PTXAS (default ptxas), JOBS (default: number of CPUs).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
PTXAS="${PTXAS:-ptxas}"
if ! command -v "$PTXAS" >/dev/null 2>&1; then
    echo "check_ptxas.sh: ptxas not found; nothing checked." >&2
    exit 0
fi
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"

shopt -s nullglob
files=("$HERE"/ptx/*.ptx)
if [ "${#files[@]}" -eq 0 ]; then
    echo "check_ptxas.sh: no PTX files in $HERE/ptx" >&2
    echo "0 passed, 0 failed"
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

check_one() {   # check_one FILE WORKDIR -> writes WORKDIR/<base>.ok or .fail
    local f="$1" work="$2" base arch
    base="$(basename "$f")"
    case "$base" in
        *.sm_90a.ptx) arch=sm_90a ;;
        *)            arch=sm_90 ;;
    esac
    if "$PTXAS" -arch="$arch" "$f" -o "$work/$base.cubin" >"$work/$base.log" 2>&1; then
        : >"$work/$base.ok"
    else
        : >"$work/$base.fail"
    fi
    rm -f "$work/$base.cubin"
}
export -f check_one
export PTXAS

printf '%s\n' "${files[@]}" | xargs -P "$JOBS" -I{} bash -c 'check_one "$1" "$2"' _ {} "$work"

pass=0
fail=0
for f in "${files[@]}"; do
    base="$(basename "$f")"
    if [ -e "$work/$base.ok" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: tests/cuda/ptx/$base"
        sed 's/^/    /' "$work/$base.log" 2>/dev/null
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
