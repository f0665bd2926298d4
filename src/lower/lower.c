/* lower.c: module IR -> executable program (STYLE.md §4, exec.h).
 *
 * program_build walks the module once; program_layout does step 1 alone
 * and program_lower steps 2 and 3 for the functions a kernel can reach, at
 * its first launch, in declaration order, so that lowering a module kernel
 * by kernel gives each function the code program_build would:
 *
 *   1. Variables. Module-scope .global/.const variables get device memory
 *      (dev_alloc; managed memory, dev_alloc_managed, for a .global with
 *      .attribute(.managed)) and their initializers; each .shared variable gets one
 *      offset, and each kernel a static shared size covering only the
 *      variables it can reach ("shared memory per kernel" below); `extern
 *      .shared` arrays start at the kernel's dynamic area after it.
 *      Each function gets a frame in every thread's local memory holding
 *      its .local variables, its formal parameters and return values
 *      (.func) and the .param variables it declares for calls: a kernel's
 *      at a fixed offset after the module-scope .local variables, a
 *      .func's on the lane's local stack (lower.h). Kernel
 *      parameters are offsets in the launch's parameter buffer, laid out as
 *      the CUDA driver does (and as ptxvm_function_get_param reports).
 *   2. Registers. Each function owns a region of each register file: 8-,
 *      16-, 32-bit (and f16x2/bf16x2) registers in the 32-bit file, 64-bit
 *      ones in the 64-bit file, .b128 as two 64-bit slots, predicates in the
 *      predicate file; a vector register takes one slot per element. Slot 0
 *      of every file is the scratch target of a sink `_`. Immediates become
 *      constant slots, deduplicated, recorded in the init image that warp
 *      creation copies.
 *   3. Instructions. Each Insn becomes one XInsn, chosen by its family's
 *      selector, preceded by a pseudo-instruction for every special register
 *      it reads. Labels become global pcs once the function is done. Every
 *      function ends with an implicit exit (entry) or ret (.func), for code
 *      that falls off its end. An instruction its selector refuses becomes
 *      a trap and a Refusal ("refusals" below), which refuses only the
 *      kernels that can reach it.
 *
 * .param state space. ld.param/st.param name kernel parameters (offsets in
 * the launch buffer) or .param variables of a frame, which live in local
 * memory and whose .param address is LOCAL_WINDOW + frame offset (exec.h),
 * so the memory family needs no knowledge of frames.
 *
 * Frames of a .func. Each call pushes the callee's frame on the lane's local
 * stack (interp.c), so a variable of a .func frame has no constant address:
 * its address is the lane's frame pointer (Program.fp_slot, a hidden 32-bit
 * slot) plus a constant. An address operand [var+off] takes the frame
 * pointer as its base register (a 32-bit one: every family reads a base
 * that is not a 64-bit register symbol from the 32-bit file), and a
 * variable used as a value (mov, cvta.local of a register...) is computed
 * by a pseudo-instruction (exec_frame_addr) into a hidden slot, as special
 * registers are. A kernel's frame is fixed (its frame pointer is 0), so
 * kernels keep constant addresses. */
#include "lower.h"
#include "../exec/spin.h"
#include "../exec/fpconv.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fixup { uint32_t code; uint32_t *dst; const Symbol *label; } Fixup;
typedef struct Const { uint64_t key; uint32_t slot; uint8_t file; bool used; } Const;

struct Lower {
  Program *p;
  const Module *m;
  int fi;                         /* function being lowered */
  FuncInfo *fn;
  const Insn *in;                 /* instruction being lowered */
  uint32_t *insn_pc;              /* IR index -> pc, for the current function */
  XInsn *code; uint32_t ncode, capcode;
  XInsn pre[XINSN_MAX_OPDS]; int npre;   /* pseudo-instructions before in */
  Fixup *fix; uint32_t nfix, capfix;
  Const *consts; uint32_t capconsts, nconsts;
  uint32_t *i32; uint64_t *i64; uint32_t *ipred;   /* init value per slot */
  uint32_t cap32, cap64, cappred;
  uint32_t n32, n64, npred;       /* slots so far (Program's: those of its
                                     init image, published by finish_image) */
  const uint8_t *want;            /* program_lower: the functions wanted (NULL: all) */
  jmp_buf jb;                     /* fatal: the module cannot be lowered */
  jmp_buf insn_jb;                /* the instruction being lowered is refused */
  bool catch_insn;                /* insn_jb is set */
  char *err;
};

/* ---- errors ---- */

