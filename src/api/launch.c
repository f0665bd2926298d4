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
 * a launch that completes with findings is PTXVM_ERROR_HAZARD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../exec/interp.h"
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
    return found ? api_fail_owned(ctx, PTXVM_ERROR_HAZARD, found) : api_ok(ctx);
  }
  ptxvm_status st = l->deadlock ? PTXVM_ERROR_DEADLOCK : PTXVM_ERROR_LAUNCH_FAILED;
  static const ptxvm_fault kinds[] = {[FAULT_OTHER] = PTXVM_FAULT_OTHER, [FAULT_ADDRESS] = PTXVM_FAULT_ADDRESS,
                                      [FAULT_MISALIGNED] = PTXVM_FAULT_MISALIGNED,
                                      [FAULT_TRAP] = PTXVM_FAULT_TRAP, [FAULT_ASSERT] = PTXVM_FAULT_ASSERT};
  if (!l->deadlock) ctx->fault = kinds[l->fault_kind];
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

static ptxvm_status launch(Ctx *ctx, Fn *fn, const unsigned grid[3], const unsigned block[3],
                           const unsigned cluster[3], unsigned dyn_shared_bytes, void **params) {
  ctx->fault = PTXVM_FAULT_NONE;
  if (!grid || !block) return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_launch: NULL grid or block");
  if (!fn->f->is_entry || !fn->f->has_body)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "'%s' is not a kernel (.entry with a body)",
                    fn->f->name);
  ptxvm_status st = api_launchable(ctx, fn);   /* lowers the kernel at its first launch */
  if (st != PTXVM_SUCCESS) return st;
  Device *dev;
  st = api_device(ctx, &dev);
  if (st != PTXVM_SUCCESS) return st;
  Launch l = {.prog = fn->mod->prog, .kernel = fn->f, .dev = dev, .dyn_shared = dyn_shared_bytes,
              .printf_fn = ctx->printf_fn, .printf_user = ctx->printf_user,
              .printf_limit = ctx->printf_limit,
              .note_fn = ctx->note_fn, .note_user = ctx->note_user,
              .schedule = ctx->schedule, .max_steps = ctx->max_steps,
              .async_delay = ctx->async_delay, .has_async_delay = ctx->has_async_delay, .check = ctx->check};
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  l.jobs = ctx->jobs ? ctx->jobs : ncpu > 0 ? (unsigned)ncpu : 1;
  atomic_store(&ctx->cancel, 0);
  l.cancel = &ctx->cancel;
  for (int i = 0; i < 3; i++) {
    l.grid[i] = grid[i];
    l.block[i] = block[i];
    l.cluster[i] = cluster ? cluster[i] : 1;
  }
  uint64_t shared = (uint64_t)program_static_shared(l.prog, fn->f) + dyn_shared_bytes;
  char msg[256];
  if (!launch_check(fn->f, l.grid, l.block, l.cluster, shared, msg, sizeof msg))
    return api_fail(ctx, PTXVM_ERROR_INVALID_CONFIG, "launch of '%s': %s", fn->f->name, msg);
  uint8_t *buf = build_params(fn, params, &l.param_size, &st);
  if (!buf) return st;
  l.params = buf;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  st = run(fn, &l);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  record_stats(ctx, &l, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
  free(buf);
  return st;
}

ptxvm_status ptxvm_launch(ptxvm_function *h, const unsigned grid[3], const unsigned block[3],
                          const unsigned cluster[3], unsigned dyn_shared_bytes, void **params) {
  Ctx *ctx;
  Fn *fn;
  ptxvm_status st = api_enter(h, H_FUNCTION, &ctx, (void **)&fn);
  if (st != PTXVM_SUCCESS) return st;
  return api_leave(ctx, launch(ctx, fn, grid, block, cluster, dyn_shared_bytes, params));
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
