/* test_front.c: unit tests of the front end (lexer, diagnostics, opcode
 * table, module loading), chibicc style: a list of CHECKs, then totals.
 *
 * Prints one line per failed check and, last, "N passed, M failed"; exits
 * nonzero on any failure. Run under the sanitizer build (build-san/tests/)
 * it also proves that failed loads and unloads free everything. */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxvm.h"
#include "../../src/front/front.h"

#include "check.h"

/* ---- lexer ---- */

/* Lexes `src` into at most `max` tokens; returns the count, or -1 when the
 * lexer reported an error (its message then in *err, caller frees). */
static int lex_all(const char *src, Token *out, int max, char **err) {
  Parser *P = calloc(1, sizeof *P);
  Module *m = calloc(1, sizeof *m);
  m->path = "lex.ptx";
  arena_init(&m->arena, &P->jb);
  P->m = m;
  P->src = src;
  P->srclen = strlen(src);
  volatile int n = 0;
  *err = NULL;
  if (setjmp(P->jb)) {
    *err = P->msg;
    n = -1;
  } else {
    lex_init(&P->lex, P, src, strlen(src));
    for (;;) {
      Token t = lex_next(&P->lex);
      if (t.kind == TK_EOF || n == max) break;
      out[n++] = t;
    }
  }
  arena_free(&m->arena);
  free(m);
  free(P);
  return n;
}

static void test_numbers(void) {
  Token t[16];
  char *err;
  int n = lex_all("42 0x1F 0X1f 017 0b101 0B11 7U 0xffffffffffffffff 0", t, 16, &err);
  CHECK(n == 9);
  if (n != 9) return;
  for (int i = 0; i < n; i++) CHECK(t[i].kind == TK_INT);
  CHECK(t[0].ival == 42);
  CHECK(t[1].ival == 31 && t[2].ival == 31);
  CHECK(t[3].ival == 15);
  CHECK(t[4].ival == 5 && t[5].ival == 3);
  CHECK(t[6].ival == 7 && t[6].is_unsigned && !t[5].is_unsigned);
  CHECK(t[7].ival == UINT64_MAX);
  CHECK(t[8].ival == 0);

  n = lex_all("0f3F800000 0d4000000000000000 1.5 2e3 0.25e-1 0F7F800000", t, 16, &err);
  CHECK(n == 6);
  if (n != 6) return;
  for (int i = 0; i < n; i++) CHECK(t[i].kind == TK_FLOAT);
  CHECK(t[0].is_f32 && t[0].fval == 1.0 && t[0].ival == 0x3F800000);
  CHECK(!t[1].is_f32 && t[1].fval == 2.0);
  CHECK(t[2].fval == 1.5 && t[3].fval == 2000.0 && fabs(t[4].fval - 0.025) < 1e-12);
  CHECK(isinf(t[5].fval));

  /* columns and lines are 1-based; tokens point into the source */
  n = lex_all("add.s32\n  %r1, -1;", t, 16, &err);
  CHECK(n == 7);
  if (n == 7) {
    CHECK(t[0].kind == TK_IDENT && t[0].len == 3 && t[0].line == 1 && t[0].col == 1);
    CHECK(t[1].kind == TK_DOT && t[1].len == 4 && t[1].col == 4);
    CHECK(t[2].kind == TK_IDENT && t[2].line == 2 && t[2].col == 3 && t[2].space_before);
    CHECK(t[4].kind == TK_PUNCT && t[4].s[0] == '-');
    CHECK(t[5].kind == TK_INT && t[5].ival == 1 && !t[5].space_before);
  }
  n = lex_all(".shared::cta .L2::cache_hint .2d", t, 16, &err);
  CHECK(n == 3 && t[0].len == 12 && t[1].len == 15 && t[2].len == 3);
}

static void expect_lex_error(const char *src, const char *sub) {
  Token t[16];
  char *err;
  int n = lex_all(src, t, 16, &err);
  CHECK(n == -1);
  CHECK(err && strstr(err, sub));
  if (!err || !strstr(err, sub)) printf("  for '%s': got '%s'\n", src, err ? err : "(none)");
  free(err);
}

