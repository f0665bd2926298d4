/* test_lower.c: lowering seen through the public API (ptxvm.h) on inputs
 * that once crashed it or read past arrays: tensor copies with coordinate
 * vectors and tensor-map edits are refused by name (issues 12, 13); one
 * kernel's unsupported instruction refuses only the kernels that can reach
 * it; parameter lists are laid out in 64 bits and kernels are held to
 * ptxas's parameter-space limit; the .w components of the .v4 special
 * registers read 0. Run under the sanitizer build too (build-san/tests/),
 * where a wild read or write is a report, not luck.
 * Prints "N passed, M failed"; exits nonzero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxvm.h"

#include "check.h"

#define HEAD ".version 8.3\n.target sm_90a\n.address_size 64\n"

static ptxvm_module *load(ptxvm_context *ctx, const char *text) {
  ptxvm_module *mod = NULL;
  if (ptxvm_module_load_data(ctx, text, strlen(text), "t.ptx", &mod) != PTXVM_SUCCESS) {
    printf("load: %s\n", ptxvm_last_error(ctx));
    return NULL;
  }
  return mod;
}

static char launch_error[1024];   /* ptxvm_last_error of the last launch */

/* Launches kernel `name` of mod on one CTA of `threads` threads with one
 * u64 parameter, a zeroed buffer of n u32 copied back to out (may be NULL). */
static ptxvm_status launch(ptxvm_context *ctx, ptxvm_module *mod, const char *name, unsigned threads,
                           uint32_t *out, int n) {
  ptxvm_function *fn = NULL;
  if (ptxvm_module_get_function(mod, name, &fn) != PTXVM_SUCCESS) return PTXVM_ERROR_NOT_FOUND;
  ptxvm_devptr buf = 0;
  ptxvm_mem_alloc(ctx, (size_t)n * 4, &buf);
  ptxvm_memset_d8(ctx, buf, 0, (size_t)n * 4);
  void *params[] = {&buf};
  const unsigned grid[3] = {1, 1, 1}, block[3] = {threads, 1, 1};
  ptxvm_status st = ptxvm_launch(fn, grid, block, NULL, 0, params);
  snprintf(launch_error, sizeof launch_error, "%s", ptxvm_last_error(ctx));
  if (out) ptxvm_memcpy_dtoh(ctx, out, buf, (size_t)n * 4);
  ptxvm_mem_free(ctx, buf);
  return st;
}

/* A kernel that launches must say "not supported" at FILE:LINE:COL naming
 * the instruction, and nothing may crash on the way. */
static void expect_refused(const char *text, const char *want) {
  ptxvm_context *ctx = NULL;
  ptxvm_context_create(&ctx);
  ptxvm_module *mod = load(ctx, text);
  CHECK(mod != NULL);
  if (mod) {
    CHECK(launch(ctx, mod, "k", 32, NULL, 4) == PTXVM_ERROR_NOT_SUPPORTED);
    CHECK(strstr(launch_error, want) != NULL);
    if (!strstr(launch_error, want)) printf("  got: %s\n", launch_error);
  }
  ptxvm_context_destroy(ctx);
}

/* 12.5, 13.2: a coordinate vector [map, {x, y}] lost its elements in the
 * IR (a union of `sym` and `elems`), and lowering followed NULL (here a
 * reduction in .im2col mode, which a store does not take). */
