/* fuzz_launch.c: libFuzzer harness for the whole path (make fuzz): parse,
 * validate, lower, launch, through the public API only.
 *
 * Each input is loaded as a PTX module. Every kernel it defines (the first
 * MAX_KERNELS) is launched twice, on a configuration derived from a hash of
 * the input (so a saved input replays exactly): once unchecked on one or two
 * host threads, once under the checker (ptxvm_set_check), each with a small
 * watchdog (ptxvm_set_max_steps) so that a spin loop costs milliseconds.
 * Parameters come from ptxvm_function_get_param: a 64-bit scalar gets the
 * address of a small device buffer, other scalars small values, an array
 * parameter (a struct by value) a mix of both. The grid is 1-4 CTAs of up to
 * 128 threads, clusters of 1 or 2, honouring .reqntid, .maxntid and
 * .reqnctapercluster when present (else the launch is refused early and
 * nothing runs). The device has 256 MiB, printf buffers are sometimes tiny.
 * Everything is freed, so LeakSanitizer sees each allocation of the
 * library.
 *
 * Findings: a sanitizer report, a crash, a timeout, and also a broken API
 * contract: a status ptxvm_launch does not document, a failure without a
 * message, a lowering refusal (PTXVM_ERROR_NOT_SUPPORTED) that names no
 * FILE:LINE:COL, printf text that is not NUL-terminated.
 *
 * Seeds: every .ptx file of the repository (tests/fuzz/run.sh); replay one
 * input with `build-fuzz/fuzz_launch FILE`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/* A kernel may ask for more host memory than there is (local memory is
 * per thread, up to 2 GiB): the library must then report
 * PTXVM_ERROR_OUT_OF_MEMORY. So an allocation ASan cannot serve returns
 * NULL, as malloc would, instead of ending the run, and so does one of
 * more than 1 GiB (ASan would clear its shadow: seconds per launch). */
const char *__asan_default_options(void) {
  return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}

enum {
  MAX_KERNELS = 8, MAX_BUFS = 64, BUF_BYTES = 8192,
  FILLED_PARAM_BYTES = 4096,        /* bytes of an array parameter given values */
  MAX_PARAM_BYTES = 1 << 24,        /* larger parameter lists are not launched */
};
#define DEVICE_BYTES ((size_t)256 << 20)

/* splitmix64 over a hash of the input: the launch configuration. */
typedef struct { uint64_t s; } Rng;

static uint64_t next(Rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static unsigned pick(Rng *r, unsigned n) { return (unsigned)(next(r) % n); }

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

typedef struct {
  ptxvm_context *ctx;
  Rng rng;
  ptxvm_devptr bufs[MAX_BUFS];
  int nbufs;
} Fuzz;

static void on_printf(const char *text, size_t len, void *user) {
  (void)user;
  if (text[len] != '\0') abort();   /* documented: NUL-terminated */
}

/* A fresh device buffer of BUF_BYTES, zeroed or patterned; 0 when the
 * harness has made MAX_BUFS (the kernel then sees a null pointer). */
static ptxvm_devptr new_buffer(Fuzz *z) {
  if (z->nbufs == MAX_BUFS) return 0;
  ptxvm_devptr p;
  if (ptxvm_mem_alloc(z->ctx, BUF_BYTES, &p) != PTXVM_SUCCESS) abort();
  z->bufs[z->nbufs++] = p;
  unsigned how = pick(&z->rng, 4);
  if (how == 1 && ptxvm_memset_d32(z->ctx, p, 1, BUF_BYTES / 4) != PTXVM_SUCCESS) abort();
  if (how == 2) {
    uint32_t v[BUF_BYTES / 4];
    for (unsigned i = 0; i < BUF_BYTES / 4; i++) v[i] = i;
    if (ptxvm_memcpy_htod(z->ctx, p, v, sizeof v) != PTXVM_SUCCESS) abort();
  }
  return p;
}

/* A small value for a scalar: counts and sizes kernels compare %tid with. */
static uint64_t small_value(Fuzz *z, const char *type) {
  static const int64_t v[] = {0, 1, 2, 3, 31, 32, 64, 100, 256, 1024, -1};
  int64_t x = v[pick(&z->rng, sizeof v / sizeof v[0])];
  if (!strcmp(type, "f32")) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
  }
  if (!strcmp(type, "f64")) {
    double d = (double)x;
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
  }
  return (uint64_t)x;
}

/* Fills `size` bytes at `dst` for one parameter: a device address for a
 * 64-bit scalar (rarely null or misaligned), a small value for other
 * scalars, 8-byte fields of either kind for an array. */
static void param_value(Fuzz *z, const ptxvm_param_info *pi, uint8_t *dst) {
  int wide = pi->size == 8 && pi->array_len == 0 && strcmp(pi->type, "f64");
  if (wide) {
    unsigned k = pick(&z->rng, 32);
    uint64_t a = k == 0 ? 0 : new_buffer(z) + (k == 1 ? 2 : 0);
    memcpy(dst, &a, 8);
    return;
  }
  if (pi->array_len == 0) {
    uint64_t v = small_value(z, pi->type);
    memcpy(dst, &v, pi->size < 8 ? pi->size : 8);
    return;
  }
  for (unsigned off = 0; off < pi->size && off < FILLED_PARAM_BYTES; off += 8) {
    uint64_t v = pick(&z->rng, 2) ? new_buffer(z) : small_value(z, "u64");
    unsigned n = pi->size - off < 8 ? pi->size - off : 8;
    memcpy(dst + off, &v, n);
  }
}

/* d[i] = the directive's dimension, 1 where it gives none. */
static void dims_of(const unsigned in[3], unsigned d[3]) {
  for (int i = 0; i < 3; i++) d[i] = in[i] ? in[i] : 1;
}