static void test_bad_numbers(void) {
  expect_lex_error("0x", "lex.ptx:1:1: error: malformed number");
  expect_lex_error("0f3F80", "0f literal needs exactly 8 hex digits");
  expect_lex_error("0d3FF0", "0d literal needs exactly 16 hex digits");
  expect_lex_error("99999999999999999999", "does not fit in 64 bits");
  expect_lex_error("12abc", "lex.ptx:1:3: error: malformed number");
  expect_lex_error("09", "malformed number");
  expect_lex_error("x /* open", "lex.ptx:1:3: error: unterminated comment");
  expect_lex_error("\"abc", "unterminated string");
  expect_lex_error("a\n  `", "lex.ptx:2:3: error: unexpected character '`'");
  expect_lex_error("% r", "'%' must start a name");
}

/* ---- opcode table ---- */

static void test_opcodes(void) {
  const char *bad = op_compile_error();
  CHECK(bad == NULL);
  if (bad) printf("  malformed opcodes.def row: %s\n", bad);
  CHECK(op_first("add", 3) >= 0);
  CHECK(op_first("setp", 4) >= 0);
  CHECK(op_first("frobnicate", 10) < 0);
  CHECK(op_first("ad", 2) < 0);
  /* every row's base is found, and rows of one base chain through op_next */
  const OpPattern *pats = op_patterns();
  int unreachable = 0;
  for (int r = 0; r < OP_COUNT; r++) {
    int found = 0;
    for (int q = op_first(pats[r].base, strlen(pats[r].base)); q >= 0; q = op_next(q))
      if (q == r) found = 1;
    if (!found) {
      unreachable++;
      printf("  row %s (%s) is not reachable from op_first\n", op_info[r].name,
             op_info[r].mnemonic);
    }
  }
  CHECK(unreachable == 0);
  /* the FLAGS column against what the rows themselves say (ISA 9.0): a
   * required .aligned (in the mnemonic or the modifiers) means converged,
   * every MMA row is converged, every SYNC row a scheduling point, a
   * converged row an effect; the sub-operation flags follow the mnemonic */
  int wrong = 0;
  for (int r = 0; r < OP_COUNT; r++) {
    const OpInfo *o = &op_info[r];
    const char *al = strstr(o->mods, ".aligned");
    bool aligned = strstr(o->mnemonic, ".aligned") || (al && al[8] != '?');
    bool ok = (!aligned || op_has(r, OPF_CONV)) && (o->family != FAM_MMA || op_has(r, OPF_CONV)) &&
              (o->family != FAM_SYNC || op_has(r, OPF_SCHED)) &&
              (!op_has(r, OPF_CONV) || op_has(r, OPF_FX)) &&
              op_has(r, OPF_DROP) == (strstr(o->mnemonic, "arrive_drop") != NULL) &&
              op_has(r, OPF_NORES) == !strcmp(o->mnemonic, "red") &&
              op_has(r, OPF_NOCOMP) == (strstr(o->mnemonic, ".noComplete") != NULL) &&
              op_has(r, OPF_TX) == (strstr(o->mnemonic, "arrive") && strstr(o->mnemonic, ".expect_tx")) &&
              o->meaning && o->meaning[0];
    if (!ok) { wrong++; printf("  row %s: its FLAGS or meaning disagree with the row\n", o->name); }
  }
  CHECK(wrong == 0);
  CHECK(op_has(OP_SHFL, OPF_GONE | OPF_CONV) && op_has(OP_VOTE, OPF_GONE) && !op_has(OP_SHFL_SYNC, OPF_GONE));
  CHECK(op_has(OP_CALL, OPF_SCHED) && op_has(OP_ACTIVEMASK, OPF_SCHED) && !op_has(OP_ADD_INT, OPF_FX));
  CHECK(op_spelling(".s32", 4) != NULL);
  CHECK(op_spelling(".nosuchmod", 10) == NULL);
}

/* ---- module loading ---- */

static const char *const good_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .func (.param .b32 r) f(.param .b32 a, .param .align 8 .b8 s[12])\n"
    "{\n"
    "    .reg .b32 %r<2>;\n"
    "    ld.param.b32 %r1, [a];\n"
    "    st.param.b32 [r], %r1;\n"
    "    ret;\n"
    "}\n"
    ".visible .entry k(.param .u64 .ptr .global .align 16 p, .param .u32 n)\n"
    "    .reqntid 128, 1, 1 .maxnreg 32\n"
    "{\n"
    "    ret;\n"
    "}\n";

