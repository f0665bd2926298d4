"""ptxvm: run NVIDIA PTX kernels on the CPU (ctypes bindings of libptxvm).

    import numpy as np, ptxvm
    with ptxvm.Context() as ctx:
        mod = ctx.load(open("k.ptx").read())
        x = np.arange(64, dtype=np.uint32)
        mod["twice"](grid=2, block=32, args=(x, 64))   # x is copied in and out
        print(x, ctx.stats()["thread_insns"])

Arrays: a numpy array argument of a pointer parameter is copied to a fresh
device buffer before the launch and back after it; a DeviceArray
(Context.array, Context.empty) stays on the device. Scalars are converted to
the parameter's declared type (ptxvm_function_get_param): an int for an
integer or bit type, within its range; an int or float for f16, bf16, f32,
f64. Failures raise ptxvm.Error subclasses carrying the library's message
(ptxvm_last_error): PTXError, LaunchFailed, Deadlock, Hazard, ...
"""
import ctypes
import numbers
import os
import struct
import sys

from . import _lib

_C = _lib.load()

__all__ = ["Context", "Module", "Kernel", "DeviceArray", "Error", "version"]


def version():
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return _C.ptxvm_version().decode()


__version__ = version()

# ---- errors: one class per ptxvm_status (the PTXVM_STATUS_LIST order) ----

_STATUS_NAMES = ["SUCCESS", "INVALID_VALUE", "OUT_OF_MEMORY", "FILE", "INVALID_PTX", "NOT_FOUND",
                 "OUT_OF_DEVICE_MEMORY", "INVALID_ADDRESS", "INVALID_CONFIG", "NOT_SUPPORTED",
                 "LAUNCH_FAILED", "DEADLOCK", "HAZARD", "CANCELLED", "INVALID_HANDLE", "CONTEXT_BUSY",
                 "INVALID_IMAGE", "NO_PTX"]


