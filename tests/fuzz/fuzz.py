#!/usr/bin/env python3
"""fuzz.py: runs a libFuzzer harness of `make fuzz` and reports what it found.

    python3 tests/fuzz/fuzz.py [--seconds S] [--harness launch|parse] [--short]
    python3 tests/fuzz/fuzz.py --replay FILE...
    python3 tests/fuzz/fuzz.py --tsan

Seeds: every .ptx file of the repository (tests/, examples/, bench/), copied
flat into build-fuzz/seeds/. The harness (build-fuzz/fuzz_HARNESS; default
fuzz_launch, the whole path: parse, validate, lower, launch) runs for S
seconds (default 1800) at low priority in libFuzzer's fork mode, so that it
goes on after a finding. The corpus (the inputs it found beyond the seeds)
grows in build-fuzz/corpus-HARNESS/ from one run to the next; findings
(crash-, leak-, timeout-, oom- files) go to build-fuzz/findings-HARNESS/,
emptied at the start; the log is build-fuzz/HARNESS.log (with --short:
HARNESS-short in each name). At the end the
seeds and the corpus are merged into an empty folder (libFuzzer -merge=1)
to measure their coverage, and it prints the executions, the coverage
(covered edges of the instrumented code, and libFuzzer's features), and
each finding with its first sanitizer line and its signature: the first
function of the library (src/) in the report's stack.

A finding whose signature is listed in tests/fuzz/known_crashes.txt (a
bug being fixed, with its reason) is reported as known; any other finding
makes the exit status 1. --short (the test suite, tests/run.py) uses a
fresh corpus and a fixed seed, so it runs the same way each time, and skips
the coverage merge. --replay runs the harness once on each FILE (a saved
finding, tests/fuzz/crashes/*) and classifies it the same way. --tsan runs
every seed once through build-fuzz/tsan/fuzz_launch (ThreadSanitizer, `make
tsan`), whose launches at -j 2 then run under it, and fails on any report
that tests/tsan.supp does not suppress.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINDS = ("crash-", "leak-", "timeout-", "oom-")
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:symbolize=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
# libFuzzer's options for every run: inputs up to 1 MiB (the largest seeds
# are 800 KB), 30 s per input, 3 GiB of RSS; no limit on one malloc (by
# default one above the RSS limit is a finding), since the library must
# itself refuse what the host cannot give (fuzz_launch.c lets ASan return
# NULL as malloc would); replays and merges leave their inputs in
# build-fuzz/scratch-*, the fuzzing run in its findings folder
LIMITS = ["-max_len=1048576", "-timeout=30", "-rss_limit_mb=3072", "-malloc_limit_mb=1048576"]
SCRATCH = "-artifact_prefix=build-fuzz/scratch-"
FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (\S+) (\S+)")


def env():
    e = dict(os.environ)
    for k, v in SAN_ENV.items():
        e[k] = (e[k] + ":" + v) if k in e else v
    return e


def seeds():
    d = os.path.join(ROOT, "build-fuzz/seeds")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for top in ("tests", "examples", "bench"):
        for base, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(".ptx"):
                    src = os.path.join(base, f)
                    name = os.path.relpath(src, ROOT).replace(os.sep, "_")
                    shutil.copyfile(src, os.path.join(d, name))
    return d


def known_list():
    known = {}
    p = os.path.join(ROOT, "tests/fuzz/known_crashes.txt")
    if os.path.exists(p):
        for line in open(p, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                sig, _, reason = line.partition(" ")
                known[sig] = reason.strip()
    return known


def classify(binary, path, timeout=60):
    """(signature, first report line) of one input replayed by the harness;
    signature None when the input no longer fails."""
    try:
        p = subprocess.run([binary, SCRATCH] + LIMITS + [path], cwd=ROOT, env=env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "no result in %d s" % timeout
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode == 0:
        return None, ""
    first = next((l.strip() for l in out.splitlines()
                  if re.search(r"ERROR: |runtime error:|deadly signal|timeout after", l)), "")
    if "timeout after" in out or "ERROR: libFuzzer: timeout" in out:
        return "timeout", first
    if "out-of-memory" in out:
        return "oom", first
    sig = None
    for line in out.splitlines():
        m = FRAME_RE.match(line)
        if m and "/src/" in m.group(2):
            sig = m.group(1)
            break
    if sig is None:
        m = next((FRAME_RE.match(l) for l in out.splitlines()
                  if FRAME_RE.match(l) and "/tests/fuzz/" in FRAME_RE.match(l).group(2)), None)
        sig = "harness:" + m.group(1) if m else "unknown"
    if "LeakSanitizer" in out:
        sig = "leak:" + sig
    return sig, first


def report(binary, files):
    """Prints each failing input's signature; returns the number not known."""
    known, bad = known_list(), 0
    for f in files:
        sig, first = classify(binary, f)
        if sig is None:
            print("ok %s: does not fail when replayed" % os.path.relpath(f, ROOT))
            continue
        why = known.get(sig)
        print("%s %s: %s: %s" % ("known" if why else "FINDING", os.path.relpath(f, ROOT), sig,
                                 first[:160]))
        if why:
            print("    (tests/fuzz/known_crashes.txt: %s)" % why)
        else:
            bad += 1
    return bad


