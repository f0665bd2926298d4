#!/usr/bin/env python3
"""test_python.py: the Python package (python/ptxvm) against the built
library: numpy arrays in and out, scalars typed by the kernel's .param list,
faults, deadlocks, findings and PTX errors as exceptions with the library's
message, stats as a dict (the same numbers as `ptxvm run --stats`).

    PTXVM_LIBRARY=build/libptxvm.so PYTHONPATH=python python3 tests/python/test_python.py [BUILD]

Prints "N passed, M failed"; exits 1 on a failure. Needs numpy."""
import ctypes
import os
import re
import subprocess
import sys
import traceback

import numpy as np
import ptxvm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
# twice(p, n): p[i] *= 2 for the global thread index i < n
TWICE = HEAD + """
.visible .entry twice(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<6>; .reg .b64 %rd<4>; .reg .pred %q;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.u32 %q, %r2, %r1;
  @%q ret;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r5, [%rd3];
  shl.b32 %r5, %r5, 1;
  st.global.u32 [%rd3], %r5;
  ret;
}
"""
# scalars(out, a, b, c, d, e): out's bytes are a .f32, .f64, .s16, .f16, .s64
SCALARS = HEAD + """
.visible .entry scalars(.param .u64 out, .param .f32 a, .param .f64 b, .param .s16 c,
                        .param .f16 d, .param .s64 e)
{
  .reg .f32 %f1; .reg .f64 %fd1; .reg .b16 %h<3>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  ld.param.f32 %f1, [a];   st.global.f32 [%rd1], %f1;
  ld.param.f64 %fd1, [b];  st.global.f64 [%rd1+8], %fd1;
  ld.param.s16 %h1, [c];   st.global.b16 [%rd1+16], %h1;
  ld.param.b16 %h2, [d];   st.global.b16 [%rd1+18], %h2;
  ld.param.s64 %rd2, [e];  st.global.s64 [%rd1+24], %rd2;
  ret;
}
"""
FAULT = HEAD + """
.visible .entry wild(.param .u64 p)
{
  .reg .b64 %rd<2>; .reg .b32 %r1;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  st.global.u32 [%rd1+4096], %r1;
  ret;
}
"""

tests = []


def test(f):
    tests.append(f)
    return f


