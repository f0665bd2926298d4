/* exec.h: `ptxvm exec` (tools/exec.c). */
#ifndef PTXVM_TOOLS_EXEC_H
#define PTXVM_TOOLS_EXEC_H

/* ptxvm exec [OPTIONS] [--] PROGRAM [ARGS...]; argv[0] is "exec". Returns
 * only when PROGRAM cannot be started (the exit status to use). */
int cmd_exec(int argc, char **argv);

#endif
