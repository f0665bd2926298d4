/* entries.c: every entry point of the CUDA driver API, in one table
 * (entries.def, written from the toolkit's headers by gen_entries.py), which
 * serves both the exported symbols and cuGetProcAddress.
 *
 * Each row's symbol gets a weak definition here: a stub that prints
 * "ptxvm: SYMBOL is not implemented" on stderr once and returns
 * CUDA_ERROR_NOT_SUPPORTED. The files that implement an entry point define
 * the same symbol with cuda.h's prototype; at link time that strong
 * definition replaces the stub, so the table's pointer (taken here, by
 * symbol) is the implementation. This file cannot include cuda.h: the stubs
 * take no arguments, which is harmless to any caller under the x86-64 and
 * AArch64 C conventions (the caller owns its arguments). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "entries.h"

enum { PLAIN, PTDS, PTSZ };
enum { CUDA_ERROR_NOT_SUPPORTED_ = 801 };   /* cuda.h CUDA_ERROR_NOT_SUPPORTED */

typedef struct Entry {
  const char *name;
  int version;
  int flavour;
  void (*fn)(void);
} Entry;

int drv_stub(const char *sym, atomic_flag *said);
int drv_stub(const char *sym, atomic_flag *said) {
  if (!atomic_flag_test_and_set(said)) fprintf(stderr, "ptxvm: %s is not implemented\n", sym);
  return CUDA_ERROR_NOT_SUPPORTED_;
}

/* E: a symbol's first row defines its stub; A: a later row of the same symbol. */
#define E(name, ver, flav, sym)                                                \
  int sym(void);                                                               \
  __attribute__((weak)) int sym(void) {                                        \
    static atomic_flag said = ATOMIC_FLAG_INIT;                                \
    return drv_stub(#sym, &said);                                              \
  }
#define A(name, ver, flav, sym)
#include "entries.def"
#undef E
#undef A

static const Entry entries[] = {
#define E(name, ver, flav, sym) {#name, ver, flav, (void (*)(void))sym},
#define A E
#include "entries.def"
#undef E
#undef A
};

int drv_entry_lookup(const char *name, int cuda_version, bool per_thread, void **pfn) {
  const Entry *best = NULL, *best_pt = NULL;
  bool known = false;
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    const Entry *e = &entries[i];
    if (strcmp(e->name, name)) continue;
    known = true;
    if (e->version > cuda_version) continue;
    const Entry **slot = e->flavour == PLAIN ? &best : &best_pt;
    if (!*slot || e->version > (*slot)->version) *slot = e;
  }
  if (per_thread && best_pt) best = best_pt;
  *pfn = best ? (void *)best->fn : NULL;
  return best ? 0 : known ? 2 : 1;
}
