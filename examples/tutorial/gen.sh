#!/bin/sh
# gen.sh: remakes sum.ptx, the PTX docs/tutorial.md runs, from sum.cu with
# the tutorial's command; the .file directive names the source "sum.cu"
# (nvcc writes its absolute path), as tests/cuda/gen.sh does.
set -e
cd "$(dirname "$0")"
nvcc -arch=sm_90 -ptx -lineinfo -o sum.ptx.tmp sum.cu
sed -e "s#\"$(pwd)/sum.cu\"#\"sum.cu\"#" sum.ptx.tmp > sum.ptx
rm -f sum.ptx.tmp