static void test_tensor_copies(void) {
  expect_refused(HEAD ".visible .entry k(.param .u64 p)\n{\n"
                 "  .reg .b32 %r<5>;\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n"
                 "  cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col.bulk_group"
                 " [%rd1, {%r2, %r3, %r4}], [%r1];\n  ret;\n}\n",
                 "t.ptx:9:3: cp.reduce.async.bulk.tensor: a store takes .im2col_no_offs, not .im2col");
  /* the tensor copies run (issue 18), .im2col too, but not the sm_100a modes: refused by name */
  expect_refused(HEAD ".visible .entry k(.param .u64 p)\n{\n"
                 "  .reg .b16 %rs<2>;\n  .reg .b32 %r<5>;\n  .reg .b64 %rd<3>;\n"
                 "  .shared .align 128 .b8 buf[1024];\n  .shared .align 8 .b64 bar;\n"
                 "  cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes"
                 " [buf], [%rd2, {%r1, %r2, %r3}], [bar], {%rs1, %rs1};\n  ret;\n}\n",
                 "t.ptx:11:3: cp.async.bulk.tensor: .im2col::w is not supported (it needs sm_100a or later; "
                 "ptxvm executes sm_90a)");
  expect_refused(HEAD ".visible .entry k(.param .u64 p)\n{\n"
                 "  .reg .b32 %r<6>;\n  .reg .b64 %rd<3>;\n"
                 "  .shared .align 128 .b8 buf[1024];\n  .shared .align 8 .b64 bar;\n"
                 "  cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes"
                 " [buf], [%rd2, {%r1, %r2, %r3, %r4, %r5}], [bar];\n  ret;\n}\n",
                 "t.ptx:10:3: cp.async.bulk.tensor: .tile::gather4 is not supported (it needs sm_100a or "
                 "later; ptxvm executes sm_90a)");
  /* an operand shape a selector does not know is refused by name: a
   * bracketed list as a call argument (call's operands are "*", unchecked;
   * test_interp.c edits the IR for the shapes no text can make) */
  expect_refused(HEAD ".func f(.param .u64 a)\n{\n  ret;\n}\n"
                 ".visible .entry k(.param .u64 p)\n{\n"
                 "  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n  call f, ([%rd1, {%r1}]);\n  ret;\n}\n",
                 "t.ptx:12:3: call is not supported");
}

/* 12.16: one kernel's unsupported instruction (here in a .func it calls,
 * or may call through a register) refuses that kernel only. */
static const char *const mixed =
    HEAD ".func f(.param .u64 q)\n{\n  .reg .b32 %r<5>;\n  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [q];\n"
    "  multimem.red.relaxed.sys.global.add.u32 [%rd1], %r2;\n  ret;\n}\n"   /* line 9 */
    ".func g()\n{\n  ret;\n}\n"
    ".visible .entry a(.param .u64 p)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, 42;\n  st.global.u32 [%rd1], %r1;\n"
    "  call g, ();\n  ret;\n}\n"
    ".visible .entry b(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n"
    "  {\n  .param .u64 q0;\n  st.param.u64 [q0], %rd1;\n  call f, (q0);\n  }\n  ret;\n}\n"
    ".visible .entry c(.param .u64 p)\n{\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [p];\n"
    "  fp: .callprototype _ (.param .u64 q);\n"
    "  mov.u64 %rd2, f;\n  {\n  .param .u64 q0;\n  st.param.u64 [q0], %rd1;\n"
    "  call %rd2, (q0), fp;\n  }\n  ret;\n}\n";

