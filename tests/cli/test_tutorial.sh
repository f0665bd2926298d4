#!/bin/sh
# test_tutorial.sh: every command of docs/tutorial.md, run and its output
# checked (tests/cli/tutorial.py says how; nvcc and numpy steps are skipped
# where they are missing).
#   sh tests/cli/test_tutorial.sh [BUILD_DIR]     (default build)
exec python3 "$(dirname "$0")/tutorial.py" "${1:-build}"
