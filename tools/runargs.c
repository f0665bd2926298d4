/* runargs.c: the `ptxvm run` command line minus the device (runargs.h). */
#include <ctype.h>
#include <errno.h>
#include <fenv.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demangle.h"
#include "runargs.h"
#include "suggest.h"
#include "../src/util/text.h"

const char *run_prog = "ptxvm";
bool run_stdout_reported;

static const ArgType arg_types[] = {
  {"u8", 1, 'u', 0},  {"u16", 2, 'u', 0}, {"u32", 4, 'u', 0}, {"u64", 8, 'u', 0},
  {"s8", 1, 's', 0},  {"s16", 2, 's', 0}, {"s32", 4, 's', 0}, {"s64", 8, 's', 0},
  {"b8", 1, 'b', 0},  {"b16", 2, 'b', 0}, {"b32", 4, 'b', 0}, {"b64", 8, 'b', 0},
  {"f32", 4, 'f', 0}, {"f64", 8, 'f', 0},
  {"f16", 2, 'f', 'h'}, {"bf16", 2, 'f', 'B'}, {"e4m3", 1, 'f', '4'}, {"e5m2", 1, 'f', '5'},
};

int run_bad(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", run_prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_INPUT;
}

const ArgType *run_find_type(const char *s, size_t len) {
  for (size_t i = 0; i < sizeof arg_types / sizeof arg_types[0]; i++)
    if (strlen(arg_types[i].name) == len && !strncmp(arg_types[i].name, s, len)) return &arg_types[i];
  return NULL;
}

