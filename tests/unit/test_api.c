/* test_api.c: the reliability of the public API (include/ptxvm.h, issue 13):
 * stale handles (a module unloaded twice, a function of an unloaded module,
 * a module of a destroyed context) are PTXVM_ERROR_INVALID_HANDLE, not a use
 * after free (the ASan build runs this too); a context used by a second
 * caller during a call is PTXVM_ERROR_CONTEXT_BUSY; a NULL argument leaves
 * its own message; device memory has a size (ptxvm_set_device_memory,
 * PTXVM_DEVICE_MEMORY, by default a part of the host's available memory),
 * allocating until it fails gets PTXVM_ERROR_OUT_OF_DEVICE_MEMORY, and fresh
 * allocations cost no host memory until written; device printf is bounded
 * per cluster (ptxvm_set_printf_buffer) and its losses counted. Prints
 * "N passed, M failed". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../include/ptxvm.h"
#include "check.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

static const char *k_ptx =
  HEAD ".visible .entry one(.param .u64 p) {\n"
  " .reg .b64 %rd<2>; .reg .b32 %r<2>;\n"
  " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
  " mov.u32 %r1, 7; st.global.u32 [%rd1], %r1; ret; }\n"
  /* spins on a word nobody writes, counting its turns: not a provable
     livelock (src/exec/spin.c), so it runs until cancelled */
  ".visible .entry spin(.param .u64 p) {\n"
  " .reg .pred %p<2>; .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
  " ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
  "L: ld.volatile.global.u32 %r1, [%rd1]; setp.eq.u32 %p1, %r1, 0;\n"
  " add.u32 %r2, %r2, 1;\n"
  " @%p1 bra L;\n"
  " ret; }\n";

/* printf("hi\n") once per thread (vprintf with no argument buffer). */
static const char *k_printf =
  HEAD ".extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);\n"
  ".global .align 1 .b8 fmt[4] = {104, 105, 10, 0};\n"
  ".visible .entry hello() {\n"
  " .reg .b32 %r<2>; .reg .b64 %rd<3>;\n"
  " mov.u64 %rd1, fmt; cvta.global.u64 %rd2, %rd1; mov.u64 %rd1, 0;\n"
  " { .param .b64 f; st.param.b64 [f], %rd2; .param .b64 a; st.param.b64 [a], %rd1;\n"
  "   .param .b32 r; call.uni (r), vprintf, (f, a); ld.param.b32 %r1, [r]; }\n"
  " ret; }\n";

static const unsigned one3[3] = {1, 1, 1};

static ptxvm_module *load(ptxvm_context *ctx, const char *text) {
  ptxvm_module *m = NULL;
  if (ptxvm_module_load_data(ctx, text, strlen(text), "t.ptx", &m) != PTXVM_SUCCESS)
    printf("  load: %s\n", ptxvm_last_error(ctx));
  return m;
}

/* Every kind of stale handle is recognised, and a slot's reuse does not
 * revive an old handle. */
static void test_stale_handles(void) {
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *m = load(ctx, k_ptx);
  ptxvm_function *one = NULL;
  CHECK(m && ptxvm_module_get_function(m, "one", &one) == PTXVM_SUCCESS);
  ptxvm_devptr buf = 0;
  CHECK(ptxvm_mem_alloc(ctx, 4, &buf) == PTXVM_SUCCESS);
  void *params[] = {&buf};
  CHECK(ptxvm_launch(one, one3, one3, NULL, 0, params) == PTXVM_SUCCESS);
  /* unload twice; the functions of an unloaded module */
  CHECK(ptxvm_module_unload(m) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_unload(m) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_launch(one, one3, one3, NULL, 0, params) == PTXVM_ERROR_INVALID_HANDLE);
  ptxvm_function_info fi;
  ptxvm_param_info pi;
  ptxvm_function *f2 = NULL;
  CHECK(ptxvm_function_get_info(one, &fi) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_function_get_param(one, 0, 0, &pi) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_module_get_function(m, "one", &f2) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_module_function_count(m) == 0 && ptxvm_module_function_at(m, 0) == NULL);
  /* a new module (likely in the freed slots) gives new handles */
  ptxvm_module *m2 = load(ctx, k_ptx);
  CHECK(m2 && m2 != m);
  CHECK(ptxvm_module_get_function(m2, "one", &f2) == PTXVM_SUCCESS && f2 != one);
  CHECK(ptxvm_launch(one, one3, one3, NULL, 0, params) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_launch(f2, one3, one3, NULL, 0, params) == PTXVM_SUCCESS);
  /* a handle of the wrong kind */
  CHECK(ptxvm_module_unload((ptxvm_module *)(void *)f2) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_set_jobs((ptxvm_context *)(void *)m2, 1) == PTXVM_ERROR_INVALID_HANDLE);
  /* the context destroyed: its modules, functions and itself are stale */
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_unload(m2) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_launch(f2, one3, one3, NULL, 0, params) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_mem_alloc(ctx, 4, &buf) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_set_jobs(ctx, 1) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_cancel(ctx) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(strstr(ptxvm_last_error(ctx), "not a live context") != NULL);
  ptxvm_context *c2 = NULL;
  CHECK(ptxvm_context_create(&c2) == PTXVM_SUCCESS && c2 != ctx);
  CHECK(ptxvm_set_jobs(ctx, 1) == PTXVM_ERROR_INVALID_HANDLE);
  CHECK(ptxvm_set_jobs(c2, 1) == PTXVM_SUCCESS);
  CHECK(ptxvm_context_destroy(c2) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_unload(NULL) == PTXVM_SUCCESS && ptxvm_context_destroy(NULL) == PTXVM_SUCCESS);
  CHECK(strcmp(ptxvm_status_str(PTXVM_ERROR_INVALID_HANDLE), "the handle was freed, or is not a handle") == 0);
}

