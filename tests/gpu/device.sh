#!/bin/sh
# device.sh: on a machine with an NVIDIA GPU (sm_90 for the cluster and
# mbarrier tests), build gpurun and record every conformance launch on it:
#   sh tests/gpu/device.sh OUT_DIR
# writes OUT_DIR/sm90_truth.json and OUT_DIR/log.txt (tests/gpu/README.md).
set -u
out=${1:?usage: device.sh OUT_DIR}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cuda=$(dirname "$(dirname "$nvcc")")
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  make -j"$(nproc)" build/ptxvm >/dev/null && make gpurun CUDA_HOME="$cuda" >/dev/null || exit 1
  ./build/gpurun -b 256 -g 4 -a 's32[1024]:iota' -a 's32[4]:zero' -a s32:1024 -o 1 \
    examples/reduce.ptx 2>&1
  PYTHONUNBUFFERED=1 python3 tests/gpu/record.py build/gpurun "$out/sm90_truth.json" \
    --timeout 5 --jobs 12
} 2>&1 | tee "$out/log.txt"
