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
 * - Handles: a context, module or function handle that was destroyed or
 *   unloaded (a module unloaded twice, a function of an unloaded module, a
 *   module of a destroyed context) is recognised: the call returns
 *   PTXVM_ERROR_INVALID_HANDLE and changes nothing, and no message can be
 *   recorded (ptxvm_last_error of a destroyed context says so). A NULL
 *   handle is PTXVM_ERROR_INVALID_VALUE. Handles are not pointers to
 *   anything the caller may read; they stay distinct from every handle made
 *   later in the process (up to 2^32 reuses of one table slot).
 * - Threads: a context and everything it owns may be used by one host
 *   thread at a time; different contexts may be used from different threads
 *   concurrently. A call made while another call on the same context is in
 *   progress (a second host thread, or the printf callback calling back
 *   into its launch's context) returns PTXVM_ERROR_CONTEXT_BUSY at once,
 *   records no message and changes nothing. The one global state is the
 *   table of handles, behind a lock.
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

/* The library exports exactly what this header declares: it is built with
 * -fvisibility=hidden, and these declarations are marked visible. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The version of this header and of the library built from it (semantic
 * versioning: MAJOR changes break the API or ABI, and are the soname,
 * libptxvm.so.MAJOR). */
#define PTXVM_VERSION_MAJOR 0
#define PTXVM_VERSION_MINOR 1
#define PTXVM_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH" (that of the library actually
 * loaded, which may differ from the PTXVM_VERSION_* a program was compiled
 * with); never NULL, static storage. No errors. */
const char *ptxvm_version(void);

/* Status codes, with their meaning (the one list; see ptxvm_status_str). */
#define PTXVM_STATUS_LIST(X)                                                   \
  X(PTXVM_SUCCESS, "success")                                                  \
  X(PTXVM_ERROR_INVALID_VALUE, "invalid argument")                             \
  X(PTXVM_ERROR_OUT_OF_MEMORY, "out of host memory")                           \
  X(PTXVM_ERROR_FILE, "file cannot be read")                                   \
  X(PTXVM_ERROR_INVALID_PTX, "PTX does not parse or validate")                 \
  X(PTXVM_ERROR_NOT_FOUND, "no such function or parameter")                   \
  X(PTXVM_ERROR_OUT_OF_DEVICE_MEMORY, "device memory is exhausted")            \
  X(PTXVM_ERROR_INVALID_ADDRESS, "not a device address range that is allocated") \
  X(PTXVM_ERROR_INVALID_CONFIG, "invalid launch configuration")               \
  X(PTXVM_ERROR_NOT_SUPPORTED, "the PTX uses a feature ptxvm does not support") \
  X(PTXVM_ERROR_LAUNCH_FAILED, "the kernel faulted")                          \
  X(PTXVM_ERROR_DEADLOCK, "the kernel deadlocked")                            \
  X(PTXVM_ERROR_HAZARD, "a hazard was found under --check")                    \
  X(PTXVM_ERROR_CANCELLED, "the launch was cancelled")                        \
  X(PTXVM_ERROR_INVALID_HANDLE, "the handle was freed, or is not a handle")     \
  X(PTXVM_ERROR_CONTEXT_BUSY, "another host thread is using the context")   \
  X(PTXVM_ERROR_INVALID_IMAGE, "not a valid fatbin or ELF file")              \
  X(PTXVM_ERROR_NO_PTX, "the image holds no PTX for sm_90 or below")

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

/* Destroys a context and everything it owns (modules, device memory); its
 * handle and theirs become invalid. NULL is accepted and ignored.
 * Errors: PTXVM_ERROR_INVALID_HANDLE (already destroyed),
 *         PTXVM_ERROR_CONTEXT_BUSY (a call on it is in progress). */
ptxvm_status ptxvm_context_destroy(ptxvm_context *ctx);

/* The message of the last failed call on ctx ("" if it succeeded, and for
 * NULL): for PTX errors "FILE:LINE:COL: error: message", the source line
 * and a caret. For a destroyed context, a fixed message saying so. */
const char *ptxvm_last_error(const ptxvm_context *ctx);

/* Receives device printf output (CUDA printf, which nvcc compiles to a call
 * of the external function vprintf): `len` bytes of text (also
 * NUL-terminated) per printf call of one thread, whole, in the order the
 * threads execute them; the text is valid during the call only. It must
 * not call the library on the launch's context (PTXVM_ERROR_CONTEXT_BUSY);
 * ptxvm_cancel is the exception. */
typedef void (*ptxvm_printf_fn)(const char *text, size_t len, void *user);

/* Sets the receiver of device printf output for the launches of ctx that
 * follow; `user` is passed back to it. fn NULL (the default) discards the
 * output (the library never prints).
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_printf_callback(ptxvm_context *ctx, ptxvm_printf_fn fn, void *user);

/* Sets the printf buffer of the launches of ctx that follow (the CLI's
 * --printf-buffer), in bytes: each cluster (each CTA, without clusters)
 * has a buffer of `bytes` bytes for its printf calls, where a call takes
 * the length of its text plus sizeof(size_t) + 1 bytes (9 on 64-bit hosts);
 * 0 selects PTXVM_PRINTF_BUFFER_DEFAULT, 1 MiB, CUDA's default
 * cudaLimitPrintfFifoSize. A cluster's output is held until the clusters
 * before it have passed theirs on (so that it comes in the same order at
 * any ptxvm_set_jobs), and this bounds the memory it takes. The first call
 * that does not fit in what is left of its cluster's buffer is
 * dropped, and so is every later call of that cluster, so the output kept
 * is the same at every number of host threads. What was dropped is counted
 * in ptxvm_stats (printf_lost_calls, printf_lost_bytes,
 * printf_lost_clusters, printf_lost_first); the CLI reports it on stderr.
 * (CUDA's FIFO is one ring per device whose older records are overwritten
 * when it is full; ptxvm keeps each cluster's first records instead.)
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_printf_buffer(ptxvm_context *ctx, size_t bytes);
#define PTXVM_PRINTF_BUFFER_DEFAULT ((size_t)1 << 20)

/* Sets the size of the device heap, in bytes (rounded up to 16), from
 * which kernels' malloc and free system calls (CUDA's device malloc; PTX
 * `.extern .func (.param .b64 r) malloc (.param .b64 size)` and `.extern
 * .func free (.param .b64 ptr)`) take their blocks: CUDA's
 * cudaLimitMallocHeapSize / CU_LIMIT_MALLOC_HEAP_SIZE; the default is
 * PTXVM_MALLOC_HEAP_DEFAULT, 8 MiB, as CUDA's. The heap is made in the
 * context's device memory at the first launch of a kernel that can call
 * malloc or free, and kept with that size until the context is destroyed,
 * so blocks stay valid across launches until freed; that launch fails with
 * PTXVM_ERROR_OUT_OF_DEVICE_MEMORY when device memory has no room for it.
 * malloc returns 16-byte aligned blocks, NULL when the heap has no room;
 * free(NULL) does nothing; freeing a block twice or a pointer malloc did
 * not return (undefined in CUDA) is a located fault of the launch
 * (PTXVM_ERROR_LAUNCH_FAILED). Host threads (ptxvm_set_jobs) share the
 * heap safely. Device addresses of heap blocks are global memory.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL; or the heap is made
 * already and bytes differs from its size: CUDA's cudaErrorInvalidValue). */
ptxvm_status ptxvm_set_malloc_heap(ptxvm_context *ctx, size_t bytes);
#define PTXVM_MALLOC_HEAP_DEFAULT ((size_t)8 << 20)

/* Receives notes on a launch in progress that are not errors: `text`
 * (NUL-terminated, one line without a newline, valid during the call only).
 * At present one note: when a CTA (or cluster) has run for 4 seconds of
 * wall time without finishing, "note: kernel K, %ctaid (x,y,z) still runs
 * after 4 s (N warp-instructions), a warp at FILE:LINE:COL; if it spins
 * forever, the watchdog stops it after M (--max-steps)". At most one note
 * per launch, called from one of the launch's host threads while
 * ptxvm_launch runs. It must not call the library on the launch's context
 * (PTXVM_ERROR_CONTEXT_BUSY); ptxvm_cancel is the exception. */
typedef void (*ptxvm_note_fn)(const char *text, void *user);

