#!/bin/sh
# gen.sh: regenerate bench/ptx/*.ptx from bench/*.cu (needs nvcc).
set -e
cd "$(dirname "$0")"
mkdir -p ptx
for cu in w*.cu; do
  nvcc -arch=sm_90 -ptx "$cu" -o "ptx/${cu%.cu}.ptx"
done