static _Noreturn void lower_fail(Lower *L, const Insn *in, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void lower_fail(Lower *L, const Insn *in, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* an instruction's location is in its function's input (a linked module's) */
  const char *path = in && L->fn && L->fn->f->unit ? L->fn->f->unit->path : L->m->path;
  size_t n = strlen(msg) + strlen(path) + 64;
  L->err = malloc(n);
  if (L->err) {
    if (in) snprintf(L->err, n, "%s:%u:%u: %s", path, in->line, in->col, msg);
    else snprintf(L->err, n, "%s: %s", path, msg);
  }
  if (in && L->catch_insn && L->err) longjmp(L->insn_jb, 1);
  longjmp(L->jb, 1);
}

/* A selector's refusal with its own message (lower.h). */
_Noreturn void lower_refuse(Lower *L, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lower_fail(L, L->in, "%s", msg);
}

static void *grow(Lower *L, void *v, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return v;
  uint32_t nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  void *nv = realloc(v, nc * elem);
  if (!nv) lower_fail(L, NULL, "out of memory");
  memset((char *)nv + *cap * elem, 0, (nc - *cap) * elem);
  *cap = nc;
  return nv;
}

/* ---- slots ---- */

enum { FILE32, FILE64, FILEP };

static uint32_t new_slot(Lower *L, int file, uint32_t n) {
  uint32_t s;
  if (file == FILE32) {
    s = L->n32; L->n32 += n;
    L->i32 = grow(L, L->i32, &L->cap32, L->n32, sizeof *L->i32);
  } else if (file == FILE64) {
    s = L->n64; L->n64 += n;
    L->i64 = grow(L, L->i64, &L->cap64, L->n64, sizeof *L->i64);
  } else {
    s = L->npred; L->npred += n;
    L->ipred = grow(L, L->ipred, &L->cappred, L->npred, sizeof *L->ipred);
  }
  return s;
}

static uint64_t hash64(uint64_t k) {
  k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33;
  return k;
}

/* A constant slot holding `v` in `file`, shared by all equal constants. */
static uint32_t const_slot(Lower *L, int file, uint64_t v) {
  if (2 * (L->nconsts + 1) > L->capconsts) {
    Const *old = L->consts;
    uint32_t oldcap = L->capconsts;
    L->capconsts = oldcap ? 2 * oldcap : 256;
    L->consts = calloc(L->capconsts, sizeof *L->consts);
    if (!L->consts) lower_fail(L, NULL, "out of memory");
    L->nconsts = 0;
    for (uint32_t i = 0; i < oldcap; i++)
      if (old[i].used) {
        uint32_t h = (uint32_t)hash64(old[i].key * 3 + old[i].file) & (L->capconsts - 1);
        while (L->consts[h].used) h = (h + 1) & (L->capconsts - 1);
        L->consts[h] = old[i];
        L->nconsts++;
      }
    free(old);
  }
  uint32_t h = (uint32_t)hash64(v * 3 + (uint64_t)file) & (L->capconsts - 1);
  for (; L->consts[h].used; h = (h + 1) & (L->capconsts - 1))
    if (L->consts[h].key == v && L->consts[h].file == file) return L->consts[h].slot;
  uint32_t s = new_slot(L, file, 1);
  if (file == FILE32) L->i32[s] = (uint32_t)v;
  else if (file == FILE64) L->i64[s] = v;
  else L->ipred[s] = v ? 0xffffffffu : 0;
  L->consts[h] = (Const){v, s, (uint8_t)file, true};
  L->nconsts++;
  return s;
}

static int reg_file(const Symbol *s) {
  if (s->type == TY_PRED) return FILEP;
  return type_size(s->type) >= 8 ? FILE64 : FILE32;
}

int lower_reg_file(const Symbol *s) { return reg_file(s); }

static uint32_t reg_nslots(const Symbol *s) {
  uint32_t v = s->vec ? s->vec : 1;
  return s->type == TY_B128 ? 2 * v : v;
}

/* Slot of a register operand (with its .x/.y/.z/.w component). A vector
 * register named whole reaches here only where no selector takes it as a
 * vector (the validator turned every vector operand it knows into the list
 * of the components): one slot would be its .x alone, so it is refused. */
static uint32_t reg_slot(Lower *L, const Operand *o) {
  const Symbol *s = o->sym;
  if (s->vec > 1 && o->comp < 0)
    lower_refuse(L, "vector register '%s' named whole is not supported here "
                 "(name its components, %s.x ...)", s->name, s->name);
  uint32_t slot = L->fn->regmap[s->slot];
  if (o->comp > 0) slot += (uint32_t)o->comp * (s->type == TY_B128 ? 2 : 1);
  return slot;
}

/* ---- variables ---- */

/* Variables are found by symbol through a hash (a kernel may have 32764
 * parameters, each named by an ld.param: no linear search per use). */
static uint32_t var_bucket(const Program *p, const Symbol *s) {
  return (uint32_t)hash64((uint64_t)(uintptr_t)s) & (p->capvarhash - 1);
}

static const VarAddr *find_var(const Program *p, const Symbol *s) {
  if (!p->capvarhash) return NULL;
  for (uint32_t h = var_bucket(p, s); p->varhash[h]; h = (h + 1) & (p->capvarhash - 1))
    if (p->vars[p->varhash[h] - 1].sym == s) return &p->vars[p->varhash[h] - 1];
  return NULL;
}

static void hash_var(Program *p, int i) {
  uint32_t h = var_bucket(p, p->vars[i].sym);
  while (p->varhash[h]) h = (h + 1) & (p->capvarhash - 1);
  p->varhash[h] = i + 1;
}

/* Records the address of s (the first record of a symbol is the one found). */
static void add_var_as(Lower *L, const Symbol *s, uint64_t addr, bool rel, bool kparam) {
  Program *p = L->p;
  if (find_var(p, s)) return;
  if (p->nvars == p->capvars) {
    p->capvars = p->capvars ? 2 * p->capvars : 64;
    VarAddr *nv = realloc(p->vars, (size_t)p->capvars * sizeof *nv);
    if (!nv) lower_fail(L, NULL, "out of memory");
    p->vars = nv;
  }
  p->vars[p->nvars++] = (VarAddr){s, addr, rel, kparam};
  if (2 * (uint32_t)p->nvars > p->capvarhash) {
    uint32_t cap = p->capvarhash ? 2 * p->capvarhash : 128;
    int *nh = calloc(cap, sizeof *nh);
    if (!nh) lower_fail(L, NULL, "out of memory");
    free(p->varhash);
    p->varhash = nh;
    p->capvarhash = cap;
    for (int i = 0; i < p->nvars - 1; i++) hash_var(p, i);
  }
  hash_var(p, p->nvars - 1);
}

static void add_var(Lower *L, const Symbol *s, uint64_t addr, bool rel) {
  add_var_as(L, s, addr, rel, false);
}

bool program_lookup_var(const Program *p, const Symbol *s, uint64_t *addr) {
  const VarAddr *v = find_var(p, s);
  if (v) *addr = v->addr;
  return v != NULL;
}

/* Is s a variable of a .func frame (frame-pointer relative)? */
static bool var_rel(const Program *p, const Symbol *s) {
  const VarAddr *v = find_var(p, s);
  return v && v->rel;
}

int program_func_index(const Program *p, const Function *f) {
  for (int i = 0; i < p->nfuncs; i++)
    if (p->funcs[i].f == f) return i;
  return -1;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static bool is_kernel_param(const Program *p, const Symbol *s) {
  const VarAddr *v = find_var(p, s);
  return v && v->kparam;
}

/* Kernel parameters: at their offsets in the launch buffer (the front
 * end's layout, validate_params, which ptxvm_function_get_param reports). */
static void layout_kernel_params(Lower *L, const Function *f) {
  for (int k = 0; k < f->nparams; k++) add_var_as(L, f->params[k], f->params[k]->offset, false, true);
}

static uint64_t frame_var(Lower *L, const Symbol *s, uint64_t *off, bool rel) {
  *off = align_up(*off, symbol_align(s));
  uint64_t at = *off;
  add_var(L, s, at, rel);
  *off += s->size ? s->size : 1;
  return at;
}

/* Formal parameters declared in .param get frame space; those declared in
 * .reg are registers of the function (layout_regs places them). */
static CallOpd *frame_formals(Lower *L, Symbol *const *ps, int n, uint64_t *off, bool rel) {
  CallOpd *c = arena_alloc(&L->p->arena, (size_t)(n + 1) * sizeof *c);
  for (int k = 0; k < n; k++)
    if (ps[k]->kind != SYM_REG)
      c[k] = (CallOpd){CO_MEM, (uint32_t)frame_var(L, ps[k], off, rel), (uint32_t)ps[k]->size, 1};
  return c;
}

/* The frame of function i: its .local and .param variables. A kernel's is
 * at `fixed` (after the module-scope .local variables); a .func's offsets
 * are relative to the frame pointer of its activation. */
static void layout_frame(Lower *L, int i, uint64_t fixed) {
  FuncInfo *fi = &L->p->funcs[i];
  const Function *f = fi->f;
  bool rel = !f->is_entry;
  uint64_t start = rel ? 0 : align_up(fixed, 16), off = start;
  if (!f->is_entry) {
    fi->formals = frame_formals(L, f->params, f->nparams, &off, rel);
    fi->formal_rets = frame_formals(L, f->rets, f->nrets, &off, rel);
  } else {
    layout_kernel_params(L, f);
  }
  for (int k = 0; k < f->nvars; k++) {
    const Symbol *s = f->vars[k];
    if (s->space == SP_LOCAL || s->space == SP_PARAM) frame_var(L, s, &off, rel);
  }
  if (off - start > WINDOW_SIZE / 2)   /* before the 32-bit fields below: no wrap */
    lower_fail(L, NULL, "the frame of '%s' (%llu bytes of local memory per thread) is too large",
               f->name, (unsigned long long)(off - start));
  fi->frame = (uint32_t)start;
  fi->frame_size = (uint32_t)(off - start);
}

/* Index of the definition of function f (a declaration resolves to the
 * definition of the same name), or -1. */
static int func_def(const Program *p, const Function *f) {
  int i = program_func_index(p, f);
  if (i >= 0 && f->has_body) return i;
  for (int k = 0; k < p->nfuncs; k++)   /* of its own input: a linked module's keep their names */
    if (p->funcs[k].f->has_body && p->funcs[k].f->unit == f->unit && !strcmp(p->funcs[k].f->name, f->name))
      return k;
  return i;
}

/* Index of the callee operand of a call (after its return list), or -1. */
static int callee_opd(const Insn *in) {
  if (in->op != OP_CALL) return -1;
  int j = in->nopds > 1 && in->opds[0].kind == OPD_LIST ? 1 : 0;
  return j < in->nopds ? j : -1;
}

/* Depth-first walk of the direct call graph from function i: true when it
 * finds a cycle (recursion), an indirect call or alloca (state: 0 unseen,
 * 1 on the path, 2 done). */
static bool dynamic_stack(const Program *p, int i, uint8_t *state) {
  if (state[i] == 1) return true;
  if (state[i] == 2) return false;
  state[i] = 1;
  const Function *f = p->funcs[i].f;
  for (int k = 0; k < f->ninsns; k++) {
    const Insn *in = &f->insns[k];
    if (in->op == OP_ALLOCA) return true;
    int j = callee_opd(in);
    if (j < 0) continue;
    const Operand *o = &in->opds[j];
    if (o->kind == OPD_REG) return true;
    if (o->kind != OPD_SYM || o->sym->kind != SYM_FUNC || !o->sym->func) continue;
    int c = func_def(p, o->sym->func);
    if (c >= 0 && p->funcs[c].f->has_body && dynamic_stack(p, c, state)) return true;
  }
  state[i] = 2;
  return false;
}

/* ---- shared memory per kernel ----
 *
 * A kernel's static shared memory is the .shared variables it can reach:
 * those named by its body and by the functions it can call (a direct call
 * reaches its callee; an indirect call any function whose address is taken;
 * a variable named in an initializer counts for every kernel). Each variable
 * has one offset (a .func called by two kernels sees it at the same place in
 * both); in declaration order it takes the lowest aligned offset that
 * overlaps no earlier variable sharing a kernel with it, so variables of
 * different kernels overlap. A kernel's static size is the end of its last
 * variable. `extern .shared` arrays start at the dynamic area, after the
 * static size aligned to every extern's alignment (at least 16). A .func
 * naming an extern array has one address for it, so the kernels that reach
 * such a .func share one dynamic base: the largest of theirs. */

static bool is_dyn_shared(const Symbol *s) {
  return s->space == SP_SHARED && (s->is_extern || s->is_unsized || s->size == 0);
}

/* The sets below are lists (a module of thousands of kernels, functions
 * and variables names few of them in each: matrices of them all made
 * parsing such a module cubic). */
typedef struct SmemRef { const Symbol *s; int v; } SmemRef;

typedef struct Smem {
  const Program *p;
  const Symbol **vars; int nvars;   /* every .shared variable, in declaration order */
  SmemRef *byref;                   /* the same, by address (smem_index) */
  bool fill;                        /* second pass: uses[] is allocated */
  int *nuses, *useat, *uses;        /* [function] (row nfuncs: initializers): the
                                       variables it names, uses[useat[i]..+nuses[i]] */
  uint8_t *taken;                   /* [function]: its address is taken */
} Smem;

static int smem_cmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const SmemRef *)a)->s, y = (uintptr_t)((const SmemRef *)b)->s;
  return x < y ? -1 : x > y;
}