/* Sets the receiver of notes (ptxvm_note_fn) for the launches of ctx that
 * follow; `user` is passed back to it. fn NULL (the default): no notes.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_note_callback(ptxvm_context *ctx, ptxvm_note_fn fn, void *user);

/* Sets the scheduling order of the launches of ctx that follow: 0 (the
 * default) runs each CTA's warps round-robin in warp order, and within a
 * warp the lane group with the lowest pc first; any other seed runs the
 * warps in a pseudo-random order with pseudo-random quanta, and also varies
 * which lane group of a diverged warp runs next, all derived from seed and
 * %ctaid, the same for the same seed. Correct programs give the same
 * results under every order; use it to test that.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_schedule(ptxvm_context *ctx, uint64_t seed);

/* Sets how many host threads run the clusters of the launches of ctx that
 * follow (the CLI's -j): 0 (the default) as many as the host has CPUs, 1
 * the calling thread alone. The CTAs of one cluster always run together on
 * one thread; clusters are started in x, y, z order, and after a fault no
 * further one is. Each thread keeps up to 16 CTAs resident (at least two
 * clusters) and runs them in turns, so a CTA that spins on a flag set by a
 * CTA started after it progresses on any number of threads, 1 included. A
 * kernel whose clusters do not race gives the same results on any number
 * of threads: the reported fault is that of the lowest cluster, and the
 * printf callback is called from one thread at a time,
 * each cluster's output in cluster order, none after a failed cluster's. A
 * checked launch (ptxvm_set_check) runs on one thread.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_jobs(ptxvm_context *ctx, unsigned jobs);

/* Turns the checker on (on != 0) or off (0, the default) for the launches
 * of ctx that follow (the CLI's --check). A checked launch still runs to
 * completion past what it finds: a data race on .shared, .shared::cluster
 * or .global memory (two threads' accesses to one byte, one a write, one
 * not atomic, that no synchronization orders: found whatever the schedule,
 * and reported once per pair of instructions and state space, after the
 * launch, with both locations, kinds, threads and the byte range), an
 * uninitialized read (a load of .shared bytes no thread of the CTA wrote,
 * or of .global bytes of an allocation marked with
 * ptxvm_mem_set_uninitialized that nothing wrote since: "uninitialized read
 * of SPACE bytes [LO, HI) in WHAT by ld at FILE:LINE:COL, kernel, %ctaid
 * %tid", once per instruction per launch, at most 32), a
 * shfl.sync reading a lane that is
 * inactive, exited or outside its membermask, a bar.warp.sync whose
 * membermask names exited or nonexistent lanes, an integer division by
 * zero (each gets ptxvm's documented value). When it finds anything,
 * ptxvm_launch returns PTXVM_ERROR_HAZARD and ptxvm_last_error holds the
 * findings, each a message and its "  at FILE:LINE:COL, kernel, %ctaid,
 * %tid" line (a finding's first line starts at the line's start, each of
 * its continuation lines with two spaces: how `ptxvm run --schedules`
 * tells them apart); identical findings of one instruction are listed
 * once, and after 100 the rest are only counted ("... N more findings").
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_check(ptxvm_context *ctx, int on);

/* Records a timeline of each launch of ctx that follows (the CLI's
 * --trace) and writes it to path when the launch ends, also when it
 * faults or deadlocks; "%n" in path is replaced by the number of the traced
 * launch (1, 2, ...), else each launch overwrites the file. NULL turns it
 * off (the default). The file is Chrome trace-event JSON (Perfetto,
 * chrome://tracing): pid is the CTA (its linear index in the grid, named
 * "CTA (x,y,z) cluster C rank R"), tid the warp; per warp "X" spans of
 * "running" (it has lanes that can run) and of waiting, named "CTA
 * barrier", "cluster barrier", "mbarrier", "warp collective" or "blocked",
 * with the instruction, its source location and what it waits for (the
 * barrier id and arrivals, the mbarrier object, its phase and the parity
 * awaited) in args; "b"/"e" async events per thread for each
 * asynchronous copy (cp.async, cp.async.bulk) from issue to landing;
 * "i" instants for each mbarrier phase completion. Time (ts, dur) is
 * virtual: one unit is one warp-instruction of the cluster (its warps run
 * in turns; all CTAs of a cluster share its clock), so the file is the
 * same bytes on every machine and at every ptxvm_set_jobs count for the
 * same schedule (ptxvm_set_schedule): each cluster's events are written
 * in cluster order. A wait begins when a warp's turn ends with it blocked
 * and ends when lanes of it are released; one that ends within the warp's
 * own turn is not shown. At most
 * max_events events are kept (0: 1000000); the rest are counted
 * (ptxvm_trace_dropped) and the file ends with an instant event saying
 * how many were dropped.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL), PTXVM_ERROR_OUT_OF_MEMORY;
 * at the launch, PTXVM_ERROR_FILE when the file cannot be written (the
 * launch itself succeeded). */
ptxvm_status ptxvm_set_trace(ptxvm_context *ctx, const char *path, unsigned long long max_events);

/* The number of events the last traced launch of ctx dropped at the bound
 * of ptxvm_set_trace (0: the trace is complete) into *dropped.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx or dropped is NULL). */
ptxvm_status ptxvm_trace_dropped(ptxvm_context *ctx, unsigned long long *dropped);

/* Sets the watchdog of the launches of ctx that follow: a cluster (a CTA)
 * that has executed more than max_steps warp-instructions without
 * finishing is stopped with a "runaway" report naming its %ctaid and the
 * loop (PTXVM_ERROR_LAUNCH_FAILED), so a spin loop cannot hang the host; a
 * fault already recorded by a later cluster is reported instead. 0 selects the default, 2^28 (268435456).
 * A spin that provably never ends (every thread left spins in a loop whose
 * registers repeat, and no store, atomic, arrival or copy is left that
 * could change what it reads) is reported sooner, within milliseconds, as
 * a livelock (PTXVM_ERROR_DEADLOCK; README "Spin loops").
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_max_steps(ptxvm_context *ctx, uint64_t max_steps);

/* Cancels the launch of ctx that is running: it stops within a scheduling
 * quantum (each cluster checks between rounds of its warps, the launcher
 * between clusters) and ptxvm_launch returns PTXVM_ERROR_CANCELLED. The one
 * call that may be made from any thread while another uses ctx, and from a
 * signal handler: it only sets an atomic flag (the CLI calls it on SIGINT).
 * The flag is cleared when a launch starts, so a cancel while no launch is
 * running has no effect. Device memory holds whatever the kernel wrote.
 * Does not change ptxvm_last_error.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_cancel(ptxvm_context *ctx);

/* Sets the completion delay of asynchronous copies (cp.async, cp.async.bulk)
 * for the launches of ctx that follow, in virtual nanoseconds from issue
 * (virtual time: the same on every host). 0 lands every copy at issue; a larger delay
 * makes a program that reads a destination without waiting see stale data
 * sooner. UINT64_MAX selects the default: the environment variable
 * PTXVM_ASYNC_DELAY, else 2000.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_async_delay(ptxvm_context *ctx, uint64_t ns);

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
 * input); a file that is an image (an executable, object, cubin or fatbin:
 * ptxvm_module_load_image below) gives its one PTX module.
 * Errors: those of ptxvm_module_load_data and ptxvm_module_load_image, and
 * PTXVM_ERROR_FILE (unreadable, a directory, or more than 2 GiB). */
ptxvm_status ptxvm_module_load_file(ptxvm_context *ctx, const char *path,
                                    ptxvm_module **out);

