#!/bin/sh
# demo.sh: the README's first command: build ptxvm and run it on the shipped
# example (examples/reduce.ptx, made by nvcc from examples/reduce.cu).
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
make -s -j"$(nproc)" demo