static int int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

static int smem_index(const Smem *S, const Symbol *s) {
  SmemRef key = {s, 0}, *r = bsearch(&key, S->byref, (size_t)S->nvars, sizeof key, smem_cmp);
  return r ? r->v : -1;
}

/* Records what operand o of function i names: a .shared variable, or a
 * function whose address is taken (call_target: the callee of a call). */
static void smem_operand(Smem *S, int i, const Operand *o, bool call_target) {
  if (o->kind == OPD_VEC || o->kind == OPD_PAIR || o->kind == OPD_LIST ||
      (o->kind == OPD_ADDR && o->n > 0)) {
    for (int k = 0; k < o->n; k++) smem_operand(S, i, &o->elems[k], false);
    return;
  }
  if ((o->kind != OPD_SYM && o->kind != OPD_ADDR) || !o->sym) return;
  if (o->sym->kind == SYM_FUNC && o->sym->func && !call_target) {
    int f = func_def(S->p, o->sym->func);
    if (f >= 0) S->taken[f] = 1;
  } else if (o->sym->kind == SYM_VAR && o->sym->space == SP_SHARED) {
    int v = smem_index(S, o->sym);
    if (v >= 0 && S->fill) S->uses[S->useat[i] + S->nuses[i]] = v;
    if (v >= 0) S->nuses[i]++;
  }
}

/* Initializers: a .shared variable named counts for every kernel (row
 * nfuncs), a function named has its address taken. */
static void smem_init(Smem *S, const Symbol *s) {
  for (int k = 0; s->has_init && k < s->ninit; k++) {
    const InitElem *e = &s->init[k];
    if (e->kind != INIT_ADDR || !e->sym) continue;
    Operand o = {.kind = OPD_SYM, .sym = e->sym};
    smem_operand(S, S->p->nfuncs, &o, false);
  }
}

/* One pass over what the module names (smem_operand, smem_init): the
 * first counts, the second (S->fill) records. */
static void smem_scan(Smem *S) {
  const Module *m = S->p->m;
  int nf = S->p->nfuncs;
  memset(S->nuses, 0, (size_t)(nf + 1) * sizeof *S->nuses);
  for (int i = 0; i < nf; i++) {
    const Function *f = S->p->funcs[i].f;
    for (int k = 0; k < f->nvars; k++) {
      if (f->vars[k]->space == SP_SHARED) {
        Operand o = {.kind = OPD_SYM, .sym = f->vars[k]};
        smem_operand(S, i, &o, false);
      }
      smem_init(S, f->vars[k]);
    }
    for (int k = 0; k < f->ninsns; k++) {
      const Insn *in = &f->insns[k];
      for (int j = 0; j < in->nopds; j++) smem_operand(S, i, &in->opds[j], j == callee_opd(in));
    }
  }
  for (int i = 0; i < m->nglobals; i++) smem_init(S, m->globals[i]);
}

/* Marks in reach[] the functions kernel-reachable from function i. */
static void smem_reach(const Smem *S, int i, uint8_t *reach) {
  if (i < 0 || reach[i]) return;
  reach[i] = 1;
  const Function *f = S->p->funcs[i].f;
  for (int k = 0; k < f->ninsns; k++) {
    int j = callee_opd(&f->insns[k]);
    if (j < 0) continue;
    const Operand *o = &f->insns[k].opds[j];
    if (o->kind == OPD_REG) {   /* indirect: any function whose address is taken */
      for (int c = 0; c < S->p->nfuncs; c++)
        if (S->taken[c]) smem_reach(S, c, reach);
    } else if (o->kind == OPD_SYM && o->sym->kind == SYM_FUNC && o->sym->func) {
      smem_reach(S, func_def(S->p, o->sym->func), reach);
    }
  }
}

/* Lists of indices, one a variable: x[at[v]..at[v]+n[v]). */
typedef struct IdxSets { int *n, *at, *x; } IdxSets;

/* FuncInfo.shared of a kernel: the variables it reaches (kv, ascending),
 * at off[v] (an extern array: at the kernel's dynamic base). */
static void kernel_shared(Program *p, const Smem *S, const int *kv, int n, FuncInfo *fi, const uint64_t *off) {
  fi->shared = arena_alloc(&p->arena, (size_t)n * sizeof *fi->shared + 1);
  fi->nshared = 0;
  for (int j = 0; j < n; j++) {
    const Symbol *s = S->vars[kv[j]];
    fi->shared[fi->nshared++] = (VarAddr){s, is_dyn_shared(s) ? fi->shared_base : off[kv[j]], false, false};
  }
}

static int uf_find(int *up, int k) { while (up[k] != k) k = up[k] = up[up[k]]; return k; }

