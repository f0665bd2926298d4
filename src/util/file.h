/* file.h: reading a whole file (PTX text, an executable) into memory. */
#ifndef PTXVM_FILE_H
#define PTXVM_FILE_H

#include <stddef.h>

/* Files longer than this are refused rather than read: a device such as
 * /dev/urandom would otherwise fill the memory. */
#define UTIL_FILE_MAX ((size_t)1 << 31)

/* The bytes of the file at path ("-": standard input) in a malloc'd buffer
 * with a NUL after them, *len their count; NULL with errno set when it
 * cannot be read (EFBIG: over UTIL_FILE_MAX). Text ends at its first NUL
 * byte, which is kept (so the front end refuses it where it is, without
 * reading the rest of a binary file or of /dev/zero); an image (a fatbin
 * or ELF file, fatbin_is_image) is read whole. */
char *util_read_file(const char *path, size_t *len);

#endif
