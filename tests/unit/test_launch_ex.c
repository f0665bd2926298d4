/* test_launch_ex.c: ptxvm_launch_ex's options (cluster shapes from the
 * kernel's directives, non-portable clusters, %envreg values, cooperative
 * launches and their grid workspace), ptxvm_function_get_resources and
 * ptxvm_function_occupancy, against ptxvm.h's documented answers and the
 * device model's arithmetic. Prints "N passed, M failed". */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../../include/ptxvm.h"
#include "check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

/* env stores %envreg0, 1, 2, 31 at out[0..3] and, when %envreg1:%envreg2
 * (high:low) is an address, its two words at out[4..5]; rank, expl and req
 * store %cluster_nctarank at out[%ctaid.x]. */
#define RANK_BODY                                                                          \
  "{\n .reg .b32 %r<3>; .reg .b64 %rd<4>;\n"                                               \
  " ld.param.u64 %rd1, [out]; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %cluster_nctarank;\n"   \
  " mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2; ret;\n}\n"

static const char *k_mod =
  HEAD ".visible .entry env(.param .u64 out) {\n"
  " .reg .pred %p; .reg .b32 %r<7>; .reg .b64 %rd<3>;\n"
  " ld.param.u64 %rd1, [out];\n"
  " mov.u32 %r1, %envreg0; mov.u32 %r2, %envreg1; mov.u32 %r3, %envreg2; mov.u32 %r4, %envreg31;\n"
  " st.global.u32 [%rd1], %r1; st.global.u32 [%rd1+4], %r2;\n"
  " st.global.u32 [%rd1+8], %r3; st.global.u32 [%rd1+12], %r4;\n"
  " mov.b64 %rd2, {%r3, %r2}; setp.eq.u64 %p, %rd2, 0; @%p bra DONE;\n"
  " ld.global.u32 %r5, [%rd2]; ld.global.u32 %r6, [%rd2+4];\n"
  " st.global.u32 [%rd1+16], %r5; st.global.u32 [%rd1+20], %r6;\n"
  "DONE: ret; }\n"
  ".visible .entry rank(.param .u64 out)\n" RANK_BODY
  ".visible .entry expl(.param .u64 out) .explicitcluster\n" RANK_BODY
  ".visible .entry req(.param .u64 out) .reqnctapercluster 2, 1, 1\n" RANK_BODY;

static ptxvm_context *ctx;
static ptxvm_devptr buf;
static uint32_t out[264];
static char msg[512];       /* the last launch's message */

static ptxvm_status run(ptxvm_function *f, unsigned grid, unsigned block, const ptxvm_launch_options *o) {
  unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
  void *p[] = {&buf};
  ptxvm_memset_d8(ctx, buf, 0xff, sizeof out);
  ptxvm_status st = ptxvm_launch_ex(f, g, b, o, p);
  snprintf(msg, sizeof msg, "%s", ptxvm_last_error(ctx));
  ptxvm_memcpy_dtoh(ctx, out, buf, sizeof out);
  return st;
}

static bool all(unsigned n, uint32_t v) {
  for (unsigned i = 0; i < n; i++)
    if (out[i] != v) return false;
  return true;
}