/* Links `count` PTX texts into one module (PTX ISA 9.0 §11.6, "Linking
 * Directives"), as nvlink links the PTX of -rdc=true objects and
 * cuLinkComplete its inputs. Input i is texts[i], lens[i] bytes (lens NULL
 * or lens[i] 0: NUL-terminated), named names[i] in diagnostics (names NULL
 * or names[i] NULL: "<ptx#I>", I from 1); `name` names the module (NULL:
 * the inputs' names joined by '+'). Each input is parsed and validated as
 * ptxvm_module_load_data does, and its names that are not .visible, .weak
 * or .common stay its own (two inputs may each have an internal helper of
 * one name). Then, by name: a reference (an .extern declaration, or a .func
 * declared without a body) is bound to the definition that another input
 * makes .visible or .weak, so a .visible .global of one input and its
 * .extern in another are one variable, and a call reaches the one function;
 * .visible wins over .weak, of several .weak the first input's wins; of
 * several .common .global the largest wins (only it may be initialized).
 * `.extern .shared` arrays stay each kernel's dynamic shared memory;
 * vprintf, __assertfail, malloc and free are the system's, as in one module,
 * and the CUDA device runtime's functions (cudaLaunchDevice,
 * cudaGetParameterBuffer, __cudaCDP2LaunchDeviceV2, ...) stay declarations:
 * ptxvm does not support device-side launches, so a kernel that calls one
 * is refused at its launch (PTXVM_ERROR_NOT_SUPPORTED, the function named).
 * The module lists the inputs' functions and variables in input order, the
 * declarations bound to a definition and the definitions that lost left
 * out; diagnostics of its code (check, faults) name the input and its line.
 * Texts need not stay valid after the call. On success *out is owned by ctx.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx, texts, a text or out NULL;
 *           count < 1),
 *         PTXVM_ERROR_INVALID_PTX (an input does not parse: its located
 *           message; or a link error, "NAME:LINE:COL: error: ..." at the
 *           symbol's declaration in its input: a second .visible definition
 *           of a name (both places named); a used reference that no input
 *           defines, named; a reference whose
 *           kind, state space or signature (.entry or .func, parameter and
 *           return counts) differs from its definition; a variable
 *           .attribute(.managed) in one input and not in another (§5.4.8);
 *           .common rules broken; different .address_size),
 *         PTXVM_ERROR_OUT_OF_MEMORY. */
ptxvm_status ptxvm_module_load_linked(ptxvm_context *ctx, int count, const char *const *texts,
                                      const size_t *lens, const char *const *names, const char *name,
                                      ptxvm_module **out);

/* Frees a module and the functions it holds; its handle and theirs become
 * invalid. NULL is ignored.
 * Errors: PTXVM_ERROR_INVALID_HANDLE (already unloaded, or its context
 *           was destroyed), PTXVM_ERROR_CONTEXT_BUSY. */
ptxvm_status ptxvm_module_unload(ptxvm_module *mod);

/* Number of .entry and .func functions in the module, in declaration order
 * (a prototype followed by its definition counts once); 0 for NULL or an
 * invalid handle. */
int ptxvm_module_function_count(const ptxvm_module *mod);

/* The index-th function (0-based), or NULL when index is out of range or
 * mod is not a live module. */
ptxvm_function *ptxvm_module_function_at(const ptxvm_module *mod, int index);

/* Looks up a function by its PTX name (mangled names as written).
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument),
 *         PTXVM_ERROR_NOT_FOUND (no function of that name). */
ptxvm_status ptxvm_module_get_function(ptxvm_module *mod, const char *name,
                                       ptxvm_function **out);

/* ---- device code in executables and fatbins ----
 *
 * An image is what nvcc makes device code into: a fatbin (`nvcc -fatbin`,
 * magic 0xBA55ED50), the runtime's __fatBinC_Wrapper_t (magic 0x466243B1,
 * crt/fatbinary_section.h; what __cudaRegisterFatBinary receives), or an
 * ELF file that holds fatbins: an executable, shared library or object
 * (sections .nv_fatbin and, for -rdc=true, __nv_relfatbin), or a cubin. A
 * fatbin carries PTX and SASS entries per target; ptxvm takes the PTX of
 * the highest target up to sm_90 (sm_90a preferred to sm_90), decompressed
 * (zstd, nvcc 13's default; LZ4, --compress-mode=speed). The text is
 * nvcc -ptx's output as fatbinary stores it: without comments, leading
 * blanks and blank runs. */

typedef struct ptxvm_image_ptx {
  const char *text;          /* the PTX, NUL-terminated */
  size_t len;                /* its bytes, without the NUL */
  unsigned sm;               /* the entry's target: 90 for sm_90 and sm_90a */
  int arch_specific;         /* 1 for an arch-specific target (sm_90a) */
  int relocatable;           /* 1 for an -rdc=true object's PTX (from
                                __nv_relfatbin): the relocatable modules of
                                an image are linked into one
                                (ptxvm_module_load_image) */
} ptxvm_image_ptx;

/* The PTX modules of an image: one per fatbin that has PTX for sm_90 or
 * below (an executable has one per translation unit, and with -rdc=true
 * one per object), in the order of the image, in *out (count in *count);
 * free them with ptxvm_image_free. `size` is the image's length in bytes;
 * 0 means an image in memory whose length its headers give (a fatbin, an
 * ELF file, a wrapper, whose data pointer is followed), as the CUDA driver
 * takes them. A wrapper can be read only so. Every field is checked
 * against `size` (none can be with size 0). Does not need ctx's device.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument),
 *         PTXVM_ERROR_INVALID_IMAGE (not an image, or a malformed one: the
 *           message says which field),
 *         PTXVM_ERROR_NO_PTX (SASS only: the message names its kernels and
 *           how to rebuild with PTX; or PTX only for targets above sm_90),
 *         PTXVM_ERROR_OUT_OF_MEMORY. */
ptxvm_status ptxvm_image_get_ptx(ptxvm_context *ctx, const void *image, size_t size,
                                 ptxvm_image_ptx **out, int *count);

/* Frees what ptxvm_image_get_ptx returned (NULL is ignored). */
void ptxvm_image_free(ptxvm_image_ptx *ptx, int count);

/* Loads a module from an image (above) or from PTX text, as
 * cuModuleLoadData does: PTX text (`size` 0: NUL-terminated) is loaded as
 * ptxvm_module_load_data does; an image must make exactly one module,
 * which is loaded under `name` (NULL: "<image>"): one PTX module (a fatbin
 * or wrapper of one translation unit), or only relocatable ones (an
 * -rdc=true executable's objects, a ptxvm_image_link image), which are
 * linked as ptxvm_module_load_linked does, module i of the image (from 1)
 * named NAME#i in diagnostics, as `ptxvm ptx` lists them.
 * Errors: those of ptxvm_image_get_ptx, ptxvm_module_load_data and
 *         ptxvm_module_load_linked, and
 *         PTXVM_ERROR_NOT_SUPPORTED (the image makes several modules: the
 *           PTX of several translation units without -rdc=true;
 *           ptxvm_image_get_ptx gives them). */
ptxvm_status ptxvm_module_load_image(ptxvm_context *ctx, const void *image, size_t size,
                                     const char *name, ptxvm_module **out);

/* Writes an image of `count` PTX texts to be linked, as cuLinkComplete
 * returns one: texts[i] has lens[i] bytes (lens NULL or lens[i] 0:
 * NUL-terminated); nothing is parsed. The image is an ELF64 relocatable
 * file (EM_NONE: no host code) whose __nv_relfatbin section holds one
 * fatbin per text, in order, each with one stored PTX entry for sm_90:
 * the layout of an -rdc=true object's device code, so
 * ptxvm_module_load_image (and cuModuleLoadData) links the texts and
 * ptxvm_image_get_ptx lists each (relocatable). *image is malloc'd (free
 * it with free()), *size its bytes.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument or text, count < 1),
 *         PTXVM_ERROR_OUT_OF_MEMORY. */
ptxvm_status ptxvm_image_link(ptxvm_context *ctx, int count, const char *const *texts, const size_t *lens,
                              void **image, size_t *size);

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
  uint64_t param_bytes;      /* size of the parameter buffer, params laid out
                                in order at their alignments (a kernel's: at
                                most 32764, ptxas's limit) */
} ptxvm_function_info;

/* Fills *out with what the function declares.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument). */
ptxvm_status ptxvm_function_get_info(const ptxvm_function *fn, ptxvm_function_info *out);

typedef struct ptxvm_param_info {
  const char *name;
  const char *type;          /* PTX type without the dot: "u64", "b8" */
  const char *space;         /* "param" or "reg" */
  uint64_t size;             /* bytes (element size x array length) */
  unsigned align;            /* bytes: .align, else the element size */
  uint64_t offset;           /* bytes, in the parameter buffer (of a .func:
                                in its parameter list, laid out the same way) */
  uint64_t array_len;        /* elements; 0 for a scalar */
  const char *ptr_space;     /* for .ptr parameters: "global", ...; else NULL */
  unsigned ptr_align;        /* for .ptr parameters: .align N; else 0 */
} ptxvm_param_info;

