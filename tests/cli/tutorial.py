#!/usr/bin/env python3
"""tutorial.py: runs every command of docs/tutorial.md and checks its output
(tests/cli/test_tutorial.sh; test id cli:tests/cli/test_tutorial.sh).

    python3 tests/cli/tutorial.py [BUILD_DIR]

What it reads in the tutorial:
  ```console blocks   `$ COMMAND` lines (a trailing backslash continues one),
                      each followed by the exact lines it prints, standard
                      output and error together; in them `...` inside a line
                      matches any text, and a line that is `...` any lines.
                      Each command runs with `sh -c` in a copy of
                      examples/tutorial, with the build's ptxvm first on PATH
                      and the repository's python/ package importable.
  <!-- needs: X -->    before a block: it runs only where X is: nvcc (the
                      CUDA toolkit) or numpy (a python3 that imports it; that
                      one is python3 for the block); else its commands are
                      skipped, saying so.
  ```yaml blocks      not run (CI configuration); every `ptxvm ...` command
                      in them must be one the console blocks ran (less a
                      trailing `; echo "exit $?"`).
  4-space blocks      not run; the one under "From Python" must be lines of
                      examples/tutorial/sum.py ("..." for the rest).

The nvcc commands run, and the PTX they make must pass `ptxvm check` and,
made by the toolkit that made the committed sum.ptx, be that file (less
the source's path and the module id; gen.sh remakes it); then the committed sum.ptx comes
back, so the shown outputs (PTX line numbers) do not depend on the
toolkit's version.

Prints "N passed, M failed, K skipped"; exits 1 on a failure."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "tutorial")


def parse(path):
    """[(kind, needs, lines)] for each fenced or indented block."""
    blocks, needs, lines = [], None, open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"<!-- needs: (\w+) -->", lines[i])
        if m:
            needs = m.group(1)
        elif lines[i].startswith("```"):
            kind, body = lines[i][3:].strip(), []
            i += 1
            while not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            blocks.append((kind, needs, body))
            needs = None
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            blocks.append(("indented", None, body))
            continue
        i += 1
    return blocks


def commands(body):
    """[(command, expected lines)] of a console block."""
    out, i = [], 0
    while i < len(body):
        if not body[i].startswith("$ "):
            raise SystemExit("tutorial.py: output before a command: %r" % body[i])
        cmd = body[i][2:]
        while cmd.endswith("\\"):
            i += 1
            cmd = cmd[:-1] + "\n" + body[i]
        i += 1
        want = []
        while i < len(body) and not body[i].startswith("$ "):
            want.append(body[i])
            i += 1
        out.append((cmd, want))
    return out


def line_re(pattern):
    return re.compile("^" + ".*".join(re.escape(p) for p in pattern.split("...")) + "$")


def matches(want, got):
    """Do the lines got match the pattern lines want ("..." lines: any lines)."""
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and bool(line_re(want[0]).match(got[0])) and matches(want[1:], got[1:])


def numpy_python():
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode == 0:
            return py
    return None


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    blocks = parse(os.path.join(ROOT, "docs", "tutorial.md"))
    passed = failed = skipped = 0
    ran = set()
    work = tempfile.mkdtemp(prefix="ptxvm-tutorial-")
    try:
        shutil.copytree(EXAMPLE, os.path.join(work, "t"))
        cwd, shims = os.path.join(work, "t"), os.path.join(work, "bin")
        os.mkdir(shims)
        env = dict(os.environ, PTXVM_LIBRARY=os.path.join(build, "libptxvm.so"),
                   PYTHONPATH=os.path.join(ROOT, "python"), LC_ALL="C")
        env.pop("PTXVM_SCHEDULE", None)
        have = {"nvcc": shutil.which("nvcc") is not None, "numpy": False}
        py = numpy_python()
        if py:
            os.symlink(py, os.path.join(shims, "python3"))
            have["numpy"] = True
        env["PATH"] = os.pathsep.join([build, shims, env.get("PATH", "")])
        for kind, needs, body in blocks:
            if kind != "console":
                continue
            for cmd, want in commands(body):
                ran.add(cmd.replace('; echo "exit $?"', ""))
                if needs and not have.get(needs):
                    skipped += 1
                    print("skip (no %s): %s" % (needs, cmd))
                    continue
                r = subprocess.run(["sh", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=300)
                got = r.stdout.split("\n")
                if got and got[-1] == "":
                    got.pop()
                if matches(want, got):
                    passed += 1
                else:
                    failed += 1
                    print("FAIL: %s\n  want:\n    %s\n  got:\n    %s" % (cmd, "\n    ".join(want), "\n    ".join(got)))
            if needs == "nvcc" and have["nvcc"] and os.path.exists(os.path.join(cwd, "sum.ptx")):
                r = subprocess.run([os.path.join(build, "ptxvm"), "check", "sum.ptx"], cwd=cwd,
                                   capture_output=True, text=True)
                if r.returncode:
                    failed += 1
                    print("FAIL: nvcc's sum.ptx does not pass ptxvm check:\n" + r.stderr)
                made, kept = open(os.path.join(cwd, "sum.ptx")).read(), open(os.path.join(EXAMPLE, "sum.ptx")).read()
                # less the .file paths and the .b8 data, which holds a module id
                # (a hash of where it was compiled)
                code = lambda t: [l for l in t.split("\n") if not re.match(r"\s*(\.file|\.b8 )", l)]
                tool = lambda t: [l for l in t.split("\n") if "Cuda compilation tools" in l]
                if tool(made) == tool(kept):   # the same toolkit: the committed PTX is up to date
                    if code(made) == code(kept):
                        passed += 1
                    else:
                        failed += 1
                        print("FAIL: examples/tutorial/sum.ptx is not what nvcc makes of sum.cu: run gen.sh")
                shutil.copy(os.path.join(EXAMPLE, "sum.ptx"), cwd)   # the committed one, for the outputs
        # the CI snippets only use commands that were run
        for kind, _, body in blocks:
            if kind != "yaml":
                continue
            for line in body:
                c = re.sub(r"^\s*(- )?", "", line)
                if c.startswith("ptxvm "):
                    if c in ran:
                        passed += 1
                    else:
                        failed += 1
                        print("FAIL: the CI snippet's command is not one the tutorial runs: %s" % c)
        # the Python code shown is sum.py's
        src = open(os.path.join(EXAMPLE, "sum.py")).read().split("\n")
        for kind, _, body in blocks:
            if kind == "indented" and any("import ptxvm" in l for l in body):
                shown = [l for l in body if l.strip() and l.strip() != "..."]
                if all(l in src for l in shown):
                    passed += 1
                else:
                    failed += 1
                    print("FAIL: the Python shown is not sum.py's: %s" % [l for l in shown if l not in src])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
