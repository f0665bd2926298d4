/* test_warp.c: the warp-level rendezvous (src/sync/warpsync.c) and the
 * WARP family (src/exec/warp.c) through the interpreter, on small PTX
 * kernels run with cta_run: partial last warps, collectives reached from
 * inside a function called from both arms of a branch, lanes that exit
 * while others wait (release on exit), warps that wait independently of
 * each other, and the located errors and deadlock description.
 * Prints "N passed, M failed"; exits nonzero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/front/front.h"
#include "../../src/lower/lower.h"

#include "check.h"

#include "kernel_harness.h"

/* run_kernel, where completing with an error set is itself an error */
static char *run(const char *src, uint32_t threads, uint32_t *out, int n) {
  bool ok;
  char *e = run_kernel(src, threads, out, n, 0, &ok);
  if (ok && e) { free(e); return strdup("completed with an error set"); }
  return e;
}

/* the kernel prologue: %r1 = %tid.x, %r2 = %laneid, %rd3 = &out[tid] */
#define PRO \
  ".visible .entry k(.param .u64 o) {\n" \
  " .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<4>;\n" \
  " ld.param.u64 %rd1, [o]; mov.u32 %r1, %tid.x; mov.u32 %r2, %laneid;\n" \
  " mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"

/* 40 threads: warp 1 has lanes 0-7 only; a full-mask shfl from lane 7
 * completes there (lanes 8-31 do not exist): warp 0 reads tid 7, warp 1
 * tid 39. */
static void test_partial_warp(void) {
  const char *src = HEAD PRO
    " shfl.sync.idx.b32 %r3, %r1, 7, 0x1f, 0xffffffff;\n"
    " st.global.u32 [%rd3], %r3; }\n";
  uint32_t out[40];
  char *e = run(src, 40, out, 40);
  CHECK(e == NULL);
  bool good = true;
  for (int t = 0; t < 40; t++) good &= out[t] == (t < 32 ? 7u : 39u);
  CHECK(good);
  free(e);
}

/* A collective inside a .func called from both arms of a branch (the two
 * calls are different instructions; the callee's redux is the same one). */
static void test_in_function(void) {
  const char *src = HEAD
    ".func (.param .b32 r) sum(.param .b32 v) {\n"
    " .reg .b32 %a<3>; ld.param.b32 %a1, [v];\n"
    " redux.sync.add.u32 %a2, %a1, 0xffffffff; st.param.b32 [r], %a2; ret; }\n"
    PRO
    " .param .b32 pa; .param .b32 pr;\n"
    " setp.lt.u32 %p1, %r2, 16;\n"
    " @%p1 bra A;\n"
    " st.param.b32 [pa], %r2; call (pr), sum, (pa); ld.param.b32 %r3, [pr]; bra D;\n"
    "A: st.param.b32 [pa], %r2; call (pr), sum, (pa); ld.param.b32 %r3, [pr];\n"
    "D: st.global.u32 [%rd3], %r3; }\n";
  uint32_t out[32];
  char *e = run(src, 32, out, 32);
  CHECK(e == NULL);
  bool good = true;
  for (int t = 0; t < 32; t++) good &= out[t] == 496;
  CHECK(good);
  free(e);
}

/* Lanes 0-15 wait at a full-mask ballot while lanes 16-31 loop and exit:
 * the exits release the ballot (0x0000ffff). */
static void test_release_on_exit(void) {
  const char *src = HEAD PRO
    " setp.ge.u32 %p1, %r2, 16;\n"
    " @%p1 bra X;\n"
    " setp.eq.u32 %p2, %r2, %r2;\n"
    " vote.sync.ballot.b32 %r3, %p2, 0xffffffff;\n"
    " st.global.u32 [%rd3], %r3; ret;\n"
    "X: mov.u32 %r5, 0;\n"
    "L: add.u32 %r5, %r5, 1; setp.lt.u32 %p3, %r5, 100; @%p3 bra L;\n"
    " st.global.u32 [%rd3], %r5; exit; }\n";
  uint32_t out[32];
  char *e = run(src, 32, out, 32);
  CHECK(e == NULL);
  bool good = true;
  for (int t = 0; t < 32; t++) good &= out[t] == (t < 16 ? 0xffffu : 100u);
  CHECK(good);
  free(e);
}

/* Two warps, each split by if/else around shfl.sync: each warp's gathering
 * is its own (warp 1 reads its own lane 3, tid 35). */
static void test_two_warps(void) {
  const char *src = HEAD PRO
    " setp.lt.u32 %p1, %r2, 5;\n"
    " @%p1 bra A;\n"
    " shfl.sync.idx.b32 %r3, %r1, 3, 0x1f, 0xffffffff; bra D;\n"
    "A: shfl.sync.idx.b32 %r3, %r1, 3, 0x1f, 0xffffffff;\n"
    "D: st.global.u32 [%rd3], %r3; }\n";
  uint32_t out[64];
  char *e = run(src, 64, out, 64);
  CHECK(e == NULL);
  bool good = true;
  for (int t = 0; t < 64; t++) good &= out[t] == (t < 32 ? 3u : 35u);
  CHECK(good);
  free(e);
}

/* A lane outside its own membermask: located error with lane and mask. */
static void test_not_in_mask(void) {
  const char *src = HEAD PRO
    " match.any.sync.b32 %r3, %r1, 0x7fffffff;\n"
    " st.global.u32 [%rd3], %r3; }\n";
  uint32_t out[32];
  char *e = run(src, 32, out, 32);
  CHECK(e && strstr(e, "match.any.sync: lane 31 is not in its membermask 0x7fffffff"));
  CHECK(e && strstr(e, "t.ptx:8:2"));
  free(e);
}

/* Lanes 0-3 wait at a mask naming lanes 0-7, lanes 4-7 never arrive (they
 * spin on a CTA barrier that warp 0's waiting lanes hold up): deadlock,
 * described with the mask and the missing lanes. */
static void test_deadlock(void) {
  const char *src = HEAD PRO
    " setp.ge.u32 %p1, %r2, 4;\n"
    " @%p1 bra B;\n"
    " bar.warp.sync 0xff; bra D;\n"
    "B: barrier.sync 0;\n"
    "D: st.global.u32 [%rd3], %r1; }\n";
  uint32_t out[8];
  char *e = run(src, 8, out, 8);
  CHECK(e && strstr(e, "deadlock"));
  CHECK(e && strstr(e, "membermask 0x000000ff: lanes 0-3 arrived, lanes 4-7 missing"));
  free(e);
}

int main(void) {
  test_partial_warp();
  test_in_function();
  test_release_on_exit();
  test_two_warps();
  test_not_in_mask();
  test_deadlock();
  return unit_report();
}