static int load(ptxvm_context *ctx, const char *text, ptxvm_module **mod) {
  return (int)ptxvm_module_load_data(ctx, text, strlen(text), "t.ptx", mod);
}

static int same_info(ptxvm_module *a, ptxvm_module *b) {
  int n = ptxvm_module_function_count(a);
  if (n != ptxvm_module_function_count(b)) return 0;
  for (int i = 0; i < n; i++) {
    ptxvm_function_info x, y;
    ptxvm_function_get_info(ptxvm_module_function_at(a, i), &x);
    ptxvm_function_get_info(ptxvm_module_function_at(b, i), &y);
    if (strcmp(x.name, y.name) || x.is_entry != y.is_entry || x.nparams != y.nparams ||
        x.nrets != y.nrets || x.param_bytes != y.param_bytes || x.maxnreg != y.maxnreg ||
        memcmp(x.reqntid, y.reqntid, sizeof x.reqntid))
      return 0;
    for (int k = 0; k < x.nparams; k++) {
      ptxvm_param_info p, q;
      ptxvm_function_get_param(ptxvm_module_function_at(a, i), 0, k, &p);
      ptxvm_function_get_param(ptxvm_module_function_at(b, i), 0, k, &q);
      if (strcmp(p.name, q.name) || strcmp(p.type, q.type) || p.size != q.size ||
          p.align != q.align || p.offset != q.offset || p.array_len != q.array_len)
        return 0;
    }
  }
  return 1;
}

static void test_load_twice(void) {
  ptxvm_context *ctx;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *a = NULL, *b = NULL;
  CHECK(load(ctx, good_ptx, &a) == PTXVM_SUCCESS);
  CHECK(load(ctx, good_ptx, &b) == PTXVM_SUCCESS);
  if (!a || !b) {
    printf("  %s\n", ptxvm_last_error(ctx));
    ptxvm_context_destroy(ctx);
    return;
  }
  CHECK(a != b);
  CHECK(ptxvm_module_function_count(a) == 2);
  CHECK(same_info(a, b));
  ptxvm_function *k;
  CHECK(ptxvm_module_get_function(a, "k", &k) == PTXVM_SUCCESS);
  ptxvm_function_info fi;
  CHECK(ptxvm_function_get_info(k, &fi) == PTXVM_SUCCESS);
  CHECK(fi.is_entry && fi.has_body && fi.nparams == 2 && fi.reqntid[0] == 128 &&
        fi.maxnreg == 32 && fi.param_bytes == 12);
  ptxvm_param_info pi;
  CHECK(ptxvm_function_get_param(k, 0, 0, &pi) == PTXVM_SUCCESS);
  CHECK(pi.ptr_space && !strcmp(pi.ptr_space, "global") && pi.ptr_align == 16);
  CHECK(ptxvm_function_get_param(k, 0, 2, &pi) == PTXVM_ERROR_NOT_FOUND);
  CHECK(ptxvm_module_get_function(a, "nope", &k) == PTXVM_ERROR_NOT_FOUND);
  ptxvm_module_unload(a);
  ptxvm_module_unload(b);
  /* loading and unloading many times frees everything (ASan build) */
  for (int i = 0; i < 50; i++) {
    ptxvm_module *m = NULL;
    if (load(ctx, good_ptx, &m) == PTXVM_SUCCESS) ptxvm_module_unload(m);
  }
  /* modules still loaded when the context goes are freed with it */
  CHECK(load(ctx, good_ptx, &a) == PTXVM_SUCCESS);
  ptxvm_context_destroy(ctx);
}

/* %r<N> costs nothing until a register is used: eight functions declaring a
 * million registers each load in well under a megabyte of IR (they used to
 * take 1.77 GB), and only the registers used get slots. */
static void test_register_ranges(void) {
  char text[1024];
  int n = snprintf(text, sizeof text, ".version 8.0\n.target sm_90\n");
  for (int i = 0; i < 8; i++)
    n += snprintf(text + n, sizeof text - (size_t)n,
                  ".func f%d(){ .reg .b32 %%r<1000000>; ret; }\n", i);
  snprintf(text + n, sizeof text - (size_t)n,
           ".entry k(){ .reg .b32 %%r<1000000>; add.u32 %%r999999, %%r7, %%r7; ret; }\n");
  char *err = NULL;
  Module *m = front_parse(text, strlen(text), "ranges.ptx", &err);
  CHECK(m != NULL);
  if (!m) {
    printf("  %s", err ? err : "out of memory\n");
    free(err);
    return;
  }
  CHECK(m->arena.total < (1u << 20));
  const Function *k = module_find_func(m, "k");
  CHECK(k && k->nregs == 2 && !strcmp(k->regs[0]->name, "%r999999") &&
        !strcmp(k->regs[1]->name, "%r7"));
  module_free(m);
}

