/* test_fatbin.c: the fatbin reader (src/fatbin/) on images built here, in
 * the layout read off nvcc's output (src/fatbin/fatbin.c): the choice of
 * target, zstd, LZ4 and stored PTX, the wrapper, an ELF file with a
 * .nv_fatbin section, the SASS-only and above-sm_90 messages, and every
 * truncation and many corruptions of the images (each copied to a buffer
 * of exactly its size, so the sanitizer build sees any over-read); then
 * ptxvm_image_get_ptx and ptxvm_module_load_image. tests/fatbin checks the
 * same against nvcc itself. Prints "N passed, M failed". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "../../include/ptxvm.h"
#include "../../src/fatbin/fatbin.h"

#include "check.h"

typedef struct Buf { uint8_t p[1 << 16]; size_t n; } Buf;

static void put(Buf *b, const void *p, size_t n) {
  memcpy(b->p + b->n, p, n);
  b->n += n;
}
static void put16(Buf *b, uint16_t v) { put(b, &v, 2); }
static void put32(Buf *b, uint32_t v) { put(b, &v, 4); }
static void put64(Buf *b, uint64_t v) { put(b, &v, 8); }
static void pad8(Buf *b) { while (b->n % 8) b->p[b->n++] = 0; }

enum { STORED, ZSTD, LZ4 };

/* Appends an entry: kind 1 PTX / 2 ELF, target sm, the payload compressed
 * as `how`; flags gets the compression bit. */
static void entry(Buf *b, unsigned kind, unsigned sm, uint64_t flags, const char *data, size_t n, int how) {
  static char packed[1 << 14];
  size_t csize = 0, usize = 0;
  if (how == ZSTD) csize = ZSTD_compress(packed, sizeof packed, data, n, 3), flags |= 0x8000;
  if (how == LZ4) csize = (size_t)LZ4_compress_default(data, packed, (int)n, (int)sizeof packed), flags |= 0x2000;
  if (how != STORED) usize = n;
  else memcpy(packed, data, csize = n);
  size_t psize = (csize + 7) & ~(size_t)7;
  put16(b, (uint16_t)kind);
  put16(b, 0x0101);
  put32(b, 64);
  put64(b, psize);
  put32(b, how == STORED ? 0 : (uint32_t)csize);
  put32(b, 0);
  put16(b, 0);
  put16(b, kind == 1 ? 9 : 1);
  put32(b, sm);
  put64(b, 0);
  put64(b, flags);
  put64(b, 0);
  put64(b, usize);
  put(b, packed, csize);
  pad8(b);
}

/* A fatbin of the entries `body` holds. */
static void fatbin(Buf *out, const Buf *body) {
  put32(out, 0xBA55ED50u);
  put16(out, 1);
  put16(out, 16);
  put64(out, body->n);
  put(out, body->p, body->n);
}

static const char PTX80[] = ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k80()\n{\nret;\n}\n";
static const char PTX90[] = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k90(.param .u64 p)\n{\nret;\n}\n";
static const char PTX90A[] = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k90a()\n{\nret;\n}\n";
static const char PTX100[] = ".version 9.0\n.target sm_100\n.address_size 64\n.visible .entry k100()\n{\nret;\n}\n";

/* The PTX payload with its NUL, as nvcc stores it. */
#define TEXT(s) (s), sizeof(s)

/* A fatbin with PTX for sm_80 (stored), sm_90 (zstd), sm_90a (LZ4), sm_100
 * and an ELF entry, in that order or without the 90a one. */
static void sample(Buf *out, bool with90a) {
  static Buf body;
  body.n = 0;
  entry(&body, 2, 90, 0x11, "\x7f" "ELFjunk", 8, STORED);
  entry(&body, 1, 80, 0x11, TEXT(PTX80), STORED);
  entry(&body, 1, 90, 0x11, TEXT(PTX90), ZSTD);
  if (with90a) entry(&body, 1, 90, 0x100011, TEXT(PTX90A), LZ4);
  entry(&body, 1, 100, 0x11, TEXT(PTX100), ZSTD);
  out->n = 0;
  fatbin(out, &body);
}

/* Reads a copy of exactly n bytes, so any over-read is outside the copy. */
static FbStatus read_copy(const uint8_t *p, size_t n, FbImage *img) {
  uint8_t *c = malloc(n ? n : 1);
  memcpy(c, p, n);
  FbStatus st = fatbin_read(c, n, img);
  free(c);
  return st;
}

