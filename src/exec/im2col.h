/* im2col.h: the addressing of im2col tensor copies (src/exec/im2col.c), for
 * tensor.c. */
#ifndef PTXVM_EXEC_IM2COL_H
#define PTXVM_EXEC_IM2COL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../mem/tensormap.h"

/* One row of a tensor copy's box: at dense byte offset off of the box, the
 * elements whose global coordinates start at g (dimension 0 first). False
 * stops the walk. */
typedef bool (*TensorRowFn)(void *u, uint32_t off, const int64_t g[TMAP_MAX_RANK]);

/* True when the coordinates c and the im2col offsets off (one per spatial
 * dimension) are valid for the im2col map m, else false with why not in
 * why (n bytes). */
bool im2col_check(const TensorMap *m, const int32_t c[TMAP_MAX_RANK], const uint32_t off[3], char *why,
                  size_t n);
/* Calls fn for each of m's pixels-per-column rows (row bytes apart): the
 * channels c[0].. of one pixel each. */
bool im2col_rows(const TensorMap *m, const int32_t c[TMAP_MAX_RANK], const uint32_t off[3], uint32_t row,
                 TensorRowFn fn, void *u);

#endif
