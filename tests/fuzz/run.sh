#!/bin/sh
# run.sh: runs the parser fuzzer (make fuzz) for SECONDS in total at low
# priority, one job, restarting it after each crash; findings go to
# build-fuzz/crashes/, the growing corpus to build-fuzz/corpus/ (seeded
# from the diag and nvcc corpora). Logs: build-fuzz/fuzz-N.log.
#   sh tests/fuzz/run.sh [SECONDS]     (default 3600)
cd "$(dirname "$0")/../.."
total=${1:-3600}
mkdir -p build-fuzz/corpus build-fuzz/crashes
end=$(( $(date +%s) + total ))
n=0
while [ "$(date +%s)" -lt "$end" ]; do
  n=$((n + 1))
  left=$(( end - $(date +%s) ))
  nice -n 19 build-fuzz/fuzz_parse -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -max_total_time="$left" -dict=tests/fuzz/ptx.dict -print_final_stats=1 \
    -artifact_prefix=build-fuzz/crashes/ \
    build-fuzz/corpus tests/cuda/ptx tests/ptx/diag > "build-fuzz/fuzz-$n.log" 2>&1
  grep -q "Test unit written" "build-fuzz/fuzz-$n.log" || break
  grep "Test unit written" "build-fuzz/fuzz-$n.log"
done