class Error(Exception):
    """A failed call: .status (the ptxvm_status number), .status_name
    ("DEADLOCK"), .message (the library's report, ptxvm_last_error)."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else str(status)
        self.message = message or _C.ptxvm_status_str(status).decode()
        super().__init__(self.message)


class PTXError(Error):
    """The PTX does not parse or validate (FILE:LINE:COL: error: ...)."""


class LaunchFailed(Error):
    """The kernel faulted: trap, invalid address, runaway (watchdog), ..."""


class Deadlock(Error):
    """No thread could progress; the message says which warps wait on what."""


class Hazard(Error):
    """Context(check=True): the kernel completed and the checker found
    something; .findings is the list of reported lines."""

    @property
    def findings(self):
        return [l for l in self.message.splitlines() if l.strip()]


class NotSupported(Error):
    """The PTX uses a feature ptxvm does not run yet."""


class ConfigError(Error):
    """An invalid launch configuration."""


class DeviceMemoryError(Error):
    """Device memory exhausted, or an address outside an allocation."""


class Cancelled(Error):
    """The launch was cancelled."""


_CLASSES = {"INVALID_PTX": PTXError, "LAUNCH_FAILED": LaunchFailed,
            "DEADLOCK": Deadlock, "HAZARD": Hazard, "NOT_SUPPORTED": NotSupported,
            "INVALID_CONFIG": ConfigError, "OUT_OF_DEVICE_MEMORY": DeviceMemoryError,
            "INVALID_ADDRESS": DeviceMemoryError, "CANCELLED": Cancelled}


def _error(status, ctx_handle):
    """The exception for a failed call, with the context's message (read
    before any other call on it replaces the message)."""
    msg = _C.ptxvm_last_error(ctx_handle) if ctx_handle else None
    msg = msg.decode(errors="replace").rstrip("\n") if msg else ""
    name = _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else ""
    return _CLASSES.get(name, Error)(status, msg)


def _raise(status, ctx_handle):
    raise _error(status, ctx_handle)


def _dims(d, what):
    if isinstance(d, numbers.Integral):
        d = (d,)
    d = tuple(int(x) for x in d)
    if not 1 <= len(d) <= 3 or any(x < 1 for x in d):
        raise ValueError("%s must be 1 to 3 positive counts, got %r" % (what, d))
    return (_lib.c_uint3)(*(d + (1,) * (3 - len(d))))


def _nbytes_of(a):
    import numpy as np   # only where arrays are used
    a = np.ascontiguousarray(a)
    return a, a.nbytes


_STDOUT = object()   # Context's default printf receiver


class Context:
    """A ptxvm context: device memory, modules and launch settings.

    schedule: warp order seed (0 in order); jobs: host threads (0 all CPUs);
    check: the hazard checker; max_steps: the watchdog (0 default);
    device_memory: bytes (0 default); printf: a callable receiving each
    device printf's text (default: written to the sys.stdout of the moment),
    or None to discard it."""

    def __init__(self, schedule=0, jobs=0, check=False, max_steps=0, device_memory=0, printf=_STDOUT):
        self._h = None
        if printf is _STDOUT:
            printf = lambda text: sys.stdout.write(text)   # noqa: E731
        h = ctypes.c_void_p()
        st = _C.ptxvm_context_create(ctypes.byref(h))
        if st:
            _raise(st, None)
        self._h = h.value
        self._printf = None
        self.settings(schedule=schedule, jobs=jobs, check=check, max_steps=max_steps)
        if device_memory:
            self._call(_C.ptxvm_set_device_memory, int(device_memory))
        if printf is not None:
            def on_printf(text, n, user, fn=printf):
                fn(ctypes.string_at(text, n).decode(errors="replace"))
            self._printf = _lib.PRINTF_FN(on_printf)   # kept alive as long as the context
            self._call(_C.ptxvm_set_printf_callback, self._printf, None)

    def _call(self, fn, *args):
        if not self._h:
            raise Error(14, "the context was closed")
        st = fn(self._h, *args)
        if st:
            _raise(st, self._h)

    def settings(self, schedule=None, jobs=None, check=None, max_steps=None, trace=None):
        """Changes the settings of the launches that follow (None: unchanged);
        trace: the path each launch writes its timeline to (ptxvm_set_trace,
        Chrome trace-event JSON), or "" for none."""
        if schedule is not None:
            self._call(_C.ptxvm_set_schedule, int(schedule))
        if jobs is not None:
            self._call(_C.ptxvm_set_jobs, int(jobs))
        if check is not None:
            self._call(_C.ptxvm_set_check, 1 if check else 0)
        if max_steps is not None:
            self._call(_C.ptxvm_set_max_steps, int(max_steps))
        if trace is not None:
            self._call(_C.ptxvm_set_trace, os.fsencode(trace) if trace else None, 0)

    def close(self):
        """Destroys the context and everything it owns."""
        if self._h:
            _C.ptxvm_context_destroy(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def load(self, ptx, name=None):
        """A Module from PTX text (str or bytes); name is the file name its
        diagnostics use."""
        data = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
        h = ctypes.c_void_p()
        self._call(_C.ptxvm_module_load_data, data, len(data), name.encode() if name else None, ctypes.byref(h))
        return Module(self, h.value)

    def load_file(self, path):
        """A Module from the PTX file at path."""
        h = ctypes.c_void_p()
        self._call(_C.ptxvm_module_load_file, str(path).encode(), ctypes.byref(h))
        return Module(self, h.value)

    def empty(self, shape, dtype):
        """A zeroed DeviceArray of that shape and numpy dtype."""
        import numpy as np
        return DeviceArray(self, shape, np.dtype(dtype))

    zeros = empty   # device allocations are zeroed

    def array(self, host):
        """A DeviceArray holding a copy of the numpy array host."""
        import numpy as np
        host = np.ascontiguousarray(host)
        d = DeviceArray(self, host.shape, host.dtype)
        d.copy_from(host)
        return d

    def stats(self):
        """What the last launch executed, as a dict (ptxvm_stats): totals,
        "families" {name: (warp, thread)} for the families that ran, barrier
        and mbarrier completions, splits, merges, wall_s, peak_rss_kb, ..."""
        s = _lib.Stats()
        self._call(_C.ptxvm_launch_stats, ctypes.byref(s))
        out = {}
        for name, _ in _lib.Stats._fields_:
            if name.startswith("family_") or name.startswith("_"):
                continue
            v = getattr(s, name)
            out[name] = list(v) if name == "printf_lost_first" else v
        fam = {}
        for i in range(_lib.STATS_FAMILIES):
            if s.family_warp_insns[i]:
                fam[_C.ptxvm_stats_family_name(i).decode()] = (s.family_warp_insns[i], s.family_thread_insns[i])
        out["families"] = fam
        return out


class DeviceArray:
    """A device allocation seen as a numpy shape and dtype. .ptr is its
    device address; copy_from(host), copy_to(host=None) and to_numpy() move
    its bytes; free() (or garbage collection) releases it."""

    def __init__(self, ctx, shape, dtype):
        self.ctx = ctx
        self.ptr = 0
        self.shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        self.dtype = dtype
        n = 1
        for x in self.shape:
            n *= int(x)
        self.nbytes = n * dtype.itemsize
        p = ctypes.c_uint64()
        ctx._call(_C.ptxvm_mem_alloc, self.nbytes, ctypes.byref(p))
        self.ptr = p.value

    def copy_from(self, host):
        import numpy as np
        host = np.ascontiguousarray(host)
        if host.nbytes != self.nbytes:
            raise ValueError("copy_from: %d bytes into a %d-byte device array" % (host.nbytes, self.nbytes))
        self.ctx._call(_C.ptxvm_memcpy_htod, self.ptr, host.ctypes.data, self.nbytes)

    def copy_to(self, host=None):
        import numpy as np
        if host is None:
            host = np.empty(self.shape, self.dtype)
        if not host.flags.c_contiguous or host.nbytes != self.nbytes:
            raise ValueError("copy_to: needs a C-contiguous array of %d bytes" % self.nbytes)
        self.ctx._call(_C.ptxvm_memcpy_dtoh, host.ctypes.data, self.ptr, self.nbytes)
        return host

    to_numpy = copy_to

    def free(self):
        if self.ptr and self.ctx._h:
            _C.ptxvm_mem_free(self.ctx._h, self.ptr)
        self.ptr = 0

    def __del__(self):
        self.free()


class Module:
    """A loaded PTX module: module["name"] is a Kernel (or .func);
    .functions lists the names in declaration order."""

    def __init__(self, ctx, handle):
        self.ctx = ctx
        self._h = handle

    @property
    def functions(self):
        n = _C.ptxvm_module_function_count(self._h)
        return [Kernel(self, _C.ptxvm_module_function_at(self._h, i)).name for i in range(n)]

    def __getitem__(self, name):
        """name: the PTX name (mangled, as written), or a C++ function's
        plain name ("reduce" for _Z6reducePKiPii) when one function has it;
        an unknown name raises an Error that lists the functions."""
        h = ctypes.c_void_p()
        st = _C.ptxvm_module_get_function(self._h, name.encode(), ctypes.byref(h))
        if not st:
            return Kernel(self, h.value)
        e = _error(st, self.ctx._h)
        names = self.functions
        # a global-namespace C++ function is _Z<length><name><parameters>
        plain = [f for f in names if f.startswith("_Z%d%s" % (len(name), name))]
        if len(plain) == 1:
            return self[plain[0]]
        which = plain if plain else names
        raise type(e)(e.status, "%s; %s: %s" % (e.message, "it names several" if plain else "the module's functions",
                                                 ", ".join(which) or "none"))

    def unload(self):
        if self._h and self.ctx._h:
            _C.ptxvm_module_unload(self._h)
        self._h = None


_INT_TYPES = {"u8": (8, False), "s8": (8, True), "b8": (8, False), "u16": (16, False), "s16": (16, True),
              "b16": (16, False), "u32": (32, False), "s32": (32, True), "b32": (32, False),
              "u64": (64, False), "s64": (64, True), "b64": (64, False)}


def _bf16_bits(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return (b >> 16) | 0x40   # a quiet NaN
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF   # round to nearest even


def _scalar_bytes(p, v):
    """The bytes of Python scalar v for parameter p (a ParamInfo dict)."""
    t = p["type"]
    if isinstance(v, bool):
        v = int(v)
    if t in _INT_TYPES:
        if not isinstance(v, numbers.Integral):
            raise TypeError("parameter %s is .%s: needs an int, got %r" % (p["name"], t, v))
        bits, signed = _INT_TYPES[t]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if t.startswith("b"):
            lo = -(1 << (bits - 1))   # a bit type takes either sign's range
        v = int(v)
        if not lo <= v <= hi:
            raise OverflowError("parameter %s is .%s: %d is out of range" % (p["name"], t, v))
        return (v & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
    if t in ("f16", "bf16", "f32", "f64"):
        if not isinstance(v, numbers.Real):
            raise TypeError("parameter %s is .%s: needs a number, got %r" % (p["name"], t, v))
        if t == "bf16":
            return _bf16_bits(float(v)).to_bytes(2, "little")
        return struct.pack({"f16": "<e", "f32": "<f", "f64": "<d"}[t], float(v))
    raise TypeError("parameter %s: .%s scalars are not supported from Python" % (p["name"], t))


class Kernel:
    """A function of a module. .name, .info (a dict of ptxvm_function_info),
    .params (a list of dicts of ptxvm_param_info); calling it launches it:
    kernel(grid=..., block=..., args=(...), cluster=None, shared=0)."""

    def __init__(self, module, handle):
        self.module = module
        self._h = handle
        fi = _lib.FunctionInfo()
        st = _C.ptxvm_function_get_info(self._h, ctypes.byref(fi))
        if st:
            _raise(st, module.ctx._h)
        self.info = {n: (list(getattr(fi, n)) if isinstance(getattr(fi, n), ctypes.Array) else getattr(fi, n))
                     for n, _ in fi._fields_ if not n.startswith("_")}
        self.name = fi.name.decode()
        self.info["name"] = self.name
        self.params = []
        for i in range(fi.nparams):
            pi = _lib.ParamInfo()
            _C.ptxvm_function_get_param(self._h, 0, i, ctypes.byref(pi))
            d = {n: getattr(pi, n) for n, _ in pi._fields_ if not n.startswith("_")}
            for k in ("name", "type", "space", "ptr_space"):
                d[k] = d[k].decode() if d[k] is not None else None
            self.params.append(d)

    def _arg_bytes(self, p, a, copies):
        """The bytes for parameter p from argument a; numpy arrays given for
        a pointer are staged through a device buffer listed in copies."""
        if isinstance(a, DeviceArray):
            a = a.ptr
        elif hasattr(a, "__array_interface__") and not p["array_len"] and p["size"] == 8:
            import numpy as np
            if isinstance(a, np.ndarray) and a.ndim > 0:
                d = self.module.ctx.array(a)
                copies.append((d, a))
                a = d.ptr
        if p["array_len"]:
            # an array parameter (a struct by value): exactly its bytes
            b = a.tobytes() if hasattr(a, "tobytes") else bytes(a)
            if len(b) != p["size"]:
                raise ValueError("parameter %s is %d bytes, got %d" % (p["name"], p["size"], len(b)))
            return b
        if hasattr(a, "item") and getattr(a, "ndim", 0) == 0:
            a = a.item()   # a numpy scalar
        return _scalar_bytes(p, a)

    def __call__(self, grid=1, block=1, args=(), cluster=None, shared=0):
        """Launches the kernel over grid CTAs of block threads (ints or up to
        3-tuples), clusters of cluster CTAs, shared bytes of dynamic shared
        memory; args one per parameter. Raises an Error subclass on failure;
        numpy arrays given as arguments are copied back also after a fault,
        a deadlock or findings."""
        if len(args) != len(self.params):
            raise TypeError("%s takes %d arguments, got %d" % (self.name, len(self.params), len(args)))
        ctx = self.module.ctx
        copies = []
        try:
            bufs = [ctypes.create_string_buffer(self._arg_bytes(p, a, copies), p["size"])
                    for p, a in zip(self.params, args)]
            values = (ctypes.c_void_p * max(1, len(bufs)))(*[ctypes.addressof(b) for b in bufs])
            cl = _dims(cluster, "cluster") if cluster is not None else None
            st = _C.ptxvm_launch(self._h, _dims(grid, "grid"), _dims(block, "block"), cl, int(shared), values)
            err = _error(st, ctx._h) if st else None
            for d, host in copies:
                if host.flags.writeable:
                    import numpy as np
                    np.copyto(host, d.copy_to().reshape(host.shape), casting="no")
            if err:
                raise err
        finally:
            for d, _ in copies:
                d.free()
