/* image.c: the command line's input files. FILE is PTX text, or an image
 * that holds PTX: a CUDA executable, shared library, object or fatbin
 * (ptxvm_image_get_ptx). An image may hold several PTX modules (one per
 * translation unit; with -rdc=true one per object): each is loaded, named
 * FILE#N (from 1) when there are several, the -rdc=true objects' linked
 * into one module (ptxvm_module_load_linked; its inputs keep their FILE#N
 * names), and `run` takes the one that defines the kernel. `ptxvm ptx
 * FILE` writes the PTX out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "runargs.h"
#include "../src/fatbin/fatbin.h"
#include "../src/util/file.h"

static void say(ptxvm_context *ctx, ptxvm_status st) {
  const char *msg = ptxvm_last_error(ctx);
  fprintf(stderr, "%s%s", *msg ? msg : ptxvm_status_str(st), *msg && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
}

/* The PTX of the file at path (one module for PTX text), to be freed with
 * ptxvm_image_free; NULL after a message. */
static ptxvm_image_ptx *file_ptx(ptxvm_context *ctx, const char *path, int *n, int *is_image) {
  size_t len;
  char *bytes = util_read_file(path, &len);
  if (!bytes) {
    fprintf(stderr, "%s: %s\n", path, strerror(errno));
    return NULL;
  }
  ptxvm_image_ptx *list = NULL;
  *is_image = fatbin_is_image(bytes, len);
  if (!*is_image) {   /* PTX text: one module, the file's bytes */
    list = calloc(1, sizeof *list);
    if (!list) {
      free(bytes);
      fputs("ptxvm: out of memory\n", stderr);
      return NULL;
    }
    *list = (ptxvm_image_ptx){.text = bytes, .len = len};
    *n = 1;
    return list;
  }
  ptxvm_status st = ptxvm_image_get_ptx(ctx, bytes, len, &list, n);
  free(bytes);
  if (st != PTXVM_SUCCESS) {
    const char *msg = ptxvm_last_error(ctx);
    fprintf(stderr, "ptxvm: %s: %s\n", path, *msg ? msg : ptxvm_status_str(st));
    return NULL;
  }
  return list;
}

/* Names module i of an image of n: FILE, or FILE#I (I from 1) when there
 * are several; malloc'd (NULL: out of memory). */
static char *module_name(const char *path, int i, int n) {
  const char *base = strcmp(path, "-") ? path : "<stdin>";
  size_t len = strlen(base) + 16;
  char *name = malloc(len);
  if (name && n > 1) snprintf(name, len, "%s#%d", base, i + 1);
  else if (name) snprintf(name, len, "%s", base);
  return name;
}

/* Loads the relocatable modules of list as one linked module (the -rdc=true
 * objects of an executable): input i named FILE#I. */
static int load_relocatable(ptxvm_context *ctx, const char *path, const ptxvm_image_ptx *list, int n, Loaded *out) {
  const char **texts = calloc((size_t)n, sizeof *texts), **names = calloc((size_t)n, sizeof *names);
  size_t *lens = calloc((size_t)n, sizeof *lens);
  int k = 0, rc = texts && names && lens ? EXIT_OK : EXIT_INPUT;
  for (int i = 0; i < n && rc == EXIT_OK; i++) {
    if (!list[i].relocatable) continue;
    texts[k] = list[i].text;
    lens[k] = list[i].len;
    if (!(names[k++] = module_name(path, i, n))) rc = EXIT_INPUT;
  }
  /* the module: FILE when it is the image's only one, else FILE#I+FILE#J... */
  size_t len = 1;
  for (int i = 0; i < k && rc == EXIT_OK; i++) len += strlen(names[i]) + 1;
  char *mname = rc == EXIT_OK ? malloc(len + strlen(path) + 16) : NULL;
  if (mname && k == n) snprintf(mname, len + strlen(path) + 16, "%s", strcmp(path, "-") ? path : "<stdin>");
  for (int i = 0; mname && k < n && i < k; i++) {
    if (i) strcat(mname, "+");
    else mname[0] = 0;
    strcat(mname, names[i]);
  }
  if (!mname) rc = EXIT_INPUT;
  if (rc != EXIT_OK) fputs("ptxvm: out of memory\n", stderr);
  ptxvm_module *mod = NULL;
  ptxvm_status st = rc == EXIT_OK ? ptxvm_module_load_linked(ctx, k, texts, lens, names, mname, &mod) : PTXVM_SUCCESS;
  if (rc == EXIT_OK && st != PTXVM_SUCCESS) {
    say(ctx, st);
    rc = EXIT_INPUT;
    free(mname);
  } else if (rc == EXIT_OK) {
    out->mods[out->n] = mod;
    out->names[out->n++] = mname;
  }
  for (int i = 0; names && i < k; i++) free((char *)(uintptr_t)names[i]);
  free(texts);
  free(names);
  free(lens);
  return rc;
}

