#!/usr/bin/env python3
"""layers.py: the include graph between the folders of src/, and its cycles.

    python3 scripts/layers.py [--quiet]

Reads every `#include "..."` of src/**/*.{c,h,def}, resolves it against the
including file's folder and prints, per folder, the folders it includes
(with how many includes and which files make them). A cycle between folders
(exec -> lower -> exec) is a layering error: the lower folder of the pair
cannot be understood, built or tested without the upper one.

The intended layers, bottom first (docs/ARCHITECTURE.md "Layers"):

    util  ir  fatbin  sync      nothing above them (sync: the pure state
                                machines bar.c, mbarrier.c)
    front                        text -> IR
    mem                          device memory and the address map
    exec  lower                  handlers, interpreter, mem_ptr (exec/access.c);
                                 IR -> XInsn (lower includes exec/program.h,
                                 never the other way)
    sched                        launches
    api                          include/ptxvm.h
    cuda                         libcuda.so.1, over include/ptxvm.h only

KNOWN lists the edges of cycles not broken yet, each with its reason: a
cycle made only of other edges fails, and so does a KNOWN edge that no
longer exists or no longer closes a cycle (delete it: the list only shrinks,
as tests/known_failures.txt does). Exit status 0 when no cycle but the
KNOWN ones remains, else 1. tests/run.py runs it as the test layers:.
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")

# (from, to): why the edge is still there. Remove a line when its edge goes.
KNOWN = {
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    rel = os.path.relpath(path, SRC)
    return rel.split(os.sep)[0] if os.sep in rel else None


def graph():
    edges = defaultdict(lambda: defaultdict(set))   # from -> to -> {file}
    for d, _, files in os.walk(SRC):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(d, f)
            src = folder_of(path)
            if src is None:
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for inc in INCLUDE.findall(text):
                target = os.path.normpath(os.path.join(d, inc))
                if not target.startswith(SRC + os.sep):
                    continue   # include/ptxvm.h, tools: outside the folders of src/
                dst = folder_of(target)
                if dst and dst != src:
                    edges[src][dst].add(os.path.relpath(path, ROOT))
    return edges


def sccs(nodes, succ):
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    quiet = "--quiet" in sys.argv[1:]
    edges = graph()
    nodes = set(edges) | {t for s in edges for t in edges[s]}
    if not quiet:
        for s in sorted(nodes):
            deps = edges.get(s, {})
            print("%s -> %s" % (s, ", ".join("%s (%d)" % (t, len(deps[t])) for t in sorted(deps))
                                or "(nothing)"))
    succ = {s: set(edges[s]) for s in edges}
    bad = False
    # cycles of the whole graph: each must consist of KNOWN edges' cycles
    without_known = {s: {t for t in succ[s] if (s, t) not in KNOWN} for s in succ}
    for comp in sccs(nodes, without_known):
        bad = True
        print("cycle: %s" % " <-> ".join(comp))
        for s in comp:
            for t in sorted(without_known.get(s, ())):
                if t in comp:
                    print("  %s -> %s: %s" % (s, t, ", ".join(sorted(edges[s][t]))))
    comps = sccs(nodes, succ)
    for (s, t), why in sorted(KNOWN.items()):
        if t not in edges.get(s, {}):
            bad = True
            print("KNOWN edge %s -> %s no longer exists: delete it from scripts/layers.py" % (s, t))
        elif not any(s in c and t in c for c in comps):
            bad = True
            print("KNOWN edge %s -> %s closes no cycle any more: delete it from scripts/layers.py"
                  % (s, t))
        elif not quiet:
            print("known cycle edge %s -> %s (%s): %s" % (s, t, ", ".join(sorted(edges[s][t])), why))
    print("layers: %s" % ("cycles (see above)" if bad else
                          "no cycle but the known ones" if KNOWN else "no cycle"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
