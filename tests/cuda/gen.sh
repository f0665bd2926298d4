#!/usr/bin/env bash
# Regenerate the committed PTX of the real-input CUDA corpus: tests/cuda/*.cu -> tests/cuda/ptx/.
#
# For every NAME.cu this writes four variants:
#   ptx/NAME.sm_90.ptx            nvcc -arch=sm_90  -ptx            (optimised, the main input)
#   ptx/NAME.sm_90a.ptx           nvcc -arch=sm_90a -ptx            (arch-specific target; .target sm_90a)
#   ptx/NAME.sm_90.G.ptx          nvcc -arch=sm_90  -ptx -G         (device debug: unoptimised, .loc/.file, DWARF sections)
#   ptx/NAME.sm_90.lineinfo.ptx   nvcc -arch=sm_90  -ptx -lineinfo  (optimised + .loc/.file)
# Every variant is possible for every file at present (nothing is skipped; the CUB files' -G output
# is the largest, but the whole tree stays well under the size budget: see the summary it prints).
# To skip a variant for one file, add "NAME:VARIANT" to SKIP below with a comment saying why.
#
# Where nvcc is absent the script says so and exits 0 without touching anything.
#
# Determinism: the output depends only on the .cu files and the toolkit version, not on where the
# repository is checked out.  Three things would otherwise embed the checkout path:
#   * cicc derives the hash in internal-linkage symbol names (_ZN..._INTERNAL_<hash>_...) from the
#     real path of the source; we pass it a fixed, repository-relative path instead
#     (-Xcicc --orig_src_path_name tests/cuda/NAME.cu; the later option wins over nvcc's own);
#   * -G writes the working directory into the DWARF .debug_info bytes (DW_AT_comp_dir, taken from
#     $PWD when it names the working directory) and every later string offset depends on its length;
#     so we compile through a symbolic link at the fixed path $LINK_DIR (below) that points to this
#     directory, serialised with flock because the link is shared by all checkouts on the machine.
#     That fixed path is the only non-toolkit path left in the output, and only in -G DWARF bytes;
#   * the .file directives (-G / -lineinfo) name the source by that path; we rewrite it to the
#     repository-relative "tests/cuda/NAME.cu".
# Toolkit header paths (/usr/local/cuda-*/include/...) are left as they are.
#
# Usage: tests/cuda/gen.sh [NAME ...]     (default: every tests/cuda/*.cu)
# Environment: NVCC (default nvcc), JOBS (default: number of CPUs).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
NVCC="${NVCC:-nvcc}"
if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "gen.sh: nvcc not found; the committed PTX in tests/cuda/ptx/ is left as it is." >&2
    exit 0
fi

JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"
LINK_ROOT=/tmp/ptxvm-cuda-gen
LINK_DIR=$LINK_ROOT/tests/cuda
COMMON=(-ptx -std=c++17 -I/usr/local/cuda/include)
# CCCL (CUB, libcu++, cuda::barrier/pipeline/ptx) ships with the toolkit; nvcc adds its include
# directory (include/cccl in CUDA 13) by itself, but name it too so an older layout still works.
CUDA_INC="$(dirname "$(dirname "$(command -v "$NVCC")")")/include"
[ -d "$CUDA_INC/cccl" ] && COMMON+=(-I"$CUDA_INC/cccl")

# NAME:VARIANT pairs not generated (none at present).
SKIP=()

VARIANTS=(sm_90 sm_90a sm_90.G sm_90.lineinfo)

flags_for() {
    case "$1" in
        sm_90)          echo "-arch=sm_90" ;;
        sm_90a)         echo "-arch=sm_90a" ;;
        sm_90.G)        echo "-arch=sm_90 -G" ;;
        sm_90.lineinfo) echo "-arch=sm_90 -lineinfo" ;;
    esac
}

one() {   # one NAME VARIANT
    local name="$1" var="$2"
    local out="$HERE/ptx/$name.$var.ptx"
    local tmp="$HERE/ptx/.$name.$var.ptx.tmp"
    # shellcheck disable=SC2046
    (cd "$LINK_DIR" && "$NVCC" $(flags_for "$var") "${COMMON[@]}" \
        -Xcicc --orig_src_path_name -Xcicc "tests/cuda/$name.cu" \
        "$name.cu" -o "$tmp")
    # repository-relative .file paths
    sed -e "s#\"$LINK_DIR/#\"tests/cuda/#g" -e "s#\"$HERE/#\"tests/cuda/#g" "$tmp" > "$tmp.2"
    rm -f "$tmp"
    mv -f "$tmp.2" "$out"
}
export -f one flags_for
export HERE NVCC LINK_DIR
export COMMON_STR="${COMMON[*]}"

if [ "$#" -gt 0 ]; then
    NAMES=("$@")
else
    NAMES=()
    for f in "$HERE"/*.cu; do NAMES+=("$(basename "$f" .cu)"); done
fi

mkdir -p "$HERE/ptx" "$LINK_ROOT/tests"
exec 9>"$LINK_ROOT.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
ln -sfn "$HERE" "$LINK_DIR"
[ "$(cd "$LINK_DIR" && pwd -P)" = "$HERE" ] || { echo "gen.sh: cannot point $LINK_DIR at $HERE" >&2; exit 1; }
jobs_list=()
for n in "${NAMES[@]}"; do
    [ -f "$HERE/$n.cu" ] || { echo "gen.sh: no such source: $n.cu" >&2; exit 2; }
    for v in "${VARIANTS[@]}"; do
        skip=0
        for s in "${SKIP[@]+"${SKIP[@]}"}"; do [ "$s" = "$n:$v" ] && skip=1; done
        [ "$skip" = 1 ] && continue
        jobs_list+=("$n $v")
    done
done

# bash arrays do not cross into xargs' children; pass COMMON through a string.
printf '%s\n' "${jobs_list[@]}" | xargs -P "$JOBS" -L 1 bash -c '
    set -euo pipefail
    read -r -a COMMON <<< "$COMMON_STR"
    one "$0" "$1"
'

echo "gen.sh: $(ls "$HERE"/ptx/*.ptx | wc -l) PTX files, $(du -cb "$HERE"/ptx/*.ptx | tail -1 | cut -f1) bytes in tests/cuda/ptx/"