static void layout_shared(Lower *L) {
  const Module *m = L->m;
  Program *p = L->p;
  int nf = p->nfuncs, nk = 0;
  Smem S = {.p = p};
  int cap = 0;
  for (int i = 0; i < m->nglobals; i++) cap += m->globals[i]->space == SP_SHARED;
  for (int i = 0; i < nf; i++)
    for (int k = 0; k < p->funcs[i].f->nvars; k++) cap += p->funcs[i].f->vars[k]->space == SP_SHARED;
  S.vars = arena_alloc(&p->arena, (size_t)cap * sizeof *S.vars + 1);
  for (int i = 0; i < m->nglobals; i++)
    if (m->globals[i]->space == SP_SHARED) S.vars[S.nvars++] = m->globals[i];
  for (int i = 0; i < nf; i++)
    for (int k = 0; k < p->funcs[i].f->nvars; k++)
      if (p->funcs[i].f->vars[k]->space == SP_SHARED) S.vars[S.nvars++] = p->funcs[i].f->vars[k];
  int nv = S.nvars;
  S.byref = arena_alloc(&p->arena, (size_t)nv * sizeof *S.byref + 1);
  for (int v = 0; v < nv; v++) S.byref[v] = (SmemRef){S.vars[v], v};
  if (nv) qsort(S.byref, (size_t)nv, sizeof *S.byref, smem_cmp);
  S.taken = arena_alloc(&p->arena, (size_t)nf + 1);
  memset(S.taken, 0, (size_t)nf + 1);
  S.nuses = arena_alloc(&p->arena, (size_t)(nf + 1) * sizeof *S.nuses);
  S.useat = arena_alloc(&p->arena, (size_t)(nf + 2) * sizeof *S.useat);
  smem_scan(&S);
  S.useat[0] = 0;
  for (int i = 0; i <= nf; i++) S.useat[i + 1] = S.useat[i] + S.nuses[i];
  S.uses = arena_alloc(&p->arena, (size_t)S.useat[nf + 1] * sizeof *S.uses + 1);
  S.fill = true;
  smem_scan(&S);
  for (int i = 0; i < nf; i++) nk += p->funcs[i].f->is_entry && p->funcs[i].f->has_body;
  /* kernel k (function kf[k]): reach[k * nf + i] (it can call function i),
     K: the variables it reaches, ascending; V: the kernels reaching a variable */
  int *kf = arena_alloc(&p->arena, (size_t)nk * sizeof *kf + 1), *up = arena_alloc(&p->arena, (size_t)nk * sizeof *up + 1);
  uint8_t *reach = arena_alloc(&p->arena, (size_t)nk * (size_t)nf + 1);
  uint64_t *off = arena_alloc(&p->arena, (size_t)nv * sizeof *off + 1), *end = arena_alloc(&p->arena, (size_t)nk * sizeof *end + 1);
  int *mark = arena_alloc(&p->arena, (size_t)nv * sizeof *mark + 1), *tmp = arena_alloc(&p->arena, (size_t)nv * sizeof *tmp + 1);
  int *kn = arena_alloc(&p->arena, (size_t)nk * sizeof *kn + 1);   /* kvars[k]'s length */
  IdxSets V = {arena_alloc(&p->arena, (size_t)nv * sizeof(int) + 1), arena_alloc(&p->arena, (size_t)(nv + 1) * sizeof(int)), NULL};
  int **kvars = arena_alloc(&p->arena, (size_t)nk * sizeof *kvars + 1);
  memset(reach, 0, (size_t)nk * (size_t)nf + 1);
  memset(mark, 0, (size_t)nv * sizeof *mark + 1);
  memset(V.n, 0, (size_t)nv * sizeof(int) + 1);
  nk = 0;
  for (int i = 0; i < nf; i++)
    if (p->funcs[i].f->is_entry && p->funcs[i].f->has_body) { up[nk] = nk; end[nk] = 0; kf[nk++] = i; }
  for (int k = 0; k < nk; k++) {
    uint8_t *r = &reach[(size_t)k * (size_t)nf];
    smem_reach(&S, kf[k], r);
    p->funcs[kf[k]].reach = r;   /* which functions the refusals of a launch count */
    int n = 0;
    for (int i = 0; i <= nf; i++) {
      if (i < nf && !r[i]) continue;
      for (int j = S.useat[i]; j < S.useat[i + 1]; j++)
        if (mark[S.uses[j]] != k + 1) { mark[S.uses[j]] = k + 1; tmp[n++] = S.uses[j]; }
    }
    if (n) qsort(tmp, (size_t)n, sizeof *tmp, int_cmp);
    kvars[k] = arena_alloc(&p->arena, (size_t)n * sizeof *tmp + 1);
    memcpy(kvars[k], tmp, (size_t)n * sizeof *tmp);
    kn[k] = n;
    for (int j = 0; j < n; j++) V.n[tmp[j]]++;
  }
  V.at[0] = 0;
  for (int v = 0; v < nv; v++) V.at[v + 1] = V.at[v] + V.n[v];
  V.x = arena_alloc(&p->arena, (size_t)V.at[nv] * sizeof(int) + 1);
  memset(V.n, 0, (size_t)nv * sizeof(int) + 1);
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < kn[k]; j++) V.x[V.at[kvars[k][j]] + V.n[kvars[k][j]]++] = k;
  /* static variables: greedy placement in declaration order; only the
     earlier variables that share a kernel with v can move it, in order */
  memset(mark, 0, (size_t)nv * sizeof *mark + 1);
  uint32_t ext_align = 16;
  for (int v = 0; v < nv; v++) {
    const Symbol *s = S.vars[v];
    if (is_dyn_shared(s)) { if (symbol_align(s) > ext_align) ext_align = symbol_align(s); continue; }
    int n = 0;
    for (int j = V.at[v]; j < V.at[v] + V.n[v]; j++) {
      const int *kv = kvars[V.x[j]];
      for (int t = 0; kv[t] < v; t++)   /* v is in the list: it ends the scan */
        if (mark[kv[t]] != v + 1) { mark[kv[t]] = v + 1; tmp[n++] = kv[t]; }
    }
    if (V.n[v] > 1 && n) qsort(tmp, (size_t)n, sizeof *tmp, int_cmp);
    uint64_t at = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (int t = 0; t < n; t++) {
        int u = tmp[t];
        if (is_dyn_shared(S.vars[u]) || off[u] + S.vars[u]->size <= at || at + s->size <= off[u]) continue;
        at = align_up(off[u] + S.vars[u]->size, symbol_align(s));
        moved = true;
      }
    }
    off[v] = at;
    add_var(L, s, at, false);
    for (int j = V.at[v]; j < V.at[v] + V.n[v]; j++)
      if (at + s->size > end[V.x[j]]) end[V.x[j]] = at + s->size;
  }
  /* dynamic area: the kernels reaching a .func that names an extern array
     are joined (union-find) and share the largest base among them */
  for (int i = 0; i < nf; i++) {
    bool names_ext = false;
    for (int j = S.useat[i]; j < S.useat[i + 1] && !p->funcs[i].f->is_entry && !names_ext; j++)
      names_ext = is_dyn_shared(S.vars[S.uses[j]]);
    for (int k = 0, first = -1; names_ext && k < nk; k++) {
      if (!reach[(size_t)k * (size_t)nf + (size_t)i]) continue;
      if (first < 0) first = k;
      else up[uf_find(up, k)] = uf_find(up, first);
    }
  }
  uint64_t all = 0;
  for (int k = 0; k < nk; k++) {
    p->funcs[kf[k]].shared_static = end[k];
    end[k] = align_up(end[k], ext_align);
    if (end[k] > end[uf_find(up, k)]) end[uf_find(up, k)] = end[k];
    if (end[k] > all) all = end[k];
  }
  for (int i = 0; i < nf; i++) p->funcs[i].shared_base = all;   /* a .func no kernel reaches */
  for (int k = nk - 1; k >= 0; k--)   /* a .func: the base of the first kernel reaching it */
    for (int i = 0; i < nf; i++)
      if (reach[(size_t)k * (size_t)nf + (size_t)i]) p->funcs[i].shared_base = end[uf_find(up, k)];
  /* an extern's VarAddr (initializers, dumps): the largest base; code takes
     its function's (sym_addr) */
  for (int v = 0; v < nv; v++)
    if (is_dyn_shared(S.vars[v])) add_var(L, S.vars[v], all, false);
  for (int k = 0; k < nk; k++) kernel_shared(p, &S, kvars[k], kn[k], &p->funcs[kf[k]], off);
}

static void alloc_global(Lower *L, const Symbol *s) {
  if (s->space != SP_GLOBAL && s->space != SP_CONST) return;
  if (s->is_extern) return;   /* defined by another module: sym_addr refuses its uses */
  /* .attribute(.managed): managed memory (page-aligned), so the host
     reaches it at the address kernels use; module variables are never
     padded (ptxvm_set_alloc_padding) */
  uint64_t a = s->is_managed ? dev_alloc_managed(L->p->dev, s->size ? s->size : 1, 0)
                             : dev_alloc(L->p->dev, s->size ? s->size : 1, symbol_align(s) < 16 ? 16 : symbol_align(s), 0);
  if (!a) lower_fail(L, NULL, "cannot allocate %llu bytes of %s memory for '%s'",
                     (unsigned long long)s->size, s->is_managed ? "managed" : "device", s->name);
  if (s->is_managed && (a & (symbol_align(s) - 1)))
    lower_fail(L, NULL, "managed variable '%s' asks for .align %u, more than the page that ptxvm aligns managed "
               "memory to", s->name, (unsigned)symbol_align(s));
  if (s->space == SP_CONST) dev_protect(L->p->dev, a);
  dev_own(L->p->dev, a);   /* freed with its module, never by ptxvm_mem_free */
  add_var(L, s, a, false);
}

/* Address of a variable or function as seen in state space sp (SP_NONE or
 * SP_GENERIC: its generic address). */
