/* ptxvm.c: the command line (shared CLI.md is the contract).
 *
 *   ptxvm run [OPTIONS] FILE.ptx [KERNEL]   launch one kernel, dump buffers
 *   ptxvm check FILE.ptx                    parse and validate; exit 0, or 2 with diagnostics
 *   ptxvm info FILE.ptx                     list functions, parameters and directives
 *
 * `run` turns each -a SPEC into a parameter value: a scalar's bits, or a
 * device buffer (allocated, initialised, its address passed), launches, and
 * prints the -o buffers. A TYPE[N]:INIT spec for an array parameter
 * (`.param .align A .b8 p[N]`, a by-value struct) supplies the parameter's
 * bytes instead; N elements of TYPE must fill it exactly. Exit status: 0 ran,
 * 1 the kernel faulted, 2 the input was unusable (README "Command line"
 * defines rand=SEED and the array parameters). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxvm.h"

enum { EXIT_OK = 0, EXIT_FAULT = 1, EXIT_INPUT = 2 };

static void usage(FILE *f) {
  fputs("usage: ptxvm run [OPTIONS] FILE.ptx [KERNEL]\n"
        "       ptxvm check FILE.ptx\n"
        "       ptxvm info FILE.ptx\n"
        "FILE may be - for standard input.\n"
        "run options:\n"
        "  -g, --grid X[,Y[,Z]]     grid size in CTAs (1,1,1)\n"
        "  -b, --block X[,Y[,Z]]    CTA size in threads (.reqntid, else 1,1,1)\n"
        "  -c, --cluster X[,Y[,Z]]  cluster size in CTAs (.reqnctapercluster, else 1,1,1)\n"
        "  -s, --shared BYTES       dynamic shared memory per CTA (0)\n"
        "  -a, --arg SPEC           one kernel parameter, in order: TYPE:VALUE or\n"
        "                           TYPE[N]:{zero|iota|fill=V|rand=SEED|V0,V1,...|@PATH}\n"
        "                           (for an array parameter, e.g. a struct: its bytes)\n"
        "  -o, --dump N[=PATH]      print buffer argument N after the launch, or write\n"
        "                           its raw bytes to PATH\n"
        "  -j, --jobs N             host threads (number of CPUs)\n"
        "      --check              detect synchronization and memory hazards;\n"
        "                           findings go to stderr and make the exit status 1\n"
        "      --schedule SEED      warp order: 0 in order (default), else a\n"
        "                           pseudo-random order and quanta from SEED, which\n"
        "                           also varies the order of lane groups in a warp\n"
        "      --max-steps N        watchdog: warp-instructions per CTA before a\n"
        "                           runaway report, exit 1 (268435456 = 2^28)\n"
        "      --async-delay NS     virtual ns before an asynchronous copy lands\n"
        "                           (0: at issue; default $PTXVM_ASYNC_DELAY or 2000)\n"
        "      --stats              after the launch, print what it executed on stderr:\n"
        "                           warp- and thread-instructions (total, per family),\n"
        "                           barrier and mbarrier completions, lane-group splits\n"
        "                           and merges, wall time, rate, peak memory\n"
        "  -q, --quiet              print nothing but dumps and errors\n", f);
}

/* --stats: the block on stderr (ptxvm_launch_stats); nothing when no
 * launch ran. bench/run.py reads the "thread-instructions:" line. */
static void print_stats(ptxvm_context *ctx) {
  ptxvm_stats s;
  if (ptxvm_launch_stats(ctx, &s) != PTXVM_SUCCESS || s.wall_s <= 0) return;
  fprintf(stderr, "ptxvm stats:\n");
  fprintf(stderr, "  warp-instructions: %" PRIu64 "\n", s.warp_insns);
  fprintf(stderr, "  thread-instructions: %" PRIu64 "\n", s.thread_insns);
  for (int i = 0; i < PTXVM_STATS_FAMILIES; i++)
    if (s.family_warp_insns[i])
      fprintf(stderr, "  family %s: warp %" PRIu64 ", thread %" PRIu64 "\n", ptxvm_stats_family_name(i),
              s.family_warp_insns[i], s.family_thread_insns[i]);
  fprintf(stderr, "  barriers completed: cta %" PRIu64 ", warp-sync %" PRIu64 ", cluster %" PRIu64 "\n",
          s.bar_cta, s.warp_sync, s.bar_cluster);
  fprintf(stderr, "  mbarrier phases completed: %" PRIu64 "\n", s.mbar_phases);
  fprintf(stderr, "  lane groups: splits %" PRIu64 ", merges %" PRIu64 "\n", s.splits, s.merges);
  fprintf(stderr, "  wall time: %.6f s\n", s.wall_s);
  fprintf(stderr, "  thread-instructions per second: %.4g\n", s.thread_insns_per_s);
  fprintf(stderr, "  peak memory: %" PRIu64 " KiB\n", s.peak_rss_kb);
}

