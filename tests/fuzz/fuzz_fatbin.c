/* fuzz_fatbin.c: libFuzzer harness for the fatbin reader (make fuzz).
 *
 * Each input is read as an image (a fatbin, or an ELF file holding
 * fatbins) through ptxvm_image_get_ptx: the reader must never crash or read
 * outside the input, and an error must come with a message. Inputs of size
 * 0 are skipped (size 0 means "as long as the headers say"). Seeds: the
 * images tests/fatbin/test_fatbin.py builds (nvcc -fatbin, executables).
 *   build-fuzz/fuzz_fatbin -max_len=65536 -timeout=10 corpus/ seeds... */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptxvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  ptxvm_context *ctx;
  if (ptxvm_context_create(&ctx) != PTXVM_SUCCESS) abort();
  ptxvm_image_ptx *list = NULL;
  int n = 0;
  ptxvm_status st = ptxvm_image_get_ptx(ctx, data, size, &list, &n);
  if (st == PTXVM_SUCCESS) {
    for (int i = 0; i < n; i++)
      if (strlen(list[i].text) != list[i].len) abort();
    ptxvm_image_free(list, n);
  } else if (!*ptxvm_last_error(ctx)) {
    abort();
  }
  ptxvm_context_destroy(ctx);
  return 0;
}
