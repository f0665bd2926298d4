"""realgen.py: what the generators of tests/triton and tests/numba share.

Each generator compiles its kernels with a real compiler (no GPU needed),
writes the PTX to ptx/, the inputs numpy made to data/ (raw little-endian
bytes, read by `-a TYPE[N]:@PATH`), and a MANIFEST in the format of
tests/cuda/MANIFEST (its header says it) whose expected outputs numpy
computed at generation time, so tests/run.py needs neither the compilers,
numpy nor a network. Paths in a MANIFEST's options are relative to the
repository root (run.py runs ptxvm there); its FILE column is relative to
the MANIFEST's folder.
"""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# numpy dtype name -> ptxvm argument type
PTXVM_TYPE = {"float32": "f32", "float64": "f64", "int32": "s32", "uint32": "u32",
              "int64": "s64", "uint64": "u64", "int8": "s8", "uint8": "u8",
              "int16": "s16", "uint16": "u16", "float16": "b16"}


def dump_text(arr):
    """What `ptxvm run -o N` prints for a buffer holding arr (shared/CLI.md)."""
    t = PTXVM_TYPE[str(arr.dtype)]
    flat = arr.reshape(-1)
    if t == "f32":
        return " ".join("%.9g" % float(v) for v in flat)
    if t == "f64":
        return " ".join("%.17g" % float(v) for v in flat)
    return " ".join("%d" % int(v) for v in flat)


class Corpus:
    """One corpus folder (tests/NAME): its data files and MANIFEST lines."""

    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(ROOT, "tests", name)
        os.makedirs(os.path.join(self.dir, "ptx"), exist_ok=True)
        os.makedirs(os.path.join(self.dir, "data"), exist_ok=True)
        self.lines = []

    def write_ptx(self, base, text):
        # .file names the generator by its path: repository-relative, as
        # tests/cuda/gen.sh writes it, so the PTX does not depend on the checkout
        text = text.replace('"%s/' % ROOT, '"')
        with open(os.path.join(self.dir, "ptx", base + ".ptx"), "w") as f:
            f.write(text)
        return "ptx/%s.ptx" % base

    def buffer(self, base, arr):
        """An input buffer: arr's bytes in data/BASE.bin, as an -a spec."""
        arr = arr.reshape(-1)
        path = os.path.join(self.dir, "data", base + ".bin")
        with open(path, "wb") as f:
            f.write(arr.astype(arr.dtype.newbyteorder("<")).tobytes())
        return "%s[%d]:@tests/%s/data/%s.bin" % (PTXVM_TYPE[str(arr.dtype)], arr.size,
                                                 self.name, base)

    def add(self, ptx, kernel, options, expected):
        """One launch: options a list of words, expected the exact stdout
        (lines joined with \\n) or an 'approx rtol=R atol=A: ' line."""
        assert all(" " not in o for o in options)
        self.lines.append("%s %s | %s | %s" % (ptx, kernel, " ".join(options), expected))

    def write_manifest(self, header):
        with open(os.path.join(self.dir, "MANIFEST"), "w") as f:
            for h in header:
                f.write(("# " + h).rstrip() + "\n")
            f.write("#\n")
            for l in self.lines:
                f.write(l + "\n")


ENTRY_RE = re.compile(r"\.entry\s+([\w$]+)\s*\((.*?)\)", re.S)
PARAM_RE = re.compile(r"\.param\s+\.(\w+)\s+(?:\.ptr(?:\s+\.\w+(?:\s+\d+)?)*\s+)?([\w$]+)")


def entry_params(ptx_text, ptxvm=None):
    """[(name, param type)] of the module's first .entry: from `ptxvm info`
    where it reads the module, else from the PTX text (for a module ptxvm
    does not read yet)."""
    ptxvm = ptxvm or os.path.join(ROOT, "build", "ptxvm")
    if os.path.exists(ptxvm):
        p = subprocess.run([ptxvm, "info", "-"], input=ptx_text.encode(), capture_output=True)
        if p.returncode == 0:
            out = []
            for l in p.stdout.decode().splitlines()[1:]:
                m = re.match(r"\s+param \d+: (\S+) \.param (\.\w+)", l)
                if not m:
                    break
                out.append((m.group(1), m.group(2)[1:]))
            return out
    m = ENTRY_RE.search(ptx_text)
    return [(n, t) for t, n in PARAM_RE.findall(m.group(2))]