/* Device printf output goes to standard output as the kernel produces it. */
static void print_device(const char *text, size_t len, void *user) {
  (void)user;
  fwrite(text, 1, len, stdout);
  fflush(stdout);
}

/* Loads FILE into a fresh context; prints the diagnostic and returns NULL on
 * failure. */
static ptxvm_module *load(ptxvm_context **ctx, const char *path) {
  if (ptxvm_context_create(ctx) != PTXVM_SUCCESS) {
    fputs("ptxvm: out of memory\n", stderr);
    return NULL;
  }
  ptxvm_set_printf_callback(*ctx, print_device, NULL);
  ptxvm_module *mod;
  ptxvm_status st = ptxvm_module_load_file(*ctx, path, &mod);
  if (st != PTXVM_SUCCESS) {
    const char *msg = ptxvm_last_error(*ctx);
    fprintf(stderr, "%s%s", *msg ? msg : ptxvm_status_str(st),
            *msg && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
    return NULL;
  }
  return mod;
}

static int cmd_check(const char *path) {
  ptxvm_context *ctx = NULL;
  ptxvm_module *mod = load(&ctx, path);
  ptxvm_context_destroy(ctx);
  return mod ? EXIT_OK : EXIT_INPUT;
}

static void print_dims(const char *name, const unsigned d[3]) {
  if (d[0]) printf("  %s %u, %u, %u\n", name, d[0], d[1], d[2]);
}

static void print_param(const char *what, int i, const ptxvm_param_info *p) {
  printf("  %s %d: %s .%s .%s size %u align %u offset %u", what, i, p->name, p->space,
         p->type, p->size, p->align, p->offset);
  if (p->array_len) printf(" [%u]", p->array_len);
  if (p->ptr_space) printf(" .ptr .%s", p->ptr_space);
  if (p->ptr_align) printf(" .align %u", p->ptr_align);
  putchar('\n');
}

static int cmd_info(const char *path) {
  ptxvm_context *ctx = NULL;
  ptxvm_module *mod = load(&ctx, path);
  if (!mod) {
    ptxvm_context_destroy(ctx);
    return EXIT_INPUT;
  }
  for (int i = 0; i < ptxvm_module_function_count(mod); i++) {
    ptxvm_function *fn = ptxvm_module_function_at(mod, i);
    ptxvm_function_info fi;
    ptxvm_function_get_info(fn, &fi);
    printf("%s %s%s: %d param%s, %u bytes\n", fi.is_entry ? ".entry" : ".func", fi.name,
           fi.has_body ? "" : " (declaration)", fi.nparams, fi.nparams == 1 ? "" : "s",
           fi.param_bytes);
    ptxvm_param_info pi;
    for (int k = 0; k < fi.nrets; k++)
      if (ptxvm_function_get_param(fn, 1, k, &pi) == PTXVM_SUCCESS) print_param("return", k, &pi);
    for (int k = 0; k < fi.nparams; k++)
      if (ptxvm_function_get_param(fn, 0, k, &pi) == PTXVM_SUCCESS) print_param("param", k, &pi);
    print_dims(".maxntid", fi.maxntid);
    print_dims(".reqntid", fi.reqntid);
    print_dims(".reqnctapercluster", fi.reqnctapercluster);
    if (fi.minnctapersm) printf("  .minnctapersm %u\n", fi.minnctapersm);
    if (fi.maxnctapersm) printf("  .maxnctapersm %u\n", fi.maxnctapersm);
    if (fi.maxnreg) printf("  .maxnreg %u\n", fi.maxnreg);
    if (fi.maxclusterrank) printf("  .maxclusterrank %u\n", fi.maxclusterrank);
    if (fi.explicitcluster) puts("  .explicitcluster");
    if (fi.noreturn) puts("  .noreturn");
  }
  ptxvm_context_destroy(ctx);
  return EXIT_OK;
}

/* ---- ptxvm run ---- */

typedef struct ArgType {
  const char *name;
  unsigned size;     /* bytes */
  char kind;         /* 'u', 's', 'b', 'f' */
} ArgType;

static const ArgType arg_types[] = {
  {"u8", 1, 'u'},  {"u16", 2, 'u'}, {"u32", 4, 'u'}, {"u64", 8, 'u'},
  {"s8", 1, 's'},  {"s16", 2, 's'}, {"s32", 4, 's'}, {"s64", 8, 's'},
  {"b8", 1, 'b'},  {"b16", 2, 'b'}, {"b32", 4, 'b'}, {"b64", 8, 'b'},
  {"f32", 4, 'f'}, {"f64", 8, 'f'},
};

typedef struct Arg {
  const char *spec;
  const ArgType *t;
  bool is_buf;
  bool by_value;          /* TYPE[N]:INIT for an array parameter: its bytes, not a buffer */
  uint64_t bits;          /* scalar value, or the buffer's device address */
  size_t n;               /* buffer elements */
  uint8_t *data;          /* buffer contents (host copy) */
} Arg;

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ptxvm: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_INPUT;
}

