/* test_cancel.c: ptxvm_cancel (include/ptxvm.h). An endless kernel runs in
 * one pthread while another cancels it: ptxvm_launch returns
 * PTXVM_ERROR_CANCELLED promptly, on one host thread and on several; the
 * next launch on the context runs normally. Prints "N passed, M failed". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../include/ptxvm.h"
#include "check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

/* Spins forever on a global word nobody writes, counting its turns (so the
 * spin detector cannot prove it endless and report a livelock first). */
static const char *k_spin =
  HEAD ".visible .entry spin(.param .u64 p) {\n"
  " .reg .pred %p<2>; .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
  " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
  "L: ld.volatile.global.u32 %r1, [%rd1]; setp.eq.u32 %p1, %r1, 0;\n"
  " add.u32 %r2, %r2, 1;\n"
  " @%p1 bra L;\n"
  " ret; }\n"
  ".visible .entry one(.param .u64 p) {\n"
  " .reg .b64 %rd<2>; .reg .b32 %r<2>;\n"
  " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
  " mov.u32 %r1, 7; st.global.u32 [%rd1], %r1; ret; }\n";

typedef struct {
  ptxvm_function *fn;
  ptxvm_devptr buf;
  unsigned grid;
  ptxvm_status st;
  atomic_int done;
} Job;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *launcher(void *arg) {
  Job *j = arg;
  unsigned grid[3] = {j->grid, 1, 1}, block[3] = {64, 1, 1};
  void *params[] = {&j->buf};
  j->st = ptxvm_launch(j->fn, grid, block, NULL, 0, params);
  atomic_store(&j->done, 1);
  return NULL;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Launches spin on `jobs` host threads and cancels it from this thread
 * (repeatedly, since a cancel before the launch starts has no effect). */
static void cancel_on(ptxvm_context *ctx, ptxvm_function *fn, ptxvm_devptr buf, unsigned jobs, unsigned grid) {
  ptxvm_set_jobs(ctx, jobs);
  Job j = {.fn = fn, .buf = buf, .grid = grid};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, launcher, &j) == 0);
  sleep_ms(100);
  CHECK(!atomic_load(&j.done));   /* still spinning */
  double t0 = now();
  while (!atomic_load(&j.done) && now() - t0 < 10) {
    CHECK(ptxvm_cancel(ctx) == PTXVM_SUCCESS);
    sleep_ms(10);
  }
  double dt = now() - t0;
  pthread_join(th, NULL);
  printf("jobs %u, grid %u: returned %.3f s after the cancel\n", jobs, grid, dt);
  CHECK(j.st == PTXVM_ERROR_CANCELLED);
  CHECK(dt < 2.0);
  CHECK(strstr(ptxvm_last_error(ctx), "cancelled") != NULL);
}

int main(void) {
  ptxvm_context *ctx = NULL;
  ptxvm_module *mod = NULL;
  ptxvm_function *spin = NULL, *one = NULL;
  ptxvm_devptr buf = 0;
  CHECK(ptxvm_cancel(NULL) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(strcmp(ptxvm_status_str(PTXVM_ERROR_CANCELLED), "the launch was cancelled") == 0);
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_load_data(ctx, k_spin, strlen(k_spin), "t.ptx", &mod) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_get_function(mod, "spin", &spin) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_get_function(mod, "one", &one) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_alloc(ctx, 4, &buf) == PTXVM_SUCCESS);
  CHECK(ptxvm_memset_d32(ctx, buf, 0, 1) == PTXVM_SUCCESS);
  ptxvm_set_max_steps(ctx, UINT64_MAX);   /* only the cancel stops it */
  if (spin && one) {
    cancel_on(ctx, spin, buf, 1, 1);
    cancel_on(ctx, spin, buf, 1, 64);
    cancel_on(ctx, spin, buf, 4, 64);
    /* a cancel while nothing runs has no effect on the next launch */
    CHECK(ptxvm_cancel(ctx) == PTXVM_SUCCESS);
    unsigned g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
    void *params[] = {&buf};
    CHECK(ptxvm_launch(one, g, b, NULL, 0, params) == PTXVM_SUCCESS);
    uint32_t v = 0;
    CHECK(ptxvm_memcpy_dtoh(ctx, &v, buf, 4) == PTXVM_SUCCESS);
    CHECK(v == 7);
  }
  ptxvm_context_destroy(ctx);
  return unit_report();
}
