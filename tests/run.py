#!/usr/bin/env python3
"""run.py: the one test runner of ptxvm (STYLE.md section 10: tests as data).

    python3 tests/run.py [--build DIR] [--san-build DIR] [--debug-build DIR] [--tsan-build DIR]
                         [--only PREFIX]...
                         [--timeout S] [-j N] [FILE...]

What it runs (each is one test, with an id used in tests/known_failures.txt):

  unit:NAME        every unit test binary DIR/tests/NAME (prints, exits nonzero
                   on failure)
  run:PATH         every conformance case tests/ptx/**/*.ptx outside diag/
                   whose header has `// RUN: ptxvm run %s ...` lines: `ptxvm`
                   is the build's binary, `%s` the file; the command is split
                   with shlex and run without a shell. `// EXPECT: line` gives
                   the exact stdout lines in order (none: empty stdout, unless
                   a sibling PATH.out / NAME.out file holds them), `// EXIT: N`
                   the exit status (default 0), `// STDERR: text` a substring
                   stderr must contain (`// STDERR-ONCE: text`: exactly
                   once). Several RUN lines run in order; their stdouts (and
                   stderrs) are concatenated and each must exit with EXIT;
                   `// STDERR-EACH: text` must be in every one's stderr (a
                   finding that a schedule must not change).
  check:PATH       tests/ptx/diag/err_*.ptx: `ptxvm check PATH` exits 2 and
                   prints `PATH:LINE:COL: error: MESSAGE` as its first line,
                   where the header `// ERROR: LINE:COL: substring` gives the
                   place and a substring of MESSAGE; ok_*.ptx exit 0; every
                   tests/cuda/ptx/*.ptx (nvcc output) exits 0
  cuda:NAME.VARIANT:KERNEL
                   every launch line of tests/cuda/MANIFEST (a line for
                   ptx/NAME.VARIANT.ptx replaces the sm_90 one there), run as
                   `ptxvm run -q ptx/NAME.VARIANT.ptx KERNEL OPTIONS` for each
                   VARIANT in sm_90, sm_90a, sm_90.G, sm_90.lineinfo; stdout
                   is compared as the MANIFEST header says (exact, or
                   'approx rtol=R atol=A:' per value, or 'anyorder:' as a
                   multiset of lines) and the exit status must be 0
  triton:NAME, numba:NAME
                   every launch line of tests/triton/MANIFEST and
                   tests/numba/MANIFEST (Triton's and Numba's PTX of
                   ptx/NAME.ptx, written by the folder's gen.py with numpy's
                   inputs and expected outputs), run and compared as the
                   cuda: tests are; also as j1-, san- and info:CORPUS/NAME
                   tests, and their PTX files as check: (and ptxas:) tests
  info:NAME.VARIANT:KERNEL
                   `ptxvm info` on the same file lists `.entry KERNEL` with
                   as many parameters as the MANIFEST line has -a options,
                   each of the size its spec implies (a scalar TYPE: the
                   type's size; a buffer: 8, a pointer; TYPE[N] for a struct
                   passed by value, per the BY_VALUE table: N elements)
  driver:tests/driver/NAME.c, san-driver:tests/driver/NAME.c
                   where the CUDA toolkit's cuda.h is ($CUDA_HOME, else
                   /usr/local/cuda): each program is compiled with cc against
                   it and the build's libcuda.so.1 (ptxvm's CUDA driver), run
                   as `ptxvm exec OPTIONS PROGRAM` (OPTIONS: the header's
                   `EXEC: options` line, else -j 2) and must exit 0 (or the
                   header's `EXIT: N`) with no stdout line starting FAIL; its header's
                   `STDERR: text` lines must occur on stderr, `STDERR-ONCE:
                   text` exactly once. san-driver: the same with the
                   sanitizer build (program compiled with the sanitizers too)
  runtime:tests/runtime/NAME.cu
                   where nvcc is installed (else a skip that says so): each
                   self-checking CUDA program is built by nvcc with
                   `-cudart shared -arch=sm_90` (its header's `NVCC: flags`
                   replace -cudart shared, and -arch/-gencode there replace
                   -arch=sm_90; %dir is tests/runtime, where
                   `-x cu %dir/NAME.part` adds a translation unit) against
                   ptxvm's runtime
                   (libcudart.so.13), in parallel, cached by the hash of its
                   sources and flags in BUILD/runtime-tests/, and run as
                   `ptxvm exec OPTIONS PROGRAM` (`EXEC: options`, else none;
                   several EXEC lines: one run each, all must pass);
                   it must exit with `EXIT: N` (default 0) and print no FAIL
                   line; `STDOUT: line` lines, if any, are its whole stdout
                   (read through a pipe), `STDERR: text` lines substrings of
                   its stderr (`STDERR-ONCE: text`: exactly once).
                   runtime:exports: every symbol of the toolkit's
                   libcudart.so.13 is exported with its version. san-runtime: the same program run with the
                   sanitizer build's exec, driver and runtime (the sanitizers'
                   runtimes preloaded); a sanitizer report fails it
  cmake:tests/cmake
                   where nvcc, cmake and ctest are: the CMake project there
                   (CUDA_RUNTIME_LIBRARY Shared) configured and built in
                   BUILD/cmake-test, and its tests run by ctest under
                   `ptxvm exec`: every ctest test passes
  clang:check-clang
                   where clang is installed: `make check-clang`, every
                   source compiles warning-free under clang too
  fatbin:tests/fatbin/test_fatbin.py
                   where nvcc is installed (else a skip): ptxvm reads the PTX
                   of nvcc's executables and fatbins (default, LZ4, stored,
                   compute_90, SASS only, sm_90a, -rdc=true), with the plain
                   and the sanitizer build; exit 0
  cli:tests/cli/test_*.sh
                   the command-line tests (`sh tests/cli/test_cli.sh BUILD`,
                   test_exec.sh for `ptxvm exec`, test_help.sh: the help and
                   man page against docs/cli.md and the code,
                   test_demangle.sh: kernel names): exit 0
  layers:scripts/layers.py
                   the include graph between the folders of src/ has no
                   cycle but the ones the script lists as known (each with
                   its reason; the list only shrinks): exit 0
  sweep:scripts/check_sweep.py
                   every RUN line of tests/ptx and every launch of the
                   cuda/triton/numba MANIFESTs again under --check: no data
                   race but in the files of tests/races_on_purpose.txt,
                   each of which must give one (issue 17)
  python:tests/python/test_python.py
                   the Python package (python/ptxvm) on the build's
                   libptxvm.so, with a Python that imports numpy; skipped,
                   saying so, where none does
  install:tests/install/test_install.sh
                   `make install` into a staging DESTDIR, a host program
                   built with pkg-config against it and run, the exports of
                   libptxvm.so, `make uninstall`: exit 0
  ptxas:PATH       where ptxas exists ($PTXAS, else CUDA's): it rejects every
                   err_*.ptx and accepts every ok_*.ptx (ptxas -arch=sm_90, or
                   the file's own .target when newer, e.g. sm_90a); an ok_
                   file whose .version or .target that ptxas does not know
                   yet is skipped; and every conformance file (RUN lines,
                   tests/ptx outside diag/) that `ptxvm check` accepts, save
                   those meant to hold refused forms (refused*, fault*,
                   *_operands, diverged*) and PTXAS_ALLOW's: ptxas with the
                   file's own .target (sm_90 where this ptxas lacks it)
  gpu:PATH, gpu:NAME.VARIANT:KERNEL
                   ground truth: what a real GPU did with the same launches
                   (tests/gpu/sm90_truth.json, recorded by tests/gpu/record.py
                   on an sm_90 GPU) must be what the test expects of ptxvm:
                   the same stdout (compared as above) and exit 0 where the
                   GPU ran; exit 1 where the GPU hung; exit != 0 where the
                   launch failed on the GPU; exit 2 where the driver rejected
                   the PTX. A file changed since the recording, or a launch
                   never recorded, is skipped (re-record on a GPU). Documented
                   differences (undefined behaviour that ptxvm reports, races,
                   layouts) are listed with reasons in tests/gpu/differences.txt,
                   which works as tests/known_failures.txt does
  j1-run:PATH, j1-cuda:NAME.VARIANT:KERNEL
                   the run: and cuda: tests again on one host thread (-j 1
                   first; a -j of the RUN line still wins): the results of
                   -j1 and of the default, all CPUs, must be the same
  fuzz:launch      the whole-path fuzzer (build-fuzz/fuzz_launch, `make fuzz`:
                   parse, lower, launch every kernel of each input) for a
                   minute from the repository's .ptx files
                   (tests/fuzz/fuzz.py --short): a crash, leak, sanitizer
                   report or timeout fails it, unless its signature is in
                   tests/fuzz/known_crashes.txt
  fuzz-crash:PATH  each saved finding tests/fuzz/crashes/* replayed by the
                   harness: it must not fail (one being fixed is listed in
                   tests/known_failures.txt)
  tsan-unit:NAME, tsan-run:PATH, tsan-cuda:NAME.sm_90:KERNEL, tsan-fuzz:seeds
                   with --tsan-build DIR (`make tsan`, not in `make test`):
                   the unit tests, and the RUN files and sm_90 MANIFEST
                   launches of more than one cluster at -j 2, under
                   ThreadSanitizer, and every .ptx file of the repository
                   through the whole-path fuzz harness built with it
                   (tests/fuzz/fuzz.py --tsan); a report fails the test
                   (tests/tsan.supp: the suppressed ones, why)
  debug-unit:NAME, debug-run:PATH
                   with --debug-build DIR (`make DEBUG=1`: build-debug, -O0
                   with the internal assertions of src/util/check.h): one
                   pass of the unit tests and the RUN files of tests/ptx in
                   that build (about 30 s on 2 cores); a failed assertion
                   aborts and fails the test
  san-unit:NAME, san-check:PATH, san-cuda:NAME.VARIANT:KERNEL
                   with --san-build DIR (ASan+UBSan, `make SAN=1`): the unit
                   tests, the front-end corpora (diag, cuda) and the MANIFEST
                   launches again with that build; any sanitizer report fails
                   the test

tests/known_failures.txt lists ids (fnmatch patterns allowed), each with a
reason: a listed test that fails is "known", a listed test that passes is an
unexpected pass and counts as failed, so the list only shrinks.

Output: one line per failure with its reason, the opcodes.def rows whose
mnemonic no conformance case uses ("ops without a test", informational), a
line with the skipped and known counts, and as the last line exactly
`N passed, M failed`. Exit status 1 when M > 0.
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=99",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1:exitcode=99",
    "LSAN_OPTIONS": "exitcode=99",
}
TSAN_ENV = {
    "TSAN_OPTIONS": "exitcode=66:second_deadlock_stack=1:suppressions=%s"
                    % os.path.join(ROOT, "tests/tsan.supp"),
}
SAN_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
               "SUMMARY: UndefinedBehaviorSanitizer", "WARNING: ThreadSanitizer")


class Result:
    """Outcome of one test: status is 'pass', 'fail' or 'skip'."""

    def __init__(self, tid, status, reason=""):
        self.tid, self.status, self.reason = tid, status, reason


def rel(path):
    p = os.path.relpath(os.path.abspath(path), ROOT)
    return p if not p.startswith("..") else path


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def run_cmd(argv, timeout, env=None):
    """Runs argv (no shell); returns (rc, stdout, stderr), rc None on timeout."""
    e = dict(os.environ)
    if env:
        e.update(env)
    try:
        p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=e, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "", ""
    except OSError as ex:
        return -1, "", str(ex)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def first_line(s, limit=200):
    s = s.strip().splitlines()
    return (s[0][:limit] if s else "(no output)")


def san_report(stderr):
    for line in stderr.splitlines():
        if any(m in line for m in SAN_MARKERS):
            return line.strip()[:200]
    return None


def header(path):
    """The // KEY: value lines of a test file, as a list of (key, value)."""
    out = []
    for line in read_text(path).splitlines():
        m = re.match(r"\s*//\s*(RUN|EXPECT|EXIT|STDERR-ONCE|STDERR-EACH|STDERR|ERROR):(.*)$", line)
        if m:
            v = m.group(2)
            out.append((m.group(1), v[1:] if v.startswith(" ") else v))
    return out