/* The printf callback calling back into its own launch's context. */
typedef struct { ptxvm_context *ctx; ptxvm_status st; int calls; } Reentry;

static void reenter(const char *text, size_t len, void *user) {
  (void)text, (void)len;
  Reentry *r = user;
  ptxvm_devptr p;
  r->st = ptxvm_mem_alloc(r->ctx, 16, &p);
  r->calls++;
}

typedef struct { ptxvm_function *fn; ptxvm_devptr buf; ptxvm_status st; atomic_int done; } Job;

static void *launcher(void *arg) {
  Job *j = arg;
  void *params[] = {&j->buf};
  j->st = ptxvm_launch(j->fn, one3, one3, NULL, 0, params);
  atomic_store(&j->done, 1);
  return NULL;
}

static void sleep_ms(int ms) {
  struct timespec ts = {0, (long)ms * 1000000L};
  nanosleep(&ts, NULL);
}

/* A second caller during a call gets PTXVM_ERROR_CONTEXT_BUSY, and the
 * context works normally afterwards. */
static void test_busy(void) {
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *m = load(ctx, k_printf), *mk = load(ctx, k_ptx);
  ptxvm_function *hello = NULL, *spin = NULL;
  CHECK(m && ptxvm_module_get_function(m, "hello", &hello) == PTXVM_SUCCESS);
  CHECK(mk && ptxvm_module_get_function(mk, "spin", &spin) == PTXVM_SUCCESS);
  Reentry r = {ctx, PTXVM_SUCCESS, 0};
  CHECK(ptxvm_set_printf_callback(ctx, reenter, &r) == PTXVM_SUCCESS);
  CHECK(ptxvm_launch(hello, one3, one3, NULL, 0, NULL) == PTXVM_SUCCESS);
  CHECK(r.calls == 1 && r.st == PTXVM_ERROR_CONTEXT_BUSY);
  CHECK(ptxvm_set_printf_callback(ctx, NULL, NULL) == PTXVM_SUCCESS);
  /* another host thread while a launch spins; the cancel is allowed */
  Job j = {.fn = spin};
  CHECK(ptxvm_mem_alloc(ctx, 4, &j.buf) == PTXVM_SUCCESS);
  ptxvm_set_max_steps(ctx, UINT64_MAX);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, launcher, &j) == 0);
  ptxvm_status seen = PTXVM_SUCCESS;
  for (int i = 0; i < 1000 && seen != PTXVM_ERROR_CONTEXT_BUSY && !atomic_load(&j.done); i++) {
    seen = ptxvm_set_jobs(ctx, 1);
    sleep_ms(2);
  }
  CHECK(seen == PTXVM_ERROR_CONTEXT_BUSY);
  size_t fr, tot;
  CHECK(ptxvm_mem_get_info(ctx, &fr, &tot) == PTXVM_ERROR_CONTEXT_BUSY);
  CHECK(ptxvm_module_unload(mk) == PTXVM_ERROR_CONTEXT_BUSY);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_ERROR_CONTEXT_BUSY);
  while (!atomic_load(&j.done)) {
    ptxvm_cancel(ctx);
    sleep_ms(5);
  }
  pthread_join(th, NULL);
  CHECK(j.st == PTXVM_ERROR_CANCELLED);
  CHECK(ptxvm_set_jobs(ctx, 1) == PTXVM_SUCCESS);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);
}

