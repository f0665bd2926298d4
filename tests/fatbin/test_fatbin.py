#!/usr/bin/env python3
"""test_fatbin.py: ptxvm reads the PTX of what nvcc builds (issue 14,
"Device code in executables").

    python3 tests/fatbin/test_fatbin.py BUILD [BUILD...]   (e.g. build build-san)

Builds small CUDA programs with nvcc in a temporary directory (nvcc must be
on PATH or in /usr/local/cuda/bin; run.py skips this test without it): the
default build (zstd; an executable of two translation units), --compress-mode=speed (LZ4), --compress-mode=none,
-arch=compute_90, SASS only (and a cubin), -arch=sm_90a, -rdc=true (two objects
linked: a call and a variable across them) and dynamic parallelism (refused by name). Checks, with each
BUILD's ptxvm, that `ptxvm ptx` gives exactly what `nvcc -ptx` writes as
fatbinary stores it (normalize() below: no comments, no leading blanks, a
run of blanks kept as its first character; the reader itself knows nothing
of this) and that `run`, `info` and `check` take the executable. The entry
flags each build is meant to exercise are checked in the fatbin's header,
read here independently of ptxvm. Prints "N passed, M failed"."""
import concurrent.futures
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def nvcc_path():
    return shutil.which("nvcc") or next(
        (p for p in ["/usr/local/cuda/bin/nvcc"] if os.access(p, os.X_OK)), None)


def normalize(text):
    """nvcc -ptx output as fatbinary stores it."""
    out = []
    for line in text.split("\n"):
        i = line.find("//")
        if i >= 0:
            line = line[:i]
        out.append(re.sub(r"([ \t])[ \t]*", r"\1", line.lstrip(" \t")))
    return "\n".join(out)


def ptx_flags(path):
    """The flags of each PTX entry of every fatbin in a -fatbin file."""
    d = open(path, "rb").read()
    off, flags = 0, []
    while off + 16 <= len(d):
        magic, _, hs, size = struct.unpack_from("<IHHQ", d, off)
        if magic != 0xBA55ED50:
            break
        e, end = off + hs, off + hs + size
        while e < end:
            kind, _, ehs, psz = struct.unpack_from("<HHIQ", d, e)
            if kind == 1:
                flags.append(struct.unpack_from("<Q", d, e + 40)[0])
            e += ehs + psz
        off = end
    return flags


SRC = {
    "k.cu": r"""
__global__ void add(int *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += 1; }
__global__ void scale(float *a, float s) { a[threadIdx.x] *= s; }
int main() { return 0; }
""",
    "a.cu": r"""
__device__ int helper(int x);
extern __device__ int bias;
__global__ void ka(int *p) { p[threadIdx.x] = helper(threadIdx.x) + bias; }
int main() { return 0; }
""",
    "b.cu": r"""
__device__ int bias = 5;
__device__ int helper(int x) { return x * 3 + 1; }
__global__ void kb(int *p) { p[threadIdx.x] += 2; }
""",
    "dp.cu": r"""
__global__ void child(int *p) { p[threadIdx.x] = 7; }
__global__ void parent(int *p) { child<<<1, 4>>>(p); }
int main() { return 0; }
""",
}

# name: nvcc arguments (run in the temporary directory)
BUILDS = {
    "app": ["-arch=sm_90", "-o", "app", "k.cu", "b.cu"],   # two translation units
    "speed.fatbin": ["-arch=sm_90", "--compress-mode=speed", "-fatbin", "-o", "speed.fatbin", "k.cu"],
    "none.fatbin": ["-arch=sm_90", "--compress-mode=none", "-fatbin", "-o", "none.fatbin", "k.cu"],
    "c90.fatbin": ["-arch=compute_90", "-fatbin", "-o", "c90.fatbin", "k.cu"],
    "sm90a.fatbin": ["-arch=sm_90a", "-fatbin", "-o", "sm90a.fatbin", "k.cu"],
    "app_sass": ["-gencode", "arch=compute_90,code=sm_90", "-o", "app_sass", "k.cu"],
    "app_rdc": ["-arch=sm_90", "-rdc=true", "-o", "app_rdc", "a.cu", "b.cu"],
    "app_dp": ["-arch=sm_90", "-rdc=true", "-o", "app_dp", "dp.cu"],   # dynamic parallelism
    "k.cubin": ["-arch=sm_90", "-cubin", "-o", "k.cubin", "k.cu"],
    "k.ptx": ["-arch=sm_90", "-ptx", "-o", "k.ptx", "k.cu"],
    "b.whole.ptx": ["-arch=sm_90", "-ptx", "-o", "b.whole.ptx", "b.cu"],
    "k.c90.ptx": ["-arch=compute_90", "-ptx", "-o", "k.c90.ptx", "k.cu"],
    "k.sm90a.ptx": ["-arch=sm_90a", "-ptx", "-o", "k.sm90a.ptx", "k.cu"],
    "rdc": ["-arch=sm_90", "-rdc=true", "-ptx", "a.cu", "b.cu"],   # a.ptx, b.ptx
}


