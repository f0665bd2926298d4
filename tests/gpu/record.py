#!/usr/bin/env python3
"""record.py: run every conformance launch on a real GPU and record what it did.

    python3 tests/gpu/record.py GPURUN OUT.json [--timeout S] [--jobs N]

Runs each `// RUN: ptxvm run ...` line of tests/ptx and each launch of
tests/cuda/MANIFEST (every variant) with GPURUN (build/gpurun: the same
options on the CUDA driver) in place of ptxvm, under a timeout, and writes
one JSON record per launch: its id, argv, exit status (None: it did not end
within the timeout, i.e. it hung), stdout, and the head of stderr.
tests/run.py compares ptxvm against OUT.json (tests/gpu/README.md).
"""
import concurrent.futures
import datetime
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("runpy_tests", os.path.join(HERE, "..", "run.py"))
rt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rt)


def launches():
    """(id, argv-without-program) for every launch the suite makes."""
    out = []
    for f in rt.ptx_files("tests/ptx"):
        if rt.classify(f) == "run":
            out += [(i, argv) for i, argv in rt.run_launches(f) if argv]
    for tid, path, kernel, opts, _ in rt.cuda_launches():
        out.append(("cuda:" + tid, ["-q"] + opts + [path, kernel]))
    return out


def run_one(gpurun, lid, argv, timeout):
    try:
        p = subprocess.run([gpurun] + argv, cwd=rt.ROOT, capture_output=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, e.stdout or b"", e.stderr or b""
    dec = lambda b: b.decode("utf-8", "replace")
    ptx = next(a for a in argv if a.endswith(".ptx"))
    return {"id": lid, "argv": argv, "sha": rt.file_sha(ptx), "rc": rc, "stdout": dec(out)[:200000], "stderr": dec(err)[:2000]}


def main():
    gpurun, dest = os.path.abspath(sys.argv[1]), sys.argv[2]
    timeout = float(sys.argv[sys.argv.index("--timeout") + 1]) if "--timeout" in sys.argv else 5.0
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else 8
    todo = launches()
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        recs = list(ex.map(lambda t: run_one(gpurun, t[0], t[1], timeout), todo))
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        smi = "unknown (no nvidia-smi)"
    doc = {"device": smi, "recorded": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "timeout_s": timeout, "launches": recs}
    with open(dest, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    hung = sum(r["rc"] is None for r in recs)
    bad = sum(r["rc"] not in (0, None) for r in recs)
    print("%d launches: %d ran, %d failed on the device, %d hung (> %gs)"
          % (len(recs), len(recs) - hung - bad, bad, hung, timeout))


if __name__ == "__main__":
    main()
