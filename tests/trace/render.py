#!/usr/bin/env python3
"""render.py TRACE.json: a ptxvm --trace file as a small text timeline (the
"screenshot" test of tests/cli/test_trace.sh compares it with a committed
file). Per CTA (pid) and warp (tid): a bar, one character per STEP units of
virtual time (R running, B CTA barrier, C cluster barrier, M mbarrier, W
warp collective, ? blocked; the span covering most of the cell), then its
spans in order; then the mbarrier phase instants and, per warp, the async
copies (count, first issue, last landing)."""
import json
import sys

LETTER = {"running": "R", "CTA barrier": "B", "cluster barrier": "C", "mbarrier": "M",
          "warp collective": "W", "blocked": "?"}
STEP = 10


def main():
    d = json.load(open(sys.argv[1]))
    ev = d["traceEvents"]
    pname = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    spans, asyncs, inst = {}, {}, []
    for e in ev:
        if e["ph"] == "X":
            spans.setdefault((e["pid"], e["tid"]), []).append(e)
        elif e["ph"] in "be":
            asyncs.setdefault((e["pid"], e["tid"], e["name"]), []).append(e)
        elif e["ph"] == "i":
            inst.append(e)
    out = []
    for key in sorted(spans):
        s = sorted(spans[key], key=lambda e: e["ts"])
        end = max(e["ts"] + e["dur"] for e in s)
        bar = []
        for c in range((end + STEP - 1) // STEP):
            lo, hi = c * STEP, (c + 1) * STEP
            best, cover = ".", 0
            for e in s:
                o = min(hi, e["ts"] + e["dur"]) - max(lo, e["ts"])
                if o > cover:
                    best, cover = LETTER[e["name"]], o
            bar.append(best)
        out.append("%s warp %d |%s|" % (pname[key[0]], key[1], "".join(bar)))
        for e in s:
            what = e["args"].get("what", "%d instructions" % e["args"].get("instructions", 0))
            out.append("  %5d +%-5d %-15s %s" % (e["ts"], e["dur"], e["name"], what))
    for e in sorted(inst, key=lambda e: (e["pid"], e["ts"])):
        out.append("%s t=%d %s" % (pname.get(e["pid"], e["pid"]), e["ts"], e["name"]))
    for key in sorted(asyncs):
        a = asyncs[key]
        b = [e["ts"] for e in a if e["ph"] == "b"]
        f = [e["ts"] for e in a if e["ph"] == "e"]
        out.append("%s warp %d %s: %d issued from t=%d, %d landed by t=%d" %
                   (pname[key[0]], key[1], key[2], len(b), min(b), len(f), max(f)))
    print("\n".join(out))


main()
