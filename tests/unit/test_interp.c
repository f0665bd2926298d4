/* test_interp.c: lowering (src/lower/lower.c) and the warp interpreter
 * (src/exec/interp.c) on small PTX texts: a kernel through cta_run, the
 * "is not supported" diagnostic, the lowered-program dump, the per-lane
 * recursion save/restore and the step watchdog.
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
  Program *p = program_build(m, d, &err);
  CHECK(p == NULL);
  CHECK(err && strstr(err, "t.ptx:6:3: vadd.u32.u32.u32 is not supported"));
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
    CHECK(strstr(text, ".entry k:") && strstr(text, "<sreg %tid.0"));
    CHECK(strstr(text, "<exit>") != NULL);   /* the implicit end */
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

static void test_watchdog(void) {
  const char *src = HEAD ".visible .entry k(.param .u64 o) {\nL: bra L;\n}\n";
  uint32_t out[1];
  bool ok;
  char *e = run_kernel(src, 1, out, 1, 100000, &ok);
  CHECK(!ok && e && strstr(e, "runaway"));
  free(e);
}

int main(void) {
  test_simple();
  test_unsupported();
  test_dump();
  test_recursion();
  test_watchdog();
  return unit_report();
}
