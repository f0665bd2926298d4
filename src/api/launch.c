/* launch.c: ptxvm_launch, from the host API to the launcher (ptxvm.h
 * "launching kernels", src/sched/launch.c).
 *
 * The module is prepared at its first need (api_program: the context's
 * device receives its .global and .const variables) and each kernel is
 * lowered at its first launch (api_launchable, with what it can call); a
 * kernel that holds or can call an instruction ptxvm cannot execute yet
 * is refused, the module's others still run.
 * The parameter buffer is laid out as ptxvm_function_get_param reports: each
 * parameter at its offset, params[i] copied for its size. The launch runs
 * synchronously; its first fault or deadlock becomes the status and the
 * context's message, followed by the checker's findings (ptxvm_set_check);
 * a launch that completes with findings is PTXVM_ERROR_HAZARD.
 * ptxvm_launch_ex adds options: the cluster shape rules of .reqnctapercluster
 * and .explicitcluster, non-portable clusters, %envreg values, and
 * cooperative launches (every CTA resident, bounded by the occupancy model,
 * with the grid workspace cooperative_groups reads from %envreg1:%envreg2).
 * The occupancy model and a kernel's resources (ptxvm_function_occupancy,
 * ptxvm_function_get_resources) are answered here from src/sched/occupancy.c
 * and the module. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../exec/interp.h"
#include "../exec/trace.h"
#include "../lower/lower.h"
#include "api.h"

/* The kernel's parameter buffer (malloc'd; *size bytes), or NULL with the
 * error recorded. A kernel without parameters gets a 1-byte buffer. */
static uint8_t *build_params(Fn *fn, void **params, uint32_t *size, ptxvm_status *st) {
  Ctx *ctx = fn->mod->ctx;
  ptxvm_function_info fi;
  api_function_info(fn, &fi);
  if (fi.nparams && !params) {
    *st = api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "'%s' takes %d parameters but params is NULL", fi.name,
             fi.nparams);
    return NULL;
  }
  uint8_t *buf = calloc(1, fi.param_bytes ? fi.param_bytes : 1);
  if (!buf) {
    *st = api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  for (int i = 0; i < fi.nparams; i++) {
    ptxvm_param_info pi;
    api_function_param(fn, 0, i, &pi);
    if (!params[i]) {
      free(buf);
      *st = api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "parameter %d (%s) of '%s': NULL value pointer", i,
               pi.name, fi.name);
      return NULL;
    }
    memcpy(buf + pi.offset, params[i], pi.size);
  }
  *size = (uint32_t)fi.param_bytes;   /* at most 32764 (validate_params) */
  return buf;
}

_Static_assert(FAM_COUNT == PTXVM_STATS_FAMILIES, "ptxvm_stats: one entry per opcode family");

/* ctx->stats from the counters of a launch that took wall_s seconds. */
/* The process's peak resident memory in KiB: Linux's VmHWM, which belongs
 * to this program image; getrusage's ru_maxrss (the fallback) also counts
 * what the process that exec'd us had resident (Linux keeps the old
 * high-water mark across exec), which inflated the benchmark figures. */
static uint64_t peak_rss_kb(void) {
  char line[128];
  uint64_t kib = 0;
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) kib = strtoull(line + 6, NULL, 10);
  if (f) fclose(f);
  struct rusage ru;
  if (!kib && getrusage(RUSAGE_SELF, &ru) == 0) kib = (uint64_t)ru.ru_maxrss;
  return kib;
}

