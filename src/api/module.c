/* module.c: loading modules and describing their functions (ptxvm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../exec/interp.h"
#include "api.h"
#include "../fatbin/fatbin.h"
#include "../util/file.h"

/* A module record for m with a handle for it and each function; NULL when
 * out of memory (m is then freed). */
static Mod *module_new(Ctx *ctx, Module *m) {
  Mod *mod = calloc(1, sizeof *mod);
  Fn *fns = calloc((size_t)m->nfuncs + 1, sizeof *fns);
  if (!mod || !fns) {
    free(mod);
    free(fns);
    module_free(m);
    return NULL;
  }
  *mod = (Mod){.ctx = ctx, .m = m, .fns = fns};
  bool ok = (mod->h = handle_new(H_MODULE, mod, ctx->h)) != 0;
  for (int i = 0; i < m->nfuncs; i++) {
    fns[i] = (Fn){.f = m->funcs[i], .mod = mod};
    ok = ok && (fns[i].h = handle_new(H_FUNCTION, &fns[i], ctx->h)) != 0;
  }
  if (!ok) {
    api_module_free(mod);
    return NULL;
  }
  mod->next = ctx->modules;
  ctx->modules = mod;
  return mod;
}

/* ptxvm_module_load_data on a resolved context. */
static ptxvm_status load_data(Ctx *ctx, const char *ptx, size_t len, const char *name,
                              ptxvm_module **out) {
  if (!ptx || !out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_module_load_data: NULL argument");
  *out = NULL;
  char *err = NULL;
  Module *m = front_parse(ptx, len, name ? name : "<ptx>", &err);
  if (!m) {
    if (!err) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory loading PTX");
    return api_fail_owned(ctx, PTXVM_ERROR_INVALID_PTX, err);
  }
  Mod *mod = module_new(ctx, m);
  if (!mod) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory loading PTX");
  *out = (ptxvm_module *)(uintptr_t)mod->h;
  return api_ok(ctx);
}

/* The name of input i of a link: names[i], else "<ptx#I>" (buf). */
static const char *input_name(const char *const *names, int i, char *buf, size_t n) {
  if (names && names[i]) return names[i];
  snprintf(buf, n, "<ptx#%d>", i + 1);
  return buf;
}

/* "A+B+C" of the inputs' names, malloc'd (NULL: out of memory). */
static char *joined_names(int count, const char *const *names) {
  size_t n = 1;
  char buf[32];
  for (int i = 0; i < count; i++) n += strlen(input_name(names, i, buf, sizeof buf)) + 1;
  char *s = malloc(n);
  if (!s) return NULL;
  s[0] = 0;
  for (int i = 0; i < count; i++) {
    if (i) strcat(s, "+");
    strcat(s, input_name(names, i, buf, sizeof buf));
  }
  return s;
}

/* ptxvm_module_load_linked on a resolved context. */
static ptxvm_status load_linked(Ctx *ctx, int count, const char *const *texts, const size_t *lens,
                                const char *const *names, const char *name, ptxvm_module **out) {
  if (!texts || !out || count < 1)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_module_load_linked: NULL argument or no input");
  *out = NULL;
  for (int i = 0; i < count; i++)
    if (!texts[i]) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_module_load_linked: input %d is NULL", i + 1);
  Module **parts = calloc((size_t)count, sizeof *parts);
  char *path = name ? strdup(name) : joined_names(count, names);
  if (!parts || !path) {
    free(parts);
    free(path);
    return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory linking PTX");
  }
  char *err = NULL;
  for (int i = 0; i < count; i++) {
    char buf[32];
    size_t len = lens && lens[i] ? lens[i] : strlen(texts[i]);
    parts[i] = front_parse(texts[i], len, input_name(names, i, buf, sizeof buf), &err);
    if (!parts[i]) {
      for (int k = 0; k < i; k++) module_free(parts[k]);
      free(parts);
      free(path);
      if (!err) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory loading PTX");
      return api_fail_owned(ctx, PTXVM_ERROR_INVALID_PTX, err);
    }
  }
  Module *m = front_link(parts, count, path, &err);   /* owns the parts now */
  free(parts);
  free(path);
  if (!m) {
    if (!err) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory linking PTX");
    return api_fail_owned(ctx, PTXVM_ERROR_INVALID_PTX, err);
  }
  Mod *mod = module_new(ctx, m);
  if (!mod) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory linking PTX");
  *out = (ptxvm_module *)(uintptr_t)mod->h;
  return api_ok(ctx);
}

ptxvm_status ptxvm_module_load_linked(ptxvm_context *h, int count, const char *const *texts, const size_t *lens,
                                      const char *const *names, const char *name, ptxvm_module **out) {
  ON_CONTEXT(h, load_linked(ctx, count, texts, lens, names, name, out));
}

ptxvm_status ptxvm_module_load_data(ptxvm_context *h, const char *ptx, size_t len,
                                    const char *name, ptxvm_module **out) {
  Ctx *ctx;
  ptxvm_status st = api_enter(h, H_CONTEXT, &ctx, NULL);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, load_data(ctx, ptx, len, name, out));
}