/* Issue 13 item 9: a NULL-argument error replaces the previous message. */
static void test_null_messages(void) {
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *m = load(ctx, k_ptx);
  ptxvm_function *f = NULL;
  CHECK(ptxvm_module_get_function(m, "nope", &f) == PTXVM_ERROR_NOT_FOUND);
  CHECK(strstr(ptxvm_last_error(ctx), "nope") != NULL);
  CHECK(ptxvm_module_get_function(m, NULL, &f) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(strstr(ptxvm_last_error(ctx), "ptxvm_module_get_function: NULL argument") != NULL);
  CHECK(ptxvm_module_get_function(m, "nope", &f) == PTXVM_ERROR_NOT_FOUND);
  CHECK(ptxvm_module_get_function(m, "one", &f) == PTXVM_SUCCESS);
  CHECK(ptxvm_function_get_info(f, NULL) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(strstr(ptxvm_last_error(ctx), "ptxvm_function_get_info: NULL argument") != NULL);
  CHECK(ptxvm_function_get_param(f, 0, 0, NULL) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(strstr(ptxvm_last_error(ctx), "ptxvm_function_get_param: NULL argument") != NULL);
  CHECK(ptxvm_launch_stats(ctx, NULL) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(strstr(ptxvm_last_error(ctx), "ptxvm_launch_stats: NULL argument") != NULL);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);
}

/* The printf callback's text, appended. */
typedef struct { char text[4096]; size_t n; } Collect;

static void collect(const char *text, size_t len, void *user) {
  Collect *c = user;
  if (c->n + len < sizeof c->text) memcpy(c->text + c->n, text, len);
  c->n += len;
}

/* Each cluster keeps its first `bytes` of printf output; the rest is
 * counted, the same at any number of host threads. */
static void test_printf_buffer(void) {
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_module *m = load(ctx, k_printf);
  ptxvm_function *hello = NULL;
  CHECK(m && ptxvm_module_get_function(m, "hello", &hello) == PTXVM_SUCCESS);
  unsigned grid[3] = {4, 1, 1}, block[3] = {32, 1, 1};
  for (unsigned jobs = 1; jobs <= 4; jobs *= 2) {
    Collect c = {{0}, 0};
    ptxvm_set_jobs(ctx, jobs);
    CHECK(ptxvm_set_printf_callback(ctx, collect, &c) == PTXVM_SUCCESS);
    CHECK(ptxvm_set_printf_buffer(ctx, 40) == PTXVM_SUCCESS);   /* 3 calls of "hi\n" and 9 */
    CHECK(ptxvm_launch(hello, grid, block, NULL, 0, NULL) == PTXVM_SUCCESS);
    ptxvm_stats s;
    CHECK(ptxvm_launch_stats(ctx, &s) == PTXVM_SUCCESS);
    CHECK(c.n == 4 * 9 && !strncmp(c.text, "hi\nhi\nhi\n", 9));
    CHECK(s.printf_lost_calls == 4 * 29 && s.printf_lost_bytes == 4 * 29 * 3);
    CHECK(s.printf_lost_clusters == 4 && s.printf_lost_first[0] == 0 && s.printf_lost_first[1] == 0);
    /* the default keeps it all */
    c.n = 0;
    CHECK(ptxvm_set_printf_buffer(ctx, 0) == PTXVM_SUCCESS);
    CHECK(ptxvm_launch(hello, grid, block, NULL, 0, NULL) == PTXVM_SUCCESS);
    CHECK(ptxvm_launch_stats(ctx, &s) == PTXVM_SUCCESS);
    CHECK(c.n == 4 * 32 * 3 && s.printf_lost_calls == 0 && s.printf_lost_clusters == 0);
  }
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);
}

/* The process's resident memory, in bytes. */
static uint64_t rss(void) {
  unsigned long pages = 0, res = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f && fscanf(f, "%lu %lu", &pages, &res) != 2) res = 0;
  if (f) fclose(f);
  return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Allocates `each` bytes at a time until it fails; returns how many
 * succeeded and leaves the last status in *st. Stops (a failed check) if
 * resident memory grows by more than 256 MiB: allocations must not touch
 * the host's memory. */
static int alloc_until_full(ptxvm_context *ctx, size_t each, ptxvm_devptr *got, int max, ptxvm_status *st) {
  uint64_t r0 = rss();
  int n = 0;
  while (n < max && (*st = ptxvm_mem_alloc(ctx, each, &got[n])) == PTXVM_SUCCESS) {
    n++;
    if (rss() > r0 + ((uint64_t)256 << 20)) {
      CHECK(0 && "allocations commit host memory");
      break;
    }
  }
  return n;
}

static void test_device_memory(void) {
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_set_device_memory(ctx, (size_t)64 << 20) == PTXVM_SUCCESS);
  size_t fr = 0, tot = 0;
  CHECK(ptxvm_mem_get_info(ctx, &fr, &tot) == PTXVM_SUCCESS);
  CHECK(tot == (size_t)64 << 20 && fr == tot);
  /* 1 MiB at a time: each also takes its 256-byte guard, so 63 fit */
  ptxvm_devptr got[100];
  ptxvm_status st = PTXVM_SUCCESS;
  int n = alloc_until_full(ctx, (size_t)1 << 20, got, 100, &st);
  CHECK(n == 63 && st == PTXVM_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK(strstr(ptxvm_last_error(ctx), "of the context's 67108864 bytes are in use") != NULL);
  CHECK(ptxvm_mem_get_info(ctx, &fr, &tot) == PTXVM_SUCCESS && fr < ((size_t)1 << 20));
  /* freed memory is reusable, and reads as zero even where it was written */
  uint32_t word = 0xdeadbeef, back = 1;
  for (int i = 0; i < n; i++) CHECK(ptxvm_memset_d32(ctx, got[i], word, (1 << 20) / 4) == PTXVM_SUCCESS);
  uint64_t before = rss();
  for (int i = 0; i < n; i++) CHECK(ptxvm_mem_free(ctx, got[i]) == PTXVM_SUCCESS);
  CHECK(rss() + ((uint64_t)32 << 20) < before);   /* the written pages went back to the host */
  ptxvm_devptr big = 0;
  CHECK(ptxvm_mem_alloc(ctx, (size_t)60 << 20, &big) == PTXVM_SUCCESS);
  CHECK(ptxvm_memcpy_dtoh(ctx, &back, big + ((size_t)5 << 20) + 12, 4) == PTXVM_SUCCESS && back == 0);
  CHECK(ptxvm_memcpy_dtoh(ctx, &back, big, 4) == PTXVM_SUCCESS && back == 0);
  /* a size larger than the reservation is refused once memory exists */
  CHECK(ptxvm_set_device_memory(ctx, (size_t)1 << 40) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(strstr(ptxvm_last_error(ctx), "set it before") != NULL);
  CHECK(ptxvm_set_device_memory(ctx, (size_t)32 << 20) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_alloc(ctx, 1, &got[0]) == PTXVM_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);

  /* PTXVM_DEVICE_MEMORY gives the default size */
  setenv("PTXVM_DEVICE_MEMORY", "8M", 1);
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_get_info(ctx, &fr, &tot) == PTXVM_SUCCESS && tot == (size_t)8 << 20);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);
  setenv("PTXVM_DEVICE_MEMORY", "lots", 1);
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_alloc(ctx, 4, &big) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(strstr(ptxvm_last_error(ctx), "PTXVM_DEVICE_MEMORY='lots' is not a size") != NULL);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);
  unsetenv("PTXVM_DEVICE_MEMORY");

  /* the default: no more than the host has; 1 GiB buffers until it fails
   * (they used to be cleared, i.e. committed, one by one until the OOM
   * killer ended the process) cost nothing resident */
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_get_info(ctx, &fr, &tot) == PTXVM_SUCCESS);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  CHECK(tot > 0 && tot <= (size_t)64 << 30 && (uint64_t)tot <= (uint64_t)pages * (uint64_t)page);
  n = alloc_until_full(ctx, (size_t)1 << 30, got, 100, &st);
  CHECK(st == PTXVM_ERROR_OUT_OF_DEVICE_MEMORY && (uint64_t)n << 30 <= tot);
  CHECK(ptxvm_context_destroy(ctx) == PTXVM_SUCCESS);
}

int main(void) {
  test_stale_handles();
  test_busy();
  test_null_messages();
  test_printf_buffer();
  test_device_memory();
  return unit_report();
}
