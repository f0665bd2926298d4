#!/bin/sh
# deps.sh: installs what building and testing ptxvm needs, from Debian's
# packages, when it is missing (a fresh Debian 12 machine has none of it).
set -e
need=""
command -v cc >/dev/null 2>&1 || need="$need gcc libc6-dev"
command -v make >/dev/null 2>&1 || need="$need make"
command -v python3 >/dev/null 2>&1 || need="$need python3"
# tests/python: numpy, for python3 or Debian's own
python3 -c 'import numpy' >/dev/null 2>&1 || /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 ||
  need="$need python3-numpy"
# tests/install: a host program built with pkg-config
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
# zstd and LZ4, which decompress the PTX in fatbins (src/fatbin/)
for h in zstd:libzstd-dev lz4:liblz4-dev; do
  if ! echo "#include <${h%%:*}.h>" | cc -E -x c - >/dev/null 2>&1; then need="$need ${h#*:}"; fi
done
# ASan/UBSan runtimes for the sanitizer half of the test suite
if ! echo 'int main(void){return 0;}' | cc -fsanitize=address,undefined -x c - -o /tmp/ptxvm-san-probe >/dev/null 2>&1; then
  need="$need libasan8 libubsan1"
fi
rm -f /tmp/ptxvm-san-probe
# clang with libFuzzer and its sanitizer runtimes: the suite's fuzz run (make fuzz)
probe='#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }'
if ! echo "$probe" | clang -fsanitize=fuzzer,address,undefined -x c - -o /tmp/ptxvm-fuzz-probe >/dev/null 2>&1; then
  need="$need clang libclang-rt-dev"
fi
rm -f /tmp/ptxvm-fuzz-probe
if [ -n "$need" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: please install:$need" >&2
    exit 1
  fi
  echo "deps.sh: installing$need" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