class T:
    passed = failed = 0

    @staticmethod
    def check(ok, what):
        if ok:
            T.passed += 1
        else:
            T.failed += 1
            print("FAIL: " + what)


def sh(argv, cwd):
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def build_all(nvcc, d):
    for name, text in SRC.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        res = dict(zip(BUILDS, ex.map(lambda a: sh([nvcc] + a, d), BUILDS.values())))
    for name, (rc, _, err) in res.items():
        if rc != 0:
            print("FAIL: nvcc %s: %s" % (" ".join(BUILDS[name]), err.strip()[:300]))
            return False
    return True


def same_ptx(ptxvm, d, image, ptx_file):
    rc, out, err = sh([ptxvm, "ptx", image], d)
    want = normalize(open(os.path.join(d, ptx_file)).read())
    T.check(rc == 0 and out == want, "%s ptx %s: exit %d, %s (want nvcc's %s)" % (
        ptxvm, image, rc, err.strip()[:200] or "text differs", ptx_file))


def test_with(ptxvm, d):
    # an executable of two translation units: two modules, in link order
    rc, out, err = sh([ptxvm, "ptx", "app"], d)
    parts = re.split(r"^// ptxvm ptx: app#\d: sm_90\n", out, flags=re.M)
    want = [normalize(open(os.path.join(d, f)).read()) for f in ("k.ptx", "b.whole.ptx")]
    T.check(rc == 0 and parts[1:] == want, "ptx app: exit %d, %d modules %s" % (rc, len(parts) - 1, err))
    for image, ptx in [("speed.fatbin", "k.ptx"), ("none.fatbin", "k.ptx"),
                       ("c90.fatbin", "k.c90.ptx"), ("sm90a.fatbin", "k.sm90a.ptx")]:
        same_ptx(ptxvm, d, image, ptx)
    # run, info and check take the executable
    rc, out, err = sh([ptxvm, "run", "-q", "app", "_Z3addPii", "-g", "2", "-b", "4", "-a", "s32[8]:iota",
                       "-a", "s32:7", "-o", "0"], d)
    T.check(rc == 0 and out.split() == "1 2 3 4 5 6 7 7".split(), "run app: exit %d %s %s" % (rc, out, err))
    rc, out, err = sh([ptxvm, "info", "app"], d)
    T.check(rc == 0 and "module app#1:\n.entry _Z3addPii: 2 params" in out and ".entry _Z5scalePff: 2 params" in out
            and "module app#2:\n.entry _Z2kbPi: 1 param" in out,
            "info app: exit %d %s %s" % (rc, out[:200], err))
    rc, out, err = sh([ptxvm, "check", "app"], d)
    T.check(rc == 0 and not err, "check app: exit %d %s" % (rc, err))
    rc, out, err = sh([ptxvm, "run", "-q", "app", "_Z2kbPi", "-b", "2", "-a", "s32[2]:iota", "-o", "0"], d)
    T.check(rc == 0 and out.split() == ["2", "3"], "run app kb (module 2): exit %d %s %s" % (rc, out, err))
    rc, out, err = sh([ptxvm, "run", "-q", "app", "-b", "2", "-a", "s32[2]:iota"], d)
    T.check(rc == 2 and "2 of the image's modules have kernels; name one" in err, "run app: exit %d %s" % (rc, err))
    # SASS only: exit 2, the kernels named, how to rebuild
    for cmd in ("ptx", "info", "check"):
        rc, out, err = sh([ptxvm, cmd, "app_sass"], d)
        T.check(rc == 2 and "SASS only" in err and "_Z3addPii" in err and "_Z5scalePff" in err
                and "-arch=sm_90" in err, "%s app_sass: exit %d %s" % (cmd, rc, err))
    rc, out, err = sh([ptxvm, "info", "k.cubin"], d)
    T.check(rc == 2 and "a cubin holds SASS only" in err and "_Z3addPii" in err, "info k.cubin: exit %d %s" % (rc, err))
    # -rdc=true: the objects' PTX, each nvcc's, linked into one module: ka calls
    # b.cu's helper and reads its bias (3i + 1 + 5)
    rc, out, err = sh([ptxvm, "ptx", "app_rdc"], d)
    parts = re.split(r"^// ptxvm ptx: app_rdc#\d: sm_90, an -rdc=true object\n", out, flags=re.M)
    want = [normalize(open(os.path.join(d, f)).read()) for f in ("a.ptx", "b.ptx")]
    T.check(rc == 0 and parts[1:] == want, "ptx app_rdc: exit %d, %d modules %s" % (rc, len(parts) - 1, err))
    rc, out, err = sh([ptxvm, "run", "-q", "app_rdc", "_Z2kaPi", "-b", "4", "-a", "s32[4]:zero", "-o", "0"], d)
    T.check(rc == 0 and out.split() == ["6", "9", "12", "15"], "run app_rdc ka: exit %d %s %s" % (rc, out, err))
    rc, out, err = sh([ptxvm, "run", "-q", "app_rdc", "_Z2kbPi", "-b", "4", "-a", "s32[4]:iota", "-o", "0"], d)
    T.check(rc == 0 and out.split() == ["2", "3", "4", "5"], "run app_rdc kb: exit %d %s %s" % (rc, out, err))
    rc, out, err = sh([ptxvm, "info", "app_rdc"], d)
    T.check(rc == 0 and "module" not in out and out.count("_Z6helperi:") == 1 and "(declaration)" not in out
            and ".entry _Z2kaPi" in out and ".entry _Z2kbPi" in out, "info app_rdc: exit %d %s %s" % (rc, out, err))
    rc, out, err = sh([ptxvm, "check", "app_rdc"], d)
    T.check(rc == 0 and not err, "check app_rdc: exit %d %s" % (rc, err))
    # dynamic parallelism: the device runtime's launch, named, is not supported
    rc, out, err = sh([ptxvm, "run", "-q", "app_dp", "_Z6parentPi", "-a", "s32[4]:zero"], d)
    T.check(rc == 2 and "call to '__cudaCDP2" in err and "device-side kernel launches" in err and "app_dp:" in err,
            "run app_dp: exit %d %s" % (rc, err))
    rc, out, err = sh([ptxvm, "run", "-q", "app_dp", "_Z5childPi", "-b", "4", "-a", "s32[4]:zero", "-o", "0"], d)
    T.check(rc == 0 and out.split() == ["7"] * 4, "run app_dp child: exit %d %s %s" % (rc, out, err))