# ---- the tests ----

def t_unit(tid, binary, timeout, env):
    rc, out, err = run_cmd([binary], timeout, env)
    if rc is None:
        return Result(tid, "fail", "timed out after %ds" % timeout)
    rep = san_report(err)
    if rep:
        return Result(tid, "fail", rep)
    if rc != 0:
        lines = [l for l in (out + err).splitlines() if l.strip()]
        bad = [l for l in lines if "FAIL" in l or "fail" in l.lower()][:3]
        return Result(tid, "fail", "exit %d: %s" % (rc, " | ".join(bad or lines[-2:])))
    return Result(tid, "pass")


def expectation(path):
    """A RUN file's header: (RUN lines, expected stdout lines, exit status,
    STDERR substrings, STDERR-ONCE substrings). Without EXPECT lines, a sibling PATH.out / NAME.out
    holds the stdout."""
    h = header(path)
    runs = [v for k, v in h if k == "RUN"]
    expect = [v.rstrip() for k, v in h if k == "EXPECT"]
    if not any(k == "EXPECT" for k, _ in h):
        for sib in (path + ".out", os.path.splitext(path)[0] + ".out"):
            if os.path.exists(sib):
                expect = [l.rstrip() for l in read_text(sib).splitlines()]
                break
    exits = [v.strip() for k, v in h if k == "EXIT"]
    stderrs = [v.strip() for k, v in h if k == "STDERR"]
    once = [v.rstrip() for k, v in h if k == "STDERR-ONCE"]
    each = [v.strip() for k, v in h if k == "STDERR-EACH"]
    return runs, expect, int(exits[-1]) if exits else 0, stderrs, once, each


def compare_lines(out, expect):
    """None when stdout `out` is exactly the lines `expect`, else the first difference."""
    got = [l.rstrip() for l in out.splitlines()]
    for i in range(max(len(got), len(expect))):
        g = got[i] if i < len(got) else "(nothing)"
        e = expect[i] if i < len(expect) else "(nothing)"
        if g != e:
            return "stdout line %d: got '%s', expected '%s'" % (i + 1, g[:120], e[:120])
    return None


