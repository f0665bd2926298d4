/* check.h: the assertion and report of the plain-C unit tests. Each test
 * program counts its checks and ends with the line the runner reads:
 * "N passed, M failed", exiting nonzero when anything failed. */
#ifndef PTXVM_UNIT_CHECK_H
#define PTXVM_UNIT_CHECK_H

#include <stdio.h>

static int unit_passed, unit_failed;

#define CHECK(cond) unit_check_((cond) != 0, #cond, __FILE__, __LINE__)
static inline void unit_check_(int ok, const char *what, const char *file, int line) {
  if (ok) {
    unit_passed++;
  } else {
    unit_failed++;
    printf("FAIL %s:%d: CHECK(%s)\n", file, line, what);
  }
}

/* Prints the summary line; returns main's exit status. */
static inline int unit_report(void) {
  printf("%d passed, %d failed\n", unit_passed, unit_failed);
  return unit_failed != 0;
}

#endif
