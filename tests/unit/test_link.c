/* test_link.c: ptxvm_module_load_linked, several PTX modules linked into one
 * (PTX ISA 9.0 §11.6, "Linking Directives"; src/front/link.c). A .visible
 * .global of one input and its .extern in another are one variable (both
 * inputs' kernels see every update, ptxvm_module_get_global finds one); a
 * call reaches the other input's .func; internal names of two inputs stay
 * apart; .visible wins over .weak, the first .weak over later ones, the
 * largest .common over smaller ones; each link error names the symbol and
 * the input's FILE:LINE:COL. Expected values are plain arithmetic. Prints
 * "N passed, M failed". */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/ptxvm.h"
#include "check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

/* a.ptx: calls helper and counts its threads in counter, both defined in
 * b.ptx; its own internal twice() and tag differ from b.ptx's. */
static const char *a_ptx =
  HEAD
  ".extern .func (.param .b32 r) helper (.param .b32 x);\n"   /* line 4 */
  ".extern .global .align 4 .u32 counter;\n"                  /* line 5 */
  ".global .u32 tag = 100;\n"
  ".func (.param .b32 r) twice (.param .b32 x) {\n"
  " .reg .b32 %r<3>; ld.param.b32 %r1, [x]; shl.b32 %r2, %r1, 1; st.param.b32 [r], %r2; ret; }\n"
  ".visible .entry ka(.param .u64 p) {\n"
  " .reg .b32 %r<8>; .reg .b64 %rd<6>;\n"
  " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd2, %rd1;\n"
  " mov.u32 %r1, %tid.x;\n"
  " { .param .b32 x; st.param.b32 [x], %r1; .param .b32 r;\n"
  "   call.uni (r), helper, (x); ld.param.b32 %r2, [r]; }\n"
  " { .param .b32 x; st.param.b32 [x], %r1; .param .b32 r;\n"
  "   call.uni (r), twice, (x); ld.param.b32 %r3, [r]; }\n"
  " ld.global.u32 %r4, [tag]; add.u32 %r2, %r2, %r3; add.u32 %r2, %r2, %r4;\n"
  " mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3; st.global.u32 [%rd4], %r2;\n"
  " mov.u64 %rd5, counter; atom.global.add.u32 %r5, [%rd5], 1;\n"
  " ret; }\n";

/* b.ptx: helper(x) = 3x + 1, counter = 5; kb adds counter, twice() and tag
 * of its own. */
static const char *b_ptx =
  HEAD
  ".visible .global .align 4 .u32 counter = 5;\n"
  ".global .u32 tag = 7;\n"
  ".func (.param .b32 r) twice (.param .b32 x) {\n"
  " .reg .b32 %r<3>; ld.param.b32 %r1, [x]; mul.lo.u32 %r2, %r1, 10; st.param.b32 [r], %r2; ret; }\n"
  ".visible .func (.param .b32 r) helper (.param .b32 x) {\n"
  " .reg .b32 %r<3>; ld.param.b32 %r1, [x]; mad.lo.s32 %r2, %r1, 3, 1; st.param.b32 [r], %r2; ret; }\n"
  ".visible .entry kb(.param .u64 p) {\n"
  " .reg .b32 %r<8>; .reg .b64 %rd<5>;\n"
  " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd2, %rd1;\n"
  " mov.u32 %r1, %tid.x;\n"
  " { .param .b32 x; st.param.b32 [x], %r1; .param .b32 r;\n"
  "   call.uni (r), twice, (x); ld.param.b32 %r3, [r]; }\n"
  " ld.global.u32 %r4, [counter]; ld.global.u32 %r5, [tag];\n"
  " add.u32 %r2, %r3, %r4; add.u32 %r2, %r2, %r5;\n"
  " mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3; st.global.u32 [%rd4], %r2;\n"
  " ret; }\n"
  /* faults at its own line 22: the location names b.ptx */
  ".visible .entry kfault() {\n"
  " .reg .b64 %rd<2>; .reg .b32 %r<2>; mov.u64 %rd1, 8; mov.u32 %r1, 1;\n"
  " st.global.u32 [%rd1], %r1; ret; }\n";

static const unsigned one3[3] = {1, 1, 1};
static const unsigned four3[3] = {4, 1, 1};

static ptxvm_status link2(ptxvm_context *ctx, const char *x, const char *y, const char *nx, const char *ny,
                          ptxvm_module **out) {
  const char *texts[2] = {x, y}, *names[2] = {nx, ny};
  return ptxvm_module_load_linked(ctx, 2, texts, NULL, names, NULL, out);
}

