#!/usr/bin/env python3
"""ptxas_diff.py: differential test of `ptxvm check` against ptxas.

    python3 tests/fuzz/ptxas_diff.py [--count N] [--seed S] [--ptxvm build/ptxvm]

Takes a random instruction line of the nvcc output in tests/cuda/ptx, mutates
it once (deletes it, changes a type, register class or state space, puts a
constant in place of a register, drops or repeats a modifier, swaps two
registers), and asks ptxas and ptxvm whether the file is valid. Where they
disagree it groups the cases by ptxas's (or our) message, printing the
count and one example each. ptxas warnings (e.g. 32-bit addresses under
.address_size 64) count as acceptance. Not part of make test: it needs ptxas
and its findings are for people to judge (then an err_/ok_ file in
tests/ptx/diag, fixed or listed in tests/known_failures.txt).
"""
import argparse
import glob
import os
import random
import re
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TYPES = [".u32", ".s32", ".b32", ".u64", ".b64", ".f32", ".f64", ".u16", ".pred", ".s64", ".b16"]
SPACES = [".global", ".shared", ".local", ".param", ".const"]
REGS = ["%r", "%rd", "%f", "%p", "%rs", "%fd"]
CONSTS = ["1", "-1", "0f3F800000", "1.5", "0x100000000"]


def mutate(line, rng):
    """One mutation of an instruction line, or None when it does not apply."""
    m = rng.choice(["delete", "type", "reg", "space", "imm", "dropmod", "dupmod", "swap"])
    words = line.split()
    mn = words[0] if words and not words[0].startswith("@") else (words[1] if len(words) > 1 else "")
    regs = re.findall(r"%[a-z]+\d+", line)
    if m == "delete":
        return m, ""
    if m == "type":
        ts = [t for t in TYPES if t in mn]
        return (m, line.replace(rng.choice(ts), rng.choice(TYPES), 1)) if ts else None
    if m == "space":
        ss = [s for s in SPACES if s in mn]
        return (m, line.replace(rng.choice(ss), rng.choice(SPACES), 1)) if ss else None
    if m == "reg" and regs:
        r = rng.choice(regs)
        pre = re.match(r"%[a-z]+", r).group(0)
        return m, line.replace(r, rng.choice(REGS) + r[len(pre):], 1)
    if m == "imm" and len(regs) > 1:
        return m, line.replace(regs[-1], rng.choice(CONSTS), 1)
    mods = re.findall(r"\.[a-z][\w:]*", mn)
    if m == "dropmod" and mods:
        return m, line.replace(mn, mn.replace(rng.choice(mods), "", 1), 1)
    if m == "dupmod" and mods:
        return m, line.replace(mn, mn + rng.choice(mods), 1)
    if m == "swap" and len(set(regs)) > 1:
        a, b = rng.sample(sorted(set(regs)), 2)
        return m, line.replace(a, "\0").replace(b, a).replace("\0", b)
    return None


def verdict(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    out = (p.stdout + p.stderr).decode("utf-8", "replace").strip().splitlines()
    return p.returncode == 0, (out[0] if out else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ptxvm", default=os.path.join(ROOT, "build/ptxvm"))
    args = ap.parse_args()
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.access(ptxas, os.X_OK):
        print("ptxas_diff.py: no ptxas here")
        return 0
    rng = random.Random(args.seed)
    files = [f for f in glob.glob(os.path.join(ROOT, "tests/cuda/ptx/*.ptx"))
             if ".G." not in f and os.path.getsize(f) < 60000]
    groups, done = {}, 0
    tmp = os.path.join(tempfile.mkdtemp(prefix="ptxas_diff"), "m.ptx")
    while done < args.count:
        f = rng.choice(files)
        lines = open(f, encoding="utf-8").read().split("\n")
        body = [i for i, l in enumerate(lines) if re.match(r"\s+[a-z@]", l)]
        i = rng.choice(body)
        mut = mutate(lines[i], rng)
        if not mut:
            continue
        old, lines[i] = lines[i], mut[1]
        with open(tmp, "w", encoding="utf-8") as o:
            o.write("\n".join(lines))
        arch = "sm_90a" if ".sm_90a." in f else "sm_90"
        ok_a, msg_a = verdict([ptxas, "-arch=" + arch, tmp, "-o", os.devnull])
        ok_a = ok_a or not msg_a or "warning" in msg_a
        ok_b, msg_b = verdict([args.ptxvm, "check", tmp])
        done += 1
        if ok_a != ok_b:
            msg = msg_b.split("error: ")[-1] if ok_a else msg_a.split(":", 2)[-1]
            key = (ok_a, re.sub(r"'[^']*'|\d+", "_", msg))
            groups.setdefault(key, []).append((mut[0], old.strip(), mut[1].strip(), msg_a, msg_b))
    for (ok_a, msg), cases in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        kind, old, new, msg_a, msg_b = cases[0]
        print("%4d  ptxas %s, ptxvm %s: %s" % (len(cases), "accepts" if ok_a else "rejects",
                                              "rejects" if ok_a else "accepts", msg[:90]))
        print("      [%s] %s  ->  %s" % (kind, old, new))
        print("      ptxas: %s\n      ptxvm: %s" % (msg_a[:140], msg_b[:140]))
    print("%d mutants, %d disagreements" % (done, sum(len(v) for v in groups.values())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
