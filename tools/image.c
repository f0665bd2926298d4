/* image.c: the command line's input files. FILE is PTX text, or an image
 * that holds PTX: a CUDA executable, shared library, object or fatbin
 * (ptxvm_image_get_ptx). An image may hold several PTX modules (one per
 * translation unit; with -rdc=true one per object): each is loaded, named
 * FILE#N (from 1) when there are several, and `run` takes the one that
 * defines the kernel. `ptxvm ptx FILE` writes the PTX out. */
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

/* Whether mod has a function named `name` with a body. */
static bool defines(ptxvm_module *mod, const char *name) {
  ptxvm_function *fn;
  ptxvm_function_info fi;
  return ptxvm_module_get_function(mod, name, &fn) == PTXVM_SUCCESS &&
         ptxvm_function_get_info(fn, &fi) == PTXVM_SUCCESS && fi.has_body;
}

/* -rdc=true objects are not linked: says so for each function one object
 * declares and another defines (a call of it fails at the launch). */
static void note_unlinked(const Loaded *l) {
  for (int i = 0; i < l->n; i++)
    for (int k = 0; k < ptxvm_module_function_count(l->mods[i]); k++) {
      ptxvm_function_info fi;
      ptxvm_function_get_info(ptxvm_module_function_at(l->mods[i], k), &fi);
      for (int j = 0; !fi.has_body && j < l->n; j++)
        if (j != i && defines(l->mods[j], fi.name)) {
          fprintf(stderr, "ptxvm: note: %s declares %s, which %s defines: ptxvm does not link the PTX of "
                  "-rdc=true objects yet, so calls across objects fail; build without -rdc=true\n",
                  l->names[i], fi.name, l->names[j]);
          break;
        }
    }
}

int image_load(ptxvm_context *ctx, const char *path, Loaded *out) {
  *out = (Loaded){NULL, NULL, 0};
  int n = 0, is_image = 0;
  ptxvm_image_ptx *list = file_ptx(ctx, path, &n, &is_image);
  if (!list) return EXIT_INPUT;
  out->mods = calloc((size_t)n, sizeof *out->mods);
  out->names = calloc((size_t)n, sizeof *out->names);
  if (!out->mods || !out->names) {
    ptxvm_image_free(list, n);
    fputs("ptxvm: out of memory\n", stderr);
    return EXIT_INPUT;
  }
  out->n = n;
  int rc = EXIT_OK;
  for (int i = 0; i < n && rc == EXIT_OK; i++) {
    char name[4096];
    const char *base = strcmp(path, "-") ? path : "<stdin>";
    if (n > 1) snprintf(name, sizeof name, "%s#%d", base, i + 1);
    else snprintf(name, sizeof name, "%s", base);
    if (!(out->names[i] = strdup(name))) {
      fputs("ptxvm: out of memory\n", stderr);
      rc = EXIT_INPUT;
      break;
    }
    ptxvm_status st = ptxvm_module_load_data(ctx, list[i].text, list[i].len, name, &out->mods[i]);
    if (st != PTXVM_SUCCESS) {
      say(ctx, st);
      rc = EXIT_INPUT;
    }
  }
  bool reloc = false;
  for (int i = 0; i < n; i++) reloc |= list[i].relocatable != 0;
  if (rc == EXIT_OK && reloc) note_unlinked(out);
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
             list[i].relocatable ? ", an -rdc=true object (not linked)" : "");
    fwrite(list[i].text, 1, list[i].len, stdout);
  }
  int rc = list ? EXIT_OK : EXIT_INPUT;
  ptxvm_image_free(list, n);
  ptxvm_context_destroy(ctx);
  return rc;
}