def raises(cls, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except cls as e:
        return e
    raise AssertionError("%s not raised" % cls.__name__)


@test
def kernel_by_plain_name():
    # nvcc's mangled names: twice(int*) and an overloaded pair of g
    mangled = HEAD + "".join(".visible .entry %s(.param .u64 p)\n{\n  ret;\n}\n" % n
                             for n in ("_Z5twicePi", "_Z1gPi", "_Z1gPf"))
    with ptxvm.Context() as ctx:
        mod = ctx.load(mangled, "m.ptx")
        assert mod["twice"].name == "_Z5twicePi" and mod["_Z1gPf"].name == "_Z1gPf"
        e = raises(ptxvm.Error, mod.__getitem__, "g")
        assert "it names several: _Z1gPi, _Z1gPf" in e.message, e.message
        e = raises(ptxvm.Error, mod.__getitem__, "twic")
        assert "the module's functions: _Z5twicePi, _Z1gPi, _Z1gPf" in e.message, e.message


@test
def numpy_in_and_out():
    with ptxvm.Context() as ctx:
        k = ctx.load(TWICE, "twice.ptx")["twice"]
        x = np.arange(50, dtype=np.uint32)
        k(grid=2, block=32, args=(x, 50))   # copied to the device and back
        assert (x == 2 * np.arange(50)).all(), x
        d = ctx.array(np.arange(64, dtype=np.uint32))
        k(grid=(2, 1, 1), block=(32,), args=(d, 40))
        got = d.to_numpy()
        assert (got[:40] == 2 * np.arange(40)).all() and (got[40:] == np.arange(40, 64)).all(), got
        z = ctx.zeros(8, np.uint32)
        assert (z.to_numpy() == 0).all()
        z.free()


@test
def params_from_the_param_list():
    with ptxvm.Context() as ctx:
        k = ctx.load(SCALARS)["scalars"]
        assert [p["type"] for p in k.params] == ["u64", "f32", "f64", "s16", "f16", "s64"], k.params
        assert [p["offset"] for p in k.params] == [0, 8, 16, 24, 26, 32], k.params
        out = np.zeros(32, np.uint8)
        k(args=(out, 1.5, 2.25, -3, 0.5, -(1 << 40)))
        assert out[0:4].view(np.float32)[0] == 1.5
        assert out[8:16].view(np.float64)[0] == 2.25
        assert out[16:18].view(np.int16)[0] == -3
        assert out[18:20].view(np.float16)[0] == 0.5
        assert out[24:32].view(np.int64)[0] == -(1 << 40)
        k(args=(out, np.float32(0.25), 3, np.int16(7), 1, 5))   # numpy scalars; ints for floats
        assert out[0:4].view(np.float32)[0] == 0.25 and out[8:16].view(np.float64)[0] == 3.0
        assert out[16:18].view(np.int16)[0] == 7 and out[18:20].view(np.float16)[0] == 1.0
        # a float for an integer parameter, a value out of range, a wrong count
        e = raises(TypeError, k, args=(out, 1.0, 2.0, 1.5, 0.0, 0))
        assert "parameter c is .s16" in str(e), e
        raises(OverflowError, k, args=(out, 1.0, 2.0, 40000, 0.0, 0))
        raises(TypeError, k, args=(out, 1.0))
        raises(TypeError, k, args=(out, "x", 2.0, 1, 0.0, 0))


@test
def ptx_error():
    with ptxvm.Context() as ctx:
        e = raises(ptxvm.PTXError, ctx.load, HEAD + ".visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n", "bad.ptx")
        assert re.match(r"bad\.ptx:\d+:\d+: error: ", e.message), e.message
        assert e.status_name == "INVALID_PTX"
        e = raises(ptxvm.Error, ctx.load(TWICE).__getitem__, "nosuch")
        assert e.status_name == "NOT_FOUND", e.status_name


@test
def fault():
    with ptxvm.Context() as ctx:
        d = ctx.zeros(4, np.uint32)
        e = raises(ptxvm.LaunchFailed, ctx.load(FAULT, "wild.ptx")["wild"], args=(d,))
        assert "wild.ptx:" in e.message and "wild" in e.message and "%ctaid" in e.message, e.message
        st = ctx.stats()
        assert st["thread_insns"] > 0, st


@test
def deadlock():
    with ptxvm.Context() as ctx:
        mod = ctx.load_file(os.path.join(ROOT, "tests/ptx/bar/s54_11_deadlock_two_ids.ptx"))
        out = np.zeros(64, np.uint32)
        e = raises(ptxvm.Deadlock, mod["k"], block=64, args=(out,))
        assert "deadlock: kernel k" in e.message and "warps missing: 1" in e.message, e.message


@test
def findings():
    with ptxvm.Context(check=True) as ctx:
        mod = ctx.load_file(os.path.join(ROOT, "tests/ptx/check/div_zero.ptx"))
        q = np.zeros(32, np.uint32)
        r = np.zeros(32, np.uint32)
        e = raises(ptxvm.Hazard, mod["k"], block=32, args=(q, r))
        assert any("div.u32: integer division by zero" in f for f in e.findings), e.findings
        assert q[5] == 105 and r[7] == 2, (q, r)   # the launch completed; arrays copied back
        ctx.settings(check=False)
        mod["k"](block=32, args=(q, r))          # no exception without the checker


@test
def trace_file():
    import json
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "t.json")
    with ptxvm.Context() as ctx:
        ctx.settings(trace=path)
        mod = ctx.load_file(os.path.join(ROOT, "tests/trace/timeline.ptx"))
        out = np.zeros(4, np.uint32)
        mod["timeline"](grid=2, block=64, args=(np.arange(128, dtype=np.uint32), out))
        assert list(out) == [sum(range(32 * k, 32 * k + 32)) for k in range(4)], out
    ev = json.load(open(path))["traceEvents"]
    names = {e["name"] for e in ev if e["ph"] == "X"}
    assert names == {"running", "CTA barrier", "mbarrier", "warp collective"}, names
    cli = os.path.join(os.path.dirname(path), "cli.json")
    subprocess.run([os.path.join(BUILD, "ptxvm"), "run", "-q", os.path.join(ROOT, "tests/trace/timeline.ptx"), "-g", "2", "-b", "64",
                    "-a", "u32[128]:iota", "-a", "u32[4]:zero", "--trace", cli], cwd=ROOT, check=True)
    assert open(cli, "rb").read() == open(path, "rb").read(), "the API's trace differs from the CLI's"


@test
def stats_match_the_cli():
    path = os.path.join(ROOT, "tests/ptx/check/div_zero.ptx")
    with ptxvm.Context() as ctx:
        ctx.load_file(path)["k"](block=32, args=(np.zeros(32, np.uint32), np.zeros(32, np.uint32)))
        st = ctx.stats()
    cli = subprocess.run([os.path.join(BUILD, "ptxvm"), "run", "--stats", "-q", path, "-b", "32",
                          "-a", "u32[32]:zero", "-a", "u32[32]:zero"], capture_output=True, text=True)
    want = int(re.search(r"thread-instructions: (\d+)", cli.stderr).group(1))
    assert st["thread_insns"] == want, (st, cli.stderr)
    assert "INT" in st["families"] and st["wall_s"] > 0 and st["splits"] == 0, st


