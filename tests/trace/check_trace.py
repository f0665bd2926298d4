#!/usr/bin/env python3
"""check_trace.py PTXVM: runs tests/trace/timeline.ptx (2 CTAs of 2 warps:
cp.async + mbarrier, bar.sync 0 and 1, shfl.sync, then in warp 1 a
shfl.sync whose lanes 0-15 wait for lanes 16-31 held on mbarrier bar2) with --trace and checks
the file against what the kernel must do (hand-derived from its code), the
launch's --stats (an independent count) and itself: JSON that parses,
metadata naming every CTA and warp, per warp spans that do not overlap and
cover the warp's life, the waits the kernel has, an async begin and end
per copy, the mbarrier phase instant after the last landing, and the same
bytes from two runs, -j1 and -j2, and under one --schedule twice. Prints
"N passed, M failed"; exits 1 on a failure."""
import json
import os
import re
import subprocess
import sys
import tempfile

PTXVM = sys.argv[1] if len(sys.argv) > 1 else "build/ptxvm"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PTX = os.path.join("tests", "trace", "timeline.ptx")
ARGS = [PTXVM, "run", PTX, "-g", "2", "-b", "64", "-a", "u32[128]:iota", "-a", "u32[4]:zero", "-o", "1"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(path, *extra):
    p = subprocess.run(ARGS + ["--trace", path] + list(extra), cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    return p


tmp = tempfile.mkdtemp()
t = os.path.join(tmp, "a.json")
p = run(t, "-j1", "--stats")
check(p.returncode == 0, "the launch runs: %s" % p.stderr[-300:])
# out[cta*2 + warp] = sum of iota over the warp's 32 words
want = " ".join(str(sum(range(32 * k, 32 * k + 32))) for k in range(4))
check(p.stdout.split() == want.split(), "results %r, want %r" % (p.stdout, want))
d = json.load(open(t))
ev = d["traceEvents"]
check(all(e["ph"] in "XbeiM" for e in ev), "only X, b, e, i, M events")
names = {(e["pid"], e.get("tid"), e["name"]): e["args"] for e in ev if e["ph"] == "M"}
for cta in range(2):
    check(names.get((cta, None, "process_name"), {}).get("name", "").startswith("CTA (%d,0,0)" % cta),
          "CTA %d named" % cta)
    for w in range(2):
        check(names.get((cta, w, "thread_name")) == {"name": "warp %d" % w}, "warp %d of CTA %d named" % (w, cta))

# spans per warp: ordered, not overlapping, running and waits alternating
total = int(re.search(r"warp-instructions: (\d+)", p.stderr).group(1))
ran = 0
for cta in range(2):
    for w in range(2):
        s = sorted((e for e in ev if e["ph"] == "X" and e["pid"] == cta and e["tid"] == w), key=lambda e: e["ts"])
        check(s and s[0]["name"] == "running", "CTA %d warp %d starts running" % (cta, w))
        for a, b in zip(s, s[1:]):
            check(a["ts"] + a["dur"] == b["ts"], "CTA %d warp %d: spans abut (%s then %s)" % (cta, w, a, b))
            check((a["name"] == "running") != (b["name"] == "running"), "running and waits alternate: %s %s" % (a, b))
        ran += sum(e["args"]["instructions"] for e in s if e["name"] == "running")
        waits = [(e["name"], e["args"]["what"]) for e in s if e["name"] != "running"]
        check(all(e["args"]["at"].startswith(PTX + ":") for e in s if e["name"] != "running"),
              "waits are located in the PTX")
        mb = [x for x in waits if x[0] == "mbarrier"]
        check(len(mb) == 1 and "mbarrier bar " in mb[0][1] and "parity 0" in mb[0][1],
              "CTA %d warp %d waits once on mbarrier bar, parity 0: %s" % (cta, w, waits))
        bars = [x[1].split(" (")[0] for x in waits if x[0] == "CTA barrier"]
        # in order, warp 0 arrives first at both bar.sync (warp 1 spins before bar.sync 1)
        check(bars == (["barrier 0", "barrier 1"] if w == 0 else []), "CTA %d warp %d CTA barriers: %s" % (cta, w, bars))
        coll = [x[1] for x in waits if x[0] == "warp collective"]
        check(coll == ([] if w == 0 else ["warp collective with membermask 0xffffffff: lanes 0-15 arrived, "
                                          "lanes 16-31 missing"]), "CTA %d warp %d collectives: %s" % (cta, w, coll))
        check({x[0] for x in waits} <= {"mbarrier", "CTA barrier", "warp collective"}, "no other waits: %s" % waits)
check(ran == total, "instructions of the running spans %d = --stats warp-instructions %d" % (ran, total))

# async copies: a begin and an end per thread and kind, the end not before it
for cta in range(2):
    for kind in ("cp.async", "cp.async.mbarrier.arrive"):
        b = {e["id2"]["local"]: e["ts"] for e in ev if e["ph"] == "b" and e["pid"] == cta and e["name"] == kind}
        f = {e["id2"]["local"]: e["ts"] for e in ev if e["ph"] == "e" and e["pid"] == cta and e["name"] == kind}
        check(len(b) == 64 and b.keys() == f.keys(), "CTA %d: 64 %s issued and landed" % (cta, kind))
        check(all(f[k] >= b[k] for k in b), "CTA %d: %s lands after its issue" % (cta, kind))
    ph = [e for e in ev if e["ph"] == "i" and e["pid"] == cta and e["args"]["shared_offset"] == "0x0"]
    check(len(ph) == 1 and ph[0]["name"] == "mbarrier phase 0 complete", "CTA %d: one phase completion" % cta)
    ph2 = [e for e in ev if e["ph"] == "i" and e["pid"] == cta and e["args"]["shared_offset"] == "0x8"]
    coll = [e for e in ev if e["ph"] == "X" and e["pid"] == cta and e["name"] == "warp collective"]
    check(len(ph2) == 1 and len(coll) == 1 and coll[0]["ts"] <= ph2[0]["ts"] <= coll[0]["ts"] + coll[0]["dur"],
          "CTA %d: bar2's phase completes while warp 1 waits in the collective" % cta)
    last = max(e["ts"] for e in ev if e["ph"] == "e" and e["pid"] == cta)
    ends = [e["ts"] + e["dur"] for e in ev if e["ph"] == "X" and e["pid"] == cta and e["name"] == "mbarrier"]
    check(ph and ph[0]["ts"] >= last and all(ph[0]["ts"] <= x for x in ends),
          "CTA %d: the phase completes after the last landing, before the waits end" % cta)

# determinism
data = open(t, "rb").read()
for name, extra in (("again", ["-j1"]), ("j2", ["-j2"]), ("j2 again", ["-j2"])):
    u = os.path.join(tmp, "b.json")
    run(u, *extra)
    check(open(u, "rb").read() == data, "the trace is the same bytes (%s)" % name)
s1, s2 = os.path.join(tmp, "s1.json"), os.path.join(tmp, "s2.json")
run(s1, "--schedule", "7", "-j1")
run(s2, "--schedule", "7", "-j2")
check(open(s1, "rb").read() == open(s2, "rb").read(), "--schedule 7: the same bytes at -j1 and -j2")
check(open(s1, "rb").read() != data, "--schedule 7 changes the timeline")

# the bound: the file says how many were dropped, and so does stderr
u = os.path.join(tmp, "cap.json")
p = run(u, "--trace-max", "20")
d = json.load(open(u))
check(len(d["traceEvents"]) == 21 and "events dropped" in d["traceEvents"][-1]["name"],
      "a bound of 20 keeps 20 events and a final notice")
m = re.search(r"truncated: (\d+) events dropped", p.stderr)
check(m and int(m.group(1)) == len(ev) - 20, "stderr counts the dropped events: %r" % p.stderr)
check(p.returncode == 0, "a truncated trace is no failure")
p = subprocess.run(ARGS + ["--trace", os.path.join(tmp, "no", "such", "dir.json")], cwd=ROOT,
                   capture_output=True, text=True, timeout=60)
check(p.returncode == 2 and "ptxvm: --trace " in p.stderr and "trace file" in p.stderr and not p.stdout,
      "an unwritable trace file is refused before the launch (exit 2, no dump): %d %r %r"
      % (p.returncode, p.stdout, p.stderr))
# a cluster of 16 CTAs (one warp each) meeting at barrier.cluster: one
# process per CTA, all of cluster 0, on one clock; the last CTA to arrive
# never waits, every other one waits at the cluster barrier once
u = os.path.join(tmp, "c16.json")
p = subprocess.run([PTXVM, "run", "tests/ptx/cluster/cluster16_maxclusterrank.ptx", "-g", "16", "-c", "16", "-b",
                    "32", "-a", "u32[1]:zero", "-q", "--trace", u], cwd=ROOT, capture_output=True, text=True,
                   timeout=60)
ev = json.load(open(u))["traceEvents"]
pn = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
check(pn == {r: "CTA (%d,0,0) cluster 0 rank %d" % (r, r) for r in range(16)}, "16 CTAs of cluster 0: %s" % pn)
cw = [e for e in ev if e["ph"] == "X" and e["name"] == "cluster barrier"]
check(len(cw) == 15 and len({e["pid"] for e in cw}) == 15, "15 CTAs wait at the cluster barrier: %d" % len(cw))
check(all("barrier.cluster phase 0" in e["args"]["what"] for e in cw), "the waits name the barrier's phase")
ends = {e["ts"] + e["dur"] for e in cw}
check(len(ends) == 1, "the waits end together, on the cluster's clock: %s" % ends)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
