/* opcov.c: which rows of opcodes.def execute, generated from the table.
 *
 * For every row it builds small instances of the instruction from the row's
 * own patterns (each alternative of its first type modifier, the first
 * alternative of other required modifiers, optional ones left out; operands
 * of the kinds and types the operand pattern asks for), loads each through
 * the front end and lowers it. An instance is valid when it loads as that
 * row and lowers or is refused as "not supported"; one the validator or
 * lowering rejects otherwise (not an ISA form: mma .m16n8k8 has no sparse
 * .f16 form; cp.async's size must be 4, 8 or 16), or that another row of
 * the mnemonic takes, is not. When a row has such invalid instances, it
 * also tries the instances that change 1, 2 then 3 items of the first
 * (the few-valued items before the types), at most MAX_TRIES in all, until
 * MAX_VALID valid ones. A row "executes" when every valid instance lowers,
 * "partly" when some do, "not yet" when none does (the family's selector
 * refuses it), "unchecked" when it found no valid one (operands "*" cannot
 * be synthesised). A matrix fragment (kind b) starts as one register and
 * takes the count the lowering's refusal names ("(operand K) needs N
 * registers").
 *   build/opcov            prints one line per row, then the totals */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/front/front.h"
#include "../src/lower/lower.h"

/* Per row: the most instances loaded, the most valid ones kept. */
enum { MAX_TRIES = 1000, MAX_VALID = 24 };

static bool is_type(const char *m) { return type_lookup(m + 1, (int)strlen(m) - 1) != TY_NONE; }

/* The type an operand spec takes under the instance's types. */
static Type opd_type(const OpdSpec *o, char kind, uint8_t idx, const Type *types, int nt) {
  if (kind == 'p' || kind == 'q') return TY_PRED;
  if (o && o->tmode == OT_FIXED) return o->fixed;
  Type t = idx < nt ? types[idx] : TY_B32;
  if (o && o->tmode == OT_ANY) return TY_B32;
  if (o && o->tmode == OT_2X) {
    int size = type_size(t) * 2;
    TypeKind k = type_kind(t);
    if (k == K_S) return size == 8 ? TY_S64 : size == 4 ? TY_S32 : TY_S16;
    if (k == K_F) return size == 8 ? TY_F64 : TY_F32;
    return size == 8 ? TY_U64 : size == 4 ? TY_U32 : TY_U16;
  }
  if (type_kind(t) == K_A || type_size(t) == 0) return TY_B32;
  return t;
}

/* Appends one operand of `kind` (count: the registers of a b list);
 * returns false when it cannot be made. */
static bool put_operand(char *out, size_t cap, const OpdSpec *o, char kind, uint8_t idx,
                        const Type *types, int nt, int vec, int count) {
  size_t n = strlen(out);
  Type t = opd_type(o, kind, idx, types, nt);
  switch (kind) {
  case 'b': {   /* 64-bit types in .b64 registers, f32 in .f32, the rest in .b32 */
    const char *r = type_size(t) == 8 ? "b64" : t == TY_F32 ? "f32" : "b32";
    snprintf(out + n, cap - n, "{");
    for (int i = 0; i < count; i++)
      snprintf(out + strlen(out), cap - strlen(out), "%s%%t_%s", i ? ", " : "", r);
    snprintf(out + strlen(out), cap - strlen(out), "}");
    return true;
  }
  case 'd': case 'D': case 'a': case 'r': case 's': case 'p': case 'q':
    snprintf(out + n, cap - n, "%%t_%s", type_name(t));
    return true;
  case 'v':
    if (vec == 1) snprintf(out + n, cap - n, "%%t_%s", type_name(t));
    else {
      const char *r = type_name(t);
      snprintf(out + n, cap - n, vec == 2 ? "{%%t_%s, %%t_%s}" : "{%%t_%s, %%t_%s, %%t_%s, %%t_%s}",
               r, r, r, r);
    }
    return true;
  case 'i': {
    long long v = o && o->ranged ? o->lo : 0;
    if (o && o->multiple && v % o->multiple) v += o->multiple - v % o->multiple;
    snprintf(out + n, cap - n, "%lld", v);
    return true;
  }
  case 'm': snprintf(out + n, cap - n, "[%%t_b64]"); return true;
  case 'l': snprintf(out + n, cap - n, "L_end"); return true;
  case 'f': snprintf(out + n, cap - n, "callee"); return true;
  default: return false;
  }
}