static void record_stats(Ctx *ctx, const Launch *l, double wall_s) {
  const LaunchStats *ls = &l->stats;
  ptxvm_stats *o = &ctx->stats;
  memset(o, 0, sizeof *o);
  o->printf_lost_calls = l->printf_lost_calls;
  o->printf_lost_bytes = l->printf_lost_bytes;
  o->printf_lost_clusters = l->printf_lost_clusters;
  memcpy(o->printf_lost_first, l->printf_lost_first, sizeof o->printf_lost_first);
  for (int f = 0; f < FAM_COUNT; f++) {
    o->family_warp_insns[f] = ls->warp_insns[f];
    o->family_thread_insns[f] = ls->thread_insns[f];
    o->warp_insns += ls->warp_insns[f];
    o->thread_insns += ls->thread_insns[f];
  }
  o->bar_cta = ls->events[EV_BAR_CTA];
  o->warp_sync = ls->events[EV_WARP_SYNC];
  o->bar_cluster = ls->events[EV_BAR_CLUSTER];
  o->mbar_phases = ls->events[EV_MBAR_PHASE];
  o->splits = ls->splits;
  o->merges = ls->merges;
  o->wall_s = wall_s;
  o->thread_insns_per_s = wall_s > 0 ? (double)o->thread_insns / wall_s : 0;
  o->peak_rss_kb = peak_rss_kb();
}

/* A fault or deadlock is the status, its message first and the checker's
 * findings (if any) after it; a completed launch with findings is
 * PTXVM_ERROR_HAZARD with the findings as the message. */
static ptxvm_status run(Fn *fn, Launch *l) {
  Ctx *ctx = fn->mod->ctx;
  bool ok = launch_run(l);
  char *found = launch_findings_take(l);
  if (!ok && !l->error && launch_cancelled(l)) {
    free(found);
    return api_fail(ctx, PTXVM_ERROR_CANCELLED, "kernel '%s': the launch was cancelled", fn->f->name);
  }
  if (ok) {
    free(l->error);
    free(l->assertion);
    return found ? api_fail_owned(ctx, PTXVM_ERROR_HAZARD, found) : api_ok(ctx);
  }
  ptxvm_status st = l->deadlock ? PTXVM_ERROR_DEADLOCK : PTXVM_ERROR_LAUNCH_FAILED;
  static const ptxvm_fault kinds[] = {[FAULT_OTHER] = PTXVM_FAULT_OTHER, [FAULT_ADDRESS] = PTXVM_FAULT_ADDRESS,
                                      [FAULT_MISALIGNED] = PTXVM_FAULT_MISALIGNED,
                                      [FAULT_TRAP] = PTXVM_FAULT_TRAP, [FAULT_ASSERT] = PTXVM_FAULT_ASSERT};
  if (!l->deadlock) ctx->fault = kinds[l->fault_kind];
  ctx->assertion = l->assertion;   /* NULL but for a failed assertion */
  if (!l->error) {
    free(found);
    return api_fail(ctx, st, "kernel '%s' failed", fn->f->name);
  }
  if (!found) return api_fail_owned(ctx, st, l->error);
  char *both = NULL;
  if (asprintf(&both, "%s\n%s", l->error, found) < 0) both = NULL;
  free(l->error);
  free(found);
  return api_fail_owned(ctx, st, both);
}

/* The launch's cluster shape from the options: given, else the kernel's
 * .reqnctapercluster, else 1,1,1; false when the kernel is
 * .explicitcluster and neither gives one. *explicit: a cluster launch (a
 * shape given, 1,1,1 too, or either directive). */
static bool cluster_shape(const Function *k, const ptxvm_launch_options *o, uint32_t out[3],
                          bool *explicit) {
  bool given = o->cluster[0] || o->cluster[1] || o->cluster[2];
  for (int i = 0; i < 3; i++)
    out[i] = given ? o->cluster[i] : k->reqnctapercluster[0] ? (k->reqnctapercluster[i] ? k->reqnctapercluster[i] : 1) : 1;
  *explicit = given || k->reqnctapercluster[0] || k->explicitcluster;
  return given || k->reqnctapercluster[0] || !k->explicitcluster;
}

/* A cooperative launch's grid workspace (ptxvm.h ptxvm_launch_ex): 8 zeroed
 * bytes whose address goes to %envreg1 (high half) and %envreg2 (low
 * half); the first word holds its size. 0 with the error recorded. */
