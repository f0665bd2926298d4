/* im2col.c: which elements an im2col tensor copy moves (PTX ISA 9.0 §5.5.4
 * "im2col mode"; the map of cuTensorMapEncodeIm2col). A rank-R tensor is
 * NWC, NHWC or NDHWC: dimension 0 is C, 1 .. R-2 the spatial W, H, D,
 * R-1 the batch N. In spatial dimension i the filter bases range over the
 * bounding box lower[i] .. dim[i] - 1 + upper[i] in steps of the element
 * (traversal) stride, W fastest, then H, D, and past the last the next
 * image (N + 1). The copy's coordinates name the first pixel: c[0] the
 * first channel, c[1..R-2] its filter base (within the box), c[R-1] its
 * image; it moves pixels-per-column pixels in that order, of each the
 * channels-per-pixel elements from c[0] at the spatial position base +
 * im2col offset. An element outside the tensor (a position past an edge,
 * a channel past C, an image past N: the column ran out of pixels) is out
 * of bounds: filled on a load, skipped on a store, as in tile mode. The
 * batch dimension advances by one pixel-row of images: an element stride
 * in N other than 1 is refused. */
#include "im2col.h"

#include <stdio.h>

bool im2col_check(const TensorMap *m, const int32_t c[TMAP_MAX_RANK], const uint32_t off[3], char *why,
                  size_t n) {
  unsigned s = m->rank - 2;
  if (m->estride[m->rank - 1] != 1) {
    snprintf(why, n, "an im2col map's element stride in N (the last dimension) other than 1 is not supported");
    return false;
  }
  uint32_t lim = m->rank == 3 ? 65535 : m->rank == 4 ? 255 : 31;
  for (unsigned i = 0; i < s; i++) {
    int64_t hi = (int64_t)m->dim[i + 1] - 1 + m->upper[i];
    if (c[i + 1] < m->lower[i] || c[i + 1] > hi) {
      snprintf(why, n, "the filter base %d of dimension %u lies outside the bounding box [%d, %lld]",
               c[i + 1], i + 1, m->lower[i], (long long)hi);
      return false;
    }
    if (off[i] > lim) {
      snprintf(why, n, "the im2col offset %u of dimension %u is past %u, the limit of rank %u",
               off[i], i + 1, lim, m->rank);
      return false;
    }
  }
  return true;
}

bool im2col_rows(const TensorMap *m, const int32_t c[TMAP_MAX_RANK], const uint32_t off[3], uint32_t row,
                 TensorRowFn fn, void *u) {
  unsigned s = m->rank - 2;
  int64_t pos[3] = {0}, n = c[m->rank - 1];
  for (unsigned i = 0; i < s; i++) pos[i] = c[i + 1];
  uint32_t o = 0;
  for (uint32_t p = 0; p < m->ppc; p++, o += row) {
    int64_t g[TMAP_MAX_RANK] = {c[0]};
    for (unsigned i = 0; i < s; i++) g[i + 1] = pos[i] + off[i];
    g[m->rank - 1] = n;
    if (!fn(u, o, g)) return false;
    for (unsigned i = 0;; i++) {   /* the next filter base: W, then H, D, then the next image */
      if (i == s) { n++; break; }
      pos[i] += m->estride[i + 1];
      if (pos[i] <= (int64_t)m->dim[i + 1] - 1 + m->upper[i]) break;
      pos[i] = m->lower[i];
    }
  }
  return true;
}
