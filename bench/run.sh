#!/bin/sh
# run.sh: the workload benchmarks (W1-W7); see bench/run.py. `make bench` runs it.
cd "$(dirname "$0")/.." && exec python3 bench/run.py "$@"