/* Builds the PTX text of one instance of row r with modifiers mods[0..nm). */
static bool make_instance(int r, const OpPattern *pat, const char *const *mods, int nm,
                          const int *counts, char *text, size_t cap) {
  Type types[4];
  int nt = 0, vec = 1;
  char insn[512];
  snprintf(insn, sizeof insn, "%s", pat->base);
  for (int j = 0; j < nm; j++) {
    strncat(insn, mods[j], sizeof insn - strlen(insn) - 1);
    if (is_type(mods[j]) && nt < 4) types[nt++] = type_lookup(mods[j] + 1, (int)strlen(mods[j]) - 1);
    if (!strcmp(mods[j], ".v2")) vec = 2;
    if (!strcmp(mods[j], ".v4")) vec = 4;
    if (!strcmp(mods[j], ".v8")) vec = 8;
  }
  if (vec == 8) return false;
  strncat(insn, " ", sizeof insn - strlen(insn) - 1);
  for (int i = 0; i < pat->nopds; i++) {
    const OpdSpec *o = &pat->opds[i];
    if (o->kind == '*' || o->kind == 'c' || o->kind == 't') return false;
    if (o->optional) break;
    if (i) strncat(insn, ", ", sizeof insn - strlen(insn) - 1);
    if (!put_operand(insn, sizeof insn, o, o->kind, o->type_index, types, nt, vec, counts[i]))
      return false;
    if (o->pair && !o->pair_optional) {
      strncat(insn, "|", sizeof insn - strlen(insn) - 1);
      if (!put_operand(insn, sizeof insn, NULL, o->pair_kind, o->pair_type_index, types, nt, vec, 1))
        return false;
    }
  }
  int sm = op_info[r].min_sm < 90 ? 90 : op_info[r].min_sm;
  snprintf(text, cap,
           ".version 9.0\n.target sm_%da\n.address_size 64\n"
           ".func callee() { ret; }\n.visible .entry k() {\n"
           "  .reg .pred %%t_pred;\n"
           "  .reg .b8 %%t_b8; .reg .u8 %%t_u8; .reg .s8 %%t_s8;\n"
           "  .reg .b16 %%t_b16; .reg .u16 %%t_u16; .reg .s16 %%t_s16; .reg .f16 %%t_f16; .reg .bf16 %%t_bf16;\n"
           "  .reg .b32 %%t_b32; .reg .u32 %%t_u32; .reg .s32 %%t_s32; .reg .f32 %%t_f32;\n"
           "  .reg .f16x2 %%t_f16x2; .reg .bf16x2 %%t_bf16x2; .reg .u16x2 %%t_u16x2; .reg .s16x2 %%t_s16x2;\n"
           "  .reg .b64 %%t_b64; .reg .u64 %%t_u64; .reg .s64 %%t_s64; .reg .f64 %%t_f64; .reg .b128 %%t_b128;\n"
           "  %s;\nL_end:\n  ret;\n}\n",
           sm, insn);
  return true;
}

/* The outcome of one instance. */
enum { T_NONE, T_INVALID, T_REFUSED, T_LOWERS };

/* Loads and lowers the instance of row r with choice[i] the alternative of
 * item i (-1: an optional item left out): T_NONE when it cannot be built,
 * T_INVALID when it is not a form of row r (the validator or the lowering
 * rejects it other than as "not supported", or another row takes it),
 * T_REFUSED (its refusal in `why`) or T_LOWERS. */
static int try_instance(int r, const OpPattern *pat, const int *choice, char *why_out, size_t cap) {
  const char *mods[PAT_MAX_ITEMS];
  int nm = 0;
  for (int i = 0; i < pat->nitems; i++)
    if (choice[i] >= 0) mods[nm++] = pat->items[i].alts[choice[i]];
  char text[8192];
  int counts[PAT_MAX_OPDS];
  for (int i = 0; i < PAT_MAX_OPDS; i++) counts[i] = 1;
  Module *m = NULL;
  Device *dev = NULL;
  char *lerr = NULL;
  Program *p = NULL;
  const char *why = NULL;
  int out = T_NONE;
  for (int attempt = 0; attempt < 8; attempt++) {   /* b lists: resized by the refusal */
    program_free(p); free(lerr); dev_destroy(dev); module_free(m);
    m = NULL; dev = NULL; lerr = NULL; p = NULL;
    if (!make_instance(r, pat, mods, nm, counts, text, sizeof text)) break;
    char *err = NULL;
    m = front_parse(text, strlen(text), "opcov.ptx", &err);
    if (!m) {   /* invalid; an mma's fragment counts are the validator's (mmaform.c) */
      lerr = err;
      why = err;
      out = T_INVALID;
    } else {
      bool own = false;   /* rows of one mnemonic are tried in order: is it row r's? */
      for (int f = 0; f < m->nfuncs; f++)
        for (int i = 0; i < m->funcs[f]->ninsns; i++) own |= m->funcs[f]->insns[i].op == r;
      if (!own) { out = T_INVALID; break; }
      dev = dev_create((size_t)1 << 24);
      p = dev ? program_build(m, dev, &lerr) : NULL;
      why = p && p->nrefusals ? p->refusals[0].msg : lerr;   /* lower.c "refusals" */
      out = p && !p->nrefusals ? T_LOWERS : why && strstr(why, "is not supported") ? T_REFUSED : T_INVALID;
    }
    const char *need = why ? strstr(why, "(operand ") : NULL;
    int opd, want;
    if (!need || sscanf(need, "(operand %d) needs %d register", &opd, &want) != 2 ||
        opd < 1 || opd > PAT_MAX_OPDS || want < 1 || want > 128 || counts[opd - 1] == want)
      break;
    counts[opd - 1] = want;
  }
  if (out == T_REFUSED) {
    const char *msg = strstr(why, ": ");
    snprintf(why_out, cap, "%.*s", (int)strcspn(msg ? msg + 2 : why, "\n"), msg ? msg + 2 : why);
  }
  program_free(p);
  free(lerr);
  dev_destroy(dev);
  module_free(m);
  return out;
}