static const ArgType *find_type(const char *s, size_t len) {
  for (size_t i = 0; i < sizeof arg_types / sizeof arg_types[0]; i++)
    if (strlen(arg_types[i].name) == len && !strncmp(arg_types[i].name, s, len)) return &arg_types[i];
  return NULL;
}

/* An unsigned decimal or 0x hexadecimal number filling all of s. */
static bool parse_u64(const char *s, uint64_t *v) {
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s += 2; }
  if (!*s || !(base == 16 ? (bool)strchr("0123456789abcdefABCDEF", *s) : (*s >= '0' && *s <= '9')))
    return false;
  char *end;
  errno = 0;
  *v = strtoull(s, &end, base);
  return !errno && !*end;
}

/* Exactly `digits` hex digits after a 2-character prefix. */
static bool parse_bits(const char *s, int digits, uint64_t *v) {
  if ((int)strlen(s + 2) != digits) return false;
  for (const char *p = s + 2; *p; p++) if (!strchr("0123456789abcdefABCDEF", *p)) return false;
  *v = strtoull(s + 2, NULL, 16);
  return true;
}

static bool parse_float(const ArgType *t, const char *s, uint64_t *bits) {
  uint64_t b;
  double d;
  if ((s[0] == '0') && (s[1] == 'f' || s[1] == 'F') && parse_bits(s, 8, &b)) {
    float f;
    uint32_t u = (uint32_t)b;
    memcpy(&f, &u, 4);
    if (t->size == 4) { *bits = u; return true; }
    d = f;
  } else if (s[0] == '0' && (s[1] == 'd' || s[1] == 'D') && parse_bits(s, 16, &b)) {
    if (t->size == 8) { *bits = b; return true; }
    memcpy(&d, &b, 8);
  } else {
    char *end;
    if (!*s) return false;
    d = strtod(s, &end);
    if (*end) return false;
  }
  if (t->size == 4) {
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    *bits = u;
  } else {
    memcpy(bits, &d, 8);
  }
  return true;
}

