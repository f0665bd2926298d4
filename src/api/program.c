/* program.c: a module's lowered program, and what ptxvm cannot execute of
 * it (ptxvm.h "what ptxvm cannot execute yet").
 *
 * A module is prepared once, at its first need, against its context's
 * device, which receives its .global and .const variables
 * (program_layout: everything that can stop the module as a whole, local
 * memory too large or device memory for its variables, is found then).
 * Its code is lowered per kernel, at the kernel's first launch or
 * question (program_lower: the functions the kernel can reach), so a
 * module of hundreds of kernels costs only those used; the questions
 * about the whole module (ptxvm_module_unsupported_count) lower it all.
 * Lowering refuses single instructions without failing the module (lower.c
 * "refusals"): a kernel is refused only when it holds such an instruction
 * or can call a function that does, so the module's other kernels still
 * launch. What fails the whole module is its one entry instead. */
#include <stdlib.h>
#include <string.h>

#include "../lower/lower.h"
#include "api.h"

ptxvm_status api_program(Mod *mod) {
  if (mod->prog) return PTXVM_SUCCESS;
  Ctx *ctx = mod->ctx;
  Device *dev;
  ptxvm_status st = api_device(ctx, &dev);
  if (st != PTXVM_SUCCESS) return st;
  char *err = NULL;
  mod->prog = program_layout(mod->m, dev, &err);
  if (mod->prog) return PTXVM_SUCCESS;
  if (!err) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory lowering %s", mod->m->path);
  if (!mod->lower_error) mod->lower_error = strdup(err);
  return api_fail_owned(ctx, PTXVM_ERROR_NOT_SUPPORTED, err);
}

ptxvm_status api_program_lower(Mod *mod, const Function *kernel) {
  ptxvm_status st = api_program(mod);
  if (st != PTXVM_SUCCESS) return st;
  char *err = NULL;
  if (program_lower(mod->prog, kernel, &err)) return PTXVM_SUCCESS;
  if (!err) return api_fail(mod->ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory lowering %s", mod->m->path);
  return api_fail_owned(mod->ctx, PTXVM_ERROR_NOT_SUPPORTED, err);
}

static ptxvm_status module_prepare(Ctx *ctx, Mod *mod) {
  ptxvm_status st = api_program(mod);
  return st != PTXVM_SUCCESS ? st : api_ok(ctx);
}

ptxvm_status ptxvm_module_prepare(ptxvm_module *h) {
  Ctx *ctx;
  Mod *mod;
  ptxvm_status st = api_enter(h, H_MODULE, &ctx, (void **)&mod);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, module_prepare(ctx, mod));
}

/* The number of entries of mod (ptxvm_module_unsupported_count), or -1. */
static int unsupported_count(Ctx *ctx, Mod *mod) {
  if (api_program_lower(mod, NULL) != PTXVM_SUCCESS) return mod->lower_error ? 1 : -1;
  api_ok(ctx);
  return mod->prog->nrefusals;
}

int ptxvm_module_unsupported_count(ptxvm_module *h) {
  Ctx *ctx;
  Mod *mod;
  if (api_enter(h, H_MODULE, &ctx, (void **)&mod) != PTXVM_SUCCESS) return -1;
  int n = unsupported_count(ctx, mod);
  api_leave(ctx, PTXVM_SUCCESS);
  return n;
}

/* The text of msg after its "FILE:LINE:COL: " (or "FILE: ") prefix. */
static const char *after_location(const char *msg, const char *path) {
  size_t n = strlen(path);
  if (strncmp(msg, path, n) || msg[n] != ':') return msg;
  const char *p = strstr(msg + n, ": ");
  return p ? p + 2 : msg;
}

static ptxvm_status unsupported(Ctx *ctx, Mod *mod, int index, ptxvm_unsupported_info *out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_module_unsupported: NULL argument");
  int n = unsupported_count(ctx, mod);
  if (index < 0 || index >= n)
    return api_fail(ctx, PTXVM_ERROR_NOT_FOUND, "%s: no unsupported entry %d (there are %d)",
                    mod->m->path, index, n < 0 ? 0 : n);
  memset(out, 0, sizeof *out);
  const char *path = mod->m->path;
  if (!mod->prog) {
    out->message = mod->lower_error;
  } else {
    const Refusal *r = &mod->prog->refusals[index];
    const Function *f = mod->prog->funcs[r->func].f;
    out->message = r->msg;
    out->function = f->name;
    out->in_entry = f->is_entry;
    out->line = r->in->line;
    out->col = r->in->col;
    if (f->unit) path = f->unit->path;   /* a linked module's: its input's */
  }
  out->what = after_location(out->message, path);
  return api_ok(ctx);
}

ptxvm_status ptxvm_module_unsupported(ptxvm_module *h, int index, ptxvm_unsupported_info *out) {
  Ctx *ctx;
  Mod *mod;
  ptxvm_status st = api_enter(h, H_MODULE, &ctx, (void **)&mod);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, unsupported(ctx, mod, index, out));
}

ptxvm_status api_launchable(Ctx *ctx, Fn *fn) {
  if (!fn->f->is_entry || !fn->f->has_body)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "'%s' is not a kernel (.entry with a body)",
                    fn->f->name);
  ptxvm_status st = api_program_lower(fn->mod, fn->f);
  if (st != PTXVM_SUCCESS) return st;
  const Program *p = fn->mod->prog;
  const Refusal *r = program_kernel_refusal(p, fn->f);
  if (!r) return api_ok(ctx);
  const Function *holder = p->funcs[r->func].f;
  if (holder == fn->f) return api_fail(ctx, PTXVM_ERROR_NOT_SUPPORTED, "%s", r->msg);
  return api_fail(ctx, PTXVM_ERROR_NOT_SUPPORTED, "%s (in '%s', which kernel '%s' can call)",
                  r->msg, holder->name, fn->f->name);
}

ptxvm_status ptxvm_function_launchable(ptxvm_function *h) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, api_launchable(ctx, fn));
}

static ptxvm_status function_lowered(Ctx *ctx, Fn *fn, int *lowered) {
  if (!lowered) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_function_lowered: NULL argument");
  if (!fn->f->is_entry || !fn->f->has_body)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "'%s' is not a kernel (.entry with a body)", fn->f->name);
  *lowered = fn->mod->prog && program_kernel_lowered(fn->mod->prog, fn->f);
  return api_ok(ctx);
}

ptxvm_status ptxvm_function_lowered(ptxvm_function *h, int *lowered) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, function_lowered(ctx, fn, lowered));
}