def last_status(log):
    """The last '#N ...' status line of a libFuzzer log."""
    lines = [l for l in open(log, encoding="utf-8", errors="replace") if re.match(r"#\d+", l)]
    return lines[-1] if lines else ""


def field(line, name):
    m = re.search(r"\b%s:? (\d+)" % name, line)
    return m.group(1) if m else "?"


def coverage(binary, dirs):
    """(edges covered, edges in all, features) of the inputs in dirs: a
    crash-resistant merge of them into an empty folder counts both."""
    out_dir = os.path.join(ROOT, "build-fuzz/coverage")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    p = subprocess.run(["nice", "-n", "19", binary, "-merge=1", SCRATCH] + LIMITS + [out_dir] + dirs,
                       cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    shutil.rmtree(out_dir, ignore_errors=True)
    out = p.stdout.decode("utf-8", "replace")
    total = re.search(r"\((\d+) inline 8-bit counters\)", out)
    m = re.search(r"MERGE-OUTER: \d+ new files with (\d+) new features added; "
                  r"(\d+) new coverage edges", out)
    if not m:
        return "?", total.group(1) if total else "?", "?"
    return m.group(2), total.group(1) if total else "?", m.group(1)


def tsan_replay(seed_dir):
    """Every seed once through the ThreadSanitizer harness; the number of
    reports, each printed by its SUMMARY line."""
    binary = os.path.join(ROOT, "build-fuzz/tsan/fuzz_launch")
    if not os.access(binary, os.X_OK):
        print("fuzz.py: build-fuzz/tsan/fuzz_launch missing (make tsan)")
        return 1
    e = env()
    e["TSAN_OPTIONS"] = "halt_on_error=0:suppressions=" + os.path.join(ROOT, "tests/tsan.supp")
    p = subprocess.run(["nice", "-n", "19", binary, "-runs=0", SCRATCH] + LIMITS + [seed_dir],
                       cwd=ROOT, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    sums = [l.strip() for l in out.splitlines() if l.startswith("SUMMARY: ThreadSanitizer")]
    runs = re.search(r"Done (\d+) runs", out)
    print("fuzz_launch under ThreadSanitizer: %s seeds, %d reports" %
          (runs.group(1) if runs else "?", len(sums)))
    for line in sorted(set(sums)):
        print("  " + line[:200])
    return len(sums) or (0 if runs else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=1800)
    ap.add_argument("--harness", default="launch", choices=("launch", "parse"))
    ap.add_argument("--short", action="store_true", help="the test suite's run")
    ap.add_argument("--replay", nargs="+", metavar="FILE")
    ap.add_argument("--tsan", action="store_true", help="the seeds under ThreadSanitizer")
    args = ap.parse_args()
    os.chdir(ROOT)
    if args.tsan:
        return 1 if tsan_replay(seeds()) else 0
    binary = os.path.join(ROOT, "build-fuzz/fuzz_" + args.harness)
    if not os.access(binary, os.X_OK):
        print("fuzz.py: %s missing (make fuzz; it needs clang and libFuzzer: sh scripts/deps.sh)"
              % os.path.relpath(binary, ROOT))
        return 1
    if args.replay:
        return 1 if report(binary, args.replay) else 0
    seed_dir = seeds()
    tag = args.harness + ("-short" if args.short else "")
    found = os.path.join(ROOT, "build-fuzz/findings-" + tag)
    shutil.rmtree(found, ignore_errors=True)
    os.makedirs(found)
    corpus = os.path.join(ROOT, "build-fuzz/corpus-" + tag)
    if args.short:
        shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(corpus, exist_ok=True)
    log = os.path.join(ROOT, "build-fuzz/%s.log" % tag)
    argv = ["nice", "-n", "19", binary] + LIMITS + [
        "-dict=tests/fuzz/ptx.dict", "-max_total_time=%d" % args.seconds,
        "-artifact_prefix=%s/" % found, "-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1",
        "-ignore_ooms=1", "-print_final_stats=1"]
    if args.short:
        argv.append("-seed=1")
    with open(log, "w") as lf:
        subprocess.run(argv + [corpus, seed_dir], cwd=ROOT, env=env(), stdout=lf,
                       stderr=subprocess.STDOUT)
    m = re.match(r"#(\d+)", last_status(log))
    print("fuzz_%s: %d s, %s executions, %d seeds, %d inputs in the corpus" % (
        args.harness, args.seconds, m.group(1) if m else "0", len(os.listdir(seed_dir)),
        len(os.listdir(corpus))))
    if not args.short:
        cov, total, ft = coverage(binary, [corpus, seed_dir])
        print("coverage of the seeds and the corpus: %s of %s edges, %s features" %
              (cov, total, ft))
    files = sorted(f for f in glob.glob(os.path.join(found, "*"))
                   if os.path.basename(f).startswith(KINDS))
    bad = report(binary, files)
    print("fuzz_%s: %d findings, %d not known (log %s)" % (args.harness, len(files), bad,
                                                         os.path.relpath(log, ROOT)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
