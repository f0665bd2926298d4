/* link.c: several parsed PTX modules linked into one (PTX ISA 9.0 §11.6,
 * "Linking Directives"), as nvlink and the driver's JIT linker link the
 * PTX of -rdc=true objects and of cuLinkAddData inputs.
 *
 * Each input is parsed on its own (front_parse), so its non-visible names
 * stay its own: two inputs may each have an internal `$str` or helper
 * .func. The linked Module lists the inputs' functions and variables and
 * owns the inputs (Module.parts); each Function keeps its input in
 * Function.unit, so locations name the input they come from.
 *
 * The rules, by name, over module-scope symbols:
 *   - a definition is linkable when it is .visible, .weak or .common
 *     (a variable, or a function with a body); others are internal;
 *   - two .visible definitions of one name are an error (both named);
 *     .visible wins over .weak; of several .weak ones the first (in input
 *     order) wins, as §11.6.3 leaves open and ELF linkers do;
 *   - .common (.global only, §11.6.4): of several, the largest wins; at
 *     most one may be initialized and it must be that largest one; a
 *     .visible or .weak definition wins over .common ones no larger;
 *   - a reference (an .extern declaration, a function without a body, or a
 *     linkable definition that lost) is bound to the winner: operands and
 *     initializers are rebound to the winner's Symbol (variables) or the
 *     Symbol's function to the winner's Function, so a .visible .global of
 *     one input and its .extern in another are one variable;
 *   - a reference that is used and finds no definition is an error at its
 *     declaration, except the functions the GPU's system provides and
 *     lowering knows (vprintf, __assertfail, malloc and free), the
 *     CUDA device runtime's (libcudadevrt: cudaLaunchDevice,
 *     __cudaCDP2LaunchDeviceV2, ...; ir.h device_runtime_function), whose
 *     callers are refused at their launch, named, since ptxvm does not
 *     support device-side launches, and `.extern .shared` arrays, which
 *     are the dynamic shared memory;
 *   - kinds, state spaces and function signatures (kernel or not, counts
 *     of parameters and return values) must agree between a reference and
 *     its definition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

/* A linkable name: its winning definition (a variable or a function) or,
 * for a function no input defines, the declaration that stands for all. */
typedef struct LinkSym {
  const char *name;
  Symbol *var;
  Function *fn;
  int part;                /* the input of var or fn */
} LinkSym;

typedef struct Linker {
  Module **parts;
  int nparts;
  LinkSym *tab;            /* open addressing by name */
  size_t cap;
  jmp_buf jb;
  char *err;               /* the diagnostic (malloc'd) */
} Linker;