/* Loads `body` inside a kernel and checks the first error line. */
static void expect_error(const char *pre, const char *body, const char *want) {
  char text[2048];
  snprintf(text, sizeof text,
           ".version 8.0\n.target sm_90\n.address_size 64\n%s"
           ".visible .entry k()\n{\n    .reg .b32 %%r<4>;\n    .reg .pred %%p1;\n%s\n}\n",
           pre, body);
  ptxvm_context *ctx;
  if (ptxvm_context_create(&ctx) != PTXVM_SUCCESS) {
    CHECK(0);
    return;
  }
  ptxvm_module *m = NULL;
  int st = load(ctx, text, &m);
  const char *msg = ptxvm_last_error(ctx);
  CHECK(st == PTXVM_ERROR_INVALID_PTX);
  int ok = strncmp(msg, want, strlen(want)) == 0;
  CHECK(ok);
  if (!ok) printf("  expected '%s'\n  got      '%.*s'\n", want, (int)strcspn(msg, "\n"), msg);
  ptxvm_context_destroy(ctx);
}

static void test_messages(void) {
  /* the located format: FILE:LINE:COL: error: message, the line, a caret */
  ptxvm_context *ctx;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *m = NULL;
  const char *text = ".version 8.0\n.target sm_90\n.visible .entry k()\n{\n"
                     "    .reg .b32 %r<4>;\n    add.rz.s32 %r1, %r2, %r3;\n}\n";
  CHECK(load(ctx, text, &m) == PTXVM_ERROR_INVALID_PTX);
  const char *want = "t.ptx:6:8: error: modifier '.rz' is not allowed on 'add.s32'\n"
                     "        add.rz.s32 %r1, %r2, %r3;\n"
                     "           ^~~\n";
  CHECK(!strcmp(ptxvm_last_error(ctx), want));
  if (strcmp(ptxvm_last_error(ctx), want))
    printf("  got:\n%s  want:\n%s", ptxvm_last_error(ctx), want);
  /* a later successful call clears the message */
  CHECK(load(ctx, good_ptx, &m) == PTXVM_SUCCESS);
  CHECK(!strcmp(ptxvm_last_error(ctx), ""));
  ptxvm_context_destroy(ctx);

  expect_error("", "    add.s32 %r1, %r2, %r9;", "t.ptx:8:23: error: '%r9' is not declared");
  expect_error("", "    frob.s32 %r1;", "t.ptx:8:5: error: unknown instruction 'frob'");
  expect_error("", "    add.s32 %r1, %r2;", "t.ptx:8:5: error: 'add' needs 3 operands, found 2");
  expect_error("", "    bra $L9;\n    ret;",
               "t.ptx:8:9: error: label '$L9' is used but never defined");
  expect_error(".global .u32 g;\n", "    ld.shared.u32 %r1, [g];",
               "t.ptx:9:24: error: 'g' is in .global, not in the instruction's state space");
  expect_error("", "    mov.u32 %r1, %tid;", "t.ptx:8:18: error: '%tid' needs a component");
  expect_error("", "    setp.s32 %p1, %r1, %r2;", "t.ptx:8:9: error: 'setp.s32' needs one of .eq, .ne");
  expect_error("", "    .reg .b32 %r1;", "t.ptx:8:15: error: '%r1' is already declared");
  expect_error("", "    ret", "t.ptx:8:5: error: missing ';' after 'ret' instruction");
}

