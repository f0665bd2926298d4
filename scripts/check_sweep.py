#!/usr/bin/env python3
"""check_sweep.py: reruns conformance launches under --check and counts findings.

    python3 scripts/check_sweep.py [--build DIR] [-j N] [--ptx] [--cuda] [--triton] [--numba]
                                   [--grep WORD [--expect FILE]]...

Every `// RUN: ptxvm run ...` line of tests/ptx/**/*.ptx (outside diag/ and
tests/ptx/check/, tests/ptx/race/, tests/ptx/initcheck/, tests/ptx/synccheck/,
tests/ptx/proxy/, which test findings
on purpose) and every
launch line of tests/{cuda,triton,numba}/MANIFEST (the sm_90 variant) runs
again with --check added; a run whose stderr holds WORD ("data race" by
default) is listed with its first such line. Exit status 1 when any did.
With --expect FILE (tests/races_on_purpose.txt), the files it lists are
the ones that race by design: exit status 1 when any other launch gives a
finding or a listed file gives none; the suite runs it so (test
sweep:scripts/check_sweep.py: issue 17, the existing suite stays free of
races under --check). --grep may repeat, each with its own --expect (the
n-th --expect goes with the n-th --grep), so one sweep checks several kinds
of finding: the suite also passes `--grep 'uninitialized read' --expect
tests/uninitialized_on_purpose.txt` (the uninitialized-read checker) and
`--grep 'barrier misuse' --expect tests/sync_misuse_on_purpose.txt` (the
synchronization misuse checker, src/exec/synccheck.c).
"""
import argparse, glob, os, re, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ptx_runs(ptxvm):
    for f in sorted(glob.glob(os.path.join(ROOT, "tests/ptx/**/*.ptx"), recursive=True)):
        rel = os.path.relpath(f, ROOT)
        if "/diag/" in rel or rel.startswith(("tests/ptx/check/", "tests/ptx/race/", "tests/ptx/initcheck/",
                                         "tests/ptx/synccheck/", "tests/ptx/proxy/")):
            continue
        for line in open(f, errors="replace"):
            m = re.match(r"\s*//\s*RUN:\s*ptxvm\s+run\s+(.*)", line)
            if m:
                args = [a.replace("%s", rel) for a in shlex.split(m.group(1))]
                yield rel, [ptxvm, "run", "--check"] + args


def manifest_runs(ptxvm, corpus):
    path = os.path.join(ROOT, "tests", corpus, "MANIFEST")
    if not os.path.exists(path):
        return
    for line in open(path):
        if line.startswith("#") or "|" not in line:
            continue
        head, opts = line.split("|")[0].split(), line.split("|")[1].split()
        if len(head) != 2:
            continue
        f = os.path.join("tests", corpus, head[0])
        if corpus == "cuda" and ".sm_90." not in f and not f.endswith(".sm_90.ptx"):
            continue
        yield "%s:%s" % (f, head[1]), [ptxvm, "run", "-q", "--check"] + opts + [f, head[1]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--grep", action="append")
    ap.add_argument("--expect", metavar="FILE", action="append")
    for c in ("ptx", "cuda", "triton", "numba"):
        ap.add_argument("--" + c, action="store_true")
    o = ap.parse_args()
    greps = o.grep or ["data race"]
    expects = o.expect or []
    if len(expects) > len(greps):
        ap.error("more --expect than --grep")
    ptxvm = os.path.join(o.build, "ptxvm")
    sel = [c for c in ("ptx", "cuda", "triton", "numba") if getattr(o, c)] or ["ptx", "cuda", "triton", "numba"]
    runs = []
    for c in sel:
        runs += list(ptx_runs(ptxvm)) if c == "ptx" else list(manifest_runs(ptxvm, c))

    def one(r):
        name, cmd = r
        try:
            p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, errors="replace", timeout=300)
        except subprocess.TimeoutExpired:
            return name, ["timeout"] * len(greps)
        hits = [None] * len(greps)
        for l in p.stderr.splitlines():
            for k, g in enumerate(greps):
                if hits[k] is None and g in l:
                    hits[k] = l
        return name, hits

    expected = [{l.split()[0] for l in open(e) if l.strip() and not l.startswith("#")} for e in expects]
    expected += [None] * (len(greps) - len(expected))
    bad, wrong, seen = [0] * len(greps), 0, [set() for _ in greps]
    with ThreadPoolExecutor(o.j) as ex:
        for name, hits in ex.map(one, runs):
            for k, hit in enumerate(hits):
                if not hit:
                    continue
                bad[k] += 1
                seen[k].add(name.split(":")[0])
                on_purpose = expected[k] is not None and name.split(":")[0] in expected[k]
                wrong += expected[k] is None or not on_purpose
                print("%s%s: %s" % ("" if expected[k] is None or on_purpose else "FAIL: unexpected: ", name, hit))
    for k, g in enumerate(greps):
        print("%d launches under --check, %d with '%s'" % (len(runs), bad[k], g))
        for f in sorted((expected[k] or set()) - seen[k]):
            wrong += 1
            print("FAIL: missing: %s is listed in %s but gave no '%s'" % (f, expects[k], g))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
