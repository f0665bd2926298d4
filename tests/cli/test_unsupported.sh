#!/bin/sh
# test_unsupported.sh: docs/unsupported.md ("What ptxvm does not do yet") is
# the one generated from the opcode table (scripts/gen_unsupported.py over
# build/opcov), so it cannot drift from what ptxvm refuses.
#   sh tests/cli/test_unsupported.sh [BUILD_DIR]     (default build)
# Prints "N passed, M failed"; exits 1 on a failure.
B=${1:-build}
if python3 scripts/gen_unsupported.py --check "$B"; then echo "1 passed, 0 failed"; else
  echo "FAIL: docs/unsupported.md differs from the generated list"; echo "0 passed, 1 failed"; exit 1; fi
