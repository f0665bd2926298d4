/* fatbin.c: finding the PTX in a fatbin.
 *
 * NVIDIA documents only the runtime's wrapper (crt/fatbinary_section.h:
 * __fatBinC_Wrapper_t {int magic 0x466243B1; int version; const unsigned
 * long long *data; void *filename_or_fatbins;}, and the section names
 * .nv_fatbin, .nvFatBinSegment, __nv_relfatbin). The rest was read off
 * nvcc 13.0's output (tests/fatbin/README.md):
 *
 *   fatbin header, 16 bytes:  u32 magic 0xBA55ED50, u16 version 1,
 *                             u16 header size (16), u64 bytes of entries
 *   entry header (its own size, 64 to 96 bytes seen):
 *     +0  u16 kind: 1 PTX, 2 ELF (SASS)      +4  u32 header size
 *     +8  u64 payload bytes (padded to 8)    +16 u32 compressed bytes
 *     +24 u16 minor, +26 u16 major version (the PTX ISA's for PTX)
 *     +28 u32 target sm (90)                 +40 u64 flags
 *     +56 u64 uncompressed bytes (with the PTX's NUL; 0 when stored)
 *   flags: 0x2000 payload is an LZ4 block, 0x8000 a zstd frame,
 *          0x100000 an arch-specific target (sm_90a)
 *
 * The payload follows its header. Stored PTX is NUL-terminated and padded.
 * fatbinary strips comments and leading blanks from PTX and collapses blank
 * runs, so the text is nvcc -ptx's output in that form. A .nv_fatbin
 * section holds several fatbins one after another, one per translation unit
 * (and one per link step), each registered by its own wrapper. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "fatbin.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define WRAPPER_MAGIC 0x466243B1u
#define KIND_PTX 1
#define KIND_ELF 2
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define FLAG_ARCH_SPECIFIC 0x100000u
/* the largest target ptxvm runs, and the largest text it decompresses */
#define MAX_SM 90
#define MAX_TEXT ((uint64_t)1 << 30)

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static FbStatus fail(FbImage *img, FbStatus st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static FbStatus fail(FbImage *img, FbStatus st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(img->err, sizeof img->err, fmt, ap);
  va_end(ap);
  return st;
}

/* One entry of a fatbin, its header checked. */
typedef struct Entry {
  unsigned kind, sm;
  uint64_t flags, usize;
  const uint8_t *data;   /* the payload: compressed bytes, or the stored image */
  size_t dsize;
} Entry;

/* A zstd frame into a buffer that grows as output comes (so a forged
 * uncompressed size costs nothing until the data is there), at most usize
 * bytes, which must be exactly what the frame holds. */
static char *unzstd(const uint8_t *src, size_t n, uint64_t usize) {
  ZSTD_DStream *z = ZSTD_createDStream();
  size_t cap = usize < 65536 ? (size_t)usize : 65536;
  char *buf = z ? malloc(cap + 1) : NULL;
  ZSTD_inBuffer in = {src, n, 0};
  ZSTD_outBuffer out = {buf, cap, 0};
  size_t r = buf ? ZSTD_initDStream(z) : 1;
  while (buf && !ZSTD_isError(r)) {
    r = ZSTD_decompressStream(z, &out, &in);
    if (ZSTD_isError(r) || r == 0) break;
    if (out.pos < out.size) {   /* wants input it does not have */
      if (in.pos == in.size) { r = (size_t)-1; break; }
      continue;
    }
    if (cap == usize) { r = (size_t)-1; break; }   /* more than announced */
    cap = cap * 2 < usize ? cap * 2 : (size_t)usize;
    char *nb = realloc(buf, cap + 1);
    if (!nb) { free(buf); buf = NULL; break; }
    out.dst = buf = nb;
    out.size = cap;
  }
  ZSTD_freeDStream(z);
  if (buf && (ZSTD_isError(r) || r != 0 || out.pos != usize)) { free(buf); return (char *)-1; }
  if (buf) buf[usize] = 0;
  return buf;
}

/* The entry's payload, decompressed, NUL-terminated, in a fresh buffer
 * (*len its bytes); NULL with a message when it cannot be. */
static char *payload(FbImage *img, const Entry *e, size_t *len, FbStatus *st) {
  *st = FB_INVALID;
  unsigned comp = (unsigned)(e->flags & (FLAG_LZ4 | FLAG_ZSTD));
  if (!comp) {
    char *t = malloc(e->dsize + 1);
    if (!t) return *st = FB_NOMEM, NULL;
    memcpy(t, e->data, e->dsize);
    t[e->dsize] = 0;
    *len = e->dsize;
    return t;
  }
  if (comp == (FLAG_LZ4 | FLAG_ZSTD)) return fail(img, FB_INVALID, "fatbin entry has both LZ4 and zstd flags"), NULL;
  /* an LZ4 block expands at most 255 times (a match's length bytes) */
  uint64_t bound = comp == FLAG_LZ4 ? (uint64_t)e->dsize * 255 + 16 : MAX_TEXT;
  if (e->usize == 0 || e->usize > MAX_TEXT || e->usize > bound)
    return fail(img, FB_INVALID, "fatbin entry's uncompressed size %llu is not possible for %zu compressed bytes",
                (unsigned long long)e->usize, e->dsize), NULL;
  char *t;
  if (comp == FLAG_LZ4) {
    t = malloc((size_t)e->usize + 1);
    if (!t) return *st = FB_NOMEM, NULL;
    if (e->dsize > (size_t)LZ4_MAX_INPUT_SIZE ||
        LZ4_decompress_safe((const char *)e->data, t, (int)e->dsize, (int)e->usize) != (int)e->usize) {
      free(t);
      return fail(img, FB_INVALID, "fatbin entry's LZ4 data is corrupt"), NULL;
    }
    t[e->usize] = 0;
  } else {
    t = unzstd(e->data, e->dsize, e->usize);
    if (!t) return *st = FB_NOMEM, NULL;
    if (t == (char *)-1) return fail(img, FB_INVALID, "fatbin entry's zstd data is corrupt"), NULL;
  }
  *len = (size_t)e->usize;
  return t;
}

/* Checks the entry header at p (`avail` bytes left in the fatbin). */
static bool entry_at(FbImage *img, const uint8_t *p, uint64_t avail, Entry *e, uint64_t *step) {
  if (avail < 64) return fail(img, FB_INVALID, "fatbin entry header truncated (%llu bytes)", (unsigned long long)avail), false;
  uint32_t hsize = rd32(p + 4);
  uint64_t psize = rd64(p + 8);
  if (hsize < 64 || hsize > avail || psize > avail - hsize)
    return fail(img, FB_INVALID, "fatbin entry of %u + %llu bytes does not fit in the %llu left", hsize,
                (unsigned long long)psize, (unsigned long long)avail), false;
  *e = (Entry){rd16(p), rd32(p + 28), rd64(p + 40), rd64(p + 56), p + hsize, (size_t)psize};
  uint32_t csize = rd32(p + 16);
  if (e->flags & (FLAG_LZ4 | FLAG_ZSTD)) {
    if (csize > psize) return fail(img, FB_INVALID, "fatbin entry's compressed size %u exceeds its payload %llu",
                                   csize, (unsigned long long)psize), false;
    e->dsize = csize;
  }
  *step = hsize + psize;
  return true;
}

/* What one fatbin offers: its best PTX entry, and whether it has SASS. */
typedef struct Best { Entry ptx; bool have; unsigned nelf, above; } Best;

/* Whether PTX entry e is better for ptxvm than b's: the highest target up
 * to MAX_SM, the arch-specific one (sm_90a) of a target preferred. */
static bool better(const Entry *e, const Best *b) {
  if (e->sm > MAX_SM) return false;
  if (!b->have || e->sm > b->ptx.sm) return true;
  return e->sm == b->ptx.sm && (e->flags & FLAG_ARCH_SPECIFIC) && !(b->ptx.flags & FLAG_ARCH_SPECIFIC);
}

static bool push(FbImage *img, char *text, size_t len, const Entry *e, bool reloc) {
  FbPtx *np = realloc(img->ptx, (size_t)(img->nptx + 1) * sizeof *np);
  if (!np) return false;
  img->ptx = np;
  /* stored PTX ends at its NUL; padding follows */
  len = strnlen(text, len);
  np[img->nptx++] = (FbPtx){text, len, e->sm, (e->flags & FLAG_ARCH_SPECIFIC) != 0, reloc};
  return true;
}

/* Names the kernels of the SASS entries of the fatbin at p, for the
 * message about an image without PTX. */
static void sass_kernels(const uint8_t *p, uint64_t n, char *buf, size_t cap) {
  uint64_t off = rd16(p + 6);
  while (off < n) {
    Entry e;
    uint64_t step;
    FbImage scratch;
    if (!entry_at(&scratch, p + off, n - off, &e, &step)) return;
    size_t len;
    FbStatus st;
    char *elf = e.kind == KIND_ELF ? payload(&scratch, &e, &len, &st) : NULL;
    if (elf) elf_kernels((const uint8_t *)elf, len, buf, cap);
    free(elf);
    off += step;
  }
}

/* Reads the fatbin at p (at most `avail` bytes; its own size when
 * trust_size) into img; *used is its extent. */
static FbStatus one_fatbin(FbImage *img, const uint8_t *p, uint64_t avail, bool reloc, uint64_t *used,
                           unsigned *above, unsigned *sass) {
  if (avail < 16) return fail(img, FB_INVALID, "fatbin header truncated (%llu bytes)", (unsigned long long)avail);
  if (rd32(p) != FATBIN_MAGIC) return fail(img, FB_INVALID, "not a fatbin (magic 0x%08x)", rd32(p));
  uint16_t hsize = rd16(p + 6);
  uint64_t size = rd64(p + 8);
  if (hsize < 16 || hsize > avail || size > avail - hsize)
    return fail(img, FB_INVALID, "fatbin of %u + %llu bytes does not fit in the %llu bytes of the image", hsize,
                (unsigned long long)size, (unsigned long long)avail);
  *used = hsize + size;
  Best b = {.have = false};
  for (uint64_t off = hsize; off < *used;) {
    Entry e;
    uint64_t step;
    if (!entry_at(img, p + off, *used - off, &e, &step)) return FB_INVALID;
    if (e.kind == KIND_PTX && better(&e, &b)) b.ptx = e, b.have = true;
    if (e.kind == KIND_PTX && e.sm > MAX_SM) b.above = e.sm;
    if (e.kind == KIND_ELF) b.nelf++;
    off += step;
  }
  if (!b.have) {
    if (b.above) *above = b.above;
    *sass += b.nelf;
    return FB_OK;
  }
  size_t len;
  FbStatus st;
  char *text = payload(img, &b.ptx, &len, &st);
  if (!text) return st == FB_NOMEM ? fail(img, FB_NOMEM, "out of memory reading a fatbin") : st;
  if (!push(img, text, len, &b.ptx, reloc)) {
    free(text);
    return fail(img, FB_NOMEM, "out of memory reading a fatbin");
  }
  return FB_OK;
}

/* The fatbins laid one after another in [p, p+n) (a section; 8-byte
 * aligned, zero padding allowed between and after them). */
typedef struct Scan { unsigned above, sass; } Scan;

static FbStatus fatbins(FbImage *img, const uint8_t *p, size_t n, bool reloc, Scan *sc) {
  size_t off = 0;
  while (off < n) {
    if (n - off < 16) {   /* the end: padding, or a truncated header */
      while (off < n && p[off] == 0) off++;
      if (off == n) break;
    } else if (rd32(p + off) == 0) {   /* padding */
      off += 4;
      continue;
    }
    uint64_t used = 0;
    FbStatus st = one_fatbin(img, p + off, n - off, reloc, &used, &sc->above, &sc->sass);
    if (st != FB_OK) return st;
    off += (size_t)used;
  }
  return FB_OK;
}

/* The message for an image whose fatbins hold no PTX ptxvm can run. */
static FbStatus no_ptx(FbImage *img, const Scan *sc, const char *kernels) {
  if (sc->above)
    return fail(img, FB_NO_PTX, "the image holds PTX only for sm_%u, above sm_90: rebuild with -arch=sm_90 "
                "(or -gencode arch=compute_90,code=[sm_90,compute_90])", sc->above);
  if (sc->sass)
    return fail(img, FB_NO_PTX, "the image holds SASS only (no PTX)%s%s: ptxvm runs PTX; rebuild with -arch=sm_90 "
                "(or -gencode arch=compute_90,code=[sm_90,compute_90])", *kernels ? " for kernels " : "", kernels);
  return fail(img, FB_NO_PTX, "the image holds no device code");
}

static FbStatus read_elf(FbImage *img, const uint8_t *p, size_t size) {
  if (size == 0) size = elf_extent(p);
  ElfSec fat, rel;
  if (!elf_section(p, size, ".nv_fatbin", &fat, img->err, sizeof img->err) ||
      !elf_section(p, size, "__nv_relfatbin", &rel, img->err, sizeof img->err))
    return FB_INVALID;
  char kernels[256] = "";
  Scan sc = {0, 0};
  if (!fat.p && !rel.p) {   /* a cubin itself, or a host file without device code */
    if (rd16(p + 18) == 190) {   /* EM_CUDA */
      elf_kernels(p, size, kernels, sizeof kernels);
      return fail(img, FB_NO_PTX, "a cubin holds SASS only (no PTX)%s%s: ptxvm runs PTX; give it nvcc -ptx's "
                  "output, or a fatbin or executable built with -arch=sm_90", *kernels ? " for kernels " : "", kernels);
    }
    return no_ptx(img, &sc, kernels);
  }
  FbStatus st = fat.p ? fatbins(img, fat.p, fat.size, false, &sc) : FB_OK;
  if (st == FB_OK && rel.p) st = fatbins(img, rel.p, rel.size, true, &sc);
  if (st != FB_OK) return st;
  if (img->nptx) return FB_OK;
  for (size_t off = 0; fat.p && off + 16 <= fat.size;) {   /* checked above */
    if (rd32(fat.p + off) != FATBIN_MAGIC) { off += 4; continue; }
    uint64_t n = rd16(fat.p + off + 6) + rd64(fat.p + off + 8);
    sass_kernels(fat.p + off, n, kernels, sizeof kernels);
    off += (size_t)n;
  }
  return no_ptx(img, &sc, kernels);
}

/* Byte by byte, so a short NUL-terminated text (size 0) is not over-read:
 * no magic has a zero byte. */
static bool starts(const uint8_t *p, size_t size, const char *magic) {
  for (size_t i = 0; i < 4; i++)
    if ((size && i >= size) || p[i] != (uint8_t)magic[i]) return false;
  return true;
}

bool fatbin_is_image(const void *image, size_t size) {
  const uint8_t *p = image;
  return starts(p, size, "\x50\xed\x55\xba") || starts(p, size, "\xb1\x43\x62\x46") || starts(p, size, "\x7f" "ELF");
}

/* One fatbin in memory whose size is its header's (size 0). */
static FbStatus read_fatbin(FbImage *img, const uint8_t *p, size_t size) {
  Scan sc = {0, 0};
  char kernels[256] = "";
  size_t n = size ? size : (size_t)(rd16(p + 6) + rd64(p + 8));
  if (!size && n < 16) n = 16;   /* its header's 16 bytes, which say it is malformed */
  FbStatus st = fatbins(img, p, n, false, &sc);
  if (st != FB_OK || img->nptx) return st;
  sass_kernels(p, n < 16 ? 0 : rd16(p + 6) + rd64(p + 8), kernels, sizeof kernels);
  return no_ptx(img, &sc, kernels);
}

FbStatus fatbin_read(const void *image, size_t size, FbImage *img) {
  *img = (FbImage){NULL, 0, ""};
  const uint8_t *p = image;
  if (!p || (size && size < 16)) return fail(img, FB_INVALID, "image of %zu bytes is too short", size);
  FbStatus st;
  uint32_t magic = rd32(p);
  if (magic == WRAPPER_MAGIC) {
    /* __fatBinC_Wrapper_t: version 1, or 2 for a link step's */
    uint32_t version = rd32(p + 4);
    const uint8_t *data;
    memcpy(&data, p + 8, sizeof data);
    if (size) st = fail(img, FB_INVALID, "a __fatBinC_Wrapper_t holds a pointer: it can be read in memory only");
    else if ((version != 1 && version != 2) || !data)
      st = fail(img, FB_INVALID, "__fatBinC_Wrapper_t version %u, data %p: not one nvcc makes", version, (const void *)data);
    else st = read_fatbin(img, data, 0);
  } else if (magic == FATBIN_MAGIC) {
    st = read_fatbin(img, p, size);
  } else if (!memcmp(p, "\x7f" "ELF", 4)) {
    st = read_elf(img, p, size);
  } else {
    st = fail(img, FB_INVALID, "not a fatbin, fatbin wrapper or ELF file (magic 0x%08x)", magic);
  }
  if (st != FB_OK) {
    char keep[sizeof img->err];
    memcpy(keep, img->err, sizeof keep);
    fatbin_free(img);
    memcpy(img->err, keep, sizeof keep);
  }
  return st;
}

void fatbin_free(FbImage *img) {
  for (int i = 0; i < img->nptx; i++) free(img->ptx[i].text);
  free(img->ptx);
  *img = (FbImage){NULL, 0, ""};
}