/* The bits of VALUE as type t; false if it does not parse or fit. */
static bool parse_value(const ArgType *t, const char *s, uint64_t *bits) {
  if (t->kind == 'f') return parse_float(t, s, bits);
  bool neg = *s == '-';
  uint64_t v;
  if (!parse_u64(s + neg, &v)) return false;
  unsigned bitsz = 8 * t->size;
  uint64_t umax = bitsz == 64 ? UINT64_MAX : (1ull << bitsz) - 1;
  uint64_t smax = umax >> 1;   /* largest positive signed value */
  if (neg) {
    if (t->kind == 'u' || v > smax + 1) return false;   /* s and b take -2^(n-1).. */
    v = (uint64_t)0 - v;
  } else if (v > (t->kind == 's' ? smax : umax)) {
    return false;
  }
  *bits = v & umax;
  return true;
}

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Element i of a rand=SEED buffer (README "rand=SEED"). */
static uint64_t rand_bits(const ArgType *t, uint64_t x) {
  if (t->kind != 'f') return x;   /* stored as its low t->size bytes */
  if (t->size == 4) {
    float f = (float)((double)(x >> 40) * 0x1p-24) * 2.0f - 1.0f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
  }
  double d = ((double)(x >> 11) * 0x1p-53) * 2.0 - 1.0;
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

static void put(uint8_t *data, const ArgType *t, size_t i, uint64_t bits) {
  memcpy(data + i * t->size, &bits, t->size);   /* little-endian host */
}

static uint64_t iota_bits(const ArgType *t, size_t i) {
  if (t->kind != 'f') return i;
  uint64_t b;
  if (t->size == 4) {
    float f = (float)i;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
  }
  double d = (double)i;
  memcpy(&b, &d, 8);
  return b;
}

/* Reads a whole file for @PATH. */
static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    uint8_t *nb = realloc(buf, cap *= 2);
    if (!nb) { free(buf); buf = NULL; } else buf = nb;
  }
  if (ferror(f)) { free(buf); buf = NULL; }
  fclose(f);
  *len = n;
  return buf;
}

/* Fills a buffer argument from INIT; a->n may be unknown (SIZE_MAX) for @PATH. */
static int init_buffer(Arg *a, const char *init) {
  const ArgType *t = a->t;
  if (*init == '@') {
    size_t len;
    uint8_t *bytes = read_file(init + 1, &len);
    if (!bytes) return bad("argument '%s': cannot read %s: %s", a->spec, init + 1, strerror(errno));
    if (len % t->size || (a->n != SIZE_MAX && len != a->n * t->size)) {
      free(bytes);
      return bad("argument '%s': %s holds %zu bytes, not %s %s elements of %u bytes", a->spec,
                 init + 1, len, a->n == SIZE_MAX ? "whole" : "exactly N", t->name, t->size);
    }
    a->n = len / t->size;
    a->data = bytes;
    return EXIT_OK;
  }
  if (a->n == SIZE_MAX) return bad("argument '%s': the element count may be left out only with @PATH", a->spec);
  a->data = calloc(a->n ? a->n : 1, t->size);
  if (!a->data) return bad("argument '%s': out of memory", a->spec);
  uint64_t v;
  if (!strcmp(init, "zero")) return EXIT_OK;
  if (!strcmp(init, "iota")) {
    for (size_t i = 0; i < a->n; i++) put(a->data, t, i, iota_bits(t, i));
    return EXIT_OK;
  }
  if (!strncmp(init, "fill=", 5)) {
    if (!parse_value(t, init + 5, &v)) return bad("argument '%s': '%s' is not a %s value", a->spec, init + 5, t->name);
    for (size_t i = 0; i < a->n; i++) put(a->data, t, i, v);
    return EXIT_OK;
  }
  if (!strncmp(init, "rand=", 5)) {
    uint64_t state;
    if (!parse_u64(init + 5, &state)) return bad("argument '%s': '%s' is not a seed (an unsigned integer)", a->spec, init + 5);
    for (size_t i = 0; i < a->n; i++) put(a->data, t, i, rand_bits(t, splitmix64(&state)));
    return EXIT_OK;
  }
  /* V0,V1,...: exactly N values */
  size_t i = 0;
  const char *p = init;
  for (;;) {
    size_t len = strcspn(p, ",");
    char tok[128];
    if (len == 0 || len >= sizeof tok) return bad("argument '%s': bad element list or initializer '%s'", a->spec, init);
    memcpy(tok, p, len);
    tok[len] = 0;
    if (!parse_value(t, tok, &v)) return bad("argument '%s': '%s' is not a %s value", a->spec, tok, t->name);
    if (i < a->n) put(a->data, t, i, v);
    i++;
    if (!p[len]) break;
    p += len + 1;
  }
  if (i != a->n) return bad("argument '%s': %zu values given for %zu elements", a->spec, i, a->n);
  return EXIT_OK;
}

