#!/usr/bin/env python3
"""numba_suite.py: numba-cuda's own test suite under `ptxvm exec`, with its
pass rate and the causes of its failures (tests/clients/README.md).

    python3 tests/clients/numba_suite.py --build build --python build/clients-venv/bin/python [TESTS...]

runs `ptxvm exec -q PYTHON -m numba.runtests -v TESTS` (default
numba.cuda.tests), keeps the whole output in build/clients/numba-suite.log,
and prints the totals unittest gives (--isolate: each test module in its
own process, so that a kernel fault, sticky as on a GPU, stops only its
own module; the totals are then summed) (passed = run - failures - errors -
skipped - expected failures) and the failures and errors grouped by cause,
most frequent first, each with a count and one test that shows it. A cause
is, in order: the CUDA call and error Numba names ("Call to cuX results in
CUDA_ERROR_Y"), the driver's "ptxvm: ..." lines printed while the test ran
(an entry point it does not implement, PTX it cannot execute, a fault), or
the exception's last line with numbers and addresses taken out. Exit 0 when
the suite ran to its summary line, whatever it counted; 1 if it did not."""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import time

HEADER = re.compile(r"^(\w+) \(([\w.]+)\)(?: \.\.\. |\n)", re.M)
# a failure's block: the header, the test's docstring (if any), dashes, the traceback
BLOCK = re.compile(r"^={50,}\n(FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)[^\n]*\n(?:[^\n]*\n)*?-{50,}\n"
                   r"(.*?)(?=^={50,}\n|^-{50,}\nRan )", re.M | re.S)
PTXVM_LINE = re.compile(r"ptxvm: ([^\n]*)")
SUMMARY = re.compile(r"^Ran (\d+) tests? in ([\d.]+)s\s*\n\s*\n(OK|FAILED)(?: \(([^)]*)\))?", re.M)
CALL = re.compile(r"Call to (cu\w+) results in (CUDA_ERROR_\w+)")


def normalize(line):
    line = re.sub(r"0x[0-9a-fA-F]+", "0xX", line)
    line = re.sub(r"/\S+/", ".../", line)
    line = re.sub(r"\d+", "N", line)
    return line[:160]


def cause_of(body, ptxvm_lines):
    m = CALL.search(body)
    if m:
        return "%s: %s" % (m.group(1), m.group(2))
    said = [l for l in ptxvm_lines if "is not implemented" in l]
    said = said or [l for l in ptxvm_lines if not l.startswith(("  ", "stats"))]
    if said:
        return "ptxvm: " + normalize(said[0])
    lines = [l for l in body.strip().splitlines() if l.strip()]
    last = lines[-1] if lines else "(no traceback)"
    return normalize(last.strip())


def test_modules(runtests, tests):
    """The test modules (numba.cuda.tests.cudapy.test_x) of the listed tests, in the suite's order."""
    out = subprocess.run(runtests + ["-l"] + tests, capture_output=True, text=True).stdout
    mods = []
    for line in out.splitlines():
        parts = line.strip().split(".")
        if len(parts) < 3 or not line.startswith("numba"):
            continue
        i = max(k for k, p in enumerate(parts) if p.startswith("test"))  # the method
        j = max(k for k, p in enumerate(parts[:i]) if p.startswith("test_"))  # the module
        mod = ".".join(parts[:j + 1])
        if mod not in mods:
            mods.append(mod)
    return [[m] for m in mods]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", required=True)
    ap.add_argument("--timeout", type=int, default=5400)
    ap.add_argument("--log", default=None)
    ap.add_argument("--isolate", action="store_true",
                    help="run each test module in its own process, so that a kernel fault (a sticky "
                         "error, as on a GPU) fails only the rest of its own module")
    ap.add_argument("tests", nargs="*", default=["numba.cuda.tests"])
    args = ap.parse_args()
    log = args.log or os.path.join(args.build, "clients", "numba-suite.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    runtests = [os.path.join(args.build, "ptxvm"), "exec", "-q", args.python, "-m", "numba.runtests"]
    groups = [args.tests]
    if args.isolate:
        groups = test_modules(runtests, args.tests)
    t0 = time.time()
    spans = []   # where each run's output starts in the log
    with open(log, "w") as f:
        for g in groups:
            f.flush()
            spans.append(f.tell())
            left = args.timeout - (time.time() - t0)
            try:
                subprocess.run(runtests + ["-v"] + g, stdout=f, stderr=subprocess.STDOUT, timeout=max(left, 1))
            except subprocess.TimeoutExpired:
                print("the suite ran past %d s: stopped" % args.timeout)
                break
    text = open(log, errors="replace").read()
    secs = time.time() - t0

    heads = [(m.start(), m.group(2)) for m in HEADER.finditer(text)]
    starts = [p for p, _ in heads]
    said = collections.defaultdict(list)
    for m in PTXVM_LINE.finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0:
            said[heads[i][1]].append(m.group(1))

    # each run's summary is the last in its span (a test may run a suite of its own in a child)
    spans.append(len(text) + 1)
    summaries = []
    for a, b in zip(spans, spans[1:]):
        found = list(SUMMARY.finditer(text, a, min(b, len(text))))
        if not found:
            print("numba-cuda suite: a run without its summary line (see %s); %d test headers seen" % (log, len(heads)))
            return 1
        summaries.append(found[-1])
    run = 0
    counts = dict(failures=0, errors=0, skipped=0)
    counts["expected failures"] = counts["unexpected successes"] = 0
    for s in summaries:
        run += int(s.group(1))
        for part in (s.group(4) or "").split(","):
            if "=" in part:
                k, v = part.strip().split("=")
                counts[k] += int(v)

    # unittest counts each failing subtest; a test fails once, by its first block (ERROR or FAIL)
    causes = collections.Counter()
    example = {}
    kind_of = {}
    ends = [s.end() for s in summaries]
    for m in BLOCK.finditer(text):
        kind, test, body = m.group(1), m.group(3), m.group(4)
        if not any(m.start() < e for e in ends) or test in kind_of:
            continue
        kind_of[test] = kind
        c = cause_of(body, said.get(test, []))
        causes[c] += 1
        example.setdefault(c, "%s %s" % (kind, test))
    failed = sum(1 for k in kind_of.values() if k == "FAIL")
    errors = sum(1 for k in kind_of.values() if k == "ERROR")
    unexpected = sum(1 for k in kind_of.values() if k == "UNEXPECTED SUCCESS")
    passed = run - failed - errors - unexpected - counts["skipped"] - counts["expected failures"]
    ran = run - counts["skipped"]
    print("numba-cuda suite under ptxvm exec: %d tests in %.0f s%s (log %s)"
          % (run, secs, ", each test module in its own process" if args.isolate else "", log))
    print("  passed %d, failed %d, errors %d, skipped %d, expected failures %d, unexpected successes %d"
          % (passed, failed, errors, counts["skipped"], counts["expected failures"], unexpected))
    print("  (unittest's own count, subtests included: failures %d, errors %d)"
          % (counts["failures"], counts["errors"]))
    if ran:
        print("  pass rate %.1f%% of the %d tests that ran (%.1f%% of all %d)"
              % (100.0 * passed / ran, ran, 100.0 * passed / run, run))
    if causes:
        print("  failures and errors by cause:")
        for c, n in causes.most_common(25):
            print("  %5d  %s\n         e.g. %s" % (n, c, example[c]))
        rest = sum(causes.values()) - sum(n for _, n in causes.most_common(25))
        if rest:
            print("  %5d  in %d other causes" % (rest, len(causes) - 25))
    return 0


if __name__ == "__main__":
    sys.exit(main())
