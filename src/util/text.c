/* text.c: the growable text buffer, sizes and lane masks of text.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

void text_put(Text *t, const char *s, size_t n) {
  if (t->oom) return;
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 128;
    while (cap < t->n + n + 1) cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) { t->oom = true; return; }
    t->p = p;
    t->cap = cap;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = 0;
}

bool text_parse_size(const char *s, uint64_t *out) {
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s += 2; }
  if (!(base == 16 ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s))) return false;
  char *end;
  errno = 0;
  uint64_t v = strtoull(s, &end, base);
  if (errno) return false;
  int shift = 0;
  if (*end && base == 10) {
    static const char units[] = "KMG";
    const char *u = strchr(units, toupper((unsigned char)*end));
    if (!u) return false;
    shift = 10 * (int)(u - units + 1);
    end++;
  }
  if (*end || (shift && v > UINT64_MAX >> shift)) return false;
  *out = v << shift;
  return true;
}

/* Ranges of consecutive lanes, lowest first. */
void lanes_text(uint32_t m, char *buf, size_t n) {
  size_t k = 0;
  if (!n) return;
  buf[0] = 0;
  for (int l = 0; l < 32 && k + 12 < n; l++) {
    if (!(m >> l & 1) || (l > 0 && (m >> (l - 1) & 1))) continue;
    int e = l;
    while (e + 1 < 32 && (m >> (e + 1) & 1)) e++;
    k += (size_t)snprintf(buf + k, n - k, k ? ",%d" : "%d", l);
    if (e > l) k += (size_t)snprintf(buf + k, n - k, "-%d", e);
  }
  if (!k) snprintf(buf, n, "none");
}
