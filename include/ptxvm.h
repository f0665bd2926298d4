/* ptxvm.h: the public C API of ptxvm, a PTX virtual machine.
 *
 * ptxvm loads PTX (PTX ISA up to 9.0) and runs its kernels on the CPU with
 * the GPU's execution and synchronization semantics. The API is shaped like
 * the CUDA driver API: a context owns modules; a module holds functions.
 *
 * Conventions, for every function below:
 * - Every call returns a ptxvm_status; PTXVM_SUCCESS is 0. On any other
 *   status the context keeps a message saying what happened and where,
 *   readable with ptxvm_last_error() until the next call on that context.
 * - Sizes and offsets are in bytes; grid and block dimensions are counts of
 *   CTAs and threads.
 * - Threads: a context and everything it owns may be used by one host
 *   thread at a time; different contexts may be used from different threads
 *   concurrently. There is no global mutable state.
 * - Ownership: strings and records returned by the library stay valid until
 *   the object they come from is destroyed (or, for ptxvm_last_error, until
 *   the next call on the context). The library never prints, exits or
 *   aborts; it reports.
 */
#ifndef PTXVM_H
#define PTXVM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes, with their meaning (the one list; see ptxvm_status_str). */
#define PTXVM_STATUS_LIST(X)                                                   \
  X(PTXVM_SUCCESS, "success")                                                  \
  X(PTXVM_ERROR_INVALID_VALUE, "invalid argument")                             \
  X(PTXVM_ERROR_OUT_OF_MEMORY, "out of host memory")                           \
  X(PTXVM_ERROR_FILE, "file cannot be read")                                   \
  X(PTXVM_ERROR_INVALID_PTX, "PTX does not parse or validate")                 \
  X(PTXVM_ERROR_NOT_FOUND, "no such function or parameter")

typedef enum ptxvm_status {
#define PTXVM_X_(name, msg) name,
  PTXVM_STATUS_LIST(PTXVM_X_)
#undef PTXVM_X_
} ptxvm_status;

typedef struct ptxvm_context ptxvm_context;
typedef struct ptxvm_module ptxvm_module;
typedef struct ptxvm_function ptxvm_function;

/* The fixed English meaning of a status ("invalid argument"); never NULL. */
const char *ptxvm_status_str(ptxvm_status status);

/* ---- contexts ---- */

/* Creates a context in *out.
 * Errors: PTXVM_ERROR_INVALID_VALUE (out is NULL),
 *         PTXVM_ERROR_OUT_OF_MEMORY. */
ptxvm_status ptxvm_context_create(ptxvm_context **out);

/* Destroys a context and everything it owns (modules, device memory).
 * NULL is accepted and ignored. */
void ptxvm_context_destroy(ptxvm_context *ctx);

/* The message of the last failed call on ctx ("" if it succeeded): for PTX
 * errors "FILE:LINE:COL: error: message", the source line and a caret. */
const char *ptxvm_last_error(const ptxvm_context *ctx);

/* ---- modules (PTX ISA 9.0 chapter 11: directives) ---- */

/* Parses and validates `len` bytes of PTX text; `name` (may be NULL, then
 * "<ptx>") is the file name diagnostics use. The text need not stay valid
 * after the call. On success *out is a module owned by ctx.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx, ptx or out NULL),
 *         PTXVM_ERROR_INVALID_PTX (the message locates the first error),
 *         PTXVM_ERROR_OUT_OF_MEMORY. */
ptxvm_status ptxvm_module_load_data(ptxvm_context *ctx, const char *ptx, size_t len,
                                    const char *name, ptxvm_module **out);

/* As ptxvm_module_load_data, reading the file at `path` ("-" is standard
 * input). Errors: those of ptxvm_module_load_data, and PTXVM_ERROR_FILE. */
ptxvm_status ptxvm_module_load_file(ptxvm_context *ctx, const char *path,
                                    ptxvm_module **out);

/* Frees a module and the functions it holds. NULL is ignored. */
void ptxvm_module_unload(ptxvm_module *mod);

/* Number of .entry and .func functions in the module, in declaration order
 * (a prototype followed by its definition counts once). */
int ptxvm_module_function_count(const ptxvm_module *mod);

/* The index-th function (0-based), or NULL when index is out of range. */
ptxvm_function *ptxvm_module_function_at(const ptxvm_module *mod, int index);

/* Looks up a function by its PTX name (mangled names as written).
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument),
 *         PTXVM_ERROR_NOT_FOUND (no function of that name). */
ptxvm_status ptxvm_module_get_function(ptxvm_module *mod, const char *name,
                                       ptxvm_function **out);

/* ---- functions and their parameters (PTX ISA 9.0 §5.1.6, §7, §11.4) ---- */

typedef struct ptxvm_function_info {
  const char *name;
  int is_entry;              /* 1 for .entry (a kernel), 0 for .func */
  int has_body;              /* 0 for a declaration (.extern or prototype) */
  int nparams, nrets;        /* .param (and .reg) parameters; return values */
  /* performance directives; 0 where absent */
  unsigned maxntid[3], reqntid[3], reqnctapercluster[3];
  unsigned minnctapersm, maxnctapersm, maxnreg, maxclusterrank;
  int explicitcluster, noreturn;
  unsigned param_bytes;      /* size of the parameter buffer, params laid out
                                in order at their alignments */
} ptxvm_function_info;

/* Fills *out with what the function declares.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument). */
ptxvm_status ptxvm_function_get_info(const ptxvm_function *fn, ptxvm_function_info *out);

typedef struct ptxvm_param_info {
  const char *name;
  const char *type;          /* PTX type without the dot: "u64", "b8" */
  const char *space;         /* "param" or "reg" */
  unsigned size;             /* bytes (element size x array length) */
  unsigned align;            /* bytes: .align, else the element size */
  unsigned offset;           /* bytes, in the parameter buffer */
  unsigned array_len;        /* elements; 0 for a scalar */
  const char *ptr_space;     /* for .ptr parameters: "global", ...; else NULL */
  unsigned ptr_align;        /* for .ptr parameters: .align N; else 0 */
} ptxvm_param_info;

/* Fills *out for parameter `index` (0-based, declaration order); with
 * is_return != 0, for return value `index` of a .func.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument),
 *         PTXVM_ERROR_NOT_FOUND (index out of range). */
ptxvm_status ptxvm_function_get_param(const ptxvm_function *fn, int is_return, int index,
                                      ptxvm_param_info *out);

#ifdef __cplusplus
}
#endif
#endif
