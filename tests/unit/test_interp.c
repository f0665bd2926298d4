/* test_interp.c: lowering (src/lower/lower.c) and the warp interpreter
 * (src/exec/interp.c) on small PTX texts: a kernel through cta_run, the
 * "is not supported" diagnostic, the lowered-program dump, the per-lane
 * recursion save/restore, the step watchdog and the refusal of operand
 * shapes lowering does not know.
 * Prints "N passed, M failed"; exits nonzero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/front/front.h"
#include "../../src/lower/lower.h"

#include "check.h"

#include "kernel_harness.h"

static const char *k_tid =
  HEAD ".visible .entry k(.param .u64 o) {\n"
  " .reg .b32 %r<3>; .reg .b64 %rd<4>;\n"
  " ld.param.u64 %rd1, [o]; mov.u32 %r1, %tid.x; mul.lo.u32 %r2, %r1, 3;\n"
  " mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2; }\n";

static void test_simple(void) {
  uint32_t out[40];
  bool ok;
  char *e = run_kernel(k_tid, 40, out, 40, 0, &ok);
  CHECK(ok && !e);
  int good = 1;
  for (int i = 0; i < 40; i++) good &= out[i] == (uint32_t)(3 * i);
  CHECK(good);
  free(e);
}

static void test_unsupported(void) {
  const char *src = HEAD ".visible .entry k() {\n .reg .b32 %r<3>;\n"
                    "  vadd.u32.u32.u32 %r1, %r2, %r2;\n}\n";
  char *err = NULL;
  Module *m = front_parse(src, strlen(src), "t.ptx", &err);
  CHECK(m != NULL);
  if (!m) { free(err); return; }
  Device *d = dev_create((size_t)1 << 20);
  Program *p = program_build(m, d, &err);   /* refused, not failed: lower.c "refusals" */
  CHECK(p != NULL && p->nrefusals == 1);
  CHECK(p && p->nrefusals && strstr(p->refusals[0].msg, "t.ptx:6:3: vadd.u32.u32.u32 is not supported"));
  const Refusal *r = p ? program_kernel_refusal(p, module_find_func(m, "k")) : NULL;
  CHECK(r && r->in->line == 6 && r->in->col == 3);
  free(err);
  program_free(p);
  dev_destroy(d);
  module_free(m);
}

static void test_dump(void) {
  char *err = NULL;
  Module *m = front_parse(k_tid, strlen(k_tid), "t.ptx", &err);
  Device *d = dev_create((size_t)1 << 20);
  Program *p = m ? program_build(m, d, &err) : NULL;
  CHECK(p != NULL);
  if (p) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    program_dump(p, f);
    fclose(f);
    CHECK(strstr(text, ".entry k:") && strstr(text, "exec_sreg_load") && strstr(text, "%tid.x"));
    CHECK(strstr(text, "exec_exit_implicit") != NULL);   /* the implicit end */
    CHECK(strstr(text, "(unnamed handler)") == NULL);
    free(text);
  }
  free(err);
  program_free(p);
  dev_destroy(d);
  if (m) module_free(m);
}

/* f(n) = n + f(n-1) with a register live across the recursive call. */
static void test_recursion(void) {
  const char *src =
    HEAD ".func (.param .b32 r) f(.param .b32 n) {\n"
    " .reg .pred %p; .reg .b32 %r<5>;\n"
    " ld.param.u32 %r1, [n]; mov.u32 %r4, 0; setp.eq.u32 %p, %r1, 0; @%p bra D;\n"
    " sub.u32 %r2, %r1, 1;\n"
    " { .param .b32 a; st.param.b32 [a], %r2; .param .b32 b; call (b), f, (a); ld.param.b32 %r3, [b]; }\n"
    " add.u32 %r4, %r3, %r1;\n"
    "D: st.param.b32 [r], %r4; ret; }\n"
    ".visible .entry k(.param .u64 o) {\n"
    " .reg .b32 %r<3>; .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [o]; mov.u32 %r1, %tid.x;\n"
    " { .param .b32 a; st.param.b32 [a], %r1; .param .b32 b; call (b), f, (a); ld.param.b32 %r2, [b]; }\n"
    " mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2; }\n";
  uint32_t out[32];
  bool ok;
  char *e = run_kernel(src, 32, out, 32, 0, &ok);
  CHECK(ok && !e);
  int good = 1;
  for (uint32_t i = 0; i < 32; i++) good &= out[i] == i * (i + 1) / 2;
  CHECK(good);
  free(e);
}