/* Runs kernel `name` of mod over 4 threads on a zeroed buffer into got. */
static ptxvm_status run4(ptxvm_context *ctx, ptxvm_module *mod, const char *name, ptxvm_devptr buf, unsigned got[4]) {
  ptxvm_function *fn;
  ptxvm_status st = ptxvm_module_get_function(mod, name, &fn);
  if (st != PTXVM_SUCCESS) return st;
  void *params[] = {&buf};
  st = ptxvm_launch(fn, one3, four3, NULL, 0, params);
  if (st == PTXVM_SUCCESS) st = ptxvm_memcpy_dtoh(ctx, got, buf, 16);
  return st;
}

static bool has(const char *msg, const char *a, const char *b) {
  bool ok = strstr(msg, a) && (!b || strstr(msg, b));
  if (!ok) printf("  message: %s\n", msg);
  return ok;
}

/* The two inputs share helper and counter, and keep twice and tag apart. */
static void test_linked(ptxvm_context *ctx) {
  ptxvm_module *mod = NULL;
  CHECK(link2(ctx, a_ptx, b_ptx, "a.ptx", "b.ptx", &mod) == PTXVM_SUCCESS);
  if (!mod) {
    printf("  %s\n", ptxvm_last_error(ctx));
    return;
  }
  ptxvm_devptr buf = 0;
  unsigned got[4];
  CHECK(ptxvm_mem_alloc(ctx, 16, &buf) == PTXVM_SUCCESS);
  CHECK(run4(ctx, mod, "ka", buf, got) == PTXVM_SUCCESS);
  for (unsigned i = 0; i < 4; i++) CHECK(got[i] == (3 * i + 1) + 2 * i + 100);
  ptxvm_devptr counter = 0;
  size_t size = 0;
  CHECK(ptxvm_module_get_global(mod, "counter", &counter, &size) == PTXVM_SUCCESS && size == 4);
  unsigned c = 0;
  CHECK(ptxvm_memcpy_dtoh(ctx, &c, counter, 4) == PTXVM_SUCCESS && c == 5 + 4);
  CHECK(run4(ctx, mod, "kb", buf, got) == PTXVM_SUCCESS);   /* kb sees ka's counts */
  for (unsigned i = 0; i < 4; i++) CHECK(got[i] == 10 * i + 9 + 7);
  /* a's declarations are gone: helper is listed once, with its body */
  int helpers = 0, n = ptxvm_module_function_count(mod);
  for (int i = 0; i < n; i++) {
    ptxvm_function_info fi;
    ptxvm_function_get_info(ptxvm_module_function_at(mod, i), &fi);
    if (!strcmp(fi.name, "helper")) helpers++, CHECK(fi.has_body);
  }
  CHECK(helpers == 1 && n == 6);   /* twice, ka; twice, helper, kb, kfault */
  ptxvm_function *kf;
  CHECK(ptxvm_module_get_function(mod, "kfault", &kf) == PTXVM_SUCCESS);
  CHECK(ptxvm_launch(kf, one3, one3, NULL, 0, NULL) == PTXVM_ERROR_LAUNCH_FAILED);
  CHECK(has(ptxvm_last_error(ctx), "b.ptx:22:2", NULL));
  ptxvm_mem_free(ctx, buf);
  CHECK(ptxvm_module_unload(mod) == PTXVM_SUCCESS);
}

/* The message of a link that must fail, or "" when it succeeded. */
static const char *link_error(ptxvm_context *ctx, const char *x, const char *y) {
  ptxvm_module *mod = NULL;
  ptxvm_status st = link2(ctx, x, y, "x.ptx", "y.ptx", &mod);
  if (st == PTXVM_SUCCESS) {
    ptxvm_module_unload(mod);
    return "";
  }
  return st == PTXVM_ERROR_INVALID_PTX ? ptxvm_last_error(ctx) : "(another status)";
}

