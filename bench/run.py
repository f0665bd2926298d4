#!/usr/bin/env python3
"""bench/run.py: the ptxvm workload benchmarks (issue 8, "Benchmarks").

Builds ptxvm (make) and the native C -O2 references (system cc), runs each
workload under ptxvm at -j1 and -jN and natively, checks that the results
agree, prints a table and writes it to bench/out/results.md.

    python3 bench/run.py [--jobs N] [--only w1,w2] [--scale K] [--repeat R]

--scale K divides each workload's problem size by 2^K (for a quick look;
the default 0 is the issue's sizes); each command runs R times (3) and the
fastest wall time counts. Stdlib only. Not part of `make test`.
"""
import argparse, array, os, re, resource, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
OUT = os.path.join(BENCH, "out")
PTXVM = os.environ.get("PTXVM") or os.path.join(ROOT, "build", "ptxvm")   # PTXVM=path: another build (a before/after)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None):
    """Run cmd; return (wall s, stdout, stderr, its user+sys s)."""
    c0, t0 = cpu_children(), time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wall, cpu = time.monotonic() - t0, cpu_children() - c0
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit("failed (exit %d): %s" % (p.returncode, " ".join(cmd)))
    return wall, p.stdout, p.stderr, cpu


def has_stats():
    p = subprocess.run([PTXVM, "run", "--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return "--stats" in p.stdout


def thread_insns(text):
    """Thread-instructions from `--stats` output, if ptxvm printed any."""
    m = re.search(r"thread[- ]instructions[^0-9\n]*([0-9][0-9,_]*)", text, re.I)
    return int(re.sub(r"[,_]", "", m.group(1))) if m else None


def launch_wall(text):
    """The launch's own wall time from `--stats` (no parse, init or dump)."""
    m = re.search(r"wall time: ([0-9.]+) s", text)
    return float(m.group(1)) if m else None


def peak_kib(text):
    """ptxvm's peak memory from `--stats` (its VmHWM)."""
    m = re.search(r"peak memory: (\d+) KiB", text)
    return int(m.group(1)) if m else 0


def cmp_u32(a, b):
    if len(a) != len(b):
        return "size %d vs %d bytes" % (len(a), len(b))
    if a != b:
        x, y = array.array("I", a), array.array("I", b)
        i = next(i for i in range(len(x)) if x[i] != y[i])
        return "element %d: ptxvm %d, native %d" % (i, x[i], y[i])
    return None


F32_TOL = 1e-3   # |ptxvm - native| per element; |C| is ~ sqrt(n)/3 (~7.5 at n=512)


def cmp_f32(a, b):
    if len(a) != len(b):
        return "size %d vs %d bytes" % (len(a), len(b))
    if a == b:
        return None
    x, y = array.array("f", a), array.array("f", b)   # 4 bytes an element, not a Python float
    worst = max(range(len(x)), key=lambda i: abs(x[i] - y[i]))
    if not abs(x[worst] - y[worst]) <= F32_TOL:
        return "element %d: ptxvm %r, native %r (tolerance %g)" % (worst, x[worst], y[worst], F32_TOL)
    return None


def workloads(scale):
    n1 = (1 << 24) >> scale          # W1: 2^24 s32
    g1 = 1024                        # CTAs, 256 threads, grid-stride
    n2 = max(32, 512 >> scale)       # W2: n x n x n SGEMM
    n3 = (1 << 24) >> scale          # W3: 2^24 bytes
    g3 = 1024
    nt4 = max(1, ((1 << 24) >> scale) // 256)   # W4: 2^24 f32 in tiles of 256
    g4 = 1024
    n5 = (1 << 24) >> scale          # W5: 2^24 s32, clusters of 4 CTAs
    g5 = 1024
    n6 = max(2048, (1 << 20) >> scale)   # W6: 2^20 u32 keys, tiles of 2048
    n7 = max(64, 256 >> scale)       # W7: n x n x n f16 GEMM through wgmma
    return [
        dict(name="w1_reduce", desc="W1 reduction, %d s32, %d CTAs x 256" % (n1, g1),
             kernel="_Z9w1_reducePKiPij", grid="%d" % g1, block="256",
             args=["s32[%d]:rand=1" % n1, "s32[%d]:zero" % g1, "u32:%d" % n1], dump=1,
             ref=[str(n1), str(g1), "1"], cmp=cmp_u32, ocl=True),
        dict(name="w2_sgemm", desc="W2 SGEMM %dx%dx%d, 32x32 tiles" % (n2, n2, n2),
             kernel="_Z8w2_sgemmPKfS0_Pfi", grid="%d,%d" % (n2 // 32, n2 // 32), block="32,32",
             args=["f32[%d]:rand=1" % (n2 * n2), "f32[%d]:rand=2" % (n2 * n2),
                   "f32[%d]:zero" % (n2 * n2), "s32:%d" % n2], dump=2,
             ref=[str(n2), "1", "2"], cmp=cmp_f32, ocl=True),
        dict(name="w3_hist", desc="W3 histogram, %d u8 -> 256 bins, %d CTAs x 256" % (n3, g3),
             kernel="_Z7w3_histPKhPjj", grid="%d" % g3, block="256",
             args=["u8[%d]:rand=3" % n3, "u32[256]:zero", "u32:%d" % n3], dump=1,
             ref=[str(n3), str(g3), "3"], cmp=cmp_u32, ocl=True),
        dict(name="w4_pipeline", desc="W4 cp.async + cuda::barrier pipeline, %d f32, %d CTAs x 256" % (nt4 * 256, g4),
             kernel="_Z11w4_pipelinePKfPfj", grid="%d" % g4, block="256",
             args=["f32[%d]:rand=4" % (nt4 * 256), "f32[%d]:zero" % (nt4 * 256), "u32:%d" % nt4], dump=1,
             ref=[str(nt4), str(g4), "4"], cmp=cmp_f32),
        dict(name="w5_cluster", desc="W5 cluster (4 CTAs) DSMEM reduction, %d s32, %d CTAs x 256" % (n5, g5),
             kernel="_Z10w5_clusterPKiPij", grid="%d" % g5, block="256",
             args=["s32[%d]:rand=5" % n5, "s32[%d]:zero" % (g5 // 4), "u32:%d" % n5], dump=1,
             ref=[str(n5), str(g5), "5"], cmp=cmp_u32),
        dict(name="w6_radixsort", desc="W6 CUB BlockRadixSort, %d u32 keys, %d CTAs x 256 x 8" % (n6, n6 // 2048),
             kernel="_Z12w6_radixsortPKjPj", grid="%d" % (n6 // 2048), block="256",
             args=["u32[%d]:rand=6" % n6, "u32[%d]:zero" % n6], dump=1,
             ref=[str(n6), "6"], cmp=cmp_u32),
        dict(name="w7_wgmma", desc="W7 sm_90a wgmma GEMM %dx%dx%d f16 (f32 acc), 64x64 tiles" % (n7, n7, n7),
             kernel="w7_wgmma", grid="%d,%d" % (n7 // 64, n7 // 64), block="128",
             args=["f32[%d]:rand=1" % (n7 * n7), "f32[%d]:rand=2" % (n7 * n7),
                   "f32[%d]:zero" % (n7 * n7), "s32:%d" % n7], dump=2,
             ref=[str(n7), "1", "2"], cmp=cmp_f32),
    ]


def vm_cmd(w, j, out, stats):
    """ptxvm's command for workload w at -j j, dumping its result to out."""
    cmd = [PTXVM, "run", "-q", "-j", str(j), "-g", w["grid"], "-b", w["block"]]
    if stats:
        cmd.append("--stats")
    for a in w["args"]:
        cmd += ["-a", a]
    return cmd + ["-o", "%d=%s" % (w["dump"], out), os.path.join(BENCH, "ptx", w["name"] + ".ptx"), w["kernel"]]


def ocl_build():
    """The OpenCL host program (bench/ocl/, the Makefile's build/ocl_bench),
    after bench/ocl/deps.sh has installed PoCL where it was missing; None
    (and why, on stderr) where that cannot be done."""
    if subprocess.run(["sh", os.path.join(BENCH, "ocl", "deps.sh")]).returncode != 0:
        sys.stderr.write("bench: no PoCL: the OpenCL columns are left out\n")
        return None
    sh(["make", "-s", "-C", ROOT, "build/ocl_bench"])
    return os.path.join(ROOT, "build", "ocl_bench")


def med_range(xs):
    return "%.2f [%.2f-%.2f]" % (statistics.median(xs), min(xs), max(xs))


def side_by_side(opt, w, refbin, nat_out, ocl_bin):
    """Kernel times of the native reference, ptxvm's launch (--stats wall
    time) at -j J and PoCL on J threads, in opt.rounds rounds whose order
    rotates; each pair's ratio is taken within a round, so that the load of
    this shared machine, which changes between rounds, largely cancels.
    Every result is checked against the native one. Returns a table row."""
    j, name = opt.pair_jobs, w["name"]
    env = dict(os.environ, POCL_MAX_PTHREAD_COUNT=str(j),   # PoCL 3.1's pthread driver (Debian 12)
               POCL_CPU_MAX_CU_COUNT=str(j))                # its name since PoCL 4
    vm_out, ocl_out = (os.path.join(OUT, "%s.%s.bin" % (name, k)) for k in ("pair", "ocl"))
    ref = open(nat_out, "rb").read()
    times = {"native": [], "ptxvm": [], "pocl": []}

    def native():
        so = timed([refbin] + w["ref"] + [nat_out])[1]
        return float(so.split()[0]), None

    def ptxvm():
        se = timed(vm_cmd(w, j, vm_out, True), env=None)[2]
        return launch_wall(se), w["cmp"](open(vm_out, "rb").read(), ref)

    def pocl():
        so = timed([ocl_bin, os.path.join(BENCH, "ocl"), name] + w["ref"] + [ocl_out], env=env)[1]
        t, cus = float(so.split()[0]), int(so.split()[1])
        if cus != j:
            raise SystemExit("bench: PoCL runs %d threads, not %d" % (cus, j))
        why = w["cmp"](open(ocl_out, "rb").read(), ref)
        return t, why and why.replace("ptxvm", "PoCL")

    order, whys = [("native", native), ("ptxvm", ptxvm), ("pocl", pocl)], []
    for r in range(opt.rounds):
        for k, f in order[r % 3:] + order[:r % 3]:
            t, why = f()
            times[k].append(t)
            if why:
                whys.append(why)
    for why in whys:
        print("%s: MISMATCH: %s" % (name, why), flush=True)
    nat, vm, ocl = times["native"], times["ptxvm"], times["pocl"]
    row = [w["desc"]] + ["%.4g" % statistics.median(x) for x in (nat, vm, ocl)] + [
           med_range([a / b for a, b in zip(vm, ocl)]), med_range([a / b for a, b in zip(vm, nat)]),
           med_range([a / b for a, b in zip(ocl, nat)]), "ok" if not whys else "MISMATCH"]
    print("%s side by side: ptxvm/PoCL %s, ptxvm/native %s, PoCL/native %s" % (name, row[4], row[5], row[6]),
          flush=True)
    return row


def md_table(head, rows):
    return ["| " + " | ".join(r) + " |" for r in [head, ["---"] * len(head)] + rows]


def fmt_t(s):
    return "%.4f" % s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", default="")
    ap.add_argument("--scale", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the fastest counts")
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternating rounds of native, ptxvm and PoCL (W1-W3; 0: none)")
    ap.add_argument("--pair-jobs", type=int, default=1, help="host threads of ptxvm and PoCL side by side")
    ap.add_argument("--pairs-only", action="store_true", help="only the side-by-side rounds")
    opt = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    sh(["make", "-s", "-C", ROOT, "build/ptxvm"])
    stats = has_stats()
    rows, pairs, failed = [], [], 0
    ocl_bin = ocl_build() if opt.rounds > 0 else None
    for w in workloads(opt.scale):
        if opt.only and w["name"].split("_")[0] not in opt.only.split(",") and w["name"] not in opt.only.split(","):
            continue
        name = w["name"]
        refbin = os.path.join(OUT, name + "_ref")
        sh(["cc", "-O2", "-std=c11", "-D_GNU_SOURCE", "-o", refbin,
            os.path.join(BENCH, "ref", name + ".c"), "-lm"])
        nat_out = os.path.join(OUT, name + ".native.bin")
        nat_t, nat_rss = None, 0
        for _ in range(opt.repeat):
            _, so, _, _ = timed([refbin] + w["ref"] + [nat_out])
            t, r = float(so.split()[0]), int(so.split()[1]) * 1024   # its time and VmHWM
            nat_t, nat_rss = t if nat_t is None else min(nat_t, t), max(nat_rss, r)
        if w.get("ocl") and ocl_bin and opt.rounds > 0:
            pairs.append(side_by_side(opt, w, refbin, nat_out, ocl_bin))
            failed += pairs[-1][-1] != "ok"
        if opt.pairs_only:
            continue
        res = {}
        for j in (1, opt.jobs):
            if j in res:
                continue
            vm_out = os.path.join(OUT, "%s.j%d.bin" % (name, j))
            cmd = vm_cmd(w, j, vm_out, stats)
            wall, rss, lw, so, se, cpu = None, 0, None, "", "", None
            for _ in range(opt.repeat):
                t, so, se, c = timed(cmd)
                r = peak_kib(se) * 1024
                wall, rss = t if wall is None else min(wall, t), max(rss, r)
                cpu = c if cpu is None else min(cpu, c)
                l = launch_wall(se)
                lw = l if lw is None or (l is not None and l < lw) else lw
            why = w["cmp"](open(vm_out, "rb").read(), open(nat_out, "rb").read())
            res[j] = (wall, rss, thread_insns(so + se) if stats else None, why, lw, cpu)
            print("%s -j%d: %.3f s (user+sys %.3f s), peak %.1f MiB, %s" % (name, j, wall, cpu, rss / 2**20,
                  "agrees with native" if why is None else "MISMATCH: " + why), flush=True)
            if why is not None:
                failed += 1
        # the race checker's cost (issue 17): the same launch under --check
        # (one host thread), which must find nothing in these kernels
        ccmd = [PTXVM, "run", "-q", "--check", "-j", "1", "-g", w["grid"], "-b", w["block"]]
        if stats:
            ccmd.append("--stats")
        for a in w["args"]:
            ccmd += ["-a", a]
        ccmd += [os.path.join(BENCH, "ptx", name + ".ptx"), w["kernel"]]
        cwall, crss = None, 0
        for _ in range(opt.repeat):
            t, so, se, _ = timed(ccmd)
            cwall, crss = t if cwall is None else min(cwall, t), max(crss, peak_kib(se) * 1024)
        print("%s --check: %.3f s, peak %.1f MiB" % (name, cwall, crss / 2**20), flush=True)
        w1, rss1, ti1, why1, l1, c1 = res[1]
        wn, rssn, tin, whyn, ln, cn = res[opt.jobs]
        ti = ti1 if ti1 is not None else tin
        rows.append([
            w["desc"],
            fmt_t(w1), fmt_t(wn), "%.2f" % (w1 / wn), "%.0f%%" % (100 * w1 / wn / opt.jobs),
            fmt_t(nat_t), "%.0f" % (w1 / nat_t) if nat_t > 0 else "n/a",
            "%d" % ti if ti is not None else "n/a",
            "%.3g" % (ti / w1) if ti is not None else "n/a",
            "%.3g" % (ti / wn / opt.jobs) if ti is not None else "n/a",
            "%s / %s (%.2f)" % (fmt_t(l1), fmt_t(ln), l1 / ln) if l1 and ln else "n/a",
            "%s / %s" % (fmt_t(c1), fmt_t(cn)),
            "%.3g" % (ti / l1) if ti is not None and l1 else "n/a",
            "%.1f / %.1f" % (rss1 / 2**20, rssn / 2**20),
            "%.1f" % (nat_rss / 2**20),
            "%s (%.1fx)" % (fmt_t(cwall), cwall / w1),
            "%.1f" % (crss / 2**20),
            "ok" if why1 is None and whyn is None else "MISMATCH",
        ])
    head = ["workload", "ptxvm -j1 s", "ptxvm -j%d s" % opt.jobs, "speed-up", "parallel efficiency", "native s",
            "ptxvm -j1 / native", "thread-insns", "t-insn/s/host thread (-j1)",
            "t-insn/s/host thread (-j%d)" % opt.jobs,
            "launch s -j1 / -j%d (speed-up)" % opt.jobs, "user+sys s -j1 / -j%d" % opt.jobs,
            "t-insn/s in the launch (-j1)",
            "ptxvm peak MiB (-j1 / -j%d)" % opt.jobs,
            "native peak MiB", "--check s (x -j1)", "--check peak MiB", "check"]
    uname = os.uname()
    lines = ["# ptxvm benchmarks", "",
             "%s, %s %s, %d CPUs; %s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                         uname.sysname, uname.machine, os.cpu_count() or 1,
                                         subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                                        stdout=subprocess.PIPE, text=True).stdout.strip()),
             ""]
    if pairs:
        ph = ["workload", "native s", "ptxvm launch s (-j%d)" % opt.pair_jobs,
              "PoCL kernel s (%d thread%s)" % (opt.pair_jobs, "s" * (opt.pair_jobs > 1)),
              "ptxvm / PoCL", "ptxvm / native", "PoCL / native", "check"]
        lines += md_table(ph, pairs)
        lines += ["",
                  "Side by side: %d rounds, each runs the three once (in an order that rotates);" % opt.rounds,
                  "times are medians, ratios the median [range] of the rounds' own ratios.",
                  "Kernel time only: ptxvm's launch (`--stats` wall time); PoCL's clEnqueueNDRangeKernel to",
                  "clFinish after a warm-up run that compiles (bench/ocl/*.cl, the same algorithms, sizes and",
                  "launch shapes; POCL_MAX_PTHREAD_COUNT threads); native: bench/ref's computation alone, C -O2,",
                  "one thread.",
                  "PoCL's and ptxvm's results must agree with native's.", ""]
    if rows:
        lines += md_table(head, rows)
        lines += ["",
                  "Each time is the fastest of %d runs." % opt.repeat,
                  "ptxvm times are the whole process's wall time (parse, buffer initialisation, run, dump);",
                  "the launch columns time the kernel alone (`--stats` wall time), where the host threads work;",
                  "native is the reference's computation alone (input generation excluded), C -O2.",
                  "Integer results must match exactly; W2 and W4 floats within %g per element (W4 is exact in practice)." % F32_TOL,
                  "W4 runs under the default --async-delay (2000 virtual ns). W7 is bit-exact: its reference rounds to f16 and accumulates in k order with fmaf, ptxvm's wgmma model.",
                  "thread-insns and ptxvm's peak memory: from `ptxvm run --stats`; peak memory is each program's own VmHWM.",
                  "user+sys: the whole process's CPU time, all its threads (the fastest of the runs).",
                  ""]
    text = "\n".join(lines)
    print()
    print(text)
    open(os.path.join(OUT, "results.md"), "w").write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
