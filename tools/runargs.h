/* runargs.h: what `ptxvm run` and `gpurun` share (shared/CLI.md "ptxvm run"):
 * the options, the argument specs (TYPE:VALUE, TYPE[N]:INIT), the choice of
 * kernel and launch shape, and the dump format. Each tool supplies only the
 * device it runs on: ptxvm's library, or the CUDA driver (tools/gpurun.c). */
#ifndef PTXVM_RUNARGS_H
#define PTXVM_RUNARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ptxvm.h"

enum { EXIT_OK = 0, EXIT_FAULT = 1, EXIT_INPUT = 2 };

typedef struct ArgType {
  const char *name;
  unsigned size;     /* bytes */
  char kind;         /* 'u', 's', 'b', 'f' */
  char fmt;          /* the small floats: 'h' f16, 'B' bf16, '4' e4m3, '5' e5m2; else 0 */
} ArgType;

/* How a buffer's elements are made (TYPE[N]:INIT). */
typedef enum { INIT_ZERO, INIT_IOTA, INIT_FILL, INIT_RAND, INIT_LIST, INIT_FILE,
               INIT_UNDEF /* allocated, never written: --check reports a load of it */ } ArgInit;

/* A struct argument's field that holds a buffer's device address: the
 * 8 bytes at `offset` get the address of buffer argument `buf`. */
typedef struct Fixup { size_t offset; int buf; } Fixup;

typedef struct Arg {
  const char *spec;
  char *own_spec;         /* an inline buffer's spec, cut out of its struct's (freed) */
  const ArgType *t;
  bool is_buf;
  bool by_value;          /* TYPE[N]:INIT for an array parameter: its bytes, not a buffer */
  uint64_t bits;          /* scalar value, or the buffer's device address */
  size_t n;               /* buffer elements */
  ArgInit init;
  uint64_t v;             /* fill=V: V's bits; rand=SEED: SEED */
  const char *path;       /* @PATH */
  uint8_t *data;          /* INIT_LIST: the elements (also a by-value argument's bytes) */
  bool is_struct;         /* {FIELD, ...}: by_value, n bytes of t (u8) laid out from fields */
  unsigned align;         /* a struct's alignment: its widest field's */
  Fixup *fix; int nfix;   /* a struct's address fields */
  struct TmapSpec *tmap;  /* tensormap:...: the map's fields (its bytes, 128 in
                             data, are encoded by run_bind with buffer's address) */
} Arg;

/* A tensormap:... argument (tools/tmaparg.c; docs/cli.md "Tensor maps"):
 * cuTensorMapEncodeTiled's fields, or with im2col cuTensorMapEncodeIm2col's,
 * the values of cuda.h's enums. */
typedef struct TmapSpec {
  int dtype, buf;                 /* buf: the buffer whose address the map holds */
  unsigned rank;
  uint64_t dim[5], stride[4];     /* stride: bytes of dimensions 1.. */
  uint32_t box[5], estride[5];
  int swizzle, oobfill, interleave;   /* interleave: CUtensorMapInterleave's value */
  bool im2col;                    /* lower=, upper=, channels=, pixels= given */
  int lower[3], upper[3];         /* the bounding box's corners (W, H, D) */
  uint32_t cpp, ppc;              /* channels per pixel, pixels per column */
} TmapSpec;

/* The device a tool runs on, as the buffers see it: copies of `bytes`
 * bytes to and from device address addr; each returns 0 on success. */
typedef struct RunDevice {
  int (*htod)(void *u, uint64_t addr, const void *src, size_t bytes);
  int (*dtoh)(void *u, void *dst, uint64_t addr, size_t bytes);
  /* a buffer of `bytes` bytes (at least 1): NULL, or why not */
  const char *(*alloc)(void *u, size_t bytes, uint64_t *addr);
  void (*free)(void *u, uint64_t addr);
  bool zeroed;            /* alloc's memory reads zero: zero buffers need no copy */
  /* marks a buffer never written (INIT_UNDEF; NULL: nothing to do) */
  int (*undef)(void *u, uint64_t addr);
  /* Encodes tensor map s at out (128 bytes, 64-aligned) for global address
   * addr: NULL, or why not. NULL when the device has no tensor maps. */
  const char *(*tensor_map)(void *u, void *out, const TmapSpec *s, uint64_t addr);
  void *u;
} RunDevice;

typedef struct Dump { int arg; const char *path; } Dump;

