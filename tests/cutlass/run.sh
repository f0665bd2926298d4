#!/bin/sh
# run.sh: CUTLASS 3 sm90 GEMMs (tests/cutlass/gemm_sm90.cu, cp.async or TMA
# mainloop + wgmma, each warp-specialized schedule) and a CUTLASS 2.x sm80
# GEMM (gemm_sm80.cu, mma.sync) built by nvcc -arch=sm_90a / sm_80 against
# CUTLASS's headers and run under `ptxvm exec` (and `ptxvm exec --check`, which
# must find nothing). Heavy (nvcc spends minutes on CUTLASS's templates), so
# it is `make cutlass-test`, not part of `make test`.
#
#   sh tests/cutlass/run.sh [BUILD]      # BUILD: ptxvm's build folder (build)
#
# CUTLASS: $CUTLASS_DIR (holding include/cute, include/cutlass and
# tools/util/include), else the headers of PyPI's nvidia-cutlass, fetched once
# with pip into BUILD/cutlass. Exit 0: every GEMM printed "ok" with no finding.
set -eu
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$B/cutlass"
mkdir -p "$OUT"
if [ -z "${CUTLASS_DIR:-}" ]; then
  CUTLASS_DIR="$OUT/cutlass_library/source"
  if [ ! -d "$CUTLASS_DIR/include/cute" ]; then
    pip download --no-deps -d "$OUT" nvidia-cutlass >/dev/null
    (cd "$OUT" && python3 -m zipfile -e nvidia_cutlass-*.whl .)
  fi
fi
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || { echo "SKIP: no nvcc"; exit 0; }
fail=0
# build SRC ARCH EXE [DEFINES...] (skipped when EXE is newer than SRC), then
# run EXE under ptxvm exec and exec --check; NAME labels the output
run() {
  name=$1 src=$2 arch=$3 exe=$4; shift 4
  if [ ! -x "$exe" ] || [ "$ROOT/tests/cutlass/$src" -nt "$exe" ]; then
    "$NVCC" -std=c++17 -arch=$arch -O1 --expt-relaxed-constexpr -cudart shared "$@" \
      -I"$CUTLASS_DIR/include" -I"$CUTLASS_DIR/tools/util/include" \
      "$ROOT/tests/cutlass/$src" -o "$exe" 2>"$OUT/nvcc_$name.log" ||
      { echo "FAIL: $name does not build (see $OUT/nvcc_$name.log)"; fail=1; return; }
  fi
  for opt in "" --check; do
    if out=$("$B/ptxvm" exec $opt "$exe" 2>"$OUT/stderr_$name$opt.txt") && echo "$out" | grep -q "^ok:"; then
      echo "pass: $name $opt: $out"
    else
      echo "FAIL: $name $opt: $out"; sed -n 1,5p "$OUT/stderr_$name$opt.txt" | cut -c1-300; fail=1
    fi
  done
}
run Sm80Gemm gemm_sm80.cu sm_80 "$OUT/gemm_sm80"
# NAME or NAME@2: the schedule, in a 2x1 cluster (TMA multicast of B) with @2
for v in KernelCpAsyncWarpSpecialized KernelCpAsyncWarpSpecializedCooperative KernelCpAsyncWarpSpecializedPingpong \
         KernelTmaWarpSpecialized KernelTmaWarpSpecializedCooperative KernelTmaWarpSpecializedPingpong \
         KernelTmaWarpSpecialized@2; do
  s=${v%@*}; cm=1; [ "$v" = "$s" ] || cm=${v#*@}
  run "$v" gemm_sm90.cu sm_90a "$OUT/gemm_${s}_c$cm" -DSCHEDULE=$s -DCLUSTER_M=$cm
done
exit $fail
