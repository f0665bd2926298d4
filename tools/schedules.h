/* schedules.h: `ptxvm run --schedules N` (schedules.c). */
#ifndef PTXVM_SCHEDULES_H
#define PTXVM_SCHEDULES_H

#include "runargs.h"

/* Launches the kernel once under schedule `seed` with parameter values
 * `values`: EXIT_OK when it completed (*findings: the checker reported
 * hazards), else its exit status after its report on stderr. */
typedef int (*LaunchFn)(void *u, uint64_t seed, void **values, bool *findings);

/* Runs the launch under seeds 0 .. o->schedules - 1, each on fresh
 * buffers made from the arguments, and compares each seed's buffers with
 * seed 0's (the -o buffers, or all): one stderr line per seed that differs,
 * one line in summary. Leaves seed 0's buffers bound (args[i].bits) for
 * the dumps. Returns EXIT_OK when all agree, EXIT_FAULT when some differ,
 * a launch failed or had findings, else EXIT_INPUT; *completed says
 * whether every launch completed (so the dumps are written). */
int schedules_run(const RunOpts *o, Arg *args, const RunDevice *dev, void **values, LaunchFn launch, void *u,
                  bool *completed);

#endif