/* TYPE:VALUE or TYPE[N]:INIT. */
static int parse_arg(Arg *a, const char *spec) {
  memset(a, 0, sizeof *a);
  a->spec = spec;
  size_t tl = strcspn(spec, "[:");
  a->t = find_type(spec, tl);
  if (!a->t) return bad("argument '%s': unknown type '%.*s' (u8..u64, s8..s64, b8..b64, f32, f64)", spec, (int)tl, spec);
  const char *p = spec + tl;
  if (*p == ':') {
    if (!parse_value(a->t, p + 1, &a->bits)) return bad("argument '%s': '%s' is not a %s value", spec, p + 1, a->t->name);
    return EXIT_OK;
  }
  if (*p != '[') return bad("argument '%s': expected TYPE:VALUE or TYPE[N]:INIT", spec);
  a->is_buf = true;
  const char *close = strchr(p, ']');
  if (!close || close[1] != ':') return bad("argument '%s': expected TYPE[N]:INIT", spec);
  if (close == p + 1) {
    a->n = SIZE_MAX;
  } else {
    char num[32];
    uint64_t n;
    size_t len = (size_t)(close - p - 1);
    if (len >= sizeof num) return bad("argument '%s': bad element count", spec);
    memcpy(num, p + 1, len);
    num[len] = 0;
    if (!parse_u64(num, &n) || n > ((uint64_t)1 << 40) / a->t->size) return bad("argument '%s': bad element count '%s'", spec, num);
    a->n = (size_t)n;
  }
  return init_buffer(a, close + 2);
}

/* X[,Y[,Z]] with every part >= 1. */
static bool parse_dims(const char *s, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  for (int i = 0; i < 3; i++) {
    char *end;
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || v == 0 || v > UINT32_MAX) return false;
    d[i] = (unsigned)v;
    if (!*end) return true;
    if (*end != ',' || i == 2) return false;
    s = end + 1;
  }
  return false;
}

typedef struct Dump { int arg; const char *path; } Dump;

typedef struct RunOpts {
  unsigned grid[3], block[3], cluster[3];
  bool has_block, has_cluster, quiet, check;
  bool stats;             /* --stats */
  unsigned shared;
  unsigned jobs;          /* -j N (0: the library's default, the CPUs) */
  uint64_t schedule;      /* --schedule SEED (0: warps in order) */
  uint64_t max_steps;     /* --max-steps N (0: the library's default) */
  uint64_t async_delay;   /* --async-delay NS (UINT64_MAX: the library's default) */
  const char **specs; int nspecs;
  Dump *dumps; int ndumps;
  const char *file, *kernel;
} RunOpts;

static void print_elem(const ArgType *t, const uint8_t *p) {
  uint64_t v = 0;
  memcpy(&v, p, t->size);
  if (t->kind == 'f') {
    if (t->size == 4) { float f; memcpy(&f, p, 4); printf("%.9g", (double)f); }
    else { double d; memcpy(&d, p, 8); printf("%.17g", d); }
  } else if (t->kind == 's') {
    unsigned sh = 64 - 8 * t->size;
    printf("%" PRId64, (int64_t)(v << sh) >> sh);
  } else {
    printf("%" PRIu64, v);
  }
}

static int dump(ptxvm_context *ctx, Arg *a, const Dump *d) {
  size_t bytes = a->n * a->t->size;
  if (bytes && ptxvm_memcpy_dtoh(ctx, a->data, a->bits, bytes) != PTXVM_SUCCESS)
    return bad("dump of argument %d: %s", d->arg, ptxvm_last_error(ctx));
  if (d->path) {
    FILE *f = fopen(d->path, "wb");
    if (!f || fwrite(a->data, 1, bytes, f) != bytes || fclose(f)) {
      if (f) fclose(f);
      return bad("cannot write %s: %s", d->path, strerror(errno));
    }
    return EXIT_OK;
  }
  for (size_t i = 0; i < a->n; i++) {
    if (i) putchar(' ');
    print_elem(a->t, a->data + i * a->t->size);
  }
  putchar('\n');
  return EXIT_OK;
}

