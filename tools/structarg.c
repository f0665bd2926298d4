/* structarg.c: struct arguments built from fields, `-a '{u64:&1, s32:4,
 * f32:0.5}'` (runargs.h run_parse_struct; docs/cli.md "Struct arguments").
 *
 *   FIELD = TYPE:VALUE | TYPE:&N | &N | TYPE[N]:INIT | {FIELD, ...}
 * The fields are laid out as a C compiler lays out a struct: each at the
 * next offset that is a multiple of its alignment (a scalar's size; 8 for
 * an address; a nested struct's own), and the size rounded up to the
 * largest alignment. &N is the device address of buffer N; TYPE[N]:INIT
 * is the address of a buffer defined in place, numbered after the -a
 * arguments in the order written (so -o and &N can name it). An inline
 * element list takes exactly N values, so its commas are its own. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runargs.h"

typedef struct Fields {
  uint8_t *data;
  size_t size, cap;
  unsigned align;
  Fixup *fix;
  int nfix;
} Fields;

/* Where struct parsing writes inline buffers: args[*nargs] is the next. */
typedef struct StructCtx { const char *spec; Arg *args; int *nargs; } StructCtx;

static void fields_free(Fields *f) {
  free(f->data);
  free(f->fix);
}

/* Places `size` bytes at the next multiple of `align`; their offset in *at. */
static int fields_put(Fields *f, const void *bytes, size_t size, unsigned align, size_t *at) {
  size_t off = (f->size + align - 1) / align * align;
  if (off + size > f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 64;
    while (cap < off + size) cap *= 2;
    uint8_t *d = realloc(f->data, cap);
    if (!d) return run_bad("out of memory");
    memset(d + f->cap, 0, cap - f->cap);   /* padding reads zero */
    f->data = d;
    f->cap = cap;
  }
  memcpy(f->data + off, bytes, size);
  f->size = off + size;
  if (align > f->align) f->align = align;
  if (at) *at = off;
  return EXIT_OK;
}

static int fields_fix(Fields *f, size_t offset, int buf) {
  Fixup *n = realloc(f->fix, (size_t)(f->nfix + 1) * sizeof *n);
  if (!n) return run_bad("out of memory");
  f->fix = n;
  f->fix[f->nfix++] = (Fixup){offset, buf};
  return EXIT_OK;
}

/* An address field: 8 zero bytes now, buffer `buf`'s address at bind. */
static int fields_addr(Fields *f, int buf) {
  uint64_t zero = 0;
  size_t at;
  int rc = fields_put(f, &zero, 8, 8, &at);
  return rc != EXIT_OK ? rc : fields_fix(f, at, buf);
}

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n') p++;
  return p;
}

/* The end of a field's text: the next ',' or '}' at this level (values
 * and paths hold neither), with trailing blanks cut; *next is the delimiter. */
static size_t field_len(const char *p, const char **next) {
  size_t len = strcspn(p, ",}");
  *next = p + len;
  while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\n')) len--;
  return len;
}

/* &N: N a buffer number (checked against the buffers at run_check_args). */
static int parse_ref(const StructCtx *c, const char *p, size_t len, int *buf) {
  char num[24];
  uint64_t v;
  if (len < 2 || len - 1 >= sizeof num) return run_bad("argument '%s': bad buffer reference '%.*s' (&N)", c->spec, (int)len, p);
  memcpy(num, p + 1, len - 1);
  num[len - 1] = 0;
  if (!run_parse_u64(num, &v) || v > 4096)
    return run_bad("argument '%s': bad buffer reference '%.*s' (&N, N a buffer's number)", c->spec, (int)len, p);
  *buf = (int)v;
  return EXIT_OK;
}

int run_parse_arg(Arg *a, const char *spec);
static int parse_fields(const StructCtx *c, const char **pp, Fields *f);

/* TYPE[N]:INIT inside a struct: a new buffer argument; its text runs to
 * the delimiter, or for an element list over exactly N values. */
static int parse_inline(const StructCtx *c, const char *p, const char **next, Fields *f) {
  const char *colon = strstr(p, "]:");
  if (!colon) return run_bad("argument '%s': expected TYPE[N]:INIT at '%.20s'", c->spec, p);
  const char *init = colon + 2, *end = init;
  uint64_t n = 0;
  bool list = !strchr("@", *init) && strncmp(init, "zero", 4) && strncmp(init, "iota", 4) && strncmp(init, "undef", 5) &&
              strncmp(init, "fill=", 5) && strncmp(init, "rand=", 5);
  const char *open = strchr(p, '[');
  if (list && open && sscanf(open + 1, "%" SCNu64, &n) == 1 && n > 1)
    for (uint64_t k = 1; k < n && *end && *end != '}'; end++) k += *end == ',';   /* past N-1 commas */
  size_t len = (size_t)(end - p) + field_len(end, next);
  int idx = (*c->nargs)++;   /* counted at once, so that run_end frees it after an error too */
  Arg *a = &c->args[idx];
  char *own = malloc(len + 1);
  if (!own) return run_bad("out of memory");
  size_t o = 0;
  for (size_t k = 0; k < len; k++)   /* without the blanks after commas: {f32[3]:1, 2, 3} */
    if (!(o && own[o - 1] == ',' && (p[k] == ' ' || p[k] == '\t'))) own[o++] = p[k];
  own[o] = 0;
  int rc = run_parse_arg(a, own);
  a->own_spec = own;   /* after parse_arg, which clears *a */
  if (rc != EXIT_OK)
    return list ? run_bad("argument '%s': in a struct, an element list TYPE[N]:V0,V1,... takes exactly N values",
                          c->spec) : rc;
  return fields_addr(f, idx);
}

