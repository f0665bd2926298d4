/* image.h: the command line's input files, PTX text or an image that holds
 * PTX (tools/image.c). */
#ifndef PTXVM_IMAGE_H
#define PTXVM_IMAGE_H

#include "ptxvm.h"

/* The modules loaded from one FILE, and the names their diagnostics use. */
typedef struct Loaded { ptxvm_module **mods; char **names; int n; } Loaded;

/* Loads every PTX module of the file at path into ctx; EXIT_OK, or
 * EXIT_INPUT after a message on stderr. image_unload frees *out either way
 * (the modules belong to ctx). */
int image_load(ptxvm_context *ctx, const char *path, Loaded *out);
void image_unload(Loaded *l);
/* The module that defines kernel (NULL: the one module with kernels);
 * NULL after a message. */
ptxvm_module *image_pick(const Loaded *l, const char *kernel);
/* ptxvm ptx FILE: writes the file's PTX on stdout; the exit status. */
int image_cmd_ptx(const char *path);

#endif