static void test_per_kernel(void) {
  ptxvm_context *ctx = NULL;
  ptxvm_context_create(&ctx);
  ptxvm_module *mod = load(ctx, mixed);
  CHECK(mod != NULL);
  if (!mod) { ptxvm_context_destroy(ctx); return; }
  CHECK(ptxvm_module_unsupported_count(mod) == 1);
  ptxvm_unsupported_info u;
  CHECK(ptxvm_module_unsupported(mod, 0, &u) == PTXVM_SUCCESS);
  CHECK(u.function && !strcmp(u.function, "f") && !u.in_entry && u.line == 9 && u.col == 3);
  CHECK(!strncmp(u.message, "t.ptx:9:3: ", 11) && u.what == u.message + 11);
  CHECK(ptxvm_module_unsupported(mod, 1, &u) == PTXVM_ERROR_NOT_FOUND);
  uint32_t out[1] = {0};
  CHECK(launch(ctx, mod, "a", 32, out, 1) == PTXVM_SUCCESS && out[0] == 42);
  CHECK(launch(ctx, mod, "b", 32, NULL, 1) == PTXVM_ERROR_NOT_SUPPORTED);
  CHECK(strstr(launch_error, "t.ptx:9:3: multimem.red") &&
        strstr(launch_error, "(in 'f', which kernel 'b' can call)"));
  CHECK(launch(ctx, mod, "c", 32, NULL, 1) == PTXVM_ERROR_NOT_SUPPORTED);   /* f's address is taken */
  ptxvm_function *fa = NULL, *fg = NULL;
  ptxvm_module_get_function(mod, "a", &fa);
  ptxvm_module_get_function(mod, "g", &fg);
  CHECK(ptxvm_function_launchable(fa) == PTXVM_SUCCESS);
  CHECK(ptxvm_function_launchable(fg) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(launch(ctx, mod, "a", 32, out, 1) == PTXVM_SUCCESS);   /* still, after a refusal */
  ptxvm_module_unload(mod);   /* stale handles are refused, as everywhere */
  CHECK(ptxvm_module_unsupported_count(mod) == -1);
  CHECK(ptxvm_module_unsupported(mod, 0, &u) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_function_launchable(fa) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_module_unsupported_count(NULL) == -1 && ptxvm_function_launchable(NULL) == PTXVM_ERROR_INVALID_VALUE);
  ptxvm_context_destroy(ctx);
}

/* What fails the whole module is its one entry, without a location. */
static void test_module_refused(void) {
  ptxvm_context *ctx = NULL;
  ptxvm_context_create(&ctx);
  ptxvm_module *mod = load(ctx, HEAD ".func f(.param .align 4 .b8 a[3000000000], .param .align 4 .b8 "
                                    "b[3000000000])\n{\n  ret;\n}\n.visible .entry k(.param .u64 p)\n{\n  ret;\n}\n");
  CHECK(mod != NULL);
  if (mod) {
    ptxvm_function *f = NULL;
    ptxvm_param_info pi;
    ptxvm_function_info fi;
    ptxvm_module_get_function(mod, "f", &f);
    CHECK(ptxvm_function_get_param(f, 0, 1, &pi) == PTXVM_SUCCESS && pi.offset == 3000000000u &&
          pi.size == 3000000000u && pi.array_len == 3000000000u);
    CHECK(ptxvm_function_get_info(f, &fi) == PTXVM_SUCCESS && fi.param_bytes == 6000000000u);
    /* the frame of f does not fit the local window: its size once wrapped */
    ptxvm_unsupported_info u;
    CHECK(ptxvm_module_unsupported_count(mod) == 1);
    CHECK(ptxvm_module_unsupported(mod, 0, &u) == PTXVM_SUCCESS && !u.function && !u.line);
    CHECK(strstr(u.what, "the frame of 'f' (6000000000 bytes") == u.what);
    CHECK(launch(ctx, mod, "k", 1, NULL, 1) == PTXVM_ERROR_NOT_SUPPORTED);
  }
  ptxvm_context_destroy(ctx);
}

/* 13.1: kernel parameter offsets wrapped at 32 bits and the launch wrote
 * past its buffer; ptxas's limits are enforced at the parameter. */
static void expect_load(const char *text, const char *want) {
  ptxvm_context *ctx = NULL;
  ptxvm_context_create(&ctx);
  ptxvm_module *mod = NULL;
  ptxvm_status st = ptxvm_module_load_data(ctx, text, strlen(text), "t.ptx", &mod);
  if (want) {
    CHECK(st == PTXVM_ERROR_INVALID_PTX && strstr(ptxvm_last_error(ctx), want));
    if (st == PTXVM_SUCCESS || !strstr(ptxvm_last_error(ctx), want)) printf("  got: %s\n", ptxvm_last_error(ctx));
  } else {
    CHECK(st == PTXVM_SUCCESS);
  }
  ptxvm_context_destroy(ctx);
}

static void test_param_space(void) {
  expect_load(".version 8.1\n.target sm_90\n.address_size 64\n"
              ".visible .entry k(.param .align 4 .b8 a[4294967292], .param .u64 b)\n{\n  ret;\n}\n",
              "t.ptx:4:39: error: kernel 'k' uses too much parameter space: 'a' ends at byte 4294967292, "
              "past the limit of 32764 bytes");
  const char *v80 = ".version 8.0\n.target sm_90\n.address_size 64\n";
  char text[512];
  snprintf(text, sizeof text, "%s.visible .entry k(.param .u8 x, .param .align 8 .b8 a[4344])\n{\n  ret;\n}\n", v80);
  expect_load(text, NULL);   /* ends at 4352 exactly */
  snprintf(text, sizeof text, "%s.visible .entry k(.param .u8 x, .param .align 8 .b8 a[4345])\n{\n  ret;\n}\n", v80);
  expect_load(text, "t.ptx:4:53: error: kernel 'k' uses too much parameter space: 'a' ends at byte 4353");
  expect_load(".version 8.1\n.target sm_90\n.address_size 64\n"
              ".visible .entry k(.param .align 4 .b8 a[32764])\n{\n  ret;\n}\n", NULL);
  expect_load(".version 8.1\n.target sm_60\n.address_size 64\n"
              ".visible .entry k(.param .align 4 .b8 a[4353])\n{\n  ret;\n}\n", "limit of 4352 bytes");
  /* 10^5 .func parameters: laid out once, not once per question */
  enum { N = 100000 };
  char *big = malloc((size_t)N * 24 + 256);
  size_t n = (size_t)sprintf(big, "%s.func f(", v80);
  for (int i = 0; i < N; i++) n += (size_t)sprintf(big + n, "%s.param .u32 a%d", i ? ", " : "", i);
  sprintf(big + n, ")\n{\n  ret;\n}\n");
  ptxvm_context *ctx = NULL;
  ptxvm_context_create(&ctx);
  ptxvm_module *mod = load(ctx, big);
  ptxvm_function *f = NULL;
  if (mod) ptxvm_module_get_function(mod, "f", &f);
  ptxvm_param_info pi;
  unsigned bad = 0;
  for (int i = 0; f && i < N; i++)
    bad += ptxvm_function_get_param(f, 0, i, &pi) != PTXVM_SUCCESS || pi.offset != 4u * (unsigned)i;
  CHECK(f && bad == 0);
  ptxvm_context_destroy(ctx);
  free(big);
}

/* 13.3: %tid.w and the other .w components read past 3-element arrays. */
static void test_sreg_w(void) {
  static const char *const regs[] = {"%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid",
                                     "%cluster_ctaid", "%cluster_nctaid"};
  char text[4096];
  size_t n = (size_t)snprintf(text, sizeof text, HEAD ".visible .entry k(.param .u64 p)\n{\n"
                              "  .reg .b32 %%r<2>;\n  .reg .b64 %%rd<3>;\n  ld.param.u64 %%rd1, [p];\n");
  for (int i = 0; i < 8; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "  mov.u32 %%r1, %s.w;\n  add.u32 %%r1, %%r1, %d;\n"
                          "  st.global.u32 [%%rd1+%d], %%r1;\n", regs[i], 100 * (i + 1), 4 * i);
  snprintf(text + n, sizeof text - n, "  ret;\n}\n");
  ptxvm_context *ctx = NULL;
  ptxvm_context_create(&ctx);
  ptxvm_module *mod = load(ctx, text);
  uint32_t out[8] = {0};
  CHECK(mod && launch(ctx, mod, "k", 3, out, 8) == PTXVM_SUCCESS);
  for (int i = 0; i < 8; i++) {
    CHECK(out[i] == 100u * (unsigned)(i + 1));   /* .w is 0 */
    if (out[i] != 100u * (unsigned)(i + 1)) printf("  %s.w: %u\n", regs[i], out[i] - 100u * (unsigned)(i + 1));
  }
  ptxvm_context_destroy(ctx);
}

int main(void) {
  test_tensor_copies();
  test_per_kernel();
  test_module_refused();
  test_param_space();
  test_sreg_w();
  return unit_report();
}