static uint64_t sym_addr(Lower *L, const Symbol *s, Space sp) {
  if (s->kind == SYM_FUNC) {
    int i = s->func ? func_def(L->p, s->func) : -1;
    if (i < 0) lower_fail(L, L->in, "function '%s' has no address", s->name);
    return (uint64_t)FUNC_ADDR_BASE + (uint64_t)i;
  }
  uint64_t a;
  if (!program_lookup_var(L->p, s, &a) && s->is_extern && (s->space == SP_GLOBAL || s->space == SP_CONST))
    lower_fail(L, L->in, "'%s' is declared .extern .%s and this module does not define it: link the module "
               "that does (ptxvm_module_load_linked; the objects of an -rdc=true executable are linked)",
               s->name, space_name(s->space));
  if (!program_lookup_var(L->p, s, &a)) lower_fail(L, L->in, "'%s' has no address", s->name);
  if (L->fn && is_dyn_shared(s)) a = L->fn->shared_base;   /* its kernel's dynamic area */
  /* .param of a .func frame: a LOCAL-window address even as .param (exec.h) */
  if (s->space == SP_PARAM && !is_kernel_param(L->p, s)) return LOCAL_WINDOW + a;
  if (sp != SP_NONE && sp != SP_GENERIC) return a;
  switch (s->space) {
  case SP_SHARED: return SHARED_WINDOW + a;
  case SP_LOCAL: return LOCAL_WINDOW + a;
  case SP_PARAM: return PARAM_WINDOW + a;
  default: return a;
  }
}

/* ---- initializers (§5.4.4) ---- */

/* Bits of a number converted to type t (size bytes, little-endian). */
static uint64_t float_bits(Type t, double v) {
  int size = type_size(t);
  if (t == TY_BF16 || t == TY_BF16X2) return bf16_round_qnan((double)(float)v);   /* fpconv.h */
  if (size == 2) return f16_round_qnan((double)(float)v);
  if (size == 4) { float f = (float)v; uint32_t b; memcpy(&b, &f, 4); return b; }
  uint64_t b; memcpy(&b, &v, 8); return b;
}

static uint64_t init_value(Lower *L, const Symbol *var, const InitElem *e) {
  switch (e->kind) {
  case INIT_INT:
    return type_kind(var->type) == K_F ? float_bits(var->type, (double)e->ival) : (uint64_t)e->ival;
  case INIT_FLOAT:
    return type_kind(var->type) == K_F ? float_bits(var->type, e->fval)
                                       : (uint64_t)(int64_t)e->fval;
  default: {
    /* var: its address in its own space; generic(var): its generic one */
    if (e->sym->kind != SYM_FUNC && var_rel(L->p, e->sym))
      lower_fail(L, NULL, "'%s' has no fixed address (a variable of a .func frame)", e->sym->name);
    uint64_t a = sym_addr(L, e->sym, e->generic ? SP_GENERIC : SP_GLOBAL) + (uint64_t)e->ival;
    if (e->mask_shift >= 0) a = (a >> (8 * e->mask_shift)) & 0xff;
    return a;
  }
  }
}

static void write_init(Lower *L, const Symbol *s) {
  if (!s->has_init || !s->ninit || (s->space != SP_GLOBAL && s->space != SP_CONST)) return;
  uint64_t base;
  if (!program_lookup_var(L->p, s, &base)) return;
  int es = type_size(s->type);
  if (es <= 0) es = 1;
  uint8_t *host = dev_host(L->p->dev, base, s->size);
  if (!host) lower_fail(L, NULL, "cannot initialise '%s'", s->name);
  for (int i = 0; i < s->ninit && (uint64_t)(i + 1) * (uint64_t)es <= s->size; i++) {
    uint64_t v = init_value(L, s, &s->init[i]);
    memcpy(host + (size_t)i * (size_t)es, &v, (size_t)es);   /* little-endian host */
  }
}

static void layout_vars(Lower *L) {
  const Module *m = L->m;
  Program *p = L->p;
  layout_shared(L);
  for (int i = 0; i < m->nglobals; i++) {
    const Symbol *s = m->globals[i];
    if (s->space == SP_SHARED) continue;
    if (s->space == SP_LOCAL) { uint64_t off = p->local_size; frame_var(L, s, &off, false); p->local_size = (uint32_t)off; }
    else alloc_global(L, s);
  }
  /* local memory: module-scope .local, the kernel's frame (kernels
     overlap: one runs per launch), then the stack of .func frames */
  uint64_t fixed = p->local_size, stack = 0, top = align_up(fixed, 16);
  for (int i = 0; i < p->nfuncs; i++) {
    const Function *f = p->funcs[i].f;
    for (int k = 0; k < f->nvars; k++) {
      const Symbol *s = f->vars[k];
      if (s->space == SP_GLOBAL || s->space == SP_CONST) alloc_global(L, s);
    }
    layout_frame(L, i, fixed);
    const FuncInfo *fi = &p->funcs[i];
    if (f->is_entry) { if (align_up(fi->frame + fi->frame_size, 16) > top) top = align_up(fi->frame + fi->frame_size, 16); }
    else stack += align_up(fi->frame_size, 16);
  }
  uint8_t *state = arena_alloc(&p->arena, (size_t)p->nfuncs + 1);
  memset(state, 0, (size_t)p->nfuncs + 1);
  for (int i = 0; i < p->nfuncs; i++)
    if (p->funcs[i].f->has_body && !state[i] && dynamic_stack(p, i, state)) { stack += LOCAL_STACK_EXTRA; break; }
  if (top + stack > WINDOW_SIZE / 2) lower_fail(L, NULL, "local memory of %llu bytes per thread is too large", (unsigned long long)(top + stack));
  p->local_size = (uint32_t)(top + stack);
  p->local_size = (uint32_t)align_up(p->local_size, 16);
  for (int i = 0; i < m->nglobals; i++) write_init(L, m->globals[i]);
  for (int i = 0; i < p->nfuncs; i++)
    for (int k = 0; k < p->funcs[i].f->nvars; k++) write_init(L, p->funcs[i].f->vars[k]);
}

/* ---- registers of a function ---- */

static void layout_regs(Lower *L, FuncInfo *fi) {
  const Function *f = fi->f;
  fi->regmap = arena_alloc(&L->p->arena, (size_t)(f->nregs + 1) * sizeof(uint32_t));
  uint32_t n[3] = {0, 0, 0};
  for (int i = 0; i < f->nregs; i++) n[reg_file(f->regs[i])] += reg_nslots(f->regs[i]);
  fi->r32 = new_slot(L, FILE32, n[FILE32]); fi->n32 = n[FILE32];
  fi->r64 = new_slot(L, FILE64, n[FILE64]); fi->n64 = n[FILE64];
  fi->p0 = new_slot(L, FILEP, n[FILEP]); fi->np = n[FILEP];
  uint32_t next[3] = {fi->r32, fi->r64, fi->p0};
  for (int i = 0; i < f->nregs; i++) {
    const Symbol *s = f->regs[i];
    int file = reg_file(s);
    fi->regmap[s->slot] = next[file];
    next[file] += reg_nslots(s);
  }
  for (int pass = 0; pass < 2 && !f->is_entry; pass++) {   /* .reg formals */
    Symbol *const *ps = pass ? f->rets : f->params;
    CallOpd *c = pass ? fi->formal_rets : fi->formals;
    for (int k = 0; c && k < (pass ? f->nrets : f->nparams); k++) {
      if (ps[k]->kind != SYM_REG) continue;
      int file = reg_file(ps[k]);
      c[k] = (CallOpd){file == FILE32 ? CO_R32 : file == FILE64 ? CO_R64 : CO_PRED,
                       fi->regmap[ps[k]->slot],
                       file == FILEP ? 1u : (uint32_t)type_size(ps[k]->type) * ps[k]->vec,
                       ps[k]->vec};
    }
  }
}

/* ---- the Lower API (exec.h) ---- */

void *lower_aux(Lower *L, size_t n) { return arena_alloc(&L->p->arena, n ? n : 1); }

static int type_file(Type t) {
  if (t == TY_PRED) return FILEP;
  return type_size(t) >= 8 ? FILE64 : FILE32;
}

static uint64_t truncate_to(Type t, uint64_t v) {
  int size = type_size(t);
  if (size >= 8 || size == 0) return v;
  return v & ((1ull << (8 * size)) - 1);
}

static uint64_t imm_bits(const Operand *o, Type t) {
  if (o->kind == OPD_FIMM) {
    if (type_kind(t) == K_F) return float_bits(t, o->fval);
    if (o->flags & OPF_F32) return float_bits(TY_F32, o->fval);
    return float_bits(TY_F64, o->fval);
  }
  if (type_kind(t) == K_F) return float_bits(t, (double)o->ival);
  return truncate_to(t, (uint64_t)o->ival);
}