static _Noreturn void link_error(Linker *L, int part, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void link_error(Linker *L, int part, uint32_t line, uint32_t col, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *path = L->parts[part]->path;
  size_t n = strlen(path) + strlen(msg) + 64;
  L->err = malloc(n);
  if (L->err) snprintf(L->err, n, "%s:%u:%u: error: %s\n", path, line, col, msg);
  longjmp(L->jb, 1);
}

/* "PATH:LINE:COL" of a symbol or function of input part, for messages. */
static const char *where(const Linker *L, int part, uint32_t line, uint32_t col, char *buf, size_t n) {
  snprintf(buf, n, "%s:%u:%u", L->parts[part]->path, line, col);
  return buf;
}

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;   /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The entry of `name`: its slot, empty (name NULL) when absent. */
static LinkSym *slot(Linker *L, const char *name) {
  size_t i = (size_t)name_hash(name) & (L->cap - 1);
  while (L->tab[i].name && strcmp(L->tab[i].name, name)) i = (i + 1) & (L->cap - 1);
  return &L->tab[i];
}

static bool linkable_var(const Symbol *s) {
  return !s->is_extern && (s->is_visible || s->is_weak || s->is_common);
}
static bool linkable_fn(const Function *f) { return f->has_body && (f->is_visible || f->is_weak); }

static const char *space_word(Space sp) { return space_name(sp); }

/* s (of input part) and the same variable at `at` disagree on
 * .attribute(.managed): one would be managed memory, the other device memory. */
static _Noreturn void managed_mismatch(Linker *L, int part, const Symbol *s, const char *how, const char *at) {
  link_error(L, part, s->line, s->col, "'%s' is %s %s.attribute(.managed) here but %s at %s: every declaration "
             "of a managed variable must say .attribute(.managed) (PTX ISA §5.4.8)", s->name, how,
             s->is_managed ? "with " : "without ", s->is_managed ? "not" : "with it", at);
}

/* A variable definition s of input part against the entry e holding one. */
static void merge_var(Linker *L, LinkSym *e, Symbol *s, int part) {
  char at[512];
  Symbol *o = e->var;
  where(L, e->part, o->line, o->col, at, sizeof at);
  if (o->space != s->space)
    link_error(L, part, s->line, s->col, "'%s' is defined in .%s here and in .%s at %s", s->name,
               space_word(s->space), space_word(o->space), at);
  if (o->is_managed != s->is_managed) managed_mismatch(L, part, s, "defined", at);
  if (o->is_common && s->is_common) {       /* §11.6.4: the largest; one initializer, on it */
    /* the larger; of two as large, the initialized one */
    Symbol *big = s->size > o->size || (s->size == o->size && s->has_init) ? s : o, *small = big == s ? o : s;
    if (small->has_init && big->has_init)
      link_error(L, part, s->line, s->col, ".common '%s' is initialized here and at %s: only one "
                 "input may initialize a common symbol (PTX ISA 9.0 §11.6.4)", s->name, at);
    if (small->has_init && small->size < big->size)
      link_error(L, part, s->line, s->col, ".common '%s' is initialized in a definition of %llu bytes, "
                 "but another is larger (%llu bytes; %s): the initialized one must be the largest "
                 "(PTX ISA 9.0 §11.6.4)", s->name, (unsigned long long)small->size,
                 (unsigned long long)big->size, at);
    if (big == s) e->var = s, e->part = part;
    return;
  }
  if (o->is_common || s->is_common) {       /* a .visible/.weak one wins over commons */
    Symbol *def = o->is_common ? s : o, *com = o->is_common ? o : s;
    if (com->size > def->size)
      link_error(L, part, s->line, s->col, "'%s' is defined with %llu bytes, but a .common definition "
                 "of it has %llu (%s)", s->name, (unsigned long long)def->size,
                 (unsigned long long)com->size, at);
    if (com->has_init)
      link_error(L, part, s->line, s->col, "'%s' has an initialized .common definition and a .%s one that "
                 "wins over it (here and at %s): the initializer would be lost", s->name,
                 def->is_weak ? "weak" : "visible", at);
    if (def == s) e->var = s, e->part = part;
    return;
  }
  if (!o->is_weak && !s->is_weak)
    link_error(L, part, s->line, s->col, "duplicate definition of .visible '%s' (also defined at %s)",
               s->name, at);
  if (o->is_weak && !s->is_weak) e->var = s, e->part = part;
}

static void merge_fn(Linker *L, LinkSym *e, Function *f, int part) {
  char at[512];
  where(L, e->part, e->fn->line, e->fn->col, at, sizeof at);
  if (!e->fn->is_weak && !f->is_weak)
    link_error(L, part, f->line, f->col, "duplicate definition of .visible '%s' (also defined at %s)",
               f->name, at);
  if (e->fn->is_weak && !f->is_weak) e->fn = f, e->part = part;
}

/* Enters a definition (var or f) of input part. */
static void add_def(Linker *L, Symbol *var, Function *f, int part) {
  const char *name = var ? var->name : f->name;
  LinkSym *e = slot(L, name);
  if (!e->name) {
    *e = (LinkSym){name, var, f, part};
    return;
  }
  char at[512];
  if ((e->var != NULL) != (var != NULL)) {
    if (e->var) where(L, e->part, e->var->line, e->var->col, at, sizeof at);
    else where(L, e->part, e->fn->line, e->fn->col, at, sizeof at);
    link_error(L, part, var ? var->line : f->line, var ? var->col : f->col,
               "'%s' is defined as a %s here and as a %s at %s", name, var ? "variable" : "function",
               var ? "function" : "variable", at);
  }
  if (var) merge_var(L, e, var, part);
  else merge_fn(L, e, f, part);
}

/* The functions every GPU provides, which lowering executes (ctrl.c). */
static bool system_function(const char *name) {
  static const char *const names[] = {"vprintf", "__assertfail", "malloc", "free"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i])) return true;
  return false;
}