static void test_errors(ptxvm_context *ctx) {
  const char *def = HEAD ".visible .func (.param .b32 r) helper (.param .b32 x) { ret; }\n";
  const char *def2 = HEAD "\n.visible .func (.param .b32 r) helper (.param .b32 x) { ret; }\n";
  CHECK(has(link_error(ctx, def, def2), "y.ptx:5:10: error: duplicate definition of .visible 'helper'",
            "also defined at x.ptx:4:10"));
  /* used and defined nowhere: named at its declaration */
  CHECK(has(link_error(ctx, a_ptx, HEAD ".visible .global .u32 counter;\n"),
            "x.ptx:4:9: error: unresolved function 'helper'", NULL));
  CHECK(has(link_error(ctx, a_ptx, HEAD ".visible .func (.param .b32 r) helper (.param .b32 x) { ret; }\n"),
            "x.ptx:5:31: error: unresolved variable 'counter'", NULL));
  /* declared and never used: no error */
  const char *unused = HEAD ".extern .func nothing ();\n.extern .global .u32 nowhere;\n"
                       ".visible .entry k() { ret; }\n";
  CHECK(!strcmp(link_error(ctx, unused, def), ""));
  /* kind, space and signature must agree */
  CHECK(has(link_error(ctx, HEAD ".extern .const .u32 v;\n.visible .entry k() { .reg .b32 %r1; ld.const.u32 %r1, [v]; ret; }\n",
                       HEAD ".visible .global .u32 v;\n"),
            "x.ptx:4:", "'v' is declared in .const here but defined in .global at y.ptx:4:"));
  CHECK(has(link_error(ctx, HEAD ".extern .func (.param .b32 r) helper ();\n"
                            ".visible .entry k() { .param .b32 r; call.uni (r), helper, (); ret; }\n", def),
            "'helper' does not match its definition at y.ptx:4:1", NULL));
  CHECK(has(link_error(ctx, HEAD ".visible .global .u32 helper;\n", def), "'helper' is defined as a", NULL));
  /* .attribute(.managed) must agree (PTX ISA §5.4.8): managed memory or device memory */
  const char *mref = HEAD ".extern .global .u32 m;\n"
                     ".visible .entry k() { .reg .b32 %r1; ld.global.u32 %r1, [m]; ret; }\n";
  CHECK(has(link_error(ctx, mref, HEAD ".visible .global .attribute(.managed) .u32 m;\n"),
            "x.ptx:4:22: error: 'm' is declared without .attribute(.managed) here but with it at y.ptx:4:44",
            NULL));
  CHECK(has(link_error(ctx, HEAD ".weak .global .attribute(.managed) .u32 m;\n",
                       HEAD ".visible .global .u32 m;\n"),
            "y.ptx:4:", "'m' is defined without .attribute(.managed) here but with it at x.ptx:4:"));
  /* the device runtime: linked, and its caller refused at the launch, named */
  const char *dp = HEAD ".extern .func (.param .b32 r) cudaLaunchDeviceV2 (.param .b64 a, .param .b64 s);\n"
                   ".visible .entry k() { .reg .b64 %rd<2>; .reg .b32 %r<2>; mov.u64 %rd1, 0;\n"
                   " { .param .b64 a; st.param.b64 [a], %rd1; .param .b64 s; st.param.b64 [s], %rd1;\n"
                   "   .param .b32 r; call.uni (r), cudaLaunchDeviceV2, (a, s); ld.param.b32 %r1, [r]; }\n"
                   " ret; }\n";
  ptxvm_module *dpm = NULL;
  CHECK(link2(ctx, dp, def, "x.ptx", "y.ptx", &dpm) == PTXVM_SUCCESS);
  ptxvm_function *k = NULL;
  CHECK(dpm && ptxvm_module_get_function(dpm, "k", &k) == PTXVM_SUCCESS);
  CHECK(k && ptxvm_function_launchable(k) == PTXVM_ERROR_NOT_SUPPORTED);
  CHECK(has(ptxvm_last_error(ctx), "x.ptx:7:19: call to 'cudaLaunchDeviceV2', a function of the CUDA device runtime",
            "device-side kernel launches"));
  ptxvm_module_unload(dpm);
  /* a parse error of an input is its own located message */
  CHECK(has(link_error(ctx, def, HEAD ".visible .entry k() { bogus; }\n"), "y.ptx:4:", NULL));
  /* .common: only the largest may be initialized */
  CHECK(has(link_error(ctx, HEAD ".common .global .u32 c[2] = {1, 2};\n", HEAD ".common .global .u32 c[4];\n"),
            "the initialized one must be the largest", NULL));
  CHECK(has(link_error(ctx, HEAD ".common .func f() { ret; }\n", def), ".common applies only to variables in .global",
            NULL));
  CHECK(has(link_error(ctx, HEAD ".common .global .u32 c[2] = {1, 2};\n", HEAD ".visible .global .u32 c[2];\n"),
            "the initializer would be lost", NULL));
  CHECK(has(link_error(ctx, HEAD ".common .global .u32 c[4];\n", HEAD ".visible .global .u32 c[2];\n"),
            "'c' is defined with 8 bytes, but a .common definition of it has 16", NULL));
  /* bad arguments */
  ptxvm_module *mod;
  CHECK(ptxvm_module_load_linked(ctx, 0, NULL, NULL, NULL, NULL, &mod) == PTXVM_ERROR_INVALID_VALUE);
  const char *null_text[1] = {NULL};
  CHECK(ptxvm_module_load_linked(ctx, 1, null_text, NULL, NULL, NULL, &mod) == PTXVM_ERROR_INVALID_VALUE);
}

