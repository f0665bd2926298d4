/* initcheck.h: the uninitialized-read checker of --check (issue 17;
 * src/exec/initcheck.c says what it reports). It sees every access through
 * the memory-access hook (exec.h) and needs no other call: the race
 * checker's synchronization edges do not concern it. */
#ifndef PTXVM_INITCHECK_H
#define PTXVM_INITCHECK_H

#include "interp.h"

typedef struct InitLaunch InitLaunch;

/* Launch boundaries (src/sched/launch.c launch_run), inside race_begin /
 * race_end: begin installs the checker as the launch's observer when
 * L->check, passing each access on to the observer already there (the race
 * checker's); end turns what it found into findings (exec_report_text),
 * puts that observer back and frees it. */
void initcheck_begin(Launch *L);
void initcheck_end(Launch *L);

#endif
