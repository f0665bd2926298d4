/* api.h: the internals behind ptxvm.h's opaque handles.
 *
 * A handle (ptxvm_context *, ptxvm_module *, ptxvm_function *) is not a
 * pointer to these records but a slot index and generation in the table of
 * src/api/handle.c, so a stale handle is recognised without reading freed
 * memory. Every public call resolves its handle with api_enter, which also
 * marks the owning context busy until api_leave. */
#ifndef PTXVM_API_H
#define PTXVM_API_H

#include <stdatomic.h>

#include "../../include/ptxvm.h"
#include "../front/front.h"

typedef struct Ctx Ctx;
typedef struct Mod Mod;
typedef struct Fn Fn;

struct Fn {
  Function *f;
  Mod *mod;
  uint64_t h;              /* its handle */
};

struct Mod {
  Ctx *ctx;
  Module *m;
  Fn *fns;                 /* one per m->funcs entry */
  Mod *next;               /* the context's list */
  struct Program *prog;    /* prepared at the first need (api_program),
                              lowered per kernel (api_program_lower) */
  char *lower_error;       /* why the module cannot be lowered (malloc'd), or NULL */
  uint64_t h;              /* its handle */
};

struct Ctx {
  uint64_t h;              /* its handle */
  char *error;             /* last error message (malloc'd), "" when none */
  Mod *modules;
  struct Device *dev;      /* device memory, created at the first need (memory.c) */
  uint64_t device_limit;   /* ptxvm_set_device_memory; 0 = default (memory.c) */
  uint64_t printf_limit;   /* ptxvm_set_printf_buffer; 0 = default */
  uint64_t heap_size;      /* ptxvm_set_malloc_heap; fixed once the device
                              heap is made (launch.c) */
  ptxvm_printf_fn printf_fn;  /* device printf output (ptxvm_set_printf_callback) */
  void *printf_user;
  ptxvm_note_fn note_fn;    /* notes on a launch (ptxvm_set_note_callback) */
  void *note_user;
  uint64_t schedule;        /* warp order seed (ptxvm_set_schedule) */
  uint64_t max_steps;       /* watchdog (ptxvm_set_max_steps), 0 = default */
  uint64_t async_delay;     /* ptxvm_set_async_delay; UINT64_MAX = default */
  bool has_async_delay;
  bool check;               /* checker on (ptxvm_set_check) */
  char *trace_path;         /* the timeline file (ptxvm_set_trace); NULL: none */
  uint64_t trace_max;       /* its bound on events (0: the default) */
  uint64_t trace_dropped;   /* events the last traced launch dropped */
  uint64_t trace_launches;  /* traced launches so far ("%n" in the path) */
  uint64_t alloc_padding;   /* ptxvm_set_alloc_padding: 0 or PTXVM_ALLOC_PADDING */
  unsigned jobs;            /* host threads (ptxvm_set_jobs), 0 = CPUs */
  ptxvm_stats stats;        /* of the last launch (ptxvm_launch_stats) */
  ptxvm_fault fault;        /* of the last launch (ptxvm_launch_fault) */
  char *assertion;          /* of the last launch (ptxvm_launch_assertion) */
  atomic_int cancel;        /* ptxvm_cancel; cleared as a launch starts */
};

/* ---- handles (handle.c) ---- */

typedef enum { H_FREE, H_CONTEXT, H_MODULE, H_FUNCTION } HandleKind;

/* A fresh handle for obj, owned by the context with handle `owner` (0: a
 * context, which owns itself); 0 when the table is full or out of memory. */
uint64_t handle_new(HandleKind kind, void *obj, uint64_t owner);
/* Retires h: every later use of it is PTXVM_ERROR_INVALID_HANDLE. */
void handle_free(uint64_t h);
/* The object of h if h is a live handle of that kind, else NULL. Lock-free
 * and async-signal-safe; takes no part in the busy check. */
void *handle_obj(const void *h, HandleKind kind);

/* Resolves handle h of `kind` for a call: *ctx is its context (and *obj, if
 * obj is not NULL, its object), marked busy until api_leave. Returns
 * PTXVM_ERROR_INVALID_VALUE (h NULL), PTXVM_ERROR_INVALID_HANDLE (a freed or
 * foreign handle) or PTXVM_ERROR_CONTEXT_BUSY (another call on the context
 * is in progress); no message is recorded then. */
ptxvm_status api_enter(const void *h, HandleKind kind, Ctx **ctx, void **obj);
/* Ends the call api_enter began; returns st. */
ptxvm_status api_leave(Ctx *ctx, ptxvm_status st);

/* The body of a public call on context handle h: returns the expression
 * `call`, evaluated with `ctx` resolved and busy (or api_enter's error). */
#define ON_CONTEXT(h, call)                                             \
  do {                                                                  \
    Ctx *ctx;                                                           \
    ptxvm_status st_ = api_enter(h, H_CONTEXT, &ctx, NULL);             \
    return st_ != PTXVM_SUCCESS ? st_ : api_leave(ctx, call);           \
  } while (0)

/* ---- the rest ---- */

/* The context's device in *out, created on first use (src/api/memory.c);
 * or an error, recorded. */
ptxvm_status api_device(Ctx *ctx, struct Device **out);

/* What the function declares (module.c; ptxvm_function_get_info). */
void api_function_info(const Fn *fn, ptxvm_function_info *out);
/* Parameter (or return value) `index` of fn; false when out of range. */
bool api_function_param(const Fn *fn, int is_return, int index, ptxvm_param_info *out);
/* Frees a module: its functions' handles and its own are retired. */
void api_module_free(Mod *mod);

/* Prepares mod for its context's device unless done (mod->prog,
 * program_layout: variables placed, memory laid out, no code yet); records
 * the error otherwise (mod->lower_error too, for an error of the whole
 * module). program.c. */
ptxvm_status api_program(Mod *mod);
/* api_program, then lowers what kernel can reach (NULL: every function);
 * records the error otherwise (PTXVM_ERROR_NOT_SUPPORTED or
 * PTXVM_ERROR_OUT_OF_MEMORY; the module stays usable). */
ptxvm_status api_program_lower(Mod *mod, const Function *kernel);
/* ptxvm_function_launchable on a resolved context: PTXVM_SUCCESS, or the
 * refusal that stops kernel fn, recorded. */
ptxvm_status api_launchable(Ctx *ctx, Fn *fn);

/* Records a formatted error message on ctx and returns status. */
ptxvm_status api_fail(Ctx *ctx, ptxvm_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a message the caller allocated with malloc (ownership passes). */
ptxvm_status api_fail_owned(Ctx *ctx, ptxvm_status status, char *msg);
ptxvm_status api_ok(Ctx *ctx);

#endif
