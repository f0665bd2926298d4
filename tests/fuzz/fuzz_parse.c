/* fuzz_parse.c: libFuzzer harness for the front end (make fuzz).
 *
 * Each input is loaded as a PTX module through the public API, twice when
 * it is valid (the second load must succeed too, and `info`-style queries
 * must not crash); the module is then unloaded and the context destroyed,
 * so LeakSanitizer sees every allocation of the front end. A diagnostic
 * must name a location: "FILE:LINE:COL: error:" is checked on every
 * rejected input, so a message without one is a finding too.
 *
 * Seeds: every .ptx file of the repository; run it with
 *   python3 tests/fuzz/fuzz.py --harness parse --seconds S   (tests/fuzz/README.md) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(ptxvm_module *mod) {
  int n = ptxvm_module_function_count(mod);
  for (int i = 0; i < n; i++) {
    ptxvm_function *fn = ptxvm_module_function_at(mod, i);
    ptxvm_function_info fi;
    if (ptxvm_function_get_info(fn, &fi) != PTXVM_SUCCESS) abort();
    ptxvm_param_info pi;
    for (int k = 0; k < fi.nparams; k++)
      if (ptxvm_function_get_param(fn, 0, k, &pi) != PTXVM_SUCCESS) abort();
    for (int k = 0; k < fi.nrets; k++)
      if (ptxvm_function_get_param(fn, 1, k, &pi) != PTXVM_SUCCESS) abort();
    ptxvm_function *same;
    if (ptxvm_module_get_function(mod, fi.name, &same) != PTXVM_SUCCESS) abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ptxvm_context *ctx;
  if (ptxvm_context_create(&ctx) != PTXVM_SUCCESS) return 0;
  ptxvm_module *mod = NULL;
  ptxvm_status st = ptxvm_module_load_data(ctx, (const char *)data, size, "f.ptx", &mod);
  if (st == PTXVM_SUCCESS) {
    walk(mod);
    ptxvm_module *again = NULL;
    if (ptxvm_module_load_data(ctx, (const char *)data, size, "f.ptx", &again) !=
        PTXVM_SUCCESS)
      abort();   /* loading is deterministic */
    if (ptxvm_module_function_count(again) != ptxvm_module_function_count(mod)) abort();
    ptxvm_module_unload(again);
    ptxvm_module_unload(mod);
  } else if (st == PTXVM_ERROR_INVALID_PTX) {
    const char *msg = ptxvm_last_error(ctx);
    unsigned line, col;
    if (strncmp(msg, "f.ptx:", 6) != 0 && strncmp(msg, "internal", 8) != 0) abort();
    if (!strncmp(msg, "f.ptx:", 6) &&
        (sscanf(msg, "f.ptx:%u:%u: error: ", &line, &col) != 2 || line == 0 || col == 0))
      abort();   /* every diagnostic names a place */
  }
  ptxvm_context_destroy(ctx);
  return 0;
}
