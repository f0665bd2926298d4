/* parse.c: recursive-descent parser for PTX ISA 9.0 modules (versions up to
 * the newest of targets.def).
 *
 * The parser reads tokens on demand (one token of lookahead) and builds the
 * module IR directly; there is no syntax tree in between. Declarations are
 * resolved while parsing, with a scope per block ({ } nests, as inline asm
 * produces), so every operand leaves the parser pointing at its Symbol.
 * Labels may be used before they are defined, and are scoped by { } block
 * as ptxas scopes them: inlined asm repeats its labels in sibling blocks.
 * A use names the label defined in the innermost block around it; uses are
 * resolved at the function's closing brace, where a label defined nowhere
 * visible is reported at its use. Each instruction is validated as soon as it is parsed
 * (validate.c), so errors come out in source order and the first one ends
 * the parse (STYLE.md §3).
 *
 * Grammar (§4 – §11 of the PTX ISA); each function carries its rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

/* ---- diagnostics ---- */

/* Is byte c quoted as itself? Control and non-ASCII bytes (a binary input)
 * are shown as \xNN, never sent raw to the terminal. */
static bool plain(unsigned char c) { return c == '\t' || (c >= 0x20 && c < 0x7f); }

static size_t put_text(char *out, size_t n, size_t cap, const char *s, size_t len) {
  for (size_t i = 0; i < len && n + 5 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    if (plain(c)) out[n++] = (char)c;
    else n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
  }
  return n;
}

