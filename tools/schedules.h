/* schedules.h: `ptxvm run --schedules N` (schedules.c). */
#ifndef PTXVM_SCHEDULES_H
#define PTXVM_SCHEDULES_H

#include "runargs.h"

/* Launches the kernel once under schedule `seed` with parameter values
 * `values`: EXIT_OK when it completed (*findings: the checker reported
 * hazards), else its exit status. *report: what the launch has to say on
 * stderr, malloc'd, for the caller to print and free: the checker's
 * findings when it completed (ptxvm_last_error's text: each finding a line
 * and its continuation lines, which start with two spaces), else its
 * failure; NULL when there is nothing, or when memory for it ran out (then
 * it was printed at once). */
typedef int (*LaunchFn)(void *u, uint64_t seed, void **values, bool *findings, char **report);

/* Runs the launch under seeds 0 .. o->schedules - 1, each on fresh
 * buffers made from the arguments, and compares each seed's buffers with
 * seed 0's (the -o buffers, or all): one stderr line per seed that differs,
 * one line in summary. The checker's findings are printed once each, in
 * the order they first appear, after the launches (before the failure of
 * one that failed): a finding that not every seed run to completion gave
 * is followed by the line "  (under seeds 0, 2 of 0 to 2)". Leaves seed
 * 0's buffers bound (args[i].bits) for the dumps. Returns EXIT_OK when all
 * agree, EXIT_FAULT when some differ, a launch failed or had findings, else
 * EXIT_INPUT; *completed says whether every launch completed (so the dumps
 * are written). */
int schedules_run(const RunOpts *o, Arg *args, const RunDevice *dev, void **values, LaunchFn launch, void *u,
                  bool *completed);

/* Prints a launch's report (LaunchFn) on stderr, a newline after it
 * unless it ends in one. */
void report_print(const char *text);

#endif