def t_run(tid, path, ptxvm, timeout, jobs=None, env=None):
    runs, expect, want_rc, stderrs, once, each = expectation(path)
    stdout, stderr = "", ""
    for r in runs:
        argv = shlex.split(r)
        argv = [ptxvm if a == "ptxvm" else a.replace("%s", path) for a in argv]
        if jobs and argv[1:2] == ["run"]:
            argv[2:2] = ["-j", jobs]   # a later -j in the RUN line still wins
        rc, out, err = run_cmd(argv, timeout, env)
        if rc is None:
            return Result(tid, "fail", "timed out after %ds: %s" % (timeout, r))
        rep = san_report(err)
        if rep:
            return Result(tid, "fail", rep)
        if rc != want_rc:
            return Result(tid, "fail", "exit %d, expected %d: %s" % (rc, want_rc, first_line(err)))
        for want in each:   # in every run's stderr: a finding one schedule misses fails
            if want not in err:
                return Result(tid, "fail", "stderr lacks '%s': %s (%s)" % (want, first_line(err), r))
        stdout += out
        stderr += err
    why = compare_lines(stdout, expect)
    if why:
        return Result(tid, "fail", why)
    for s in stderrs:
        if s not in stderr:
            return Result(tid, "fail", "stderr lacks '%s': %s" % (s, first_line(stderr)))
    for s in once:
        if stderr.count(s) != 1:
            return Result(tid, "fail", "stderr has '%s' %d times, not once" % (s, stderr.count(s)))
    return Result(tid, "pass")


DIAG_RE = re.compile(r"^(.*):(\d+):(\d+): error: (.*)$")


def t_check(tid, path, ptxvm, timeout, env=None):
    """ptxvm check: err_*.ptx must fail at the header's place, others pass."""
    name = os.path.basename(path)
    rc, out, err = run_cmd([ptxvm, "check", path], timeout, env)
    if rc is None:
        return Result(tid, "fail", "timed out after %ds" % timeout)
    rep = san_report(err)
    if rep:
        return Result(tid, "fail", rep)
    if not name.startswith("err_"):
        if rc != 0:
            return Result(tid, "fail", "exit %d: %s" % (rc, first_line(err)))
        return Result(tid, "pass")
    errs = [v for k, v in header(path) if k == "ERROR"]
    if len(errs) != 1:
        return Result(tid, "fail", "needs exactly one '// ERROR: L:C: text' header line")
    m = re.match(r"\s*(\d+):(\d+):\s?(.*)$", errs[0])
    if not m:
        return Result(tid, "fail", "malformed ERROR header '%s'" % errs[0])
    line, col, sub = m.group(1), m.group(2), m.group(3).strip()
    if rc != 2:
        return Result(tid, "fail", "exit %d, expected 2: %s" % (rc, first_line(err)))
    d = DIAG_RE.match(err.splitlines()[0] if err else "")
    if not d:
        return Result(tid, "fail", "no FILE:LINE:COL: error: line: %s" % first_line(err))
    if d.group(1) != path:
        return Result(tid, "fail", "diagnostic names '%s', not '%s'" % (d.group(1), path))
    if (d.group(2), d.group(3)) != (line, col):
        return Result(tid, "fail", "error at %s:%s, expected %s:%s: %s"
                      % (d.group(2), d.group(3), line, col, d.group(4)))
    if sub not in d.group(4):
        return Result(tid, "fail", "message '%s' lacks '%s'" % (d.group(4), sub))
    return Result(tid, "pass")


def ptxas_arch(path):
    m = re.search(r"^\s*\.target\s+sm_(\d+)(a|f)?", read_text(path), re.M)
    if m and int(m.group(1)) >= 90:
        return "sm_%s%s" % (m.group(1), m.group(2) or "")
    return "sm_90"


# What a ptxas older than a file says of its .version or .target (CUDA 13.0's
# of PTX ISA 9.5 or sm_107): it cannot judge the file.
PTXAS_TOO_OLD_RE = re.compile(r"Unsupported \.version \S+; current version is|"
                              r"Value 'sm_\w+' is not defined for option 'gpu-name'")


def t_ptxas(tid, path, ptxas, timeout):
    rc, out, err = run_cmd([ptxas, "-arch=" + ptxas_arch(path), path, "-o", os.devnull],
                           timeout)
    if rc is None:
        return Result(tid, "fail", "ptxas timed out")
    if os.path.basename(path).startswith("err_"):
        if rc == 0:
            return Result(tid, "fail", "ptxas accepts it")
    elif rc != 0 and PTXAS_TOO_OLD_RE.search(out + err):
        return Result(tid, "skip", "this ptxas predates the file's .version or .target "
                      "(PTXAS=a newer ptxas judges it): %s" % first_line(out + err))
    elif rc != 0:
        return Result(tid, "fail", "ptxas rejects it: %s" % first_line(out + err))
    return Result(tid, "pass")


# Conformance files that ptxas rejects for a reason outside what ptxvm
# validates yet, each with that reason: skipped, saying so, while ptxas
# rejects them (an entry whose file ptxas accepts again can go).
PTXAS_ALLOW = {}   # PATH: why ptxas may reject it (none today: tests/ptx/tma names its maps as ptxas wants)

# Names of conformance files meant to hold forms ptxas refuses.
PTXAS_REFUSED_NAME_RE = re.compile(r"refused|fault|_operands|diverged")


def wants_ptxas(path):
    """A conformance file the ptxas agreement check covers."""
    return (path.startswith("tests/ptx/") and not path.startswith("tests/ptx/diag/")
            and not PTXAS_REFUSED_NAME_RE.search(path[len("tests/ptx/"):]))


def t_ptxas_conformance(tid, path, ptxas, ptxvm, timeout):
    """A file ptxvm accepts must be PTX to ptxas too, under its own .target."""
    rc, out, err = run_cmd([ptxvm, "check", path], timeout)
    if rc != 0:
        return Result(tid, "skip", "ptxvm check rejects it: %s" % first_line(out + err))
    m = re.search(r"^\s*\.target\s+(sm_\d+[af]?)", read_text(path), re.M)
    arch = m.group(1) if m else "sm_90"
    rc, out, err = run_cmd([ptxas, "-arch=" + arch, path, "-o", os.devnull], timeout)
    if rc is not None and rc != 0 and "is not defined for option 'gpu-name'" in out + err:
        arch = ptxas_arch(path)   # a .target older than this ptxas knows
        rc, out, err = run_cmd([ptxas, "-arch=" + arch, path, "-o", os.devnull], timeout)
    if rc is None:
        return Result(tid, "fail", "ptxas timed out")
    if rc != 0 and path in PTXAS_ALLOW:
        return Result(tid, "skip", "PTXAS_ALLOW: " + PTXAS_ALLOW[path])
    if rc != 0 and PTXAS_TOO_OLD_RE.search(out + err):
        return Result(tid, "skip", "this ptxas predates the file's .version or .target "
                      "(PTXAS=a newer ptxas judges it): %s" % first_line(out + err))
    if rc != 0:
        errs = [l for l in (out + err).splitlines() if "error" in l]
        return Result(tid, "fail", "ptxvm accepts it, ptxas (-arch=%s) rejects it: %s"
                      % (arch, first_line("\n".join(errs) or out + err)))
    return Result(tid, "pass")


# ---- tests/cuda/MANIFEST ----

MANIFEST = "tests/cuda/MANIFEST"
CUDA_VARIANTS = ("sm_90", "sm_90a", "sm_90.G", "sm_90.lineinfo")
TYPE_SIZE = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "u32": 4, "s32": 4,
             "b32": 4, "f32": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8}
# Kernels of tests/cuda/*.cu that take an aggregate by value, from their signatures: KERNEL ->
# the indexes of those parameters (an array parameter `.param .align A .b8 p[N]` in the PTX,
# given its bytes by a TYPE[N]:INIT spec, so N elements of TYPE rather than an 8-byte address).
BY_VALUE = {"struct_param": {0}}   # struct_param.cu: struct_param(Params p, const float*, float*)
APPROX_RE = re.compile(r"approx rtol=(\S+) atol=(\S+): ?(.*)$", re.S)


