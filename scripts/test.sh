#!/bin/sh
# test.sh: the README's second command: build everything and run every test,
# also under ASan+UBSan. The last line is "N passed, M failed".
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
make -s -j"$(nproc)" test
