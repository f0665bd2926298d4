/* mmaform.c: which combinations of shape, types and layouts are forms of the
 * warp matrix instructions at all (PTX ISA 9.0 §9.7.14: wmma.load/store/mma,
 * mma, mma.sp, ldmatrix, stmatrix). The table rows accept each modifier
 * independently; a combination the ISA does not define is a validation
 * error here, naming what the ISA gives, so that "is not supported" at
 * lowering always means a form ptxvm does not execute yet. The sm_100+
 * .kind:: forms are not rows of the table and are not listed. */
#include <stdio.h>
#include <string.h>

#include "front.h"

/* One group of forms: a shape, the A/B types (each of A and B is one of
 * them), the D and C types (each one of them). Layout: 0 .row.col only,
 * 1 any .row/.col pair (mma .m8n8k4 .f16). */
typedef struct {
  const char *shape, *ab, *dc;
  int any_layout;
} Form;

static const Form mma_forms[] = {   /* §9.7.14.5.14 */
  {".m8n8k4", ".f16", ".f16 .f32", 1},        {".m16n8k8", ".f16", ".f16 .f32", 0},
  {".m16n8k16", ".f16", ".f16 .f32", 0},      {".m16n8k4", ".tf32", ".f32", 0},
  {".m16n8k8", ".tf32", ".f32", 0},           {".m16n8k8", ".bf16", ".f32", 0},
  {".m16n8k16", ".bf16", ".f32", 0},          {".m16n8k16", ".e4m3 .e5m2", ".f16 .f32", 0},
  {".m16n8k32", ".e4m3 .e5m2", ".f16 .f32", 0}, {".m8n8k4", ".f64", ".f64", 0},
  {".m16n8k4", ".f64", ".f64", 0},            {".m16n8k8", ".f64", ".f64", 0},
  {".m16n8k16", ".f64", ".f64", 0},           {".m8n8k16", ".s8 .u8", ".s32", 0},
  {".m16n8k16", ".s8 .u8", ".s32", 0},        {".m16n8k32", ".s8 .u8", ".s32", 0},
  {".m8n8k32", ".s4 .u4", ".s32", 0},         {".m16n8k32", ".s4 .u4", ".s32", 0},
  {".m16n8k64", ".s4 .u4", ".s32", 0},        {".m8n8k128", ".b1", ".s32", 0},
  {".m16n8k128", ".b1", ".s32", 0},           {".m16n8k256", ".b1", ".s32", 0},
  {NULL, NULL, NULL, 0}};

static const Form sp_forms[] = {    /* §9.7.14.6 (fp8 with an .f16 D/C: sm_120) */
  {".m16n8k16", ".f16", ".f16 .f32", 0},      {".m16n8k32", ".f16", ".f16 .f32", 0},
  {".m16n8k16", ".bf16", ".f32", 0},          {".m16n8k32", ".bf16", ".f32", 0},
  {".m16n8k8", ".tf32", ".f32", 0},           {".m16n8k16", ".tf32", ".f32", 0},
  {".m16n8k32", ".s8 .u8", ".s32", 0},        {".m16n8k64", ".s8 .u8", ".s32", 0},
  {".m16n8k64", ".s4 .u4", ".s32", 0},        {".m16n8k128", ".s4 .u4", ".s32", 0},
  {".m16n8k64", ".e4m3 .e5m2", ".f16 .f32", 0}, {NULL, NULL, NULL, 0}};

static const Form wmma_forms[] = {  /* §9.7.14.4: ab the a/b fragments, dc c/d */
  {".m16n16k16", ".f16", ".f16 .f32", 0},     {".m8n32k16", ".f16", ".f16 .f32", 0},
  {".m32n8k16", ".f16", ".f16 .f32", 0},      {".m16n16k16", ".bf16", ".f32", 0},
  {".m8n32k16", ".bf16", ".f32", 0},          {".m32n8k16", ".bf16", ".f32", 0},
  {".m16n16k16", ".s8 .u8", ".s32", 0},       {".m8n32k16", ".s8 .u8", ".s32", 0},
  {".m32n8k16", ".s8 .u8", ".s32", 0},        {".m16n16k8", ".tf32", ".f32", 0},
  {".m8n8k4", ".f64", ".f64", 0},             {".m8n8k32", ".s4 .u4", ".s32", 0},
  {".m8n8k128", ".b1", ".s32", 0},            {NULL, NULL, NULL, 0}};