def manifest_lines(manifest=MANIFEST):
    """(file, kernel, options, expected) for every launch line of a MANIFEST."""
    out = []
    path = os.path.join(ROOT, manifest)
    if not os.path.exists(path):
        return out
    for line in read_text(path).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(" | ", 2)
        if len(parts) != 3 or len(parts[0].split()) != 2:
            continue
        f, kernel = parts[0].split()
        out.append((f, kernel, parts[1].split(), parts[2]))
    return out


def split_variant(f):
    """ptx/NAME.VARIANT.ptx -> (ptx/NAME.sm_90.ptx, VARIANT), VARIANT None for sm_90 itself."""
    for v in sorted(CUDA_VARIANTS, key=len, reverse=True):
        if v != "sm_90" and f.endswith("." + v + ".ptx"):
            return f[:-len(v + ".ptx")] + "sm_90.ptx", v
    return f, None


def variant_file(f, variant):
    """ptx/NAME.sm_90.ptx -> (NAME, tests/cuda/ptx/NAME.VARIANT.ptx)."""
    d, base = os.path.split(f)
    name = base[:-len(".sm_90.ptx")] if base.endswith(".sm_90.ptx") else os.path.splitext(base)[0]
    return name, os.path.join("tests/cuda", d, "%s.%s.ptx" % (name, variant))


def num(tok):
    try:
        return float(tok)
    except ValueError:
        return None


def compare_output(got, expected):
    """None when stdout `got` matches a MANIFEST expectation, else why not."""
    got = got[:-1] if got.endswith("\n") else got
    if expected.startswith("anyorder: "):
        want = expected[len("anyorder: "):].split("\\n")
        have = got.split("\n")
        if sorted(have) != sorted(want):
            miss = [l for l in want if l not in have][:1]
            extra = [l for l in have if l not in want][:1]
            return "lines differ (as a multiset): missing %s, unexpected %s" % (
                repr(miss[0][:100]) if miss else "none", repr(extra[0][:100]) if extra else "none")
        return None
    m = APPROX_RE.match(expected)
    if m:
        rtol, atol = float(m.group(1)), float(m.group(2))
        want, have = m.group(3).split(), got.split()
        if "\n" in got.strip():
            return "approx: expected one line, got %d" % len(got.strip().splitlines())
        if len(want) != len(have):
            return "approx: %d values, expected %d" % (len(have), len(want))
        for i, (h, w) in enumerate(zip(have, want)):
            hv, wv = num(h), num(w)
            if hv is None or wv is None:
                return "approx value %d: '%s' is not a number (expected %s)" % (i, h[:40], w)
            if wv != wv:
                if hv == hv:
                    return "approx value %d: got %s, expected nan" % (i, h)
                continue
            if wv in (float("inf"), float("-inf")) or hv != hv:
                if hv != wv:
                    return "approx value %d: got %s, expected %s" % (i, h, w)
                continue
            if abs(hv - wv) > atol + rtol * abs(wv):
                return "approx value %d: got %s, expected %s (rtol=%g atol=%g)" % (
                    i, h, w, rtol, atol)
        return None
    want = expected.split("\\n")
    have = got.split("\n")
    for i in range(max(len(have), len(want))):
        g = have[i] if i < len(have) else "(nothing)"
        e = want[i] if i < len(want) else "(nothing)"
        if g != e:
            gt, et = g.split(" "), e.split(" ")
            for j in range(max(len(gt), len(et))):
                a = gt[j] if j < len(gt) else "(nothing)"
                b = et[j] if j < len(et) else "(nothing)"
                if a != b:
                    return "stdout line %d, value %d: got '%s', expected '%s'" % (
                        i + 1, j, a[:60], b[:60])
    return None


def t_script(tid, argv, timeout):
    rc, out, err = run_cmd(argv, timeout)
    if rc is None:
        return Result(tid, "fail", "timed out after %ds" % timeout)
    if rc != 0:
        lines = [l for l in (out + err).splitlines() if l.strip()]
        bad = [l for l in lines if l.startswith("FAIL")][:2]
        return Result(tid, "fail", "exit %d: %s" % (rc, " | ".join(bad or lines[-2:])[:300]))
    return Result(tid, "pass")


# ---- tests/driver: programs on ptxvm's CUDA driver (src/cuda/) ----

CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")
DRIVER_STDERR_RE = re.compile(r"^\W*(STDERR|STDERR-ONCE):\s?(.*)$", re.M)
DRIVER_EXEC_RE = re.compile(r"^\W*EXEC:\s?(.*)$", re.M)
DRIVER_EXIT_RE = re.compile(r"^\W*EXIT:\s*(\d+)\s*$", re.M)


def t_driver(tid, src, build, timeout, san=False):
    inc = os.path.join(CUDA_HOME, "include")
    if not os.path.exists(os.path.join(inc, "cuda.h")):
        return Result(tid, "skip", "no cuda.h in %s (set CUDA_HOME)" % inc)
    if not os.path.exists(os.path.join(build, "libcuda.so.1")):
        return Result(tid, "fail", "%s/libcuda.so.1 was not built" % build)
    out_dir = os.path.join(build, "driver-tests")
    os.makedirs(out_dir, exist_ok=True)
    binary = os.path.join(out_dir, os.path.splitext(os.path.basename(src))[0])
    cc = ["cc", "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-I", inc, "-o", binary, src,
          "-L" + build, "-lcuda", "-ldl"]
    if san:
        cc[1:1] = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
    rc, out, err = run_cmd(cc, timeout)
    if rc != 0:
        return Result(tid, "fail", "cc: %s" % first_line(err or out))
    text = read_text(src)
    opts = DRIVER_EXEC_RE.findall(text)
    opts = shlex.split(opts[0]) if opts else ["-j", "2"]
    rc, out, err = run_cmd([os.path.join(build, "ptxvm"), "exec"] + opts + [binary], timeout * 2,
                           SAN_ENV if san else None)
    if rc is None:
        return Result(tid, "fail", "timed out after %ds" % (timeout * 2))
    rep = san_report(err)
    if rep:
        return Result(tid, "fail", rep)
    want_rc = DRIVER_EXIT_RE.findall(text)
    want_rc = int(want_rc[0]) if want_rc else 0
    bad = [l for l in out.splitlines() if l.startswith("FAIL")][:3]
    if rc != want_rc or bad:
        return Result(tid, "fail", "exit %s (want %d): %s" % (rc, want_rc, " | ".join(bad) or first_line(err)))
    for kind, want in DRIVER_STDERR_RE.findall(text):
        n = err.count(want.rstrip())
        if n == 0 or (kind == "STDERR-ONCE" and n != 1):
            return Result(tid, "fail", "stderr has %r %d times" % (want.rstrip(), n))
    return Result(tid, "pass")


# ---- tests/runtime: CUDA programs on ptxvm's runtime (src/cudart/) ----

RUNTIME_HEADER_RE = re.compile(r"^// (NVCC|EXEC|EXIT|STDOUT|STDERR|STDERR-ONCE):\s?(.*)$", re.M)


def find_nvcc():
    return shutil.which("nvcc") or next((p for p in [os.path.join(CUDA_HOME, "bin", "nvcc")]
                                         if os.access(p, os.X_OK)), None)


