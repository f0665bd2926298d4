/* validate.c: checks each parsed instruction against opcodes.def.
 *
 * Modifiers select the row: the rows of a mnemonic are tried in order and
 * the first whose modifier pattern takes the instruction's modifiers wins.
 * As in ptxas, the modifiers may come in any order, except within a group
 * of items (types, state spaces, items sharing a spelling: opcodes.c), so
 * each modifier is placed in an unused item by a small backtracking search;
 * when no row takes them, the row that fits best names what is wrong (a
 * modifier it lacks, a repeat, a conflict, the order, what is missing). The row's operand pattern then checks the number and
 * kind of operands and, for registers and immediates, their types against
 * the instruction's type modifiers under the rules of PTX ISA 9.0 §6.4
 * ("Operand type information"): bit-size types match any register of their
 * width, integer types match signed, unsigned and bit-size registers of
 * their width, float types match their own type or bit-size registers of
 * their width, and ld/st/cvt data may sit in a wider register. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

/* ---- modifiers ---- */

/* Flags that ptxas lets repeat (add.sat.sat.f32, bar.sync.sync, rcp.approx
 * .approx): a repeat is dropped. Any other modifier given twice is an
 * error, as in ptxas ("Duplicate .ftz modifier"). */
static bool repeatable(const char *m) {
  static const char *const mods[] = {
    ".sat", ".NaN", ".sync", ".uni", ".approx", ".relu", ".shiftamt", ".cc",
  };
  for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
    if (!strcmp(m, mods[i])) return true;
  return false;
}

static bool item_has(const PatItem *it, const char *m) {
  for (int a = 0; a < it->nalts; a++)
    if (it->alts[a] == m) return true;
  return false;
}

/* One attempt to place an instruction's modifiers in the items of a row:
 * the first nfixed modifiers are the row's fixed items in order, each other
 * modifier takes an unused item that has it, in any order but the items'
 * order within a group (opcodes.c, group_items); every required item must
 * be taken. */
typedef struct Placer {
  const OpPattern *pat;
  const char *const *mods;
  int n;
  bool ordered;          /* honour the order within groups */
  bool all_required;     /* success needs every required item */
  int far;               /* the most modifiers placed */
  int budget;            /* steps left: hostile input cannot make the search blow up */
  int8_t at[64];         /* the item each modifier took */
} Placer;

enum { GROUPS = PAT_MAX_ITEMS + 3 };

static bool place(Placer *M, int j, uint64_t used, const int8_t *last) {
  if (j > M->far) M->far = j;
  if (--M->budget < 0) return false;
  const OpPattern *pat = M->pat;
  if (j == M->n) {
    for (int i = pat->nfixed; M->all_required && i < pat->nitems; i++)
      if (!pat->items[i].optional && !(used >> i & 1)) return false;
    return true;
  }
  for (int i = pat->nfixed; i < pat->nitems; i++) {
    const PatItem *it = &pat->items[i];
    if ((used >> i & 1) || !item_has(it, M->mods[j])) continue;
    if (M->ordered && it->group && i < last[it->group]) continue;
    int8_t nl[GROUPS];
    memcpy(nl, last, sizeof nl);
    nl[it->group] = (int8_t)i;
    M->at[j] = (int8_t)i;
    if (place(M, j + 1, used | 1ull << i, nl)) return true;
  }
  return false;
}

/* How many of the modifiers the row's leading items take (they lead, in
 * order; an optional one may be absent), or -1 when a required one is not
 * there. */
static int fixed_lead(const OpPattern *pat, const char *const *mods, int n) {
  int j = 0;
  for (int i = 0; i < pat->nfixed; i++) {
    if (j < n && item_has(&pat->items[i], mods[j])) j++;
    else if (!pat->items[i].optional) return -1;
  }
  return j;
}

static bool run_placer(Placer *M, const OpPattern *pat, const char *const *mods, int n,
                       bool ordered, bool all_required) {
  memset(M, 0, sizeof *M);
  M->pat = pat;
  M->mods = mods;
  M->n = n;
  M->ordered = ordered;
  M->all_required = all_required;
  M->budget = 20000;
  int lead = fixed_lead(pat, mods, n);
  if (lead < 0) return false;
  M->far = lead;
  int8_t last[GROUPS];
  memset(last, -1, sizeof last);
  return place(M, lead, 0, last);
}

/* Does the row admit the instruction's type modifiers, each in an item of
 * its own, in their order? (set.lt.u32.b32 is an integer set with a bad
 * .lt, not an f16 set missing .f16.) */
static bool row_takes_types(const OpPattern *pat, const char *const *mods,
                            const Type *types, int n) {
  int i = 0;   /* each type, in order, in an item of its own, in order */
  for (int j = 0; j < n; j++) {
    if (types[j] == TY_NONE) continue;
    bool found = false;
    for (; i < pat->nitems && !found; i++)
      if (item_has(&pat->items[i], mods[j])) found = true;
    if (!found) return false;
  }
  return true;
}

/* How well a row that does not match fits the instruction, for the
 * diagnostic: the best row is the one its message is about. */
typedef struct RowFit {
  int row;
  bool types;            /* it takes the instruction's types */
  int nbad;              /* modifiers no item of the row has */
  bool fixed;            /* the mnemonic's parts lead */
  int far_u, far_o;      /* modifiers placed, ignoring and honouring order */
  int missing;           /* required items left over, or -1 */
  int nmissing;
} RowFit;

static RowFit row_fit(int row, const char *const *sp, const Type *mt, int n) {
  const OpPattern *pat = &op_patterns()[row];
  RowFit f = {.row = row, .missing = -1};
  f.types = row_takes_types(pat, sp, mt, n);
  for (int j = 0; j < n; j++) {
    bool has = false;
    for (int i = 0; i < pat->nitems && !has; i++) has = item_has(&pat->items[i], sp[j]);
    f.nbad += !has;
  }
  int lead = fixed_lead(pat, sp, n);
  f.fixed = lead >= 0;
  Placer M;
  bool whole = run_placer(&M, pat, sp, n, false, true);
  run_placer(&M, pat, sp, n, false, false);
  f.far_u = M.far;
  if (f.fixed && f.far_u == n && !whole) {   /* all placed: which required items are left? */
    uint64_t used = 0;
    for (int j = lead; j < n; j++) used |= 1ull << M.at[j];
    for (int i = pat->nitems - 1; i >= pat->nfixed; i--)
      if (!pat->items[i].optional && !(used >> i & 1)) { f.missing = i; f.nmissing++; }
  }
  run_placer(&M, pat, sp, n, true, false);
  f.far_o = M.far;
  return f;
}

static bool fit_better(const RowFit *a, const RowFit *b) {
  if (a->types != b->types) return a->types;
  if (a->nbad != b->nbad) return a->nbad < b->nbad;
  if (a->fixed != b->fixed) return a->fixed;
  if (a->far_u != b->far_u) return a->far_u > b->far_u;
  if (a->nmissing != b->nmissing) return a->nmissing < b->nmissing;
  return a->far_o > b->far_o;
}

