#!/bin/sh
# gen.sh: regenerate bench/ptx/*.ptx from bench/*.cu (needs nvcc).
set -e
cd "$(dirname "$0")"
mkdir -p ptx
for cu in w*.cu; do
  arch=sm_90
  case "$cu" in w7_*) arch=sm_90a ;; esac   # wgmma is sm_90a's
  nvcc -arch=$arch -ptx "$cu" -o "ptx/${cu%.cu}.ptx"
done