def t_runtime(tid, src, build, timeout, san_build=None):
    nvcc = find_nvcc()
    if not nvcc:
        return Result(tid, "skip", "nvcc not found (CUDA_HOME=%s): the runtime tests need it" % CUDA_HOME)
    if not os.path.exists(os.path.join(build, "libcudart.so.13")):
        return Result(tid, "fail", "%s/libcudart.so.13 was not built" % build)
    text = read_text(src)
    head = {}
    for k, v in RUNTIME_HEADER_RE.findall(text):
        head.setdefault(k, []).append(v.rstrip())
    here = os.path.join(ROOT, "tests/runtime")
    flags = shlex.split(head["NVCC"][0].replace("%dir", here)) if "NVCC" in head else ["-cudart", "shared"]
    arch = [] if any(f.startswith(("-gencode", "-arch")) for f in flags) else ["-arch=sm_90"]
    flags = arch + ["-O1", "-I", here] + flags
    # more sources named in the flags (%dir/NAME.part) are inputs of the cache key
    text += "".join(read_text(f) for f in flags if f.endswith(".part"))
    # the binary is cached by its inputs: nvcc takes seconds a file
    h = hashlib.sha256(("\0".join([nvcc] + flags) + text + read_text(os.path.join(ROOT, "tests/runtime/check.h")))
                       .encode()).hexdigest()[:16]
    out_dir = os.path.join(build, "runtime-tests")
    os.makedirs(out_dir, exist_ok=True)
    binary = os.path.join(out_dir, "%s-%s" % (os.path.splitext(os.path.basename(src))[0], h))
    if not os.path.exists(binary):
        # runtime: and san-runtime: of one source build it at once, on two threads
        tmp = binary + ".tmp%d-%d" % (os.getpid(), threading.get_ident())
        # Thrust and CUB take nvcc a minute on an idle machine, several under load
        rc, out, err = run_cmd([nvcc] + flags + ["-o", tmp, os.path.join(ROOT, src)], timeout * 8)
        if rc is None:
            return Result(tid, "fail", "nvcc timed out after %ds" % (timeout * 8))
        if rc != 0:
            return Result(tid, "fail", "nvcc: %s" % first_line(err or out))
        os.replace(tmp, binary)
    env = None
    if san_build:   # the program is not instrumented: the sanitizers' runtimes go first
        pre = [subprocess.run(["cc", "-print-file-name=lib%s.so" % n], capture_output=True, text=True).stdout.strip()
               for n in ("asan", "ubsan")]
        env = dict(SAN_ENV, LD_PRELOAD=" ".join(pre))
        build = san_build
    # each EXEC line is one run of the same binary (e.g. plain and --check)
    for line in head.get("EXEC", [""]):
        bad = runtime_once(build, binary, shlex.split(line), env, timeout, head)
        if bad:
            return Result(tid, "fail", ("exec %s: " % line if len(head.get("EXEC", [])) > 1 else "") + bad)
    return Result(tid, "pass")


def runtime_once(build, binary, opts, env, timeout, head):
    """One `ptxvm exec OPTS BINARY` of a runtime: test: None, or why it failed."""
    rc, out, err = run_cmd([os.path.join(build, "ptxvm"), "exec"] + opts + [binary], timeout * 4, env)
    if rc is None:
        return "timed out after %ds" % (timeout * 4)
    rep = san_report(err)
    if rep:
        return rep
    want_rc = int(head["EXIT"][0]) if "EXIT" in head else 0
    bad = [l for l in out.splitlines() if l.startswith("FAIL")][:3]
    if rc != want_rc or bad:
        return "exit %s (want %d): %s" % (rc, want_rc, " | ".join(bad) or first_line(err))
    if "STDOUT" in head and out.splitlines() != head["STDOUT"]:
        return "stdout %r, expected %r" % (out.splitlines()[:20], head["STDOUT"])
    for want in head.get("STDERR", []):
        if want not in err:
            return "stderr lacks %r: %s" % (want, first_line(err))
    for want in head.get("STDERR-ONCE", []):
        if err.count(want) != 1:
            return "stderr has %r %d times, not once" % (want, err.count(want))
    return None


def t_runtime_exports(tid, build, timeout):
    """Every symbol of the toolkit's libcudart.so.13 is in ptxvm's, under the
    same version."""
    lib = os.path.join(CUDA_HOME, "lib64", "libcudart.so.13")
    if not os.path.exists(lib):
        return Result(tid, "skip", "no %s to compare with" % lib)

    def syms(path):
        rc, out, err = run_cmd(["nm", "-D", "--with-symbol-versions", "--defined-only", path], timeout)
        return {l.split()[-1].replace("@@", "@") for l in out.splitlines() if " T " in l or " W " in l}
    ours, theirs = syms(os.path.join(build, "libcudart.so.13")), syms(lib)
    missing = sorted(theirs - ours)
    if not theirs or missing:
        return Result(tid, "fail", "%d symbols missing or versioned otherwise: %s" % (len(missing), missing[:5]))
    return Result(tid, "pass")


def t_cmake(tid, build, timeout):
    """tests/cmake configured, built and tested by ctest under ptxvm exec, in
    BUILD/cmake-test (kept: a second run only re-runs ctest)."""
    nvcc = find_nvcc()
    if not nvcc or not shutil.which("cmake") or not shutil.which("ctest"):
        return Result(tid, "skip", "needs nvcc, cmake and ctest")
    out_dir = os.path.abspath(os.path.join(build, "cmake-test"))
    ptxvm = os.path.abspath(os.path.join(build, "ptxvm"))
    steps = [["cmake", "-S", os.path.join(ROOT, "tests/cmake"), "-B", out_dir, "-DPTXVM=" + ptxvm,
              "-DCMAKE_CUDA_COMPILER=" + nvcc],
             ["cmake", "--build", out_dir],
             ["ctest", "--test-dir", out_dir, "--output-on-failure"]]
    for argv in steps:
        rc, out, err = run_cmd(argv, timeout * 4)
        if rc != 0:
            lines = [l for l in (out + err).splitlines() if l.strip()]
            return Result(tid, "fail", "%s: exit %s: %s" % (argv[0], rc, " | ".join(lines[-3:])[:300]))
    return Result(tid, "pass")


def t_cuda(tid, path, kernel, opts, expected, ptxvm, timeout, env=None, jobs=None):
    rc, out, err = run_cmd([ptxvm, "run", "-q"] + (["-j", jobs] if jobs else []) + [path, kernel] + opts,
                           timeout, env)
    if rc is None:
        return Result(tid, "fail", "timed out after %ds" % timeout)
    rep = san_report(err)
    if rep:
        return Result(tid, "fail", rep)
    if rc != 0:
        return Result(tid, "fail", "exit %d: %s" % (rc, first_line(err)))
    why = compare_output(out, expected)
    if why:
        return Result(tid, "fail", why)
    return Result(tid, "pass")


TRUTH = "tests/gpu/sm90_truth.json"
_truth = None


def truth():
    """The GPU's records by launch id ({} when none were recorded)."""
    global _truth
    if _truth is None:
        p = os.path.join(ROOT, TRUTH)
        _truth = {r["id"]: r for r in json.load(open(p))["launches"]} if os.path.exists(p) else {}
    return _truth


def file_sha(path):
    """A hash of a PTX file's code: its whole-line comments (the test's
    header: EXPECT lines, prose) do not change what the GPU did."""
    with open(os.path.join(ROOT, path), "rb") as f:
        code = [l for l in f.read().split(b"\n") if not l.lstrip().startswith(b"//")]
    return hashlib.sha256(b"\n".join(code)).hexdigest()[:16]