static uint64_t grid_workspace(Ctx *ctx, Launch *l) {
  enum { WORKSPACE_BYTES = 8 };
  uint64_t a = dev_alloc(l->dev, WORKSPACE_BYTES, 256, 0);
  if (a) dev_own(l->dev, a);
  uint32_t *w = a ? dev_host_w(l->dev, a, WORKSPACE_BYTES) : NULL;
  if (!w) {
    api_fail(ctx, PTXVM_ERROR_OUT_OF_DEVICE_MEMORY, "no device memory for the grid workspace of a "
             "cooperative launch");
    return 0;
  }
  w[0] = WORKSPACE_BYTES;
  l->envreg[1] = (uint32_t)(a >> 32);
  l->envreg[2] = (uint32_t)a;
  return a;
}

/* Writes the launch's timeline to the context's trace path, "%n" in it
 * replaced by the number of the traced launch (1, 2, ...). */
static ptxvm_status write_trace(Ctx *ctx, Launch *l, ptxvm_status st) {
  const char *p = ctx->trace_path, *n = strstr(p, "%n");
  char path[4096];
  ctx->trace_launches++;
  if (n) snprintf(path, sizeof path, "%.*s%llu%s", (int)(n - p), p, (unsigned long long)ctx->trace_launches, n + 2);
  else snprintf(path, sizeof path, "%s", p);
  uint64_t dropped = 0;
  bool ok = trace_write(l->trace, path, &dropped);
  l->trace = NULL;
  ctx->trace_dropped = dropped;
  if (!ok && st == PTXVM_SUCCESS) return api_fail(ctx, PTXVM_ERROR_FILE, "cannot write the trace file %s: %s", path, strerror(errno));
  return st;
}