/* Fills *out for parameter `index` (0-based, declaration order); with
 * is_return != 0, for return value `index` of a .func.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument),
 *         PTXVM_ERROR_NOT_FOUND (index out of range). */
ptxvm_status ptxvm_function_get_param(const ptxvm_function *fn, int is_return, int index,
                                      ptxvm_param_info *out);

/* ---- what ptxvm cannot execute yet ----
 *
 * Valid PTX may hold instructions that ptxvm cannot execute yet (tensor
 * copies, textures, MMA, ...). They do not stop a module from loading, nor
 * its other kernels from launching: only a kernel that holds one, or can
 * call a .func that holds one (directly, or through a register: then any
 * function whose address is taken counts), is refused, with
 * PTXVM_ERROR_NOT_SUPPORTED. The functions below say so before a launch. */

typedef struct ptxvm_unsupported_info {
  const char *message;       /* "FILE:LINE:COL: what", as a launch reports
                                it; for the whole module "FILE: what" */
  const char *what;          /* the message after its location (a suffix) */
  const char *function;      /* the .entry or .func holding the instruction;
                                NULL for the whole module */
  int in_entry;              /* 1 when that function is an .entry */
  unsigned line, col;        /* 1-based PTX location of the instruction; 0
                                for the whole module */
} ptxvm_unsupported_info;

/* Prepares the module (as ptxvm_module_prepare), lowers every function
 * of it and returns how many entries ptxvm_module_unsupported describes: one per instruction that
 * ptxvm cannot execute yet, in declaration order; or 1 when the module as a
 * whole cannot run (its local memory per thread is too large, its variables
 * do not fit in device memory); 0 when every kernel can be launched.
 * Returns -1 when mod is NULL or not a live handle, its context is busy,
 * or the host is out of memory (then ptxvm_last_error says so). */
int ptxvm_module_unsupported_count(ptxvm_module *mod);

/* Fills *out with entry `index` (0-based) of ptxvm_module_unsupported_count;
 * the strings live as long as the module.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument),
 *         PTXVM_ERROR_NOT_FOUND (index out of range),
 *         PTXVM_ERROR_INVALID_HANDLE, PTXVM_ERROR_CONTEXT_BUSY. */
ptxvm_status ptxvm_module_unsupported(ptxvm_module *mod, int index, ptxvm_unsupported_info *out);

/* Prepares the module as its first launch would, without lowering its
 * code: its .global and .const variables get device memory and their
 * initial values (a .global with .attribute(.managed), PTX ISA §5.4.8:
 * managed memory, page-aligned, which the host reads and writes at the
 * address kernels use; a larger .align is refused, PTXVM_ERROR_NOT_SUPPORTED;
 * .attribute(.unified) is refused when the module is parsed), its shared and local memory are laid out, and what stops
 * the module as a whole is found (a frame or local memory per thread too
 * large, variables that do not fit in device memory). Each kernel is
 * lowered later, with the functions it can call, at its first launch or
 * ptxvm_function_launchable, so a module of hundreds of kernels (CUB,
 * Thrust) costs only the kernels used; ptxvm_module_unsupported_count
 * lowers all of them. Idempotent; the calls below that need it do it.
 * Errors: PTXVM_ERROR_NOT_SUPPORTED (the module as a whole cannot run: the
 *           message says why; ptxvm_module_unsupported's one entry),
 *         PTXVM_ERROR_INVALID_VALUE (mod NULL; a bad PTXVM_DEVICE_MEMORY),
 *         PTXVM_ERROR_OUT_OF_MEMORY, PTXVM_ERROR_INVALID_HANDLE,
 *         PTXVM_ERROR_CONTEXT_BUSY. */
ptxvm_status ptxvm_module_prepare(ptxvm_module *mod);

/* Whether kernel fn is lowered (*lowered 1) or not yet (0): its first
 * launch, ptxvm_function_launchable or ptxvm_module_unsupported_count
 * lowers it with the functions it can call (ptxvm_module_prepare).
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument; fn not an .entry
 *           with a body), PTXVM_ERROR_INVALID_HANDLE,
 *         PTXVM_ERROR_CONTEXT_BUSY. */
ptxvm_status ptxvm_function_lowered(ptxvm_function *fn, int *lowered);

/* Whether kernel fn can be launched (ptxvm_launch checks the same first):
 * prepares its module (ptxvm_module_prepare) and lowers fn and the
 * functions it can call, as its first launch does.
 * Errors: PTXVM_ERROR_INVALID_VALUE (fn NULL, or not an .entry with a body),
 *         PTXVM_ERROR_NOT_SUPPORTED (fn holds an instruction ptxvm cannot
 *           execute yet, or can call a function that does: the message is
 *           its "FILE:LINE:COL: what", followed by " (in 'f', which kernel
 *           'k' can call)" when another function holds it; or the reason the
 *           whole module cannot run),
 *         PTXVM_ERROR_OUT_OF_MEMORY, PTXVM_ERROR_INVALID_HANDLE,
 *         PTXVM_ERROR_CONTEXT_BUSY. */
ptxvm_status ptxvm_function_launchable(ptxvm_function *fn);

/* ---- device memory (PTX ISA 9.0 §5.1.4 global state space) ----
 *
 * Device memory is one arena per context. A device address (ptxvm_devptr)
 * is a 64-bit number, what a kernel's .u64 pointer parameter receives: the
 * host address of its bytes (unified addressing, as CUDA's), so the arenas
 * of two contexts never overlap. Host code cannot dereference a buffer of
 * ptxvm_mem_alloc (it faults, as a cudaMalloc buffer does; only where the
 * host cannot map the arena twice can it, see docs/ARCHITECTURE.md); it
 * reaches it through the copies below or ptxvm_mem_host_ptr. Managed
 * memory (ptxvm_mem_alloc_managed), host memory of ptxvm_mem_alloc_host
 * and host memory registered with ptxvm_mem_register are used by the host
 * and by kernels with the same pointer. Allocations are zeroed and 256-byte
 * aligned, and 256 unaddressable bytes follow each, so small overruns
 * fault (or, with ptxvm_set_alloc_padding, overruns within the 256-byte
 * alignment do not, as on a GPU, and the checker reports them). The first context of a process to need device memory gets its
 * arena at 0x7a0000000000 when that range is free (reproducible
 * addresses), the others wherever the host places them.
 * The context's device memory has a size (ptxvm_set_device_memory): by
 * default 3/4 of the memory the host can give when the context first needs
 * it (Linux's MemAvailable, less if the process's cgroup allows less), at
 * most 64 GiB; the environment variable PTXVM_DEVICE_MEMORY (a SIZE: bytes,
 * or a number followed by K, M or G) replaces that default. An allocation
 * beyond it is PTXVM_ERROR_OUT_OF_DEVICE_MEMORY, so a program allocating
 * until it fails gets the error rather than the host's OOM killer. Fresh
 * memory costs the host nothing until a kernel or copy writes it (pages
 * never used are zero and are not written to clear them), and freed memory
 * is given back to the host.
 * Copies and sets must lie inside one live allocation (of any kind). */

typedef uint64_t ptxvm_devptr;

/* What an allocation is (ptxvm_mem_query). */
typedef enum ptxvm_mem_kind {
  PTXVM_MEM_DEVICE = 1,      /* ptxvm_mem_alloc, module variables: kernels only */
  PTXVM_MEM_MANAGED = 2,     /* ptxvm_mem_alloc_managed, .attribute(.managed)
                                module variables: host and kernels */
  PTXVM_MEM_HOST = 3,        /* ptxvm_mem_alloc_host: host memory kernels reach */
  PTXVM_MEM_REGISTERED = 4,  /* ptxvm_mem_register: the caller's host memory */
} ptxvm_mem_kind;

/* One allocation, as ptxvm_mem_query describes it. */
typedef struct ptxvm_mem_range {
  ptxvm_devptr base;         /* its first byte */
  size_t size;               /* bytes requested */
  ptxvm_mem_kind kind;
  int readonly;              /* kernels may not write it (.const, a read-only registration) */
  uint64_t id;               /* unique in the process, never reused */
  unsigned user;             /* the caller's value (ptxvm_mem_set_user), 0 at first */
} ptxvm_mem_range;