/* One row's tally: the valid instances found, those that lower, the first refusal. */
typedef struct {
  int r, valid, ok, tries, invalid;
  const OpPattern *pat;
  char refusal[160];
} Tally;

static void tally(Tally *t, const int *choice) {
  char why[160] = "";
  t->tries++;
  int o = try_instance(t->r, t->pat, choice, why, sizeof why);
  if (o == T_INVALID) t->invalid++;
  if (o == T_REFUSED || o == T_LOWERS) t->valid++;
  if (o == T_LOWERS) t->ok++;
  if (o == T_REFUSED && !t->refusal[0]) snprintf(t->refusal, sizeof t->refusal, "%s", why);
}

/* Every instance at `left` more changed items, from item `from` on, of the
 * base choice (the first alternative, optional items out): each changed
 * item takes another alternative (an optional one: any). types: 0 changes
 * no type item, 1 changes at least one (ntyped: those changed so far). */
static void around(Tally *t, int *choice, int from, int left, int types, int ntyped) {
  if (left == 0) { if (types == (ntyped > 0)) tally(t, choice); return; }
  for (int i = from; i < t->pat->nitems; i++) {
    const PatItem *it = &t->pat->items[i];
    bool typed = is_type(it->alts[0]);
    if (typed && !types) continue;
    int base = choice[i];
    for (int a = it->optional ? 0 : 1; a < it->nalts; a++) {
      if (t->tries >= MAX_TRIES || t->valid >= MAX_VALID) break;
      choice[i] = a;
      around(t, choice, i + 1, left - 1, types, ntyped + typed);
    }
    choice[i] = base;
  }
}

int main(void) {
  const OpPattern *pats = op_patterns();
  int totals[4] = {0};
  static const char *const verdict[] = {"executes", "partly", "not yet", "unchecked"};
  for (int r = 0; r < OP_COUNT; r++) {
    const OpPattern *pat = &pats[r];
    Tally t = {.r = r, .pat = pat};
    int choice[PAT_MAX_ITEMS], type_item = -1;
    for (int i = 0; i < pat->nitems; i++) choice[i] = pat->items[i].optional ? -1 : 0;
    for (int i = 0; i < pat->nitems && type_item < 0; i++)
      if (!pat->items[i].optional && pat->items[i].nalts > 1 && is_type(pat->items[i].alts[0]))
        type_item = i;
    int count = type_item < 0 ? 1 : pat->items[type_item].nalts;
    for (int k = 0; k < count && k < MAX_VALID; k++) {   /* each type of the first type item */
      if (type_item >= 0) choice[type_item] = k;
      tally(&t, choice);
    }
    if (type_item >= 0) choice[type_item] = 0;
    /* Invalid combinations: search near the base for valid ones, changing
     * the few-valued items (shape, layout, flags) before the types. */
    for (int types = 0; types < 2; types++)
      for (int d = 1; d <= 3 && t.invalid && t.valid < MAX_VALID && t.tries < MAX_TRIES; d++)
        around(&t, choice, 0, d, types, 0);
    int v = t.valid == 0 ? 3 : t.ok == t.valid ? 0 : t.ok ? 1 : 2;
    totals[v]++;
    printf("%-9s %-24s %-26s %s\n", verdict[v], op_info[r].mnemonic, op_info[r].name,
           v == 1 || v == 2 ? t.refusal : "");
  }
  printf("%d rows: %d execute, %d partly, %d not yet, %d unchecked (operands \"*\" or "
         "no valid synthetic instance)\n",
         OP_COUNT, totals[0], totals[1], totals[2], totals[3]);
  return 0;
}