static const char *returns(unsigned v, const char *linkage, char *buf, size_t n) {
  snprintf(buf, n, "%s .func (.param .b32 r) f () { .reg .b32 %%r1; mov.u32 %%r1, %u; st.param.b32 [r], %%r1; ret; }\n",
           linkage, v);
  return buf;
}

/* .visible beats .weak in either order; of two .weak, the first input's. */
static void test_weak(ptxvm_context *ctx) {
  ptxvm_devptr buf = 0;
  CHECK(ptxvm_mem_alloc(ctx, 16, &buf) == PTXVM_SUCCESS);
  struct { const char *la, *lb; unsigned want; } cases[] = {
    {".weak", ".visible", 2}, {".visible", ".weak", 1}, {".weak", ".weak", 1}};
  for (int c = 0; c < 3; c++) {
    char fa[200], fb[200], ta[1024], tb[1024];
    snprintf(ta, sizeof ta, HEAD "%s.visible .entry ka(.param .u64 p) {\n"
             " .reg .b32 %%r<3>; .reg .b64 %%rd<3>; ld.param.u64 %%rd1, [p]; cvta.to.global.u64 %%rd1, %%rd1;\n"
             " { .param .b32 r; call.uni (r), f, (); ld.param.b32 %%r1, [r]; }\n"
             " st.global.u32 [%%rd1], %%r1; ret; }\n", returns(1, cases[c].la, fa, sizeof fa));
    snprintf(tb, sizeof tb, HEAD "%s", returns(2, cases[c].lb, fb, sizeof fb));
    ptxvm_module *mod = NULL;
    CHECK(link2(ctx, ta, tb, "a.ptx", "b.ptx", &mod) == PTXVM_SUCCESS);
    unsigned got[4] = {0};
    CHECK(mod && run4(ctx, mod, "ka", buf, got) == PTXVM_SUCCESS && got[0] == cases[c].want);
    if (!mod) printf("  %s\n", ptxvm_last_error(ctx));
    ptxvm_module_unload(mod);
  }
  ptxvm_mem_free(ctx, buf);
}

/* .common: one variable of the largest size, with its initializer. */
static void test_common(ptxvm_context *ctx) {
  const char *ta = HEAD ".common .global .u32 c[2];\n"
                   ".visible .entry ka(.param .u64 p) {\n"
                   " .reg .b32 %r<3>; .reg .b64 %rd<3>; ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
                   " ld.global.u32 %r1, [c+4]; st.global.u32 [%rd1], %r1; mov.u32 %r2, 9; st.global.u32 [c], %r2; ret; }\n";
  const char *tb = HEAD ".common .global .u32 c[4] = {1, 2, 3, 4};\n";
  ptxvm_module *mod = NULL;
  CHECK(link2(ctx, ta, tb, "a.ptx", "b.ptx", &mod) == PTXVM_SUCCESS);
  if (!mod) return;
  ptxvm_devptr buf = 0, c = 0;
  size_t size = 0;
  unsigned got[4] = {0}, cv[4] = {0};
  CHECK(ptxvm_mem_alloc(ctx, 16, &buf) == PTXVM_SUCCESS);
  CHECK(run4(ctx, mod, "ka", buf, got) == PTXVM_SUCCESS && got[0] == 2);
  CHECK(ptxvm_module_get_global(mod, "c", &c, &size) == PTXVM_SUCCESS && size == 16);
  CHECK(ptxvm_memcpy_dtoh(ctx, cv, c, 16) == PTXVM_SUCCESS && cv[0] == 9 && cv[1] == 2 && cv[3] == 4);
  ptxvm_mem_free(ctx, buf);
  ptxvm_module_unload(mod);
  /* two as large: the initialized one, in either order */
  const char *plain = HEAD ".common .global .u32 c[4];\n", *init = HEAD ".common .global .u32 c[4] = {7, 8, 9, 10};\n";
  for (int order = 0; order < 2; order++) {
    CHECK(link2(ctx, order ? init : plain, order ? plain : init, "x.ptx", "y.ptx", &mod) == PTXVM_SUCCESS);
    CHECK(mod && ptxvm_module_get_global(mod, "c", &c, &size) == PTXVM_SUCCESS && size == 16);
    CHECK(mod && ptxvm_memcpy_dtoh(ctx, cv, c, 16) == PTXVM_SUCCESS && cv[0] == 7 && cv[3] == 10);
    ptxvm_module_unload(mod);
  }
}

int main(void) {
  ptxvm_context *ctx = NULL;
  if (ptxvm_context_create(&ctx) != PTXVM_SUCCESS) return 1;
  ptxvm_set_jobs(ctx, 1);
  test_linked(ctx);
  test_errors(ctx);
  test_weak(ctx);
  test_common(ctx);
  ptxvm_context_destroy(ctx);
  return unit_report();
}