/* Whether s is an `.extern .shared` array: the dynamic shared memory of
 * each kernel, not a symbol to resolve (lower.c is_dyn_shared). */
static bool dynamic_shared(const Symbol *s) {
  return s->space == SP_SHARED && s->is_extern;
}

/* The function that a reference to f (of input part) names. */
static Function *resolve_fn(Linker *L, Function *f, int part) {
  if (f->has_body && !linkable_fn(f)) return f;     /* internal */
  LinkSym *e = slot(L, f->name);
  if (e->name && e->var) {
    char at[512];
    link_error(L, part, f->line, f->col, "'%s' is declared as a function here but defined as a variable at %s",
               f->name, where(L, e->part, e->var->line, e->var->col, at, sizeof at));
  }
  if (e->name && e->fn->has_body) {
    const Function *d = e->fn;
    if (d->is_entry != f->is_entry || d->nparams != f->nparams || d->nrets != f->nrets) {
      char at[512];
      link_error(L, part, f->line, f->col, "'%s' does not match its definition at %s (%s, %d parameters, "
                 "%d return values there)", f->name, where(L, e->part, d->line, d->col, at, sizeof at),
                 d->is_entry ? ".entry" : ".func", d->nparams, d->nrets);
    }
    return e->fn;
  }
  if (system_function(f->name) || device_runtime_function(f->name)) {
    if (!e->name) *e = (LinkSym){f->name, NULL, f, part};
    return e->fn;
  }
  link_error(L, part, f->line, f->col, "unresolved function '%s': it is declared here and used, but no input "
             "defines it (.visible or .weak)", f->name);
}

/* The variable that a reference to s (of input part) names. */
static Symbol *resolve_var(Linker *L, Symbol *s, int part) {
  if (!s->is_extern && !linkable_var(s)) return s;   /* internal */
  LinkSym *e = slot(L, s->name);
  char at[512];
  if (e->name && e->fn)
    link_error(L, part, s->line, s->col, "'%s' is declared as a variable here but defined as a function at %s",
               s->name, where(L, e->part, e->fn->line, e->fn->col, at, sizeof at));
  if (!e->name) {
    if (dynamic_shared(s)) return s;
    link_error(L, part, s->line, s->col, "unresolved variable '%s': it is declared .extern .%s here and used, "
               "but no input defines it (.visible, .weak or .common)", s->name, space_word(s->space));
  }
  if (e->var->space != s->space)
    link_error(L, part, s->line, s->col, "'%s' is declared in .%s here but defined in .%s at %s", s->name,
               space_word(s->space), space_word(e->var->space),
               where(L, e->part, e->var->line, e->var->col, at, sizeof at));
  if (e->var->is_managed != s->is_managed)
    managed_mismatch(L, part, s, "declared", where(L, e->part, e->var->line, e->var->col, at, sizeof at));
  return e->var;
}

static void rebind_operand(Linker *L, Operand *o, int part) {
  if (o->sym && o->sym->kind == SYM_VAR) o->sym = resolve_var(L, o->sym, part);
  else if (o->sym && o->sym->kind == SYM_FUNC && o->sym->func) o->sym->func = resolve_fn(L, o->sym->func, part);
  for (int i = 0; o->elems && i < o->n; i++) rebind_operand(L, &o->elems[i], part);
}

static void rebind_init(Linker *L, Symbol *s, int part) {
  for (int i = 0; i < s->ninit; i++) {
    InitElem *e = &s->init[i];
    if (e->kind != INIT_ADDR || !e->sym) continue;
    if (e->sym->kind == SYM_VAR) e->sym = resolve_var(L, e->sym, part);
    else if (e->sym->func) e->sym->func = resolve_fn(L, e->sym->func, part);
  }
}

