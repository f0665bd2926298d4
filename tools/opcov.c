/* opcov.c: which rows of opcodes.def execute, generated from the table.
 *
 * For every row it builds small instances of the instruction from the row's
 * own patterns (each alternative of its type modifiers, the first
 * alternative of other required modifiers, operands of the kinds and types
 * the operand pattern asks for), loads each through the front end and lowers
 * it. A row "executes" when every instance lowers, "partly" when some do,
 * "not yet" when none does (the family's selector refuses it). Rows whose
 * operands are "*" cannot be synthesised and are listed as "unchecked";
 * a matrix fragment (kind b) starts as one register and takes the count
 * the lowering's refusal names ("(operand K) needs N registers");
 * so are rows whose synthetic instance the validator or lowering rejects
 * for its values (cp.async's size must be 4, 8 or 16) rather than as
 * "not supported".
 *   build/opcov            prints one line per row, then the totals */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/front/front.h"
#include "../src/lower/lower.h"

enum { MAX_INST = 24 };

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

/* Enumerates instances: every alternative of the first type item of the row
 * that has alternatives, first alternative elsewhere; optional items off. */
static int instances(const OpPattern *pat, const char *out[MAX_INST][PAT_MAX_ITEMS], int *nm) {
  int type_item = -1;
  for (int i = 0; i < pat->nitems && type_item < 0; i++)
    if (!pat->items[i].optional && pat->items[i].nalts > 1 && is_type(pat->items[i].alts[0]))
      type_item = i;
  int count = type_item < 0 ? 1 : pat->items[type_item].nalts;
  if (count > MAX_INST) count = MAX_INST;
  for (int k = 0; k < count; k++) {
    int n = 0;
    for (int i = 0; i < pat->nitems; i++) {
      const PatItem *it = &pat->items[i];
      if (it->optional) continue;
      out[k][n++] = i == type_item ? it->alts[k] : it->alts[0];
    }
    nm[k] = n;
  }
  return count;
}

int main(void) {
  const OpPattern *pats = op_patterns();
  int totals[4] = {0};
  static const char *const verdict[] = {"executes", "partly", "not yet", "unchecked"};
  for (int r = 0; r < OP_COUNT; r++) {
    const char *mods[MAX_INST][PAT_MAX_ITEMS];
    int nm[MAX_INST];
    int n = instances(&pats[r], mods, nm), ok = 0, tried = 0;
    char first_refusal[160] = "";
    for (int k = 0; k < n; k++) {
      char text[8192];
      int counts[PAT_MAX_OPDS];
      for (int i = 0; i < PAT_MAX_OPDS; i++) counts[i] = 1;
      Module *m = NULL;
      Device *dev = NULL;
      char *lerr = NULL;
      Program *p = NULL;
      const char *why = NULL;
      for (int attempt = 0; attempt < 8; attempt++) {   /* b lists: resized by the refusal */
        program_free(p); free(lerr); dev_destroy(dev); module_free(m);
        m = NULL; dev = NULL; lerr = NULL; p = NULL;
        if (!make_instance(r, &pats[r], mods[k], nm[k], counts, text, sizeof text)) break;
        char *err = NULL;
        m = front_parse(text, strlen(text), "opcov.ptx", &err);
        if (!m) { free(err); break; }
        dev = dev_create((size_t)1 << 24);
        p = dev ? program_build(m, dev, &lerr) : NULL;
        why = p && p->nrefusals ? p->refusals[0].msg : lerr;   /* lower.c "refusals" */
        const char *need = why ? strstr(why, "(operand ") : NULL;
        int opd, want;
        if (!need || sscanf(need, "(operand %d) needs %d register", &opd, &want) != 2 ||
            opd < 1 || opd > PAT_MAX_OPDS || want < 1 || want > 128 || counts[opd - 1] == want)
          break;
        counts[opd - 1] = want;
      }
      if (!m) continue;
      tried++;
      if (p && !p->nrefusals) ok++;
      else if (!why || !strstr(why, "is not supported")) tried--;   /* a bad synthetic value */
      else if (!first_refusal[0]) {
        const char *msg = strstr(why, ": ");
        snprintf(first_refusal, sizeof first_refusal, "%.*s", (int)strcspn(msg ? msg + 2 : why, "\n"),
                 msg ? msg + 2 : why);
      }
      program_free(p);
      free(lerr);
      dev_destroy(dev);
      module_free(m);
    }
    int v = tried == 0 ? 3 : ok == tried ? 0 : ok ? 1 : 2;
    totals[v]++;
    printf("%-9s %-24s %-26s %s\n", verdict[v], op_info[r].mnemonic, op_info[r].name,
           v == 1 || v == 2 ? first_refusal : "");
  }
  printf("%d rows: %d execute, %d partly, %d not yet, %d unchecked (operands \"*\" or "
         "no valid synthetic instance)\n",
         OP_COUNT, totals[0], totals[1], totals[2], totals[3]);
  return 0;
}