static void vdiag(Parser *P, uint32_t line, uint32_t col, uint32_t width,
                  const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
static void vdiag(Parser *P, uint32_t line, uint32_t col, uint32_t width,
                  const char *fmt, va_list ap) {
  /* find the source line to quote */
  const char *s = P->src, *end = P->src + P->srclen;
  for (uint32_t l = 1; l < line && s < end; s++)
    if (*s == '\n') l++;
  const char *e = s;
  while (e < end && *e != '\n' && *e != '\r') e++;
  size_t linelen = (size_t)(e - s);
  if (linelen > 300) linelen = 300;

  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  const char *path = P->m ? P->m->path : "";
  size_t cap = strlen(path) + 4 * strlen(msg) + 8 * linelen + 400;
  char *out = malloc(cap);
  if (!out) return;
  size_t n = (size_t)snprintf(out, cap, "%s:%u:%u: error: ", path, line, col);
  n = put_text(out, n, cap, msg, strlen(msg));
  n += (size_t)snprintf(out + n, cap - n, "\n    ");
  n = put_text(out, n, cap, s, linelen);
  n += (size_t)snprintf(out + n, cap - n, "\n    ");
  for (uint32_t i = 1; i < col && i <= linelen && n + 6 < cap; i++) {
    unsigned char c = (unsigned char)s[i - 1];
    int w = plain(c) ? 1 : 4;
    while (w--) out[n++] = c == '\t' ? '\t' : ' ';
  }
  if (n + 2 < cap) out[n++] = '^';
  for (uint32_t i = 1; i < width && i < 60 && n + 2 < cap; i++) out[n++] = '~';
  out[n++] = '\n';
  out[n] = 0;
  free(P->msg);
  P->msg = out;
}

void diag_error(Parser *P, uint32_t line, uint32_t col, uint32_t width,
                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(P, line, col, width, fmt, ap);
  va_end(ap);
  longjmp(P->jb, 1);
}

void diag_error_tok(Parser *P, const Token *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdiag(P, t->line, t->col, t->len ? t->len : 1, fmt, ap);
  va_end(ap);
  longjmp(P->jb, 1);
}

/* ---- tokens ---- */

static void next(Parser *P) {
  if (P->has_ahead) {
    P->tok = P->ahead;
    P->has_ahead = false;
  } else {
    P->tok = lex_next(&P->lex);
  }
}

static const Token *peek(Parser *P) {
  if (!P->has_ahead) {
    P->ahead = lex_next(&P->lex);
    P->has_ahead = true;
  }
  return &P->ahead;
}

static bool tok_is(const Token *t, TokKind k, const char *s) {
  return t->kind == k && strlen(s) == t->len && !memcmp(t->s, s, t->len);
}
static bool is_punct(Parser *P, char c) {
  return P->tok.kind == TK_PUNCT && P->tok.s[0] == c;
}
static bool is_dot(Parser *P, const char *s) { return tok_is(&P->tok, TK_DOT, s); }

static bool accept_punct(Parser *P, char c) {
  if (!is_punct(P, c)) return false;
  next(P);
  return true;
}

static const char *tok_desc(const Token *t) {
  switch (t->kind) {
  case TK_EOF: return "end of file";
  case TK_IDENT: return "name";
  case TK_DOT: return "directive";
  case TK_INT: return "integer";
  case TK_FLOAT: return "floating-point constant";
  case TK_STRING: return "string";
  default: return "punctuation";
  }
}

static _Noreturn void unexpected(Parser *P, const char *wanted) {
  if (P->tok.kind == TK_EOF)
    diag_error_tok(P, &P->tok, "expected %s before end of file", wanted);
  diag_error_tok(P, &P->tok, "expected %s, found %s '%.*s'", wanted,
                 tok_desc(&P->tok), (int)P->tok.len, P->tok.s);
}

static void expect_punct(Parser *P, char c, const char *what) {
  if (!accept_punct(P, c)) {
    char w[64];
    snprintf(w, sizeof w, "'%c'%s%s", c, what ? " " : "", what ? what : "");
    unexpected(P, w);
  }
}

/* '(' ... ')' and '{' ... '}' mismatches name the opener when it is on
 * another line (Lua's check_match). */
static void expect_close(Parser *P, char c, const Token *open) {
  if (accept_punct(P, c)) return;
  if (P->tok.line != open->line) {
    char w[80];
    snprintf(w, sizeof w, "'%c' (to close '%c' at line %u)", c, open->s[0], open->line);
    unexpected(P, w);
  }
  char w[8] = {'\'', c, '\'', 0};
  unexpected(P, w);
}

static char *tok_str(Parser *P, const Token *t) {
  return arena_strndup(&P->m->arena, t->s, t->len);
}

static uint64_t expect_uint(Parser *P, const char *what) {
  if (P->tok.kind != TK_INT) unexpected(P, what);
  uint64_t v = P->tok.ival;
  next(P);
  return v;
}

/* Nesting ({ } blocks, braced initializers, operand lists, d|p chains) is
 * parsed by recursion; this bound keeps hostile input off the end of the
 * C stack (a fuzzer finding: 200000 '{' crashed the process). */
enum { MAX_NEST = 1000 };

static void check_nesting(Parser *P, const Token *at, int depth) {
  if (depth > MAX_NEST)
    diag_error_tok(P, at, "nested more than %d levels deep", MAX_NEST);
}

/* ---- scopes: open-addressing hash tables of Symbols by name ---- */

/* A parameterized register declaration %r<N>, kept as a range: a name
 * %rK (K < N, decimal, no leading zero) becomes a Symbol, and gets a register
 * slot, when it is first used, so declaring many registers costs nothing. */
typedef struct RegRange {
  struct RegRange *next;
  const char *prefix;
  uint32_t plen;
  uint64_t count;
  Space space;
  Type type;
  uint8_t vec;
  uint32_t line, col;
} RegRange;

struct Scope {
  Scope *parent;
  Symbol **slot;
  uint32_t cap, n;
  RegRange *ranges;
};

static uint32_t hash_name(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static Scope *scope_new(Parser *P, Scope *parent) {
  Scope *s = arena_alloc(&P->m->arena, sizeof *s);
  s->parent = parent;
  s->cap = 16;
  s->slot = arena_alloc(&P->m->arena, s->cap * sizeof *s->slot);
  return s;
}

static Symbol *scope_get(const Scope *s, const char *name, size_t n) {
  uint32_t i = hash_name(name, n) & (s->cap - 1);
  for (Symbol *sym; (sym = s->slot[i]); i = (i + 1) & (s->cap - 1))
    if (!strncmp(sym->name, name, n) && sym->name[n] == 0) return sym;
  return NULL;
}

static void scope_put(Parser *P, Scope *s, Symbol *sym) {
  if (2 * (s->n + 1) > s->cap) {   /* keep the load under one half */
    Symbol **old = s->slot;
    uint32_t oldcap = s->cap;
    s->cap *= 2;
    s->slot = arena_alloc(&P->m->arena, s->cap * sizeof *s->slot);
    for (uint32_t i = 0; i < oldcap; i++)
      if (old[i]) {
        uint32_t j = hash_name(old[i]->name, strlen(old[i]->name)) & (s->cap - 1);
        while (s->slot[j]) j = (j + 1) & (s->cap - 1);
        s->slot[j] = old[i];
      }
  }
  uint32_t j = hash_name(sym->name, strlen(sym->name)) & (s->cap - 1);
  while (s->slot[j]) j = (j + 1) & (s->cap - 1);
  s->slot[j] = sym;
  s->n++;
}

static void add_reg(Parser *P, Symbol *s);

/* Is name (n bytes) register K of range r? */
static bool range_has(const RegRange *r, const char *name, size_t n) {
  if (n <= r->plen || memcmp(name, r->prefix, r->plen)) return false;
  const char *d = name + r->plen;
  size_t nd = n - r->plen;
  if (nd > 19 || (d[0] == '0' && nd > 1)) return false;
  uint64_t k = 0;
  for (size_t i = 0; i < nd; i++) {
    if (d[i] < '0' || d[i] > '9') return false;
    k = k * 10 + (uint64_t)(d[i] - '0');
  }
  return k < r->count;
}

/* The symbol `name` declares in scope s: declared by name, or a register of
 * one of its ranges (made into a Symbol now). */
static Symbol *scope_find(Parser *P, Scope *s, const char *name, size_t n) {
  Symbol *sym = scope_get(s, name, n);
  if (sym) return sym;
  for (const RegRange *r = s->ranges; r; r = r->next) {
    if (!range_has(r, name, n)) continue;
    sym = arena_alloc(&P->m->arena, sizeof *sym);
    sym->kind = SYM_REG;
    sym->name = arena_strndup(&P->m->arena, name, n);
    sym->space = r->space;
    sym->type = r->type;
    sym->vec = r->vec;
    sym->target = -1;
    sym->line = r->line;
    sym->col = r->col;
    sym->size = (uint64_t)type_size(r->type) * r->vec;
    scope_put(P, s, sym);
    add_reg(P, sym);
    return sym;
  }
  return NULL;
}

static Symbol *lookup(Parser *P, const char *name, size_t n) {
  for (Scope *s = P->scope; s; s = s->parent) {
    Symbol *sym = scope_find(P, s, name, n);
    if (sym) return sym;
  }
  return NULL;
}

/* Declares `sym` in the innermost scope; a name declared twice in one scope
 * is an error (§5.4: names are unique within their scope). */
static void declare(Parser *P, Symbol *sym, const Token *at) {
  Symbol *old = scope_find(P, P->scope, sym->name, strlen(sym->name));
  if (old) {
    if (old->kind == SYM_FUNC && sym->kind == SYM_FUNC) return;  /* handled by caller */
    diag_error(P, at->line, at->col, at->len, "'%s' is already declared at line %u",
               sym->name, old->line);
  }
  scope_put(P, P->scope, sym);
}

static Symbol *new_symbol(Parser *P, SymKind kind, const char *name, const Token *at) {
  Symbol *s = arena_alloc(&P->m->arena, sizeof *s);
  s->kind = kind;
  s->name = name;
  s->vec = 1;
  s->target = -1;
  s->line = at->line;
  s->col = at->col;
  return s;
}

/* ---- special registers (§10) ---- */

static const struct { const char *name; Type type; int comps; } sregs[] = {
  /* .v4 .u32 registers: .w reads as 0 (PTX ISA 9.0 §10.2-10.13) */
  {"%tid", TY_U32, 4}, {"%ntid", TY_U32, 4}, {"%ctaid", TY_U32, 4},
  {"%nctaid", TY_U32, 4}, {"%clusterid", TY_U32, 4}, {"%nclusterid", TY_U32, 4},
  {"%cluster_ctaid", TY_U32, 4}, {"%cluster_nctaid", TY_U32, 4},
  {"%laneid", TY_U32, 0}, {"%warpid", TY_U32, 0}, {"%nwarpid", TY_U32, 0},
  {"%smid", TY_U32, 0}, {"%nsmid", TY_U32, 0}, {"%gridid", TY_U64, 0},
  {"%cluster_ctarank", TY_U32, 0}, {"%cluster_nctarank", TY_U32, 0},
  {"%is_explicit_cluster", TY_PRED, 0},
  {"%lanemask_eq", TY_U32, 0}, {"%lanemask_le", TY_U32, 0},
  {"%lanemask_lt", TY_U32, 0}, {"%lanemask_ge", TY_U32, 0},
  {"%lanemask_gt", TY_U32, 0}, {"%clock", TY_U32, 0}, {"%clock_hi", TY_U32, 0},
  {"%clock64", TY_U64, 0}, {"%globaltimer", TY_U64, 0},
  {"%globaltimer_lo", TY_U32, 0}, {"%globaltimer_hi", TY_U32, 0},
  {"%dynamic_smem_size", TY_U32, 0}, {"%total_smem_size", TY_U32, 0},
  {"%aggr_smem_size", TY_U32, 0}, {"%reserved_smem_offset_begin", TY_B32, 0},
  {"%reserved_smem_offset_end", TY_B32, 0}, {"%reserved_smem_offset_cap", TY_B32, 0},
  {"%current_graph_exec", TY_U64, 0},
};

static void declare_sregs(Parser *P) {
  Token at = {.line = 0, .col = 0};
  for (size_t i = 0; i < sizeof sregs / sizeof sregs[0]; i++) {
    Symbol *s = new_symbol(P, SYM_SREG, sregs[i].name, &at);
    s->type = sregs[i].type;
    s->space = SP_SREG;
    s->sreg_comps = sregs[i].comps;
    scope_put(P, P->scope, s);
  }
  char buf[48];   /* %pm0..7, %pm0_64..7, %envreg0..31, %reserved_smem_offset_0..1 */
  for (int i = 0; i < 32; i++) {
    snprintf(buf, sizeof buf, "%%envreg%d", i);
    Symbol *s = new_symbol(P, SYM_SREG, arena_strndup(&P->m->arena, buf, strlen(buf)), &at);
    s->type = TY_B32;
    s->space = SP_SREG;
    scope_put(P, P->scope, s);
    if (i < 8) {
      snprintf(buf, sizeof buf, "%%pm%d", i);
      s = new_symbol(P, SYM_SREG, arena_strndup(&P->m->arena, buf, strlen(buf)), &at);
      s->type = TY_U32;
      s->space = SP_SREG;
      scope_put(P, P->scope, s);
      snprintf(buf, sizeof buf, "%%pm%d_64", i);
      s = new_symbol(P, SYM_SREG, arena_strndup(&P->m->arena, buf, strlen(buf)), &at);
      s->type = TY_U64;
      s->space = SP_SREG;
      scope_put(P, P->scope, s);
    }
    if (i < 2) {
      snprintf(buf, sizeof buf, "%%reserved_smem_offset_%d", i);
      s = new_symbol(P, SYM_SREG, arena_strndup(&P->m->arena, buf, strlen(buf)), &at);
      s->type = TY_B32;
      s->space = SP_SREG;
      scope_put(P, P->scope, s);
    }
  }
}

/* ---- declarations ---- */

static Space space_of(const Token *t) {
  if (t->kind != TK_DOT) return SP_NONE;
  for (int s = SP_REG; s < SP_COUNT; s++)
    if (s != SP_SREG && s != SP_GENERIC && strlen(space_name((Space)s)) + 1 == t->len &&
        !memcmp(t->s + 1, space_name((Space)s), t->len - 1))
      return (Space)s;
  if (tok_is(t, TK_DOT, ".shared::cta")) return SP_SHARED;
  return SP_NONE;
}

static Type type_of(const Token *t) {
  return t->kind == TK_DOT ? type_lookup(t->s + 1, (int)t->len - 1) : TY_NONE;
}

/* Attributes of a declaration that precede the name, in any order:
 *   decl-attrs := ( space | .align N | .vN | type | .ptr | .attribute(...) )* */
typedef struct DeclAttrs {
  Space space, ptr_space;
  Type type;
  uint32_t align, ptr_align;
  uint8_t vec;
  bool ptr;
  bool managed;            /* .attribute(.managed) */
  Token first, vtok;       /* the first attribute; the .vN */
  Token attr;              /* the .attribute */
} DeclAttrs;

/* attr-list := '(' attr (',' attr)* ')', attr := .managed | .unified '(' int ',' int ')'
 * (PTX ISA §5.4.8, variable attributes). */
static void parse_var_attributes(Parser *P, DeclAttrs *d) {
  Token open = P->tok;
  expect_punct(P, '(', "after .attribute");
  do {
    Token t = P->tok;
    if (tok_is(&t, TK_DOT, ".managed")) {
      d->managed = true;
      next(P);
    } else if (tok_is(&t, TK_DOT, ".unified")) {
      diag_error_tok(P, &t, ".attribute(.unified) is not implemented (ptxvm places a variable at one address "
                     "for host and device only as .attribute(.managed))");
    } else {
      unexpected(P, "a variable attribute (.managed or .unified)");
    }
  } while (accept_punct(P, ','));
  expect_close(P, ')', &open);
}

static void parse_decl_attrs(Parser *P, DeclAttrs *d) {
  memset(d, 0, sizeof *d);
  d->vec = 1;
  d->first = P->tok;
  while (P->tok.kind == TK_DOT) {
    Token t = P->tok;
    Space sp = space_of(&t);
    Type ty = type_of(&t);
    if (sp != SP_NONE) {
      if (d->ptr) d->ptr_space = sp;
      else if (d->space != SP_NONE)
        diag_error_tok(P, &t, "a declaration has one state space");
      else d->space = sp;
      next(P);
    } else if (ty != TY_NONE) {
      if (d->type != TY_NONE) diag_error_tok(P, &t, "a declaration has one type");
      d->type = ty;
      next(P);
    } else if (tok_is(&t, TK_DOT, ".align")) {
      next(P);
      Token nt = P->tok;
      uint64_t a = expect_uint(P, "an alignment");
      if (a == 0 || (a & (a - 1)) || a > (1u << 20))
        diag_error_tok(P, &nt, "alignment must be a power of two");
      if (d->ptr) d->ptr_align = (uint32_t)a; else d->align = (uint32_t)a;
    } else if (tok_is(&t, TK_DOT, ".v2") || tok_is(&t, TK_DOT, ".v4") ||
               tok_is(&t, TK_DOT, ".v8")) {
      if (d->type != TY_NONE)   /* ptxas: a syntax error */
        diag_error_tok(P, &t, "'%.*s' must come before the type (.v2 .b32, not .b32 .v2)",
                       (int)t.len, t.s);
      d->vec = (uint8_t)(t.s[2] - '0');
      d->vtok = t;
      next(P);
    } else if (tok_is(&t, TK_DOT, ".ptr")) {
      d->ptr = true;
      next(P);
    } else if (tok_is(&t, TK_DOT, ".attribute")) {
      d->attr = t;
      next(P);
      parse_var_attributes(P, d);
    } else {
      break;
    }
  }
}

static void finish_size(Symbol *s) {
  uint64_t n = (uint64_t)(type_size(s->type) ? type_size(s->type) : 1) * s->vec;
  for (int i = 0; i < s->ndims; i++) n *= s->dims[i];
  s->size = n;
}

/* init-elem := ['-'] number | name ['+' int] | generic '(' name ')' ['+' int]
 *            | int '(' name ['+' int] ')'          (byte-mask form, §5.4.4) */
typedef VEC(InitElem) InitVec;

static void parse_init_elem(Parser *P, InitVec *out, Type t) {
  InitElem e = {.line = P->tok.line, .col = P->tok.col, .mask_shift = -1};
  bool neg = accept_punct(P, '-');
  TypeKind k = type_kind(t);   /* ptxas: "Initial value type mismatch" */
  if (P->tok.kind == TK_FLOAT && (k == K_U || k == K_S))
    diag_error_tok(P, &P->tok, "floating-point initializer for a .%s variable", type_name(t));
  if (P->tok.kind == TK_INT && k == K_F && !tok_is(peek(P), TK_PUNCT, "("))
    diag_error_tok(P, &P->tok, "integer initializer for a .%s variable (write 1.0 or 0f3F800000)",
                   type_name(t));
  if (P->tok.kind == TK_INT && tok_is(peek(P), TK_PUNCT, "(")) {
    uint64_t mask = P->tok.ival;
    int shift = 0;
    while (shift < 64 && ((mask >> shift) & 0xff) == 0) shift += 8;
    if (shift >= 64 || mask != (uint64_t)0xff << shift)
      diag_error_tok(P, &P->tok, "address mask must be 0xFF shifted by whole bytes");
    e.mask_shift = shift / 8;
    next(P);
    next(P);
    goto name;
  }
  if (P->tok.kind == TK_INT) {
    e.kind = INIT_INT;
    e.ival = neg ? -(int64_t)P->tok.ival : (int64_t)P->tok.ival;
    next(P);
  } else if (P->tok.kind == TK_FLOAT) {
    e.kind = INIT_FLOAT;
    e.fval = neg ? -P->tok.fval : P->tok.fval;
    next(P);
  } else if (P->tok.kind == TK_IDENT && tok_is(&P->tok, TK_IDENT, "generic") &&
             tok_is(peek(P), TK_PUNCT, "(")) {
    e.generic = true;
    next(P);
    next(P);
  name:
    if (P->tok.kind != TK_IDENT) unexpected(P, "a variable name");
    e.sym = lookup(P, P->tok.s, P->tok.len);
    if (!e.sym || (e.sym->kind != SYM_VAR && e.sym->kind != SYM_FUNC))
      diag_error_tok(P, &P->tok, "'%.*s' is not a declared variable or function",
                     (int)P->tok.len, P->tok.s);
    e.sym->used = true;
    next(P);
    e.kind = INIT_ADDR;
    if (e.mask_shift >= 0 && accept_punct(P, '+')) e.ival = (int64_t)expect_uint(P, "an offset");
    expect_punct(P, ')', NULL);
    if (accept_punct(P, '+')) e.ival += (int64_t)expect_uint(P, "an offset");
  } else if (P->tok.kind == TK_IDENT) {
    if (neg) unexpected(P, "a number");
    e.kind = INIT_ADDR;
    e.sym = lookup(P, P->tok.s, P->tok.len);
    if (!e.sym || (e.sym->kind != SYM_VAR && e.sym->kind != SYM_FUNC))
      diag_error_tok(P, &P->tok, "'%.*s' is not a declared variable or function",
                     (int)P->tok.len, P->tok.s);
    e.sym->used = true;
    next(P);
    if (accept_punct(P, '+')) e.ival = (int64_t)expect_uint(P, "an offset");
  } else {
    unexpected(P, "an initializer value");
  }
  vec_push(&P->m->arena, *out, e);
}

/* The size of brace level `level` of s's initializer: one level per array
 * dimension, then one for a vector (0: the unsized first dimension). */
static uint64_t init_level_size(const Symbol *s, int level) {
  return level < s->ndims ? s->dims[level] : s->vec;
}

/* init := '{' init (',' init)* '}' | init-elem
 * The braces follow the declared shape, as ptxas requires: a list per
 * level, elements at the last. A short inner list is padded with zeros, so
 * the flat list keeps the elements at their places. */
static void parse_init(Parser *P, InitVec *out, const Symbol *s, int level) {
  int nlevels = s->ndims + (s->vec > 1);
  if (level == nlevels) {
    if (is_punct(P, '{'))
      diag_error_tok(P, &P->tok, "too many levels of braces in the initializer of '%s'",
                     s->name);
    parse_init_elem(P, out, s->type);
    return;
  }
  if (!is_punct(P, '{')) unexpected(P, "'{' (the initializer follows the array's shape)");
  Token open = P->tok;
  check_nesting(P, &open, level);
  next(P);
  uint64_t size = init_level_size(s, level), n = 0;
  do {
    if (level > 0 && n == size)   /* the first level is checked by the caller */
      diag_error_tok(P, &P->tok, "too many initializers in a list of %llu for '%s'",
                     (unsigned long long)size, s->name);
    parse_init(P, out, s, level + 1);
    n++;
  } while (accept_punct(P, ','));
  expect_close(P, '}', &open);
  if (level == 0) return;
  uint64_t pad = size - n;
  for (int l = level + 1; l < nlevels; l++) pad *= init_level_size(s, l);
  if ((uint64_t)out->n + pad > (1u << 24))
    diag_error_tok(P, &open, "initializer of '%s' too large", s->name);
  InitElem zero = {.kind = INIT_INT, .line = open.line, .col = open.col, .mask_shift = -1};
  for (uint64_t i = 0; i < pad; i++) vec_push(&P->m->arena, *out, zero);
}

/* One declared name with its array dimensions and initializer:
 *   declarator := name ('<' N '>')? ('[' N? ']')* ('=' init)?
 * A parameterized name %r<N> declares %r0 .. %r(N-1) (§5.4.1). */
static void parse_declarator(Parser *P, const DeclAttrs *d, SymKind kind,
                             void (*add)(Parser *, Symbol *)) {
  if (P->tok.kind != TK_IDENT) unexpected(P, "a name");
  Token nt = P->tok;
  next(P);
  if (is_punct(P, '<')) {
    next(P);
    Token ct = P->tok;
    uint64_t n = expect_uint(P, "a register count");
    expect_punct(P, '>', NULL);
    if (n > 1000000) diag_error_tok(P, &ct, "too many registers in one declaration");
    if (kind != SYM_REG || !P->fb) diag_error_tok(P, &nt, "only registers take a <N> count");
    for (const RegRange *r = P->scope->ranges; r; r = r->next)
      if (r->plen == nt.len && !memcmp(r->prefix, nt.s, nt.len))
        diag_error_tok(P, &nt, "'%.*s<N>' is already declared at line %u", (int)nt.len, nt.s,
                       r->line);
    RegRange *r = arena_alloc(&P->m->arena, sizeof *r);
    r->prefix = tok_str(P, &nt);
    r->plen = nt.len;
    r->count = n;
    r->space = d->space;
    r->type = d->type;
    r->vec = d->vec;
    r->line = nt.line;
    r->col = nt.col;
    r->next = P->scope->ranges;
    P->scope->ranges = r;
    return;
  }
  Symbol *s = new_symbol(P, kind, tok_str(P, &nt), &nt);
  s->space = d->space;
  s->type = d->type;
  s->vec = d->vec;
  s->align = d->align;
  s->is_managed = d->managed;
  while (is_punct(P, '[')) {
    Token open = P->tok;
    next(P);
    if (s->ndims == 4) diag_error_tok(P, &open, "too many array dimensions");
    if (is_punct(P, ']')) {
      if (s->ndims) diag_error_tok(P, &P->tok, "only the first dimension may be left empty");
      s->is_unsized = true;
      s->dims[s->ndims++] = 0;
    } else {
      Token dt = P->tok;
      uint64_t n = expect_uint(P, "an array size");
      uint64_t prod = 1;   /* earlier dimensions: at most 2^40 elements in all, no wrap */
      for (int i = 0; i < s->ndims; i++) prod *= s->dims[i] ? s->dims[i] : 1;
      if (n == 0 || n > (1ull << 40) / prod) diag_error_tok(P, &dt, "array size out of range");
      s->dims[s->ndims++] = n;
    }
    expect_close(P, ']', &open);
  }
  if (accept_punct(P, '=')) {
    if (kind == SYM_REG || d->space == SP_SHARED || d->space == SP_LOCAL || d->space == SP_PARAM)
      diag_error_tok(P, &nt, "variables in .%s cannot be initialized", space_name(d->space));
    if (s->type == TY_F16 || s->type == TY_F16X2 || s->type == TY_BF16 || s->type == TY_BF16X2)
      diag_error_tok(P, &nt, "a .%s variable cannot be initialized (ptxas allows no initial "
                     "value for half-precision types)", type_name(s->type));
    InitVec init = {0};
    parse_init(P, &init, s, 0);
    s->init = init.v;
    s->ninit = init.n;
    s->has_init = true;
    if (s->is_unsized) {
      uint64_t per = s->vec;
      for (int i = 1; i < s->ndims; i++) per *= s->dims[i];
      s->dims[0] = ((uint64_t)init.n + per - 1) / per;
      s->is_unsized = false;
    }
  }
  finish_size(s);
  if (s->has_init) {
    uint64_t elems = s->vec;
    for (int i = 0; i < s->ndims; i++) elems *= s->dims[i];
    if ((uint64_t)s->ninit > elems)
      diag_error(P, nt.line, nt.col, nt.len, "too many initializers for '%s' (%llu elements)",
                 s->name, (unsigned long long)elems);
  }
  declare(P, s, &nt);
  add(P, s);
}

static void check_decl_attrs(Parser *P, const DeclAttrs *d) {
  /* §5.4.2: vector variables are .v2 or .v4 (.v8 is only an instruction
   * modifier) of a non-predicate type */
  if (d->vec == 8)
    diag_error_tok(P, &d->vtok, "a vector variable has 2 or 4 elements (.v2 or .v4, §5.4.2)");
  if (d->vec > 1 && d->type == TY_PRED)
    diag_error_tok(P, &d->vtok, "a predicate cannot be a vector: predicates are scalar registers "
                   "(§5.4.2)");
  if (d->type == TY_NONE)
    diag_error_tok(P, &P->tok, "declaration needs a type such as .u32");
  if (d->type == TY_PRED && d->space != SP_REG)
    diag_error_tok(P, &d->first, "predicates can only be declared in .reg (§5.4.1)");
  if (d->vec > 1 && d->vec * type_size(d->type) > 16)
    diag_error_tok(P, &d->first, "vectors cannot exceed 128 bits (§5.4.2)");
  if (d->vec > 1 && d->space == SP_PARAM)   /* ptxas: "cannot be allocated in .param" */
    diag_error_tok(P, &d->first, "a .param variable cannot be a vector (pass .align N .b8 x[N])");
  if (d->managed && d->space != SP_GLOBAL)
    diag_error_tok(P, &d->attr, ".attribute(.managed) applies only to variables in .global (PTX ISA §5.4.8)");
  if (d->managed && P->m->ver_major * 10 + P->m->ver_minor < 40)
    diag_error_tok(P, &d->attr, ".attribute(.managed) requires PTX ISA version 4.0 or higher (this module is "
                   "%d.%d)", P->m->ver_major, P->m->ver_minor);
}

/* An array without a size is an .extern declaration or sized by its
 * initializer (ptxas: "Non-external variable has incomplete type"). */
static void check_sized(Parser *P, const Symbol *s) {
  if (s->is_unsized && !s->is_extern)
    diag_error(P, s->line, s->col, (uint32_t)strlen(s->name),
               "array '%s' without a size must be .extern or initialized", s->name);
}

static void add_global(Parser *P, Symbol *s) { vec_push(&P->m->arena, P->globals, s); }

static void add_reg(Parser *P, Symbol *s) {
  s->slot = P->fb->regs.n;
  vec_push(&P->m->arena, P->fb->regs, s);
}
static void add_var(Parser *P, Symbol *s) { vec_push(&P->m->arena, P->fb->vars, s); }
static void add_param(Parser *P, Symbol *s) { vec_push(&P->m->arena, P->fb->params, s); }
static void add_ret(Parser *P, Symbol *s) { vec_push(&P->m->arena, P->fb->rets, s); }

/* decl := decl-attrs declarator (',' declarator)* ';' */
static void parse_local_decl(Parser *P) {
  DeclAttrs d;
  parse_decl_attrs(P, &d);
  check_decl_attrs(P, &d);
  SymKind kind = d.space == SP_REG ? SYM_REG : SYM_VAR;
  if (d.space == SP_NONE) diag_error_tok(P, &d.first, "declaration needs a state space");
  do {
    int nvars = P->fb->vars.n;
    parse_declarator(P, &d, kind, kind == SYM_REG ? add_reg : add_var);
    if (P->fb->vars.n > nvars) check_sized(P, P->fb->vars.v[nvars]);
  } while (accept_punct(P, ','));
  expect_punct(P, ';', "after declaration");
}

/* ---- operands ---- */

static int comp_index(const Token *t) {
  if (t->kind != TK_DOT || t->len != 2) return -1;
  switch (t->s[1]) {
  case 'x': case 'r': return 0;
  case 'y': case 'g': return 1;
  case 'z': case 'b': return 2;
  case 'w': case 'a': return 3;
  }
  return -1;
}

/* A name used as an operand: a register, variable, function, or label.
 * Unknown names become labels of the function, to be defined later. */
static void parse_name_operand(Parser *P, Operand *o) {
  Token t = P->tok;
  next(P);
  if (tok_is(&t, TK_IDENT, "_")) {
    o->kind = OPD_SINK;
    return;
  }
  Symbol *s = lookup(P, t.s, t.len);
  if (!s && P->labels) {
    s = scope_get(P->labels, t.s, t.len);
    if (!s) {
      s = new_symbol(P, SYM_LABEL, tok_str(P, &t), &t);
      scope_put(P, P->labels, s);
      vec_push(&P->m->arena, P->fb->labels, s);
    }
  }
  if (!s) diag_error_tok(P, &t, "'%.*s' is not declared", (int)t.len, t.s);
  if (s->kind == SYM_LABEL && P->fb) {
    LabelUse u = {s, NULL, P->fb->block, t.line, t.col};
    vec_push(&P->m->arena, P->fb->label_uses, u);
  }
  s->used = true;
  o->sym = s;
  o->kind = (s->kind == SYM_REG || s->kind == SYM_SREG) ? OPD_REG : OPD_SYM;
  /* .x .y .z .w directly after a vector register or special register; a
   * vector variable in memory has none (ptxas: "syntax error") */
  bool comp = P->tok.kind == TK_DOT && !P->tok.space_before && comp_index(&P->tok) >= 0;
  if (comp && s->kind == SYM_VAR && s->vec > 1)
    diag_error_tok(P, &P->tok, "'%s' is a vector variable in .%s: only vector registers have "
                   "components (address its elements as %s+N)", s->name, space_name(s->space),
                   s->name);
  if (comp && (s->kind == SYM_SREG || (s->kind == SYM_REG && s->vec > 1))) {
    o->comp = (int8_t)comp_index(&P->tok);
    int ncomp = s->kind == SYM_SREG ? s->sreg_comps : s->vec;
    if (o->comp >= ncomp)
      diag_error_tok(P, &P->tok, "'%s' has no component %.*s", s->name,
                     (int)P->tok.len, P->tok.s);
    next(P);
  } else if (s->kind == SYM_SREG && s->sreg_comps && !P->whole_sregs) {
    diag_error_tok(P, &t, "'%s' needs a component such as %s.x", s->name, s->name);
  }
  if (o->kind == OPD_SYM && (is_punct(P, '+') || is_punct(P, '-'))) {
    bool neg = is_punct(P, '-');
    next(P);
    int64_t v = (int64_t)expect_uint(P, "an offset");
    o->ival = neg ? -v : v;
  }
}

static void parse_operand(Parser *P, Operand *o, int depth);

/* list := open operand (',' operand)* close; for { } and ( ) */
static void parse_list(Parser *P, Operand *o, OpdKind kind, char close, int depth) {
  Token open = P->tok;
  check_nesting(P, &open, depth);
  next(P);
  VEC(Operand) elems = {0};
  if (!is_punct(P, close)) {
    do {
      Operand e;
      parse_operand(P, &e, depth + 1);
      vec_push(&P->m->arena, elems, e);
    } while (accept_punct(P, ','));
  }
  expect_close(P, close, &open);
  if (elems.n > 255) diag_error_tok(P, &open, "too many elements");
  o->kind = (uint8_t)kind;
  o->elems = elems.v;
  o->n = (uint8_t)elems.n;
}

/* address := '[' (name | int | name ('+'|'-') int | operand (',' operand)*) ']' */
static void parse_address(Parser *P, Operand *o, int depth) {
  Token open = P->tok;
  check_nesting(P, &open, depth);
  next(P);
  o->kind = OPD_ADDR;
  if (P->tok.kind == TK_INT || is_punct(P, '-')) {
    bool neg = accept_punct(P, '-');
    int64_t v = (int64_t)expect_uint(P, "an address");
    o->ival = neg ? -v : v;
    expect_close(P, ']', &open);
    return;
  }
  if (P->tok.kind != TK_IDENT) unexpected(P, "an address");
  Operand base;
  memset(&base, 0, sizeof base);
  base.comp = -1;
  base.col = P->tok.col;
  parse_name_operand(P, &base);
  if (base.kind == OPD_SYM && base.ival) {   /* var+off was read as a symbol offset */
    o->sym = base.sym;
    o->ival = base.ival;
  } else if (base.kind == OPD_REG || base.kind == OPD_SYM) {
    o->sym = base.sym;
    o->comp = base.comp;
    while (is_punct(P, '+') || is_punct(P, '-')) {   /* [r+4], [r+-4] */
      bool neg = is_punct(P, '-');
      next(P);
      if (accept_punct(P, '-')) neg = !neg;
      int64_t v = (int64_t)expect_uint(P, "an offset");
      o->ival += neg ? -v : v;
    }
  } else {
    diag_error(P, open.line, base.col, 1, "expected a register or variable in the address");
  }
  if (is_punct(P, ',')) {   /* [tex, {x, y}] and similar lists */
    VEC(Operand) elems = {0};
    vec_push(&P->m->arena, elems, base);
    while (accept_punct(P, ',')) {
      Operand e;
      parse_operand(P, &e, depth + 1);
      vec_push(&P->m->arena, elems, e);
    }
    o->elems = elems.v;
    o->n = (uint8_t)elems.n;
    o->sym = NULL;
  }
  expect_close(P, ']', &open);
}

/* operand := '!' name | '-'? number | name ('.' comp)? ('+' int)?
 *          | '{' operand, ... '}' | '[' address ']' | '(' operand, ... ')'
 *          | '_'                         followed by ('|' operand)? */
static void parse_operand(Parser *P, Operand *o, int depth) {
  memset(o, 0, sizeof *o);
  o->comp = -1;
  o->col = P->tok.col;
  if (accept_punct(P, '!')) {
    if (P->tok.kind != TK_IDENT) unexpected(P, "a predicate after '!'");
    parse_name_operand(P, o);
    o->flags |= OPF_NEG;
  } else if (P->tok.kind == TK_INT || P->tok.kind == TK_FLOAT || is_punct(P, '-')) {
    bool neg = accept_punct(P, '-');
    if (P->tok.kind == TK_INT) {
      o->kind = OPD_IMM;
      o->ival = neg ? (int64_t)(0 - P->tok.ival) : (int64_t)P->tok.ival;
      if (P->tok.is_unsigned) o->flags |= OPF_UNSIGNED;
      if (neg && P->tok.ival > (uint64_t)INT64_MAX + 1)
        diag_error_tok(P, &P->tok, "integer constant does not fit in 64 bits");
    } else if (P->tok.kind == TK_FLOAT) {
      if (neg && P->tok.is_hex_float)   /* ptxas: a syntax error too */
        diag_error_tok(P, &P->tok, "'-' cannot precede a 0f/0d constant; negate its bits");
      o->kind = OPD_FIMM;
      o->fval = P->tok.fval;
      if (neg) o->fval = -o->fval;
      if (P->tok.is_hex_float) o->flags |= OPF_HEXF;
      if (P->tok.is_f32) o->flags |= OPF_F32;
    } else {
      unexpected(P, "a number after '-'");
    }
    next(P);
  } else if (P->tok.kind == TK_IDENT) {
    parse_name_operand(P, o);
  } else if (is_punct(P, '{')) {
    parse_list(P, o, OPD_VEC, '}', depth);
  } else if (is_punct(P, '[')) {
    parse_address(P, o, depth);
  } else if (is_punct(P, '(')) {
    parse_list(P, o, OPD_LIST, ')', depth);
  } else {
    unexpected(P, "an operand");
  }
  if (is_punct(P, '|')) {   /* d|p */
    check_nesting(P, &P->tok, depth);
    next(P);
    Operand *pair = arena_alloc(&P->m->arena, 2 * sizeof *pair);
    pair[0] = *o;
    parse_operand(P, &pair[1], depth + 1);
    memset(o, 0, sizeof *o);
    o->kind = OPD_PAIR;
    o->comp = -1;
    o->col = pair[0].col;
    o->elems = pair;
    o->n = 2;
  }
}

/* ---- instructions ---- */

/* instruction := ('@' '!'? pred)? mnemonic modifier* (operand (',' operand)*)? ';' */
/* Gives the label uses recorded since index `first` the places that keep
 * their symbols (slots[0..n), in the order the uses were parsed), so that
 * finish_labels can point them at the label of the right block. */
static void bind_label_uses(Parser *P, int first, Symbol **slots[], int n) {
  FnBuild *fb = P->fb;
  for (int i = first, j = 0; fb && i < fb->label_uses.n; i++) {
    while (j < n && *slots[j] != fb->label_uses.v[i].sym) j++;
    if (j < n) fb->label_uses.v[i].ref = slots[j++];
  }
}

static void parse_instruction(Parser *P) {
  Insn in;
  memset(&in, 0, sizeof in);
  in.src_file = P->cur_file;
  in.src_line = P->cur_line;
  in.src_col = P->cur_col;
  in.src_inl = P->cur_inl;
  if (accept_punct(P, '@')) {
    in.guard_neg = accept_punct(P, '!');
    if (P->tok.kind != TK_IDENT) unexpected(P, "a predicate after '@'");
    Operand g;
    memset(&g, 0, sizeof g);
    Token gt = P->tok;
    parse_name_operand(P, &g);
    if (g.kind != OPD_REG || g.sym->type != TY_PRED)
      diag_error_tok(P, &gt, "guard '%.*s' is not a predicate register", (int)gt.len, gt.s);
    in.guard = g.sym;
  }
  if (P->tok.kind != TK_IDENT) unexpected(P, "an instruction");
  Token mn = P->tok;
  in.line = mn.line;
  in.col = mn.col;
  next(P);
  Token mods[64];
  int nmods = 0;
  while (P->tok.kind == TK_DOT) {
    if (nmods == 64) diag_error_tok(P, &P->tok, "too many modifiers");
    mods[nmods++] = P->tok;
    next(P);
  }
  validate_modifiers(P, &in, &mn, mods, nmods);
  /* ptxas takes %tid and the other .v4 special registers whole in mov.v4
   * and mov.b128 (the validator makes them the list of their components) */
  P->whole_sregs = (in.op == OP_MOV_V && in.vec == 4) || in.op == OP_MOV_B128;
  Operand opds[256];   /* copied to the arena at their exact count */
  int nopds = 0, uses = P->fb ? P->fb->label_uses.n : 0;
  if (is_punct(P, '}') || P->tok.kind == TK_EOF)   /* "ret\n}" */
    diag_error(P, mn.line, mn.col, mn.len, "missing ';' after '%.*s' instruction",
               (int)mn.len, mn.s);
  if (!is_punct(P, ';')) {
    do {
      if (nopds == 255) diag_error(P, mn.line, mn.col, mn.len, "too many operands");
      parse_operand(P, &opds[nopds++], 0);
    } while (accept_punct(P, ','));
  }
  if (!is_punct(P, ';')) {
    if (P->tok.line != mn.line || P->tok.kind == TK_EOF)
      diag_error(P, mn.line, mn.col, mn.len, "missing ';' after '%.*s' instruction",
                 (int)mn.len, mn.s);
    unexpected(P, "',' or ';'");
  }
  next(P);
  P->whole_sregs = false;
  in.opds = arena_dup(&P->m->arena, opds, (size_t)nopds * sizeof *opds);
  in.nopds = (uint8_t)nopds;
  Symbol **slots[256];
  int nslots = 0;
  for (int i = 0; i < nopds; i++)
    if (in.opds[i].kind == OPD_SYM && in.opds[i].sym->kind == SYM_LABEL) slots[nslots++] = &in.opds[i].sym;
  bind_label_uses(P, uses, slots, nslots);
  validate_operands(P, &in);
  validate_target(P, &in);
  vec_push(&P->m->arena, P->fb->insns, in);
}

/* ---- debug directives (§11.5) ---- */

/* .loc file line col (',' (function_name label ('+' int)? | inlined_at file line col))* */
static void parse_loc(Parser *P) {
  next(P);
  P->cur_file = (int)expect_uint(P, "a file index");
  P->cur_line = (int)expect_uint(P, "a line number");
  P->cur_col = (int)expect_uint(P, "a column");
  P->cur_inl = -1;
  InlineFrame f = {P->cur_file, P->cur_line, P->cur_col, NULL, 0, 0, 0, -1};
  bool inlined = false;
  while (accept_punct(P, ',')) {
    if (tok_is(&P->tok, TK_IDENT, "function_name")) {
      next(P);
      if (P->tok.kind != TK_IDENT) unexpected(P, "a label");
      f.fn = arena_strndup(&P->m->arena, P->tok.s, P->tok.len);
      next(P);
      if (accept_punct(P, '+')) expect_uint(P, "an offset");
    } else if (tok_is(&P->tok, TK_IDENT, "inlined_at")) {
      next(P);
      f.at_file = (int)expect_uint(P, "a file index");
      f.at_line = (int)expect_uint(P, "a line number");
      f.at_col = (int)expect_uint(P, "a column");
      inlined = true;
    } else {
      unexpected(P, "function_name or inlined_at");
    }
  }
  if (!inlined || !P->fb) return;
  /* the caller's frame: the latest of this function whose own location is at_* */
  for (int i = P->inl.n - 1; i >= P->fn_inl && i >= P->inl.n - 4096; i--) {
    const InlineFrame *g = &P->inl.v[i];
    if (g->file == f.at_file && g->line == f.at_line && g->col == f.at_col) { f.up = i; break; }
  }
  P->cur_inl = P->inl.n;
  vec_push(&P->m->arena, P->inl, f);
}

/* .file index "name" (',' timestamp ',' size)? */
static void parse_file(Parser *P) {
  next(P);
  SourceFile f;
  f.index = (int)expect_uint(P, "a file index");
  if (P->tok.kind != TK_STRING) unexpected(P, "a file name");
  f.path = arena_strndup(&P->m->arena, P->tok.s + 1, P->tok.len - 2);
  next(P);
  while (accept_punct(P, ',')) expect_uint(P, "a number");
  vec_push(&P->m->arena, P->files, f);
}

/* .section name '{' ... '}': DWARF data, kept only as far as to skip it,
 * but for .debug_str's labelled strings (LABEL: .b8 bytes..., 0), which
 * name the functions of .loc function_name. */
static void parse_section(Parser *P) {
  next(P);
  if (P->tok.kind != TK_DOT && P->tok.kind != TK_IDENT) unexpected(P, "a section name");
  bool strs = P->tok.len == 10 && !memcmp(P->tok.s, ".debug_str", 10);
  next(P);
  Token open = P->tok;
  expect_punct(P, '{', "to open the section");
  int depth = 1;
  char buf[1024];
  size_t n = 0;
  const char *label = NULL;
  while (depth) {
    if (P->tok.kind == TK_EOF) expect_close(P, '}', &open);
    if (is_punct(P, '{')) depth++;
    else if (is_punct(P, '}')) depth--;
    else if (strs && P->tok.kind == TK_IDENT && !label) {
      label = arena_strndup(&P->m->arena, P->tok.s, P->tok.len);
      n = 0;
    } else if (strs && label && P->tok.kind == TK_INT) {
      uint64_t b = P->tok.ival;
      if (b == 0) {
        DebugStr d = {label, arena_strndup(&P->m->arena, buf, n)};
        vec_push(&P->m->arena, P->dstr, d);
        label = NULL;
      } else if (n + 1 < sizeof buf) {
        buf[n++] = (char)b;
      }
    }
    next(P);
  }
}

/* .pragma "string" (, "string")* ';' */
static void parse_pragma(Parser *P) {
  next(P);
  do {
    if (P->tok.kind != TK_STRING) unexpected(P, "a string");
    const char *s = arena_strndup(&P->m->arena, P->tok.s + 1, P->tok.len - 2);
    if (P->fb) vec_push(&P->m->arena, P->fb->pragmas, s);
    next(P);
  } while (accept_punct(P, ','));
  expect_punct(P, ';', "after .pragma");
}

/* ---- functions ---- */

/* param := (.param | .reg) decl-attrs name ('[' N ']')* ; in a prototype
 * the name may be _ */
static void parse_params(Parser *P, void (*add)(Parser *, Symbol *)) {
  Token open = P->tok;
  expect_punct(P, '(', NULL);
  if (accept_punct(P, ')')) return;
  do {
    DeclAttrs d;
    parse_decl_attrs(P, &d);
    if (d.space != SP_PARAM && d.space != SP_REG)
      diag_error_tok(P, &d.first, "parameters are declared in .param or .reg");
    check_decl_attrs(P, &d);
    Symbol *s;
    int before = P->fb->params.n + P->fb->rets.n;
    Token nt = P->tok;
    if (tok_is(&P->tok, TK_IDENT, "_")) {   /* unnamed, in .callprototype */
      s = new_symbol(P, d.space == SP_REG ? SYM_REG : SYM_VAR, "_", &P->tok);
      s->space = d.space;
      s->type = d.type;
      s->vec = d.vec;
      s->align = d.align;
      next(P);
      while (is_punct(P, '[')) {
        next(P);
        if (s->ndims < 4) s->dims[s->ndims++] = expect_uint(P, "an array size");
        expect_punct(P, ']', NULL);
      }
      finish_size(s);
      add(P, s);
    } else {
      parse_declarator(P, &d, d.space == SP_REG ? SYM_REG : SYM_VAR, add);
    }
    /* fuzzer: ".reg .b32 %r<0>" declared none, and last was read at [-1] */
    if (P->fb->params.n + P->fb->rets.n != before + 1)
      diag_error_tok(P, &nt, "a parameter declares one name, not a <N> range");
    Symbol *last = (add == add_ret ? P->fb->rets.v[P->fb->rets.n - 1]
                                   : P->fb->params.v[P->fb->params.n - 1]);
    last->ptr_space = d.ptr_space;
    last->ptr_align = d.ptr_align;
    if (last->kind == SYM_REG) { last->slot = P->fb->regs.n; vec_push(&P->m->arena, P->fb->regs, last); }
  } while (accept_punct(P, ','));
  expect_close(P, ')', &open);
}

/* callprototype := label ':' .callprototype ('(' param ')')? '_' '(' params ')' .noreturn? ';' */
static void parse_callprototype(Parser *P, const Token *name) {
  next(P);
  FnBuild *outer = P->fb;
  FnBuild fb;
  memset(&fb, 0, sizeof fb);
  P->fb = &fb;
  Scope *saved = P->scope;
  P->scope = scope_new(P, saved);   /* parameter names of a prototype are not visible */
  if (is_punct(P, '(')) parse_params(P, add_ret);
  if (!tok_is(&P->tok, TK_IDENT, "_")) unexpected(P, "'_' (the prototype's function name)");
  next(P);
  if (is_punct(P, '(')) parse_params(P, add_param);
  bool noreturn = false;
  if (is_dot(P, ".noreturn")) { noreturn = true; next(P); }
  expect_punct(P, ';', "after .callprototype");
  P->scope = saved;
  P->fb = outer;
  Function *f = arena_alloc(&P->m->arena, sizeof *f);
  f->name = tok_str(P, name);
  f->params = fb.params.v; f->nparams = fb.params.n;
  f->rets = fb.rets.v; f->nrets = fb.rets.n;
  f->noreturn = noreturn;
  validate_params(P, f);
  Symbol *s = scope_get(P->labels, name->s, name->len);
  if (s && s->target >= 0) diag_error_tok(P, name, "'%s' is already defined", s->name);
  if (!s) {
    s = new_symbol(P, SYM_PROTO, f->name, name);
    declare(P, s, name);
  } else {
    s->kind = SYM_PROTO;
  }
  s->func = f;
}

/* branchtargets := label ':' .branchtargets label (',' label)* ';' */
static void parse_branchtargets(Parser *P, const Token *name) {
  next(P);
  Symbol *s = new_symbol(P, SYM_TARGETS, tok_str(P, name), name);
  VEC(Symbol *) ts = {0};
  int uses = P->fb ? P->fb->label_uses.n : 0;
  do {
    if (P->tok.kind != TK_IDENT) unexpected(P, "a label");
    Operand o;
    memset(&o, 0, sizeof o);
    Token lt = P->tok;
    parse_name_operand(P, &o);
    if (o.kind != OPD_SYM || o.sym->kind != SYM_LABEL)
      diag_error_tok(P, &lt, "'%.*s' is not a label", (int)lt.len, lt.s);
    vec_push(&P->m->arena, ts, o.sym);
  } while (accept_punct(P, ','));
  expect_punct(P, ';', "after .branchtargets");
  Symbol ***slots = arena_alloc(&P->m->arena, (size_t)(ts.n ? ts.n : 1) * sizeof *slots);
  for (int i = 0; i < ts.n; i++) slots[i] = &ts.v[i];
  bind_label_uses(P, uses, slots, ts.n);
  s->targets = ts.v;
  s->ntargets = ts.n;
  declare(P, s, name);
}

/* A label of the current block. The name's first symbol (P->labels) is
 * taken when still undefined (a use came first); a label of the same name
 * in another block gets a symbol of its own. */
static void define_label(Parser *P, const Token *t) {
  FnBuild *fb = P->fb;
  Symbol *s = scope_get(P->labels, t->s, t->len);
  for (const Symbol *o = s; o; o = o->next_def)
    if (o->kind == SYM_LABEL && o->target >= 0 && o->slot == fb->block)
      diag_error_tok(P, t, "label '%s' is already defined at line %u", o->name, o->line);
  if (s && s->target >= 0) {
    Symbol *first = s;
    s = new_symbol(P, SYM_LABEL, s->name, t);
    s->next_def = first->next_def;
    first->next_def = s;
    vec_push(&P->m->arena, fb->labels, s);
  } else if (!s) {
    if (lookup(P, t->s, t->len))
      diag_error_tok(P, t, "'%.*s' is already declared", (int)t->len, t->s);
    s = new_symbol(P, SYM_LABEL, tok_str(P, t), t);
    scope_put(P, P->labels, s);
    vec_push(&P->m->arena, fb->labels, s);
  }
  s->line = t->line;
  s->col = t->col;
  s->target = fb->insns.n;
  s->slot = fb->block;
}

/* statement := '{' statement* '}' | decl | label ':' | .loc ... | .pragma ...
 *            | instruction */
static void parse_block(Parser *P, const Token *open, int depth) {
  check_nesting(P, open, depth);
  Scope *saved = P->scope;
  P->scope = scope_new(P, saved);
  int outer = P->fb->block;
  P->fb->block = P->fb->block_parent.n;
  vec_push(&P->m->arena, P->fb->block_parent, depth ? outer : -1);
  for (;;) {
    if (is_punct(P, '}')) { next(P); break; }
    if (P->tok.kind == TK_EOF) expect_close(P, '}', open);
    if (is_punct(P, '{')) {
      Token o = P->tok;
      next(P);
      parse_block(P, &o, depth + 1);
    } else if (is_dot(P, ".loc")) {
      parse_loc(P);
    } else if (is_dot(P, ".pragma")) {
      parse_pragma(P);
    } else if (P->tok.kind == TK_DOT && space_of(&P->tok) != SP_NONE) {
      parse_local_decl(P);
    } else if (P->tok.kind == TK_IDENT && tok_is(peek(P), TK_PUNCT, ":")) {
      Token name = P->tok;
      next(P);
      next(P);
      if (is_dot(P, ".callprototype")) parse_callprototype(P, &name);
      else if (is_dot(P, ".branchtargets")) parse_branchtargets(P, &name);
      else define_label(P, &name);
    } else if (P->tok.kind == TK_DOT) {
      diag_error_tok(P, &P->tok, "unexpected directive '%.*s' in a function body",
                     (int)P->tok.len, P->tok.s);
    } else {
      parse_instruction(P);
    }
  }
  P->scope = saved;
  P->fb->block = outer;
}

static bool parse_dims(Parser *P, uint32_t dims[3]) {
  int n = 0;
  do {
    Token t = P->tok;
    uint64_t v = expect_uint(P, "a dimension");
    if (v == 0 || v > 0xffffffffu) diag_error_tok(P, &t, "dimension out of range");
    if (n == 3) diag_error_tok(P, &t, "at most three dimensions");
    dims[n++] = (uint32_t)v;
  } while (accept_punct(P, ','));
  for (; n < 3; n++) dims[n] = 1;
  return true;
}

static uint32_t parse_u32(Parser *P, const char *what) {
  Token t = P->tok;
  uint64_t v = expect_uint(P, what);
  if (v > 0xffffffffu) diag_error_tok(P, &t, "%s out of range", what);
  return (uint32_t)v;
}

/* perf := .maxntid dims | .reqntid dims | .minnctapersm N | .maxnctapersm N
 *       | .maxnreg N | .noreturn | .explicitcluster | .reqnctapercluster dims
 *       | .maxclusterrank N | .pragma strings ';' */
static bool parse_perf_directive(Parser *P, Function *f) {
  if (is_dot(P, ".maxntid")) { next(P); parse_dims(P, f->maxntid); }
  else if (is_dot(P, ".reqntid")) { next(P); parse_dims(P, f->reqntid); }
  else if (is_dot(P, ".reqnctapercluster")) { next(P); parse_dims(P, f->reqnctapercluster); }
  else if (is_dot(P, ".minnctapersm")) { next(P); f->minnctapersm = parse_u32(P, "a CTA count"); }
  else if (is_dot(P, ".maxnctapersm")) { next(P); f->maxnctapersm = parse_u32(P, "a CTA count"); }
  else if (is_dot(P, ".maxnreg")) { next(P); f->maxnreg = parse_u32(P, "a register count"); }
  else if (is_dot(P, ".maxclusterrank")) { next(P); f->maxclusterrank = parse_u32(P, "a CTA count"); }
  else if (is_dot(P, ".explicitcluster")) { next(P); f->explicitcluster = true; }
  else if (is_dot(P, ".noreturn")) {
    if (f->is_entry)   /* ptxas: a syntax error; only a .func can promise not to return */
      diag_error_tok(P, &P->tok, ".noreturn applies to a .func, not an .entry");
    next(P);
    f->noreturn = true;
  }
  else if (is_dot(P, ".pragma")) parse_pragma(P);
  else return false;
  return true;
}

/* The label a use at `block` names: of the definitions of that name
 * (chained from the name's first symbol), the one in the innermost block
 * around it, or NULL. */
static Symbol *visible_label(const FnBuild *fb, Symbol *first, int block) {
  for (int b = block; b >= 0; b = fb->block_parent.v[b])
    for (Symbol *s = first; s; s = s->next_def)
      if (s->kind == SYM_LABEL && s->target >= 0 && s->slot == b) return s;
  return NULL;
}

static void finish_labels(Parser *P) {
  FnBuild *fb = P->fb;
  for (int i = 0; i < fb->label_uses.n; i++) {   /* ptxas: "Unknown symbol 'L'" */
    const LabelUse *u = &fb->label_uses.v[i];
    if (u->sym->kind != SYM_LABEL) continue;   /* became a prototype or target list */
    Symbol *s = visible_label(fb, u->sym, u->block);
    if (s && u->ref) *u->ref = s;
    if (s && (u->ref || s == u->sym)) continue;
    const Symbol *any = u->sym;
    while (any && any->target < 0) any = any->next_def;
    if (!any)
      diag_error(P, u->line, u->col, (uint32_t)strlen(u->sym->name),
                 "label '%s' is used but never defined", u->sym->name);
    diag_error(P, u->line, u->col, (uint32_t)strlen(u->sym->name),
               "'%s' is not visible here: the label at line %u is inside a { } block",
               u->sym->name, any->line);
  }
  int n = 0;   /* keep the defined labels; a name used before its definition in
                  another block leaves an undefined first symbol behind */
  for (int i = 0; i < fb->labels.n; i++) {
    Symbol *s = fb->labels.v[i];
    if (s->kind == SYM_LABEL && s->target < 0) continue;
    if (s->kind == SYM_LABEL) s->slot = 0;
    fb->labels.v[n++] = s;
  }
  fb->labels.n = n;
}

/* Two declarations of one function must agree on kind and parameter count. */
static void check_redeclaration(Parser *P, const Function *old, const Function *f,
                                const Token *nt) {
  if (old->is_entry != f->is_entry || old->nparams != f->nparams || old->nrets != f->nrets)
    diag_error_tok(P, nt, "'%s' does not match its declaration at line %u", f->name, old->line);
  if (old->has_body && f->has_body)
    diag_error_tok(P, nt, "'%s' is already defined at line %u", f->name, old->line);
}

/* function := linkage* (.entry | .func ('(' params ')')?) name
 *             ('(' params ')')? perf* (';' | '{' statement* '}') */
static void parse_function(Parser *P, bool is_extern, bool is_visible, bool is_weak) {
  Function *f = arena_alloc(&P->m->arena, sizeof *f);
  f->is_entry = is_dot(P, ".entry");
  f->is_extern = is_extern;
  f->is_visible = is_visible;
  f->is_weak = is_weak;
  f->unit = P->m;
  f->line = P->tok.line;
  f->col = P->tok.col;
  next(P);
  FnBuild fb;
  memset(&fb, 0, sizeof fb);
  P->fb = &fb;
  Scope *module_scope = P->scope;
  P->scope = scope_new(P, module_scope);     /* parameters */
  P->labels = scope_new(P, NULL);
  if (!f->is_entry && is_punct(P, '(')) parse_params(P, add_ret);
  if (P->tok.kind != TK_IDENT) unexpected(P, "a function name");
  Token nt = P->tok;
  f->name = tok_str(P, &nt);
  next(P);
  if (is_punct(P, '(')) parse_params(P, add_param);
  while (parse_perf_directive(P, f)) {}
  for (int i = 0; f->is_entry && i < fb.params.n; i++) {   /* ptxas: "must have .param" */
    const Symbol *s = fb.params.v[i];
    if (s->space != SP_PARAM)
      diag_error(P, s->line, s->col, (uint32_t)strlen(s->name),
                 "a kernel parameter must be in .param, not .%s", space_name(s->space));
    if (s->is_unsized)   /* ptxas: "cannot be an incomplete array" */
      diag_error(P, s->line, s->col, (uint32_t)strlen(s->name),
                 "kernel parameter '%s' is an array without a size", s->name);
  }
  f->params = fb.params.v; f->nparams = fb.params.n;
  f->rets = fb.rets.v; f->nrets = fb.rets.n;
  validate_params(P, f);

  /* declare the function itself (in module scope) before the body, so that
   * it can call itself */
  Symbol *old = scope_get(module_scope, f->name, strlen(f->name));
  if (old && old->kind != SYM_FUNC)
    diag_error_tok(P, &nt, "'%s' is already declared at line %u", f->name, old->line);
  if (is_punct(P, '{')) f->has_body = true;
  if (old) {
    check_redeclaration(P, old->func, f, &nt);
  } else {
    Symbol *s = new_symbol(P, SYM_FUNC, f->name, &nt);
    s->func = f;
    scope_put(P, module_scope, s);
    old = s;
  }
  if (f->has_body) {
    Token open = P->tok;
    next(P);
    P->cur_file = -1;
    P->cur_line = P->cur_col = 0;
    P->cur_inl = -1;
    P->fn_inl = P->inl.n;
    parse_block(P, &open, 0);
    finish_labels(P);
    f->regs = fb.regs.v; f->nregs = fb.regs.n;
    f->vars = fb.vars.v; f->nvars = fb.vars.n;
    f->insns = fb.insns.v; f->ninsns = fb.insns.n;
    f->labels = fb.labels.v; f->nlabels = fb.labels.n;
    f->pragmas = fb.pragmas.v; f->npragmas = fb.pragmas.n;
    if (old->func != f) {      /* a definition after a prototype replaces it */
      for (int i = 0; i < P->funcs.n; i++)
        if (P->funcs.v[i] == old->func) P->funcs.v[i] = f;
      old->func = f;
      f->is_visible |= is_visible;
    } else {
      vec_push(&P->m->arena, P->funcs, f);
    }
  } else {
    expect_punct(P, ';', "or '{' after the function declaration");
    if (old->func == f) vec_push(&P->m->arena, P->funcs, f);
  }
  P->scope = module_scope;
  P->labels = NULL;
  P->fb = NULL;
}

/* ---- module ---- */

/* .version major.minor: a version of targets.def */
static void parse_version(Parser *P) {
  next(P);
  Token t = P->tok;
  int maj = 0, min = 0, n = 0;
  char buf[32];   /* the text need not be NUL-terminated: sscanf a copy */
  snprintf(buf, sizeof buf, "%.*s", (int)(t.len < sizeof buf ? t.len : sizeof buf - 1), t.s);
  if ((t.kind != TK_FLOAT && t.kind != TK_INT) ||
      sscanf(buf, "%d.%d%n", &maj, &min, &n) != 2 || (uint32_t)n != t.len)
    unexpected(P, "a version such as 8.0");
  int newest = ptx_version_newest();
  if (maj < 1 || maj > 9 || min < 0 || min > 9)
    diag_error_tok(P, &t, "unsupported PTX ISA version %d.%d (ptxvm reads up to %d.%d)",
                   maj, min, newest / 10, newest % 10);
  if (maj * 10 + min > newest)
    diag_error_tok(P, &t, "PTX ISA version %d.%d is newer than %d.%d, the newest ptxvm reads",
                   maj, min, newest / 10, newest % 10);
  if (!ptx_version_defined(maj * 10 + min))
    diag_error_tok(P, &t, "there is no PTX ISA version %d.%d (the ISA's release history "
                   "does not list it)", maj, min);
  P->m->ver_major = maj;
  P->m->ver_minor = min;
  next(P);
}

/* An sm_XY[f|a] target: one of targets.def, and not newer than the module's
 * .version (ptxas: "PTX .version 8.5 does not support .target sm_100"). */
static void check_sm_target(Parser *P, const Token *t, const char *s) {
  const TargetInfo *ti = target_lookup(s);
  if (!ti) diag_error_tok(P, t, "unknown target '%s'", s);
  int ver = P->m->ver_major * 10 + P->m->ver_minor;
  if (ver < ti->min_ptx)
    diag_error_tok(P, t, ".target %s requires PTX ISA version %d.%d or higher (this module is %d.%d)",
                   s, ti->min_ptx / 10, ti->min_ptx % 10, P->m->ver_major, P->m->ver_minor);
  if (!P->m->sm) {
    P->m->sm = ti->sm;
    P->m->sm_suffix = ti->suffix;
  }
}

/* .target target (',' target)*, targets sm_XY[f|a] (targets.def), texmode_*, debug,
 * map_f64_to_f32 */
static void parse_target(Parser *P) {
  next(P);
  VEC(const char *) ts = {0};
  do {
    Token t = P->tok;
    if (t.kind != TK_IDENT) unexpected(P, "a target such as sm_90");
    char *s = tok_str(P, &t);
    if (!strncmp(s, "sm_", 3)) {
      check_sm_target(P, &t, s);
    } else if (strcmp(s, "texmode_unified") && strcmp(s, "texmode_independent") &&
               strcmp(s, "debug") && strcmp(s, "map_f64_to_f32")) {
      diag_error_tok(P, &t, "unknown target '%s'", s);
    }
    vec_push(&P->m->arena, ts, s);
    next(P);
  } while (accept_punct(P, ','));
  P->m->targets = ts.v;
  P->m->ntargets = ts.n;
}

/* module := .version v .target t (.address_size n)? directive* */
static void parse_module(Parser *P) {
  if (!is_dot(P, ".version")) {
    /* the two likeliest wrong inputs get what to do instead */
    if (P->tok.kind == TK_EOF) diag_error_tok(P, &P->tok, "the input holds no PTX: a PTX module starts with .version");
    if (memmem(P->src, P->srclen, "__global__", 10))
      diag_error_tok(P, &P->tok, "a PTX module starts with .version; this looks like CUDA C++ source "
                                 "(it has __global__): nvcc -ptx makes its PTX, or give ptxvm the executable");
    diag_error_tok(P, &P->tok, "a PTX module starts with .version");
  }
  parse_version(P);
  if (!is_dot(P, ".target")) unexpected(P, ".target");
  parse_target(P);
  P->m->address_size = 64;
  if (is_dot(P, ".address_size")) {
    next(P);
    Token t = P->tok;
    uint64_t a = expect_uint(P, "32 or 64");
    if (a != 32 && a != 64) diag_error_tok(P, &t, ".address_size must be 32 or 64");
    P->m->address_size = (int)a;
  }
  while (P->tok.kind != TK_EOF) {
    bool ext = false, vis = false, weak = false, common = false;
    Token common_tok = P->tok;
    for (;;) {
      if (is_dot(P, ".extern")) ext = true;
      else if (is_dot(P, ".visible")) vis = true;
      else if (is_dot(P, ".weak")) weak = true;
      else if (is_dot(P, ".common")) common = true, common_tok = P->tok;
      else break;
      next(P);
    }
    if (common && (is_dot(P, ".entry") || is_dot(P, ".func") || !is_dot(P, ".global")))
      diag_error_tok(P, &common_tok, ".common applies only to variables in .global (PTX ISA 9.0 §11.6.4)");
    if (is_dot(P, ".entry") || is_dot(P, ".func")) {
      parse_function(P, ext, vis, weak);
    } else if (P->tok.kind == TK_DOT && space_of(&P->tok) != SP_NONE) {
      DeclAttrs d;
      parse_decl_attrs(P, &d);
      check_decl_attrs(P, &d);
      if (d.space == SP_REG || d.space == SP_PARAM || d.space == SP_LOCAL)
        diag_error_tok(P, &d.first, ".%s variables cannot be declared at module scope",
                       space_name(d.space));
      int first = P->globals.n;
      do {
        parse_declarator(P, &d, SYM_VAR, add_global);
      } while (accept_punct(P, ','));
      expect_punct(P, ';', "after declaration");
      for (int i = first; i < P->globals.n; i++) {
        Symbol *s = P->globals.v[i];
        s->is_extern = ext;
        s->is_visible = vis;
        s->is_weak = weak;
        s->is_common = common;
        check_sized(P, s);
      }
    } else if (ext || vis || weak || common) {
      unexpected(P, ".entry, .func or a variable declaration");
    } else if (is_dot(P, ".file")) {
      parse_file(P);
    } else if (is_dot(P, ".section")) {
      parse_section(P);
    } else if (is_dot(P, ".pragma")) {
      parse_pragma(P);
    } else if (is_dot(P, ".alias")) {
      next(P);
      Token a = P->tok;
      if (a.kind != TK_IDENT) unexpected(P, "an alias name");
      next(P);
      expect_punct(P, ',', NULL);
      Token t = P->tok;
      if (t.kind != TK_IDENT) unexpected(P, "a function name");
      Symbol *target = lookup(P, t.s, t.len);
      if (!target || target->kind != SYM_FUNC)
        diag_error_tok(P, &t, "'%.*s' is not a declared function", (int)t.len, t.s);
      next(P);
      expect_punct(P, ';', "after .alias");
      Symbol *old = lookup(P, a.s, a.len);
      if (!old || old->kind != SYM_FUNC)
        diag_error_tok(P, &a, ".alias needs '%.*s' declared as a function first",
                       (int)a.len, a.s);
      if (old->func->has_body) diag_error_tok(P, &a, "'%s' already has a body", old->name);
      old->func = target->func;
    } else if (is_dot(P, ".version") || is_dot(P, ".target") || is_dot(P, ".address_size")) {
      diag_error_tok(P, &P->tok, "'%.*s' may appear only once, at the start of the module",
                     (int)P->tok.len, P->tok.s);
    } else {
      unexpected(P, "a directive");
    }
  }
}

Module *front_parse(const char *src, size_t len, const char *path, char **err) {
  *err = NULL;
  Module *volatile m = malloc(sizeof *m);   /* volatile: read after longjmp */
  Parser *volatile P = calloc(1, sizeof *P);
  if (!m || !P) {
    free(m);
    free(P);
    *err = NULL;
    return NULL;
  }
  memset(m, 0, sizeof *m);
  arena_init(&m->arena, &P->jb);
  P->m = m;
  P->src = src;
  P->srclen = len;
  if (setjmp(P->jb)) {
    *err = P->msg;
    if (!*err) *err = strdup("out of memory while loading PTX");
    arena_free(&m->arena);
    free(m);
    free(P);
    return NULL;
  }
  m->path = arena_strndup(&m->arena, path, strlen(path));
  if (op_compile_error()) {   /* a malformed opcodes.def row: say so loudly */
    P->msg = malloc(200);
    if (P->msg)
      snprintf(P->msg, 200, "internal error: opcodes.def row %s is malformed\n",
               op_compile_error());
    longjmp(P->jb, 1);
  }
  lex_init(&P->lex, P, src, len);
  P->scope = scope_new(P, NULL);
  declare_sregs(P);
  P->scope = scope_new(P, P->scope);   /* module scope */
  next(P);
  parse_module(P);
  m->globals = P->globals.v;
  m->nglobals = P->globals.n;
  m->funcs = P->funcs.v;
  m->nfuncs = P->funcs.n;
  m->files = P->files.v;
  m->nfiles = P->files.n;
  m->inl = P->inl.v;
  m->ninl = P->inl.n;
  m->dstr = P->dstr.v;
  m->ndstr = P->dstr.n;
  m->arena.oom = NULL;
  free(P->msg);
  free(P);
  return m;
}

void module_free(Module *m) {
  if (!m) return;
  for (int i = 0; i < m->nparts; i++) module_free(m->parts[i]);
  arena_free(&m->arena);
  free(m);
}
