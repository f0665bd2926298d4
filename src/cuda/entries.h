/* entries.h: the table of entry points (entries.c), without cuda.h, whose
 * prototypes the stubs there could not match. */
#ifndef PTXVM_CUDA_ENTRIES_H
#define PTXVM_CUDA_ENTRIES_H

#include <stdbool.h>

/* The variant of entry point `name` for cudaVersion (the newest one not
 * newer) and per_thread (its _ptds/_ptsz flavour where one exists, else
 * the plain one): *pfn and 0; 1 when no entry has that name; 2 when the
 * name exists only in later versions (*pfn NULL then). */
int drv_entry_lookup(const char *name, int cuda_version, bool per_thread, void **pfn);

#endif
