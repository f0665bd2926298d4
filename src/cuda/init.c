/* init.c: cuInit and the environment's options, versions, error names and
 * strings, cuGetProcAddress (over entries.c's table), cuGetExportTable.
 *
 * Options come from documented environment variables, read once by cuInit
 * (README "ptxvm exec"; `ptxvm exec` sets them from its command line):
 * PTXVM_JOBS, PTXVM_CHECK, PTXVM_SCHEDULE, PTXVM_MAX_STEPS, PTXVM_QUIET,
 * PTXVM_STATS; PTXVM_ASYNC_DELAY is read by ptxvm itself. */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"

enum { DRIVER_VERSION = 13000 };   /* the CUDA version whose ABI this driver serves */

DrvOptions drv_opt = {.check_fd = -1};
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_int initialized;
static CUresult init_result = CUDA_SUCCESS;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static ptxvm_stats stats_total;
static uint64_t stats_launches;

void drv_say(const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "ptxvm: %s\n", buf);
}

/* An unsigned number from the environment; *bad when it is not one. */
static uint64_t env_u64(const char *name, uint64_t dflt, bool *bad) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  unsigned long long x = strtoull(v, &end, 0);
  if (*end || *v == '-') {
    drv_say("%s=%s is not an unsigned number", name, v);
    *bad = true;
    return dflt;
  }
  return x;
}

double drv_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void drv_stats_add(const ptxvm_stats *s) {
  pthread_mutex_lock(&stats_lock);
  stats_total.warp_insns += s->warp_insns;
  stats_total.thread_insns += s->thread_insns;
  stats_total.bar_cta += s->bar_cta;
  stats_total.warp_sync += s->warp_sync;
  stats_total.bar_cluster += s->bar_cluster;
  stats_total.mbar_phases += s->mbar_phases;
  stats_total.wall_s += s->wall_s;
  stats_launches++;
  pthread_mutex_unlock(&stats_lock);
}

/* PTXVM_STATS: the totals of every launch of the process, at exit. */
static void print_stats(void) {
  pthread_mutex_lock(&stats_lock);
  fprintf(stderr,
          "ptxvm: stats: launches %" PRIu64 ", warp-instructions %" PRIu64
          ", thread-instructions %" PRIu64 ", barriers cta %" PRIu64 " warp-sync %" PRIu64
          " cluster %" PRIu64 ", mbarrier phases %" PRIu64 ", kernel wall time %.6f s\n",
          stats_launches, stats_total.warp_insns, stats_total.thread_insns, stats_total.bar_cta,
          stats_total.warp_sync, stats_total.bar_cluster, stats_total.mbar_phases, stats_total.wall_s);
  pthread_mutex_unlock(&stats_lock);
}

static void init_options(void) {
  bool bad = false;
  drv_opt.jobs = (unsigned)env_u64("PTXVM_JOBS", 0, &bad);
  drv_opt.check = env_u64("PTXVM_CHECK", 0, &bad) != 0;
  const char *tr = getenv("PTXVM_TRACE");
  drv_opt.trace = tr && *tr ? tr : NULL;
  drv_opt.schedule = env_u64("PTXVM_SCHEDULE", 0, &bad);
  drv_opt.max_steps = env_u64("PTXVM_MAX_STEPS", 0, &bad);
  drv_opt.quiet = env_u64("PTXVM_QUIET", 0, &bad) != 0;
  drv_opt.stats = env_u64("PTXVM_STATS", 0, &bad) != 0;
  uint64_t fd = env_u64("PTXVM_CHECK_FD", UINT64_MAX, &bad);
  drv_opt.check_fd = fd <= INT_MAX ? (int)fd : -1;
  if (bad) init_result = CUDA_ERROR_INVALID_VALUE;
  else if (drv_opt.stats) atexit(print_stats);
}

CUresult cuInit(unsigned int Flags) {
  if (Flags) return CUDA_ERROR_INVALID_VALUE;
  pthread_once(&init_once, init_options);
  if (init_result == CUDA_SUCCESS) atomic_store(&initialized, 1);
  return init_result;
}