def main():
    nvcc = nvcc_path()
    if not nvcc:
        print("skip: nvcc not found")
        return 0
    builds = sys.argv[1:] or ["build"]
    with tempfile.TemporaryDirectory() as d:
        if not build_all(nvcc, d):
            print("0 passed, 1 failed")
            return 1
        # the builds exercise what they claim: zstd (0x8000), LZ4 (0x2000), stored, sm_90a (0x100000)
        f = {n: ptx_flags(os.path.join(d, n)) for n in ("speed.fatbin", "none.fatbin", "sm90a.fatbin", "c90.fatbin")}
        T.check(all(x & 0x2000 for x in f["speed.fatbin"]) and f["speed.fatbin"], "speed: LZ4 flags %s" % f)
        T.check(f["none.fatbin"] and not any(x & 0xA000 for x in f["none.fatbin"]), "none: flags %s" % f)
        T.check(any(x & 0x100000 for x in f["sm90a.fatbin"]), "sm_90a: flags %s" % f)
        T.check(all(x & 0x8000 for x in f["c90.fatbin"]) and f["c90.fatbin"], "compute_90: zstd flags %s" % f)
        for b in builds:
            test_with(os.path.abspath(os.path.join(ROOT, b, "ptxvm")), d)
    print("%d passed, %d failed" % (T.passed, T.failed))
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