static ptxvm_status launch(Ctx *ctx, Fn *fn, const unsigned grid[3], const unsigned block[3],
                           const ptxvm_launch_options *o, bool legacy, void **params) {
  ctx->fault = PTXVM_FAULT_NONE;
  free(ctx->assertion);
  ctx->assertion = NULL;
  if (!grid || !block) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_launch: NULL grid or block");
  if (!fn->f->is_entry || !fn->f->has_body)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "'%s' is not a kernel (.entry with a body)",
                    fn->f->name);
  ptxvm_status st = api_launchable(ctx, fn);   /* lowers the kernel at its first launch */
  if (st != PTXVM_SUCCESS) return st;
  Device *dev;
  st = api_device(ctx, &dev);
  if (st != PTXVM_SUCCESS) return st;
  Launch l = {.prog = fn->mod->prog, .kernel = fn->f, .dev = dev, .dyn_shared = o->dyn_shared_bytes,
              .printf_fn = ctx->printf_fn, .printf_user = ctx->printf_user,
              .printf_limit = ctx->printf_limit,
              .note_fn = ctx->note_fn, .note_user = ctx->note_user,
              .schedule = ctx->schedule, .max_steps = ctx->max_steps,
              .async_delay = ctx->async_delay, .has_async_delay = ctx->has_async_delay, .check = ctx->check,
              .cooperative = o->cooperative != 0};
  memcpy(l.envreg, o->envreg, sizeof l.envreg);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  l.jobs = ctx->jobs ? ctx->jobs : ncpu > 0 ? (unsigned)ncpu : 1;
  atomic_store(&ctx->cancel, 0);
  l.cancel = &ctx->cancel;
  for (int i = 0; i < 3; i++) {
    l.grid[i] = grid[i];
    l.block[i] = block[i];
  }
  if (legacy) {   /* ptxvm_launch: the cluster as given (1,1,1 for none) */
    memcpy(l.cluster, o->cluster, sizeof l.cluster);
    l.explicit_cluster = fn->f->explicitcluster || fn->f->reqnctapercluster[0] ||
                         (uint64_t)l.cluster[0] * l.cluster[1] * l.cluster[2] > 1;
  } else if (!cluster_shape(fn->f, o, l.cluster, &l.explicit_cluster)) {
    return api_fail(ctx, PTXVM_ERROR_INVALID_CONFIG, "launch of '%s': the kernel is .explicitcluster "
                    "and has no .reqnctapercluster: the launch must give a cluster shape", fn->f->name);
  }
  /* the limits count CUDA's static size (the CTA gets the aligned base) */
  uint64_t shared = (uint64_t)program_static_shared_size(l.prog, fn->f) + o->dyn_shared_bytes;
  char msg[320];
  if (!launch_check_shape(fn->f, l.grid, l.block, l.cluster, shared, o->cluster_nonportable != 0, msg,
                          sizeof msg) ||
      (l.cooperative && !launch_check_cooperative(fn->f, l.grid, l.block, l.cluster, shared, msg, sizeof msg)))
    return api_fail(ctx, PTXVM_ERROR_INVALID_CONFIG, "launch of '%s': %s", fn->f->name, msg);
  if (program_uses_heap(l.prog, fn->f)) {   /* made once, kept until the context goes */
    int h = dev_heap_open(dev, ctx->heap_size);
    if (h == HEAP_NOMEM) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of host memory for the device heap");
    if (h != HEAP_OK)
      return api_fail(ctx, PTXVM_ERROR_OUT_OF_DEVICE_MEMORY, "launch of '%s': no room in device memory for "
                      "the malloc heap of %llu bytes (ptxvm_set_malloc_heap)", fn->f->name,
                      (unsigned long long)ctx->heap_size);
  }
  uint64_t ws = l.cooperative ? grid_workspace(ctx, &l) : 0;
  if (l.cooperative && !ws) return PTXVM_ERROR_OUT_OF_DEVICE_MEMORY;
  uint8_t *buf = build_params(fn, params, &l.param_size, &st);
  if (buf) {
    l.params = buf;
    if (ctx->trace_path && !(l.trace = trace_new(ctx->trace_max))) {
      free(buf);
      if (ws) dev_free(dev, ws);
      return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of host memory for the trace");
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = run(fn, &l);
    if (l.trace) st = write_trace(ctx, &l, st);   /* a failed launch's too: it shows the deadlock */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    record_stats(ctx, &l, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    free(buf);
  }
  if (ws) dev_free(dev, ws);
  return st;
}

ptxvm_status ptxvm_launch(ptxvm_function *h, const unsigned grid[3], const unsigned block[3],
                          const unsigned cluster[3], unsigned dyn_shared_bytes, void **params) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  ptxvm_launch_options o = {.cluster = {1, 1, 1}, .dyn_shared_bytes = dyn_shared_bytes};
  if (cluster) memcpy(o.cluster, cluster, sizeof o.cluster);
  return api_leave(ctx, launch(ctx, fn, grid, block, &o, true, params));
}

ptxvm_status ptxvm_launch_ex(ptxvm_function *h, const unsigned grid[3], const unsigned block[3],
                             const ptxvm_launch_options *options, void **params) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  static const ptxvm_launch_options none;
  return api_leave(ctx, launch(ctx, fn, grid, block, options ? options : &none, false, params));
}

/* ---- what a kernel needs of the device (occupancy.c) ---- */

/* Bytes of the variables of space sp among vars, each at its alignment
 * after the last; declarations without storage (.extern) take none. */
static uint64_t space_bytes(Symbol *const *vars, int n, Space sp, uint64_t off) {
  for (int i = 0; i < n; i++) {
    const Symbol *s = vars[i];
    if (s->space != sp || s->is_extern) continue;
    uint64_t a = s->align ? s->align : 1;
    off = (off + a - 1) / a * a + s->size;
  }
  return off;
}

/* Resolves fn for a question about its resources: a kernel with a body, its
 * module prepared. */
static ptxvm_status prepared_kernel(Ctx *ctx, Fn *fn, const char *what) {
  if (!fn->f->is_entry || !fn->f->has_body)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "%s: '%s' is not a kernel (.entry with a body)", what,
                    fn->f->name);
  return api_program(fn->mod);
}

