/* fatbin.h: the PTX inside CUDA executables, objects and fatbins.
 *
 * fatbin.c reads a fatbin (magic 0xBA55ED50), the runtime's
 * __fatBinC_Wrapper_t (magic 0x466243B1, in memory only: it holds a
 * pointer) or an ELF file (an executable, shared library or object with a
 * .nv_fatbin / __nv_relfatbin section; a cubin) and returns, per fatbin,
 * the PTX of its best target: the highest sm <= 90, sm_90a preferred to
 * sm_90. elf.c finds sections and lists the kernels of a cubin (for the
 * message about SASS-only images). Every field is bounds-checked against
 * the image; nothing here trusts a size it has not checked, and a
 * decompressed size is bounded before it is allocated. */
#ifndef PTXVM_FATBIN_H
#define PTXVM_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { FB_OK, FB_INVALID, FB_NO_PTX, FB_NOMEM } FbStatus;

typedef struct FbPtx {
  char *text;            /* malloc'd, NUL-terminated */
  size_t len;            /* bytes without the NUL */
  unsigned sm;           /* the entry's target: 90 for sm_90 and sm_90a */
  bool arch_specific;    /* sm_90a */
  bool relocatable;      /* from __nv_relfatbin: an -rdc=true object */
} FbPtx;

typedef struct FbImage {
  FbPtx *ptx;            /* one per fatbin that has PTX for sm <= 90 */
  int nptx;
  char err[512];         /* the message when fatbin_read fails */
} FbImage;

/* Reads `size` bytes at `image`. size 0: the image lies in memory and is
 * as long as its headers say (a fatbin, an ELF file, or a wrapper whose
 * data pointer is followed), as cuModuleLoadData's images are. Returns
 * FB_OK with out->nptx >= 1; else out->err says what is wrong (FB_INVALID
 * a malformed image, FB_NO_PTX no usable PTX: SASS only, or only targets
 * above sm_90) and out holds nothing to free. */
FbStatus fatbin_read(const void *image, size_t size, FbImage *out);
void fatbin_free(FbImage *img);

/* Whether the first bytes of an image are a fatbin's, a wrapper's or an
 * ELF file's magic (and so not PTX text). */
bool fatbin_is_image(const void *image, size_t size);

/* ---- write.c ---- */

/* An image of n PTX texts to be linked (ptxvm_image_link): an ELF64
 * relocatable file whose __nv_relfatbin section holds one fatbin per text,
 * each with one stored PTX entry for sm_90; malloc'd, *size its bytes;
 * NULL when out of memory. lens NULL or lens[i] 0: NUL-terminated. */
uint8_t *fatbin_write_relocatable(const char *const *texts, const size_t *lens, int n, size_t *size);

/* ---- elf.c ---- */

typedef struct ElfSec { const uint8_t *p; size_t size; } ElfSec;

/* The contents of the section named `name` of the ELF64 little-endian file
 * at p (`size` bytes), in *out (size 0 and p NULL when absent). Returns
 * false with a message in err when the file is malformed. */
bool elf_section(const uint8_t *p, size_t size, const char *name, ElfSec *out, char *err, size_t errlen);
/* The extent of the ELF file at p when its size is unknown: the end of its
 * furthest header table or section. */
size_t elf_extent(const uint8_t *p);
/* Appends to buf (at most cap bytes with the NUL) the names of the kernels
 * (STT_FUNC symbols marked as entries) of cubin p, separated by ", ";
 * returns how many there are (0 for a malformed cubin). */
int elf_kernels(const uint8_t *p, size_t size, char *buf, size_t cap);

#endif