/* ".a, .b or .c" (the first few) appended to buf, skipping those already in it. */
static void list_alts(const PatItem *it, char *buf, size_t cap) {
  if (strstr(buf, "..."))
    return;
  int listed = *buf != 0;
  for (const char *p = buf; (p = strchr(p, ',')); p++) listed++;
  for (int a = 0; a < it->nalts; a++) {
    size_t len = strlen(buf), k = strlen(it->alts[a]);
    bool dup = false;
    for (const char *p = strstr(buf, it->alts[a]); p && !dup; p = strstr(p + 1, it->alts[a]))
      dup = (p[k] == 0 || p[k] == ',' || p[k] == ' ');
    if (dup) continue;
    if (len + k + 8 >= cap || listed == 10) {
      if (len + 6 < cap) strcat(buf, ", ...");
      return;
    }
    snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", it->alts[a]);
    listed++;
  }
}

/* "x, y, z" -> "x, y or z" */
static void last_or(char *buf, size_t cap) {
  char *c = strrchr(buf, ',');
  if (!c || !strcmp(c, ", ...") || strlen(buf) + 3 >= cap) return;
  memmove(c + 3, c + 1, strlen(c + 1) + 1);
  memcpy(c, " or", 3);
}

/* Reports why no row of the instruction's mnemonic takes its modifiers,
 * against the row that fits best (add.rz.s32 is an integer add with a bad
 * .rz, not a float add with a bad .s32). */
static _Noreturn void bad_modifiers(Parser *P, int row, const Token *mn, const Token *tok,
                                    const char *const *sp, const Type *mt, int n) {
  RowFit best = row_fit(row, sp, mt, n);
  for (int r = op_next(row); r >= 0; r = op_next(r)) {
    RowFit f = row_fit(r, sp, mt, n);
    if (fit_better(&f, &best)) best = f;
  }
  const OpPattern *pat = &op_patterns()[best.row];
  char shown[128];   /* the mnemonic with the instruction's type modifiers */
  snprintf(shown, sizeof shown, "%s", op_info[best.row].mnemonic);
  for (int j = 0; j < n; j++)
    if (mt[j] != TY_NONE && strlen(shown) + strlen(sp[j]) < sizeof shown) strcat(shown, sp[j]);
  const Token *at = n ? &tok[n - 1] : mn;
  for (int j = 0; j < n; j++) {
    bool has = false;
    for (int i = 0; i < pat->nitems && !has; i++) has = item_has(&pat->items[i], sp[j]);
    if (!has)
      diag_error_tok(P, &tok[j], "modifier '%s' is not allowed on '%s'", sp[j], shown);
  }
  if (!best.fixed) {   /* the parts of the name lead: mbarrier.arrive.shared */
    char lead[128];
    snprintf(lead, sizeof lead, "%.*s", (int)mn->len, mn->s);
    for (int i = 0, j = 0; i < pat->nfixed; i++) {
      char want[400] = "";
      list_alts(&pat->items[i], want, sizeof want);
      last_or(want, sizeof want);
      if (j < n && item_has(&pat->items[i], sp[j])) {
        if (strlen(lead) + strlen(sp[j]) < sizeof lead) strcat(lead, sp[j]);
        j++;
      } else if (!pat->items[i].optional) {
        diag_error_tok(P, j < n ? &tok[j] : at, "'%s' needs %s right after '%s'", shown, want,
                       lead);
      }
    }
  }
  if (best.far_u < n) {   /* sp[j] finds no item left: one it shares is taken */
    int j = best.far_u;
    for (int i = 0; i < pat->nfixed; i++)   /* bar.red.cta: .cta leads */
      if (item_has(&pat->items[i], sp[j]))
        diag_error_tok(P, &tok[j], "'%s' must come right after '%.*s' on '%s'", sp[j],
                       (int)mn->len, mn->s, shown);
    for (int k = 0; k < j; k++)
      if (sp[k] == sp[j] && mt[j] == TY_NONE)
        diag_error_tok(P, &tok[j], "modifier '%s' is repeated on '%s'", sp[j], shown);
    if (mt[j] != TY_NONE)
      diag_error_tok(P, &tok[j], "unexpected type '%s' on '%s'", sp[j], shown);
    for (int k = j - 1; k >= 0; k--)
      for (int i = pat->nfixed; i < pat->nitems; i++) {
        const PatItem *it = &pat->items[i];
        if (item_has(it, sp[j]) && item_has(it, sp[k])) {
          char want[400] = "";
          list_alts(it, want, sizeof want);
          last_or(want, sizeof want);
          diag_error_tok(P, &tok[j], "'%s' conflicts with '%s' on '%s' (only one of %s)",
                         sp[j], sp[k], shown, want);
        }
      }
    diag_error_tok(P, &tok[j], "modifier '%s' is not allowed here on '%s'", sp[j], shown);
  }
  if (best.missing >= 0) {   /* what is missing, from every row that fits as well */
    char want[400] = "";
    for (int r = row; r >= 0; r = op_next(r)) {
      RowFit f = row_fit(r, sp, mt, n);
      if (!fit_better(&best, &f) && f.missing >= 0)
        list_alts(&op_patterns()[r].items[f.missing], want, sizeof want);
    }
    last_or(want, sizeof want);
    bool one = !strchr(want, ' ');
    diag_error_tok(P, at, "'%s' needs %s%s", shown, one ? "" : "one of ", want);
  }
  int j = best.far_o;   /* all placed, but not in order */
  const PatItem *need = NULL;
  for (int i = pat->nfixed; i < pat->nitems && !need; i++)
    if (item_has(&pat->items[i], sp[j]) && pat->items[i].group) need = &pat->items[i];
  for (int k = j - 1; need && k >= 0; k--)
    for (int i = pat->nfixed; i < pat->nitems; i++)
      if (pat->items[i].group == need->group && item_has(&pat->items[i], sp[k]))
        diag_error_tok(P, &tok[j], "'%s' must come before '%s' on '%s'", sp[j], sp[k], shown);
  diag_error_tok(P, at, "'%s' is incomplete", shown);
}

/* cvt's rounding depends on both types, which one row cannot say (PTX ISA
 * 9.0 §9.7.9.21): float to int and float to the same float take .rni .rzi
 * .rmi .rpi (required for the first), int to float and a narrowing float
 * conversion require .rn .rz .rm .rp, the others take none. ptxas:
 * "Rounding modifier required" / "Illegal rounding modifier for 'cvt'". */
static void check_cvt_rounding(Parser *P, const Insn *in, const Token *mn, const Token *mods,
                               int nmods) {
  if ((in->op != OP_CVT && in->op != OP_CVT_BF16) || in->ntypes != 2) return;
  Type d = (Type)in->types[0], a = (Type)in->types[1];
  bool df = type_kind(d) == K_F, af = type_kind(a) == K_F;
  const char *want = NULL;            /* the rounding set allowed, if any */
  bool required = false;
  if (af && !df) { want = ".rni, .rzi, .rmi or .rpi"; required = true; }
  else if (af && d == a) want = ".rni, .rzi, .rmi or .rpi";
  else if (df && (!af || type_size(d) < type_size(a))) { want = ".rn, .rz, .rm or .rp"; required = true; }
  else if (df && (d == TY_BF16 || a == TY_BF16)) want = ".rn, .rz, .rm or .rp";  /* optional */
  int at = -1;
  for (int j = 0; j < in->nmods; j++)
    if (strstr(".rni.rzi.rmi.rpi.rn.rz.rm.rp", in->mods[j]) && in->mods[j][1] == 'r') at = j;
  char shown[64];
  snprintf(shown, sizeof shown, "cvt.%s.%s", type_name(d), type_name(a));
  if (at < 0) {
    if (required)
      diag_error_tok(P, mn, "'%s' needs a rounding modifier: %s", shown, want);
    return;
  }
  bool integral = strlen(in->mods[at]) == 4;   /* .rni .rzi .rmi .rpi */
  if (!want || integral != (want[3] == 'i'))
    diag_error_tok(P, &mods[at], "rounding modifier '%s' is not allowed on '%s'%s%s%s",
                   in->mods[at], shown, want ? " (only " : "", want ? want : "", want ? ")" : "");
  (void)nmods;
}

