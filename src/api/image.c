/* image.c: device code in executables and fatbins (ptxvm.h), over the
 * reader of src/fatbin/. */
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

/* The one module of an image, or the error recorded. */
static ptxvm_status one_module(Ctx *ctx, const void *image, size_t size, ptxvm_image_ptx **list, int *n) {
  ptxvm_status st = get_ptx(ctx, image, size, list, n);
  if (st != PTXVM_SUCCESS || *n == 1) return st;
  ptxvm_image_free(*list, *n);
  *list = NULL;
  return api_fail(ctx, PTXVM_ERROR_NOT_SUPPORTED,
                  "the image holds %d PTX modules (one per translation unit or -rdc=true object); "
                  "ptxvm_image_get_ptx gives each", *n);
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
  st = api_leave(ctx, one_module(ctx, image, size, &list, &n));
  if (st != PTXVM_SUCCESS) return st;
  st = ptxvm_module_load_data(h, list[0].text, list[0].len, name ? name : "<image>", out);
  ptxvm_image_free(list, n);
  return st;
}