def t_gpu(tid, launches, want_rc, stdout_ok):
    """The GPU's records of `launches` (one test's (id, argv) pairs) against
    what the test expects of ptxvm: exit status `want_rc`, and
    stdout_ok(stdout) is None."""
    recs = [truth().get(i) for i, _ in launches]
    if not recs or None in recs:
        return Result(tid, "skip", "not recorded on a GPU (tests/gpu/README.md)")
    ptx = lambda argv: next(a for a in argv if a.endswith(".ptx"))
    if any(r["argv"] != argv or r["sha"] != file_sha(ptx(argv)) for r, (_, argv) in zip(recs, launches)):
        return Result(tid, "skip", "changed since it was recorded on a GPU")
    if any(r["rc"] == 2 and "higher than default SM version" in r["stderr"] for r in recs):
        return Result(tid, "skip", "its .target is newer than the recording GPU")
    rcs = [r["rc"] for r in recs]
    err = " | ".join(r["stderr"].strip() for r in recs if r["stderr"].strip())[:200]
    if None in rcs:
        why = None if want_rc == 1 else "hangs on the GPU, expected exit %d" % want_rc
    elif any(rc == 2 for rc in rcs):
        why = None if want_rc == 2 else "the driver rejects it: %s" % err
    elif any(rc != 0 for rc in rcs):
        why = None if want_rc != 0 else "fails on the GPU: %s" % err
    elif want_rc != 0:
        why = "runs on the GPU (exit 0), expected exit %d" % want_rc
    else:
        why = stdout_ok("".join(r["stdout"] for r in recs))
        why = why and "on the GPU: " + why
    return Result(tid, "fail", why) if why else Result(tid, "pass")


def run_launches(f):
    """(id, argv after `ptxvm run`) for each RUN line of f, as recorded on a GPU."""
    return [("run:%s#%d" % (f, i), [a.replace("%s", f) for a in shlex.split(r)][2:])
            for i, r in enumerate(expectation(f)[0])]


def gpu_run_job(f):
    """gpu:PATH for a RUN file: the GPU against its expected stdout and exit status."""
    _, expect, want_rc, _, _, _ = expectation(f)
    return ("gpu:" + f, t_gpu, run_launches(f), want_rc, lambda out: compare_lines(out, expect))


SPEC_RE = re.compile(r"^(\w+)(?:\[(\d*)\])?:")


def expected_params(kernel, opts):
    """The parameter sizes the -a specs of a MANIFEST line imply, or None."""
    sizes = []
    for i, o in enumerate(opts):
        if o not in ("-a", "--arg") or i + 1 >= len(opts):
            continue
        m = SPEC_RE.match(opts[i + 1])
        if not m or m.group(1) not in TYPE_SIZE:
            return None
        if m.group(2) is None:
            sizes.append(TYPE_SIZE[m.group(1)])
        elif len(sizes) in BY_VALUE.get(kernel, ()):
            if not m.group(2):
                return None
            sizes.append(int(m.group(2)) * TYPE_SIZE[m.group(1)])
        else:
            sizes.append(8)  # a buffer: the parameter holds its device address
    return sizes


INFO_ENTRY_RE = re.compile(r"^\.entry (\S+): (\d+) params?, (\d+) bytes")
INFO_PARAM_RE = re.compile(r"^\s+param (\d+): \S+ .*\bsize (\d+)\b")


def t_info(tid, path, kernel, sizes, ptxvm, timeout):
    rc, out, err = run_cmd([ptxvm, "info", path], timeout)
    if rc is None:
        return Result(tid, "fail", "timed out after %ds" % timeout)
    if rc != 0:
        return Result(tid, "fail", "exit %d: %s" % (rc, first_line(err)))
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = INFO_ENTRY_RE.match(line)
        if not m or m.group(1) != kernel:
            continue
        got = []
        for l in lines[i + 1:]:
            p = INFO_PARAM_RE.match(l)
            if not p:
                if l.startswith((" ", "\t")):
                    continue
                break
            got.append(int(p.group(2)))
        if int(m.group(2)) != len(sizes) or got != sizes:
            return Result(tid, "fail", "params %s (header says %s), expected sizes %s"
                          % (got, m.group(2), sizes))
        return Result(tid, "pass")
    return Result(tid, "fail", "no '.entry %s' line in ptxvm info" % kernel)


def cuda_launches():
    """(tid NAME.VARIANT:KERNEL, path, kernel, options, expected) for every MANIFEST
    launch. A line for ptx/NAME.sm_90.ptx holds for every variant, except where a
    line for ptx/NAME.VARIANT.ptx and the same kernel replaces it for that variant."""
    lines = manifest_lines()
    own = {}
    for f, kernel, opts, expected in lines:
        base, v = split_variant(f)
        if v:
            own[(base, kernel, v)] = (opts, expected)
    out = []
    for f, kernel, opts0, expected0 in lines:
        if split_variant(f)[1]:
            continue
        for v in CUDA_VARIANTS:
            opts, expected = own.get((f, kernel, v), (opts0, expected0))
            name, path = variant_file(f, v)
            out.append(("%s.%s:%s" % (name, v, kernel), path, kernel, opts, expected))
    return out


def cuda_jobs(ptxvm, timeout, san_ptxvm=None):
    jobs = []
    for tid, path, kernel, opts, expected in cuda_launches():
        if not os.path.exists(os.path.join(ROOT, path)):
            jobs.append(("cuda:" + tid, lambda t, p=path: Result(t, "fail", "%s missing" % p)))
            continue
        jobs.append(("cuda:" + tid, t_cuda, path, kernel, opts, expected, ptxvm, timeout))
        jobs.append(("j1-cuda:" + tid, t_cuda, path, kernel, opts, expected, ptxvm, timeout, None, "1"))
        jobs.append(("gpu:" + tid, t_gpu, [("cuda:" + tid, ["-q"] + opts + [path, kernel])], 0,
                     lambda out, e=expected: compare_output(out, e)))
        if san_ptxvm:
            jobs.append(("san-cuda:" + tid, t_cuda, path, kernel, opts, expected, san_ptxvm,
                         timeout * 2, SAN_ENV))
        sizes = expected_params(kernel, opts)
        if sizes is None:
            jobs.append(("info:" + tid, lambda t: Result(t, "fail", "unparsable -a spec")))
        else:
            jobs.append(("info:" + tid, t_info, path, kernel, sizes, ptxvm, timeout))
    return jobs


# ---- real compilers' output: tests/triton, tests/numba ----

# Each folder holds ptx/ (what the compiler wrote), data/ (numpy's inputs) and a
# MANIFEST in the format of tests/cuda/MANIFEST, FILE relative to the folder, all
# written by its gen.py (see its README.md).
REAL_CORPORA = ("triton", "numba")


def real_launches(corpus):
    """(tid CORPUS:NAME, path, kernel, options, expected) for every line of
    tests/CORPUS/MANIFEST; NAME is the PTX file's base name, with #I for the
    I-th further launch of the same file."""
    out, seen = [], {}
    for f, kernel, opts, expected in manifest_lines("tests/%s/MANIFEST" % corpus):
        name = os.path.splitext(os.path.basename(f))[0]
        i = seen[name] = seen.get(name, -1) + 1
        tid = "%s:%s%s" % (corpus, name, "#%d" % i if i else "")
        out.append((tid, os.path.join("tests", corpus, f), kernel, opts, expected))
    return out