/* A pseudo-instruction that copies special register o into a hidden slot. */
static uint32_t sreg_slot(Lower *L, const Operand *o) {
  if (L->npre == XINSN_MAX_OPDS) lower_fail(L, L->in, "too many special registers");
  const Symbol *s = o->sym;
  if (s->sreg_comps && o->comp < 0)   /* a vector named whole: not one value */
    lower_refuse(L, "special register '%s' named whole is not supported here", s->name);
  uint32_t slot = new_slot(L, type_file(s->type), 1);
  XInsn *x = &L->pre[L->npre++];
  memset(x, 0, sizeof *x);
  x->fn = exec_sreg_load;
  x->src = L->in;
  x->func = L->fn->f;
  x->op = L->in->op;
  x->type = (uint8_t)s->type;
  x->guard = -1;
  x->slot[0] = slot;
  x->nslots = 1;
  x->imm = o->comp < 0 ? 0 : o->comp;
  x->aux = (void *)(uintptr_t)s;
  int id = sreg_id(s->name);
  if (id < 0) lower_fail(L, L->in, "special register %s is not supported", s->name);
  x->sub = (uint8_t)id;
  return slot;
}

/* A variable of a .func frame used as a value: the lane's frame pointer
 * plus x->imm, into slot[0] (64-bit file when x->type is 8 bytes wide). */
HANDLER(exec_frame_addr) {
  const uint32_t *fp = R32(w, x->slot[1]);
  if (type_size((Type)x->type) == 8) {
    uint64_t *d = R64(w, x->slot[0]);
    FOR_LANES(l) if (ACTIVE(mask, l)) d[l] = fp[l] + (uint64_t)x->imm;
  } else {
    uint32_t *d = R32(w, x->slot[0]);
    FOR_LANES(l) if (ACTIVE(mask, l)) d[l] = (uint32_t)(fp[l] + (uint64_t)x->imm);
  }
  return XS_NEXT;
}

/* A pseudo-instruction computing frame pointer + a into a hidden slot of
 * type t's file. */
static uint32_t frame_addr_slot(Lower *L, Type t, uint64_t a) {
  if (L->npre == XINSN_MAX_OPDS) lower_fail(L, L->in, "too many frame addresses");
  int file = type_file(t);
  uint32_t slot = new_slot(L, file, 1);
  XInsn *x = &L->pre[L->npre++];
  memset(x, 0, sizeof *x);
  x->fn = exec_frame_addr;
  x->src = L->in;
  x->func = L->fn->f;
  x->op = L->in->op;
  x->type = (uint8_t)(file == FILE64 ? TY_B64 : TY_B32);
  x->guard = -1;
  x->slot[0] = slot;
  x->slot[1] = L->p->fp_slot;
  x->nslots = 2;
  x->imm = (int64_t)a;
  return slot;
}

/* What an operand is, in words, for a refusal. */
static const char *opd_shape(const Operand *o) {
  switch ((OpdKind)o->kind) {
  case OPD_REG: return "a register";
  case OPD_IMM: case OPD_FIMM: return "a constant";
  case OPD_SYM: return "a name";
  case OPD_ADDR: return o->n ? "a bracketed list [...]" : "an address [...]";
  case OPD_VEC: return "a vector {...}";
  case OPD_PAIR: return "a pair d|p";
  case OPD_LIST: return "a list (...)";
  case OPD_SINK: return "the sink _";
  }
  return "an operand of unknown kind";
}

/* The operand-shape guard of every selector: the lowering services below
 * take only the shapes they know, and refuse any other (a bracketed list
 * where an address goes, a vector where a scalar goes, ...) by the
 * instruction's name, so an unknown form is "not supported", never read
 * as something it is not. */
static _Noreturn void refuse_shape(Lower *L, const Operand *o, const char *want) {
  char buf[256];
  lower_fail(L, L->in, "%s is not supported: its operand at column %u is %s, not %s",
             insn_text(L->in, buf, sizeof buf), o->col, opd_shape(o), want);
}

uint32_t lower_src(Lower *L, const Operand *o, Type t) {
  switch (o->kind) {
  case OPD_REG:
    if (o->sym->kind == SYM_SREG) return sreg_slot(L, o);
    return reg_slot(L, o);
  case OPD_IMM: case OPD_FIMM:
    if (t == TY_NONE) t = o->ival == (int64_t)(uint32_t)o->ival ? TY_B32 : TY_B64;
    return const_slot(L, type_file(t), t == TY_PRED ? (uint64_t)(o->ival != 0) : imm_bits(o, t));
  case OPD_SYM: {
    if (t == TY_NONE || t == TY_PRED) t = TY_B64;
    uint64_t a = sym_addr(L, o->sym, (o->flags & OPF_GENERIC) ? SP_GENERIC : o->sym->space);
    if (o->sym->kind == SYM_FUNC) a = sym_addr(L, o->sym, SP_NONE);
    else if (var_rel(L->p, o->sym)) return frame_addr_slot(L, t, a + (uint64_t)o->ival);
    return const_slot(L, type_file(t), truncate_to(t, a + (uint64_t)o->ival));
  }
  case OPD_SINK:
    return 0;
  default:
    refuse_shape(L, o, "a register, constant or name");
  }
}

uint32_t lower_dst(Lower *L, const Operand *o) {
  if (o->kind == OPD_SINK) return 0;
  if (o->kind != OPD_REG) refuse_shape(L, o, "a register");
  if (o->sym->kind != SYM_REG) lower_fail(L, L->in, "destination must be a register");
  return reg_slot(L, o);
}

int64_t lower_addr(Lower *L, const Operand *o, Space sp, uint32_t *slot) {
  *slot = UINT32_MAX;
  if (o->kind == OPD_REG) { *slot = lower_src(L, o, TY_B64); return 0; }
  if ((o->kind != OPD_ADDR || o->n) && o->kind != OPD_SYM) refuse_shape(L, o, "an address");
  const Symbol *s = o->sym;
  if (!s) return o->ival;
  if (s->kind == SYM_REG) { *slot = reg_slot(L, o); return o->ival; }
  if (s->kind == SYM_SREG) { *slot = sreg_slot(L, o); return o->ival; }
  if (s->kind != SYM_FUNC && var_rel(L->p, s)) *slot = L->p->fp_slot;   /* a 32-bit base */
  return (int64_t)sym_addr(L, s, sp) + o->ival;
}

static const struct { const char *name; uint32_t bit; } mod_bits[] = {
  {".rn", XM_RN}, {".rz", XM_RZ}, {".rm", XM_RM}, {".rp", XM_RP},
  {".rni", XM_RNI}, {".rzi", XM_RZI}, {".rmi", XM_RMI}, {".rpi", XM_RPI},
  {".ftz", XM_FTZ}, {".sat", XM_SAT}, {".approx", XM_APPROX}, {".full", XM_FULL},
  {".NaN", XM_NAN}, {".hi", XM_HI}, {".lo", XM_LO}, {".wide", XM_WIDE},
  {".cc", XM_CC}, {".uni", XM_UNI}, {".aligned", XM_ALIGNED}, {".xorsign", XM_XORSIGN},
  {".relu", XM_RELU}, {".shiftamt", XM_SHIFTAMT}, {".volatile", XM_VOLATILE},
};

/* Called for every instruction lowered: the character after the dot
 * rules out most rows before a strcmp. */
uint32_t lower_mods(const Insn *in) {
  uint32_t m = 0;
  for (int i = 0; i < in->nmods; i++)
    for (size_t k = 0; k < sizeof mod_bits / sizeof mod_bits[0]; k++)
      if (in->mods[i][0] && in->mods[i][1] == mod_bits[k].name[1] && !strcmp(in->mods[i], mod_bits[k].name))
        m |= mod_bits[k].bit;
  return m;
}

static Space mod_space(const char *s) {
  static const struct { const char *name; Space sp; } tab[] = {
    {".global", SP_GLOBAL}, {".shared", SP_SHARED}, {".shared::cta", SP_SHARED},
    {".shared::cluster", SP_SHARED}, {".local", SP_LOCAL}, {".const", SP_CONST},
    {".param", SP_PARAM}, {".param::entry", SP_PARAM}, {".param::func", SP_PARAM},
    {".tex", SP_TEX},
  };
  for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
    if (!strcmp(s, tab[k].name)) return tab[k].sp;
  return SP_NONE;
}