/* An unsigned decimal or 0x hexadecimal number filling all of s. */
bool run_parse_u64(const char *s, uint64_t *v) {
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
    d = (double)f;
  } else if (s[0] == '0' && (s[1] == 'd' || s[1] == 'D') && parse_bits(s, 16, &b)) {
    if (t->size == 8) { *bits = b; return true; }
    memcpy(&d, &b, 8);
  } else {
    char *end;
    if (!*s) return false;
    d = strtod(s, &end);
    if (*end) return false;
    /* a finite literal too large for the type (1e39 as f32) is an error,
     * not infinity; "inf" itself is fine */
    if (!isinf(d) ? t->size == 4 && isinf((float)d) : !strchr("iI", s[s[0] == '-' || s[0] == '+']))
      return false;
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

/* ---- The small floats: f16, bf16, e4m3, e5m2 (PTX ISA 9.0 §5.2.5) ----
 * Converted with the library's own rounding (ptxvm_float_encode): to
 * nearest even, NaN the format's canonical NaN. */

static ptxvm_float_format small_format(const ArgType *t) {
  return t->fmt == 'h' ? PTXVM_FLOAT_F16 : t->fmt == 'B' ? PTXVM_FLOAT_BF16
       : t->fmt == '4' ? PTXVM_FLOAT_E4M3 : PTXVM_FLOAT_E5M2;
}

/* d rounded to t, to nearest even; overflow as cvt.rn (f16, bf16:
 * infinity) or, with satfinite, cvt.rn.satfinite (the one conversion the
 * ISA has to f8: the largest finite value); e4m3 without it: NaN. */
static uint64_t small_encode(const ArgType *t, double d, bool satfinite) {
  return ptxvm_float_encode(small_format(t), d, satfinite);
}

/* The value of t's bits, exactly; a NaN keeps its sign (it prints -nan,
 * as an f32 one does). */
static double small_decode(const ArgType *t, uint64_t bits) {
  return ptxvm_float_decode(small_format(t), (uint32_t)bits);
}

/* The decimal s as a double rounded to odd (of the two doubles around it,
 * the one whose last bit is 1, when it is neither): rounding that double
 * to a format of at most 51 bits rounds s itself correctly, where the
 * nearest double could sit on a tie that s is not. */
static bool strtod_odd(const char *s, double *d) {
  char *end;
  int mode = fegetround();
  fesetround(FE_DOWNWARD);
  double lo = strtod(s, &end);
  fesetround(FE_UPWARD);
  double hi = strtod(s, NULL);
  fesetround(mode);
  if (!*s || *end) return false;
  uint64_t lo_bits;
  memcpy(&lo_bits, &lo, 8);
  *d = lo == hi || (lo_bits & 1) ? lo : hi;
  return true;
}

/* A literal for a small float: a decimal (rounded to nearest even), inf,
 * nan, or the bits as 0h and 2 or 4 hex digits. A finite literal beyond
 * the format's range is an error, as is inf for e4m3 (it has none). */
static bool parse_small(const ArgType *t, const char *s, uint64_t *bits) {
  double d;
  if (s[0] == '0' && (s[1] == 'h' || s[1] == 'H')) return parse_bits(s, 2 * (int)t->size, bits);
  if (!strtod_odd(s, &d)) return false;
  *bits = small_encode(t, d, false);
  double r = small_decode(t, *bits);
  return isnan(d) || (!isnan(r) && (isinf(d) || !isinf(r)));
}

/* Why a number is not a value of small float t: "" when it is not one. */
const char *run_range_note(const ArgType *t, const char *s) {
  double d;
  if (!t->fmt || !strtod_odd(s, &d) || isnan(d)) return "";
  if (isinf(d)) return t->fmt == '4' ? " (e4m3 has no infinity; its largest finite value is 448)" : "";
  switch (t->fmt) {
  case 'h': return " (beyond f16's range: its largest finite value is 65504)";
  case 'B': return " (beyond bf16's range: its largest finite value is about 3.39e38)";
  case '4': return " (beyond e4m3's range: its largest finite value is 448)";
  default: return " (beyond e5m2's range: its largest finite value is 57344)";
  }
}

/* The digits that print every value of a small float so that it reads
 * back the same (1 + ceil(p log10 2) for p significand bits; 3 for the
 * f8 formats, so short values such as 1.25 print whole). */
static int small_digits(const ArgType *t) { return t->fmt == 'h' ? 5 : t->fmt == 'B' ? 4 : 3; }

/* The bits of VALUE as type t; false if it does not parse or fit. */
bool run_parse_value(const ArgType *t, const char *s, uint64_t *bits) {
  if (t->fmt) return parse_small(t, s, bits);
  if (t->kind == 'f') return parse_float(t, s, bits);
  bool neg = *s == '-';
  uint64_t v;
  if (!run_parse_u64(s + neg, &v)) return false;
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

/* Element i of a rand=SEED buffer (README "rand=SEED"): the (i+1)-th
 * output of splitmix64 seeded with SEED, whose state advances by a constant,
 * so any element can be made without its predecessors. */
static uint64_t rand_bits(const ArgType *t, uint64_t seed, size_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  uint64_t x = z ^ (z >> 31);
  if (t->kind != 'f') return x;   /* stored as its low t->size bytes */
  if (t->size <= 4) {   /* f32, and the small floats rounded from it */
    float f = (float)((double)(x >> 40) * 0x1p-24) * 2.0f - 1.0f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return t->fmt ? small_encode(t, (double)f, false) : u;
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
  if (t->fmt) return small_encode(t, (double)i, t->size == 1);
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

/* Elements [first, first + count) of a buffer argument into dst. */
static int fill(const Arg *a, size_t first, size_t count, uint8_t *dst) {
  const ArgType *t = a->t;
  switch (a->init) {
  case INIT_ZERO: case INIT_UNDEF: memset(dst, 0, count * t->size); break;
  case INIT_IOTA: for (size_t i = 0; i < count; i++) put(dst, t, i, iota_bits(t, first + i)); break;
  case INIT_FILL: for (size_t i = 0; i < count; i++) put(dst, t, i, a->v); break;
  case INIT_RAND: for (size_t i = 0; i < count; i++) put(dst, t, i, rand_bits(t, a->v, first + i)); break;
  case INIT_LIST: memcpy(dst, a->data + first * t->size, count * t->size); break;
  case INIT_FILE: {
    FILE *f = fopen(a->path, "rb");
    bool ok = f && !fseeko(f, (off_t)(first * t->size), SEEK_SET) &&
              fread(dst, t->size, count, f) == count;
    if (f) fclose(f);
    if (!ok) return run_bad("argument '%s': cannot read %s", a->spec, a->path);
    break;
  }
  }
  return EXIT_OK;
}

/* Buffers move between host and device in pieces of this many bytes, so a
 * large buffer is never held on the host as a whole. */
enum { CHUNK = 1 << 20 };

int run_upload(const Arg *a, const RunDevice *dev) {
  if (a->init == INIT_UNDEF && dev->undef)   /* never written: reads zero, --check reports a load */
    return dev->undef(dev->u, a->bits) ? run_bad("argument '%s': cannot mark it uninitialized", a->spec) : EXIT_OK;
  size_t per = CHUNK / a->t->size, bytes = a->n * a->t->size;
  uint8_t *buf = malloc(bytes < CHUNK ? (bytes ? bytes : 1) : CHUNK);
  if (!buf) return run_bad("out of memory");
  int rc = EXIT_OK;
  for (size_t i = 0; rc == EXIT_OK && i < a->n; i += per) {
    size_t k = a->n - i < per ? a->n - i : per;
    rc = fill(a, i, k, buf);
    if (rc == EXIT_OK && dev->htod(dev->u, a->bits + i * a->t->size, buf, k * a->t->size))
      rc = run_bad("argument '%s': copy to the device failed", a->spec);
  }
  free(buf);
  return rc;
}

uint8_t *run_read_stream(FILE *f, size_t max, size_t *len) {
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  while (buf) {
    size_t want = cap - n < max + 1 - n ? cap - n : max + 1 - n;
    n += fread(buf + n, 1, want, f);
    if (n < cap || n > max) break;
    uint8_t *nb = realloc(buf, cap *= 2);
    if (!nb) { free(buf); buf = NULL; } else buf = nb;
  }
  if (buf && (ferror(f) || n > max)) { free(buf); buf = NULL; }
  *len = n;
  return buf;
}

/* The most bytes @PATH reads from a pipe or device without an element count. */
enum { PIPE_MAX = 1 << 30 };

/* Fills a buffer argument from INIT; a->n may be unknown (SIZE_MAX) for
 * @PATH. Only an element list is held on the host (it is short); the other
 * forms are generated piece by piece (fill) as they are copied. */
static int init_buffer(Arg *a, const char *init) {
  const ArgType *t = a->t;
  if (*init == '@') {
    const char *path = init + 1;
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &st)) {
      if (f) fclose(f);
      return run_bad("argument '%s': cannot read %s: %s", a->spec, path, strerror(errno));
    }
    size_t len = (size_t)st.st_size;
    a->init = INIT_FILE;
    if (S_ISDIR(st.st_mode)) {
      fclose(f);
      return run_bad("argument '%s': %s is a directory", a->spec, path);
    }
    if (!S_ISREG(st.st_mode)) {
      /* a pipe or device: read once, and no more than N elements (plus one
       * byte, to tell a longer stream) or, without N, PIPE_MAX bytes */
      size_t max = a->n != SIZE_MAX ? a->n * t->size : PIPE_MAX;
      a->init = INIT_LIST;
      a->data = run_read_stream(f, max, &len);
      if (!a->data && len > max) {
        fclose(f);
        return a->n != SIZE_MAX
          ? run_bad("argument '%s': %s holds more than %zu elements of %u bytes", a->spec, path, a->n, t->size)
          : run_bad("argument '%s': %s gives more than %d MiB; read it from a file or give the element count",
                    a->spec, path, PIPE_MAX >> 20);
      }
    }
    fclose(f);
    if (!S_ISREG(st.st_mode) && !a->data)
      return run_bad("argument '%s': cannot read %s", a->spec, path);
    if (len % t->size || (a->n != SIZE_MAX && len != a->n * t->size)) {
      if (a->n != SIZE_MAX)
        return run_bad("argument '%s': %s holds %zu bytes, not the %zu elements of %u bytes (%zu bytes) given",
                       a->spec, path, len, a->n, t->size, a->n * t->size);
      return run_bad("argument '%s': %s holds %zu bytes, not a whole number of %u-byte %s elements",
                     a->spec, path, len, t->size, t->name);
    }
    a->n = len / t->size;
    a->path = path;
    return EXIT_OK;
  }
  if (a->n == SIZE_MAX) return run_bad("argument '%s': the element count may be left out only with @PATH", a->spec);
  if (!strcmp(init, "zero")) { a->init = INIT_ZERO; return EXIT_OK; }
  if (!strcmp(init, "iota")) { a->init = INIT_IOTA; return EXIT_OK; }
  if (!strcmp(init, "undef")) { a->init = INIT_UNDEF; return EXIT_OK; }
  if (!strncmp(init, "fill=", 5)) {
    a->init = INIT_FILL;
    if (!run_parse_value(t, init + 5, &a->v)) return run_bad("argument '%s': '%s' is not a %s value%s", a->spec, init + 5, t->name,
                                                       run_range_note(t, init + 5));
    return EXIT_OK;
  }
  if (!strncmp(init, "rand=", 5)) {
    a->init = INIT_RAND;
    if (!run_parse_u64(init + 5, &a->v)) return run_bad("argument '%s': '%s' is not a seed (an unsigned integer)", a->spec, init + 5);
    return EXIT_OK;
  }
  /* V0,V1,...: exactly N values, counted before anything is allocated */
  size_t given = 1;
  for (const char *c = init; *c; c++) given += *c == ',';
  uint64_t v;
  bool one_value = given == 1 && run_parse_value(t, init, &v);
  if (given == 1 && !one_value && isalpha((unsigned char)*init) && !*run_range_note(t, init))
    return run_bad("argument '%s': unknown INIT '%s' (zero, undef, iota, fill=V, rand=SEED, @PATH, or N values "
                   "V0,V1,...)", a->spec, init);
  if (given != a->n)
    return run_bad("argument '%s': %zu values given for %zu elements%s", a->spec, given, a->n,
                   one_value ? " (fill=V gives every element one value)" : "");
  a->init = INIT_LIST;
  a->data = calloc(a->n ? a->n : 1, t->size);
  if (!a->data) return run_bad("argument '%s': out of memory", a->spec);
  size_t i = 0;
  const char *p = init;
  for (;;) {
    size_t len = strcspn(p, ",");
    char tok[128];
    if (len == 0 || len >= sizeof tok) return run_bad("argument '%s': bad element list or initializer '%s'", a->spec, init);
    memcpy(tok, p, len);
    tok[len] = 0;
    if (!run_parse_value(t, tok, &v)) return run_bad("argument '%s': '%s' is not a %s value%s", a->spec, tok, t->name, run_range_note(t, tok));
    if (i < a->n) put(a->data, t, i, v);
    i++;
    if (!p[len]) break;
    p += len + 1;
  }
  if (i != a->n) return run_bad("argument '%s': %zu values given for %zu elements", a->spec, i, a->n);
  return EXIT_OK;
}

/* TYPE:VALUE or TYPE[N]:INIT. */
int run_parse_arg(Arg *a, const char *spec) {
  memset(a, 0, sizeof *a);
  a->spec = spec;
  size_t tl = strcspn(spec, "[:");
  a->t = run_find_type(spec, tl);
  if (!a->t) return run_bad("argument '%s': unknown type '%.*s' (u8..u64, s8..s64, b8..b64, f16, bf16, f32, f64, e4m3, e5m2)", spec, (int)tl, spec);
  const char *p = spec + tl;
  if (*p == ':') {
    if (!run_parse_value(a->t, p + 1, &a->bits)) return run_bad("argument '%s': '%s' is not a %s value%s", spec, p + 1, a->t->name,
                                                            run_range_note(a->t, p + 1));
    return EXIT_OK;
  }
  if (*p != '[') return run_bad("argument '%s': expected TYPE:VALUE or TYPE[N]:INIT", spec);
  a->is_buf = true;
  const char *close = strchr(p, ']');
  if (!close || close[1] != ':') return run_bad("argument '%s': expected TYPE[N]:INIT", spec);
  if (close == p + 1) {
    a->n = SIZE_MAX;
  } else {
    char num[32];
    uint64_t n;
    size_t len = (size_t)(close - p - 1);
    if (len >= sizeof num) return run_bad("argument '%s': bad element count", spec);
    memcpy(num, p + 1, len);
    num[len] = 0;
    if (!run_parse_u64(num, &n) || n > ((uint64_t)1 << 40) / a->t->size) return run_bad("argument '%s': bad element count '%s'", spec, num);
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

void run_format_elem(const ArgType *t, const uint8_t *p, char *out, size_t size) {
  uint64_t v = 0;
  memcpy(&v, p, t->size);
  if (t->fmt) {
    snprintf(out, size, "%.*g", small_digits(t), small_decode(t, v));
  } else if (t->kind == 'f') {
    if (t->size == 4) { float f; memcpy(&f, p, 4); snprintf(out, size, "%.9g", (double)f); }
    else { double d; memcpy(&d, p, 8); snprintf(out, size, "%.17g", d); }
  } else if (t->kind == 's') {
    unsigned sh = 64 - 8 * t->size;
    snprintf(out, size, "%" PRId64, (int64_t)(v << sh) >> sh);
  } else {
    snprintf(out, size, "%" PRIu64, v);
  }
}

static void print_elem(const ArgType *t, const uint8_t *p) {
  char text[40];
  run_format_elem(t, p, text, sizeof text);
  fputs(text, stdout);
}

/* ---- KERNEL: by its mangled or demangled name, or a prefix ----
 * The ways to name a kernel, strongest first: its .entry name, or its
 * demangled name or signature, exactly (`_Z6reducePKiPii`, `reduce`,
 * `reduce(int const*, int*, int)`); else a prefix of its .entry or demangled
 * name. The first way that matches decides; matching several kernels is an
 * error that lists them. */

typedef struct Kernel {
  ptxvm_function *fn;
  const char *mangled;
  char name[256], sig[512];   /* empty where demangle() cannot read it */
} Kernel;

/* The module's kernels (.entry with a body), in module order; *n of them. */
static Kernel *kernels(ptxvm_module *mod, int *n) {
  int count = ptxvm_module_function_count(mod);
  Kernel *k = calloc(count > 0 ? (size_t)count : 1, sizeof *k);
  *n = 0;
  for (int i = 0; k && i < count; i++) {
    ptxvm_function *f = ptxvm_module_function_at(mod, i);
    ptxvm_function_info fi;
    ptxvm_function_get_info(f, &fi);
    if (!fi.is_entry || !fi.has_body) continue;
    Kernel *e = &k[(*n)++];
    e->fn = f;
    e->mangled = fi.name;
    if (!demangle(fi.name, e->name, sizeof e->name, e->sig, sizeof e->sig)) e->name[0] = e->sig[0] = 0;
  }
  return k;
}

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* Marks in hit[] the kernels `want` names by the strongest way that names
 * any; returns how many. */
static int match(const Kernel *k, int n, const char *want, bool *hit) {
  int hits = 0;
  for (int way = 0; way < 3 && !hits; way++)
    for (int i = 0; i < n; i++) {
      bool m = way == 0 ? !strcmp(k[i].mangled, want)
             : way == 1 ? *k[i].name && (!strcmp(k[i].name, want) || !strcmp(k[i].sig, want))
             : starts(k[i].mangled, want) || (*k[i].name && starts(k[i].name, want));
      hit[i] = m;
      hits += m;
    }
  return hits;
}

int run_count_kernels(ptxvm_module *mod, const char *want) {
  int n, hits = 0;
  Kernel *k = kernels(mod, &n);
  bool *hit = calloc((size_t)n + 1, sizeof *hit);
  if (k && hit) hits = want ? match(k, n, want, hit) : n;
  free(hit);
  free(k);
  return hits;
}

/* The kernels marked (all: hit NULL), one a line on stderr: the .entry
 * name and, where it differs, the signature. */
static void list_kernels(const Kernel *k, int n, const bool *hit) {
  for (int i = 0; i < n; i++)
    if (!hit || hit[i]) fprintf(stderr, "  %s%s%s\n", k[i].mangled, *k[i].sig ? "  " : "", k[i].sig);
}

ptxvm_function *run_pick_kernel(ptxvm_module *mod, const char *want) {
  ptxvm_function *fn = NULL;
  if (want && ptxvm_module_get_function(mod, want, &fn) == PTXVM_SUCCESS) {
    ptxvm_function_info fi;
    ptxvm_function_get_info(fn, &fi);
    if (!fi.is_entry || !fi.has_body) {
      run_bad("'%s' is not a kernel (.entry with a body)", want);
      return NULL;
    }
    return fn;
  }
  int n;
  Kernel *k = kernels(mod, &n);
  bool *hit = calloc((size_t)n + 1, sizeof *hit);
  if (!k || !hit) {
    free(k);
    free(hit);
    run_bad("out of memory");
    return NULL;
  }
  fn = NULL;
  if (!want) {
    if (n == 1) fn = k[0].fn;
    else if (!n) run_bad("the module has no kernel (.entry)");
    else {
      run_bad("the module has %d kernels; name one of them:", n);
      list_kernels(k, n, NULL);
    }
  } else {
    int hits = match(k, n, want, hit);
    for (int i = 0; hits == 1 && i < n; i++)
      if (hit[i]) fn = k[i].fn;
    if (hits > 1) {
      run_bad("kernel '%s' is ambiguous: %d kernels match it:", want, hits);
      list_kernels(k, n, hit);
    } else if (!hits) {
      run_bad(n ? "no kernel '%s' in the module; its kernels:" : "no kernel '%s' in the module (it has none)", want);
      list_kernels(k, n, NULL);
    }
  }
  free(hit);
  free(k);
  return fn;
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
  if (!run_parse_u64(num, &v) || v > 4096) return false;
  d->arg = (int)v;
  d->path = eq ? eq + 1 : NULL;
  return !eq || eq[1];
}

/* An option getopt_long did not take: a short one (optopt), an ambiguous
 * abbreviation of long ones (listed), or an unknown long one, with the
 * nearest long option when one is near. */
static int bad_option(const char *arg, const struct option *longs) {
  if (optopt) return run_bad("unknown option -%c", optopt);
  if (strncmp(arg, "--", 2)) return run_bad("unknown option %s", arg);
  const char *word = arg + 2;
  size_t len = strcspn(word, "=");
  const char *names[64];
  size_t n = 0, prefixed = 0;
  char list[512] = "";
  for (; longs[n].name && n < sizeof names / sizeof names[0]; n++) {
    names[n] = longs[n].name;
    if (len && !strncmp(names[n], word, len)) {
      size_t at = strlen(list);
      snprintf(list + at, sizeof list - at, "%s--%s", prefixed++ ? ", " : "", names[n]);
    }
  }
  if (prefixed > 1) return run_bad("ambiguous option --%.*s: %s", (int)len, word, list);
  char w[64];
  snprintf(w, sizeof w, "%.*s", (int)(len < sizeof w ? len : sizeof w - 1), word);
  const char *near = suggest(w, names, n);
  if (near) return run_bad("unknown option --%s; did you mean --%s?", w, near);
  return run_bad("unknown option --%s", w);
}

static int parse_opts(int argc, char **argv, RunOpts *o, void (*usage)(FILE *)) {
  static const struct option longs[] = {
    {"grid", required_argument, NULL, 'g'},   {"block", required_argument, NULL, 'b'},
    {"cluster", required_argument, NULL, 'c'}, {"shared", required_argument, NULL, 's'},
    {"arg", required_argument, NULL, 'a'},    {"dump", required_argument, NULL, 'o'},
    {"jobs", required_argument, NULL, 'j'},   {"quiet", no_argument, NULL, 'q'},
    {"check", no_argument, NULL, 'C'},        {"help", no_argument, NULL, 'h'},
    {"schedule", required_argument, NULL, 'S'}, {"max-steps", required_argument, NULL, 'M'},
    {"async-delay", required_argument, NULL, 'D'},  {"stats", no_argument, NULL, 'T'},
    {"device-memory", required_argument, NULL, 'G'}, {"printf-buffer", required_argument, NULL, 'P'},
    {"cooperative", no_argument, NULL, 'K'},  {"schedules", required_argument, NULL, 'N'},
    {"trace", required_argument, NULL, 'R'}, {"trace-max", required_argument, NULL, 'X'},
    {NULL, 0, NULL, 0},
  };
  uint64_t v;
  int c;
  optind = 1;
  opterr = 0;
  optopt = 0;
  while ((c = getopt_long(argc, argv, ":g:b:c:s:a:o:j:qh", longs, NULL)) != -1) {
    switch (c) {
    case 'g': if (!parse_dims(optarg, o->grid)) return run_bad("bad grid '%s' (X[,Y[,Z]], each >= 1)", optarg); break;
    case 'b': if (!parse_dims(optarg, o->block)) return run_bad("bad block '%s' (X[,Y[,Z]], each >= 1)", optarg);
              o->has_block = true; break;
    case 'c': if (!parse_dims(optarg, o->cluster)) return run_bad("bad cluster '%s' (X[,Y[,Z]], each >= 1)", optarg);
              o->has_cluster = true; break;
    case 's': if (!run_parse_u64(optarg, &v) || v > UINT32_MAX) return run_bad("bad shared memory size '%s'", optarg);
              o->shared = (unsigned)v; break;
    case 'a': o->specs[o->nspecs++] = optarg; break;
    case 'o': if (!parse_dump(optarg, &o->dumps[o->ndumps++])) return run_bad("bad dump '%s' (N or N=PATH)", optarg); break;
    case 'j': if (!run_parse_u64(optarg, &v) || v == 0 || v > 4096) return run_bad("bad job count '%s'", optarg);
              o->jobs = (unsigned)v; break;
    case 'q': o->quiet = true; break;
    case 'C': o->check = true; break;
    case 'R': o->trace = optarg; break;
    case 'X': if (!run_parse_u64(optarg, &o->trace_max) || !o->trace_max)
                return run_bad("bad trace bound '%s' (a count of events >= 1)", optarg);
              break;
    case 'T': o->stats = true; break;
    case 'K': o->cooperative = true; break;
    case 'S': if (!run_parse_u64(optarg, &o->schedule)) return run_bad("bad schedule seed '%s'", optarg);
              o->has_schedule = true; break;
    case 'N': if (!run_parse_u64(optarg, &v) || v == 0 || v > 1000000)
                return run_bad("bad schedule count '%s' (1 to 1000000)", optarg);
              o->schedules = (unsigned)v; break;
    case 'M': if (!run_parse_u64(optarg, &o->max_steps) || !o->max_steps)
                return run_bad("bad step limit '%s' (a count >= 1)", optarg);
              break;
    case 'D': if (!run_parse_u64(optarg, &o->async_delay) || o->async_delay == UINT64_MAX)
                return run_bad("bad async delay '%s' (virtual nanoseconds)", optarg);
              break;
    case 'G': if (!text_parse_size(optarg, &o->device_memory) || !o->device_memory || o->device_memory > SIZE_MAX)
                return run_bad("bad device memory size '%s' (bytes, or a number with K, M or G)", optarg);
              break;
    case 'P': if (!text_parse_size(optarg, &o->printf_buffer) || !o->printf_buffer || o->printf_buffer > SIZE_MAX)
                return run_bad("bad printf buffer size '%s' (bytes, or a number with K, M or G)", optarg);
              break;
    case 'h': usage(stdout); exit(EXIT_OK);
    case ':': return run_bad("option '%s' needs a value", argv[optind - 1]);
    default: return bad_option(argv[optind - 1], longs);
    }
  }
  if (o->schedules && o->has_schedule)
    return run_bad("--schedule SEED runs one schedule, --schedules N the seeds 0 to N-1: give one of them");
  if (optind >= argc) return run_bad("run: missing FILE.ptx");
  o->file = argv[optind++];
  if (optind < argc) o->kernel = argv[optind++];
  if (optind < argc) return run_bad("run: unexpected argument '%s'", argv[optind]);
  return EXIT_OK;
}


int run_begin(int argc, char **argv, RunOpts *o, Arg **args, void (*usage)(FILE *)) {
  *o = (RunOpts){.grid = {1, 1, 1}, .block = {1, 1, 1}, .cluster = {1, 1, 1}, .async_delay = UINT64_MAX};
  o->specs = calloc((size_t)argc, sizeof *o->specs);
  o->dumps = calloc((size_t)argc, sizeof *o->dumps);
  *args = NULL;
  if (!o->specs || !o->dumps) return run_bad("out of memory");
  int rc = parse_opts(argc, argv, o, usage);
  if (rc != EXIT_OK) return rc;
  size_t cap = (size_t)o->nspecs + 1;   /* room for every inline buffer: at most one per '[' */
  for (int i = 0; i < o->nspecs; i++)
    if (o->specs[i][0] == '{')
      for (const char *c = o->specs[i]; *c; c++) cap += *c == '[';
  *args = calloc(cap, sizeof **args);
  if (!*args) return run_bad("out of memory");
  o->nargs = o->nspecs;
  for (int i = 0; rc == EXIT_OK && i < o->nspecs; i++)
    rc = o->specs[i][0] == '{' ? run_parse_struct(&(*args)[i], o->specs[i], *args, &o->nargs)
         : !strncmp(o->specs[i], "tensormap:", 10) ? run_parse_tensormap(&(*args)[i], o->specs[i])
                               : run_parse_arg(&(*args)[i], o->specs[i]);
  return rc;
}

void run_end(RunOpts *o, Arg *args) {
  for (int i = 0; args && i < o->nargs; i++) {
    free(args[i].data);
    free(args[i].fix);
    free(args[i].tmap);
    free(args[i].own_spec);
  }
  free(args);
  free(o->specs);
  free(o->dumps);
}

void run_launch_shape(ptxvm_function *fn, const RunOpts *o, unsigned block[3], unsigned cluster[3]) {
  ptxvm_function_info fi;
  ptxvm_function_get_info(fn, &fi);
  for (int i = 0; i < 3; i++) {
    block[i] = o->has_block || !fi.reqntid[0] ? o->block[i] : fi.reqntid[i] ? fi.reqntid[i] : 1;
    cluster[i] = o->has_cluster || !fi.reqnctapercluster[0] ? o->cluster[i]
               : fi.reqnctapercluster[i] ? fi.reqnctapercluster[i] : 1;
  }
}

/* Can a file be written at path? Checked before the launch, so that a
 * long run does not end in a dump that cannot be written; creates nothing. */
static bool writable(const char *path) {
  struct stat st;
  if (!stat(path, &st)) {
    if (S_ISDIR(st.st_mode)) { errno = EISDIR; return false; }
    return !access(path, W_OK);
  }
  char dir[4096];
  const char *slash = strrchr(path, '/');
  size_t len = slash ? (size_t)(slash - path) : 0;
  if (len >= sizeof dir) { errno = ENAMETOOLONG; return false; }
  memcpy(dir, path, len);
  strcpy(dir + len, len ? "" : ".");
  if (slash && !len) strcpy(dir, "/");
  return !access(dir, W_OK | X_OK);
}

/* Whether a scalar or buffer argument may be given for a parameter of PTX
 * type ptype, of its width (checked apart): NULL, or why not (docs/cli.md
 * "Argument specs"). A .b parameter and a b argument are untyped: their
 * bits pass as they are; integers of either signedness go to an integer
 * parameter (nvcc declares an `int` .u32) when the value fits the type
 * given; a float goes only to a float parameter, and an address (a
 * buffer) only to an integer one. */
static const char *type_mismatch(const Arg *a, const char *ptype) {
  char pk = !strcmp(ptype, "bf16") || !strncmp(ptype, "bf16x", 5) ? 'f' : ptype[0];
  if (a->is_buf) return pk == 'f' ? "a buffer passes its address, an integer (.u64, .s64 or .b64)" : NULL;
  if (pk == 'b' || a->t->kind == 'b') return NULL;
  if (pk == 'f' && a->t->kind != 'f') return "a float parameter takes f (or b, for its bits)";
  if ((pk == 'u' || pk == 's') && a->t->kind == 'f') return "an integer parameter takes u or s (or b, for its bits)";
  return NULL;
}

/* A struct argument (argument i) for parameter pi: its alignment at most
 * the parameter's, and its size, with tail padding to the parameter's
 * alignment (the struct's own, as declared: alignas), the parameter's. */
static int fit_struct(Arg *a, int i, const ptxvm_param_info *pi) {
  char decl[48] = "";
  if (pi->array_len) snprintf(decl, sizeof decl, "[%" PRIu64 "]", pi->array_len);
  if (a->align > pi->align)
    return run_bad("argument %d '%s' needs %u-byte alignment (its widest field) but parameter %s is .%s%s "
                   "aligned to %u bytes", i, a->spec, a->align, pi->name, pi->type, decl, pi->align);
  size_t al = pi->align > a->align ? pi->align : a->align, padded = (a->n + al - 1) / al * al;
  if (padded != pi->size) {
    char pad[64] = "";
    if (padded != a->n) snprintf(pad, sizeof pad, ", %zu with tail padding to the parameter's alignment", padded);
    return run_bad("argument %d '%s' lays out %zu bytes%s (C struct rules: each field at its natural alignment, "
                   "the size a multiple of the largest, %u) but parameter %s is .%s%s of %" PRIu64 " bytes",
                   i, a->spec, a->n, pad, a->align, pi->name, pi->type, decl, pi->size);
  }
  if (padded > a->n) {
    uint8_t *d = realloc(a->data, padded);
    if (!d) return run_bad("out of memory");
    memset(d + a->n, 0, padded - a->n);
    a->data = d;
    a->n = padded;
  }
  return EXIT_OK;
}

int run_check_args(ptxvm_function *fn, const RunOpts *o, Arg *args) {
  ptxvm_function_info fi;
  ptxvm_function_get_info(fn, &fi);
  for (int i = 0; i < o->ndumps; i++)
    if (o->dumps[i].arg >= o->nargs)
      return run_bad("-o %d: there is no argument %d (%d given with -a, numbered from 0%s)", o->dumps[i].arg,
                     o->dumps[i].arg, o->nspecs, o->nargs > o->nspecs ? ", then the inline buffers" : "");
    else if (!args[o->dumps[i].arg].is_buf)
      return run_bad("-o %d: argument %d is not a buffer (TYPE[N]:INIT)", o->dumps[i].arg, o->dumps[i].arg);
  if (o->nspecs != fi.nparams)
    return run_bad("kernel '%s' takes %d parameter%s, %d given with -a", fi.name, fi.nparams,
                   fi.nparams == 1 ? "" : "s", o->nspecs);
  for (int i = 0; i < o->nspecs; i++) {
    ptxvm_param_info pi;
    ptxvm_function_get_param(fn, 0, i, &pi);
    if (args[i].is_struct) {
      int rc = fit_struct(&args[i], i, &pi);
      if (rc != EXIT_OK) return rc;
      continue;
    }
    if (args[i].is_buf && pi.array_len > 0) {
      /* an array parameter (a by-value aggregate): the elements are its bytes */
      size_t bytes = args[i].n * args[i].t->size;
      if (bytes != pi.size)
        return run_bad("argument %d '%s' is %zu bytes but parameter %s is .%s[%" PRIu64 "] of %" PRIu64
                       " bytes (TYPE[N]:INIT gives an array parameter its bytes by value; they must fill "
                       "it exactly)", i,
                       args[i].spec, bytes, pi.name, pi.type, pi.array_len, pi.size);
      args[i].by_value = true;
      if (args[i].init != INIT_LIST) {   /* its bytes are the parameter's value */
        args[i].data = malloc(bytes ? bytes : 1);
        if (!args[i].data) return run_bad("out of memory");
        int rc = fill(&args[i], 0, args[i].n, args[i].data);
        if (rc != EXIT_OK) return rc;
        args[i].init = INIT_LIST;
      }
      continue;
    }
    unsigned size = args[i].is_buf ? 8 : args[i].t->size;
    if (pi.size != size)
      return run_bad("argument %d '%s' is %u bytes but parameter %s is .%s of %" PRIu64 " bytes%s", i,
                     args[i].spec, size, pi.name, pi.type, pi.size,
                     args[i].is_buf ? " (a buffer passes a 64-bit address)" : "");
    const char *why = type_mismatch(&args[i], pi.type);
    if (why)
      return run_bad("argument %d '%s' does not fit parameter %s, which is .%s: %s", i, args[i].spec, pi.name,
                     pi.type, why);
  }
  for (int i = 0; i < o->nspecs; i++)
    for (int k = 0; k < args[i].nfix; k++) {
      int b = args[i].fix[k].buf;
      if (b >= o->nargs || !args[b].is_buf || args[b].by_value) {
        char list[256] = "";
        for (int j = 0, at = 0; j < o->nargs && at < (int)sizeof list - 12; j++)
          if (args[j].is_buf && !args[j].by_value) at += snprintf(list + at, sizeof list - (size_t)at, " %d", j);
        return run_bad("argument %d '%s': &%d names no buffer (the -a arguments are numbered from 0, then the "
                       "inline buffers of struct arguments; the buffers are:%s)", i, args[i].spec, b,
                       *list ? list : " none");
      }
    }
  for (int i = 0; i < o->ndumps; i++)
    if (o->dumps[i].path && !writable(o->dumps[i].path))
      return run_bad("-o %d=%s: cannot write there: %s", o->dumps[i].arg, o->dumps[i].path, strerror(errno));
  if (o->trace && !writable(o->trace))
    return run_bad("--trace %s: cannot write the trace file there: %s", o->trace, strerror(errno));
  for (int i = 0; i < o->ndumps; i++)
    if (args[o->dumps[i].arg].by_value)
      return run_bad("-o %d: argument %d is passed by value (an array parameter), not a buffer",
                     o->dumps[i].arg, o->dumps[i].arg);
  return EXIT_OK;
}

int run_bind(const RunOpts *o, Arg *args, const RunDevice *dev, void **values) {
  for (int i = 0; i < o->nargs; i++) {
    Arg *a = &args[i];
    if (i < o->nspecs) values[i] = a->by_value ? (void *)a->data : (void *)&a->bits;
    if (!a->is_buf || a->by_value) continue;
    size_t bytes = a->n * a->t->size;
    const char *why = dev->alloc(dev->u, bytes, &a->bits);
    if (why) return run_bad("argument %d '%s': %s", i, a->spec, why);
    if (a->init == INIT_ZERO && dev->zeroed) continue;   /* costs nothing until written */
    int rc = run_upload(a, dev);
    if (rc != EXIT_OK) return rc;
  }
  for (int i = 0; i < o->nspecs; i++)
    for (int k = 0; k < args[i].nfix; k++)
      memcpy(args[i].data + args[i].fix[k].offset, &args[args[i].fix[k].buf].bits, 8);
  for (int i = 0; i < o->nspecs; i++) {
    const TmapSpec *t = args[i].tmap;
    if (!t) continue;
    if (t->buf >= o->nargs || !args[t->buf].is_buf || args[t->buf].by_value)
      return run_bad("argument %d '%s': &%d names no buffer", i, args[i].spec, t->buf);
    if (!dev->tensor_map) return run_bad("argument %d '%s': this tool cannot make tensor maps", i, args[i].spec);
    const char *why = dev->tensor_map(dev->u, args[i].data, t, args[t->buf].bits);
    if (why) return run_bad("argument %d '%s': %s", i, args[i].spec, why);
  }
  return EXIT_OK;
}

void run_unbind(const RunOpts *o, Arg *args, const RunDevice *dev) {
  for (int i = 0; i < o->nargs; i++)
    if (args[i].is_buf && !args[i].by_value && args[i].bits) {
      dev->free(dev->u, args[i].bits);
      args[i].bits = 0;
    }
}

int run_compare(const Arg *a, uint64_t x, uint64_t y, const RunDevice *dev, size_t *first, size_t *count,
                uint8_t ex[8], uint8_t ey[8]) {
  size_t sz = a->t->size, per = CHUNK / sz, bytes = a->n * sz;
  size_t cap = bytes < CHUNK ? (bytes ? bytes : 1) : CHUNK;
  uint8_t *bx = malloc(cap), *by = malloc(cap);
  int rc = bx && by ? EXIT_OK : run_bad("out of memory");
  *count = 0;
  for (size_t i = 0; rc == EXIT_OK && i < a->n; i += per) {
    size_t k = a->n - i < per ? a->n - i : per;
    if (dev->dtoh(dev->u, bx, x + i * sz, k * sz) || dev->dtoh(dev->u, by, y + i * sz, k * sz)) {
      rc = run_bad("argument '%s': copy from the device failed", a->spec);
      break;
    }
    for (size_t j = 0; j < k; j++)
      if (memcmp(bx + j * sz, by + j * sz, sz)) {   /* bits: a NaN differs from another NaN */
        if (!(*count)++) {
          *first = i + j;
          memcpy(ex, bx + j * sz, sz);
          memcpy(ey, by + j * sz, sz);
        }
      }
  }
  free(bx);
  free(by);
  return rc;
}

int run_dump(const Arg *a, const Dump *d, const RunDevice *dev) {
  size_t per = CHUNK / a->t->size, bytes = a->n * a->t->size;
  FILE *f = d->path ? fopen(d->path, "wb") : stdout;
  uint8_t *buf = malloc(bytes < CHUNK ? (bytes ? bytes : 1) : CHUNK);
  int rc = !f ? run_bad("cannot write %s: %s", d->path, strerror(errno))
         : !buf ? run_bad("out of memory") : EXIT_OK;
  for (size_t i = 0; rc == EXIT_OK && i < a->n; i += per) {
    size_t k = a->n - i < per ? a->n - i : per;
    if (dev->dtoh(dev->u, buf, a->bits + i * a->t->size, k * a->t->size)) {
      rc = run_bad("dump of argument %d: copy from the device failed", d->arg);
    } else if (d->path) {
      if (fwrite(buf, a->t->size, k, f) != k) rc = run_bad("cannot write %s: %s", d->path, strerror(errno));
    } else {
      for (size_t j = 0; j < k; j++) {
        if (i + j) putchar(' ');
        print_elem(a->t, buf + j * a->t->size);
      }
      if (ferror(stdout)) {
        rc = run_bad("cannot write standard output: %s", strerror(errno ? errno : EIO));
        run_stdout_reported = true;
      }
    }
  }
  if (!d->path && rc == EXIT_OK) putchar('\n');
  if (d->path && f && fclose(f) && rc == EXIT_OK) rc = run_bad("cannot write %s: %s", d->path, strerror(errno));
  free(buf);
  return rc;
}