/* Lowering takes only the operand shapes it knows (lower.c refuse_shape):
 * any other, even one the validator would never let through, is refused by
 * the instruction's name and the operand's kind. The IR is edited here to
 * make shapes no text can. Before, a bracketed list as a cp.async.bulk
 * address was read as address 0, and a vector source was "operand kind 5". */
static void expect_shape_refused(const char *body, int opd, Operand repl, const char *want) {
  char src[1024];
  snprintf(src, sizeof src, ".version 8.0\n.target sm_90\n.address_size 64\n"
           ".visible .entry k(.param .u64 p) {\n"
           " .reg .b32 %%r<5>;\n .reg .b64 %%rd<3>;\n%s\n ret;\n}\n", body);
  char *err = NULL;
  Module *m = front_parse(src, strlen(src), "t.ptx", &err);
  CHECK(m != NULL);
  if (!m) { printf("  %s\n", err); free(err); return; }
  Function *f = module_find_func(m, "k");
  Operand *o = &f->insns[0].opds[opd];
  repl.col = o->col;
  *o = repl;
  Device *d = dev_create((size_t)1 << 20);
  Program *p = program_build(m, d, &err);
  const char *why = p && p->nrefusals ? p->refusals[0].msg : err;
  CHECK(why && strstr(why, want));
  if (!why || !strstr(why, want)) printf("  got: %s\n", why ? why : "(lowered)");
  free(err);
  program_free(p);
  dev_destroy(d);
  module_free(m);
}

static void test_operand_shapes(void) {
  static Operand two[2] = {{.kind = OPD_IMM, .comp = -1, .ival = 1}, {.kind = OPD_IMM, .comp = -1, .ival = 2}};
  Operand list = {.kind = OPD_ADDR, .comp = -1, .n = 2, .elems = two};
  Operand vec = {.kind = OPD_VEC, .comp = -1, .n = 2, .elems = two};
  Operand call = {.kind = OPD_LIST, .comp = -1, .n = 2, .elems = two};
  expect_shape_refused(" cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r2];",
                       1, list, "t.ptx:7:2: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes is "
                       "not supported: its operand at column 75 is a bracketed list [...], not an address");
  expect_shape_refused(" add.s32 %r1, %r2, %r3;", 2, vec,
                       "t.ptx:7:2: add.s32 is not supported: its operand at column 20 is a vector {...}, "
                       "not a register, constant or name");
  expect_shape_refused(" add.s32 %r1, %r2, %r3;", 0, call,
                       "add.s32 is not supported: its operand at column 10 is a list (...), not a register");
  expect_shape_refused(" mbarrier.init.shared.b64 [%r1], 2;", 0, vec,
                       "mbarrier.init.shared.b64 is not supported: its operand at column 27 is a vector");
}

/* A loop that counts: its registers never repeat, so only the watchdog
 * can stop it. */
static void test_watchdog(void) {
  const char *src = HEAD ".visible .entry k(.param .u64 o) {\n .reg .b32 %r<2>;\n"
                    " mov.u32 %r1, 0;\nL: add.u32 %r1, %r1, 1;\n bra L;\n}\n";
  uint32_t out[1];
  bool ok;
  char *e = run_kernel(src, 1, out, 1, 100000, &ok);
  CHECK(!ok && e && strstr(e, "runaway"));
  free(e);
}

/* `bra L` alone is a provable spin: a livelock report (cta_run: the
 * cluster is alone), long before a watchdog of 2^40 steps. */
static void test_livelock(void) {
  const char *src = HEAD ".visible .entry k(.param .u64 o) {\nL: bra L;\n}\n";
  uint32_t out[1];
  bool ok;
  char *e = run_kernel(src, 1, out, 1, 1ull << 40, &ok);
  CHECK(!ok && e && strstr(e, "livelock: kernel k, %ctaid (0,0,0): no thread can progress") &&
        strstr(e, "warp 0 lanes 0 spin in the loop from t.ptx:5:4 to t.ptx:5:4"));
  if (e && !strstr(e, "t.ptx:5:4")) printf("%s\n", e);
  free(e);
}

int main(void) {
  test_simple();
  test_unsupported();
  test_dump();
  test_recursion();
  test_watchdog();
  test_operand_shapes();
  test_livelock();
  return unit_report();
}
