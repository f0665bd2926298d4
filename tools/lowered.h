/* lowered.h: ptxvm check --dump-lowered (tools/lowered.c). */
#ifndef PTXVM_LOWERED_H
#define PTXVM_LOWERED_H

/* Lowers the PTX file at path ("-": standard input) as a launch would and
 * prints its decoded instructions on stdout (src/lower/dump.c): every
 * function's, or only those of the .entry or .func `kernel` (may be NULL).
 * Returns EXIT_OK, or EXIT_INPUT after a message on stderr. */
int lowered_dump(const char *path, const char *kernel);

#endif