/* Sets the size of ctx's device memory in bytes (the CLI's
 * --device-memory): what its allocations, each with its alignment and
 * 256-byte guard, and the modules' .global and .const variables may take
 * in all. 0 selects the default (above). Takes effect at once; a size
 * larger than the address space reserved at the context's first allocation
 * or launch must be set before those. A size larger than the host's memory
 * is allowed: it is the caller's choice.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx NULL; larger than the reservation;
 *           PTXVM_DEVICE_MEMORY is not a SIZE). */
ptxvm_status ptxvm_set_device_memory(ptxvm_context *ctx, size_t bytes);

/* Device memory of ctx, in bytes (as cuMemGetInfo): *total_bytes its size,
 * *free_bytes what its live allocations leave (a single allocation of that size
 * may still fail when free memory is in pieces).
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL argument; a bad
 *           PTXVM_DEVICE_MEMORY), PTXVM_ERROR_OUT_OF_MEMORY. */
ptxvm_status ptxvm_mem_get_info(ptxvm_context *ctx, size_t *free_bytes, size_t *total_bytes);

/* The padding of ptxvm_set_alloc_padding, in bytes: every allocation is
 * 256-byte aligned (as CUDA guarantees for cudaMalloc), so on a GPU the
 * bytes up to the next multiple of 256 belong to no other allocation and
 * an access there does not fault. */
#define PTXVM_ALLOC_PADDING 256

/* Chooses what a kernel's access just past the end of a buffer does, for
 * the ptxvm_mem_alloc and ptxvm_mem_alloc_managed allocations of ctx made
 * after the call. off (0, the default, the CLI's): an access past the
 * requested size faults (PTXVM_FAULT_ADDRESS). on (nonzero, what ptxvm's
 * CUDA driver sets, as a GPU behaves): kernels may also read and write the
 * bytes from the requested size up to the next multiple of
 * PTXVM_ALLOC_PADDING (zero at first; an allocation of 0 bytes has 256),
 * and under ptxvm_set_check each such access is a finding ("runs past the
 * end of the N-byte allocation ... into its padding"); an access beyond
 * the padding faults as before. Copies, sets and ptxvm_mem_query still use
 * the requested size. Module variables are never padded.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx is NULL). */
ptxvm_status ptxvm_set_alloc_padding(ptxvm_context *ctx, int on);

/* Allocates `bytes` bytes (0 is allowed and gives a distinct address) and
 * stores the device address in *out.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx or out NULL; a bad
 *           PTXVM_DEVICE_MEMORY),
 *         PTXVM_ERROR_OUT_OF_DEVICE_MEMORY (the device memory is full: the
 *           message gives its size and what is in use),
 *         PTXVM_ERROR_OUT_OF_MEMORY (the host refused the arena). */
ptxvm_status ptxvm_mem_alloc(ptxvm_context *ctx, size_t bytes, ptxvm_devptr *out);

/* Frees the allocation that starts at `ptr` (of ptxvm_mem_alloc,
 * ptxvm_mem_alloc_managed or ptxvm_mem_alloc_host; a registration ends with
 * ptxvm_mem_unregister). 0 is accepted and ignored.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx NULL),
 *         PTXVM_ERROR_INVALID_ADDRESS (ptr starts no live allocation of
 *         those three: a module's variable is freed with its module). */
ptxvm_status ptxvm_mem_free(ptxvm_context *ctx, ptxvm_devptr ptr);

/* The checker's uninitialized reads (ptxvm_set_check, issue 17): with
 * checking on, every byte of the ptxvm_mem_alloc allocation starting at
 * `ptr` counts as never written (its bytes still read zero) until a host
 * copy or set (ptxvm_memcpy_htod/dtod, ptxvm_memset_*; any range handed
 * out by ptxvm_mem_host_ptr, which the caller may write) or a kernel's
 * store, atomic, reduction or asynchronous-copy landing writes it; a
 * kernel's load (ld, ldu, ldmatrix) that reads a never-written byte is an
 * "uninitialized" finding. A copy of such bytes (dtod, cp.async's source)
 * is not a finding, and its destination counts as written. Other memory
 * (allocations made before checking was on or not marked, managed, host
 * and registered memory, module variables) counts as written. With
 * checking off, does nothing. The CLI's TYPE[N]:undef buffers and the CUDA
 * driver's cuMemAlloc memory are marked so.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx NULL),
 *         PTXVM_ERROR_INVALID_ADDRESS (ptr does not start a ptxvm_mem_alloc
 *           allocation), PTXVM_ERROR_OUT_OF_MEMORY (no host memory for the
 *           bitmap, one bit per byte). */
ptxvm_status ptxvm_mem_set_uninitialized(ptxvm_context *ctx, ptxvm_devptr ptr);

/* Size in bytes of the allocation that starts at `ptr`, in *out.
 * Errors: PTXVM_ERROR_INVALID_VALUE (NULL argument),
 *         PTXVM_ERROR_INVALID_ADDRESS (ptr starts no live allocation). */
ptxvm_status ptxvm_mem_size(ptxvm_context *ctx, ptxvm_devptr ptr, size_t *out);

/* The live allocation that contains device address `ptr`: its start in
 * *base and size in *size (either may be NULL); a zero-size allocation
 * contains only its start.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx NULL),
 *         PTXVM_ERROR_INVALID_HANDLE, PTXVM_ERROR_CONTEXT_BUSY,
 *         PTXVM_ERROR_INVALID_ADDRESS (ptr is in no live allocation). */
ptxvm_status ptxvm_mem_get_range(ptxvm_context *ctx, ptxvm_devptr ptr, ptxvm_devptr *base,
                                 size_t *size);

/* Copies `bytes` bytes host -> device, device -> host, device -> device
 * (ranges may overlap for dtod). Errors: PTXVM_ERROR_INVALID_VALUE (ctx or a
 * host pointer NULL with bytes > 0), PTXVM_ERROR_INVALID_ADDRESS (a device
 * range not inside one live allocation). */
ptxvm_status ptxvm_memcpy_htod(ptxvm_context *ctx, ptxvm_devptr dst, const void *src, size_t bytes);
ptxvm_status ptxvm_memcpy_dtoh(ptxvm_context *ctx, void *dst, ptxvm_devptr src, size_t bytes);
ptxvm_status ptxvm_memcpy_dtod(ptxvm_context *ctx, ptxvm_devptr dst, ptxvm_devptr src, size_t bytes);

/* Sets `count` elements of 1 byte (d8) or of 4 bytes (d32, dst 4-aligned)
 * to `value`. Errors: PTXVM_ERROR_INVALID_VALUE (ctx NULL, or d32 with a
 * misaligned dst), PTXVM_ERROR_INVALID_ADDRESS (range outside an allocation). */
ptxvm_status ptxvm_memset_d8(ptxvm_context *ctx, ptxvm_devptr dst, uint8_t value, size_t count);
ptxvm_status ptxvm_memset_d32(ptxvm_context *ctx, ptxvm_devptr dst, uint32_t value, size_t count);

/* Allocates `bytes` bytes of managed memory (0 allowed), page-aligned,
 * zeroed: device memory (counted in the context's size) that host code may
 * also read and write at the address stored in *out. Freed by
 * ptxvm_mem_free. Errors: as ptxvm_mem_alloc. */
ptxvm_status ptxvm_mem_alloc_managed(ptxvm_context *ctx, size_t bytes, ptxvm_devptr *out);

/* Allocates `bytes` bytes of zeroed host memory (whole pages, not counted
 * in the device's size) that ctx's kernels may read and write at the same
 * address, stored in *out; freed by ptxvm_mem_free or with the context.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx or out NULL),
 *         PTXVM_ERROR_OUT_OF_MEMORY (the host has none). */
ptxvm_status ptxvm_mem_alloc_host(ptxvm_context *ctx, size_t bytes, void **out);

/* Makes the caller's host memory [p, p + bytes) an allocation of ctx that
 * its kernels may access at the same addresses (read only when
 * `readonly`), until ptxvm_mem_unregister or the context's end. The memory
 * stays the caller's: it must stay mapped while registered (a kernel
 * touching memory unmapped meanwhile crashes the process, as the GPU's
 * behaviour is undefined there).
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx or p NULL, bytes 0, the range
 *           wraps, is not mapped readable (and writable unless readonly)
 *           by the host, or lies in ptxvm's shared, local or param window),
 *         PTXVM_ERROR_INVALID_ADDRESS (it overlaps an allocation of ctx),
 *         PTXVM_ERROR_OUT_OF_MEMORY. */