int image_load(ptxvm_context *ctx, const char *path, Loaded *out) {
  *out = (Loaded){NULL, NULL, 0};
  int n = 0, is_image = 0;
  ptxvm_image_ptx *list = file_ptx(ctx, path, &n, &is_image);
  if (!list) return EXIT_INPUT;
  int rel = 0;
  for (int i = 0; i < n; i++) rel += list[i].relocatable != 0;
  bool link = rel > 1;   /* -rdc=true objects: one module of them all */
  size_t cap = n > 0 ? (size_t)n : 1;
  out->mods = calloc(cap, sizeof *out->mods);
  out->names = calloc(cap, sizeof *out->names);
  if (!out->mods || !out->names) {
    ptxvm_image_free(list, n);
    fputs("ptxvm: out of memory\n", stderr);
    return EXIT_INPUT;
  }
  int rc = EXIT_OK;
  for (int i = 0; i < n && rc == EXIT_OK; i++) {
    if (link && list[i].relocatable) continue;
    char *name = module_name(path, i, n);
    if (!name) {
      fputs("ptxvm: out of memory\n", stderr);
      rc = EXIT_INPUT;
      break;
    }
    out->names[out->n] = name;
    ptxvm_status st = ptxvm_module_load_data(ctx, list[i].text, list[i].len, name, &out->mods[out->n++]);
    if (st != PTXVM_SUCCESS) {
      say(ctx, st);
      rc = EXIT_INPUT;
    }
  }
  if (rc == EXIT_OK && link) rc = load_relocatable(ctx, path, list, n, out);
  ptxvm_image_free(list, n);
  return rc;
}

void image_unload(Loaded *l) {
  for (int i = 0; i < l->n; i++) free(l->names[i]);
  free(l->names);
  free(l->mods);
  *l = (Loaded){NULL, NULL, 0};
}

/* Whether mod has a kernel `name` names (runargs.c "KERNEL"; any kernel:
 * name NULL). */
static bool has_kernel(ptxvm_module *mod, const char *name) {
  return run_count_kernels(mod, name) > 0;
}

ptxvm_module *image_pick(const Loaded *l, const char *kernel) {
  if (l->n == 1) return l->mods[0];
  ptxvm_module *found = NULL;
  int with = 0;
  for (int i = 0; i < l->n; i++)
    if (has_kernel(l->mods[i], kernel)) {
      if (!found) found = l->mods[i];
      with++;
    }
  if (kernel) return found ? found : l->mods[0];   /* run_pick_kernel says it is missing */
  if (with == 1) return found;
  run_bad(with ? "%d of the image's modules have kernels; name one" : "the image's modules have no kernel (.entry)",
          with);
  return NULL;
}

/* ptxvm ptx FILE: the PTX, as it is in the image; with several modules,
 * each after a comment line that names it. */
int image_cmd_ptx(const char *path) {
  ptxvm_context *ctx = NULL;
  if (ptxvm_context_create(&ctx) != PTXVM_SUCCESS) {
    fputs("ptxvm: out of memory\n", stderr);
    return EXIT_INPUT;
  }
  int n = 0, is_image = 0;
  ptxvm_image_ptx *list = file_ptx(ctx, path, &n, &is_image);
  for (int i = 0; list && i < n; i++) {
    if (n > 1)
      printf("// ptxvm ptx: %s#%d: sm_%u%s%s\n", path, i + 1, list[i].sm, list[i].arch_specific ? "a" : "",
             list[i].relocatable ? ", an -rdc=true object" : "");
    fwrite(list[i].text, 1, list[i].len, stdout);
  }
  int rc = list ? EXIT_OK : EXIT_INPUT;
  ptxvm_image_free(list, n);
  ptxvm_context_destroy(ctx);
  return rc;
}