CUresult drv_initialized(void) {
  if (drv_in_host_fn) return CUDA_ERROR_NOT_PERMITTED;   /* a host function may not call CUDA */
  return atomic_load(&initialized) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuDriverGetVersion(int *driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = DRIVER_VERSION;
  return CUDA_SUCCESS;
}

/* ---- errors ---- */

static const struct { CUresult code; const char *name; } error_names[] = {
#define R(n) {n, #n},
#include "errors.def"
#undef R
};

/* Descriptions where the name alone says too little; every other code is
 * described by its name in words (CUDA_ERROR_ILLEGAL_ADDRESS: "illegal
 * address"). */
static const struct { CUresult code; const char *text; } error_texts[] = {
  {CUDA_SUCCESS, "no error"},
  {CUDA_ERROR_NOT_INITIALIZED, "initialization error: cuInit has not been called"},
  {CUDA_ERROR_NOT_SUPPORTED, "operation not supported by ptxvm (its name was printed on stderr)"},
  {CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure (ptxvm printed the fault on stderr)"},
  {CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered (ptxvm printed where)"},
  {CUDA_ERROR_LAUNCH_TIMEOUT, "the launch did not finish: ptxvm found it deadlocked or runaway "
                              "(and printed which threads wait on what)"},
  {CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed (ptxvm printed the diagnostic)"},
  {CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device: "
                                 "ptxvm runs PTX, not SASS"},
};

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++)
    if (error_names[i].code == error) {
      *pStr = error_names[i].name;
      return CUDA_SUCCESS;
    }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* "CUDA_ERROR_ILLEGAL_ADDRESS" -> "illegal address", kept per code. */
static char worded[sizeof error_names / sizeof error_names[0]][64];
static pthread_once_t worded_once = PTHREAD_ONCE_INIT;

static void word_names(void) {
  for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++) {
    const char *n = error_names[i].name;
    n += strncmp(n, "CUDA_ERROR_", 11) ? 5 : 11;
    size_t k = 0;
    for (; *n && k + 1 < sizeof worded[i]; n++, k++) worded[i][k] = *n == '_' ? ' ' : (char)tolower(*n);
    worded[i][k] = 0;
  }
}

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < sizeof error_texts / sizeof error_texts[0]; i++)
    if (error_texts[i].code == error) {
      *pStr = error_texts[i].text;
      return CUDA_SUCCESS;
    }
  pthread_once(&worded_once, word_names);
  for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++)
    if (error_names[i].code == error) {
      *pStr = worded[i];
      return CUDA_SUCCESS;
    }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* ---- entry points ---- */

/* cuGetProcAddress (cuda.h "Driver Entry Point Access"): the newest variant
 * of `symbol` not newer than cudaVersion; the per-thread default stream
 * variant under CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (the plain one
 * where there is none). A name the driver does not have, or has only in
 * later versions, is CUDA_SUCCESS with *pfn NULL and symbolStatus saying
 * which (cuda.h: "return CUDA_SUCCESS and set the returned pfn to NULL"); an entry point that
 * ptxvm does not implement is found, and its stub answers
 * CUDA_ERROR_NOT_SUPPORTED when called. */
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus) {
  if (symbolStatus) *symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  *pfn = NULL;
  if (cudaVersion > DRIVER_VERSION) return CUDA_ERROR_INVALID_VALUE;   /* as cuda.h says */
  if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
    return CUDA_ERROR_INVALID_VALUE;
  bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  int r = drv_entry_lookup(symbol, cudaVersion, per_thread, pfn);
  if (symbolStatus)
    *symbolStatus = r == 0 ? CU_GET_PROC_ADDRESS_SUCCESS
                    : r == 2 ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                             : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_SUCCESS;
}

/* The CUDA 11.3 form, without symbolStatus (exported as cuGetProcAddress). */
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}

/* The undocumented export tables (NVIDIA's static runtime needs them) are not
 * provided: issue 14. */
CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId) {
  (void)pExportTableId;
  if (ppExportTable) *ppExportTable = NULL;
  return CUDA_ERROR_NOT_FOUND;
}

/* Each line of text on stderr, prefixed "ptxvm: ". */
void drv_say_lines(const char *text) {
  while (*text) {
    const char *nl = strchr(text, '\n');
    int n = nl ? (int)(nl - text) : (int)strlen(text);
    fprintf(stderr, "ptxvm: %.*s\n", n, text);
    text += n + (nl != NULL);
  }
}

