#!/usr/bin/env python3
"""run.py: the Python clients' tests (tests/clients/README.md), each script
run as `ptxvm exec -q PYTHON SCRIPT` in a Python environment that has the
clients installed (`make test-clients` makes one under build/ with pip).

    python3 tests/clients/run.py --build build --python build/clients-venv/bin/python

A script passes when it exits 0 (each checks its own results against
numpy and exits 1 naming what differs), is skipped when it exits 77 (it
says why); every other exit is a failure, shown with the last lines of its
output and the driver's "ptxvm: ... is not implemented" lines. One more
test runs the Numba script with --keep-nvjitlink: Numba then links a cubin,
and the driver must refuse it, saying it is a cubin, rather than run
anything. Ends with "N passed, M failed, K skipped"; exit 1 on a failure."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77

# (name, script, extra environment)
TESTS = [
    ("cuda.bindings.driver vector add", "bindings_vector_add.py", {}),
    ("cuda.core Program vector add", "core_vector_add.py", {}),
    ("numba-cuda kernels", "numba_kernels.py", {}),
    ("triton vector add + softmax", "triton_kernels.py", {"TRITON_DEFAULT_FP_FUSION": "1"}),
    ("cupy RawKernel (PTX)", "cupy_rawkernel.py", {"CUPY_COMPILE_WITH_PTX": "1"}),
]
NOT_IMPL = re.compile(r"^ptxvm: (\S+) is not implemented", re.M)


def run(cmd, env, timeout):
    t = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr, time.time() - t
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        return None, out, time.time() - t


def tail(text, n=6):
    return "\n".join("    " + l for l in text.strip().splitlines()[-n:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", required=True)
    ap.add_argument("--timeout", type=int, default=900)
    args = ap.parse_args()
    ptxvm = os.path.join(args.build, "ptxvm")
    cache = tempfile.mkdtemp(prefix="ptxvm-clients-")
    base = dict(os.environ, TRITON_CACHE_DIR=os.path.join(cache, "triton"),
                NUMBA_CACHE_DIR=os.path.join(cache, "numba"), CUPY_CACHE_DIR=os.path.join(cache, "cupy"))
    passed = failed = skipped = 0
    missing = set()
    for name, script, extra in TESTS:
        cmd = [ptxvm, "exec", "-q", args.python, os.path.join(HERE, script), args.build]
        rc, out, secs = run(cmd, dict(base, **extra), args.timeout)
        missing.update(NOT_IMPL.findall(out))
        if rc == 0:
            passed += 1
            print("PASS %s (%.0f s)" % (name, secs))
        elif rc == SKIP:
            skipped += 1
            print("SKIP %s: %s" % (name, out.strip().splitlines()[-1] if out.strip() else ""))
        else:
            failed += 1
            print("FAIL %s: %s (%.0f s)\n%s" % (name, "timed out" if rc is None else "exit %d" % rc, secs, tail(out)))

    # nvJitLink left visible: Numba links a cubin, which the driver must refuse by name
    cmd = [ptxvm, "exec", "-q", "--keep-nvjitlink", args.python, os.path.join(HERE, "numba_kernels.py")]
    rc, out, secs = run(cmd, base, args.timeout)
    if rc not in (0, None) and re.search(r"^ptxvm: .*cubin", out, re.M):
        passed += 1
        print("PASS numba-cuda with --keep-nvjitlink: the cubin refused by name (%.0f s)" % secs)
    else:
        failed += 1
        print("FAIL numba-cuda with --keep-nvjitlink: want a nonzero exit and a 'ptxvm: ... cubin' line, got %s\n%s"
              % ("a time-out" if rc is None else "exit %d" % rc, tail(out)))
    if missing:
        print("entry points the clients called that the driver does not implement: " + ", ".join(sorted(missing)))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