static void test_choice(void) {
  static Buf f;
  FbImage img;
  sample(&f, true);
  CHECK(fatbin_read(f.p, f.n, &img) == FB_OK);
  CHECK(img.nptx == 1 && img.ptx[0].sm == 90 && img.ptx[0].arch_specific && !img.ptx[0].relocatable);
  CHECK(img.nptx == 1 && img.ptx[0].len == strlen(PTX90A) && !strcmp(img.ptx[0].text, PTX90A));
  fatbin_free(&img);
  sample(&f, false);   /* sm_90 (zstd) beats sm_80 and sm_100 */
  CHECK(fatbin_read(f.p, f.n, &img) == FB_OK);
  CHECK(img.nptx == 1 && !strcmp(img.ptx[0].text, PTX90) && !img.ptx[0].arch_specific);
  fatbin_free(&img);
  /* size 0: the header gives the size (as cuModuleLoadData's images) */
  CHECK(fatbin_read(f.p, 0, &img) == FB_OK && img.nptx == 1 && !strcmp(img.ptx[0].text, PTX90));
  fatbin_free(&img);
  /* the wrapper, in memory only */
  struct { int magic, version; const void *data, *fatbins; } w = {0x466243B1, 1, f.p, NULL};
  CHECK(fatbin_read(&w, 0, &img) == FB_OK && img.nptx == 1 && !strcmp(img.ptx[0].text, PTX90));
  fatbin_free(&img);
  CHECK(fatbin_read(&w, sizeof w, &img) == FB_INVALID && strstr(img.err, "in memory only"));
  w.version = 7;
  CHECK(fatbin_read(&w, 0, &img) == FB_INVALID && strstr(img.err, "version 7"));
}

static void test_no_ptx(void) {
  static Buf body, f;
  FbImage img;
  body.n = f.n = 0;
  entry(&body, 1, 100, 0x11, TEXT(PTX100), ZSTD);
  fatbin(&f, &body);
  CHECK(fatbin_read(f.p, f.n, &img) == FB_NO_PTX && strstr(img.err, "only for sm_100") && img.nptx == 0);
  body.n = f.n = 0;
  entry(&body, 2, 90, 0x11, "\x7f" "ELFjunk", 8, STORED);
  fatbin(&f, &body);
  CHECK(fatbin_read(f.p, f.n, &img) == FB_NO_PTX && strstr(img.err, "SASS only") && strstr(img.err, "-arch=sm_90"));
}

/* An ELF64 file: header, the fatbin as section 1 (.nv_fatbin), the names
 * as section 2, then the section headers. */