/* One FIELD at *pp; *pp moves past it. */
static int parse_field(const StructCtx *c, const char **pp, Fields *f) {
  const char *p = skip_ws(*pp), *next = p;
  if (*p == '{') {
    Fields sub = {0};
    int rc = parse_fields(c, &p, &sub);
    size_t at = 0;
    if (rc == EXIT_OK) rc = fields_put(f, sub.data, sub.size, sub.align, &at);
    for (int k = 0; rc == EXIT_OK && k < sub.nfix; k++) rc = fields_fix(f, at + sub.fix[k].offset, sub.fix[k].buf);
    fields_free(&sub);
    *pp = p;
    return rc;
  }
  size_t tl = strcspn(p, "[:,}");
  if (*p == '&') {
    int buf;
    size_t len = field_len(p, &next);
    int rc = parse_ref(c, p, len, &buf);
    *pp = next;
    return rc != EXIT_OK ? rc : fields_addr(f, buf);
  }
  const ArgType *t = run_find_type(p, tl);
  if (!t) return run_bad("argument '%s': unknown field type '%.*s' (a struct field is TYPE:VALUE, &N, TYPE[N]:INIT "
                         "or {...})", c->spec, (int)tl, p);
  if (p[tl] == '[') {
    int rc = parse_inline(c, p, &next, f);
    *pp = next;
    return rc;
  }
  if (p[tl] != ':') return run_bad("argument '%s': field '%.*s' has no value (TYPE:VALUE)", c->spec, (int)tl, p);
  const char *v = skip_ws(p + tl + 1);
  size_t len = field_len(v, &next);
  *pp = next;
  if (*v == '&') {
    int buf;
    if (t->kind == 'f' || t->size != 8)
      return run_bad("argument '%s': field '%.*s' holds an address, which takes a 64-bit integer type (u64, s64, b64)",
                     c->spec, (int)(v - p) + (int)len, p);
    int rc = parse_ref(c, v, len, &buf);
    return rc != EXIT_OK ? rc : fields_addr(f, buf);
  }
  char tok[128];
  uint64_t bits;
  if (len >= sizeof tok) return run_bad("argument '%s': field value '%.20s...' is too long", c->spec, v);
  memcpy(tok, v, len);
  tok[len] = 0;
  if (!run_parse_value(t, tok, &bits)) return run_bad("argument '%s': field '%s' is not a %s value%s", c->spec, tok, t->name,
                                                    run_range_note(t, tok));
  return fields_put(f, &bits, t->size, t->size, NULL);   /* little-endian host */
}

/* "{" FIELD ("," FIELD)* "}" at *pp; *pp moves past the "}". */
static int parse_fields(const StructCtx *c, const char **pp, Fields *f) {
  const char *p = *pp + 1;   /* past '{' */
  for (;;) {
    if (*skip_ws(p) == '}') return run_bad("argument '%s': empty struct or field (a struct holds fields: {u64:&1, u32:5})",
                                           c->spec);
    int rc = parse_field(c, &p, f);
    if (rc != EXIT_OK) return rc;
    p = skip_ws(p);
    if (*p == '}') break;
    if (*p != ',') return run_bad("argument '%s': expected ',' or '}' %s", c->spec, *p ? "after a field" : "at the end");
    p++;
  }
  size_t padded = (f->size + f->align - 1) / f->align * f->align;   /* tail padding, as in C */
  static const uint8_t zeros[8];
  if (padded > f->size) {
    int rc = fields_put(f, zeros, padded - f->size, 1, NULL);
    if (rc != EXIT_OK) return rc;
  }
  *pp = p + 1;
  return EXIT_OK;
}

/* {FIELD, ...} as argument a. */
int run_parse_struct(Arg *a, const char *spec, Arg *args, int *nargs) {
  memset(a, 0, sizeof *a);
  a->spec = spec;
  StructCtx c = {spec, args, nargs};
  Fields f = {0};
  const char *p = spec;
  int rc = parse_fields(&c, &p, &f);
  if (rc == EXIT_OK && *skip_ws(p)) rc = run_bad("argument '%s': unexpected '%s' after the struct", spec, skip_ws(p));
  a->is_struct = a->by_value = true;
  a->t = run_find_type("u8", 2);
  a->init = INIT_LIST;
  a->n = f.size;
  a->align = f.align;
  a->data = f.data;
  a->fix = f.fix;
  a->nfix = f.nfix;
  return rc;
}