def real_jobs(ptxvm, timeout, san_ptxvm=None):
    jobs = []
    for corpus in REAL_CORPORA:
        for tid, path, kernel, opts, expected in real_launches(corpus):
            jobs.append((tid, t_cuda, path, kernel, opts, expected, ptxvm, timeout))
            jobs.append(("j1-" + tid, t_cuda, path, kernel, opts, expected, ptxvm, timeout, None, "1"))
            if san_ptxvm:
                jobs.append(("san-" + tid, t_cuda, path, kernel, opts, expected, san_ptxvm,
                             timeout * 2, SAN_ENV))
            sizes = expected_params(kernel, opts)
            jobs.append(("info:" + tid.replace(":", "/", 1), t_info, path, kernel, sizes, ptxvm,
                         timeout))
    return jobs


def clusters(argv):
    """How many clusters a `ptxvm run` command line launches (-g over -c)."""
    dims = {"-g": 1, "-c": 1}
    for opt, val in zip(argv, argv[1:]):
        key = {"-g": "-g", "--grid": "-g", "-c": "-c", "--cluster": "-c"}.get(opt)
        if key:
            n = 1
            for d in val.split(","):
                n *= int(d) if d.isdigit() else 1
            dims[key] = n
    return max(1, dims["-g"] // max(1, dims["-c"]))


def tsan_jobs(tsan, timeout):
    """The multi-threaded launches under ThreadSanitizer (make tsan): the
    unit tests (test_cancel cancels from another thread), and at -j 2 (a -j
    of the RUN line still wins) every RUN file and sm_90 MANIFEST launch of
    more than one cluster (one cluster runs on one thread)."""
    jobs, d = [], os.path.join(tsan, "tests")
    for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        p = os.path.join(d, n)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            jobs.append(("tsan-unit:" + n, t_unit, p, timeout * 4, TSAN_ENV))
    ptxvm = os.path.join(tsan, "ptxvm")
    for f in ptx_files("tests/ptx"):
        runs = expectation(f)[0] if classify(f) == "run" else []
        if any(clusters(shlex.split(r)) > 1 for r in runs):
            jobs.append(("tsan-run:" + f, t_run, f, ptxvm, timeout * 4, "2", TSAN_ENV))
    for tid, path, kernel, opts, expected in cuda_launches():
        if tid.split(":")[0].endswith(".sm_90") and clusters(opts) > 1:
            jobs.append(("tsan-cuda:" + tid, t_cuda, path, kernel, opts, expected, ptxvm,
                         timeout * 4, TSAN_ENV, "2"))
    jobs.append(("tsan-fuzz:seeds", t_script, ["python3", "tests/fuzz/fuzz.py", "--tsan"],
                 timeout * 20))
    return jobs


def t_fuzz_replay(tid, path, timeout):
    """A saved fuzzer finding (tests/fuzz/crashes) replayed: it must not fail."""
    rc, out, err = run_cmd(["python3", "tests/fuzz/fuzz.py", "--replay", path], timeout)
    if rc is None:
        return Result(tid, "fail", "timed out after %ds" % timeout)
    if rc != 0 or "known " in out:
        return Result(tid, "fail", first_line(out + err, 300))
    return Result(tid, "pass")


def fuzz_jobs(timeout):
    """fuzz:launch, the whole-path fuzzer for a minute (tests/fuzz/fuzz.py
    --short; fails on any finding not in tests/fuzz/known_crashes.txt), and
    fuzz-crash:FILE, each saved finding of tests/fuzz/crashes replayed."""
    jobs = [("fuzz:launch", t_script, ["python3", "tests/fuzz/fuzz.py", "--short", "--seconds", "60"],
             timeout * 5)]
    for f in ptx_files("tests/fuzz/crashes"):
        jobs.append(("fuzz-crash:" + f, t_fuzz_replay, f, timeout))
    return jobs


# ---- discovery ----

def find_ptxas():
    for p in (os.environ.get("PTXAS"), "/usr/local/cuda/bin/ptxas", shutil.which("ptxas")):
        if p and os.access(p, os.X_OK):
            return p
    return None


def ptx_files(sub):
    out = []
    base = os.path.join(ROOT, sub)
    for d, _, files in os.walk(base):
        out += [rel(os.path.join(d, f)) for f in files if f.endswith(".ptx")]
    return sorted(out)


def classify(path):
    parts = path.replace(os.sep, "/").split("/")
    if "diag" in parts[:-1] and parts[-1].startswith(("err_", "ok_")):
        return "diag"
    if "cuda" in parts and parts[-2] == "ptx":
        return "cuda"
    if len(parts) > 2 and parts[-3] in REAL_CORPORA and parts[-2] == "ptx":
        return "real"
    return "run"


def python_job(build, timeout):
    """python:tests/python/test_python.py, with the first Python that can
    import numpy (this one, else Debian's, where scripts/deps.sh installs
    python3-numpy); skipped when none can."""
    tid = "python:tests/python/test_python.py"
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode == 0:
            lib = os.path.abspath(os.path.join(build, "libptxvm.so"))
            argv = ["env", "PTXVM_LIBRARY=" + lib, "PYTHONPATH=" + os.path.join(ROOT, "python"), py,
                    "tests/python/test_python.py", os.path.abspath(build)]
            return (tid, t_script, argv, timeout * 4)
    return (tid, lambda t: Result(t, "skip", "skipped: numpy is not importable (scripts/deps.sh installs python3-numpy)"))


def plan(args, ptxas):
    """The list of (id, function, args...) to run."""
    jobs = []
    ptxvm = os.path.join(args.build, "ptxvm")
    san_ptxvm = os.path.join(args.san_build, "ptxvm") if args.san_build else None
    debug_ptxvm = os.path.join(args.debug_build, "ptxvm") if args.debug_build else None
    if args.files:
        files = [rel(f) for f in args.files]
    else:
        files = ptx_files("tests/ptx") + ptx_files("tests/cuda/ptx")
        files += [f for c in REAL_CORPORA for f in ptx_files("tests/%s/ptx" % c)]
        for b in (args.build, args.san_build, args.debug_build):
            if not b:
                continue
            d = os.path.join(b, "tests")
            pre = {args.san_build: "san-unit:", args.debug_build: "debug-unit:"}.get(b, "unit:")
            env = SAN_ENV if b == args.san_build else None
            if os.path.isdir(d):
                for n in sorted(os.listdir(d)):
                    p = os.path.join(d, n)
                    if os.path.isfile(p) and os.access(p, os.X_OK):
                        jobs.append((pre + n, t_unit, p, args.timeout * 2, env))
        jobs += cuda_jobs(ptxvm, args.timeout, san_ptxvm)
        jobs += real_jobs(ptxvm, args.timeout, san_ptxvm)
        for src in sorted(f for f in os.listdir(os.path.join(ROOT, "tests/driver")) if f.endswith(".c")):
            path = "tests/driver/" + src
            jobs.append(("driver:" + path, t_driver, path, args.build, args.timeout))
            if args.san_build:
                jobs.append(("san-driver:" + path, t_driver, path, args.san_build, args.timeout * 2, True))
        # first: they wait on nvcc for a while (cached afterwards)
        for src in sorted(glob.glob(os.path.join(ROOT, "tests/runtime/*.cu")), reverse=True):
            if args.san_build:
                jobs.insert(0, ("san-runtime:" + rel(src), t_runtime, rel(src), args.build, args.timeout,
                                args.san_build))
            jobs.insert(0, ("runtime:" + rel(src), t_runtime, rel(src), args.build, args.timeout))
        if os.path.exists(os.path.join(args.build, "libcudart.so.13")):
            jobs.append(("runtime:exports", t_runtime_exports, args.build, args.timeout))
            jobs.insert(0, ("cmake:tests/cmake", t_cmake, args.build, args.timeout))
        if shutil.which("clang"):
            jobs.append(("clang:check-clang", t_script, ["make", "-s", "check-clang"], args.timeout * 4))
        jobs += fuzz_jobs(args.timeout)
        if args.tsan_build:
            jobs += tsan_jobs(args.tsan_build, args.timeout)
        fb = "tests/fatbin/test_fatbin.py"
        if shutil.which("nvcc") or os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
            # first: it waits on nvcc for a while
            jobs.insert(0, ("fatbin:" + fb, t_script, [sys.executable, fb, args.build] +
                            ([args.san_build] if args.san_build else []), args.timeout * 6))
        else:
            jobs.append(("fatbin:" + fb, lambda tid: Result(tid, "skip", "nvcc not found")))
        for cli in sorted(glob.glob(os.path.join(ROOT, "tests/cli/test_*.sh"))):
            cli = rel(cli)
            jobs.append(("cli:" + cli, t_script, ["sh", cli, args.build], args.timeout * 4))
        jobs.append(python_job(args.build, args.timeout))
        jobs.append(("layers:scripts/layers.py", t_script,
                     [sys.executable, "scripts/layers.py", "--quiet"], args.timeout))
        jobs.append(("sweep:scripts/check_sweep.py", t_script,
                     [sys.executable, "scripts/check_sweep.py", "--build", args.build, "-j", "1",
                      "--grep", "data race", "--expect", "tests/races_on_purpose.txt",
                      "--grep", "uninitialized read", "--expect", "tests/uninitialized_on_purpose.txt",
                      "--grep", "barrier misuse", "--expect", "tests/sync_misuse_on_purpose.txt"],
                     args.timeout * 4))
        inst = "tests/install/test_install.sh"
        if os.path.exists(os.path.join(ROOT, inst)):
            jobs.append(("install:" + inst, t_script, ["sh", inst, args.build], args.timeout * 4))
    for f in files:
        kind = classify(f)
        if kind == "run":
            if any(k == "RUN" for k, _ in header(f)):
                jobs.append(("run:" + f, t_run, f, ptxvm, args.timeout))
                jobs.append(("j1-run:" + f, t_run, f, ptxvm, args.timeout, "1"))
                if debug_ptxvm and f.startswith("tests/ptx/"):
                    jobs.append(("debug-run:" + f, t_run, f, debug_ptxvm, args.timeout * 2))
                jobs.append(gpu_run_job(f))
                if ptxas and wants_ptxas(f):
                    jobs.append(("ptxas:" + f, t_ptxas_conformance, f, ptxas, ptxvm, args.timeout))
            elif args.files:
                jobs.append(("run:" + f, lambda tid: Result(tid, "skip", "no RUN line")))
            continue
        jobs.append(("check:" + f, t_check, f, ptxvm, args.timeout))
        if san_ptxvm:
            jobs.append(("san-check:" + f, t_check, f, san_ptxvm, args.timeout * 2, SAN_ENV))
        if kind in ("diag", "real") and ptxas:
            jobs.append(("ptxas:" + f, t_ptxas, f, ptxas, args.timeout))
    return jobs


def load_known(path):
    known = {}
    if os.path.exists(path):
        for line in read_text(path).splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            tid, _, reason = line.partition(" ")
            known[tid] = reason.strip() or "(no reason given)"
    return known


def is_known(tid, known):
    return any(fnmatch.fnmatchcase(tid, pat) for pat in known)


MNEMONIC_RE = re.compile(r'^\s*X\(\s*(\w+)\s*,\s*"([^"]+)"', re.M)


def ops_without_test():
    """opcodes.def rows whose mnemonic no conformance case (RUN file) uses."""
    p = os.path.join(ROOT, "src/ir/opcodes.def")
    if not os.path.exists(p):
        return 0, []
    rows = MNEMONIC_RE.findall(read_text(p))
    text = []
    for f in ptx_files("tests/ptx"):
        if classify(f) == "run":
            t = read_text(f)
            if "// RUN:" in t:
                text.append(re.sub(r"//[^\n]*", "", t))
    body = "\n".join(text)
    used = {}
    missing = []
    for rid, mn in rows:
        if mn not in used:
            pat = r"(?<![\w.%$])" + re.escape(mn) + r"(?=[.\s;])"
            used[mn] = re.search(pat, body) is not None
        if not used[mn]:
            missing.append("%s(%s)" % (rid, mn))
    return len(rows), missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="build directory (default build)")
    ap.add_argument("--san-build", help="ASan+UBSan build directory (make SAN=1: build-san)")
    ap.add_argument("--debug-build", help="DEBUG=1 build directory (make DEBUG=1: build-debug)")
    ap.add_argument("--tsan-build", help="ThreadSanitizer build directory (make TSAN=1: build-tsan)")
    ap.add_argument("--only", metavar="PREFIX", action="append",
                    help="run just the tests whose id starts with PREFIX (repeatable: any of them)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test (default 60)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every result")
    ap.add_argument("files", nargs="*", help="run just these .ptx cases")
    args = ap.parse_args()
    os.chdir(ROOT)
    if not os.path.exists(os.path.join(args.build, "ptxvm")):
        print("run.py: %s/ptxvm not found; build first (make)" % args.build)
        print("0 passed, 1 failed")
        return 1
    ptxas = find_ptxas()
    known = load_known(os.path.join(ROOT, "tests/known_failures.txt"))
    known.update(load_known(os.path.join(ROOT, "tests/gpu/differences.txt")))
    jobs = plan(args, ptxas)
    if args.only:
        jobs = [j for j in jobs if j[0].startswith(tuple(args.only))]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(j[1], j[0], *j[2:]) for j in jobs]
        for f in futs:
            results.append(f.result())
    passed = failed = skipped = nknown = 0
    for r in results:
        k = is_known(r.tid, known)
        if r.status == "skip":
            skipped += 1
            if args.verbose:
                print("SKIP %s: %s" % (r.tid, r.reason))
        elif r.status == "pass" and k:
            failed += 1
            print("UNEXPECTED PASS %s (remove it from tests/known_failures.txt)" % r.tid)
        elif r.status == "pass":
            passed += 1
            if args.verbose:
                print("PASS %s" % r.tid)
        elif k:
            nknown += 1
            if args.verbose:
                print("KNOWN %s: %s" % (r.tid, r.reason))
        else:
            failed += 1
            print("FAIL %s: %s" % (r.tid, r.reason))
    if not args.files and not args.only:
        nrows, missing = ops_without_test()
        if missing:
            print("ops without a test (%d of %d opcodes.def rows):" % (len(missing), nrows))
            line = " "
            for m in missing:
                if len(line) + len(m) > 100:
                    print(line)
                    line = " "
                line += " " + m
            print(line)
    notes = []
    if not ptxas:
        notes.append("ptxas not found: the ptxas agreement checks were skipped")
    if not args.san_build and not args.files and not args.only:
        notes.append("no --san-build: the sanitizer half was not run")
    print("%d skipped, %d known failures%s" % (skipped, nknown,
                                                 "; " + "; ".join(notes) if notes else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
