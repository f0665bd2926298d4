/* module.c: loading modules and describing their functions (ptxvm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../exec/interp.h"
#include "api.h"

ptxvm_status ptxvm_module_load_data(ptxvm_context *ctx, const char *ptx, size_t len,
                                    const char *name, ptxvm_module **out) {
  if (!ctx || !ptx || !out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE,
                                            "ptxvm_module_load_data: NULL argument");
  *out = NULL;
  char *err = NULL;
  Module *m = front_parse(ptx, len, name ? name : "<ptx>", &err);
  if (!m) {
    if (!err) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory loading PTX");
    return api_fail_owned(ctx, PTXVM_ERROR_INVALID_PTX, err);
  }
  ptxvm_module *mod = calloc(1, sizeof *mod);
  ptxvm_function *fns = calloc((size_t)m->nfuncs + 1, sizeof *fns);
  if (!mod || !fns) {
    free(mod);
    free(fns);
    module_free(m);
    return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory loading PTX");
  }
  mod->ctx = ctx;
  mod->m = m;
  mod->fns = fns;
  for (int i = 0; i < m->nfuncs; i++) {
    fns[i].f = m->funcs[i];
    fns[i].mod = mod;
  }
  mod->next = ctx->modules;
  ctx->modules = mod;
  *out = mod;
  return api_ok(ctx);
}

/* Reads a whole file (or standard input for "-") into a malloc'd buffer. */
/* PTX text longer than this is refused rather than read: a device such as
 * /dev/zero would otherwise fill the memory. */
#define PTX_MAX_BYTES ((size_t)1 << 31)

static char *read_all(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap || n > PTX_MAX_BYTES) break;
    char *nb = realloc(buf, cap *= 2);
    if (!nb) { free(buf); buf = NULL; }
    else buf = nb;
  }
  int err = ferror(f) ? (errno ? errno : EIO) : n > PTX_MAX_BYTES ? EFBIG : !buf ? ENOMEM : 0;
  if (f != stdin) fclose(f);
  if (err) { free(buf); errno = err; return NULL; }
  *len = n;
  return buf;
}

ptxvm_status ptxvm_module_load_file(ptxvm_context *ctx, const char *path, ptxvm_module **out) {
  if (!ctx || !path || !out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE,
                                             "ptxvm_module_load_file: NULL argument");
  size_t len = 0;
  char *text = read_all(path, &len);
  if (!text) return api_fail(ctx, PTXVM_ERROR_FILE, "%s: %s", path, strerror(errno));
  ptxvm_status st = ptxvm_module_load_data(ctx, text, len, strcmp(path, "-") ? path : "<stdin>", out);
  free(text);
  return st;
}

void ptxvm_module_unload(ptxvm_module *mod) {
  if (!mod) return;
  ptxvm_module **pp = &mod->ctx->modules;
  while (*pp && *pp != mod) pp = &(*pp)->next;
  if (*pp) *pp = mod->next;
  if (mod->prog) program_free(mod->prog);
  module_free(mod->m);
  free(mod->fns);
  free(mod);
}

int ptxvm_module_function_count(const ptxvm_module *mod) { return mod ? mod->m->nfuncs : 0; }

ptxvm_function *ptxvm_module_function_at(const ptxvm_module *mod, int index) {
  if (!mod || index < 0 || index >= mod->m->nfuncs) return NULL;
  return &mod->fns[index];
}

ptxvm_status ptxvm_module_get_function(ptxvm_module *mod, const char *name, ptxvm_function **out) {
  if (!mod || !name || !out) return PTXVM_ERROR_INVALID_VALUE;
  for (int i = 0; i < mod->m->nfuncs; i++)
    if (!strcmp(mod->m->funcs[i]->name, name)) {
      *out = &mod->fns[i];
      return api_ok(mod->ctx);
    }
  return api_fail(mod->ctx, PTXVM_ERROR_NOT_FOUND, "no function '%s' in %s", name, mod->m->path);
}

static unsigned param_align(const Symbol *s) {
  unsigned a = s->align ? s->align : (unsigned)type_size(s->type) * s->vec;
  return a ? a : 1;
}

/* Byte offset of parameter i when the list is laid out in order, each at
 * its alignment (as the CUDA driver lays out kernel parameters). */
static unsigned param_offset(Symbol *const *ps, int i, unsigned *end) {
  unsigned off = 0, at = 0;
  for (int k = 0; k <= i; k++) {
    unsigned a = param_align(ps[k]);
    off = (off + a - 1) / a * a;
    at = off;
    off += (unsigned)ps[k]->size;
  }
  if (end) *end = off;
  return at;
}

ptxvm_status ptxvm_function_get_info(const ptxvm_function *fn, ptxvm_function_info *out) {
  if (!fn || !out) return PTXVM_ERROR_INVALID_VALUE;
  const Function *f = fn->f;
  memset(out, 0, sizeof *out);
  out->name = f->name;
  out->is_entry = f->is_entry;
  out->has_body = f->has_body;
  out->nparams = f->nparams;
  out->nrets = f->nrets;
  memcpy(out->maxntid, f->maxntid, sizeof out->maxntid);
  memcpy(out->reqntid, f->reqntid, sizeof out->reqntid);
  memcpy(out->reqnctapercluster, f->reqnctapercluster, sizeof out->reqnctapercluster);
  out->minnctapersm = f->minnctapersm;
  out->maxnctapersm = f->maxnctapersm;
  out->maxnreg = f->maxnreg;
  out->maxclusterrank = f->maxclusterrank;
  out->explicitcluster = f->explicitcluster;
  out->noreturn = f->noreturn;
  if (f->nparams) param_offset(f->params, f->nparams - 1, &out->param_bytes);
  return api_ok(fn->mod->ctx);
}

ptxvm_status ptxvm_function_get_param(const ptxvm_function *fn, int is_return, int index,
                                      ptxvm_param_info *out) {
  if (!fn || !out) return PTXVM_ERROR_INVALID_VALUE;
  const Function *f = fn->f;
  Symbol *const *ps = is_return ? f->rets : f->params;
  int n = is_return ? f->nrets : f->nparams;
  if (index < 0 || index >= n)
    return api_fail(fn->mod->ctx, PTXVM_ERROR_NOT_FOUND, "'%s' has no %s %d", f->name,
                    is_return ? "return value" : "parameter", index);
  const Symbol *s = ps[index];
  memset(out, 0, sizeof *out);
  out->name = s->name;
  out->type = type_name(s->type);
  out->space = space_name(s->space);
  out->size = (unsigned)s->size;
  out->align = param_align(s);
  out->offset = param_offset(ps, index, NULL);
  out->array_len = s->ndims ? (unsigned)(s->size / ((unsigned)type_size(s->type) * s->vec)) : 0;
  out->ptr_space = s->ptr_space != SP_NONE ? space_name(s->ptr_space) : NULL;
  out->ptr_align = s->ptr_align;
  return api_ok(fn->mod->ctx);
}
