/* nvjitlink_hidden.c: the library `ptxvm exec` preloads in place of NVIDIA's
 * nvJitLink (build/nvjitlink/libnvJitLink.so.13 and .so.12, one object under
 * both sonames).
 *
 * Why: CUDA Python (cuda.core's Linker, Numba-cuda) links a kernel with
 * nvJitLink whenever it can load libnvJitLink, and nvJitLink's output is a
 * cubin, SASS that ptxvm cannot run. When nvJitLink is unavailable, or does
 * not export `__nvJitLinkVersion` (nvJitLink older than 12.3), cuda.core
 * falls back to the driver's JIT linker and hands it the PTX (cuLinkCreate,
 * cuLinkAddData with CU_JIT_INPUT_PTX, cuLinkComplete), which ptxvm's driver
 * serves. cuda.pathfinder, which finds the library for cuda.bindings, takes a
 * library already loaded under nvJitLink's soname before any copy it finds on
 * disk (a wheel in site-packages, CUDA_HOME); so a preloaded object under that
 * soname that defines none of nvJitLink's functions makes nvJitLink
 * unavailable to the program, whatever is installed.
 *
 * This object defines nothing but the one string below: it is no
 * nvJitLink, implements none of its calls and pretends nothing. A program
 * that links libnvJitLink itself (DT_NEEDED) then fails to resolve its
 * nvJitLink* calls; `ptxvm exec --keep-nvjitlink` leaves nvJitLink visible
 * (README "Python"). */

/* What this object is, for someone who finds it with `strings` or dlsym. */
__attribute__((visibility("default")))
const char ptxvm_nvjitlink_hidden[] =
    "ptxvm exec: nvJitLink is hidden so CUDA Python links PTX with the driver's cuLink*";