static ptxvm_status get_resources(Ctx *ctx, Fn *fn, ptxvm_function_resources *out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_function_get_resources: NULL argument");
  ptxvm_status st = prepared_kernel(ctx, fn, "ptxvm_function_get_resources");
  if (st != PTXVM_SUCCESS) return st;
  const Module *m = fn->mod->m;
  const Function *k = fn->f;
  uint64_t cst = space_bytes(m->globals, m->nglobals, SP_CONST, 0);
  for (int i = 0; i < m->nfuncs; i++) cst = space_bytes(m->funcs[i]->vars, m->funcs[i]->nvars, SP_CONST, cst);
  *out = (ptxvm_function_resources){
    .shared_bytes = program_static_shared_size(fn->mod->prog, k), .const_bytes = cst,
    .local_bytes = space_bytes(k->vars, k->nvars, SP_LOCAL, space_bytes(m->globals, m->nglobals, SP_LOCAL, 0)),
    .regs_per_thread = occupancy_regs(k), .max_threads = occupancy_max_threads(k),
    .ptx_version = (unsigned)(m->ver_major * 10 + m->ver_minor), .target = (unsigned)m->sm};
  return api_ok(ctx);
}

ptxvm_status ptxvm_function_get_resources(ptxvm_function *h, ptxvm_function_resources *out) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, get_resources(ctx, fn, out));
}

static ptxvm_status occupancy(Ctx *ctx, Fn *fn, unsigned threads, size_t dyn, unsigned cluster_ctas,
                              ptxvm_occupancy *out) {
  if (!out || !threads)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_function_occupancy: %s",
                    out ? "a CTA of 0 threads" : "NULL argument");
  ptxvm_status st = prepared_kernel(ctx, fn, "ptxvm_function_occupancy");
  if (st != PTXVM_SUCCESS) return st;
  uint64_t shared = (uint64_t)program_static_shared_size(fn->mod->prog, fn->f) + dyn;
  if (dyn > PTXVM_DEVICE_SHARED_PER_CTA) shared = UINT64_MAX;   /* no overflow */
  out->ctas_per_sm = occupancy_ctas(fn->f, threads, shared);
  out->clusters = occupancy_clusters(fn->f, threads, shared, cluster_ctas);
  return api_ok(ctx);
}

ptxvm_status ptxvm_function_occupancy(ptxvm_function *h, unsigned threads, size_t dyn_shared_bytes,
                                      unsigned cluster_ctas, ptxvm_occupancy *out) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, occupancy(ctx, fn, threads, dyn_shared_bytes, cluster_ctas, out));
}

static ptxvm_status launch_stats(Ctx *ctx, ptxvm_stats *out) {
  if (!out) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_launch_stats: NULL argument");
  *out = ctx->stats;
  return PTXVM_SUCCESS;   /* a query: the last launch's message stays */
}

/* A read of the context's last outcome, like ptxvm_last_error: no busy check. */
ptxvm_fault ptxvm_launch_fault(const ptxvm_context *h) {
  const Ctx *ctx = handle_obj(h, H_CONTEXT);
  return ctx ? ctx->fault : PTXVM_FAULT_NONE;
}

const char *ptxvm_launch_assertion(const ptxvm_context *h) {
  const Ctx *ctx = handle_obj(h, H_CONTEXT);
  return ctx ? ctx->assertion : NULL;
}

ptxvm_status ptxvm_launch_stats(ptxvm_context *h, ptxvm_stats *out) {
  ON_CONTEXT(h, launch_stats(ctx, out));
}

const char *ptxvm_stats_family_name(int i) {
  static const char *const names[] = {
#define X(f) #f,
      FAMILIES(X)
#undef X
  };
  return i >= 0 && i < PTXVM_STATS_FAMILIES ? names[i] : NULL;
}
