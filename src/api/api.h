/* api.h: the internals behind ptxvm.h's opaque handles. */
#ifndef PTXVM_API_H
#define PTXVM_API_H

#include <stdatomic.h>

#include "../../include/ptxvm.h"
#include "../front/front.h"

struct ptxvm_function {
  Function *f;
  ptxvm_module *mod;
};

struct ptxvm_module {
  ptxvm_context *ctx;
  Module *m;
  ptxvm_function *fns;     /* one per m->funcs entry */
  ptxvm_module *next;      /* the context's list */
  struct Program *prog;    /* lowered at the first launch (src/api/launch.c) */
};

struct ptxvm_context {
  char *error;             /* last error message (malloc'd), "" when none */
  ptxvm_module *modules;
  struct Device *dev;      /* device memory, created at the first need (memory.c) */
  ptxvm_printf_fn printf_fn;  /* device printf output (ptxvm_set_printf_callback) */
  void *printf_user;
  uint64_t schedule;        /* warp order seed (ptxvm_set_schedule) */
  uint64_t max_steps;       /* watchdog (ptxvm_set_max_steps), 0 = default */
  uint64_t async_delay;     /* ptxvm_set_async_delay; UINT64_MAX = default */
  bool has_async_delay;
  bool check;               /* checker on (ptxvm_set_check) */
  unsigned jobs;            /* host threads (ptxvm_set_jobs), 0 = CPUs */
  ptxvm_stats stats;        /* of the last launch (ptxvm_launch_stats) */
  atomic_int cancel;        /* ptxvm_cancel; cleared as a launch starts */
};

/* The context's device, created on first use; NULL when the host refuses
 * the arena (src/api/memory.c). */
struct Device *api_device(ptxvm_context *ctx);

/* Records a formatted error message on ctx and returns status. */
ptxvm_status api_fail(ptxvm_context *ctx, ptxvm_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a message the caller allocated with malloc (ownership passes). */
ptxvm_status api_fail_owned(ptxvm_context *ctx, ptxvm_status status, char *msg);
ptxvm_status api_ok(ptxvm_context *ctx);

#endif
