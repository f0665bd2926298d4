/* test_cluster.c: cluster launches through the C API (include/ptxvm.h):
 * the CTAs of a cluster run together (distributed shared memory through
 * mapa + barrier.cluster), a cluster deadlock is PTXVM_ERROR_DEADLOCK with
 * every CTA's waiting warp in ptxvm_last_error, a bad cluster shape is
 * PTXVM_ERROR_INVALID_CONFIG. Prints "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "../../include/ptxvm.h"
#include "check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

/* Each CTA stores %ctaid.x + 1 to its x; after the cluster barrier it reads
 * x of the CTA of rank (rank + 1) % 4 and writes it to out[%ctaid.x]. */
static const char *k_ring =
  HEAD ".shared .align 4 .b32 x;\n"
  ".visible .entry k(.param .u64 o) {\n"
  " .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
  " ld.param.u64 %rd1, [o]; cvta.to.global.u64 %rd1, %rd1;\n"
  " mov.u32 %r1, %ctaid.x; add.u32 %r2, %r1, 1; st.shared.u32 [x], %r2;\n"
  " barrier.cluster.arrive; barrier.cluster.wait;\n"
  " mov.u32 %r3, %cluster_ctarank; add.u32 %r3, %r3, 1; rem.u32 %r3, %r3, 4;\n"
  " mapa.shared::cluster.u32 %r4, x, %r3; ld.shared::cluster.u32 %r5, [%r4];\n"
  " mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r5;\n"
  " barrier.cluster.arrive; barrier.cluster.wait;\n"
  " ret; }\n";

/* CTA rank 1 never arrives: it waits at bar.sync with a count no one meets. */
static const char *k_stuck =
  HEAD ".visible .entry k() {\n"
  " .reg .pred %p<2>; .reg .b32 %r<4>;\n"
  " mov.u32 %r1, %cluster_ctarank; setp.ne.u32 %p1, %r1, 0;\n"
  " @%p1 bar.sync 0, 64;\n"
  " barrier.cluster.arrive; barrier.cluster.wait;\n"
  " ret; }\n";

static ptxvm_function *load(ptxvm_context *ctx, const char *src, ptxvm_module **mod) {
  ptxvm_function *fn = NULL;
  if (ptxvm_module_load_data(ctx, src, strlen(src), "t.ptx", mod) != PTXVM_SUCCESS) return NULL;
  if (ptxvm_module_get_function(*mod, "k", &fn) != PTXVM_SUCCESS) return NULL;
  return fn;
}

static void test_ring(void) {
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *mod = NULL;
  ptxvm_function *fn = load(ctx, k_ring, &mod);
  CHECK(fn != NULL);
  if (!fn) { ptxvm_context_destroy(ctx); return; }
  ptxvm_devptr out = 0;
  CHECK(ptxvm_mem_alloc(ctx, 8 * 4, &out) == PTXVM_SUCCESS);
  void *params[] = {&out};
  const unsigned grid[3] = {8, 1, 1}, block[3] = {64, 1, 1}, cluster[3] = {4, 1, 1};
  CHECK(ptxvm_launch(fn, grid, block, cluster, 0, params) == PTXVM_SUCCESS);
  unsigned v[8];
  CHECK(ptxvm_memcpy_dtoh(ctx, v, out, sizeof v) == PTXVM_SUCCESS);
  /* CTA c reads x of ctaid (c/4)*4 + (c+1)%4, which holds that id + 1 */
  static const unsigned want[8] = {2, 3, 4, 1, 6, 7, 8, 5};
  CHECK(memcmp(v, want, sizeof v) == 0);
  const unsigned bad[3] = {3, 1, 1};
  CHECK(ptxvm_launch(fn, grid, block, bad, 0, params) == PTXVM_ERROR_INVALID_CONFIG);
  ptxvm_module_unload(mod);
  ptxvm_context_destroy(ctx);
}

static void test_deadlock(void) {
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *mod = NULL;
  ptxvm_function *fn = load(ctx, k_stuck, &mod);
  CHECK(fn != NULL);
  if (!fn) { ptxvm_context_destroy(ctx); return; }
  const unsigned grid[3] = {2, 1, 1}, block[3] = {32, 1, 1}, cluster[3] = {2, 1, 1};
  CHECK(ptxvm_launch(fn, grid, block, cluster, 0, NULL) == PTXVM_ERROR_DEADLOCK);
  const char *e = ptxvm_last_error(ctx);
  CHECK(e && strstr(e, "%clusterid (0,0,0) (2 CTAs)"));
  CHECK(e && strstr(e, "CTA rank 0 %ctaid (0,0,0) warp 0 lanes 0-31 waits at t.ptx:8:"));
  CHECK(e && strstr(e, "not arrived: CTA rank 1 warp 0 lanes 0-31"));
  CHECK(e && strstr(e, "CTA rank 1 %ctaid (1,0,0) warp 0 lanes 0-31 waits at t.ptx:7:"));
  ptxvm_module_unload(mod);
  ptxvm_context_destroy(ctx);
}

int main(void) {
  test_ring();
  test_deadlock();
  return unit_report();
}