/* Binds every reference of input part to what it names. */
static void rebind_part(Linker *L, int part) {
  Module *m = L->parts[part];
  for (int i = 0; i < m->nglobals; i++) rebind_init(L, m->globals[i], part);
  for (int i = 0; i < m->nfuncs; i++) {
    Function *f = m->funcs[i];
    for (int k = 0; k < f->nvars; k++) rebind_init(L, f->vars[k], part);
    for (int k = 0; k < f->ninsns; k++)
      for (int j = 0; j < f->insns[k].nopds; j++) rebind_operand(L, &f->insns[k].opds[j], part);
  }
}

/* Whether global s of input part belongs in the linked module: internal,
 * the winning definition, or a dynamic shared array. */
static bool keep_var(Linker *L, Symbol *s) {
  if (dynamic_shared(s)) return true;
  if (s->is_extern) return false;
  if (!linkable_var(s)) return true;
  return slot(L, s->name)->var == s;
}

static bool keep_fn(Linker *L, Function *f) {
  if (f->has_body && !linkable_fn(f)) return true;
  return slot(L, f->name)->fn == f;
}

static void build(Linker *L, Module *out) {
  size_t n = 16;
  for (int p = 0; p < L->nparts; p++) n += (size_t)L->parts[p]->nglobals + (size_t)L->parts[p]->nfuncs;
  L->cap = 16;
  while (L->cap < 2 * n) L->cap *= 2;
  L->tab = arena_alloc(&out->arena, L->cap * sizeof *L->tab);
  for (int p = 0; p < L->nparts; p++) {
    Module *m = L->parts[p];
    if (m->address_size != L->parts[0]->address_size)
      link_error(L, p, 1, 1, "this module's .address_size is %d, %s's is %d: linked modules must agree",
                 m->address_size, L->parts[0]->path, L->parts[0]->address_size);
    for (int i = 0; i < m->nglobals; i++)
      if (linkable_var(m->globals[i])) add_def(L, m->globals[i], NULL, p);
    for (int i = 0; i < m->nfuncs; i++)
      if (linkable_fn(m->funcs[i])) add_def(L, NULL, m->funcs[i], p);
  }
  for (int p = 0; p < L->nparts; p++) rebind_part(L, p);
  VEC(Symbol *) globals = {0};
  VEC(Function *) funcs = {0};
  for (int p = 0; p < L->nparts; p++) {
    Module *m = L->parts[p];
    for (int i = 0; i < m->nglobals; i++)
      if (keep_var(L, m->globals[i])) vec_push(&out->arena, globals, m->globals[i]);
    for (int i = 0; i < m->nfuncs; i++)
      if (keep_fn(L, m->funcs[i])) vec_push(&out->arena, funcs, m->funcs[i]);
  }
  out->globals = globals.v;
  out->nglobals = globals.n;
  out->funcs = funcs.v;
  out->nfuncs = funcs.n;
  const Module *first = L->parts[0];
  out->ver_major = first->ver_major;
  out->ver_minor = first->ver_minor;
  out->sm = first->sm;
  out->sm_suffix = first->sm_suffix;
  out->targets = first->targets;
  out->ntargets = first->ntargets;
  out->address_size = first->address_size;
}

Module *front_link(Module **parts, int n, const char *path, char **err) {
  *err = NULL;
  Linker *volatile L = calloc(1, sizeof *L);
  Module *volatile m = calloc(1, sizeof *m);
  if (!L || !m || n < 1) {
    free(L);
    free(m);
    for (int i = 0; i < n; i++) module_free(parts[i]);
    return NULL;
  }
  L->parts = parts;
  L->nparts = n;
  arena_init(&m->arena, &L->jb);
  if (setjmp(L->jb)) {
    *err = L->err;
    arena_free(&m->arena);
    free(m);
    for (int i = 0; i < n; i++) module_free(parts[i]);
    free(L);
    return NULL;
  }
  m->path = arena_strndup(&m->arena, path, strlen(path));
  m->parts = arena_dup(&m->arena, parts, (size_t)n * sizeof *parts);
  m->nparts = n;
  build(L, m);
  m->arena.oom = NULL;
  free(L);
  return m;
}