@test
def printf_callback():
    got = []
    with ptxvm.Context(printf=got.append) as ctx:
        mod = ctx.load_file(os.path.join(ROOT, "tests/ptx/sched/jobs_identical.ptx"))
        mod["k"](grid=8, block=64, args=(np.zeros(8, np.uint32),))
    assert "".join(got).startswith("cta 0 sum 64\ncta 1 sum 2080\n"), got


@test
def versions():
    hdr = open(os.path.join(ROOT, "include/ptxvm.h")).read()
    v = ".".join(re.search(r"#define PTXVM_VERSION_%s (\d+)" % p, hdr).group(1) for p in ("MAJOR", "MINOR", "PATCH"))
    assert ptxvm.version() == v == ptxvm.__version__, (ptxvm.version(), v)
    proj = open(os.path.join(ROOT, "python/pyproject.toml")).read()
    assert 'version = "%s"' % v in proj, "python/pyproject.toml's version is not the header's " + v
    assert ptxvm._lib.SONAME == "libptxvm.so." + v.split(".")[0]


C_TYPES = {"const char *": ctypes.c_char_p, "int": ctypes.c_int, "unsigned": ctypes.c_uint,
           "uint64_t": ctypes.c_uint64, "double": ctypes.c_double}


@test
def records_follow_the_header():
    # _lib's ctypes records have the header's fields: names, types, order
    hdr = re.sub(r"/\*.*?\*/", "", open(os.path.join(ROOT, "include/ptxvm.h")).read(), flags=re.S)
    for cname, rec in (("ptxvm_function_info", ptxvm._lib.FunctionInfo), ("ptxvm_param_info", ptxvm._lib.ParamInfo),
                       ("ptxvm_stats", ptxvm._lib.Stats)):
        body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (cname, cname), hdr, re.S).group(1)
        names = []
        for decl in body.split(";"):
            m = re.match(r"\s*(const char \*|int |unsigned |uint64_t |double )(.*)", decl, re.S)
            if not m:
                assert not decl.strip(), (cname, decl)
                continue
            for x in m.group(2).split(","):
                n = re.match(r"\s*(\w+)(?:\[(\w+)\])?\s*$", x)
                names.append((n.group(1), C_TYPES[m.group(1).strip()], n.group(2)))
        mine = []
        for n, t in rec._fields_:
            if not n.startswith("_"):
                arr = issubclass(t, ctypes.Array)
                mine.append((n, t._type_ if arr else t, str(t._length_) if arr else None))
        names = [(n, t, "18" if k == "PTXVM_STATS_FAMILIES" else k) for n, t, k in names]
        assert names == mine, (cname, [a for a, b in zip(names, mine) if a != b] or (names, mine))
    n = re.search(r"#define PTXVM_STATS_FAMILIES (\d+)", hdr).group(1)
    assert int(n) == ptxvm._lib.STATS_FAMILIES, n


@test
def library_not_found():
    env = dict(os.environ, PTXVM_LIBRARY="/nonexistent/libptxvm.so")
    p = subprocess.run([sys.executable, "-c", "import ptxvm"], env=env, capture_output=True, text=True)
    assert p.returncode != 0 and "libptxvm.so not found" in p.stderr and "PTXVM_LIBRARY" in p.stderr, p.stderr


@test
def library_from_the_checkout():
    # without PTXVM_LIBRARY, a checkout's package finds the checkout's build/
    env = {k: v for k, v in os.environ.items() if k != "PTXVM_LIBRARY"}
    p = subprocess.run([sys.executable, "-c", "import ptxvm; print(ptxvm._C._name)"], env=env,
                       capture_output=True, text=True)
    want = os.path.join(ROOT, "build", "libptxvm.so")
    assert p.returncode == 0 and p.stdout.strip() == want, (p.stdout, p.stderr)


@test
def readme_example():
    # the README's example, run as written: it prints what its comment says
    text = open(os.path.join(ROOT, "README.md")).read()
    block = re.search(r"\n((?:    [^\n]*\n|\n)*?    import numpy as np, ptxvm\n(?:    [^\n]*\n|\n)*)", text).group(1)
    code = "\n".join(l[4:] for l in block.splitlines())
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    want = re.search(r"print\(sums\)\s*# (.*)", code).group(1)
    assert p.returncode == 0 and p.stdout.splitlines()[0] == want, (p.stdout, p.stderr)


def main():
    passed = failed = 0
    for t in tests:
        try:
            t()
            passed += 1
        except Exception:
            failed += 1
            print("FAIL %s: %s" % (t.__name__, traceback.format_exc().strip().splitlines()[-1]))
            traceback.print_exc()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
