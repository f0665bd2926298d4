#!/bin/sh
# run.sh: parse+validate speed and peak memory of `ptxvm check` on a
# generated ~50 MB module (bench/parse/gen.py). `make bench-parse` runs it.
#   sh bench/parse/run.sh [PTXVM] [MEGABYTES]
# Prints the file size, wall and CPU (user+sys) time, MB/s of each, peak resident set size and its
# ratio to the file size (aims: >= 50 MB/s, peak <= 10x the file).
set -e
cd "$(dirname "$0")/../.."
ptxvm=${1:-build/ptxvm}
mb=${2:-50}
out=build/bench/parse_${mb}mb.ptx
mkdir -p build/bench
if [ ! -f "$out" ] || [ bench/parse/gen.py -nt "$out" ]; then
  python3 bench/parse/gen.py "$out" "$mb"
fi
"$ptxvm" check "$out" >/dev/null   # warm the page cache; must be valid
: > build/bench/runs.txt
for i in 1 2 3; do
  /usr/bin/time -v "$ptxvm" check "$out" 2>build/bench/time.txt >/dev/null
  python3 - "$out" build/bench/time.txt <<'PY' >> build/bench/runs.txt
import os, re, sys
size = os.path.getsize(sys.argv[1])
t = open(sys.argv[2]).read()
w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", t)
wall = int(w.group(1) or 0) * 3600 + int(w.group(2)) * 60 + float(w.group(3))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) * 1024
cpu = sum(float(re.search(k + r": ([\d.]+)", t).group(1)) for k in ("User time \\(seconds\\)",
                                                                  "System time \\(seconds\\)"))
print("%d %.3f %d %.3f" % (size, wall, rss, cpu))
PY
done
python3 - build/bench/runs.txt <<'PY'
import sys
runs = [tuple(float(x) for x in l.split()) for l in open(sys.argv[1])][-3:]
size, wall, rss, cpu = min(runs, key=lambda r: r[1])
print("parse+validate: %.1f MB in %.3f s wall (best of 3): %.1f MB/s; %.3f s CPU: %.1f MB/s"
      % (size / 1e6, wall, size / 1e6 / wall, cpu, size / 1e6 / cpu))
print("peak memory: %.1f MB resident, %.1fx the file size" % (rss / 1e6, rss / size))
PY