ptxvm_status ptxvm_module_load_file(ptxvm_context *h, const char *path, ptxvm_module **out) {
  Ctx *ctx;
  ptxvm_status st = api_enter(h, H_CONTEXT, &ctx, NULL);
  if (st != PTXVM_SUCCESS) return st;
  if (!path || !out)
    return api_leave(ctx, api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_module_load_file: NULL argument"));
  size_t len = 0;
  char *text = util_read_file(path, &len);
  if (!text) return api_leave(ctx, api_fail(ctx, PTXVM_ERROR_FILE, "%s: %s", path, strerror(errno)));
  const char *name = strcmp(path, "-") ? path : "<stdin>";
  if (fatbin_is_image(text, len)) {   /* an executable, object, cubin or fatbin */
    api_leave(ctx, PTXVM_SUCCESS);
    st = ptxvm_module_load_image(h, text, len, name, out);
    free(text);
    return st;
  }
  st = load_data(ctx, text, len, name, out);
  free(text);
  return api_leave(ctx, st);
}

void api_module_free(Mod *mod) {
  Mod **pp = &mod->ctx->modules;
  while (*pp && *pp != mod) pp = &(*pp)->next;
  if (*pp) *pp = mod->next;
  for (int i = 0; i < mod->m->nfuncs; i++) handle_free(mod->fns[i].h);
  handle_free(mod->h);
  if (mod->prog) program_free(mod->prog);
  free(mod->lower_error);
  module_free(mod->m);
  free(mod->fns);
  free(mod);
}

ptxvm_status ptxvm_module_unload(ptxvm_module *h) {
  if (!h) return PTXVM_SUCCESS;
  Ctx *ctx;
  Mod *mod;
  ptxvm_status st = api_enter(h, H_MODULE, &ctx, (void **)&mod);
  if (st != PTXVM_SUCCESS) return st;
  api_module_free(mod);
  return api_leave(ctx, api_ok(ctx));
}

int ptxvm_module_function_count(const ptxvm_module *h) {
  const Mod *mod = handle_obj(h, H_MODULE);
  return mod ? mod->m->nfuncs : 0;
}

ptxvm_function *ptxvm_module_function_at(const ptxvm_module *h, int index) {
  const Mod *mod = handle_obj(h, H_MODULE);
  if (!mod || index < 0 || index >= mod->m->nfuncs) return NULL;
  return (ptxvm_function *)(uintptr_t)mod->fns[index].h;
}

ptxvm_status ptxvm_module_get_function(ptxvm_module *h, const char *name, ptxvm_function **out) {
  Ctx *ctx;
  Mod *mod;
  ptxvm_status st = api_enter(h, H_MODULE, &ctx, (void **)&mod);
  if (st != PTXVM_SUCCESS) return st;
  if (!name || !out)
    return api_leave(ctx, api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_module_get_function: NULL argument"));
  for (int i = 0; i < mod->m->nfuncs; i++)
    if (!strcmp(mod->m->funcs[i]->name, name)) {
      *out = (ptxvm_function *)(uintptr_t)mod->fns[i].h;
      return api_leave(ctx, api_ok(ctx));
    }
  return api_leave(ctx, api_fail(ctx, PTXVM_ERROR_NOT_FOUND, "no function '%s' in %s", name, mod->m->path));
}

void api_function_info(const Fn *fn, ptxvm_function_info *out) {
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
  /* the front end's layout (validate_params): in order, each at its
     alignment, as the CUDA driver lays out kernel parameters */
  if (f->nparams) out->param_bytes = f->params[f->nparams - 1]->offset + f->params[f->nparams - 1]->size;
}

ptxvm_status ptxvm_function_get_info(const ptxvm_function *h, ptxvm_function_info *out) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  if (!out) return api_leave(ctx, api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_function_get_info: NULL argument"));
  api_function_info(fn, out);
  return api_leave(ctx, api_ok(ctx));
}

bool api_function_param(const Fn *fn, int is_return, int index, ptxvm_param_info *out) {
  const Function *f = fn->f;
  Symbol *const *ps = is_return ? f->rets : f->params;
  int n = is_return ? f->nrets : f->nparams;
  if (index < 0 || index >= n) return false;
  const Symbol *s = ps[index];
  memset(out, 0, sizeof *out);
  out->name = s->name;
  out->type = type_name(s->type);
  out->space = space_name(s->space);
  out->size = s->size;
  out->align = symbol_align(s);
  out->offset = s->offset;
  out->array_len = s->ndims ? s->size / ((uint64_t)(type_size(s->type) ? type_size(s->type) : 1) * s->vec) : 0;
  out->ptr_space = s->ptr_space != SP_NONE ? space_name(s->ptr_space) : NULL;
  out->ptr_align = s->ptr_align;
  return true;
}

ptxvm_status ptxvm_function_get_param(const ptxvm_function *h, int is_return, int index,
                                      ptxvm_param_info *out) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  if (!out) return api_leave(ctx, api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_function_get_param: NULL argument"));
  if (!api_function_param(fn, is_return, index, out))
    return api_leave(ctx, api_fail(ctx, PTXVM_ERROR_NOT_FOUND, "'%s' has no %s %d", fn->f->name,
                                   is_return ? "return value" : "parameter", index));
  return api_leave(ctx, api_ok(ctx));
}

static ptxvm_status module_get_global(Mod *mod, const char *name, ptxvm_devptr *addr, size_t *size) {
  Ctx *ctx = mod->ctx;
  if (!name) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_module_get_global: NULL name");
  const Symbol *var = NULL;
  /* a linked module's inputs may each have an internal variable of the
     name: a .visible (.weak, .common) one first, as a linker exports it */
  for (int pass = 0; pass < 2 && !var; pass++)
    for (int i = 0; i < mod->m->nglobals && !var; i++) {
      const Symbol *s = mod->m->globals[i];
      bool linkable = s->is_visible || s->is_weak || s->is_common;
      if ((s->space == SP_GLOBAL || s->space == SP_CONST) && (pass || linkable) && !strcmp(s->name, name)) var = s;
    }
  ptxvm_status st = var ? api_program(mod) : PTXVM_SUCCESS;
  if (st != PTXVM_SUCCESS) return st;
  uint64_t a = var ? program_var_addr(mod->prog, var) : 0;
  if (!a)
    return api_fail(ctx, PTXVM_ERROR_NOT_FOUND, "no .global or .const variable '%s' in %s", name, mod->m->path);
  if (addr) *addr = a;
  if (size) *size = (size_t)var->size;
  return api_ok(ctx);
}

ptxvm_status ptxvm_module_get_global(ptxvm_module *h, const char *name, ptxvm_devptr *addr, size_t *size) {
  Ctx *ctx;
  Mod *mod;
  ptxvm_status st = api_enter(h, H_MODULE, &ctx, (void **)&mod);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, module_get_global(mod, name, addr, size));
}

static ptxvm_status function_static_shared(Fn *fn, size_t *bytes) {
  Ctx *ctx = fn->mod->ctx;
  if (!bytes) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_function_static_shared: NULL argument");
  if (!fn->f->is_entry || !fn->f->has_body)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "'%s' is not a kernel (.entry with a body)", fn->f->name);
  ptxvm_status st = api_program(fn->mod);
  if (st != PTXVM_SUCCESS) return st;
  *bytes = (size_t)program_static_shared(fn->mod->prog, fn->f);
  return api_ok(ctx);
}

ptxvm_status ptxvm_function_static_shared(ptxvm_function *h, size_t *bytes) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, function_static_shared(fn, bytes));
}
