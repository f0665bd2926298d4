#!/usr/bin/env bash
# Rebuild the CPU reference and regenerate tests/cuda/MANIFEST from it.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
CC="${CC:-cc}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$CC" -std=gnu11 -O1 -frounding-math -ffp-contract=off -Wall -Wextra -o "$tmp/ref" "$HERE/ref.c" -lm
"$tmp/ref" > "$tmp/MANIFEST"
mv -f "$tmp/MANIFEST" "$HERE/../MANIFEST"
echo "wrote tests/cuda/MANIFEST ($(grep -vc '^#' "$HERE/../MANIFEST") launch lines)"
