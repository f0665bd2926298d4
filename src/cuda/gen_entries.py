#!/usr/bin/env python3
"""gen_entries.py: writes src/cuda/entries.def, the driver's table of entry
points, from the CUDA toolkit's headers (run where they exist; the output is
committed, so builds do not need this script):

    python3 src/cuda/gen_entries.py [CUDA_HOME] > src/cuda/entries.def
    python3 src/cuda/gen_entries.py --errors [CUDA_HOME] > src/cuda/errors.def

cudaTypedefs.h (and cudaProfilerTypedefs.h, for cuProfiler*) names one
PFN_<name>_v<version>[_ptds|_ptsz] typedef per ABI variant of every driver
entry point: the (name, version, stream flavour)
triples cuGetProcAddress serves. The C symbol of each variant: for the newest
one of a name, what cuda.h #defines the name to (with
CUDA_API_PER_THREAD_DEFAULT_STREAM for the _ptds/_ptsz flavour); for older
ones NAME, NAME_v2, NAME_v3 ... in version order, as the driver names them
(cuCtxCreate 2000/3020/11040/12050: cuCtxCreate, _v2, _v3, _v4)."""
import collections
import os
import re
import subprocess
import sys
import tempfile

args = [a for a in sys.argv[1:] if a != "--errors"]
home = args[0] if args else "/usr/local/cuda"
inc = os.path.join(home, "include")
if "--errors" in sys.argv:
    # the CUresult names, for cuGetErrorName; cuGetErrorString words them
    cu = open(os.path.join(inc, "cuda.h")).read()
    enum = cu[cu.index("typedef enum cudaError_enum"):]
    enum = enum[:enum.index("} CUresult;")]
    print("/* errors.def: R(NAME), every CUresult of CUDA 13.0's cuda.h. Written by")
    print(" * src/cuda/gen_entries.py --errors; do not edit by hand. */")
    for n in re.findall(r"^\s*(CUDA_\w+)\s*=", enum, re.M):
        print("R(%s)" % n)
    sys.exit(0)
# cudaProfilerTypedefs.h: cuProfilerStart/Stop, which cuda.bindings asks for too
text = "".join(open(os.path.join(inc, h)).read() for h in ("cudaTypedefs.h", "cudaProfilerTypedefs.h"))
rows = set(re.findall(r"\*PFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\)", text))

groups = collections.defaultdict(list)
for name, ver, kind in rows:
    groups[(name, kind)].append(int(ver))


def expand(names, per_thread):
    """What cuda.h's #defines make of each name."""
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write("#include <cuda.h>\n")
        for n in names:
            f.write("@@ %s\n" % n)
    args = ["cc", "-E", "-I", inc, f.name] + (["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"] if per_thread else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    got = re.findall(r"^@@ (\w+)", out, re.M)
    return dict(zip(names, got))


def declared(per_thread):
    args = ["cc", "-E", "-I", inc, "-x", "c", "-"] + (["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"] if per_thread else [])
    out = subprocess.run(args, input="#include <cuda.h>\n#include <cudaProfiler.h>\n", capture_output=True, text=True,
                         check=True).stdout
    return set(re.findall(r"\bCUresult\s+(cu\w+)\s*\(", out))


# cuda.h maps cuGraphInstantiate to cuGraphInstantiateWithFlags (a name of its
# own, 11040), while the 11000 variant is the 5-argument cuGraphInstantiate_v2.
EXCEPT = {("cuGraphInstantiate", 11000): "cuGraphInstantiate_v2"}
names = sorted({n for n, _ in groups})
plain, pt = expand(names, False), expand(names, True)
decl = declared(False) | declared(True)
print("/* entries.def: every CUDA driver entry point, one row per ABI variant:")
print(" *   E(NAME, VERSION, FLAVOUR, SYMBOL)")
print(" * NAME as cuGetProcAddress is asked for it, the CUDA VERSION that introduced")
print(" * the variant, FLAVOUR PLAIN or PTDS/PTSZ (the per-thread default stream")
print(" * variant, cuGetProcAddress flag CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),")
print(" * and the exported C SYMBOL. Written by src/cuda/gen_entries.py from CUDA")
print(" * 13.0's cudaTypedefs.h, cudaProfilerTypedefs.h and cuda.h; do not edit by hand. */")
seen = set()
for (name, kind) in sorted(groups):
    vers = sorted(groups[(name, kind)])
    suffix = kind
    for i, v in enumerate(vers):
        sym = (name if i == 0 else "%s_v%d" % (name, i + 1)) + suffix
        e = (pt if kind else plain)[name]
        base = e[:-len(kind)] if kind and e.endswith(kind) else e
        if i == len(vers) - 1 and base != name and (not kind or e.endswith(kind)):
            sym = e   # cuda.h's mapping of the name (cuMemcpyHtoD -> cuMemcpyHtoD_v2_ptds)
        sym = EXCEPT.get((name, v), sym)
        if i == len(vers) - 1 and sym not in decl:
            print("gen_entries: %s (newest %s%s) is not declared by cuda.h" % (sym, name, kind), file=sys.stderr)
        dup = sym in seen
        seen.add(sym)
        flav = {"": "PLAIN", "_ptds": "PTDS", "_ptsz": "PTSZ"}[kind]
        print("%s(%s, %d, %s, %s)" % ("A" if dup else "E", name, v, flav, sym))
