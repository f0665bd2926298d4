#!/usr/bin/env python3
"""run.py: the one test runner of ptxvm (STYLE.md section 10: tests as data).

    python3 tests/run.py [--build DIR] [--san-build DIR] [--timeout S] [-j N] [FILE...]

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
                   stderr must contain. Several RUN lines run in order; their
                   stdouts are concatenated and each must exit with EXIT.
  check:PATH       tests/ptx/diag/err_*.ptx: `ptxvm check PATH` exits 2 and
                   prints `PATH:LINE:COL: error: MESSAGE` as its first line,
                   where the header `// ERROR: LINE:COL: substring` gives the
                   place and a substring of MESSAGE; ok_*.ptx exit 0; every
                   tests/cuda/ptx/*.ptx (nvcc output) exits 0
  ptxas:PATH       where ptxas exists: it rejects every err_*.ptx and accepts
                   every ok_*.ptx (ptxas -arch=sm_90, or the file's own
                   .target when newer, e.g. sm_90a)
  san-unit:NAME, san-check:PATH
                   with --san-build DIR (ASan+UBSan, `make SAN=1`): the unit
                   tests and the front-end corpora (diag, cuda) again with
                   that build; any sanitizer report fails the test

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
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=99",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1:exitcode=99",
    "LSAN_OPTIONS": "exitcode=99",
}
SAN_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
               "SUMMARY: UndefinedBehaviorSanitizer")


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
        m = re.match(r"\s*//\s*(RUN|EXPECT|EXIT|STDERR|ERROR):(.*)$", line)
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


def t_run(tid, path, ptxvm, timeout):
    h = header(path)
    runs = [v for k, v in h if k == "RUN"]
    expect = [v.rstrip() for k, v in h if k == "EXPECT"]
    if not any(k == "EXPECT" for k, _ in h):
        for sib in (path + ".out", os.path.splitext(path)[0] + ".out"):
            if os.path.exists(sib):
                expect = [l.rstrip() for l in read_text(sib).splitlines()]
                break
    exits = [v.strip() for k, v in h if k == "EXIT"]
    want_rc = int(exits[-1]) if exits else 0
    stderrs = [v.strip() for k, v in h if k == "STDERR"]
    stdout, stderr = "", ""
    for r in runs:
        argv = shlex.split(r)
        argv = [ptxvm if a == "ptxvm" else a.replace("%s", path) for a in argv]
        rc, out, err = run_cmd(argv, timeout)
        if rc is None:
            return Result(tid, "fail", "timed out after %ds: %s" % (timeout, r))
        if rc != want_rc:
            return Result(tid, "fail", "exit %d, expected %d: %s" % (rc, want_rc, first_line(err)))
        stdout += out
        stderr += err
    got = [l.rstrip() for l in stdout.splitlines()]
    if got != expect:
        for i in range(max(len(got), len(expect))):
            g = got[i] if i < len(got) else "(nothing)"
            e = expect[i] if i < len(expect) else "(nothing)"
            if g != e:
                return Result(tid, "fail", "stdout line %d: got '%s', expected '%s'"
                              % (i + 1, g[:120], e[:120]))
    for s in stderrs:
        if s not in stderr:
            return Result(tid, "fail", "stderr lacks '%s': %s" % (s, first_line(stderr)))
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


def t_ptxas(tid, path, ptxas, timeout):
    rc, out, err = run_cmd([ptxas, "-arch=" + ptxas_arch(path), path, "-o", os.devnull],
                           timeout)
    if rc is None:
        return Result(tid, "fail", "ptxas timed out")
    if os.path.basename(path).startswith("err_"):
        if rc == 0:
            return Result(tid, "fail", "ptxas accepts it")
    elif rc != 0:
        return Result(tid, "fail", "ptxas rejects it: %s" % first_line(out + err))
    return Result(tid, "pass")


# ---- discovery ----

def find_ptxas():
    for p in ("/usr/local/cuda/bin/ptxas", shutil.which("ptxas")):
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
    return "run"


def plan(args, ptxas):
    """The list of (id, function, args...) to run."""
    jobs = []
    ptxvm = os.path.join(args.build, "ptxvm")
    san_ptxvm = os.path.join(args.san_build, "ptxvm") if args.san_build else None
    if args.files:
        files = [rel(f) for f in args.files]
    else:
        files = ptx_files("tests/ptx") + ptx_files("tests/cuda/ptx")
        for b in (args.build, args.san_build):
            if not b:
                continue
            d = os.path.join(b, "tests")
            pre = "san-unit:" if b == args.san_build else "unit:"
            env = SAN_ENV if b == args.san_build else None
            if os.path.isdir(d):
                for n in sorted(os.listdir(d)):
                    p = os.path.join(d, n)
                    if os.path.isfile(p) and os.access(p, os.X_OK):
                        jobs.append((pre + n, t_unit, p, args.timeout * 2, env))
    for f in files:
        kind = classify(f)
        if kind == "run":
            if any(k == "RUN" for k, _ in header(f)):
                jobs.append(("run:" + f, t_run, f, ptxvm, args.timeout))
            elif args.files:
                jobs.append(("run:" + f, lambda tid: Result(tid, "skip", "no RUN line")))
            continue
        jobs.append(("check:" + f, t_check, f, ptxvm, args.timeout))
        if san_ptxvm:
            jobs.append(("san-check:" + f, t_check, f, san_ptxvm, args.timeout * 2, SAN_ENV))
        if kind == "diag" and ptxas:
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
    jobs = plan(args, ptxas)
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
    if not args.files:
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
    if not args.san_build and not args.files:
        notes.append("no --san-build: the sanitizer half was not run")
    print("%d skipped, %d known failures%s" % (skipped, nknown,
                                                 "; " + "; ".join(notes) if notes else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
