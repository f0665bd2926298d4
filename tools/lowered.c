/* lowered.c: `ptxvm check --dump-lowered FILE [KERNEL]`, the lowered code
 * of a PTX file (STYLE.md §4: Lua's listcode), for whoever changes or
 * debugs lowering and for the golden tests of tests/cli/test_dump.sh.
 *
 * Unlike the rest of the command line it uses ptxvm's internals (as
 * tools/opcov.c does): the decoded instructions are not part of the API.
 * It parses and lowers the file as `ptxvm check` does (the front end, then
 * program_build against a device of its own for the module's variables)
 * and prints with program_dump_source. Images (CUDA
 * executables, fatbins) are refused: `ptxvm ptx FILE` extracts their PTX. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/fatbin/fatbin.h"
#include "../src/front/front.h"
#include "../src/lower/lower.h"
#include "../src/util/file.h"
#include "lowered.h"
#include "runargs.h"

enum { DUMP_DEVICE_BYTES = 1 << 26 };   /* the module's .global/.const variables */

int lowered_dump(const char *path, const char *kernel) {
  size_t len;
  char *text = util_read_file(path, &len);
  if (!text) {
    fprintf(stderr, "ptxvm: cannot read %s: %s\n", path, strerror(errno));
    return EXIT_INPUT;
  }
  if (fatbin_is_image(text, len)) {
    fprintf(stderr, "ptxvm: %s is an executable or fatbin: --dump-lowered takes PTX "
            "(ptxvm ptx %s writes it)\n", path, path);
    free(text);
    return EXIT_INPUT;
  }
  char *err = NULL;
  Module *m = front_parse(text, strlen(text), path, &err);
  int rc = EXIT_INPUT;
  Device *dev = m ? dev_create(DUMP_DEVICE_BYTES) : NULL;
  Program *p = dev ? program_build(m, dev, &err) : NULL;
  if (!m || !dev || !p) {
    fprintf(stderr, "%s", err ? err : "ptxvm: out of memory\n");
    if (err && err[0] && err[strlen(err) - 1] != '\n') fputc('\n', stderr);
  } else if (program_dump_source(p, kernel, text, stdout)) {
    rc = EXIT_OK;
  } else {
    fprintf(stderr, "ptxvm: %s has no function '%s' with a body\n", path, kernel);
  }
  program_free(p);
  if (dev) dev_destroy(dev);
  if (m) module_free(m);
  free(err);
  free(text);
  return rc;
}