/* Checks the arguments against the kernel's parameters and makes the
 * buffers. values[i] points at args[i].bits. */
static int bind_args(ptxvm_context *ctx, ptxvm_function *fn, Arg *args, int nargs, void **values) {
  ptxvm_function_info fi;
  ptxvm_function_get_info(fn, &fi);
  if (nargs != fi.nparams)
    return bad("kernel '%s' takes %d parameter%s, %d given with -a", fi.name, fi.nparams,
               fi.nparams == 1 ? "" : "s", nargs);
  for (int i = 0; i < nargs; i++) {
    ptxvm_param_info pi;
    ptxvm_function_get_param(fn, 0, i, &pi);
    if (args[i].is_buf && pi.array_len > 0) {
      /* an array parameter (a by-value aggregate): the elements are its bytes */
      size_t bytes = args[i].n * args[i].t->size;
      if (bytes != pi.size)
        return bad("argument %d '%s' is %zu bytes but parameter %s is .%s[%u] of %u bytes (TYPE[N]:INIT "
                   "gives an array parameter its bytes by value; they must fill it exactly)", i,
                   args[i].spec, bytes, pi.name, pi.type, pi.array_len, pi.size);
      args[i].by_value = true;
      values[i] = args[i].data;
      continue;
    }
    unsigned size = args[i].is_buf ? 8 : args[i].t->size;
    if (pi.size != size)
      return bad("argument %d '%s' is %u bytes but parameter %s is .%s of %u bytes%s", i,
                 args[i].spec, size, pi.name, pi.type, pi.size,
                 args[i].is_buf ? " (a buffer passes a 64-bit address)" : "");
    if (args[i].is_buf) {
      size_t bytes = args[i].n * args[i].t->size;
      if (ptxvm_mem_alloc(ctx, bytes, &args[i].bits) != PTXVM_SUCCESS ||
          (bytes && ptxvm_memcpy_htod(ctx, args[i].bits, args[i].data, bytes) != PTXVM_SUCCESS))
        return bad("argument %d '%s': %s", i, args[i].spec, ptxvm_last_error(ctx));
    }
    values[i] = &args[i].bits;
  }
  return EXIT_OK;
}

/* Picks KERNEL, or the module's only .entry. */
static ptxvm_function *pick_kernel(ptxvm_module *mod, const char *name) {
  ptxvm_function *fn = NULL;
  if (name) {
    if (ptxvm_module_get_function(mod, name, &fn) != PTXVM_SUCCESS) {
      bad("no kernel '%s' in the module", name);
      return NULL;
    }
    ptxvm_function_info fi;
    ptxvm_function_get_info(fn, &fi);
    if (!fi.is_entry || !fi.has_body) {
      bad("'%s' is not a kernel (.entry with a body)", name);
      return NULL;
    }
    return fn;
  }
  int entries = 0;
  for (int i = 0; i < ptxvm_module_function_count(mod); i++) {
    ptxvm_function *f = ptxvm_module_function_at(mod, i);
    ptxvm_function_info fi;
    ptxvm_function_get_info(f, &fi);
    if (fi.is_entry && fi.has_body) { fn = f; entries++; }
  }
  if (entries != 1) {
    bad(entries ? "the module has %d kernels; name one" : "the module has no kernel (.entry)", entries);
    return NULL;
  }
  return fn;
}

static int exit_for(ptxvm_status st) {
  switch (st) {
  case PTXVM_SUCCESS: return EXIT_OK;
  case PTXVM_ERROR_LAUNCH_FAILED: case PTXVM_ERROR_DEADLOCK: case PTXVM_ERROR_HAZARD:
    return EXIT_FAULT;
  default: return EXIT_INPUT;   /* configuration, unsupported PTX, memory */
  }
}

/* SIGINT during a launch cancels it (ptxvm_cancel); SA_RESETHAND: a
 * second SIGINT has the default effect. */
static ptxvm_context *volatile sigint_ctx;

static void on_sigint(int sig) {
  (void)sig;
  if (sigint_ctx) ptxvm_cancel(sigint_ctx);
}