static void elf(Buf *out, const Buf *fat, const char *secname) {
  static const char names[] = "\0.shstrtab\0.nv_fatbin\0__nv_relfatbin";
  size_t name = !strcmp(secname, ".nv_fatbin") ? 11 : 22;
  out->n = 0;
  uint8_t h[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  size_t fat_off = 64, names_off = 64 + fat->n, sh_off = (names_off + sizeof names + 7) & ~(size_t)7;
  memcpy(h + 0x28, &sh_off, 8);
  h[0x3a] = 64;   /* e_shentsize */
  h[0x3c] = 3;    /* e_shnum */
  h[0x3e] = 2;    /* e_shstrndx */
  put(out, h, 64);
  put(out, fat->p, fat->n);
  put(out, names, sizeof names);
  pad8(out);
  uint8_t sh[3][64] = {{0}};
  uint32_t nm[3] = {0, (uint32_t)name, 1}, type[3] = {0, 1, 3};
  uint64_t off[3] = {0, fat_off, names_off}, size[3] = {0, fat->n, sizeof names};
  for (int i = 0; i < 3; i++) {
    memcpy(sh[i], &nm[i], 4);
    memcpy(sh[i] + 4, &type[i], 4);
    memcpy(sh[i] + 0x18, &off[i], 8);
    memcpy(sh[i] + 0x20, &size[i], 8);
  }
  put(out, sh, sizeof sh);
}

static void test_elf(void) {
  static Buf f, two, e;
  FbImage img;
  sample(&f, false);
  two.n = 0;   /* two fatbins, zero padding between */
  put(&two, f.p, f.n);
  put64(&two, 0);
  put(&two, f.p, f.n);
  elf(&e, &two, ".nv_fatbin");
  CHECK(fatbin_read(e.p, e.n, &img) == FB_OK && img.nptx == 2 && !img.ptx[1].relocatable);
  fatbin_free(&img);
  CHECK(fatbin_read(e.p, 0, &img) == FB_OK && img.nptx == 2);   /* extent from the headers */
  fatbin_free(&img);
  elf(&e, &f, "__nv_relfatbin");
  CHECK(fatbin_read(e.p, e.n, &img) == FB_OK && img.nptx == 1 && img.ptx[0].relocatable);
  fatbin_free(&img);
}

/* Every prefix, and every byte set to 0, 0xff and flipped, of img: never
 * a crash or an over-read (the sanitizer build checks), and an error
 * always has a message. */
static void test_damage(const Buf *img, const char *what) {
  int bad = 0, ok = 0;
  FbImage r;
  for (size_t n = 1; n < img->n; n++) {   /* size 0 would mean "as long as the headers say" */
    FbStatus st = read_copy(img->p, n, &r);
    if (st == FB_OK) fatbin_free(&r), ok++;
    else bad += r.err[0] == 0;
  }
  static uint8_t c[sizeof ((Buf *)0)->p];
  for (size_t i = 0; i < img->n; i++)
    for (int k = 0; k < 3; k++) {
      memcpy(c, img->p, img->n);
      c[i] = k == 0 ? 0 : k == 1 ? 0xff : (uint8_t)(c[i] ^ 0x55);
      FbStatus st = read_copy(c, img->n, &r);
      if (st == FB_OK) fatbin_free(&r);
      else bad += r.err[0] == 0;
    }
  if (bad) printf("%s: %d errors without a message\n", what, bad);
  CHECK(bad == 0);
  CHECK(ok == 0);   /* no prefix is a whole image */
}

/* Sizes no payload can have are refused before anything is allocated. */
static void test_bounds(void) {
  static Buf body, f;
  FbImage img;
  body.n = f.n = 0;
  entry(&body, 1, 90, 0x11, TEXT(PTX90), LZ4);
  uint64_t huge = (uint64_t)1 << 40;
  memcpy(body.p + 56, &huge, 8);
  fatbin(&f, &body);
  CHECK(fatbin_read(f.p, f.n, &img) == FB_INVALID && strstr(img.err, "uncompressed size"));
  uint64_t big = 100000;   /* within 1 GiB, beyond what an LZ4 block of this size can give */
  memcpy(f.p + 16 + 56, &big, 8);
  CHECK(fatbin_read(f.p, f.n, &img) == FB_INVALID && strstr(img.err, "not possible"));
  body.n = f.n = 0;
  entry(&body, 1, 90, 0x11, TEXT(PTX90), ZSTD);
  memcpy(body.p + 56, &big, 8);   /* a zstd frame that holds less than announced */
  fatbin(&f, &body);
  CHECK(fatbin_read(f.p, f.n, &img) == FB_INVALID && strstr(img.err, "zstd"));
  uint32_t csize = 1 << 20;   /* compressed size beyond the payload */
  memcpy(f.p + 16 + 16, &csize, 4);
  CHECK(fatbin_read(f.p, f.n, &img) == FB_INVALID && strstr(img.err, "compressed size"));
}

static void test_api(void) {
  static Buf f;
  ptxvm_context *ctx;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  sample(&f, false);
  ptxvm_image_ptx *list = NULL;
  int n = 0;
  CHECK(ptxvm_image_get_ptx(ctx, f.p, f.n, &list, &n) == PTXVM_SUCCESS && n == 1 && list[0].sm == 90);
  CHECK(n == 1 && list[0].len == strlen(PTX90) && !memcmp(list[0].text, PTX90, list[0].len));
  ptxvm_image_free(list, n);
  ptxvm_module *mod = NULL;
  ptxvm_function *fn;
  CHECK(ptxvm_module_load_image(ctx, f.p, 0, "sample", &mod) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_get_function(mod, "k90", &fn) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_load_image(ctx, PTX80, 0, NULL, &mod) == PTXVM_SUCCESS);   /* PTX text */
  CHECK(ptxvm_module_get_function(mod, "k80", &fn) == PTXVM_SUCCESS);
  CHECK(ptxvm_image_get_ptx(ctx, "junk junk junk junk", 19, &list, &n) == PTXVM_ERROR_INVALID_IMAGE);
  CHECK(strstr(ptxvm_last_error(ctx), "not a fatbin") != NULL);
  f.p[20]--;   /* header size of the first entry: 63 */
  CHECK(ptxvm_module_load_image(ctx, f.p, f.n, NULL, &mod) == PTXVM_ERROR_INVALID_IMAGE);
  static Buf body, two;
  body.n = f.n = two.n = 0;
  entry(&body, 2, 90, 0x11, "\x7f" "ELFjunk", 8, STORED);
  fatbin(&f, &body);
  CHECK(ptxvm_module_load_image(ctx, f.p, f.n, NULL, &mod) == PTXVM_ERROR_NO_PTX);
  sample(&f, false);
  put(&two, f.p, f.n);
  put(&two, f.p, f.n);
  CHECK(ptxvm_module_load_image(ctx, two.p, two.n, NULL, &mod) == PTXVM_ERROR_NOT_SUPPORTED);
  CHECK(ptxvm_image_get_ptx(ctx, two.p, two.n, &list, &n) == PTXVM_SUCCESS && n == 2);
  ptxvm_image_free(list, n);
  ptxvm_context_destroy(ctx);
}

int main(void) {
  static Buf f, e;
  test_choice();
  test_no_ptx();
  test_elf();
  test_bounds();
  sample(&f, true);
  test_damage(&f, "fatbin");
  elf(&e, &f, ".nv_fatbin");
  test_damage(&e, "ELF");
  test_api();
  return unit_report();
}
