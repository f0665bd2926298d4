/* test_printf_calls.c: the printf callback (include/ptxvm.h,
 * ptxvm_set_printf_callback) is called once per device printf call, with
 * that call's whole text, NUL-terminated, in the same order on one host
 * thread and on several (issue 12 item 15: it was once per CTA, with the
 * CTA's lines joined). Prints "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "../../include/ptxvm.h"
#include "check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

/* Each thread prints "c CTA t TID\n", then "d CTA t TID\n". */
static const char *k_print =
  HEAD ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
  ".global .align 1 .b8 f1[11] = {99, 32, 37, 100, 32, 116, 32, 37, 100, 10, 0};\n"
  ".global .align 1 .b8 f2[11] = {100, 32, 37, 100, 32, 116, 32, 37, 100, 10, 0};\n"
  ".visible .entry k() {\n"
  " .local .align 8 .b8 buf[8]; .reg .b32 %r<4>; .reg .b64 %rd<8>;\n"
  " mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;\n"
  " mov.u64 %rd1, buf; cvta.local.u64 %rd2, %rd1;\n"
  " st.local.u32 [%rd1], %r1; st.local.u32 [%rd1+4], %r2;\n"
  " mov.u64 %rd3, f1; cvta.global.u64 %rd4, %rd3;\n"
  " mov.u64 %rd5, f2; cvta.global.u64 %rd6, %rd5;\n"
  " { .param .b64 p0; st.param.b64 [p0], %rd4; .param .b64 p1; st.param.b64 [p1], %rd2;\n"
  "   .param .b32 r0; call.uni (r0), vprintf, (p0, p1); }\n"
  " { .param .b64 p0; st.param.b64 [p0], %rd6; .param .b64 p1; st.param.b64 [p1], %rd2;\n"
  "   .param .b32 r0; call.uni (r0), vprintf, (p0, p1); }\n"
  " ret; }\n";

typedef struct {
  int calls, bad;
  char all[4096];
  size_t n;
} Seen;

static void on_printf(const char *text, size_t len, void *user) {
  Seen *s = user;
  s->calls++;
  /* one call, one line: a single '\n', at the end, and the NUL after it */
  if (len == 0 || text[len] != 0 || text[len - 1] != '\n' || memchr(text, '\n', len) != text + len - 1)
    s->bad++;
  if (s->n + len < sizeof s->all) { memcpy(s->all + s->n, text, len); s->n += len; }
}

static void run(ptxvm_context *ctx, ptxvm_function *fn, unsigned jobs, Seen *s) {
  memset(s, 0, sizeof *s);
  ptxvm_set_jobs(ctx, jobs);
  unsigned g[3] = {4, 1, 1}, b[3] = {3, 1, 1};
  CHECK(ptxvm_launch(fn, g, b, NULL, 0, NULL) == PTXVM_SUCCESS);
  CHECK(s->calls == 4 * 3 * 2);
  CHECK(s->bad == 0);
}

int main(void) {
  ptxvm_context *ctx = NULL;
  ptxvm_module *mod = NULL;
  ptxvm_function *fn = NULL;
  Seen one, many;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_set_printf_callback(ctx, on_printf, &one) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_load_data(ctx, k_print, strlen(k_print), "t.ptx", &mod) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_get_function(mod, "k", &fn) == PTXVM_SUCCESS);
  if (fn) {
    run(ctx, fn, 1, &one);
    /* lane order within a call, the calls of a CTA in execution order, CTAs in order */
    CHECK(strncmp(one.all, "c 0 t 0\nc 0 t 1\nc 0 t 2\nd 0 t 0\nd 0 t 1\nd 0 t 2\nc 1 t 0\n", 56) == 0);
    CHECK(ptxvm_set_printf_callback(ctx, on_printf, &many) == PTXVM_SUCCESS);
    run(ctx, fn, 4, &many);
    CHECK(one.n == many.n && memcmp(one.all, many.all, one.n) == 0);
  }
  ptxvm_context_destroy(ctx);
  return unit_report();
}
