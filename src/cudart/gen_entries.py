#!/usr/bin/env python3
"""gen_entries.py: writes src/cudart/entries.def (the runtime's table of
exported functions) and src/cudart/exports.map (its version script) from the
CUDA toolkit (run where it is installed; the output is committed, so builds
do not need this script):

    python3 src/cudart/gen_entries.py [CUDA_HOME]            # both files
    python3 src/cudart/gen_entries.py --errors [CUDA_HOME] > src/cudart/errors.def

The names are the toolkit's libcudart.so.13 dynamic symbols (nm -D
--with-symbol-versions), each exported under the version that library gives
it, so a program linked against NVIDIA's runtime finds every symbol in
ptxvm's; cuda_runtime_api.h (preprocessed as C) gives each function's return
type, the registration calls' come from crt/host_runtime.h. Rows:
  E(SYMBOL)           returns cudaError_t: a stub when not implemented
  O(SYMBOL)           returns something else: must be implemented (the
                      library does not link without it)
  P(SYMBOL, BASE)     a _ptds/_ptsz variant, the same function as BASE
                      (ptxvm's work runs in issue order on the calling thread)
  U(SYMBOL)           undocumented (in no header): a stub"""
import os
import re
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
home = args[0] if args else "/usr/local/cuda"
inc = os.path.join(home, "include")

if "--errors" in sys.argv:
    # every cudaError_t of driver_types.h, for cudaGetErrorName/String
    text = open(os.path.join(inc, "driver_types.h")).read()
    enum = text[text.index("enum __device_builtin__ cudaError"):]
    enum = enum[:enum.index("};")]
    print("/* errors.def: R(NAME, VALUE), every cudaError_t of CUDA 13.0's driver_types.h.")
    print(" * Written by src/cudart/gen_entries.py --errors; do not edit by hand. */")
    for n, v in re.findall(r"^\s*(cuda\w+)\s*=\s*(\d+)", enum, re.M):
        print("R(%s, %s)" % (n, v))
    sys.exit(0)

lib = os.path.join(home, "lib64", "libcudart.so.13")
nm = subprocess.run(["nm", "-D", "--with-symbol-versions", "--defined-only", lib],
                    capture_output=True, text=True, check=True).stdout
syms = {}
for line in nm.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "TW" and "@@" in parts[2]:
        name, ver = parts[2].split("@@")
        syms[name] = ver
versions = sorted(set(syms.values()))

pre = subprocess.run(["cc", "-E", "-I", inc, "-x", "c", "-"], input="#include <cuda_runtime_api.h>\n",
                     capture_output=True, text=True, check=True).stdout.replace("\n", " ")
# a deprecated function (cudaGetDriverEntryPoint, ...) is still in the header
pre = pre.replace("__attribute__((deprecated))", "")
ret = {n: r.strip() for r, n in re.findall(r"extern\s+([^;(]*?)\b((?:__)?cuda\w+)\s*\(", pre)}
# the calls nvcc's generated code makes (crt/host_runtime.h, crt/device_functions.h)
crt = open(os.path.join(inc, "crt", "host_runtime.h")).read() + open(os.path.join(inc, "crt", "device_functions.h")).read()
for r, n in re.findall(r"extern\s+(?:\"C\"\s+)?([^;(]*?)\b(__cuda\w+)\s*\(", crt):
    r = re.sub(r"\b(CUDARTAPI|__host__|__device__|__cudart_builtin__)\b", "", r).strip()
    ret.setdefault(n, r)

e_out = ["/* entries.def: every function of the toolkit's libcudart.so.13, one row each",
         " * (E: returns cudaError_t; O: returns something else, implemented; P: a",
         " * per-thread default stream variant of BASE; U: in no header). Written by",
         " * src/cudart/gen_entries.py from CUDA 13.0's libcudart.so.13 and headers; do",
         " * not edit by hand. */"]
for n in sorted(syms):
    m = re.match(r"(\w+?)_(ptds|ptsz)$", n)
    if m and m.group(1) in syms:
        e_out.append("P(%s, %s)" % (n, m.group(1)))
    elif n not in ret:
        e_out.append("U(%s)" % n)
    elif ret[n] == "cudaError_t":
        e_out.append("E(%s)" % n)
    else:
        e_out.append("O(%s)" % n)
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "entries.def"), "w") as f:
    f.write("\n".join(e_out) + "\n")
with open(os.path.join(here, "exports.map"), "w") as f:
    f.write("/* exports.map: libcudart.so.13's symbols under the versions the toolkit's\n")
    f.write(" * library gives them. Written by src/cudart/gen_entries.py; do not edit. */\n")
    for v in versions:
        f.write("%s {\n  global:\n" % v)
        for n in sorted(s for s in syms if syms[s] == v):
            f.write("    %s;\n" % n)
        f.write("  local: *;\n};\n" if v == versions[-1] else "};\n")
