/* image.c: device code in executables and fatbins (ptxvm.h), over the
 * reader of src/fatbin/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fatbin/fatbin.h"
#include "api.h"

static ptxvm_status image_status(FbStatus st) {
  return st == FB_NO_PTX ? PTXVM_ERROR_NO_PTX : st == FB_NOMEM ? PTXVM_ERROR_OUT_OF_MEMORY
                                                               : PTXVM_ERROR_INVALID_IMAGE;
}

/* fatbin_read on an entered context: the list, or the error recorded. */
static ptxvm_status get_ptx(Ctx *ctx, const void *image, size_t size, ptxvm_image_ptx **out, int *count) {
  if (!image || !out || !count) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_image_get_ptx: NULL argument");
  *out = NULL;
  *count = 0;
  FbImage img;
  FbStatus st = fatbin_read(image, size, &img);
  if (st != FB_OK) return api_fail(ctx, image_status(st), "%s", img.err);
  ptxvm_image_ptx *list = calloc((size_t)img.nptx, sizeof *list);
  if (!list) {
    fatbin_free(&img);
    return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory reading an image");
  }
  for (int i = 0; i < img.nptx; i++) {
    const FbPtx *p = &img.ptx[i];
    list[i] = (ptxvm_image_ptx){p->text, p->len, p->sm, p->arch_specific, p->relocatable};
  }
  free(img.ptx);   /* the texts now belong to the list */
  *out = list;
  *count = img.nptx;
  return api_ok(ctx);
}

ptxvm_status ptxvm_image_get_ptx(ptxvm_context *h, const void *image, size_t size, ptxvm_image_ptx **out,
                                 int *count) {
  ON_CONTEXT(h, get_ptx(ctx, image, size, out, count));
}

void ptxvm_image_free(ptxvm_image_ptx *ptx, int count) {
  for (int i = 0; ptx && i < count; i++) free((char *)(uintptr_t)ptx[i].text);
  free(ptx);
}

/* The modules an image's PTX list makes: each whole-program module alone,
 * and the relocatable ones (-rdc=true objects, a link image) together when
 * there are several, linked. */
static int module_count(const ptxvm_image_ptx *list, int n) {
  int rel = 0;
  for (int i = 0; i < n; i++) rel += list[i].relocatable != 0;
  return n - rel + (rel > 1 ? 1 : rel);
}

ptxvm_status ptxvm_module_load_image(ptxvm_context *h, const void *image, size_t size, const char *name,
                                     ptxvm_module **out) {
  if (image && !fatbin_is_image(image, size))
    return ptxvm_module_load_data(h, image, size ? size : strlen(image), name, out);
  ptxvm_image_ptx *list = NULL;
  int n = 0;
  Ctx *ctx;
  ptxvm_status st = api_enter(h, H_CONTEXT, &ctx, NULL);
  if (st != PTXVM_SUCCESS) return st;
  st = get_ptx(ctx, image, size, &list, &n);
  if (st == PTXVM_SUCCESS && module_count(list, n) != 1)
    st = api_fail(ctx, PTXVM_ERROR_NOT_SUPPORTED,
                  "the image holds %d PTX modules (one per translation unit; -rdc=true objects are linked "
                  "into one); ptxvm_image_get_ptx gives each", module_count(list, n));
  api_leave(ctx, st);
  if (st != PTXVM_SUCCESS) {
    ptxvm_image_free(list, n);
    return st;
  }
  name = name ? name : "<image>";
  if (n == 1) {
    st = ptxvm_module_load_data(h, list[0].text, list[0].len, name, out);
    ptxvm_image_free(list, n);
    return st;
  }
  /* several relocatable modules: linked, input i named NAME#i as ptxvm
     ptx lists them */
  const char **texts = calloc((size_t)n, sizeof *texts), **names = calloc((size_t)n, sizeof *names);
  size_t *lens = calloc((size_t)n, sizeof *lens);
  bool ok = texts && names && lens;
  for (int i = 0; ok && i < n; i++) {
    size_t len = strlen(name) + 16;
    char *nm = malloc(len);
    if (nm) snprintf(nm, len, "%s#%d", name, i + 1);
    texts[i] = list[i].text;
    lens[i] = list[i].len;
    names[i] = nm;
    ok = nm != NULL;
  }
  st = ok ? ptxvm_module_load_linked(h, n, texts, lens, names, name, out) : PTXVM_ERROR_OUT_OF_MEMORY;
  for (int i = 0; names && i < n; i++) free((char *)(uintptr_t)names[i]);
  free(texts);
  free(names);
  free(lens);
  ptxvm_image_free(list, n);
  if (!ok && api_enter(h, H_CONTEXT, &ctx, NULL) == PTXVM_SUCCESS)
    api_leave(ctx, api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory loading an image"));
  return st;
}

/* ptxvm_image_link on a resolved context. */
static ptxvm_status image_link(Ctx *ctx, int count, const char *const *texts, const size_t *lens, void **image,
                               size_t *size) {
  if (!texts || !image || !size || count < 1)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_image_link: NULL argument or no input");
  for (int i = 0; i < count; i++)
    if (!texts[i]) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_image_link: input %d is NULL", i + 1);
  *image = fatbin_write_relocatable(texts, lens, count, size);
  if (!*image) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory writing an image");
  return api_ok(ctx);
}

ptxvm_status ptxvm_image_link(ptxvm_context *h, int count, const char *const *texts, const size_t *lens,
                              void **image, size_t *size) {
  ON_CONTEXT(h, image_link(ctx, count, texts, lens, image, size));
}
