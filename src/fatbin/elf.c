/* elf.c: the little of ELF64 that finding device code needs (the System V
 * gABI: file header, section headers, symbol table), little-endian only,
 * as nvcc's hosts (x86-64, aarch64) and cubins are. Every offset and size
 * read from the file is checked against the file before it is used. */
#include <stdio.h>
#include <string.h>

#include "fatbin.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Whether [off, off+len) lies inside a file of `size` bytes. */
static bool inside(uint64_t off, uint64_t len, size_t size) {
  return off <= size && len <= size - off;
}

/* The section header table: its entries, their count and the index of the
 * section names' table (the gABI's extended numbering: in section 0 when
 * e_shnum or e_shstrndx do not fit). */
typedef struct Shdrs { const uint8_t *p; uint64_t n, strndx; } Shdrs;

static bool shdrs(const uint8_t *p, size_t size, Shdrs *s, char *err, size_t errlen) {
  if (size < 64 || memcmp(p, "\x7f" "ELF", 4)) return snprintf(err, errlen, "not an ELF file"), false;
  if (p[4] != 2 || p[5] != 1)
    return snprintf(err, errlen, "ELF file is not 64-bit little-endian (class %u, data %u)", p[4], p[5]), false;
  uint64_t off = rd64(p + 0x28);
  uint16_t entsize = rd16(p + 0x3a);
  s->n = rd16(p + 0x3c);
  s->strndx = rd16(p + 0x3e);
  if (off == 0) return s->n = 0, true;   /* no sections */
  if (entsize != 64 || !inside(off, 64, size))
    return snprintf(err, errlen, "ELF section header table out of bounds"), false;
  s->p = p + off;
  if (s->n == 0) s->n = rd64(s->p + 0x20);
  if (s->strndx == 0xffff) s->strndx = rd32(s->p + 0x28);
  if (s->n > (size - off) / 64) return snprintf(err, errlen, "ELF section header table out of bounds"), false;
  return true;
}

/* Section i's contents (SHT_NOBITS: none); false when out of bounds. */
static bool sec_data(const Shdrs *s, uint64_t i, size_t size, const uint8_t *p, ElfSec *out) {
  const uint8_t *h = s->p + i * 64;
  uint64_t off = rd64(h + 0x18), len = rd64(h + 0x20);
  if (rd32(h + 4) == 8) len = 0;   /* SHT_NOBITS */
  if (!inside(off, len, size)) return false;
  *out = (ElfSec){p + off, (size_t)len};
  return true;
}

bool elf_section(const uint8_t *p, size_t size, const char *name, ElfSec *out, char *err, size_t errlen) {
  *out = (ElfSec){NULL, 0};
  Shdrs s;
  if (!shdrs(p, size, &s, err, errlen)) return false;
  if (s.n == 0) return true;
  ElfSec names;
  if (s.strndx >= s.n || !sec_data(&s, s.strndx, size, p, &names))
    return snprintf(err, errlen, "ELF section names out of bounds"), false;
  size_t nlen = strlen(name);
  for (uint64_t i = 0; i < s.n; i++) {
    uint32_t at = rd32(s.p + i * 64);
    if (at >= names.size || names.size - at <= nlen) continue;
    if (memcmp(names.p + at, name, nlen + 1)) continue;
    if (!sec_data(&s, i, size, p, out))
      return snprintf(err, errlen, "ELF section %s out of bounds", name), false;
    return true;
  }
  return true;
}

size_t elf_extent(const uint8_t *p) {
  uint64_t shoff = rd64(p + 0x28), shnum = rd16(p + 0x3c), end = 64;
  uint64_t phend = rd64(p + 0x20) + (uint64_t)rd16(p + 0x38) * rd16(p + 0x36);
  if (phend > end) end = phend;
  if (shoff) {
    if (shnum == 0) shnum = rd64(p + shoff + 0x20);
    for (uint64_t i = 0; i < shnum; i++) {
      const uint8_t *h = p + shoff + i * 64;
      uint64_t e = rd64(h + 0x18) + (rd32(h + 4) == 8 ? 0 : rd64(h + 0x20));
      if (e > end) end = e;
    }
    if (shoff + shnum * 64 > end) end = shoff + shnum * 64;
  }
  return (size_t)end;
}

/* STT_FUNC symbols whose st_other has 0x10: that is how nvcc's cubins mark
 * an .entry (seen in their symbol tables; `readelf -s` shows
 * "[<other>: 10]"). */
int elf_kernels(const uint8_t *p, size_t size, char *buf, size_t cap) {
  char err[64];
  Shdrs s;
  ElfSec syms, strs;
  if (!shdrs(p, size, &s, err, sizeof err)) return 0;
  int n = 0;
  for (uint64_t i = 0; i < s.n; i++) {
    const uint8_t *h = s.p + i * 64;
    uint32_t link = rd32(h + 0x28);
    if (rd32(h + 4) != 2 || link >= s.n) continue;   /* SHT_SYMTAB */
    if (!sec_data(&s, i, size, p, &syms) || !sec_data(&s, link, size, p, &strs)) return 0;
    for (size_t k = 0; k + 24 <= syms.size; k += 24) {
      const uint8_t *sym = syms.p + k;
      uint32_t at = rd32(sym);
      if ((sym[4] & 0xf) != 2 || !(sym[5] & 0x10) || at >= strs.size) continue;
      const char *nm = (const char *)strs.p + at;
      size_t len = strnlen(nm, strs.size - at), used = strlen(buf);
      if (len == strs.size - at) continue;   /* not terminated */
      if (used + len + 3 < cap) snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", nm);
      n++;
    }
  }
  return n;
}
