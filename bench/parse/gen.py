#!/usr/bin/env python3
"""gen.py: writes a large valid PTX module for the parse benchmark.

    python3 bench/parse/gen.py OUT.ptx [MEGABYTES]   (default 50)

The module is real nvcc output replicated: the bodies (everything after the
.version/.target/.address_size header) of tests/cuda/ptx/*.sm_90.ptx and
*.sm_90.lineinfo.ptx, copied again and again with every module-scope name
(functions, global variables) given a suffix _cNfM (copy N of file M), so the result is
one module of many distinct functions, as a big nvcc translation unit is.
.file directives are dropped (their indices would repeat); .loc is kept.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNC_RE = re.compile(r"^\s*(?:\.(?:visible|extern|weak)\s+)*\.(?:entry|func)\s*"
                     r"(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)")
VAR_RE = re.compile(r"^\s*(?:\.(?:visible|extern|weak)\s+)*\.(?:global|shared|const)\b[^;=\[]*?"
                    r"([A-Za-z_$%][\w$]*)\s*(?:\[|=|;)")
HEADER_RE = re.compile(r"^\s*\.(version|target|address_size|file)\b")


def template(path):
    """The body of one file with a NUL after every module-scope name."""
    names, body, depth = set(), [], 0
    for line in open(path, encoding="utf-8"):
        if depth == 0:
            if HEADER_RE.match(line):
                continue
            m = FUNC_RE.match(line) or VAR_RE.match(line)
            if m:
                names.add(m.group(1))
        depth += line.count("{") - line.count("}")
        body.append(line)
    text = "".join(body)
    if names:
        alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        text = re.sub(r"(?<![\w$%.])(" + alt + r")(?![\w$])", lambda m: m.group(1) + "\0", text)
    return text


def main():
    out = sys.argv[1]
    want = float(sys.argv[2]) * 1e6 if len(sys.argv) > 2 else 50e6
    files = sorted(glob.glob(os.path.join(ROOT, "tests/cuda/ptx/*.sm_90.ptx")) +
                   glob.glob(os.path.join(ROOT, "tests/cuda/ptx/*.sm_90.lineinfo.ptx")))
    temps = [template(f) for f in files]
    size = 0
    with open(out, "w", encoding="utf-8") as f:
        f.write("//\n// bench/parse/gen.py: nvcc output replicated with renamed symbols\n//\n\n"
                ".version 9.0\n.target sm_90\n.address_size 64\n\n")
        copy = 0
        while size < want:
            for i, t in enumerate(temps):
                s = t.replace("\0", "_c%df%d" % (copy, i))
                f.write(s)
                size += len(s)
            copy += 1
    print("%s: %.1f MB, %d copies of %d files" % (out, size / 1e6, copy, len(files)))


if __name__ == "__main__":
    main()