ptxvm_status ptxvm_mem_register(ptxvm_context *ctx, void *p, size_t bytes, int readonly);

/* Ends the registration that starts at p.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx NULL),
 *         PTXVM_ERROR_INVALID_ADDRESS (no registered range starts at p). */
ptxvm_status ptxvm_mem_unregister(ptxvm_context *ctx, void *p);

/* The allocation of ctx (of any kind) whose bytes hold `ptr`, in *out; a
 * zero-size allocation holds its start. Costs a binary search; no error
 * text is recorded when there is none (ptxvm_last_error keeps the last).
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx or out NULL),
 *         PTXVM_ERROR_NOT_FOUND (ptr is in no allocation of ctx). */
ptxvm_status ptxvm_mem_query(ptxvm_context *ctx, ptxvm_devptr ptr, ptxvm_mem_range *out);

/* Sets the caller's value of the allocation that starts at ptr
 * (ptxvm_mem_range.user), for its own bookkeeping.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx NULL),
 *         PTXVM_ERROR_INVALID_ADDRESS (ptr starts no allocation). */
ptxvm_status ptxvm_mem_set_user(ptxvm_context *ctx, ptxvm_devptr ptr, unsigned user);

/* A host pointer (*host) through which the host reads and writes the bytes
 * [ptr, ptr + bytes) of one allocation of ctx, as kernels see them: for a
 * device buffer a second mapping of its memory, for the other kinds ptr
 * itself. Valid until the allocation is freed.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx or host NULL),
 *         PTXVM_ERROR_INVALID_ADDRESS (the range is not inside one allocation). */
ptxvm_status ptxvm_mem_host_ptr(ptxvm_context *ctx, ptxvm_devptr ptr, size_t bytes, void **host);

/* ---- module variables (PTX ISA 9.0 §5.4.4 initializers) ---- */

/* The device address (*addr) and size in bytes (*size; either may be NULL)
 * of the module-scope .global or .const variable `name` (§5.1.4, §5.1.3),
 * as kernels of the module see it; prepares the module first
 * (ptxvm_module_prepare: its variables are placed, initialised, before any
 * launch). The host may read and write it with the memcpy
 * calls below (a .attribute(.managed) one, in managed memory, also at its
 * address: ptxvm_mem_query says PTXVM_MEM_MANAGED); .const stays read-only
 * to kernels. Valid until the module is
 * unloaded.
 * Errors: PTXVM_ERROR_INVALID_VALUE (mod or name NULL; a bad
 *         PTXVM_DEVICE_MEMORY), PTXVM_ERROR_INVALID_HANDLE,
 *         PTXVM_ERROR_CONTEXT_BUSY, PTXVM_ERROR_NOT_SUPPORTED (the module as
 *         a whole cannot run: ptxvm_module_unsupported), PTXVM_ERROR_OUT_OF_MEMORY,
 *         PTXVM_ERROR_NOT_FOUND (no .global/.const variable of
 *         that name at module scope; .shared, .local and declarations
 *         without storage have no device address). */
ptxvm_status ptxvm_module_get_global(ptxvm_module *mod, const char *name, ptxvm_devptr *addr,
                                     size_t *size);

/* The static shared memory of kernel `fn` in bytes (*bytes): where its
 * dynamic shared memory (extern .shared arrays) starts, as lowering lays out
 * the .shared variables it can reach (docs/ARCHITECTURE.md "Shared memory
 * per kernel"); prepares the module first (ptxvm_module_prepare; also
 * for a kernel that cannot be launched).
 * Errors: those of ptxvm_module_get_global, and PTXVM_ERROR_INVALID_VALUE
 *         (fn not an .entry with a body). */
ptxvm_status ptxvm_function_static_shared(ptxvm_function *fn, size_t *bytes);

/* ---- launching kernels (PTX ISA 9.0 §5.1.6.1 kernel parameters, §11.4
 * performance-tuning directives, §2.2 thread hierarchy) ---- */

/* Runs kernel `fn` (an .entry with a body) over a grid of grid[0] x grid[1] x
 * grid[2] CTAs of block[0] x block[1] x block[2] threads, grouped in clusters
 * of cluster[0] x cluster[1] x cluster[2] CTAs (NULL means 1,1,1; it is a
 * cluster launch, %is_explicit_cluster true, when it has more than one CTA
 * or the kernel .explicitcluster or .reqnctapercluster), with
 * `dyn_shared_bytes` bytes of dynamic shared memory per CTA. `params` is
 * cuLaunchKernel-style: params[i] points to the value of parameter i, whose
 * size is the parameter's (ptxvm_function_get_param); it may be NULL when the
 * kernel takes none. Returns when the grid has finished: synchronous.
 * The first call for a kernel lowers it and the functions it can call
 * (ptxvm_module_prepare).
 * Errors: PTXVM_ERROR_INVALID_VALUE (fn, grid or block NULL; fn not an
 *           .entry with a body; params NULL while the kernel has some),
 *         PTXVM_ERROR_INVALID_CONFIG (dimensions, cluster shape, shared
 *           memory, or .reqntid/.maxntid/.reqnctapercluster violated; the
 *           message says which),
 *         PTXVM_ERROR_NOT_SUPPORTED (fn holds or can call an instruction
 *           ptxvm cannot run yet, as ptxvm_function_launchable says; the
 *           message gives its FILE:LINE:COL),
 *         PTXVM_ERROR_LAUNCH_FAILED (a fault: trap, invalid or misaligned
 *           address, ...; the message names the instruction's FILE:LINE:COL,
 *           the kernel, %ctaid and %tid),
 *         PTXVM_ERROR_DEADLOCK (no thread could progress; the message says
 *           which warps wait on what; a "livelock" message: every thread
 *           left spins forever, and it names each spin loop),
 *         PTXVM_ERROR_HAZARD (checking on, ptxvm_set_check: the kernel ran
 *           to completion and the checker found something; the message
 *           lists the findings),
 *         PTXVM_ERROR_CANCELLED (ptxvm_cancel, from another thread or a
 *           signal handler, stopped it),
 *         PTXVM_ERROR_OUT_OF_MEMORY, PTXVM_ERROR_OUT_OF_DEVICE_MEMORY.
 * After a fault, device memory holds whatever the kernel wrote before it. */
ptxvm_status ptxvm_launch(ptxvm_function *fn, const unsigned grid[3], const unsigned block[3],
                          const unsigned cluster[3], unsigned dyn_shared_bytes, void **params);

/* The device ptxvm models, an sm_90 (NVIDIA H100/H200 SXM; CUDA C++
 * Programming Guide, "Features and Technical Specifications", compute
 * capability 9.0): what bounds CTAs resident at once (the occupancy model
 * below, cooperative launches) and cluster sizes. The CUDA driver's device
 * attributes are these same numbers. */
#define PTXVM_DEVICE_SMS 132                    /* streaming multiprocessors */
#define PTXVM_DEVICE_THREADS_PER_SM 2048
#define PTXVM_DEVICE_CTAS_PER_SM 32
#define PTXVM_DEVICE_REGS_PER_SM 65536          /* 32-bit registers, in 4 partitions */
#define PTXVM_DEVICE_REGS_PER_CTA 65536
#define PTXVM_DEVICE_SHARED_PER_SM 233472       /* bytes: 228 KiB */
#define PTXVM_DEVICE_SHARED_PER_CTA 232448      /* bytes: 227 KiB, static + dynamic */
#define PTXVM_DEVICE_SHARED_RESERVED_PER_CTA 1024  /* bytes the GPU keeps per CTA */
#define PTXVM_DEVICE_CLUSTER_PORTABLE 8         /* CTAs per cluster, portable */
#define PTXVM_DEVICE_CLUSTER_MAX 16             /* CTAs per cluster, non-portable */

/* The options of ptxvm_launch_ex. Zero-initialise it ({0}): every field's
 * zero is the plain launch's behaviour. */