static int launch_and_dump(ptxvm_context *ctx, ptxvm_module *mod, const RunOpts *o, Arg *args) {
  ptxvm_function *fn = pick_kernel(mod, o->kernel);
  if (!fn) return EXIT_INPUT;
  ptxvm_function_info fi;
  ptxvm_function_get_info(fn, &fi);
  unsigned block[3], cluster[3];
  for (int i = 0; i < 3; i++) {
    block[i] = o->has_block || !fi.reqntid[0] ? o->block[i] : fi.reqntid[i] ? fi.reqntid[i] : 1;
    cluster[i] = o->has_cluster || !fi.reqnctapercluster[0] ? o->cluster[i]
               : fi.reqnctapercluster[i] ? fi.reqnctapercluster[i] : 1;
  }
  for (int i = 0; i < o->ndumps; i++)
    if (o->dumps[i].arg >= o->nspecs || !args[o->dumps[i].arg].is_buf)
      return bad("-o %d: argument %d is not a buffer (TYPE[N]:INIT)", o->dumps[i].arg, o->dumps[i].arg);
  void **values = calloc((size_t)o->nspecs + 1, sizeof *values);
  if (!values) return bad("out of memory");
  int rc = bind_args(ctx, fn, args, o->nspecs, values);
  for (int i = 0; rc == EXIT_OK && i < o->ndumps; i++)
    if (args[o->dumps[i].arg].by_value)
      rc = bad("-o %d: argument %d is passed by value (an array parameter), not a buffer", o->dumps[i].arg,
               o->dumps[i].arg);
  bool hazard = false;
  if (rc == EXIT_OK) {
    struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESETHAND}, old;
    sigemptyset(&sa.sa_mask);
    sigint_ctx = ctx;
    sigaction(SIGINT, &sa, &old);
    ptxvm_status st = ptxvm_launch(fn, o->grid, block, cluster, o->shared, values);
    sigaction(SIGINT, &old, NULL);
    sigint_ctx = NULL;
    rc = exit_for(st);
    hazard = st == PTXVM_ERROR_HAZARD;
    if (st == PTXVM_ERROR_CANCELLED) {
      fprintf(stderr, "ptxvm: cancelled\n");
      rc = EXIT_FAULT;
    } else if (st != PTXVM_SUCCESS) {
      const char *msg = ptxvm_last_error(ctx);
      fprintf(stderr, "%s%s", *msg ? msg : ptxvm_status_str(st),
              *msg && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
    }
  }
  /* a hazard under --check: the kernel completed, so its buffers are dumped */
  for (int i = 0; (rc == EXIT_OK || hazard) && i < o->ndumps; i++) {
    int r = dump(ctx, &args[o->dumps[i].arg], &o->dumps[i]);
    if (r != EXIT_OK) rc = r;
  }
  if (o->stats) print_stats(ctx);
  free(values);
  return rc;
}

/* -o N[=PATH] */
static bool parse_dump(const char *s, Dump *d) {
  const char *eq = strchr(s, '=');
  char num[24];
  size_t len = eq ? (size_t)(eq - s) : strlen(s);
  uint64_t v;
  if (len == 0 || len >= sizeof num) return false;
  memcpy(num, s, len);
  num[len] = 0;
  if (!parse_u64(num, &v) || v > 4096) return false;
  d->arg = (int)v;
  d->path = eq ? eq + 1 : NULL;
  return !eq || eq[1];
}

