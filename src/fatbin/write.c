/* write.c: the image cuLinkComplete returns (ptxvm_image_link): the PTX of a
 * link's inputs, kept apart, in the form nvcc gives an -rdc=true object's
 * device code, so every reader of images here (ptxvm_module_load_image,
 * cuModuleLoadData, the command line) takes it and links its modules.
 *
 *   ELF64 little-endian, ET_REL, EM_NONE (it holds no host code), three
 *   sections: the null one, .shstrtab, and __nv_relfatbin (SHT_PROGBITS,
 *   8-aligned) holding one fatbin per input, one after another;
 *   each fatbin (layout in fatbin.c): a 16-byte header and one PTX entry
 *   (kind 1) of 64 header bytes, target sm_90 (the device the link is for),
 *   the PTX ISA version of the text's .version, flags 0x11 as nvcc's
 *   stored entries have, stored (no compression): the text, its NUL,
 *   zero padding to 8 bytes.
 *
 * A fatbin alone could not carry several modules: a fatbin holds one
 * object's code for several targets, and a reader takes one PTX entry of
 * it; and fatbins back to back have no length that a reader given only a
 * pointer (cuModuleLoadData) could trust, where an ELF file has one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"

static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, (uint16_t)v); wr16(p + 2, (uint16_t)(v >> 16)); }
static void wr64(uint8_t *p, uint64_t v) { wr32(p, (uint32_t)v); wr32(p + 4, (uint32_t)(v >> 32)); }

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

enum { FATBIN_HEADER = 16, ENTRY_HEADER = 64, ELF_HEADER = 64, SHDR = 64 };

static const char shstrtab[] = "\0.shstrtab\0__nv_relfatbin";   /* names at 1 and 11 */

/* The PTX ISA version of a text's ".version MAJOR.MINOR" (0.0 if none). */
static void ptx_version(const char *t, size_t len, unsigned *major, unsigned *minor) {
  *major = *minor = 0;
  const char *v = memmem(t, len, ".version", 8);
  if (!v) return;
  char buf[32];   /* a NUL-terminated copy: the text need not be */
  size_t n = (size_t)(t + len - v) < sizeof buf - 1 ? (size_t)(t + len - v) : sizeof buf - 1;
  memcpy(buf, v, n);
  buf[n] = 0;
  sscanf(buf + 8, " %u.%u", major, minor);
}

/* One fatbin holding text at p; returns its bytes. */
static size_t fatbin_at(uint8_t *p, const char *text, size_t len) {
  size_t payload = pad8(len + 1);
  wr32(p, 0xBA55ED50u);
  wr16(p + 4, 1);
  wr16(p + 6, FATBIN_HEADER);
  wr64(p + 8, ENTRY_HEADER + payload);
  uint8_t *e = p + FATBIN_HEADER;
  unsigned major, minor;
  ptx_version(text, len, &major, &minor);
  wr16(e, 1);                   /* kind: PTX */
  wr16(e + 2, 0x0101);
  wr32(e + 4, ENTRY_HEADER);
  wr64(e + 8, payload);
  wr16(e + 24, (uint16_t)minor);
  wr16(e + 26, (uint16_t)major);
  wr32(e + 28, 90);
  wr64(e + 40, 0x11);
  memcpy(e + ENTRY_HEADER, text, len);   /* the rest was zeroed */
  return FATBIN_HEADER + ENTRY_HEADER + payload;
}

static void shdr(uint8_t *h, uint32_t name, uint32_t type, uint64_t off, uint64_t size, uint64_t align) {
  wr32(h, name);
  wr32(h + 4, type);
  wr64(h + 0x18, off);
  wr64(h + 0x20, size);
  wr64(h + 0x30, align);
}

uint8_t *fatbin_write_relocatable(const char *const *texts, const size_t *lens, int n, size_t *size) {
  size_t rel = 0;
  for (int i = 0; i < n; i++) {
    size_t len = lens && lens[i] ? lens[i] : strlen(texts[i]);
    if (len > ((size_t)1 << 40)) return NULL;
    rel += FATBIN_HEADER + ENTRY_HEADER + pad8(len + 1);
  }
  size_t rel_off = pad8(ELF_HEADER + sizeof shstrtab), sh_off = rel_off + rel;
  *size = sh_off + 3 * SHDR;
  uint8_t *p = calloc(1, *size);
  if (!p) return NULL;
  memcpy(p, "\x7f" "ELF", 4);
  p[4] = 2;                     /* ELFCLASS64 */
  p[5] = 1;                     /* little-endian */
  p[6] = 1;                     /* EV_CURRENT */
  wr16(p + 0x10, 1);            /* ET_REL */
  wr16(p + 0x12, 0);            /* EM_NONE */
  wr32(p + 0x14, 1);
  wr64(p + 0x28, sh_off);
  wr16(p + 0x34, ELF_HEADER);
  wr16(p + 0x3a, SHDR);
  wr16(p + 0x3c, 3);
  wr16(p + 0x3e, 1);            /* .shstrtab */
  memcpy(p + ELF_HEADER, shstrtab, sizeof shstrtab);
  size_t off = rel_off;
  for (int i = 0; i < n; i++)
    off += fatbin_at(p + off, texts[i], lens && lens[i] ? lens[i] : strlen(texts[i]));
  shdr(p + sh_off + SHDR, 1, 3, ELF_HEADER, sizeof shstrtab, 1);           /* SHT_STRTAB */
  shdr(p + sh_off + 2 * SHDR, 11, 1, rel_off, rel, 8);                     /* SHT_PROGBITS */
  return p;
}