typedef struct RunOpts {
  unsigned grid[3], block[3], cluster[3];
  bool has_block, has_cluster, quiet, check;
  const char *trace;        /* --trace FILE.json; NULL: none */
  uint64_t trace_max;       /* --trace-max N; 0: the default */
  bool stats;             /* --stats */
  bool cooperative;       /* --cooperative (ptxvm_launch_ex; cuLaunchCooperativeKernel) */
  unsigned shared;
  unsigned jobs;          /* -j N (0: the library's default, the CPUs) */
  uint64_t schedule;      /* --schedule SEED (0: warps in order) */
  bool has_schedule;
  unsigned schedules;     /* --schedules N: seeds 0..N-1, dumps compared (0: not given) */
  uint64_t max_steps;     /* --max-steps N (0: the library's default) */
  uint64_t async_delay;   /* --async-delay NS (UINT64_MAX: the library's default) */
  uint64_t device_memory; /* --device-memory SIZE (0: the library's default) */
  uint64_t printf_buffer; /* --printf-buffer SIZE (0: the default, 1 MiB) */
  const char **specs; int nspecs;
  int nargs;              /* Args: the nspecs parameters, then the inline buffers of
                             struct arguments, in the order they are written */
  Dump *dumps; int ndumps;
  const char *file, *kernel;
} RunOpts;

/* "PROG: message" on stderr (PROG is run_prog); returns EXIT_INPUT. */
extern const char *run_prog;
/* A dump found standard output failing and said so (run_dump). */
extern bool run_stdout_reported;
int run_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses argv (argv[0] is the subcommand) into *o and the -a specs into
 * *args (one Arg per spec); `usage` prints
 * --help. Returns EXIT_OK, or EXIT_INPUT after a message. Either way
 * run_end frees what it made. */
int run_begin(int argc, char **argv, RunOpts *o, Arg **args, void (*usage)(FILE *));
void run_end(RunOpts *o, Arg *args);
/* All of a stream, with one spare byte after its *len bytes (room for a
 * NUL); NULL when it cannot be read, or when it holds more than `max` bytes
 * (then *len > max; no more than max + 1 bytes are read). */
uint8_t *run_read_stream(FILE *f, size_t max, size_t *len);
/* The kernel `name` names (its .entry name, its demangled name or
 * signature, or a unique prefix of either; runargs.c "KERNEL"), or with
 * name NULL the module's only kernel; NULL after a message (listing the
 * candidates, when several). */
ptxvm_function *run_pick_kernel(ptxvm_module *mod, const char *name);
/* How many kernels of mod `name` names that way (all kernels: NULL);
 * prints nothing. */
int run_count_kernels(ptxvm_module *mod, const char *name);
/* The CTA and cluster shape: -b/-c, else .reqntid/.reqnctapercluster. */
void run_launch_shape(ptxvm_function *fn, const RunOpts *o, unsigned block[3], unsigned cluster[3]);
/* Checks the args against fn's parameters and the dumps against the args;
 * marks array parameters by_value. Buffers still need a device address. */
int run_check_args(ptxvm_function *fn, const RunOpts *o, Arg *args);
/* ---- the pieces of an argument spec (runargs.c), for structarg.c ---- */
/* The type named by the len bytes at s; NULL if none. */
const ArgType *run_find_type(const char *s, size_t len);
/* An unsigned decimal or 0x hexadecimal number filling all of s. */
bool run_parse_u64(const char *s, uint64_t *v);
/* The bits of VALUE as type t; false if it does not parse or fit. */
bool run_parse_value(const ArgType *t, const char *s, uint64_t *bits);
/* Why s is no value of small float t (out of range, e4m3 inf): a note to
 * append to the error, "" when there is none. */
const char *run_range_note(const ArgType *t, const char *s);
/* TYPE:VALUE or TYPE[N]:INIT as argument a; EXIT_OK or EXIT_INPUT after
 * a message. */
int run_parse_arg(Arg *a, const char *spec);
/* {FIELD, ...} as argument a (structarg.c): a by-value struct; each inline
 * buffer becomes args[*nargs] and increments *nargs. */
int run_parse_struct(Arg *a, const char *spec, Arg *args, int *nargs);
/* tensormap:TYPE,&N,dims=...,... as argument a (tmaparg.c): 128 bytes by
 * value, aligned 64. */
int run_parse_tensormap(Arg *a, const char *spec);

/* Allocates and fills every buffer (inline ones too), writes the struct
 * arguments' address fields, and points values[i] at parameter i's bytes. */
int run_bind(const RunOpts *o, Arg *args, const RunDevice *dev, void **values);
/* Frees the buffers run_bind allocated. */
void run_unbind(const RunOpts *o, Arg *args, const RunDevice *dev);
/* Writes the elements of a buffer to its device memory at a->bits, a piece
 * at a time. */
int run_upload(const Arg *a, const RunDevice *dev);
/* The first element where buffer a's contents at device addresses x and
 * y differ, in *first, and how many differ, in *count (0: none); the two
 * elements' bytes in ex and ey. Returns EXIT_OK, or EXIT_INPUT after a
 * message when a copy fails. */
int run_compare(const Arg *a, uint64_t x, uint64_t y, const RunDevice *dev, size_t *first, size_t *count,
                uint8_t ex[8], uint8_t ey[8]);
/* An element of type t as the dump prints it. */
void run_format_elem(const ArgType *t, const uint8_t *p, char *out, size_t size);
/* Prints the buffer's device contents (shared/CLI.md "Dump format"), or
 * writes its raw bytes to d->path, a piece at a time. */
int run_dump(const Arg *a, const Dump *d, const RunDevice *dev);

#endif