/* A small launch shape that respects the kernel's directives. */
static void shape(Fuzz *z, const ptxvm_function_info *fi, unsigned grid[3], unsigned block[3],
                  unsigned cluster[3]) {
  static const unsigned bx[] = {1, 2, 32, 33, 64, 96, 128};
  block[0] = bx[pick(&z->rng, sizeof bx / sizeof bx[0])];
  block[1] = pick(&z->rng, 4) ? 1 : 2;
  block[2] = 1;
  if (fi->reqntid[0]) dims_of(fi->reqntid, block);
  if (fi->maxntid[0] && !fi->reqntid[0]) {
    unsigned m[3];
    dims_of(fi->maxntid, m);
    for (int i = 0; i < 3; i++)
      if (block[i] > m[i]) block[i] = m[i];
  }
  cluster[0] = pick(&z->rng, 4) ? 1 : 2;
  cluster[1] = cluster[2] = 1;
  if (fi->reqnctapercluster[0]) dims_of(fi->reqnctapercluster, cluster);
  grid[0] = cluster[0] * (1 + pick(&z->rng, 2));
  grid[1] = cluster[1] * (pick(&z->rng, 4) ? 1 : 2);
  grid[2] = cluster[2];
}

static int documented(ptxvm_status st) {
  switch (st) {
  case PTXVM_SUCCESS: case PTXVM_ERROR_INVALID_CONFIG: case PTXVM_ERROR_NOT_SUPPORTED:
  case PTXVM_ERROR_LAUNCH_FAILED: case PTXVM_ERROR_DEADLOCK: case PTXVM_ERROR_HAZARD:
  case PTXVM_ERROR_OUT_OF_MEMORY: case PTXVM_ERROR_OUT_OF_DEVICE_MEMORY:
    return 1;
  default:
    return 0;
  }
}

/* One launch of fn with fresh parameters; checks the status contract. */
static void launch_once(Fuzz *z, ptxvm_function *fn, const ptxvm_function_info *fi, int check) {
  uint8_t *vals = calloc(1, fi->param_bytes + 8 * (size_t)fi->nparams + 1);
  void **params = calloc((size_t)fi->nparams + 1, sizeof *params);
  if (!vals || !params) abort();
  for (int k = 0; k < fi->nparams; k++) {
    ptxvm_param_info pi;
    if (ptxvm_function_get_param(fn, 0, k, &pi) != PTXVM_SUCCESS) abort();
    params[k] = vals + pi.offset;
    param_value(z, &pi, vals + pi.offset);
  }
  unsigned grid[3], block[3], cluster[3];
  shape(z, fi, grid, block, cluster);
  unsigned dyn = pick(&z->rng, 4) ? 0 : 1024;
  ptxvm_set_check(z->ctx, check);
  ptxvm_set_jobs(z->ctx, check || pick(&z->rng, 2) ? 1 : 2);
  ptxvm_set_schedule(z->ctx, pick(&z->rng, 2) ? 0 : next(&z->rng));
  ptxvm_status st = ptxvm_launch(fn, grid, block, cluster, dyn, params);
  const char *msg = ptxvm_last_error(z->ctx);
  if (!documented(st)) abort();
  if (st != PTXVM_SUCCESS && !*msg) abort();   /* every failure says why */
  if (st == PTXVM_ERROR_NOT_SUPPORTED && strncmp(msg, "f.ptx:", 6)) abort();   /* and where */
  ptxvm_stats stats;
  if (ptxvm_launch_stats(z->ctx, &stats) != PTXVM_SUCCESS) abort();
  free(params);
  free(vals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Fuzz z = {.rng = {fnv1a(data, size)}};
  if (ptxvm_context_create(&z.ctx) != PTXVM_SUCCESS) return 0;
  /* a bounded device, so that a huge .global is refused, not committed */
  if (ptxvm_set_device_memory(z.ctx, DEVICE_BYTES) != PTXVM_SUCCESS) abort();
  ptxvm_module *mod = NULL;
  if (ptxvm_module_load_data(z.ctx, (const char *)data, size, "f.ptx", &mod) != PTXVM_SUCCESS) {
    if (ptxvm_context_destroy(z.ctx) != PTXVM_SUCCESS) abort();
    return 0;
  }
  ptxvm_set_printf_callback(z.ctx, on_printf, NULL);
  ptxvm_set_printf_buffer(z.ctx, pick(&z.rng, 4) ? 0 : 64);   /* sometimes one that fills */
  ptxvm_set_max_steps(z.ctx, 200 + pick(&z.rng, 2000));
  static const uint64_t delays[] = {0, 100, UINT64_MAX};
  ptxvm_set_async_delay(z.ctx, delays[pick(&z.rng, 3)]);
  int n = ptxvm_module_function_count(mod), kernels = 0;
  for (int i = 0; i < n && kernels < MAX_KERNELS; i++) {
    ptxvm_function *fn = ptxvm_module_function_at(mod, i);
    ptxvm_function_info fi;
    if (ptxvm_function_get_info(fn, &fi) != PTXVM_SUCCESS) abort();
    if (!fi.is_entry || !fi.has_body || fi.param_bytes > MAX_PARAM_BYTES) continue;
    kernels++;
    launch_once(&z, fn, &fi, 0);
    launch_once(&z, fn, &fi, 1);
  }
  for (int i = 0; i < z.nbufs; i++)
    if (ptxvm_mem_free(z.ctx, z.bufs[i]) != PTXVM_SUCCESS) abort();
  if (ptxvm_module_unload(mod) != PTXVM_SUCCESS) abort();
  if (ptxvm_context_destroy(z.ctx) != PTXVM_SUCCESS) abort();
  return 0;
}