int main(void) {
  ptxvm_module *mod;
  ptxvm_function *env, *rank, *expl, *req;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_load_data(ctx, k_mod, strlen(k_mod), "ex.ptx", &mod) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_get_function(mod, "env", &env) == PTXVM_SUCCESS &&
        ptxvm_module_get_function(mod, "rank", &rank) == PTXVM_SUCCESS &&
        ptxvm_module_get_function(mod, "expl", &expl) == PTXVM_SUCCESS &&
        ptxvm_module_get_function(mod, "req", &req) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_alloc(ctx, sizeof out, &buf) == PTXVM_SUCCESS);

  /* %envreg: 0 by default, the given values otherwise */
  CHECK(run(env, 1, 32, NULL) == PTXVM_SUCCESS && all(4, 0) && out[4] == 0xffffffffu);
  ptxvm_launch_options o = {.envreg = {[0] = 7, [31] = 99}};
  CHECK(run(env, 1, 32, &o) == PTXVM_SUCCESS && out[0] == 7 && out[1] == 0 && out[2] == 0 && out[3] == 99);
  /* cooperative: %envreg1:%envreg2 is an 8-byte workspace { 8, 0 } that lives
     during the launch; envreg[1] and [2] are replaced */
  o = (ptxvm_launch_options){.cooperative = 1, .envreg = {[1] = 5, [2] = 6, [31] = 3}};
  CHECK(run(env, 4, 32, &o) == PTXVM_SUCCESS);
  ptxvm_devptr ws = (uint64_t)out[1] << 32 | out[2];
  CHECK(ws != 0 && ws != ((uint64_t)5 << 32 | 6) && out[3] == 3 && out[4] == 8 && out[5] == 0);
  CHECK(ptxvm_mem_get_range(ctx, ws, NULL, NULL) == PTXVM_ERROR_INVALID_ADDRESS);   /* freed after */

  /* cluster shapes: given; the kernel's .reqnctapercluster; an
     .explicitcluster kernel must be given one */
  o = (ptxvm_launch_options){.cluster = {4, 1, 1}};
  CHECK(run(rank, 8, 32, &o) == PTXVM_SUCCESS && all(8, 4));
  CHECK(run(rank, 8, 32, NULL) == PTXVM_SUCCESS && all(8, 1));
  CHECK(run(req, 8, 32, NULL) == PTXVM_SUCCESS && all(8, 2));
  CHECK(run(expl, 8, 32, NULL) == PTXVM_ERROR_INVALID_CONFIG &&
        strstr(msg, ".explicitcluster"));
  o = (ptxvm_launch_options){.cluster = {2, 1, 1}};
  CHECK(run(expl, 8, 32, &o) == PTXVM_SUCCESS && all(8, 2));
  o = (ptxvm_launch_options){.cluster = {4, 1, 1}};
  CHECK(run(req, 8, 32, &o) == PTXVM_ERROR_INVALID_CONFIG && strstr(msg, ".reqnctapercluster"));
  /* 16 CTAs per cluster: non-portable only */
  o = (ptxvm_launch_options){.cluster = {16, 1, 1}};
  CHECK(run(rank, 16, 32, &o) == PTXVM_ERROR_INVALID_CONFIG && strstr(msg, "at most 8"));
  o.cluster_nonportable = 1;
  CHECK(run(rank, 16, 32, &o) == PTXVM_SUCCESS && all(16, 16));

  /* the occupancy model: 32 threads, 32 CTAs per SM (slots); 1024, 2 (warps) */
  ptxvm_occupancy occ;
  CHECK(ptxvm_function_occupancy(rank, 32, 0, 4, &occ) == PTXVM_SUCCESS && occ.ctas_per_sm == 32 &&
        occ.clusters == 132 * 32 / 4);
  CHECK(ptxvm_function_occupancy(rank, 1024, 0, 0, &occ) == PTXVM_SUCCESS && occ.ctas_per_sm == 2 &&
        occ.clusters == 264);
  /* 100000 bytes + 1 KiB, in 128-byte units 101120: 2 per 228 KiB */
  CHECK(ptxvm_function_occupancy(rank, 64, 100000, 1, &occ) == PTXVM_SUCCESS && occ.ctas_per_sm == 2);
  CHECK(ptxvm_function_occupancy(rank, 64, 232449, 1, &occ) == PTXVM_SUCCESS && occ.ctas_per_sm == 0);
  CHECK(ptxvm_function_occupancy(rank, 1025, 0, 1, &occ) == PTXVM_SUCCESS && occ.ctas_per_sm == 0);
  CHECK(ptxvm_function_occupancy(rank, 0, 0, 1, &occ) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(ptxvm_function_occupancy(rank, 32, 0, 1, NULL) == PTXVM_ERROR_INVALID_VALUE);
  /* a cooperative grid of what the device holds runs; one more CTA is refused */
  o = (ptxvm_launch_options){.cooperative = 1};
  CHECK(run(rank, 264, 1024, &o) == PTXVM_SUCCESS && all(264, 1));
  CHECK(run(rank, 265, 1024, &o) == PTXVM_ERROR_INVALID_CONFIG &&
        strstr(msg, "a cooperative grid of 265 CTAs is more than the 264"));

  ptxvm_function_resources r;
  CHECK(ptxvm_function_get_resources(env, &r) == PTXVM_SUCCESS && r.regs_per_thread == 32 &&
        r.max_threads == 1024 && r.ptx_version == 78 && r.target == 90 && r.shared_bytes == 0 &&
        r.local_bytes == 0 && r.const_bytes == 0);
  CHECK(ptxvm_function_get_resources(env, NULL) == PTXVM_ERROR_INVALID_VALUE);
  ptxvm_context_destroy(ctx);
  return unit_report();
}
