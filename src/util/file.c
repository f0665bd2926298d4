/* file.c: reading a whole file (file.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fatbin/fatbin.h"
#include "file.h"

char *util_read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  int binary = -1;   /* an image (fatbin, ELF file): known after the first bytes */
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    if (binary < 0 && n + got >= 4) binary = fatbin_is_image(buf, n + got);
    const char *nul = binary == 1 ? NULL : memchr(buf + n, 0, got);
    n += got;
    if (nul) {   /* text ends there: the front end refuses the NUL, located */
      n = (size_t)(nul - buf) + 1;
      break;
    }
    if (n < cap || n > UTIL_FILE_MAX) break;
    char *nb = realloc(buf, (cap *= 2) + 1);
    if (!nb) { free(buf); buf = NULL; }
    else buf = nb;
  }
  int err = ferror(f) ? (errno ? errno : EIO) : n > UTIL_FILE_MAX ? EFBIG : !buf ? ENOMEM : 0;
  if (f != stdin) fclose(f);
  if (err) { free(buf); errno = err; return NULL; }
  buf[n] = 0;
  *len = n;
  return buf;
}