typedef struct ptxvm_launch_options {
  unsigned cluster[3];       /* CTAs per cluster; 0,0,0: the kernel's
                                .reqnctapercluster, else 1,1,1 (a kernel with
                                .explicitcluster and neither is refused). A
                                shape given here, 1,1,1 included, makes a
                                cluster launch: %is_explicit_cluster is true
                                (as for a kernel with either directive) */
  unsigned dyn_shared_bytes; /* dynamic shared memory per CTA */
  int cluster_nonportable;   /* nonzero: clusters of up to
                                PTXVM_DEVICE_CLUSTER_MAX CTAs (else
                                PTXVM_DEVICE_CLUSTER_PORTABLE, or the kernel's
                                .maxclusterrank) */
  int cooperative;           /* nonzero: a cooperative launch (below) */
  uint32_t envreg[32];       /* the values of %envreg0..%envreg31 (0: what
                                a plain launch reads) */
} ptxvm_launch_options;

/* As ptxvm_launch, with options (NULL: all zero). A cooperative launch
 * keeps every CTA of the grid resident at once, each host thread running
 * its share in turns, so CTAs may wait for each other (a grid-wide
 * barrier); the grid may hold at most as many clusters as the device
 * model holds at once (ptxvm_function_occupancy's `clusters`). It also provides what
 * cooperative_groups::this_grid() reads (the CUDA toolkit's
 * cooperative_groups/details/driver_abi.h): %envreg1 (high 32 bits) and
 * %envreg2 (low 32 bits) hold the device address of a grid workspace, 8
 * zeroed bytes of device memory, { u32 size (8), u32 barrier }, that lives
 * as long as the launch (these two replace envreg[1] and envreg[2]). A
 * plain launch gives no workspace (%envreg1, %envreg2 read their envreg
 * values, 0 by default), so grid_group::sync() there traps, as its
 * is_valid() check makes it.
 * Errors: those of ptxvm_launch, and PTXVM_ERROR_INVALID_CONFIG (an
 *           .explicitcluster kernel without a cluster shape; a cluster
 *           beyond the limit above; a cooperative grid larger than the
 *           device holds: the message gives both counts). */
ptxvm_status ptxvm_launch_ex(ptxvm_function *fn, const unsigned grid[3], const unsigned block[3],
                             const ptxvm_launch_options *options, void **params);

/* What kernel fn needs of the device, as the CUDA driver's function
 * attributes report it. PTX allocates no registers: ptxvm assumes 32 per
 * thread (the most at which 2048 threads fill an SM's 65536 registers, so
 * registers never bound occupancy), or .maxnreg when that is lower. */
typedef struct ptxvm_function_resources {
  uint64_t shared_bytes;     /* static shared memory: the end of the last
                                static .shared variable it reaches, as
                                CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES reports
                                it (ptxvm_function_static_shared, where the
                                dynamic area starts, is that aligned up to
                                16 or the extern arrays' alignment) */
  uint64_t const_bytes;      /* the module's .const variables, laid out at
                                their alignments */
  uint64_t local_bytes;      /* per thread: the .local variables at module
                                scope and of the kernel (not the frames of
                                the .func it calls: its stack) */
  unsigned regs_per_thread;  /* the assumption above */
  unsigned max_threads;      /* threads per CTA it can launch with: 1024,
                                or fewer by .maxntid/.reqntid or registers */
  unsigned ptx_version;      /* the module's .version, major*10 + minor */
  unsigned target;           /* its .target sm_XY: XY (90 for sm_90a too) */
} ptxvm_function_resources;

/* Fills *out for kernel fn; prepares the module as ptxvm_function_static_shared.
 * Errors: those of ptxvm_function_static_shared. */
ptxvm_status ptxvm_function_get_resources(ptxvm_function *fn, ptxvm_function_resources *out);

/* The occupancy model of the device above, for kernel fn in CTAs of
 * `threads` threads with `dyn_shared_bytes` of dynamic shared memory each,
 * in clusters of `cluster_ctas` CTAs (0 is taken as 1). */
typedef struct ptxvm_occupancy {
  unsigned ctas_per_sm;      /* CTAs one SM holds at once: the least of
                                PTXVM_DEVICE_CTAS_PER_SM, the warps that fit
                                in 2048 threads, the registers
                                (regs_per_thread x 32 per warp, allocated in
                                units of 256, in 4 partitions of 16384) and the
                                shared memory (static + dynamic + 1 KiB
                                reserved, in units of 128 bytes, out of 228
                                KiB); 0 when such a CTA cannot launch (more
                                threads than max_threads, or more shared
                                memory than 227 KiB) */
  unsigned clusters;         /* clusters the whole device holds at once:
                                PTXVM_DEVICE_SMS x ctas_per_sm / cluster_ctas
                                (the model has no GPC boundaries: a cluster
                                may take CTA slots of any SMs, so a GPU may
                                hold fewer) */
} ptxvm_occupancy;

/* Fills *out (above). A cooperative launch may have at most `clusters`
 * clusters (ptxvm_launch_ex).
 * Errors: those of ptxvm_function_static_shared, and
 *         PTXVM_ERROR_INVALID_VALUE (out NULL, threads 0). */
ptxvm_status ptxvm_function_occupancy(ptxvm_function *fn, unsigned threads, size_t dyn_shared_bytes,
                                      unsigned cluster_ctas, ptxvm_occupancy *out);

/* What the fault was when the last ptxvm_launch of ctx returned
 * PTXVM_ERROR_LAUNCH_FAILED (the fault ptxvm_last_error describes), for a
 * driver that maps faults to its own codes (CUDA_ERROR_ILLEGAL_ADDRESS ...);
 * PTXVM_FAULT_NONE after any other outcome, before the first launch, and
 * for ctx NULL or not a live context. Like ptxvm_last_error, it records
 * nothing and may be called while another call on ctx is in progress. */
typedef enum ptxvm_fault {
  PTXVM_FAULT_NONE,
  PTXVM_FAULT_ADDRESS,     /* an address its state space does not hold, or
                              a write where writes are refused (.const,
                              kernel parameters) (§5.1) */
  PTXVM_FAULT_MISALIGNED,  /* an access not naturally aligned (§5.4.5) */
  PTXVM_FAULT_TRAP,        /* trap, brkpt (§9.7.19) */
  PTXVM_FAULT_ASSERT,      /* a failed device assertion (__assert_fail) */
  PTXVM_FAULT_OTHER        /* any other fault; a runaway (the watchdog) */
} ptxvm_fault;
ptxvm_fault ptxvm_launch_fault(const ptxvm_context *ctx);

/* After a launch of ctx that failed with PTXVM_FAULT_ASSERT: the lines a GPU
 * prints on stderr for the failed assertion, one per thread of the warp
 * that failed it first, each ending in '\n':
 *   FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z] Assertion `COND` failed.
 * (the launch stops at that warp, so threads of other warps that would also
 * fail print nothing). NULL after any other outcome and for ctx NULL or not
 * a live context. The text stays valid until ctx's next launch or its
 * destruction; like ptxvm_launch_fault, this may be called while another
 * call on ctx is in progress. */
const char *ptxvm_launch_assertion(const ptxvm_context *ctx);

/* Instrumentation: what the last ptxvm_launch of ctx executed (also after a
 * fault; zero before the first launch). A warp-instruction is one
 * instruction issued for a lane group, guard-false ones included; its
 * thread-instructions are the lanes that execute it (the popcount of the
 * group's mask with the guard applied). Per family: the opcode families of
 * the library (PTXVM_STATS_FAMILIES of them), named by ptxvm_stats_family_name. Barrier
 * completions: bar/barrier (CTA), the warp rendezvous of the .sync
 * collectives (bar.warp.sync, shfl.sync, ...), barrier.cluster phases, and
 * mbarrier phase completions. A split is a divergent branch; a merge is a
 * lane group rejoining another at the same pc. The counts do not depend on
 * the number of host threads (ptxvm_set_jobs). Peak memory is the process's
 * (getrusage ru_maxrss). */
