/* test_driver_support.c: the ptxvm.h calls a CUDA driver needs (src/cuda/):
 * ptxvm_module_get_global (module variables placed
 * and initialised before any launch), ptxvm_function_static_shared,
 * ptxvm_mem_get_range and ptxvm_launch_fault. Prints
 * "N passed, M failed". */
#include <string.h>

#include "../../include/ptxvm.h"
#include "check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

static const char *k_mod =
  HEAD ".visible .global .align 8 .u64 g = 77;\n"
  ".visible .const .align 4 .u32 tab[3] = {1, 2, 3};\n"
  ".shared .align 4 .u32 sh[10];\n"
  ".visible .entry readg(.param .u64 p) {\n"
  " .reg .b64 %rd<4>; .reg .b32 %r<2>;\n"
  " ld.param.u64 %rd1, [p]; ld.global.u64 %rd2, [g]; ld.const.u32 %r1, [tab+8];\n"
  " cvt.u64.u32 %rd3, %r1; add.u64 %rd2, %rd2, %rd3;\n"
  " mov.u32 %r1, sh; st.shared.u32 [%r1], 0;\n"
  " st.global.u64 [%rd1], %rd2; ret; }\n"
  ".visible .entry bad(.param .u64 p, .param .u32 how) {\n"
  " .reg .pred %q<3>; .reg .b64 %rd<3>; .reg .b32 %r<2>;\n"
  " ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [how];\n"
  " setp.eq.u32 %q1, %r1, 1; @%q1 bra ADDR;\n"
  " setp.eq.u32 %q2, %r1, 2; @%q2 bra MIS;\n"
  " trap;\n"
  "ADDR: mov.u64 %rd2, 16; st.global.u32 [%rd2], %r1; ret;\n"
  "MIS: st.global.u32 [%rd1+2], %r1; ret; }\n";

int main(void) {
  ptxvm_context *ctx;
  ptxvm_module *mod;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  size_t fr = 0, total = 0;
  CHECK(ptxvm_module_load_data(ctx, k_mod, strlen(k_mod), "m.ptx", &mod) == PTXVM_SUCCESS);

  /* variables: placed and initialised before any launch */
  ptxvm_devptr g = 0, tab = 0, x;
  size_t n = 0;
  CHECK(ptxvm_module_get_global(mod, "g", &g, &n) == PTXVM_SUCCESS && g && n == 8);
  CHECK(ptxvm_module_get_global(mod, "tab", &tab, &n) == PTXVM_SUCCESS && tab && n == 12);
  CHECK(ptxvm_module_get_global(mod, "sh", &x, &n) == PTXVM_ERROR_NOT_FOUND);
  CHECK(ptxvm_module_get_global(mod, "nosuch", &x, &n) == PTXVM_ERROR_NOT_FOUND);
  CHECK(strstr(ptxvm_last_error(ctx), "nosuch") != NULL);
  CHECK(ptxvm_module_unsupported_count(mod) == 0);   /* prepared already: nothing changes */
  ptxvm_devptr g2 = 0;
  CHECK(ptxvm_module_get_global(mod, "g", &g2, NULL) == PTXVM_SUCCESS && g2 == g);
  unsigned long long gv = 0;
  unsigned tv[3] = {0, 0, 0};
  CHECK(ptxvm_memcpy_dtoh(ctx, &gv, g, 8) == PTXVM_SUCCESS && gv == 77);
  CHECK(ptxvm_memcpy_dtoh(ctx, tv, tab, 12) == PTXVM_SUCCESS && tv[0] == 1 && tv[2] == 3);
  gv = 1000;
  CHECK(ptxvm_memcpy_htod(ctx, g, &gv, 8) == PTXVM_SUCCESS);   /* the kernel sees the host's value */
  ptxvm_function *fn, *badf;
  CHECK(ptxvm_module_get_function(mod, "readg", &fn) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_get_function(mod, "bad", &badf) == PTXVM_SUCCESS);
  size_t sh = 0;
  CHECK(ptxvm_function_static_shared(fn, &sh) == PTXVM_SUCCESS && sh >= 40);
  CHECK(ptxvm_function_static_shared(badf, &sh) == PTXVM_SUCCESS && sh == 0);

  /* memory information and ranges */
  ptxvm_devptr buf = 0, base = 0;
  CHECK(ptxvm_mem_get_info(ctx, &fr, &total) == PTXVM_SUCCESS);
  size_t fr_before = fr;
  CHECK(ptxvm_mem_alloc(ctx, 1000, &buf) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_get_info(ctx, &fr, &total) == PTXVM_SUCCESS && fr <= fr_before - 1000 && fr < total);
  CHECK(ptxvm_mem_get_range(ctx, buf + 999, &base, &n) == PTXVM_SUCCESS && base == buf && n == 1000);
  CHECK(ptxvm_mem_get_range(ctx, buf + 1000, &base, &n) == PTXVM_ERROR_INVALID_ADDRESS);   /* its guard */
  CHECK(ptxvm_mem_get_range(ctx, 8, &base, &n) == PTXVM_ERROR_INVALID_ADDRESS);

  /* what a launch's fault was */
  CHECK(ptxvm_launch_fault(ctx) == PTXVM_FAULT_NONE);
  unsigned one[3] = {1, 1, 1};
  void *p1[] = {&buf};
  CHECK(ptxvm_launch(fn, one, one, NULL, 0, p1) == PTXVM_SUCCESS);
  CHECK(ptxvm_memcpy_dtoh(ctx, &gv, buf, 8) == PTXVM_SUCCESS && gv == 1003);
  static const ptxvm_fault want[3] = {PTXVM_FAULT_TRAP, PTXVM_FAULT_ADDRESS, PTXVM_FAULT_MISALIGNED};
  for (unsigned how = 0; how < 3; how++) {
    void *p2[] = {&buf, &how};
    CHECK(ptxvm_launch(badf, one, one, NULL, 0, p2) == PTXVM_ERROR_LAUNCH_FAILED);
    CHECK(ptxvm_launch_fault(ctx) == want[how]);
  }
  CHECK(ptxvm_launch(fn, one, one, NULL, 0, p1) == PTXVM_SUCCESS);
  CHECK(ptxvm_launch_fault(ctx) == PTXVM_FAULT_NONE);
  CHECK(ptxvm_launch_fault(NULL) == PTXVM_FAULT_NONE);
  ptxvm_context_destroy(ctx);
  return unit_report();
}
