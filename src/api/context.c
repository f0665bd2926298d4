/* context.c: contexts, status strings and the last-error message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mem/mem.h"
#include "api.h"

static const char *const status_msgs[] = {
#define PTXVM_X_(name, msg) msg,
  PTXVM_STATUS_LIST(PTXVM_X_)
#undef PTXVM_X_
};

const char *ptxvm_status_str(ptxvm_status s) {
  if ((unsigned)s < sizeof status_msgs / sizeof status_msgs[0]) return status_msgs[s];
  return "unknown status";
}

ptxvm_status ptxvm_context_create(ptxvm_context **out) {
  if (!out) return PTXVM_ERROR_INVALID_VALUE;
  ptxvm_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return PTXVM_ERROR_OUT_OF_MEMORY;
  *out = ctx;
  return PTXVM_SUCCESS;
}

void ptxvm_context_destroy(ptxvm_context *ctx) {
  if (!ctx) return;
  while (ctx->modules) ptxvm_module_unload(ctx->modules);
  dev_destroy(ctx->dev);
  free(ctx->error);
  free(ctx);
}

ptxvm_status ptxvm_set_printf_callback(ptxvm_context *ctx, ptxvm_printf_fn fn, void *user) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  ctx->printf_fn = fn;
  ctx->printf_user = user;
  return api_ok(ctx);
}

ptxvm_status ptxvm_set_schedule(ptxvm_context *ctx, uint64_t seed) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  ctx->schedule = seed;
  return api_ok(ctx);
}

ptxvm_status ptxvm_set_jobs(ptxvm_context *ctx, unsigned jobs) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  ctx->jobs = jobs;
  return api_ok(ctx);
}

ptxvm_status ptxvm_set_check(ptxvm_context *ctx, int on) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  ctx->check = on != 0;
  return api_ok(ctx);
}

ptxvm_status ptxvm_set_async_delay(ptxvm_context *ctx, uint64_t ns) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  ctx->async_delay = ns;
  ctx->has_async_delay = ns != UINT64_MAX;
  return PTXVM_SUCCESS;
}

ptxvm_status ptxvm_cancel(ptxvm_context *ctx) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  atomic_store(&ctx->cancel, 1);   /* lock-free: async-signal-safe */
  return PTXVM_SUCCESS;
}

ptxvm_status ptxvm_set_max_steps(ptxvm_context *ctx, uint64_t max_steps) {
  if (!ctx) return PTXVM_ERROR_INVALID_VALUE;
  ctx->max_steps = max_steps;
  return api_ok(ctx);
}

const char *ptxvm_last_error(const ptxvm_context *ctx) {
  return ctx && ctx->error ? ctx->error : "";
}

ptxvm_status api_fail_owned(ptxvm_context *ctx, ptxvm_status status, char *msg) {
  if (!ctx) { free(msg); return status; }
  free(ctx->error);
  ctx->error = msg;   /* NULL (out of memory) reads as "" */
  return status;
}

ptxvm_status api_fail(ptxvm_context *ctx, ptxvm_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return api_fail_owned(ctx, status, strdup(buf));
}

ptxvm_status api_ok(ptxvm_context *ctx) {
  if (ctx) {
    free(ctx->error);
    ctx->error = NULL;
  }
  return PTXVM_SUCCESS;
}
