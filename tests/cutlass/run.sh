#!/bin/sh
# run.sh: CUTLASS 3 sm90 GEMMs (tests/cutlass/gemm_sm90.cu, cp.async or TMA
# mainloop + wgmma, each warp-specialized schedule) built by nvcc -arch=sm_90a against
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
# NAME or NAME@2: the schedule, in a 2x1 cluster (TMA multicast of B) with @2
for v in KernelCpAsyncWarpSpecialized KernelCpAsyncWarpSpecializedCooperative KernelCpAsyncWarpSpecializedPingpong \
         KernelTmaWarpSpecialized KernelTmaWarpSpecializedCooperative KernelTmaWarpSpecializedPingpong \
         KernelTmaWarpSpecialized@2; do
  s=${v%@*}; cm=1; [ "$v" = "$s" ] || cm=${v#*@}
  exe="$OUT/gemm_${s}_c$cm"
  if [ ! -x "$exe" ] || [ "$ROOT/tests/cutlass/gemm_sm90.cu" -nt "$exe" ]; then
    "$NVCC" -std=c++17 -arch=sm_90a -O1 --expt-relaxed-constexpr -cudart shared -DSCHEDULE=$s -DCLUSTER_M=$cm \
      -I"$CUTLASS_DIR/include" -I"$CUTLASS_DIR/tools/util/include" \
      "$ROOT/tests/cutlass/gemm_sm90.cu" -o "$exe" 2>"$OUT/nvcc_$s.log" ||
      { echo "FAIL: $s does not build (see $OUT/nvcc_$s.log)"; fail=1; continue; }
  fi
  for opt in "" --check; do
    if out=$("$B/ptxvm" exec $opt "$exe" 2>"$OUT/stderr_$s$opt.txt") && echo "$out" | grep -q "^ok:"; then
      echo "pass: $v $opt: $out"
    else
      echo "FAIL: $v $opt: $out"; sed -n 1,5p "$OUT/stderr_$s$opt.txt" | cut -c1-300; fail=1
    fi
  done
done
exit $fail