/* The module's copy of the modifier list sp[0..n): instructions with the
 * same list share one (most of a large module's instructions repeat a few
 * dozen lists), in a hash set of NULL-ended arrays in the arena. */
static const char **intern_mods(Parser *P, const char *const *sp, int n) {
  uint32_t h = 2166136261u;
  for (int j = 0; j < n; j++) h = (h ^ (uint32_t)(uintptr_t)sp[j]) * 16777619u;
  if (2 * (P->nmodsets + 1) > P->capmodsets) {   /* rehash at half full */
    uint32_t cap = P->capmodsets ? 2 * P->capmodsets : 256;
    const char ***t = arena_alloc(&P->m->arena, cap * sizeof *t);
    for (uint32_t i = 0; i < P->capmodsets; i++) {
      const char **e = P->modsets[i];
      if (!e) continue;
      uint32_t g = 2166136261u;
      for (int j = 0; e[j]; j++) g = (g ^ (uint32_t)(uintptr_t)e[j]) * 16777619u;
      uint32_t k = g & (cap - 1);
      while (t[k]) k = (k + 1) & (cap - 1);
      t[k] = e;
    }
    P->modsets = t;
    P->capmodsets = cap;
  }
  uint32_t k = h & (P->capmodsets - 1);
  for (const char **e; (e = P->modsets[k]); k = (k + 1) & (P->capmodsets - 1)) {
    int j = 0;
    while (j < n && e[j] == sp[j]) j++;
    if (j == n && !e[n]) return e;
  }
  const char **e = arena_alloc(&P->m->arena, (size_t)(n + 1) * sizeof *e);
  memcpy(e, sp, (size_t)n * sizeof *e);
  P->modsets[k] = e;
  P->nmodsets++;
  return e;
}

void validate_modifiers(Parser *P, Insn *in, const Token *mn, const Token *mods, int nmods) {
  int row = op_first(mn->s, mn->len);
  if (row < 0)
    diag_error_tok(P, mn, "unknown instruction '%.*s'", (int)mn->len, mn->s);
  const OpPattern *pats = op_patterns();
  const char *sp[64];
  Token tok[64];      /* the modifiers kept (repeats of repeatable flags dropped) */
  Type mt[64];        /* the type each modifier names, or TY_NONE (looked up once) */
  int n = 0;
  for (int j = 0; j < nmods; j++) {
    const char *s = op_spelling(mods[j].s, mods[j].len);
    if (!s)
      diag_error_tok(P, &mods[j], "unknown modifier '%.*s' on '%.*s'", (int)mods[j].len,
                     mods[j].s, (int)mn->len, mn->s);
    bool again = false;
    for (int k = 0; k < n && !again; k++) again = sp[k] == s && repeatable(s);
    if (again) continue;
    tok[n] = mods[j];
    sp[n] = s;
    mt[n++] = type_lookup(mods[j].s + 1, (int)mods[j].len - 1);
  }
  for (int r = row; r >= 0; r = op_next(r)) {
    Placer M;
    if (!run_placer(&M, &pats[r], sp, n, true, true)) continue;
    in->op = (uint16_t)r;
    in->nmods = (uint8_t)n;
    in->mods = intern_mods(P, sp, n);
    in->vec = 1;
    for (int j = 0; j < n; j++) {
      if (mt[j] != TY_NONE && in->ntypes < 3) in->types[in->ntypes++] = (uint8_t)mt[j];
      if (!strcmp(sp[j], ".v2") || !strcmp(sp[j], ".v4") || !strcmp(sp[j], ".v8"))
        in->vec = (uint8_t)(sp[j][2] - '0');
    }
    check_cvt_rounding(P, in, mn, tok, n);
    validate_matrix_form(P, in, mn);
    return;
  }
  bad_modifiers(P, row, mn, tok, sp, mt, n);
}

/* ---- operands ---- */

static Type double_width(Type t) {
  switch (t) {
  case TY_U8: return TY_U16;   case TY_U16: return TY_U32;  case TY_U32: return TY_U64;
  case TY_S8: return TY_S16;   case TY_S16: return TY_S32;  case TY_S32: return TY_S64;
  case TY_B8: return TY_B16;   case TY_B16: return TY_B32;  case TY_B32: return TY_B64;
  case TY_B64: return TY_B128; case TY_F16: return TY_F32;  case TY_F32: return TY_F64;
  default: return TY_NONE;
  }
}

/* The type an operand must have, or TY_NONE when it is not checked. */
static Type expected_type(const Insn *in, char kind, uint8_t idx, int tmode, Type fixed) {
  if (kind == 'p' || kind == 'q') return TY_PRED;
  if (tmode == OT_ANY) return TY_NONE;
  if (tmode == OT_FIXED) return fixed;
  Type t = idx < in->ntypes ? (Type)in->types[idx] : TY_NONE;
  return tmode == OT_2X ? double_width(t) : t;
}

/* §6.4.1: may a register of type r stand where type e is expected? */
static bool reg_type_ok(Type e, Type r, bool wide, bool sreg) {
  if (e == TY_NONE || e == r) return true;
  TypeKind ek = type_kind(e), rk = type_kind(r);
  int es = type_size(e), rs = type_size(r);
  if (ek == K_P || rk == K_P) return false;
  /* a 32-bit special register may be read into 16 bits (legacy %tid), a
   * 64-bit one only whole (ptxas rejects %clock64 into .u32) */
  if (sreg) return (ek == K_U || ek == K_S || ek == K_B) && (es == rs || (rs == 4 && es == 2));
  bool size_ok = rs == es || (wide && rs > es && ek != K_F);
  switch (ek) {
  case K_B: return size_ok;
  case K_U: case K_S: return size_ok && (rk == K_U || rk == K_S || rk == K_B);
  /* same float type handled above; ptxas takes ld.f32 into .b64, not .u64 */
  case K_F: return rk == K_B && (rs == es || (wide && rs > es));
  case K_A: return rs == es || (rk == K_B && rs >= es);
  default: return false;
  }
}

