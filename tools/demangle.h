/* demangle.h: a kernel's Itanium-mangled name, readable (demangle.c). */
#ifndef PTXVM_DEMANGLE_H
#define PTXVM_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* For a mangled function name (`_Z6reducePKiPii`): its qualified name
 * (`reduce`, `ns::k<float>`) in name_out and its signature
 * (`reduce(int const*, int*, int)`) in sig_out. False, both untouched or
 * partly written, for a name that is not mangled or uses what demangle.c
 * does not read, and when a buffer is too small. */
bool demangle(const char *mangled, char *name_out, size_t name_size, char *sig_out, size_t sig_size);

#endif
