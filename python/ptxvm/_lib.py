"""_lib.py: finds libptxvm.so and declares its C API (include/ptxvm.h) to ctypes."""
import ctypes
import ctypes.util
import os

# the header's PTXVM_VERSION_MAJOR: the soname is libptxvm.so.MAJOR
SONAME = "libptxvm.so.0"

c_uint3 = ctypes.c_uint * 3
# Room past the end of each record the library fills, so that a library newer
# than these declarations (a field added at the end) cannot write past them.
_SPARE = 1024


class FunctionInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("is_entry", ctypes.c_int), ("has_body", ctypes.c_int),
                ("nparams", ctypes.c_int), ("nrets", ctypes.c_int),
                ("maxntid", c_uint3), ("reqntid", c_uint3), ("reqnctapercluster", c_uint3),
                ("minnctapersm", ctypes.c_uint), ("maxnctapersm", ctypes.c_uint),
                ("maxnreg", ctypes.c_uint), ("maxclusterrank", ctypes.c_uint),
                ("explicitcluster", ctypes.c_int), ("noreturn", ctypes.c_int),
                ("param_bytes", ctypes.c_uint64), ("_spare", ctypes.c_char * _SPARE)]


class ParamInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_char_p), ("space", ctypes.c_char_p),
                ("size", ctypes.c_uint64), ("align", ctypes.c_uint), ("offset", ctypes.c_uint64),
                ("array_len", ctypes.c_uint64), ("ptr_space", ctypes.c_char_p),
                ("ptr_align", ctypes.c_uint), ("_spare", ctypes.c_char * _SPARE)]


STATS_FAMILIES = 18   # PTXVM_STATS_FAMILIES
_u64 = ctypes.c_uint64


class Stats(ctypes.Structure):
    _fields_ = [("warp_insns", _u64), ("thread_insns", _u64),
                ("family_warp_insns", _u64 * STATS_FAMILIES),
                ("family_thread_insns", _u64 * STATS_FAMILIES),
                ("bar_cta", _u64), ("warp_sync", _u64), ("bar_cluster", _u64),
                ("mbar_phases", _u64), ("splits", _u64), ("merges", _u64),
                ("wall_s", ctypes.c_double), ("thread_insns_per_s", ctypes.c_double),
                ("peak_rss_kb", _u64),
                ("printf_lost_calls", _u64), ("printf_lost_bytes", _u64),
                ("printf_lost_clusters", _u64), ("printf_lost_first", c_uint3),
                ("_spare", ctypes.c_char * _SPARE)]


PRINTF_FN = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p)

_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_ST = ctypes.c_int
_SIGNATURES = {
    "ptxvm_version": (ctypes.c_char_p, []),
    "ptxvm_status_str": (ctypes.c_char_p, [_ST]),
    "ptxvm_context_create": (_ST, [_PP]),
    "ptxvm_context_destroy": (_ST, [_P]),
    "ptxvm_last_error": (ctypes.c_char_p, [_P]),
    "ptxvm_set_printf_callback": (_ST, [_P, PRINTF_FN, _P]),
    "ptxvm_set_schedule": (_ST, [_P, ctypes.c_uint64]),
    "ptxvm_set_jobs": (_ST, [_P, ctypes.c_uint]),
    "ptxvm_set_check": (_ST, [_P, ctypes.c_int]),
    "ptxvm_set_trace": (_ST, [_P, ctypes.c_char_p, ctypes.c_ulonglong]),
    "ptxvm_set_max_steps": (_ST, [_P, ctypes.c_uint64]),
    "ptxvm_set_device_memory": (_ST, [_P, ctypes.c_size_t]),
    "ptxvm_module_load_data": (_ST, [_P, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, _PP]),
    "ptxvm_module_load_file": (_ST, [_P, ctypes.c_char_p, _PP]),
    "ptxvm_module_unload": (_ST, [_P]),
    "ptxvm_module_function_count": (ctypes.c_int, [_P]),
    "ptxvm_module_function_at": (_P, [_P, ctypes.c_int]),
    "ptxvm_module_get_function": (_ST, [_P, ctypes.c_char_p, _PP]),
    "ptxvm_function_get_info": (_ST, [_P, ctypes.POINTER(FunctionInfo)]),
    "ptxvm_function_get_param": (_ST, [_P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ParamInfo)]),
    "ptxvm_mem_alloc": (_ST, [_P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64)]),
    "ptxvm_mem_free": (_ST, [_P, ctypes.c_uint64]),
    "ptxvm_memcpy_htod": (_ST, [_P, ctypes.c_uint64, _P, ctypes.c_size_t]),
    "ptxvm_memcpy_dtoh": (_ST, [_P, _P, ctypes.c_uint64, ctypes.c_size_t]),
    "ptxvm_launch": (_ST, [_P, c_uint3, c_uint3, ctypes.POINTER(ctypes.c_uint), ctypes.c_uint, _PP]),
    "ptxvm_launch_stats": (_ST, [_P, ctypes.POINTER(Stats)]),
    "ptxvm_stats_family_name": (ctypes.c_char_p, [ctypes.c_int]),
}


def candidates():
    """Where libptxvm.so is looked for, in order."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("PTXVM_LIBRARY")
    if env:
        return [env]     # asked for: that one, or an error
    out = [os.path.join(here, n) for n in ("libptxvm.so", SONAME)]
    repo = os.path.dirname(os.path.dirname(here))
    if os.path.exists(os.path.join(repo, "include", "ptxvm.h")):   # imported from a checkout
        out.append(os.path.join(repo, "build", "libptxvm.so"))
    out.append(SONAME)   # the system's library path (make install)
    found = ctypes.util.find_library("ptxvm")
    if found:
        out.append(found)
    return out


def load():
    tried = []
    for c in candidates():
        if os.sep in c and not os.path.exists(c):
            tried.append(c + " (absent)")
            continue
        try:
            lib = ctypes.CDLL(c)
        except OSError as e:
            tried.append("%s (%s)" % (c, e))
            continue
        for name, (res, args) in _SIGNATURES.items():
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = args
        return lib
    raise ImportError("ptxvm: libptxvm.so not found; build it (make) and set PTXVM_LIBRARY to its "
                      "path, or make install. Tried: " + "; ".join(tried))