Space lower_space(const Insn *in) {
  for (int i = 0; i < in->nmods; i++) {
    Space sp = mod_space(in->mods[i]);
    if (sp != SP_NONE) return sp;
  }
  return SP_NONE;
}

/* ---- labels ---- */

static void add_fixup(Lower *L, uint32_t code, uint32_t *dst, const Symbol *label) {
  L->fix = grow(L, L->fix, &L->capfix, L->nfix + 1, sizeof *L->fix);
  L->fix[L->nfix++] = (Fixup){code, dst, label};
}

/* The branch target of the XInsn being selected (x) is `label`. */
void lower_branch_target(Lower *L, const Symbol *label) {
  add_fixup(L, L->ncode + (uint32_t)L->npre, NULL, label);
}

/* *dst (program-lifetime memory) receives the pc of `label`. */
void lower_label_pc(Lower *L, uint32_t *dst, const Symbol *label) {
  add_fixup(L, 0, dst, label);
}

static void resolve_fixups(Lower *L) {
  const Function *f = L->fn->f;
  for (uint32_t i = 0; i < L->nfix; i++) {
    Fixup *fx = &L->fix[i];
    int t = fx->label->target;
    if (t < 0 || t > f->ninsns) lower_fail(L, NULL, "label '%s' is not defined", fx->label->name);
    uint32_t pc = L->insn_pc[t];
    if (fx->dst) *fx->dst = pc;
    else L->code[fx->code].target = pc;
  }
  L->nfix = 0;
}

/* Index of function f for CTRL (call targets). */
int lower_func_index(Lower *L, const Function *f) { return func_def(L->p, f); }
const FuncInfo *lower_func_info(Lower *L, int i) { return &L->p->funcs[i]; }
/* Local-memory offset of a .param (or .local) variable of a frame. */
bool lower_var_offset(Lower *L, const Symbol *s, uint64_t *off) { return program_lookup_var(L->p, s, off); }

/* ---- instructions ---- */

static void emit(Lower *L, const XInsn *x) {
  L->code = grow(L, L->code, &L->capcode, L->ncode + 1, sizeof *L->code);
  L->code[L->ncode] = *x;
  L->code[L->ncode].fam = (uint8_t)op_info[x->op].family;
  L->code[L->ncode].fx = exec_effect(x);
  L->ncode++;
}

/* ---- refusals ----
 *
 * An instruction that its selector refuses (a form ptxvm cannot execute
 * yet, an operand shape it does not know) does not fail the module: the
 * message is recorded (Program.refusals), a trap takes the instruction's
 * place so pcs and labels stay right, and only the kernels that can reach
 * the function holding it are refused at launch (program_kernel_refusal;
 * reach: "shared memory per kernel" above, indirect calls included). */

/* The trap in place of a refused instruction. A launch refuses every kernel
 * that can reach it, so it runs only if that reasoning has a hole. */
HANDLER(exec_refused) {
  return exec_fault(w, x, mask ? __builtin_ctz(mask) : 0, "%s", (const char *)x->aux);
}

static void refuse_insn(Lower *L, const Insn *in) {
  Program *p = L->p;
  char *msg = arena_alloc(&p->arena, strlen(L->err) + 1);
  strcpy(msg, L->err);
  free(L->err);
  L->err = NULL;
  if (p->nrefusals == p->caprefusals) {
    int cap = p->caprefusals ? 2 * p->caprefusals : 8;
    Refusal *nr = realloc(p->refusals, (size_t)cap * sizeof *nr);
    if (!nr) lower_fail(L, NULL, "out of memory");
    p->refusals = nr;
    p->caprefusals = cap;
  }
  p->refusals[p->nrefusals++] = (Refusal){in, L->fi, msg};
  XInsn x;
  memset(&x, 0, sizeof x);
  x.fn = exec_refused;
  x.src = in;
  x.func = L->fn->f;
  x.op = in->op;
  x.guard = -1;
  x.aux = msg;
  emit(L, &x);
}

static void select_insn(Lower *L, const Insn *in) {
  XInsn x;
  memset(&x, 0, sizeof x);
  x.src = in;
  x.func = L->fn->f;
  x.op = in->op;
  x.type = in->ntypes > 0 ? in->types[0] : TY_NONE;
  x.type2 = in->ntypes > 1 ? in->types[1] : TY_NONE;
  x.vec = in->vec ? in->vec : 1;
  x.guard = in->guard ? (int32_t)L->fn->regmap[in->guard->slot] : -1;
  x.guard_neg = in->guard_neg;
  x.space = (uint8_t)lower_space(in);
  x.mods = lower_mods(in);
  Family fam = op_info[in->op].family;
  bool ok = false;
  switch (fam) {
#define X(f) case FAM_##f: ok = exec_select_##f(L, in, &x); break;
    FAMILIES(X)
#undef X
  default: break;
  }
  if (!ok) {
    char buf[256];
    lower_fail(L, in, "%s is not supported", insn_text(in, buf, sizeof buf));
  }
  for (int i = 0; i < L->npre; i++) emit(L, &L->pre[i]);
  emit(L, &x);
}

static void lower_insn(Lower *L, const Insn *in) {
  L->in = in;
  L->npre = 0;
  uint32_t nfix = L->nfix;
  L->catch_insn = true;
  if (setjmp(L->insn_jb)) {   /* the selector refused it: drop its fixups */
    L->catch_insn = false;
    L->nfix = nfix;
    refuse_insn(L, in);
    return;
  }
  select_insn(L, in);
  L->catch_insn = false;
}

static void lower_function(Lower *L, int i) {
  FuncInfo *fi = &L->p->funcs[i];
  const Function *f = fi->f;
  L->fi = i;
  L->fn = fi;
  fi->pc = L->ncode;
  if (!f->has_body) return;
  L->insn_pc = calloc((size_t)f->ninsns + 1, sizeof *L->insn_pc);
  if (!L->insn_pc) lower_fail(L, NULL, "out of memory");
  for (int k = 0; k < f->ninsns; k++) {
    L->insn_pc[k] = L->ncode;
    lower_insn(L, &f->insns[k]);
  }
  L->insn_pc[f->ninsns] = L->ncode;
  XInsn end;
  memset(&end, 0, sizeof end);
  end.fn = f->is_entry ? exec_exit_implicit : exec_ret_implicit;
  end.src = f->ninsns ? &f->insns[f->ninsns - 1] : NULL;
  end.func = f;
  end.op = f->is_entry ? OP_EXIT : OP_RET;
  end.guard = -1;
  emit(L, &end);
  L->in = NULL;
  resolve_fixups(L);
  free(L->insn_pc);
  L->insn_pc = NULL;
  fi->npc = L->ncode - fi->pc;
}

/* ---- program ---- */

/* The init image (what warp creation copies) from the slots' values; built
 * again after each program_lower, which adds constant slots. */
static void finish_image(Lower *L) {
  Program *p = L->p;
  uint32_t *i32 = calloc((size_t)L->n32 * WARP_SIZE + 1, sizeof *i32);
  uint64_t *i64 = calloc((size_t)L->n64 * WARP_SIZE + 1, sizeof *i64);
  uint32_t *ipred = calloc((size_t)L->npred + 1, sizeof *ipred);
  if (!i32 || !i64 || !ipred) {   /* the old image stays */
    free(i32); free(i64); free(ipred);
    lower_fail(L, NULL, "out of memory");
  }
  for (uint32_t s = 0; s < L->n32; s++)
    for (int l = 0; l < WARP_SIZE; l++) i32[(size_t)s * WARP_SIZE + (size_t)l] = L->i32[s];
  for (uint32_t s = 0; s < L->n64; s++)
    for (int l = 0; l < WARP_SIZE; l++) i64[(size_t)s * WARP_SIZE + (size_t)l] = L->i64[s];
  memcpy(ipred, L->ipred, L->npred * sizeof *ipred);
  free(p->init32); free(p->init64); free(p->initpred);
  p->n32 = L->n32;
  p->n64 = L->n64;
  p->npred = L->npred;
  p->init32 = i32;
  p->init64 = i64;
  p->initpred = ipred;
}