/* Whether the space-separated list `set` holds `m`. */
static bool in_set(const char *set, const char *m) {
  size_t n = strlen(m);
  for (const char *p = set; (p = strstr(p, m)); p += n)
    if ((p == set || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return true;
  return false;
}

static const char *find_mod(const Insn *in, const char *m) {
  for (int j = 0; j < in->nmods; j++)
    if (!strcmp(in->mods[j], m)) return in->mods[j];
  return NULL;
}

/* The .mMnNkK modifier. */
static const char *find_shape(const Insn *in) {
  int m, n, k;
  for (int j = 0; j < in->nmods; j++)
    if (sscanf(in->mods[j], ".m%dn%dk%d", &m, &n, &k) == 3) return in->mods[j];
  return NULL;
}

/* The shapes of `forms` whose A/B set holds `a`, as ".x, .y and .z". */
static void shapes_for(const Form *forms, const char *a, char *buf, size_t cap) {
  const char *s[16];
  int n = 0;
  for (const Form *f = forms; f->shape && n < 16; f++)
    if (in_set(f->ab, a)) s[n++] = f->shape;
  buf[0] = 0;
  for (int i = 0; i < n; i++)
    snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ",
             s[i]);
}

static const Form *lookup(const Form *forms, const char *shape, const char *a) {
  for (const Form *f = forms; f->shape; f++)
    if (!strcmp(f->shape, shape) && in_set(f->ab, a)) return f;
  return NULL;
}

/* The modifiers naming matrix element types, in order. */
static int elem_types(const Insn *in, const char **t) {
  static const char *const names = ".f16 .bf16 .tf32 .f32 .f64 .s8 .u8 .s32 .e4m3 .e5m2 .b1 .s4 .u4";
  int n = 0;
  for (int j = 0; j < in->nmods && n < 4; j++)
    if (in_set(names, in->mods[j])) t[n++] = in->mods[j];
  return n;
}

/* The shape's form for A type `a` (sparse: "sparse " or ""), or an error
 * naming the shapes the ISA gives for it. */
static const Form *form_for(Parser *P, const Token *mn, const Form *forms, const char *what,
                            const char *sparse, const char *shape, const char *a) {
  const Form *f = lookup(forms, shape, a);
  if (f) return f;
  char buf[160];
  shapes_for(forms, a, buf, sizeof buf);
  if (!buf[0]) diag_error_tok(P, mn, "%s has no %sform for %s", what, sparse, a);
  diag_error_tok(P, mn, "%s %s has no %sform for %s: the ISA gives %s", what, shape, sparse, a, buf);
}

/* B, D and C (t: D, A, B, C) of form f. */
static void check_bdc(Parser *P, const Token *mn, const char *what, const char *shape,
                      const Form *f, const char *const *t) {
  if (!in_set(f->ab, t[2]))
    diag_error_tok(P, mn, "%s %s %s takes B of %s, not %s", what, shape, t[1], f->ab, t[2]);
  if (!in_set(f->dc, t[0]) || !in_set(f->dc, t[3]))
    diag_error_tok(P, mn, "%s %s %s accumulates in %s (D and C), not %s and %s", what, shape, t[1],
                   f->dc, t[0], t[3]);
}

static void check_mma(Parser *P, const Insn *in, const Token *mn, bool sparse) {
  const char *t[4], *shape = find_shape(in);
  if (elem_types(in, t) != 4 || !shape) return;
  const Form *f = form_for(P, mn, sparse ? sp_forms : mma_forms, "mma", sparse ? "sparse " : "",
                           shape, t[1]);
  check_bdc(P, mn, "mma", shape, f, t);
  /* The ISA lists .dtype and .ctype apart; ptxas takes them equal, save
   * .m8n8k4's .f32 D from an .f16 C ("Unexpected instruction types",
   * ".dtype must be '.f16' when .ctype is '.f16'"). */
  bool m8n8k4 = !strcmp(shape, ".m8n8k4") && !strcmp(t[1], ".f16");
  if (strcmp(t[0], t[3]) && !(m8n8k4 && !strcmp(t[0], ".f32")))
    diag_error_tok(P, mn, "mma %s %s needs .dtype equal to .ctype%s, not %s D with %s C", shape, t[1],
                   m8n8k4 ? " (or .f32 D with .f16 C)" : "", t[0], t[3]);
  int ver = P->m->ver_major * 10 + P->m->ver_minor;
  bool fp8 = in_set(".e4m3 .e5m2", t[1]);
  if (!sparse && fp8 && ver < 87 && (!strcmp(shape, ".m16n8k16") || !strcmp(t[0], ".f16")))
    diag_error_tok(P, mn, "mma %s with %s inputs%s requires PTX ISA version 8.7 or higher "
                   "(this module is %d.%d)", shape, t[1], strcmp(t[0], ".f16") ? "" : " and .f16 D/C",
                   P->m->ver_major, P->m->ver_minor);
  /* ptxas: "'mma with F16 accumulator and F8 floating point type' not
   * supported on .target 'sm_120'" (nor sm_90a/sm_100a); 8.7 and sm_120a. */
  if (sparse && fp8 && !strcmp(t[0], ".f16") &&
      (ver < 87 || (P->m->sm && (P->m->sm != 120 || P->m->sm_suffix != 'a'))))
    diag_error_tok(P, mn, "mma.sp %s with %s inputs and .f16 D/C requires PTX ISA version 8.7 "
                   "and .target sm_120a (this module is %d.%d, sm_%d%s)", shape, t[1],
                   P->m->ver_major, P->m->ver_minor, P->m->sm, P->m->sm_suffix == 'a' ? "a" :
                   P->m->sm_suffix == 'f' ? "f" : "");
  bool integer = in_set(".s8 .u8 .s4 .u4", t[1]), b1 = !strcmp(t[1], ".b1");
  if (find_mod(in, ".satfinite") && !integer)
    diag_error_tok(P, mn, "mma .satfinite is for .s8/.u8/.s4/.u4 inputs only, not %s", t[1]);
  bool popc = find_mod(in, ".popc"), op = find_mod(in, ".xor") || find_mod(in, ".and");
  if (b1 != popc || b1 != op)
    diag_error_tok(P, mn, b1 ? "mma .b1 needs .xor.popc or .and.popc" :
                   "mma .xor/.and/.popc are for .b1 inputs only, not %s", t[1]);
  for (int j = 0; j < in->nmods; j++)
    if (strstr(".rn .rz .rm .rp", in->mods[j]) && strlen(in->mods[j]) == 3 &&
        (strcmp(t[1], ".f64") || strcmp(in->mods[j], ".rn")))
      diag_error_tok(P, mn, "mma takes a rounding modifier only as .rn with .f64, not %s on %s",
                     in->mods[j], t[1]);
  const char *lay[2] = {NULL, NULL};
  int nl = 0;
  for (int j = 0; j < in->nmods; j++)
    if ((!strcmp(in->mods[j], ".row") || !strcmp(in->mods[j], ".col")) && nl < 2)
      lay[nl++] = in->mods[j];
  if (nl != 2)
    diag_error_tok(P, mn, "mma %s %s needs the layouts of A and B (%s)", shape, t[1],
                   f->any_layout ? ".row or .col each" : ".row.col");
  if (!f->any_layout && (strcmp(lay[0], ".row") || strcmp(lay[1], ".col")))
    diag_error_tok(P, mn, "mma %s %s is .row.col only, not %s%s", shape, t[1], lay[0], lay[1]);
}

/* Elements of one type a fragment register holds (§9.7.14.5: .f16/.bf16
 * pairs, .s8/.u8/fp8 quads, .s4/.u4 octets and .b1 words in .b32; one
 * .tf32/.f32/.s32 in .f32/.b32, one .f64 in .f64). */
static int per_reg(const char *t) {
  if (in_set(".f16 .bf16", t)) return 2;
  if (in_set(".s8 .u8 .e4m3 .e5m2", t)) return 4;
  if (in_set(".s4 .u4", t)) return 8;
  return !strcmp(t, ".b1") ? 32 : 1;
}

/* The fragments' register counts (§9.7.14.5 and §9.7.14.6, each shape's
 * fragment layout): D, A, B, C of an MxNxK mma spread over the 32 threads;
 * sparse A holds half of M x K. mma .m8n8k4 .f16 is the exception: four
 * quadpairs each compute an 8x8x4 product: A and B two .f16x2
 * per thread, C and D four .f16x2 or eight .f32. */
static void check_mma_regs(Parser *P, const Insn *in) {
  const char *t[4], *shape = find_shape(in);
  int m, n, k;
  if (elem_types(in, t) != 4 || !shape || sscanf(shape, ".m%dn%dk%d", &m, &n, &k) != 3 || in->nopds < 4)
    return;
  bool sparse = in->op == OP_MMA_SP || in->op == OP_MMA_SP_ORDERED || in->op == OP_MMA_SP_F8 ||
                in->op == OP_MMA_SP_ORDERED_F8;
  bool quad = !strcmp(shape, ".m8n8k4") && !strcmp(t[1], ".f16");
  static const char *const what[4] = {"d", "a", "b", "c"};
  for (int q = 0; q < 4; q++) {
    int elems = q == 1 ? m * k / (sparse ? 2 : 1) : q == 2 ? k * n : m * n;
    int want = quad ? (q == 1 || q == 2 ? 2 : !strcmp(t[q], ".f16") ? 4 : 8) : elems / 32 / per_reg(t[q]);
    const Operand *o = &in->opds[q];
    int have = o->kind == OPD_VEC ? o->n : 1;
    if (have != want)   /* build/opcov reads "(operand K) needs N register" to size its lists */
      diag_error(P, in->line, o->col, 1, "mma%s %s %s: %s (operand %d) needs %d register%s, not %d "
                 "(a thread's fragment: %d %s element%s, %d a register)", sparse ? ".sp" : "", shape,
                 t[1], what[q], q + 1, want, want == 1 ? "" : "s", have, want * per_reg(t[q]), t[q],
                 want * per_reg(t[q]) == 1 ? "" : "s", per_reg(t[q]));
  }
}

void validate_matrix_operands(Parser *P, const Insn *in) {
  switch ((Opcode)in->op) {
  case OP_MMA: case OP_MMA_SM75: case OP_MMA_F8: case OP_MMA_F64: case OP_MMA_M8N8K4:
  case OP_MMA_SP: case OP_MMA_SP_ORDERED: case OP_MMA_SP_F8: case OP_MMA_SP_ORDERED_F8:
    check_mma_regs(P, in); return;
  default:
    return;
  }
}

static void check_wmma(Parser *P, const Insn *in, const Token *mn) {
  const char *t[4], *shape = find_shape(in);
  int nt = elem_types(in, t);
  if (!shape || !nt) return;
  const char *name = op_info[in->op].mnemonic;
  if (in->op == OP_WMMA_LOAD || in->op == OP_WMMA_STORE) {
    bool frag_ab = in->op == OP_WMMA_LOAD && find_mod(in, ".c") == NULL;
    const Form *fit = NULL;
    for (const Form *f = wmma_forms; f->shape && !fit; f++)
      if (!strcmp(f->shape, shape) && in_set(frag_ab ? f->ab : f->dc, t[0])) fit = f;
    /* Sub-byte fragments (§9.7.14.4): A .row, B .col (ptxas: "Illegal
     * alayout '.col' for instruction 'wmma.load.a'"). */
    bool b_frag = in->op == OP_WMMA_LOAD && find_mod(in, ".b");
    if (fit && frag_ab && in_set(".s4 .u4 .b1", t[0]) &&
        !find_mod(in, b_frag ? ".col" : ".row"))
      diag_error_tok(P, mn, "%s of a sub-byte %s fragment (%s) is %s only", name, b_frag ? "B" : "A",
                     t[0], b_frag ? ".col" : ".row");
    if (fit) return;
    char buf[160] = "";
    for (const Form *f = wmma_forms; f->shape; f++)
      if (!strcmp(f->shape, shape)) {
        const char *set = frag_ab ? f->ab : f->dc;
        if (!strstr(buf, set)) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "", set);
      }
    diag_error_tok(P, mn, "%s %s of %s takes %s, not %s", name, frag_ab ? "an A/B fragment" :
                   "a C/D fragment", shape, buf, t[0]);
  }
  if (in->op != OP_WMMA_MMA) return;
  /* ptxas: "'wmma.mma' with floating point type with '.satfinite' is not
   * supported starting from PTX ISA version 6.5". */
  if (find_mod(in, ".satfinite") && !in_set(".s8 .u8 .s4 .u4 .b1", nt == 4 ? t[1] : ".f16") &&
      P->m->ver_major * 10 + P->m->ver_minor >= 65)
    diag_error_tok(P, mn, "%s .satfinite with floating point types was removed in PTX ISA 6.5 "
                   "(this module is %d.%d)", name, P->m->ver_major, P->m->ver_minor);
  if (nt == 2) {   /* .dtype.ctype: the .f16 multiplicand form */
    const Form *f = form_for(P, mn, wmma_forms, name, "", shape, ".f16");
    if (!in_set(f->dc, t[0]) || !in_set(f->dc, t[1]))
      diag_error_tok(P, mn, "%s %s with .f16 multiplicands accumulates in %s, not %s and %s", name,
                     shape, f->dc, t[0], t[1]);
    return;
  }
  if (nt != 4) diag_error_tok(P, mn, "%s needs .dtype.ctype (.f16 A/B) or .dtype.atype.btype.ctype", name);
  if (!strcmp(t[1], ".f16"))
    diag_error_tok(P, mn, "%s with .f16 multiplicands names only .dtype.ctype", name);
  check_bdc(P, mn, name, shape, form_for(P, mn, wmma_forms, name, "", shape, t[1]), t);
  /* Unlike mma, wmma.mma's integer A and B share one type (ptxas: "Unexpected
   * instruction types specified for 'wmma.mma'"). */
  if (strcmp(t[1], t[2]))
    diag_error_tok(P, mn, "%s %s takes A and B of one type, not %s and %s", name, shape, t[1], t[2]);
}

