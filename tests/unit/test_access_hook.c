/* test_access_hook.c: the memory-access hook (exec.h "the memory-access
 * hook"): an observer sees every lane's load, store, atomic, reduction,
 * asynchronous-copy source read and landing, with address, size, kind,
 * thread and instruction; the warp-wide fast paths report as the lane-by-lane
 * ones do; without an observer nothing is reported.
 * Prints "N passed, M failed"; exits nonzero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/front/front.h"
#include "../../src/lower/lower.h"

#include "check.h"

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

typedef struct Seen {
  int n[ACC_PRINTF + 1];
  uint32_t bytes[ACC_PRINTF + 1];
  uint32_t lanes_st;          /* lanes (tid) of the .shared stores */
  int line_ld;                /* source line of the global load */
  bool strong_ld;
  uint64_t shared_addr_max;   /* largest .shared store address */
} Seen;

static void observe(void *ctx, const MemAccess *a) {
  Seen *s = ctx;
  s->n[a->kind]++;
  s->bytes[a->kind] += a->size;
  if (a->kind == ACC_ST && a->sp == SP_SHARED) {
    s->lanes_st |= 1u << a->w->tid[0][a->lane];
    if (a->addr > s->shared_addr_max) s->shared_addr_max = a->addr;
  }
  if (a->kind == ACC_LD && a->sp == SP_GLOBAL) {
    if (!s->line_ld) s->line_ld = (int)a->x->src->line;
    s->strong_ld |= a->strong;
  }
}

/* 32 threads: a coalesced global load (fast path), a shared store per lane,
   a relaxed load, an atomic add, a red, a cp.async of 4 bytes waited for. */
static const char *KERNEL = HEAD
  ".visible .entry k(.param .u64 p) {\n"
  "  .reg .u64 %rd<6>; .reg .u32 %r<6>;\n"
  "  .shared .align 4 .b32 s[64];\n"
  "  ld.param.u64 %rd1, [p];\n"
  "  mov.u32 %r1, %tid.x;\n"
  "  mul.wide.u32 %rd2, %r1, 4;\n"
  "  add.u64 %rd3, %rd1, %rd2;\n"
  "  ld.global.u32 %r2, [%rd3];\n"
  "  mov.u32 %r3, s;\n"
  "  shl.b32 %r4, %r1, 2;\n"
  "  add.u32 %r3, %r3, %r4;\n"
  "  st.shared.u32 [%r3], %r2;\n"
  "  ld.relaxed.gpu.global.u32 %r2, [%rd3];\n"
  "  atom.global.add.u32 %r5, [%rd1], 1;\n"
  "  red.global.add.u32 [%rd1+4], 1;\n"
  "  cp.async.ca.shared.global [%r3+128], [%rd3], 4;\n"
  "  cp.async.wait_all;\n"
  "  ret;\n"
  "}\n";

static char *run(Seen *seen) {
  char *err = NULL;
  Module *m = front_parse(KERNEL, strlen(KERNEL), "t.ptx", &err);
  if (!m) return err;
  Device *d = dev_create((size_t)1 << 26);
  Program *p = program_build(m, d, &err);
  if (p && p->nrefusals) err = strdup(p->refusals[0].msg);
  if (!p || err) { program_free(p); dev_destroy(d); module_free(m); return err; }
  uint64_t buf = dev_alloc(d, 128, 256, 0);
  MemObserver o = {observe, seen, NULL};
  Launch L;
  memset(&L, 0, sizeof L);
  L.prog = p;
  L.kernel = module_find_func(m, "k");
  L.dev = d;
  L.grid[0] = L.grid[1] = L.grid[2] = 1;
  L.block[0] = 32; L.block[1] = L.block[2] = 1;
  L.cluster[0] = L.cluster[1] = L.cluster[2] = 1;
  L.params = (const uint8_t *)&buf;
  L.param_size = 8;
  L.observer = seen ? &o : NULL;
  uint32_t ctaid[3] = {0, 0, 0};
  bool ok = cta_run(&L, ctaid);
  program_free(p);
  dev_destroy(d);
  module_free(m);
  if (!ok && !L.error) return strdup("did not complete");
  return L.error;
}

int main(void) {
  Seen s;
  memset(&s, 0, sizeof s);
  char *err = run(&s);
  CHECK(err == NULL);
  if (err) printf("%s\n", err);
  free(err);
  CHECK(s.n[ACC_LD] == 96 && s.bytes[ACC_LD] == 512);    /* ld.param and two loads, 32 lanes */
  CHECK(s.n[ACC_ST] == 32 && s.lanes_st == 0xffffffffu);
  CHECK(s.shared_addr_max == 31 * 4);                     /* s is at shared offset 0 */
  CHECK(s.line_ld == 11);
  CHECK(s.strong_ld);                                     /* the relaxed load */
  CHECK(s.n[ACC_ATOM] == 64);                             /* atom and red */
  CHECK(s.n[ACC_ASYNC_RD] == 32 && s.n[ACC_ASYNC_WR] == 32 && s.bytes[ACC_ASYNC_WR] == 128);
  CHECK(s.n[ACC_PRINTF] == 0);
  err = run(NULL);   /* no observer: the same run */
  CHECK(err == NULL);
  free(err);
  return unit_report();
}