/* Phase 1: everything but code. */
static void layout(Lower *L) {
  Program *p = L->p;
  p->nfuncs = L->m->nfuncs;
  p->funcs = arena_alloc(&p->arena, (size_t)(p->nfuncs + 1) * sizeof *p->funcs);
  for (int i = 0; i < p->nfuncs; i++) p->funcs[i].f = L->m->funcs[i];
  new_slot(L, FILE32, 1);   /* slot 0 of every file: the sink `_` */
  new_slot(L, FILE64, 1);
  new_slot(L, FILEP, 1);
  p->fp_slot = new_slot(L, FILE32, 1);   /* per lane, set by the interpreter */
  p->sp_slot = new_slot(L, FILE32, 1);
  layout_vars(L);
  for (int i = 0; i < p->nfuncs; i++) p->funcs[i].refusal = -1;
}

/* Stable by function: the refusals of a later program_lower go among the
 * earlier ones, so the list stays in function order. */
static void sort_refusals(Program *p) {
  for (int i = 1; i < p->nrefusals; i++) {
    Refusal r = p->refusals[i];
    int k = i;
    for (; k > 0 && p->refusals[k - 1].func > r.func; k--) p->refusals[k] = p->refusals[k - 1];
    p->refusals[k] = r;
  }
}

/* Phase 2: the functions of want[] (NULL: all) not lowered yet, in order. */
static void lower_functions(Lower *L, const uint8_t *want) {
  Program *p = L->p;
  int n0 = p->nrefusals;
  /* registers first (a call reads its callee's .reg formals), and only
     for these functions: a warp's register file holds the slots of the
     functions lowered so far, not of the whole module */
  for (int i = 0; i < p->nfuncs; i++)
    if (!p->funcs[i].lowered && (!want || want[i])) layout_regs(L, &p->funcs[i]);
  for (int i = 0; i < p->nfuncs; i++) {
    if (p->funcs[i].lowered || (want && !want[i])) continue;
    lower_function(L, i);
    p->funcs[i].lowered = true;
  }
  L->fn = NULL;
  finish_image(L);   /* the last step that can fail: what follows cannot */
  if (p->nrefusals > n0) sort_refusals(p);
  for (int i = 0; i < p->nfuncs; i++) {
    FuncInfo *fi = &p->funcs[i];
    fi->refusal = -1;
    for (int pass = 0; pass < 2; pass++)   /* its own first, then its callees' */
      for (int r = 0; fi->reach && r < p->nrefusals && fi->refusal < 0; r++)
        if (pass ? fi->reach[p->refusals[r].func] : p->refusals[r].func == i) fi->refusal = r;
  }
  p->code = L->code;
  p->ncode = L->ncode;
}

static void lower_cleanup(Lower *L) {
  free(L->code); free(L->fix); free(L->consts);
  free(L->i32); free(L->i64); free(L->ipred); free(L->insn_pc);
}

/* Drops the lowering state once nothing is left to lower. */
static void lower_done(Program *p) {
  for (int i = 0; i < p->nfuncs; i++)
    if (!p->funcs[i].lowered) return;
  Lower *L = p->lower;
  L->code = NULL;   /* p->code owns it */
  lower_cleanup(L);
  free(L);
  p->lower = NULL;
}

/* Phase 1 under the module's one error exit; false with L->err set. */
static bool try_layout(Lower *L) {
  if (setjmp(L->jb)) return false;
  layout(L);
  finish_image(L);
  return true;
}

Program *program_layout(const Module *m, Device *dev, char **err) {
  Program *p = calloc(1, sizeof *p);
  Lower *L = calloc(1, sizeof *L);
  if (!p || !L) { free(p); free(L); *err = strdup("out of memory"); return NULL; }
  p->m = m;
  p->dev = dev;
  arena_init(&p->arena, &L->jb);
  L->p = p;
  L->m = m;
  p->lower = L;
  if (!try_layout(L)) {
    *err = L->err ? L->err : strdup("out of memory");
    L->err = NULL;
    program_free(p);
    return NULL;
  }
  p->arena.oom = NULL;
  return p;
}

/* Phase 2 for L->want; false with L->err set (NULL: out of memory). */
static bool try_lower(Lower *L) {
  if (setjmp(L->jb)) return false;
  lower_functions(L, L->want);
  return true;
}

bool program_lower(Program *p, const Function *kernel, char **err) {
  Lower *L = p->lower;
  *err = NULL;
  if (!L) return true;   /* everything is lowered */
  L->want = NULL;
  if (kernel) {
    int k = program_func_index(p, kernel);
    if (k < 0 || !p->funcs[k].reach) return true;   /* not a kernel with a body: nothing to run */
    L->want = p->funcs[k].reach;
  }
  uint32_t ncode = L->ncode;
  int nrefusals = p->nrefusals;
  p->arena.oom = &L->jb;
  bool ok = try_lower(L);
  p->arena.oom = NULL;
  if (!ok) {
    /* back to where this call began; constant slots it made stay in L,
       unused, and the init image is the previous one */
    *err = L->err;
    L->err = NULL;
    for (int i = 0; i < p->nfuncs; i++)
      if (p->funcs[i].lowered && p->funcs[i].pc >= ncode) p->funcs[i].lowered = false;
    L->ncode = ncode;
    L->nfix = 0;
    L->fn = NULL;
    L->in = NULL;
    L->catch_insn = false;
    free(L->insn_pc);
    L->insn_pc = NULL;
    p->nrefusals = nrefusals;
    p->code = L->code;
    p->ncode = L->ncode;
    return false;
  }
  lower_done(p);
  return true;
}

bool program_kernel_lowered(const Program *p, const Function *kernel) {
  int k = program_func_index(p, kernel);
  if (k < 0) return false;
  const FuncInfo *fi = &p->funcs[k];
  for (int i = 0; fi->reach && i < p->nfuncs; i++)
    if (fi->reach[i] && !p->funcs[i].lowered) return false;
  return fi->lowered;
}

bool program_uses_heap(const Program *p, const Function *kernel) {
  int k = program_func_index(p, kernel);
  const FuncInfo *fi = k >= 0 ? &p->funcs[k] : NULL;
  for (int i = 0; fi && fi->reach && i < p->nfuncs; i++) {
    const Function *f = p->funcs[i].f;
    if (fi->reach[i] && !f->has_body && (!strcmp(f->name, "malloc") || !strcmp(f->name, "free")))
      return true;
  }
  return false;
}

Program *program_build(const Module *m, Device *dev, char **err) {
  Program *p = program_layout(m, dev, err);
  if (!p) return NULL;
  if (!program_lower(p, NULL, err)) {
    if (!*err) *err = strdup("out of memory");
    program_free(p);
    return NULL;
  }
  return p;
}

void program_free(Program *p) {
  if (!p) return;
  for (int i = p->nvars - 1; i >= 0; i--) {   /* the device's list is by address: its end first */
    const Symbol *s = p->vars[i].sym;
    if ((s->space == SP_GLOBAL || s->space == SP_CONST) && p->dev)
      dev_free(p->dev, p->vars[i].addr);
  }
  if (p->lower) {
    if (p->lower->code == p->code) p->lower->code = NULL;
    lower_cleanup(p->lower);
    free(p->lower->err);
    free(p->lower);
  }
  free(p->vars);
  free(p->varhash);
  free(p->refusals);
  free(p->code);
  free(p->init32); free(p->init64); free(p->initpred);
  arena_free(&p->arena);
  free(p);
}

const Refusal *program_kernel_refusal(const Program *p, const Function *kernel) {
  int i = program_func_index(p, kernel);
  return i < 0 || p->funcs[i].refusal < 0 ? NULL : &p->refusals[p->funcs[i].refusal];
}

uint64_t program_static_shared(const Program *p, const Function *kernel) {
  int i = program_func_index(p, kernel);
  return i < 0 ? 0 : p->funcs[i].shared_base;
}

uint64_t program_static_shared_size(const Program *p, const Function *kernel) {
  int i = program_func_index(p, kernel);
  return i < 0 ? 0 : p->funcs[i].shared_static;
}

uint64_t program_var_addr(const Program *p, const Symbol *var) {
  uint64_t a = 0;
  if (!program_lookup_var(p, var, &a)) return 0;
  return (var->space == SP_GLOBAL || var->space == SP_CONST) ? a : 0;
}