/* ldmatrix (§9.7.14.5.15): .m8n8 .b16; .m16n16 .b8 or .b8x16 with a source
 * format, .trans; .m8n16 .b8x16 with a source format, no .trans. stmatrix
 * (§9.7.14.5.16): .m8n8 .b16; .m16n8 .b8 with .trans. */
static void check_matrix(Parser *P, const Insn *in, const Token *mn) {
  const char *name = op_info[in->op].mnemonic;
  bool trans = find_mod(in, ".trans") != NULL;
  bool src_fmt = find_mod(in, ".b6x16_p32") || find_mod(in, ".b4x16_p64");
  const char *ty = find_mod(in, ".b8x16") ? ".b8x16" : find_mod(in, ".b16") ? ".b16" : ".b8";
  if (find_mod(in, ".m8n8")) {
    if (strcmp(ty, ".b16") || src_fmt)
      diag_error_tok(P, mn, "%s .m8n8 takes .b16 only, not %s%s", name, ty, src_fmt ? " with a source format" : "");
    return;
  }
  if (in->op == OP_STMATRIX) {   /* .m16n8 */
    if (strcmp(ty, ".b8") || !trans)
      diag_error_tok(P, mn, "%s .m16n8 takes .trans .b8 only", name);
    return;
  }
  if (find_mod(in, ".m16n16")) {
    if (!trans) diag_error_tok(P, mn, "%s .m16n16 needs .trans", name);
    if (!strcmp(ty, ".b16") || (!strcmp(ty, ".b8x16") != src_fmt))
      diag_error_tok(P, mn, "%s .m16n16 takes .b8, or .b8x16 with .b6x16_p32 or .b4x16_p64", name);
    return;
  }
  if (trans || strcmp(ty, ".b8x16") || !src_fmt)   /* .m8n16 */
    diag_error_tok(P, mn, "%s .m8n16 takes .b8x16 with .b6x16_p32 or .b4x16_p64, without .trans", name);
}

void validate_matrix_form(Parser *P, const Insn *in, const Token *mn) {
  switch ((Opcode)in->op) {
  case OP_MMA: case OP_MMA_SM75: case OP_MMA_F8: case OP_MMA_F64: case OP_MMA_M8N8K4:
    check_mma(P, in, mn, false); return;
  case OP_MMA_SP: case OP_MMA_SP_ORDERED: case OP_MMA_SP_F8: case OP_MMA_SP_ORDERED_F8:
    check_mma(P, in, mn, true); return;
  case OP_WMMA_LOAD: case OP_WMMA_STORE: case OP_WMMA_MMA:
    check_wmma(P, in, mn); return;
  case OP_LDMATRIX: case OP_STMATRIX:
    check_matrix(P, in, mn); return;
  default: return;
  }
}
