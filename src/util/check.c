/* check.c: the report of a broken internal invariant (check.h). */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef PTXVM_DEBUG
void ptxvm_assert_fail(const char *cond, const char *file, int line) {
  fprintf(stderr, "ptxvm: internal error: %s:%d: %s\n", file, line, cond);
  abort();
}
#else
typedef int check_c_is_empty_without_PTXVM_DEBUG;   /* ISO C: no empty translation unit */
#endif
