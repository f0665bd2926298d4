/* opcodes.c: compiles the patterns of opcodes.def once per process into
 * OpPattern records (front.h), and indexes the rows by base mnemonic.
 *
 * The compiled table is built under pthread_once and never written again,
 * so contexts on different threads share it safely. A malformed pattern is
 * a bug in opcodes.def; the unit tests compile every row (test_opcodes). */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

static OpPattern patterns[OP_COUNT];
static int by_base[OP_COUNT];        /* row indices sorted by base mnemonic */
static int base_pos[OP_COUNT];       /* row -> position in by_base */
static char pool[1 << 18];           /* spellings of modifiers, NUL-separated */
static size_t pool_used;
static const char *pool_index[8192];  /* hash set over the pool's strings */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *compile_error;    /* first malformed row, for the tests */

static uint32_t hash_str(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

enum { INDEX_MASK = sizeof pool_index / sizeof pool_index[0] - 1 };

static const char *intern(const char *s, size_t n) {
  uint32_t i = hash_str(s, n) & INDEX_MASK;
  for (const char *q; (q = pool_index[i]); i = (i + 1) & INDEX_MASK)
    if (strlen(q) == n && !memcmp(q, s, n)) return q;
  if (pool_used + n + 1 > sizeof pool) abort();  /* table too large: a build bug */
  char *p = pool + pool_used;
  memcpy(p, s, n);
  p[n] = 0;
  pool_used += n + 1;
  pool_index[i] = p;
  return p;
}

const char *op_spelling(const char *s, size_t n) {
  op_patterns();
  uint32_t i = hash_str(s, n) & INDEX_MASK;
  for (const char *q; (q = pool_index[i]); i = (i + 1) & INDEX_MASK)
    if (!strncmp(q, s, n) && q[n] == 0) return q;
  return NULL;
}

static void bad_row(int row) {
  if (!compile_error) compile_error = op_info[row].name;
}

static bool is_free_part(const char *part) {
  static const char *const parts[] = {".sync", ".aligned", ".cc", ".any", ".all", ".noComplete"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    if (!strcmp(part, parts[i])) return true;
  return false;
}

/* mods := item*; item := '^'? ('.'name | '{' '.'name ('|' '.'name)* '}') '?'?
 * '^': the item is part of the instruction's name, as ptxas reads it
 * (mul.lo, div.full, shf.l, bar.cta.red): the leading '^' items directly
 * follow the mnemonic, in order; only leading items may have it. */
static void compile_mods(int row, OpPattern *pat, const char *s) {
  while (*s) {
    while (*s == ' ') s++;
    if (!*s) break;
    if (pat->nitems == PAT_MAX_ITEMS) { bad_row(row); return; }
    bool anchored = *s == '^';
    if (anchored) {
      s++;
      if (pat->nfixed != pat->nitems) { bad_row(row); return; }
      pat->nfixed++;
    }
    PatItem *it = &pat->items[pat->nitems++];
    bool brace = *s == '{';
    if (brace) s++;
    for (;;) {
      if (*s != '.') { bad_row(row); return; }
      const char *b = s;
      while (*s && *s != '|' && *s != '}' && *s != ' ' && *s != '?') s++;
      if (it->nalts == PAT_MAX_ALTS) { bad_row(row); return; }
      it->alts[it->nalts++] = intern(b, (size_t)(s - b));
      if (!brace || *s != '|') break;
      s++;
    }
    if (brace) {
      if (*s != '}') { bad_row(row); return; }
      s++;
    }
    if (*s == '?') { it->optional = true; s++; }
  }
}

static const char *compile_one(int row, OpdSpec *o, const char *s, bool second) {
  char kind = *s++;
  if (!strchr("dDairspqvmlfctekb*", kind) || !kind) { bad_row(row); return s; }
  uint8_t idx = 0;
  if (isdigit((unsigned char)*s)) idx = (uint8_t)(*s++ - '0');
  if (second) {
    o->pair_kind = kind;
    o->pair_type_index = idx;
    return s;
  }
  o->kind = kind;
  o->type_index = idx;
  o->tmode = OT_INSN;
  if (*s == ':') {
    const char *b = ++s;
    while (isalnum((unsigned char)*s)) s++;
    size_t n = (size_t)(s - b);
    if (n == 2 && !memcmp(b, "2x", 2)) o->tmode = OT_2X;
    else if (n == 1 && *b == 'w') o->tmode = OT_WIDE;
    else if (n == 3 && !memcmp(b, "any", 3)) o->tmode = OT_ANY;
    else {
      o->tmode = OT_FIXED;
      o->fixed = type_lookup(b, (int)n);
      if (o->fixed == TY_NONE) bad_row(row);
    }
  }
  if (*s == '[') {             /* [lo..hi]: the range a constant must lie in */
    char *e;
    o->ranged = true;
    o->lo = strtoll(s + 1, &e, 10);
    if (e[0] != '.' || e[1] != '.') { bad_row(row); return e; }
    o->hi = strtoll(e + 2, &e, 10);
    if (*e != ']') { bad_row(row); return e; }
    s = e + 1;
  }
  if (*s == '%') {             /* %M: a constant must be a multiple of M */
    char *e;
    o->multiple = (uint32_t)strtoul(s + 1, &e, 10);
    if (e == s + 1 || !o->multiple) bad_row(row);
    s = e;
  }
  return s;
}

/* Is the spelling a state space (the spaces ptxas counts in "Unexpected
 * number of state spaces")? */
static bool is_space(const char *m) {
  static const char *const spaces[] = {
    ".global", ".shared", ".shared::cta", ".shared::cluster", ".local", ".const",
    ".param", ".param::entry", ".param::func",
  };
  for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
    if (!strcmp(m, spaces[i])) return true;
  return false;
}

static bool shares_alt(const PatItem *a, const PatItem *b) {
  for (int i = 0; i < a->nalts; i++)
    for (int j = 0; j < b->nalts; j++)
      if (a->alts[i] == b->alts[j]) return true;
  return false;
}

/* The order rule of ptxas: an instruction's modifiers may come in any
 * order (add.ftz.rn.f32 = add.rn.ftz.f32, ld.u32.global = ld.global.u32),
 * except where the order carries meaning: the types (cvt.f32.s32: d, then
 * a), the state spaces (cp.async.shared.global: destination, then source)
 * and items that share a spelling (mma .row .col: A's layout, then B's)
 * keep their order. Each such set of items gets a group number. */
static void group_items(OpPattern *pat) {
  uint8_t next = 3;
  for (int i = pat->nfixed; i < pat->nitems; i++) {
    PatItem *it = &pat->items[i];
    for (int a = 0; a < it->nalts && !it->group; a++) {
      if (type_lookup(it->alts[a] + 1, (int)strlen(it->alts[a]) - 1) != TY_NONE) it->group = 1;
      else if (is_space(it->alts[a])) it->group = 2;
    }
  }
  for (int i = pat->nfixed; i < pat->nitems; i++) {
    PatItem *it = &pat->items[i];
    if (it->group) continue;
    for (int k = pat->nfixed; k < i; k++)   /* join the group of an earlier sharer */
      if (pat->items[k].group >= 3 && shares_alt(&pat->items[k], it)) it->group = pat->items[k].group;
    for (int k = i + 1; k < pat->nitems && !it->group; k++)
      if (!pat->items[k].group && shares_alt(&pat->items[k], it)) it->group = next++;
  }
}

/* opds := [opd (',' opd)*]; opd := '?'? one ('|' '?'? one)? */
static void compile_opds(int row, OpPattern *pat, const char *s) {
  while (*s) {
    while (*s == ' ' || *s == ',') s++;
    if (!*s) break;
    if (pat->nopds == PAT_MAX_OPDS) { bad_row(row); return; }
    OpdSpec *o = &pat->opds[pat->nopds++];
    if (*s == '?') { o->optional = true; s++; }
    s = compile_one(row, o, s, false);
    if (*s == '|') {
      s++;
      o->pair = true;
      if (*s == '?') { o->pair_optional = true; s++; }
      s = compile_one(row, o, s, true);
    }
    while (*s == ' ') s++;
    if (*s && *s != ',') { bad_row(row); return; }
  }
}

static int cmp_base(const void *a, const void *b) {
  int ra = *(const int *)a, rb = *(const int *)b;
  int c = strcmp(patterns[ra].base, patterns[rb].base);
  return c ? c : ra - rb;   /* stable: rows of one mnemonic keep their order */
}

static void compile_all(void) {
  for (int r = 0; r < OP_COUNT; r++) {
    OpPattern *pat = &patterns[r];
    const char *mn = op_info[r].mnemonic;
    const char *dot = strchr(mn, '.');
    size_t blen = dot ? (size_t)(dot - mn) : strlen(mn);
    pat->base = intern(mn, blen);
    /* The dotted parts of the mnemonic are part of its name, as ptxas reads
     * it (mbarrier.arrive, cvta.to): required modifiers that lead, in
     * order. Not .sync, .aligned, .cc, match's .any/.all and .noComplete,
     * which ptxas takes anywhere among the modifiers (vote.ballot.sync.b32,
     * ldmatrix.aligned.sync, add.u32.cc, match.sync.b32.any): they are
     * required items of the pattern. */
    const char *free_parts[4];
    int nfree = 0;
    while (dot) {
      const char *next = strchr(dot + 1, '.');
      size_t n = next ? (size_t)(next - dot) : strlen(dot);
      const char *part = intern(dot, n);
      if (is_free_part(part) && nfree < 4) {
        free_parts[nfree++] = part;
      } else {
        PatItem *it = &pat->items[pat->nitems++];
        it->alts[it->nalts++] = part;
      }
      dot = next;
    }
    pat->nfixed = pat->nitems;
    compile_mods(r, pat, op_info[r].mods);
    for (int i = 0; i < nfree && pat->nitems < PAT_MAX_ITEMS; i++) {
      PatItem *it = &pat->items[pat->nitems++];
      it->alts[it->nalts++] = free_parts[i];
    }
    group_items(pat);
    compile_opds(r, pat, op_info[r].opds);
    by_base[r] = r;
  }
  qsort(by_base, OP_COUNT, sizeof by_base[0], cmp_base);
  for (int i = 0; i < OP_COUNT; i++) base_pos[by_base[i]] = i;
}

const OpPattern *op_patterns(void) {
  pthread_once(&once, compile_all);
  return patterns;
}

const char *op_compile_error(void) {
  op_patterns();
  return compile_error;
}

int op_first(const char *base, size_t len) {
  op_patterns();
  int lo = 0, hi = OP_COUNT;
  while (lo < hi) {               /* first position whose base >= key */
    int mid = (lo + hi) / 2;
    const char *b = patterns[by_base[mid]].base;
    int c = strncmp(b, base, len);
    if (c == 0 && b[len] != 0) c = 1;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  if (lo < OP_COUNT) {
    const char *b = patterns[by_base[lo]].base;
    if (!strncmp(b, base, len) && b[len] == 0) return by_base[lo];
  }
  return -1;
}

int op_next(int row) {
  int i = base_pos[row] + 1;
  if (i < OP_COUNT && !strcmp(patterns[by_base[i]].base, patterns[row].base))
    return by_base[i];
  return -1;
}
