/* text.h: a growable, NUL-terminated text buffer on the heap (device printf
 * output, a cluster's buffered output). Allocation failure sets oom and
 * drops what follows; the caller frees p. */
#ifndef PTXVM_TEXT_H
#define PTXVM_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct Text { char *p; size_t n, cap; bool oom; } Text;

void text_put(Text *t, const char *s, size_t n);

#endif