static int parse_run_opts(int argc, char **argv, RunOpts *o) {
  static const struct option longs[] = {
    {"grid", required_argument, NULL, 'g'},   {"block", required_argument, NULL, 'b'},
    {"cluster", required_argument, NULL, 'c'}, {"shared", required_argument, NULL, 's'},
    {"arg", required_argument, NULL, 'a'},    {"dump", required_argument, NULL, 'o'},
    {"jobs", required_argument, NULL, 'j'},   {"quiet", no_argument, NULL, 'q'},
    {"check", no_argument, NULL, 'C'},        {"help", no_argument, NULL, 'h'},
    {"schedule", required_argument, NULL, 'S'}, {"max-steps", required_argument, NULL, 'M'},
    {"async-delay", required_argument, NULL, 'D'},  {"stats", no_argument, NULL, 'T'},
    {NULL, 0, NULL, 0},
  };
  uint64_t v;
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":g:b:c:s:a:o:j:qh", longs, NULL)) != -1) {
    switch (c) {
    case 'g': if (!parse_dims(optarg, o->grid)) return bad("bad grid '%s' (X[,Y[,Z]], each >= 1)", optarg); break;
    case 'b': if (!parse_dims(optarg, o->block)) return bad("bad block '%s' (X[,Y[,Z]], each >= 1)", optarg);
              o->has_block = true; break;
    case 'c': if (!parse_dims(optarg, o->cluster)) return bad("bad cluster '%s' (X[,Y[,Z]], each >= 1)", optarg);
              o->has_cluster = true; break;
    case 's': if (!parse_u64(optarg, &v) || v > UINT32_MAX) return bad("bad shared memory size '%s'", optarg);
              o->shared = (unsigned)v; break;
    case 'a': o->specs[o->nspecs++] = optarg; break;
    case 'o': if (!parse_dump(optarg, &o->dumps[o->ndumps++])) return bad("bad dump '%s' (N or N=PATH)", optarg); break;
    case 'j': if (!parse_u64(optarg, &v) || v == 0 || v > 4096) return bad("bad job count '%s'", optarg);
              o->jobs = (unsigned)v; break;
    case 'q': o->quiet = true; break;
    case 'C': o->check = true; break;
    case 'T': o->stats = true; break;
    case 'S': if (!parse_u64(optarg, &o->schedule)) return bad("bad schedule seed '%s'", optarg); break;
    case 'M': if (!parse_u64(optarg, &o->max_steps) || !o->max_steps)
                return bad("bad step limit '%s' (a count >= 1)", optarg);
              break;
    case 'D': if (!parse_u64(optarg, &o->async_delay) || o->async_delay == UINT64_MAX)
                return bad("bad async delay '%s' (virtual nanoseconds)", optarg);
              break;
    case 'h': usage(stdout); exit(EXIT_OK);
    case ':': return bad("option '%s' needs a value", argv[optind - 1]);
    default: return bad("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc) return bad("run: missing FILE.ptx");
  o->file = argv[optind++];
  if (optind < argc) o->kernel = argv[optind++];
  if (optind < argc) return bad("run: unexpected argument '%s'", argv[optind]);
  return EXIT_OK;
}

/* ptxvm run [OPTIONS] FILE.ptx [KERNEL]; argv[0] is "run". */
static int cmd_run(int argc, char **argv) {
  RunOpts o = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .cluster = {1, 1, 1}, .async_delay = UINT64_MAX};
  o.specs = calloc((size_t)argc, sizeof *o.specs);
  o.dumps = calloc((size_t)argc, sizeof *o.dumps);
  Arg *args = calloc((size_t)argc, sizeof *args);
  int rc = o.specs && o.dumps && args ? parse_run_opts(argc, argv, &o) : bad("out of memory");
  for (int i = 0; rc == EXIT_OK && i < o.nspecs; i++) rc = parse_arg(&args[i], o.specs[i]);
  ptxvm_context *ctx = NULL;
  if (rc == EXIT_OK) {
    ptxvm_module *mod = load(&ctx, o.file);
    if (mod) {
      ptxvm_set_schedule(ctx, o.schedule);
      ptxvm_set_max_steps(ctx, o.max_steps);
      ptxvm_set_async_delay(ctx, o.async_delay);
      ptxvm_set_check(ctx, o.check);
      ptxvm_set_jobs(ctx, o.jobs);
    }
    rc = mod ? launch_and_dump(ctx, mod, &o, args) : EXIT_INPUT;
  }
  ptxvm_context_destroy(ctx);
  for (int i = 0; i < o.nspecs; i++) free(args[i].data);
  free(args);
  free(o.specs);
  free(o.dumps);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_INPUT;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
    usage(stdout);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if ((!strcmp(cmd, "check") || !strcmp(cmd, "info")) && argc == 3)
    return !strcmp(cmd, "check") ? cmd_check(argv[2]) : cmd_info(argv[2]);
  fprintf(stderr, "ptxvm: unknown command or wrong arguments: %s\n", cmd);
  usage(stderr);
  return EXIT_INPUT;
}