#define PTXVM_STATS_FAMILIES 18
typedef struct ptxvm_stats {
  uint64_t warp_insns, thread_insns;                  /* totals */
  uint64_t family_warp_insns[PTXVM_STATS_FAMILIES];
  uint64_t family_thread_insns[PTXVM_STATS_FAMILIES];
  uint64_t bar_cta, warp_sync, bar_cluster;           /* barrier completions */
  uint64_t mbar_phases;                               /* mbarrier phase completions */
  uint64_t splits, merges;                            /* lane groups */
  double wall_s;                                      /* the launch's wall time */
  double thread_insns_per_s;                          /* thread_insns / wall_s */
  uint64_t peak_rss_kb;                               /* process peak, KiB */
  /* device printf output dropped (ptxvm_set_printf_buffer): calls, their
     bytes, the clusters that lost some, and the %clusterid (%ctaid without
     clusters) of the lowest such cluster; zero when nothing was lost */
  uint64_t printf_lost_calls, printf_lost_bytes, printf_lost_clusters;
  unsigned printf_lost_first[3];
} ptxvm_stats;

/* Fills *out with the statistics of ctx's last launch. On success the
 * last launch's message (ptxvm_last_error) stays.
 * Errors: PTXVM_ERROR_INVALID_VALUE (ctx or out is NULL). */
ptxvm_status ptxvm_launch_stats(ptxvm_context *ctx, ptxvm_stats *out);
/* The name of family i (0 <= i < PTXVM_STATS_FAMILIES: "INT", "FLOAT",
 * ...); NULL otherwise. */
const char *ptxvm_stats_family_name(int i);

/* ---- tensor maps (PTX ISA 9.0 §5.5.8 "Tensor Map"; cp.async.bulk.tensor) ----
 * A tensor map is a 128-byte, 64-byte-aligned object that describes a tile
 * of a tensor in global memory: what cp.async.bulk.tensor's tensorMap
 * operand names, and what a kernel parameter `.param .align 64 .b8 tm[128]`
 * (a __grid_constant__ CUtensorMap) holds. Its bytes are ptxvm's own
 * layout, not a GPU's: make them with these calls (or the
 * driver's cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col, which call
 * them), never by hand.
 *
 * ptxvm_tensor_map_encode encodes a .tile map into map (128 bytes, 64-byte
 * aligned). The arguments are cuTensorMapEncodeTiled's, with the values of
 * cuda.h's enums: dtype CUtensorMapDataType (0 u8 ... 9 bf16 ... 15), rank
 * 1..5, global_address a device address (16-byte aligned), global_dim[rank]
 * (elements, each 1..2^32, dimension 0 innermost), global_strides[rank-1]
 * (bytes of dimensions 1.., multiples of 16 below 2^40), box_dim[rank]
 * (elements, 1..256; without interleave box_dim[0] times the element size
 * a multiple of 16 and, with a swizzle, at most its span),
 * element_strides[rank] (1..8; element_strides[0] is ignored without
 * interleave), interleave CUtensorMapInterleave (16B: NC/8HWC8, 32B:
 * NC/16HWC16, described as their own tensor, dimension 0 the channels of
 * one 16- or 32-byte slice, then W, H, .., C/slice, N; rank 3..5; with
 * 32B a 32-byte aligned global_address and strides and the 32B swizzle;
 * not with the 16U6_ALIGN16B type), swizzle CUtensorMapSwizzle, l2_promotion
 * CUtensorMapL2promotion (a hint), oob_fill CUtensorMapFloatOOBfill (0
 * zeros; 1 NaN, floating-point types only) for elements outside the tensor.
 * Errors: PTXVM_ERROR_INVALID_VALUE (map, global_dim, box_dim or
 *           element_strides NULL, global_strides NULL with rank > 1, map not
 *           64-byte aligned, or any requirement above: ptxvm_last_error
 *           names it, on ctx when ctx is not NULL),
 *         PTXVM_ERROR_NOT_SUPPORTED (a valid map ptxvm does not execute:
 *           the packed types 16U4/16U6, an interleaved box whose
 *           dimension-0 row, ceil(box_dim[0] / element_strides[0])
 *           elements, is not a whole number of 16- or 32-byte slices,
 *           the 128B swizzles with 32B or 64B atoms). */
ptxvm_status ptxvm_tensor_map_encode(ptxvm_context *ctx, void *map, int dtype, unsigned rank,
                                     uint64_t global_address, const uint64_t *global_dim,
                                     const uint64_t *global_strides, const uint32_t *box_dim,
                                     const uint32_t *element_strides, int interleave, int swizzle,
                                     int l2_promotion, int oob_fill);
/* ptxvm_tensor_map_encode_im2col encodes an im2col map (cp.async.bulk.tensor
 * .im2col / .im2col_no_offs, PTX ISA 9.0 §5.5.4 "im2col mode"): the
 * arguments of cuTensorMapEncodeIm2col. rank 3, 4 or 5 (NWC, NHWC, NDHWC:
 * dimension 0 is C, 1.. W, H, D, the last N); global_dim, global_strides
 * and element_strides as for ptxvm_tensor_map_encode; lower_corner and
 * upper_corner[rank - 2] the bounding box of the filter bases in the
 * spatial dimensions (W first: element i is dimension i + 1), filter bases
 * lower .. dim - 1 + upper, each corner in [-32768, 32767] for rank 3,
 * [-128, 127] for 4, [-16, 15] for 5, the box of non-zero area;
 * channels_per_pixel 1..256 (times the element size at most the swizzle's
 * span), pixels_per_column 1..1024. A copy moves pixels_per_column rows
 * of channels_per_pixel elements.
 * Errors: PTXVM_ERROR_INVALID_VALUE (a NULL pointer, map not 64-byte
 *           aligned, or any requirement above: ptxvm_last_error names it),
 *         PTXVM_ERROR_NOT_SUPPORTED (as for ptxvm_tensor_map_encode, any
 *           interleave but none (the ISA does not say how the im2col walk
 *           reads an interleaved tensor), and a box, pixels times
 *           channels, not a multiple of 16 bytes). */
ptxvm_status ptxvm_tensor_map_encode_im2col(ptxvm_context *ctx, void *map, int dtype, unsigned rank,
                                            uint64_t global_address, const uint64_t *global_dim,
                                            const uint64_t *global_strides, const int *lower_corner,
                                            const int *upper_corner, uint32_t channels_per_pixel,
                                            uint32_t pixels_per_column, const uint32_t *element_strides,
                                            int interleave, int swizzle, int l2_promotion, int oob_fill);
/* Replaces the global address of the map that ptxvm_tensor_map_encode made
 * (cuTensorMapReplaceAddress).
 * Errors: PTXVM_ERROR_INVALID_VALUE (map NULL or not 64-byte aligned, not
 *         a tensor map, global_address not 16-byte aligned). */
ptxvm_status ptxvm_tensor_map_replace_address(ptxvm_context *ctx, void *map, uint64_t global_address);

/* ---- the narrow floating-point formats (PTX ISA 9.0 §5.2.5) ----
 * The conversions the interpreter performs (cvt), for hosts that make or
 * read f16, bf16 and fp8 data (ptxvm run's buffers of those types use them). */
typedef enum ptxvm_float_format {
  PTXVM_FLOAT_F16 = 0,    /* IEEE 754 binary16: sign, 5 exponent, 10 fraction bits */
  PTXVM_FLOAT_BF16 = 1,   /* bfloat16: sign, 8, 7 (the upper half of an f32) */
  PTXVM_FLOAT_E4M3 = 2,   /* .e4m3: sign, 4, 3, bias 7; no infinity, only S.1111.111 is NaN */
  PTXVM_FLOAT_E5M2 = 3    /* .e5m2: sign, 5, 2, bias 15, with infinities and NaNs as IEEE */
} ptxvm_float_format;

/* The encoding of x in fmt (in the low 16 or 8 bits), rounded to nearest,
 * ties to even, from x itself (one rounding), as cvt.rn: past the largest
 * finite value infinity, for e4m3 NaN; with satfinite nonzero as
 * cvt.rn.satfinite, the largest finite value of x's sign instead (the one
 * conversion the ISA has to e4m3 and e5m2). A NaN gives the format's NaN
 * with every fraction bit set (0x7fff, 0x7f). A format outside the enum
 * gives 0. No errors; thread-safe. */
uint32_t ptxvm_float_encode(ptxvm_float_format fmt, double x, int satfinite);
/* The value of bits (the low 16 or 8) in fmt, exactly (a double holds
 * every value of these formats); a NaN keeps its sign. A format outside the
 * enum gives a NaN. No errors; thread-safe. */
double ptxvm_float_decode(ptxvm_float_format fmt, uint32_t bits);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