static void test_api_edges(void) {
  ptxvm_context *ctx;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *m = NULL;
  CHECK(ptxvm_module_load_data(ctx, NULL, 0, "x", &m) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(ptxvm_module_load_data(ctx, "", 0, "x", &m) == PTXVM_ERROR_INVALID_PTX);
  CHECK(ptxvm_module_load_data(ctx, ".version 8.0", 5, "x", &m) == PTXVM_ERROR_INVALID_PTX);
  CHECK(ptxvm_module_load_file(ctx, "/nonexistent/x.ptx", &m) == PTXVM_ERROR_FILE);
  /* text with a NUL byte in it: the length, not the NUL, ends it */
  static const char nul[] = ".version 8.0\n.target sm_90\n\0garbage";
  CHECK(ptxvm_module_load_data(ctx, nul, sizeof nul - 1, "x", &m) == PTXVM_ERROR_INVALID_PTX);
  /* fuzz regression: the last token of an exactly-sized buffer (no NUL
   * after it) must not be read past its end (ASan build) */
  static const char *const tails[] = {".version 8.0", ".version 8.0\n.target sm_90",
                                      ".version 8.0\n.target sm_90\n.global .f32 g = 1.5",
                                      ".version 8.0\n.target sm_90\n.global .u32 g = 0x1f"};
  for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
    size_t len = strlen(tails[i]);
    char *exact = malloc(len);
    memcpy(exact, tails[i], len);
    CHECK(ptxvm_module_load_data(ctx, exact, len, "x", &m) == PTXVM_ERROR_INVALID_PTX ||
          i == 1);
    if (i == 1 && m) ptxvm_module_unload(m);
    free(exact);
  }
  /* fuzz regression: deep nesting is an error, not a stack overflow */
  static const char *const opens[] = {"{", "(", "_|", "{"};   /* d|p chains too */
  for (int kind = 0; kind < 4; kind++) {
    size_t n = 200000, cap = 3 * n + 400, len = 0;
    char *deep = malloc(cap);
    len += (size_t)snprintf(deep, cap, ".version 8.0\n.target sm_90\n%s",
                            kind == 3 ? ".global .u32 g[1] = "
                                      : ".visible .entry k()\n{\n.reg .b32 %r1;\nmov.b32 %r1, ");
    if (kind == 0) len -= strlen("mov.b32 %r1, ");   /* nested blocks */
    for (size_t i = 0; i < n; i++)
      for (const char *o = opens[kind]; *o; o++) deep[len++] = *o;
    CHECK(ptxvm_module_load_data(ctx, deep, len, "x", &m) == PTXVM_ERROR_INVALID_PTX);
    /* an initializer's braces follow the array's shape: g[1] takes one level */
    CHECK(strstr(ptxvm_last_error(ctx),
                 kind == 3 ? "too many levels of braces" : "nested more than") != NULL);
    free(deep);
  }
  ptxvm_module_unload(NULL);
  ptxvm_context_destroy(ctx);
  ptxvm_context_destroy(NULL);
}

/* One large function: its IR took 16.7 times the text (its growing arrays
 * left every old copy behind, and each large one abandoned the rest of an
 * arena chunk); now under 10 (`ptxvm check` peaks at 9.4 times this text
 * with the text itself). The bound leaves room for the IR to grow a little. */
static void test_big_function(void) {
  enum { GROUPS = 150000 };
  size_t cap = (size_t)GROUPS * 100 + 512, n = 0;   /* a group is under 100 bytes */
  char *text = malloc(cap);
  CHECK(text != NULL);
  if (!text) return;
  n += (size_t)snprintf(text, cap, ".version 8.0\n.target sm_90\n.entry k()\n{\n"
                        " .reg .b32 %%r<100>;\n .reg .pred %%p1;\n");
  for (int i = 0; i < GROUPS; i++)
    n += (size_t)snprintf(text + n, cap - n,
                          "L%d: add.u32 %%r%d, %%r%d, %d;\n setp.lt.u32 %%p1, %%r%d, 5;\n"
                          " @%%p1 bra L%d;\n", i, i % 100, (i + 1) % 100, i, i % 100, i);
  n += (size_t)snprintf(text + n, cap - n, " ret;\n}\n");
  char *err = NULL;
  Module *m = front_parse(text, n, "big.ptx", &err);
  CHECK(m != NULL);
  if (m) {
    double ratio = (double)m->arena.total / (double)n;
    CHECK(ratio <= 11.0);
    if (ratio > 11.0) printf("  IR is %.1f times the text\n", ratio);
    module_free(m);
  }
  free(err);
  free(text);
}

int main(void) {
  test_numbers();
  test_bad_numbers();
  test_opcodes();
  test_load_twice();
  test_register_ranges();
  test_big_function();
  test_messages();
  test_api_edges();
  return unit_report();
}