static _Noreturn void opd_error(Parser *P, const Insn *in, const Operand *o,
                                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void opd_error(Parser *P, const Insn *in, const Operand *o, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  diag_error(P, in->line, o->col, 1, "%s (in '%s')", buf, insn_mnemonic(in));
}

/* Constants, as ptxas takes them: integers for integer and bit types (any
 * 64-bit value; it is truncated to the width), floating-point constants for
 * float types, and for bit types only the 0f (32-bit) and 0d (64-bit) forms
 * of matching width. */
static void check_imm(Parser *P, const Insn *in, const Operand *o, Type e) {
  if (e == TY_NONE) return;
  TypeKind k = type_kind(e);
  if (o->kind == OPD_FIMM) {
    if (k == K_F || k == K_A) return;
    if (k == K_B && type_size(e) == ((o->flags & OPF_F32) ? 4 : 8))
      return;   /* 0f is 32 bits; 0d and decimal (a double) 64 (ptxas) */
    opd_error(P, in, o, "floating-point constant where .%s is expected", type_name(e));
  }
  if (k == K_F)
    opd_error(P, in, o, "integer constant where .%s is expected (write 1.0 or 0f3F800000)",
              type_name(e));
  /* a predicate takes any integer, nonzero being true: nvcc writes
   * mov.pred %p, -1 and ptxas also takes 2 */
}

static void check_reg(Parser *P, const Insn *in, const Operand *o, Type e, bool wide) {
  const Symbol *s = o->sym;
  /* ptxas: "Special register argument not allowed" except as a source of
   * mov and cvt (PTX ISA 9.0 §10) */
  const char *mn = insn_mnemonic(in);
  if (s->kind == SYM_SREG && strcmp(mn, "mov") && strcmp(mn, "cvt"))
    opd_error(P, in, o, "special register '%s' may only be read by mov or cvt", s->name);
  /* a vector register named whole is a vector operand, which
   * expand_vector turned into the list of its components where the
   * instruction takes one: anywhere else it is an error (ptxas: "Vector
   * operand is not allowed", "Argument vector size mismatch") */
  if (s->vec > 1 && o->comp < 0)
    opd_error(P, in, o, "vector register '%s' needs a component such as %s.x", s->name, s->name);
  if (s->kind == SYM_SREG && s->sreg_comps && o->comp < 0)   /* parse.c: whole_sregs */
    opd_error(P, in, o, "'%s' needs a component such as %s.x", s->name, s->name);
  if (!reg_type_ok(e, s->type, wide, s->kind == SYM_SREG)) {
    char want[32];
    snprintf(want, sizeof want, ".%s", type_name(e));
    char buf[256];
    snprintf(buf, sizeof buf, "'%s' is .%s but %s is expected", s->name, type_name(s->type), want);
    diag_error(P, in->line, o->col, (uint32_t)strlen(s->name), "%s (in '%s')", buf,
               insn_mnemonic(in));
  }
}

static void not_declared(Parser *P, const Insn *in, const Operand *o) {
  diag_error(P, in->line, o->col, (uint32_t)strlen(o->sym->name), "'%s' is not declared",
             o->sym->name);
  (void)in;
}

/* The state space an instruction names (.global, .shared::cta, ...), or SP_NONE. */
static Space insn_space(const Insn *in, bool *cluster) {
  *cluster = false;
  for (int i = 0; i < in->nmods; i++) {
    const char *m = in->mods[i];
    if (!strcmp(m, ".global")) return SP_GLOBAL;
    if (!strcmp(m, ".shared") || !strcmp(m, ".shared::cta")) return SP_SHARED;
    if (!strcmp(m, ".shared::cluster")) { *cluster = true; return SP_SHARED; }
    if (!strcmp(m, ".local")) return SP_LOCAL;
    if (!strcmp(m, ".const")) return SP_CONST;
    if (!strncmp(m, ".param", 6)) return SP_PARAM;
  }
  return SP_NONE;
}

/* Whether any of the instruction's modifiers names space sp: copies name two
 * (cp.async.bulk.global.shared::cta [dst], [src], ...), each operand may be
 * a variable of either. */
static bool insn_names_space(const Insn *in, Space sp) {
  for (int i = 0; i < in->nmods; i++) {
    Insn one = *in;
    one.mods = in->mods + i;
    one.nmods = 1;
    bool cluster;
    if (insn_space(&one, &cluster) == sp) return true;
  }
  return false;
}

static void check_address(Parser *P, const Insn *in, const Operand *o) {
  const Symbol *s = o->sym;
  if (!s) {           /* [imm]: ptxas takes immediate addresses only in .local */
    bool cluster;
    if (insn_space(in, &cluster) != SP_LOCAL)
      opd_error(P, in, o, "an immediate address is allowed only in .local");
    return;
  }
  if (s->kind == SYM_LABEL && s->target < 0) not_declared(P, in, o);
  if (s->kind == SYM_REG || s->kind == SYM_SREG) {
    if (o->comp >= 0 || s->vec > 1)   /* ptxas: a syntax error */
      opd_error(P, in, o, "an address register is a scalar register, not %s of vector '%s'",
                o->comp >= 0 ? "a component" : "all", s->name);
    TypeKind k = type_kind(s->type);
    int size = type_size(s->type);
    if (k == K_P || k == K_F || (size != 4 && size != 8))
      opd_error(P, in, o, "'%s' is .%s; an address register is a 32- or 64-bit integer",
                s->name, type_name(s->type));
    return;
  }
  if (s->kind != SYM_VAR)
    opd_error(P, in, o, "'%s' is not a variable", s->name);
  bool cluster;
  Space sp = insn_space(in, &cluster);
  if (sp == SP_NONE && (s->space == SP_CONST || s->space == SP_PARAM))   /* as ptxas */
    opd_error(P, in, o, "'%s' is in .%s; a generic access cannot name it (write .%s)", s->name,
              space_name(s->space), space_name(s->space));
  if (sp != SP_NONE && sp != s->space && !insn_names_space(in, s->space))
    opd_error(P, in, o, "'%s' is in .%s, not in the instruction's state space", s->name,
              space_name(s->space));
}

/* The value constraints of an operand spec ([lo..hi], %M) on a constant;
 * ptxas: "value '16' out of range [0..15]". */
static void check_value(Parser *P, const Insn *in, const Operand *o, const OpdSpec *sp) {
  if (o->kind != OPD_IMM) return;
  if (sp->ranged && (o->ival < sp->lo || o->ival > sp->hi))
    opd_error(P, in, o, "value %lld out of range [%lld..%lld]", (long long)o->ival,
              (long long)sp->lo, (long long)sp->hi);
  if (sp->multiple && o->ival % sp->multiple)
    opd_error(P, in, o, "value %lld is not a multiple of %u", (long long)o->ival,
              sp->multiple);
}

static Type bit_type(int size) {
  switch (size) {
  case 1: return TY_B8; case 2: return TY_B16; case 4: return TY_B32;
  case 8: return TY_B64; case 16: return TY_B128; default: return TY_NONE;
  }
}

/* mov.bN pack/unpack: a brace list of 2 or 4 elements of N/2 or N/4 bits
 * each: registers and _, and in a source list also constants (ptxas: "Incompatible elements of vector expression"). */
static void check_brace(Parser *P, const Insn *in, const Operand *o, Type e, bool dst) {
  int size = type_size(e);
  if (o->n != 2 && o->n != 4)
    opd_error(P, in, o, "expected a brace list of 2 or 4 elements");
  Type et = bit_type(size / o->n);
  if (et == TY_NONE)
    opd_error(P, in, o, ".%s cannot be split into %d elements", type_name(e), o->n);
  for (int i = 0; i < o->n; i++) {
    const Operand *el = &o->elems[i];
    if (el->kind == OPD_SINK) continue;
    if ((el->kind == OPD_IMM || el->kind == OPD_FIMM) && !dst) {
      check_imm(P, in, el, et);
      continue;
    }
    if (el->kind != OPD_REG)
      opd_error(P, in, el, dst ? "expected a register or _ in the brace list"
                               : "expected a register, constant or _ in the brace list");
    if (dst && el->sym->kind == SYM_SREG)
      opd_error(P, in, el, "special register '%s' cannot be written", el->sym->name);
    if (el->sym->vec > 1 && el->comp < 0)
      opd_error(P, in, el, "vector register '%s' in a brace list needs a component such as %s.x",
                el->sym->name, el->sym->name);
    if (type_kind(el->sym->type) == K_P || type_size(el->sym->type) != type_size(et))
      opd_error(P, in, el, "'%s' is .%s but each element of the list must be %d bits",
                el->sym->name, type_name(el->sym->type), 8 * type_size(et));
  }
}

/* The type an element of a vector operand is checked against: ptxas takes
 * an integer or bit-size register of a float vector's element size
 * (ld.global.v4.f32 {%r1, ...} with .u32 %r1; mov.v2.f32 into .b32 too),
 * which it refuses for a scalar; the bits are copied unchanged. */
static Type float_elem(Type e, const Operand *el) {
  if (type_kind(e) != K_F || el->sym->kind != SYM_REG) return e;
  Type r = (Type)el->sym->type;
  TypeKind rk = type_kind(r);
  bool same = type_size(r) == type_size(e) && (rk == K_U || rk == K_S || rk == K_B);
  return same ? TY_NONE : e;
}

static void check_one(Parser *P, const Insn *in, const Operand *o, char kind, uint8_t idx,
                      int tmode, Type fixed) {
  Type e = expected_type(in, kind, idx, tmode, fixed);
  bool wide = tmode == OT_WIDE;
  /* '!' negates a predicate source: q, or any source typed .pred
   * (and.pred, not.pred, mov.pred: ptxas takes them) */
  if ((o->flags & OPF_NEG) && kind != 'q' && !(e == TY_PRED && strchr("asr", kind)))
    opd_error(P, in, o, "'!' is allowed only on a predicate source");
  if (o->kind == OPD_SYM && o->sym->kind == SYM_LABEL && o->sym->target < 0 && kind != 'l' &&
      kind != '*')
    not_declared(P, in, o);
  if (o->kind == OPD_PAIR) opd_error(P, in, o, "unexpected 'd|p' pair");
  switch (kind) {
  case 'd': case 'D': case 'p':
    if (o->kind == OPD_SINK && kind == 'D') return;
    if (o->kind != OPD_REG)
      opd_error(P, in, o, "expected a %sregister as destination",
                kind == 'p' ? "predicate " : "");
    if (o->sym->kind == SYM_SREG)
      opd_error(P, in, o, "special register '%s' cannot be written", o->sym->name);
    check_reg(P, in, o, e, wide);
    return;
  case 'q':   /* ptxas takes an integer as a predicate: vote.sync.all.pred p, 1, m */
    if (o->kind == OPD_IMM) return;
    if (o->kind != OPD_REG) opd_error(P, in, o, "expected a predicate register or an integer");
    check_reg(P, in, o, e, false);
    return;
  case 'a': case 's': case 'i':
    if (o->kind == OPD_IMM || o->kind == OPD_FIMM) { check_imm(P, in, o, e); return; }
    if (kind == 'i') opd_error(P, in, o, "expected a constant");
    if (kind == 's' && o->kind == OPD_SYM &&
        (o->sym->kind == SYM_VAR || o->sym->kind == SYM_FUNC))
      return;
    if (o->kind != OPD_REG) opd_error(P, in, o, "expected a register or constant");
    check_reg(P, in, o, e, wide);
    return;
  case 'r':
    if (o->kind != OPD_REG) opd_error(P, in, o, "expected a register");
    check_reg(P, in, o, e, wide);
    return;
  case 'v':
    /* every row that starts with a v operand (ld, ldu, atom.vN,
     * multimem.ld_reduce) writes it: no constants there */
    if (o == &in->opds[0] && (o->kind == OPD_IMM || o->kind == OPD_FIMM))
      opd_error(P, in, o, "expected a register as destination");
    if (o == &in->opds[0] && o->kind == OPD_VEC)
      for (int i = 0; i < o->n; i++)
        if (o->elems[i].kind == OPD_IMM || o->elems[i].kind == OPD_FIMM)
          opd_error(P, in, &o->elems[i], "expected a register or _ in a destination vector");
    if (in->vec > 1 && o->kind == OPD_VEC) {
      if (o->n != in->vec)
        opd_error(P, in, o, "expected a vector of %d elements", in->vec);
      bool sreg = false, imm = false;   /* ptxas refuses {7, %tid.x} */
      for (int i = 0; i < o->n; i++) {
        sreg |= o->elems[i].kind == OPD_REG && o->elems[i].sym->kind == SYM_SREG;
        imm |= o->elems[i].kind == OPD_IMM || o->elems[i].kind == OPD_FIMM;
      }
      if (sreg && imm)
        opd_error(P, in, o, "a vector cannot mix special registers and constants");
      for (int i = 0; i < o->n; i++) {
        const Operand *el = &o->elems[i];
        if (el->kind == OPD_REG) check_reg(P, in, el, float_elem(e, el), wide);
        else if (el->kind == OPD_IMM || el->kind == OPD_FIMM) check_imm(P, in, el, e);
        else if (el->kind != OPD_SINK)
          opd_error(P, in, el, "expected a register in the vector");
        else if (o != &in->opds[0])   /* ptxas: "Sink '_' not allowed as a source operand" */
          opd_error(P, in, el, "'_' cannot be a source");
      }
      return;
    }
    if (in->vec > 1) {   /* a component (v.x) is a scalar here too */
      if ((in->op == OP_MOV_V || in->op == OP_MOV_V64) && o != &in->opds[0])   /* ptxas takes it */
        opd_error(P, in, o, "a scalar source of 'mov.v%d' is not supported (write a brace list)",
                  in->vec);
      opd_error(P, in, o, "expected a vector operand {...}");
    }
    if (in->vec == 1 && o->kind == OPD_VEC)
      opd_error(P, in, o, "unexpected vector operand without a .v2/.v4 modifier");
    if (o->kind == OPD_IMM || o->kind == OPD_FIMM) { check_imm(P, in, o, e); return; }
    if (o->kind != OPD_REG) opd_error(P, in, o, "expected a register");
    check_reg(P, in, o, e, wide);
    return;
  case 'm':
    if (o->kind != OPD_ADDR) opd_error(P, in, o, "expected an address [...]");
    if (o->n)   /* [a, {b, c}]: only tex and tensor forms ("*" rows) take lists; ptxas agrees */
      opd_error(P, in, o, "expected an address [...], not a bracketed list");
    check_address(P, in, o);
    return;
  case 'l':
    if (o->kind != OPD_SYM || o->sym->kind != SYM_LABEL)
      opd_error(P, in, o, "expected a label");
    return;
  case 'f':
    if (o->kind == OPD_REG) { check_reg(P, in, o, TY_B64, false); return; }
    if (o->kind != OPD_SYM || o->sym->kind != SYM_FUNC)
      opd_error(P, in, o, "expected a function name or register");
    return;
  case 'c':
    if (o->kind != OPD_LIST) opd_error(P, in, o, "expected a list (...)");
    return;
  case 'b':   /* a matrix fragment: its count and widths are the form's (lowering checks them) */
    if (o->kind != OPD_VEC) {
      if (o->kind != OPD_REG || o->sym->kind != SYM_REG)
        opd_error(P, in, o, "expected a register or a list {...} of registers");
      return;
    }
    for (int i = 0; i < o->n; i++) {
      const Operand *el = &o->elems[i];
      bool dst = o == &in->opds[0];
      if (el->kind == OPD_SINK && dst) continue;
      if ((el->kind == OPD_IMM || el->kind == OPD_FIMM) && !dst) continue;
      if (el->kind != OPD_REG || el->sym->kind != SYM_REG)
        opd_error(P, in, el, dst ? "expected a register or _ in the list"
                                 : "expected a register or constant in the list");
    }
    return;
  case 'e': case 'k':
    if (o->kind == OPD_VEC) { check_brace(P, in, o, e, kind == 'e'); return; }
    check_one(P, in, o, kind == 'e' ? 'd' : 's', idx, tmode, fixed);
    return;
  case 't':
    if (o->kind != OPD_SYM || (o->sym->kind != SYM_PROTO && o->sym->kind != SYM_TARGETS))
      opd_error(P, in, o, "expected a .callprototype or .branchtargets name");
    return;
  default:
    return;
  }
}

/* call [(rets),] f [, (args)] [, proto]: the lists must match the callee's
 * (or the prototype's) parameters; ptxas: "Call has wrong number of
 * parameters". */
/* A vector passed to a function (§6.4.3) is a vector register named whole
 * for a .reg vector formal of its shape; ptxas reads no component in a
 * call list ("syntax error") and refuses a vector for a scalar .reg formal
 * and the reverse ("Type of argument does not match formal parameter"). A
 * vector for a .param formal is left to lowering, which refuses it. */
static void check_call_vector(Parser *P, const Insn *in, const Operand *o, const Symbol *formal) {
  bool vreg = o->kind == OPD_REG && o->sym->kind == SYM_REG && o->sym->vec > 1;
  if (!formal || formal->kind != SYM_REG || (!vreg && formal->vec < 2)) return;
  if (formal->vec < 2)
    opd_error(P, in, o, "'%s' is a .v%d vector but formal parameter '%s' is a scalar", o->sym->name,
              o->sym->vec, formal->name);
  if (!vreg || o->sym->vec != formal->vec || type_size(o->sym->type) != type_size(formal->type))
    opd_error(P, in, o, "formal parameter '%s' is a .v%d .%s vector: the argument must be a "
              "vector register of that shape", formal->name, formal->vec, type_name(formal->type));
}

static void check_call(Parser *P, const Insn *in) {
  int i = 0, nrets = 0, nargs = 0;
  if (i < in->nopds && in->opds[i].kind == OPD_LIST) nrets = in->opds[i++].n;
  if (i >= in->nopds) return;
  const Operand *callee = &in->opds[i++];
  if (i < in->nopds && in->opds[i].kind == OPD_LIST) nargs = in->opds[i++].n;
  int args_at = nargs ? i - 1 : 0;
  for (int l = 0; l < 2; l++) {
    const Operand *list = l ? (nargs ? &in->opds[args_at] : NULL) : (nrets ? &in->opds[0] : NULL);
    for (int k = 0; list && k < list->n; k++)
      if (list->elems[k].kind == OPD_REG && list->elems[k].comp >= 0)
        opd_error(P, in, &list->elems[k], "a call argument cannot be a component of '%s'",
                  list->elems[k].sym->name);
  }
  const Function *f = NULL;
  if (callee->kind == OPD_SYM && callee->sym->kind == SYM_FUNC) f = callee->sym->func;
  else if (i < in->nopds && in->opds[i].kind == OPD_SYM && in->opds[i].sym->kind == SYM_PROTO)
    f = in->opds[i].sym->func;
  if (!f) return;
  const char *name = callee->kind == OPD_SYM ? callee->sym->name : f->name;
  uint32_t w = (uint32_t)strlen(insn_mnemonic(in));
  if (nargs != f->nparams)
    diag_error(P, in->line, in->col, w, "call passes %d parameter%s to '%s', which takes %d",
               nargs, nargs == 1 ? "" : "s", name, f->nparams);
  if (nrets != f->nrets)
    diag_error(P, in->line, in->col, w,
               "call receives %d return parameter%s from '%s', which returns %d", nrets,
               nrets == 1 ? "" : "s", name, f->nrets);
  for (int k = 0; k < nargs; k++) check_call_vector(P, in, &in->opds[args_at].elems[k], f->params[k]);
  for (int k = 0; k < nrets; k++) check_call_vector(P, in, &in->opds[0].elems[k], f->rets[k]);
}

/* st to an input parameter of the function being parsed (its own .param,
 * kernel or .func); ptxas: "Illegal to write to function input parameter". */
static void check_param_write(Parser *P, const Insn *in) {
  if (strcmp(insn_mnemonic(in), "st") || !in->nopds || !P->fb) return;
  const Operand *o = &in->opds[0];
  if (o->kind != OPD_ADDR || o->n || !o->sym || o->sym->kind != SYM_VAR ||
      o->sym->space != SP_PARAM)
    return;
  for (int i = 0; i < P->fb->params.n; i++)
    if (P->fb->params.v[i] == o->sym)
      diag_error(P, in->line, in->col, 2, "'st' cannot write to input parameter '%s'",
                 o->sym->name);
}

/* The tensor map of a tensor copy ([tensorMap, {coordinates}]): a register
 * holding its generic address, or a .global variable named directly; ptxas
 * refuses any other state space's symbol there ("State space mismatch
 * between instruction and address"), a kernel's .param CUtensorMap
 * included: its generic address comes from cvta.param. */
static void check_tensor_map(Parser *P, const Insn *in) {
  if (in->op != OP_CP_ASYNC_BULK_TENSOR_G2S && in->op != OP_CP_ASYNC_BULK_TENSOR_S2G &&
      in->op != OP_CP_REDUCE_ASYNC_BULK_TENSOR && in->op != OP_CP_ASYNC_BULK_PREFETCH_TENSOR)
    return;
  for (int i = 0; i < in->nopds; i++) {
    const Operand *o = &in->opds[i];
    if (o->kind != OPD_ADDR || o->n != 2 || o->elems[1].kind != OPD_VEC) continue;
    const Operand *m = &o->elems[0];
    if (m->kind == OPD_SYM && m->sym && m->sym->kind == SYM_VAR && m->sym->space != SP_GLOBAL)
      opd_error(P, in, m, "the tensor map '%s' is a .%s variable: name a .global one, or give its "
                "generic address in a register (mov.u64 %%rd, %s; cvta.%s.u64 %%rd, %%rd)",
                m->sym->name, space_name(m->sym->space), m->sym->name, space_name(m->sym->space));
  }
}

/* Does a whole vector register stand for its components in an operand of
 * this kind (§6.4.3)? In the vector operands of .v2/.v4 forms (ld, st,
 * mov, atom, red: v) and in mov's pack and unpack (e, k: mov.b64 %rd, v
 * with v a .v2 .u32 is mov.b64 %rd, {v.x, v.y}, as ptxas reads it). */
static bool takes_vector(const Insn *in, char kind) {
  return (kind == 'v' && in->vec > 1) || kind == 'e' || kind == 'k';
}

/* A vector register named whole (v for {v.x, v.y, ...}, §6.4.3; also a
 * .v4 special register, %tid for {%tid.x, ..., %tid.w}) where the
 * instruction takes a vector: rewritten into the brace list of its
 * components, so the checks and every later layer see one form. */
static void expand_vector(Parser *P, Operand *o) {
  if (o->kind != OPD_REG || o->comp >= 0) return;
  int n = o->sym->kind == SYM_SREG ? o->sym->sreg_comps : o->sym->vec;
  if (n < 2) return;
  Operand *el = arena_alloc(&P->m->arena, (size_t)n * sizeof *el);
  for (int i = 0; i < n; i++) {
    el[i] = *o;
    el[i].comp = (int8_t)i;
  }
  o->kind = OPD_VEC;
  o->sym = NULL;   /* a list has no symbol (ir.h: not a union with elems) */
  o->elems = el;
  o->n = (uint8_t)n;
}

/* ld/st of more than 128 bits (.v8.b32, .v4.b64): ptxas's "256 bit wide
 * load/store", global (or generic) only, from sm_100 and PTX ISA 8.8. */
static void check_wide_ldst(Parser *P, const Insn *in) {
  switch ((Opcode)in->op) {
  case OP_LD: case OP_LD_NC: case OP_LD_VOLATILE: case OP_LD_SEM:
  case OP_ST: case OP_ST_VOLATILE: case OP_ST_SEM: break;
  default: return;
  }
  int bytes = in->vec * type_size((Type)in->types[0]);
  if (bytes <= 16) return;
  bool cluster;
  Space sp = insn_space(in, &cluster);
  const char *mn = insn_mnemonic(in);
  uint32_t w = (uint32_t)strlen(mn);
  int ver = P->m->ver_major * 10 + P->m->ver_minor;
  if (bytes > 32 || type_size((Type)in->types[0]) == 16)   /* ptxas: "exceeds 128 bit limit" */
    diag_error(P, in->line, in->col, w, "'%s.v%d.%s' is not allowed: a vector access is at most "
               "256 bits, of elements of at most 64", mn, in->vec, type_name((Type)in->types[0]));
  if (sp != SP_NONE && sp != SP_GLOBAL)
    diag_error(P, in->line, in->col, w, "a 256-bit '%s' must be .global or generic", mn);
  if (P->m->sm && P->m->sm < 100)
    diag_error(P, in->line, in->col, w, "a 256-bit '%s' requires .target sm_100 or higher "
               "(this module targets sm_%d)", mn, P->m->sm);
  if (ver < 88)
    diag_error(P, in->line, in->col, w, "a 256-bit '%s' requires PTX ISA version 8.8 or higher "
               "(this module is %d.%d)", mn, P->m->ver_major, P->m->ver_minor);
}

/* ld/st.volatile.local: from PTX ISA 9.1 (ptxas 13.4: "Feature 'ld/st with
 * .local.volatile' requires PTX ISA .version 9.1 or later"; 9.0 allows
 * .volatile on .global and .shared only). NVRTC 13.5 writes it (numba's
 * nrt.cu). */
static void check_volatile_local(Parser *P, const Insn *in) {
  if (in->op != OP_LD_VOLATILE && in->op != OP_ST_VOLATILE) return;
  bool cluster;
  if (insn_space(in, &cluster) != SP_LOCAL || P->m->ver_major * 10 + P->m->ver_minor >= 91) return;
  const char *mn = insn_mnemonic(in);
  diag_error(P, in->line, in->col, (uint32_t)strlen(mn), "'%s.volatile.local' requires PTX ISA version 9.1 "
             "or higher (this module is %d.%d)", mn, P->m->ver_major, P->m->ver_minor);
}

/* The .op/type pairs of red.async (PTX ISA 9.0 §9.7.13.6) and of
 * cp.reduce.async.bulk to shared::cluster and to global (§9.7.9.25.4.2),
 * as the ISA's tables give them; f16/bf16 .add also requires .noftz. */
typedef struct RedTypes { const char *op, *types; } RedTypes;
static const RedTypes RED_ASYNC_TYPES[] = {
  {".inc", "u32"}, {".dec", "u32"}, {".min", "u32 s32"}, {".max", "u32 s32"},
  {".add", "u32 s32 u64"}, {".and", "b32"}, {".or", "b32"}, {".xor", "b32"}, {NULL, NULL}};
static const RedTypes REDUCE_GLOBAL_TYPES[] = {
  {".inc", "u32"}, {".dec", "u32"}, {".min", "u32 s32 u64 s64 f16 bf16"},
  {".max", "u32 s32 u64 s64 f16 bf16"}, {".add", "u32 s32 u64 f32 f64 f16 bf16"},
  {".and", "b32 b64"}, {".or", "b32 b64"}, {".xor", "b32 b64"}, {NULL, NULL}};

static void check_red_types(Parser *P, const Insn *in) {
  const RedTypes *tab = in->op == OP_RED_ASYNC || in->op == OP_CP_REDUCE_ASYNC_BULK_S2C
                            ? RED_ASYNC_TYPES
                        : in->op == OP_CP_REDUCE_ASYNC_BULK_S2G ? REDUCE_GLOBAL_TYPES : NULL;
  if (!tab) return;
  const char *t = type_name((Type)in->types[0]), *mn = insn_mnemonic(in);
  for (; tab->op; tab++) {
    if (!insn_has_mod(in, tab->op)) continue;
    size_t n = strlen(t);
    for (const char *p = tab->types; *p; p += strcspn(p, " "), p += *p == ' ') {
      if (strcspn(p, " ") != n || strncmp(p, t, n)) continue;
      if (!strcmp(tab->op, ".add") && (!strcmp(t, "f16") || !strcmp(t, "bf16")) &&
          !insn_has_mod(in, ".noftz"))
        diag_error(P, in->line, in->col, (uint32_t)strlen(mn), "'%s.add.%s' requires .noftz",
                   mn, t);
      return;
    }
    diag_error(P, in->line, in->col, (uint32_t)strlen(mn), "'%s%s' does not take .%s (it takes "
               ".%s)", mn, tab->op, t, tab->types);
    return;
  }
}

/* Before the operand checks: vectors named whole become lists
 * (expand_vector), and no half of a d|p pair is a vector component
 * (ptxas: a syntax error). */
static void prepare_vectors(Parser *P, Insn *in, const OpPattern *pat, const bool *absent,
                            int max) {
  for (int i = 0, k = 0; k < in->nopds && i < max; i++) {
    if (absent[i]) continue;
    Operand *o = &in->opds[k++];
    if (takes_vector(in, pat->opds[i].kind)) expand_vector(P, o);
    for (int h = 0; o->kind == OPD_PAIR && h < 2; h++)
      if (o->elems[h].kind == OPD_REG && o->elems[h].comp >= 0)
        opd_error(P, in, &o->elems[h], "a d|p pair cannot hold a component of '%s'",
                  o->elems[h].sym->name);
  }
}

void validate_operands(Parser *P, Insn *in) {
  const OpPattern *pat = &op_patterns()[in->op];
  int min = 0, max = 0;
  bool rest = false;
  for (int i = 0; i < pat->nopds; i++) {
    if (pat->opds[i].kind == '*') { rest = true; break; }
    max++;
    if (!pat->opds[i].optional) min++;
  }
  const char *mn = insn_mnemonic(in);
  if (in->nopds < min)
    diag_error(P, in->line, in->col, (uint32_t)strlen(mn), "'%s' needs %d operand%s, found %d",
               mn, min, min == 1 ? "" : "s", in->nopds);
  if (!rest && in->nopds > max)
    diag_error(P, in->line, in->opds[max].col, 1, "too many operands for '%s' (at most %d)",
               mn, max);
  /* With fewer operands than the pattern has, the last optional ones are
   * the absent ones (bar.red's thread count sits before its predicate). */
  bool absent[PAT_MAX_OPDS] = {false};
  for (int i = max - 1, skip = in->nopds < max ? max - in->nopds : 0; i >= 0 && skip; i--)
    if (pat->opds[i].optional) { absent[i] = true; skip--; }
  /* mov.bN packs or unpacks: a brace list on both sides is not a move
   * (ptxas: "Illegal vector-vector operands") */
  if (in->op == OP_MOV_B && in->nopds == 2 && in->opds[0].kind == OPD_VEC &&
      in->opds[1].kind == OPD_VEC)
    opd_error(P, in, &in->opds[1], "'mov.%s' takes a brace list on one side only",
              type_name((Type)in->types[0]));
  prepare_vectors(P, in, pat, absent, max);
  for (int i = 0, k = 0; k < in->nopds && i < max; i++) {
    if (absent[i]) continue;
    const OpdSpec *sp = &pat->opds[i];
    Operand *o = &in->opds[k++];
    /* A brace list of one element is that element, as ptxas reads it
     * (Triton: ld.global.b32 { %r1 }, [%rd1]; mov.b32 {%f1}, %r2). */
    if (strchr("vek", sp->kind) && in->vec == 1 && o->kind == OPD_VEC && o->n == 1 &&
        o->elems[0].kind != OPD_SINK)
      *o = o->elems[0];
    if (o->kind == OPD_PAIR) {
      if (!sp->pair) opd_error(P, in, o, "unexpected 'd|p' pair");
      check_one(P, in, &o->elems[0], sp->kind, sp->type_index, (int)sp->tmode, sp->fixed);
      check_one(P, in, &o->elems[1], sp->pair_kind, sp->pair_type_index, OT_INSN, TY_NONE);
    } else {
      if (sp->pair && !sp->pair_optional)
        opd_error(P, in, o, "expected a pair d|p here");
      check_one(P, in, o, sp->kind, sp->type_index, (int)sp->tmode, sp->fixed);
      check_value(P, in, o, sp);
    }
  }
  if (in->op == OP_CALL) check_call(P, in);
  check_wide_ldst(P, in);
  check_volatile_local(P, in);
  check_red_types(P, in);
  check_param_write(P, in);
  check_tensor_map(P, in);
  validate_matrix_operands(P, in);
}

/* Kernel parameter space, as ptxas limits it ("Entry function uses too
 * much parameter space"): 4352 bytes; 32764 from PTX ISA 8.1 on .target
 * sm_70 and higher (CUDA 12.1's large kernel parameters). ptxas sets no
 * limit on the parameters of a .func. */
enum { PARAM_SPACE = 4352, PARAM_SPACE_LARGE = 32764 };

/* Lays out one parameter list in order, each at its alignment, in 64 bits
 * (Symbol.offset: what the launch buffer and ptxvm_function_get_param use)
 * and refuses a kernel whose parameters end past the limit, at the first
 * parameter that crosses it. */
static void layout_params(Parser *P, const Function *f, Symbol *const *ps, int n) {
  const Module *m = P->m;
  bool large = m->ver_major * 10 + m->ver_minor >= 81 && m->sm >= 70;
  uint64_t limit = large ? PARAM_SPACE_LARGE : PARAM_SPACE, off = 0;
  for (int i = 0; i < n; i++) {
    Symbol *s = ps[i];
    uint64_t a = symbol_align(s);
    off = off > UINT64_MAX - a ? UINT64_MAX : (off + a - 1) / a * a;
    s->offset = off;
    off = off > UINT64_MAX - s->size ? UINT64_MAX : off + s->size;
    if (f->is_entry && off > limit)
      diag_error(P, s->line, s->col, (uint32_t)strlen(s->name),
                 "kernel '%s' uses too much parameter space: '%s' ends at byte %llu, past the "
                 "limit of %llu bytes%s", f->name, s->name, (unsigned long long)off,
                 (unsigned long long)limit,
                 large ? "" : " (32764 with .version 8.1 or later and .target sm_70 or higher)");
  }
}

void validate_params(Parser *P, const Function *f) {
  layout_params(P, f, f->params, f->nparams);
  layout_params(P, f, f->rets, f->nrets);
}

void validate_target(Parser *P, const Insn *in) {
  const OpInfo *oi = &op_info[in->op];
  const Module *m = P->m;
  if (m->sm && oi->min_sm > m->sm)
    diag_error(P, in->line, in->col, (uint32_t)strlen(oi->mnemonic),
               "'%s' requires .target sm_%d or higher (this module targets sm_%d)",
               oi->mnemonic, oi->min_sm, m->sm);
  int ver = m->ver_major * 10 + m->ver_minor;
  char needs[256];
  if (m->sm && !target_has_op(in->op, m->sm, m->sm_suffix, ver, needs, sizeof needs))
    diag_error(P, in->line, in->col, (uint32_t)strlen(oi->mnemonic),
               "'%s' is architecture- or family-specific: it needs .target %s (this module is "
               "%d.%d for sm_%d%.1s)", oi->mnemonic, needs, m->ver_major, m->ver_minor, m->sm,
               m->sm_suffix ? &m->sm_suffix : "");
  /* The warp collectives without .sync (PTX ISA 9.0 9.7.8.6, 9.7.8.8) are
   * gone for sm_70 and later from PTX ISA 6.4, as ptxas says. */
  if (op_has(in->op, OPF_GONE) && m->sm >= 70 && ver >= 64)
    diag_error(P, in->line, in->col, (uint32_t)strlen(oi->mnemonic),
               "'%s' without .sync is not supported on .target sm_70 and higher from PTX ISA "
               "version 6.4 (use %s.sync)", oi->mnemonic, oi->mnemonic);
  if (oi->min_ptx > ver)
    diag_error(P, in->line, in->col, (uint32_t)strlen(oi->mnemonic),
               "'%s' requires PTX ISA version %d.%d or higher (this module is %d.%d)",
               oi->mnemonic, oi->min_ptx / 10, oi->min_ptx % 10, m->ver_major, m->ver_minor);
}
