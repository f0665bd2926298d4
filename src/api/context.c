/* context.c: contexts, the version, status strings and the last-error message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mem/mem.h"
#include "../util/check.h"
#include "api.h"

static const char *const status_msgs[] = {
#define PTXVM_X_(name, msg) msg,
  PTXVM_STATUS_LIST(PTXVM_X_)
#undef PTXVM_X_
};

#define PTXVM_STR_(x) #x
#define PTXVM_XSTR_(x) PTXVM_STR_(x)
const char *ptxvm_version(void) {
  return PTXVM_XSTR_(PTXVM_VERSION_MAJOR) "." PTXVM_XSTR_(PTXVM_VERSION_MINOR) "." PTXVM_XSTR_(PTXVM_VERSION_PATCH);
}

const char *ptxvm_status_str(ptxvm_status s) {
  if ((unsigned)s < sizeof status_msgs / sizeof status_msgs[0]) return status_msgs[s];
  return "unknown status";
}

ptxvm_status ptxvm_context_create(ptxvm_context **out) {
  if (!out) return PTXVM_ERROR_INVALID_VALUE;
  Ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return PTXVM_ERROR_OUT_OF_MEMORY;
#ifdef PTXVM_STRESS
  ctx->schedule = PTXVM_STRESS_SEED;   /* src/util/check.h: the stress switches */
#endif
  ctx->heap_size = PTXVM_MALLOC_HEAP_DEFAULT;
  ctx->h = handle_new(H_CONTEXT, ctx, 0);
  if (!ctx->h) {
    free(ctx);
    return PTXVM_ERROR_OUT_OF_MEMORY;
  }
  *out = (ptxvm_context *)(uintptr_t)ctx->h;
  return PTXVM_SUCCESS;
}

ptxvm_status ptxvm_context_destroy(ptxvm_context *h) {
  if (!h) return PTXVM_SUCCESS;
  Ctx *ctx;
  ptxvm_status st = api_enter(h, H_CONTEXT, &ctx, NULL);
  if (st != PTXVM_SUCCESS) return st;
  while (ctx->modules) api_module_free(ctx->modules);
  dev_destroy(ctx->dev);
  free(ctx->error);
  free(ctx->assertion);
  free(ctx->trace_path);
  handle_free(ctx->h);   /* also ends the call: the slot is no longer busy */
  free(ctx);
  return PTXVM_SUCCESS;
}

ptxvm_status ptxvm_set_printf_callback(ptxvm_context *h, ptxvm_printf_fn fn, void *user) {
  ON_CONTEXT(h, (ctx->printf_fn = fn, ctx->printf_user = user, api_ok(ctx)));
}

ptxvm_status ptxvm_set_note_callback(ptxvm_context *h, ptxvm_note_fn fn, void *user) {
  ON_CONTEXT(h, (ctx->note_fn = fn, ctx->note_user = user, api_ok(ctx)));
}

ptxvm_status ptxvm_set_printf_buffer(ptxvm_context *h, size_t bytes) {
  ON_CONTEXT(h, (ctx->printf_limit = bytes, api_ok(ctx)));
}

static ptxvm_status set_heap(Ctx *ctx, size_t bytes) {
  if (ctx->dev && dev_heap_get(ctx->dev, NULL, NULL) && bytes != ctx->heap_size)
    return api_fail(ctx, PTXVM_ERROR_INVALID_VALUE, "ptxvm_set_malloc_heap: the device heap is fixed at "
                    "%llu bytes since the first launch of a kernel that calls malloc or free",
                    (unsigned long long)ctx->heap_size);
  ctx->heap_size = bytes;
  return api_ok(ctx);
}

ptxvm_status ptxvm_set_malloc_heap(ptxvm_context *h, size_t bytes) { ON_CONTEXT(h, set_heap(ctx, bytes)); }

ptxvm_status ptxvm_set_schedule(ptxvm_context *h, uint64_t seed) {
  ON_CONTEXT(h, (ctx->schedule = seed, api_ok(ctx)));
}

ptxvm_status ptxvm_set_jobs(ptxvm_context *h, unsigned jobs) {
  ON_CONTEXT(h, (ctx->jobs = jobs, api_ok(ctx)));
}

ptxvm_status ptxvm_set_check(ptxvm_context *h, int on) {
  ON_CONTEXT(h, (ctx->check = on != 0, api_ok(ctx)));
}

static ptxvm_status set_trace(Ctx *ctx, const char *path, unsigned long long max_events) {
  char *p = NULL;
  if (path && !(p = strdup(path))) return api_fail(ctx, PTXVM_ERROR_OUT_OF_MEMORY, "out of host memory");
  free(ctx->trace_path);
  ctx->trace_path = p;
  ctx->trace_max = max_events;
  ctx->trace_dropped = 0;
  ctx->trace_launches = 0;
  return api_ok(ctx);
}

ptxvm_status ptxvm_set_trace(ptxvm_context *h, const char *path, unsigned long long max_events) {
  ON_CONTEXT(h, set_trace(ctx, path, max_events));
}

ptxvm_status ptxvm_trace_dropped(ptxvm_context *h, unsigned long long *dropped) {
  if (!dropped) return PTXVM_ERROR_INVALID_VALUE;
  ON_CONTEXT(h, (*dropped = ctx->trace_dropped, api_ok(ctx)));
}

ptxvm_status ptxvm_set_alloc_padding(ptxvm_context *h, int on) {
  ON_CONTEXT(h, (ctx->alloc_padding = on ? PTXVM_ALLOC_PADDING : 0, api_ok(ctx)));
}

ptxvm_status ptxvm_set_async_delay(ptxvm_context *h, uint64_t ns) {
  ON_CONTEXT(h, (ctx->async_delay = ns, ctx->has_async_delay = ns != UINT64_MAX, api_ok(ctx)));
}

ptxvm_status ptxvm_set_max_steps(ptxvm_context *h, uint64_t max_steps) {
  ON_CONTEXT(h, (ctx->max_steps = max_steps, api_ok(ctx)));
}

/* Lock-free, without the busy check: it may interrupt a call on ctx. */
ptxvm_status ptxvm_cancel(ptxvm_context *h) {
  if (!h) return PTXVM_ERROR_INVALID_VALUE;
  Ctx *ctx = handle_obj(h, H_CONTEXT);
  if (!ctx) return PTXVM_ERROR_INVALID_HANDLE;
  atomic_store(&ctx->cancel, 1);   /* lock-free: async-signal-safe */
  return PTXVM_SUCCESS;
}

const char *ptxvm_last_error(const ptxvm_context *h) {
  if (!h) return "";
  const Ctx *ctx = handle_obj(h, H_CONTEXT);
  if (!ctx) return "ptxvm_last_error: not a live context (destroyed, or not a context handle)";
  return ctx->error ? ctx->error : "";
}

ptxvm_status api_fail_owned(Ctx *ctx, ptxvm_status status, char *msg) {
  if (!ctx) { free(msg); return status; }
  free(ctx->error);
  ctx->error = msg;   /* NULL (out of memory) reads as "" */
  return status;
}

ptxvm_status api_fail(Ctx *ctx, ptxvm_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return api_fail_owned(ctx, status, strdup(buf));
}

ptxvm_status api_ok(Ctx *ctx) {
  if (ctx) {
    free(ctx->error);
    ctx->error = NULL;
  }
  return PTXVM_SUCCESS;
}
