/* text.h: a growable, NUL-terminated text buffer on the heap (device printf
 * output, a cluster's buffered output). Allocation failure sets oom and
 * drops what follows; the caller frees p. */
#ifndef PTXVM_TEXT_H
#define PTXVM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Text { char *p; size_t n, cap; bool oom; } Text;

void text_put(Text *t, const char *s, size_t n);

/* A SIZE of the command line and the environment: a decimal or 0x
 * hexadecimal byte count, a decimal one optionally followed by K, M or G
 * (KiB, MiB, GiB: "64M"). false when s is not one or it overflows. */
bool text_parse_size(const char *s, uint64_t *out);

/* A lane mask as ranges for messages: "0-3,8", or "none". */
void lanes_text(uint32_t m, char *buf, size_t n);

#endif
