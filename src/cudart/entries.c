/* entries.c: every function the toolkit's libcudart.so.13 exports, from one
 * table (entries.def, written by gen_entries.py from that library and the
 * headers), so that no program linked against NVIDIA's runtime misses a
 * symbol here; exports.map gives each its version.
 *
 * Each E and U row gets a weak definition: a stub that prints "ptxvm: NAME
 * is not implemented" once and returns cudaErrorNotSupported. The files
 * that implement one define it with cuda_runtime_api.h's prototype; that
 * strong definition replaces the stub at link time. O rows (not returning
 * cudaError_t) have no stub: their addresses are taken below, so the library
 * does not link (-Wl,--no-undefined) until each is implemented. A P row (a
 * per-thread default stream variant, _ptds/_ptsz) jumps to its base: work
 * runs in issue order on the calling thread, so the per-thread default
 * stream is the legacy one. This file cannot include the runtime's headers:
 * the stubs take no arguments, harmless to any caller under the x86-64 and
 * AArch64 C conventions (the caller owns its arguments). */
#include <stdatomic.h>
#include <stdio.h>

enum { NOT_SUPPORTED = 801 };   /* driver_types.h cudaErrorNotSupported */

void rt_stub_error(void);   /* error.c: cudaErrorNotSupported becomes the last error */
int rt_stub(const char *sym, atomic_flag *said);
int rt_stub(const char *sym, atomic_flag *said) {
  if (!atomic_flag_test_and_set(said)) {
    fflush(stdout);   /* after the program's own output so far */
    fprintf(stderr, "ptxvm: %s is not implemented\n", sym);
  }
  rt_stub_error();
  return NOT_SUPPORTED;
}

#define STUB(sym)                                                              \
  int sym(void);                                                               \
  __attribute__((weak)) int sym(void) {                                        \
    static atomic_flag said = ATOMIC_FLAG_INIT;                                \
    return rt_stub(#sym, &said);                                               \
  }
#define E(sym) STUB(sym)
#define U(sym) STUB(sym)
#define O(sym) void sym(void);
#define P(sym, base)
#include "entries.def"
#undef E
#undef U
#undef O
#undef P

#if defined(__x86_64__)
#define JUMP(sym, base) ".globl " #sym "\n.type " #sym ",@function\n" #sym ":\n\tjmp " #base "@PLT\n"
#elif defined(__aarch64__)
#define JUMP(sym, base) ".globl " #sym "\n.type " #sym ",@function\n" #sym ":\n\tb " #base "\n"
#else
#error "entries.c: the _ptds/_ptsz jumps are written for x86-64 and AArch64"
#endif
#define E(sym)
#define U(sym)
#define O(sym)
#define P(sym, base) JUMP(sym, base)
__asm__(".text\n"
#include "entries.def"
        ".previous\n");
#undef E
#undef U
#undef O
#undef P

/* the O rows must be defined elsewhere in the library */
#define E(sym)
#define U(sym)
#define P(sym, base)
#define O(sym) (void (*)(void))sym,
__attribute__((used)) static void (*const rt_implemented[])(void) = {
#include "entries.def"
};
