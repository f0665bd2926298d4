/* initcheck.c: the uninitialized-read checker of --check (issue 17,
 * initcheck.h).
 *
 * A load (ld, ldu, ldmatrix: ACC_LD) that reads a byte never written is a
 * finding:
 *   - .shared (and .shared::cluster): a byte no thread of the launch wrote
 *     in the CTA that owns it since that CTA began. Each CTA has a bitmap
 *     of the bytes written (Cta.written, one bit per byte, made at its
 *     first shared access, freed with the CTA);
 *   - .global: a byte of an allocation that the host marked uninitialized
 *     (ptxvm_mem_set_uninitialized: the CLI's TYPE[N]:undef buffers and
 *     the CUDA driver's cuMemAlloc memory) and that no host copy or set and
 *     no kernel write (of this or an earlier launch) has written since. The
 *     bitmap lives with the allocation (dev_set_undef, src/mem/device.c), so
 *     it persists across launches; every other memory counts as written.
 * Writes are stores, atomics and reductions (also mbarrier operations),
 * and asynchronous-copy landings (cp.async, cp.async.bulk, st.async): all
 * initialize their bytes. Following compute-sanitizer's initcheck, only a
 * load is reported: an asynchronous copy of never-written bytes is not
 * (its destination counts as written), nor an atomic on them, nor printf's
 * reads. Local and parameter memory and registers are out of scope.
 *
 * Each instruction is reported once per launch, for the thread of its
 * first occurrence in (cluster, CTA rank, thread) order, so the report does
 * not depend on the schedule; at most INIT_MAX instructions, the rest
 * counted. A checked launch runs on one host thread (launch.c), so the
 * state needs no lock.
 *
 * The launch has one observer: this checker's wraps the race checker's
 * (race.c), calling it first for every access, so both see everything. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "initcheck.h"
#include "program.h"

enum { INIT_MAX = 32 };

typedef struct Found {
  uint32_t pc;
  uint64_t cluster;            /* order key: cluster index, rank, thread */
  uint32_t rank, thread;
  uint32_t ctaid[3], tid[3];
  bool shared;                 /* .shared (else .global) */
  bool remote;                 /* another CTA's shared memory (.shared::cluster) */
  uint64_t lo, hi;             /* shared offsets or global addresses */
  DevUndef alloc;              /* .global: the allocation */
} Found;

struct InitLaunch {
  Launch *L;
  MemObserver obs;
  const MemObserver *next;     /* the race checker's, or NULL */
  bool global;                 /* some allocation is tracked (dev_tracks_undef):
                                  only the host adds one, between launches */
  int32_t *slot;               /* per pc: -1 none, -2 past INIT_MAX, else found[] index */
  Found found[INIT_MAX];
  unsigned nfound;
  uint64_t more;
};

/* The bits of bitmap byte k/8 that bytes [k, e) cover (k advances past them). */
static inline uint8_t bits_of(uint32_t *k, uint32_t e) {
  uint32_t lo = *k & 7, hi = lo + (e - *k) < 8 ? lo + (e - *k) : 8;
  *k += hi - lo;
  return (uint8_t)(((1u << (hi - lo)) - 1) << lo);
}

/* Marks [p, p+n) of CTA c's shared memory written. */
static void shared_written(Cta *c, const uint8_t *p, uint32_t n) {
  uint32_t k = (uint32_t)(p - c->shared), e = k + n;
  while (k < e) {
    uint32_t at = k / 8;
    uint8_t b = bits_of(&k, e);
    c->nwritten += (uint32_t)__builtin_popcount(b & ~c->written[at]);
    c->written[at] |= b;
  }
}

/* The never-written run of [p, p+n) in c's shared memory: false if none. */
static bool shared_undef(const Cta *c, const uint8_t *p, uint32_t n, uint64_t *lo, uint64_t *hi) {
  uint32_t k = (uint32_t)(p - c->shared), e = k + n;
  *lo = UINT64_MAX;
  while (k < e) {
    uint32_t at = k / 8;
    uint8_t m = bits_of(&k, e), miss = (uint8_t)(m & ~c->written[at]);
    if (!miss) continue;
    if (*lo == UINT64_MAX) *lo = at * 8 + (uint32_t)__builtin_ctz(miss);
    *hi = at * 8 + 32 - (uint32_t)__builtin_clz(miss);
  }
  return *lo != UINT64_MAX;
}

/* Whether every byte of [p, p+n) in c's shared memory was written (shared_undef
 * finds no run), a bitmap word at a time. */
static bool shared_full(const Cta *c, const uint8_t *p, uint32_t n) {
  uint32_t k = (uint32_t)(p - c->shared), e = k + n;
  for (; k < e && (k & 7); k++)
    if (!(c->written[k / 8] >> (k & 7) & 1)) return false;
  for (uint64_t v; k + 64 <= e; k += 64) {
    memcpy(&v, c->written + k / 8, 8);
    if (v != UINT64_MAX) return false;
  }
  for (; k + 8 <= e; k += 8)
    if (c->written[k / 8] != 0xff) return false;
  for (; k < e; k++)
    if (!(c->written[k / 8] >> (k & 7) & 1)) return false;
  return true;
}

static bool before(const Found *a, const Found *b) {
  if (a->cluster != b->cluster) return a->cluster < b->cluster;
  if (a->rank != b->rank) return a->rank < b->rank;
  return a->thread < b->thread;
}

static void found(InitLaunch *I, const MemAccess *a, Found *f) {
  if (!a->x) return;   /* a load always names its instruction */
  Warp *w = a->w;
  const Cta *c = w->cta;
  f->pc = (uint32_t)(a->x - I->L->prog->code);
  f->cluster = c->cluster ? c->cluster->index : 0;
  f->rank = c->rank;
  f->thread = (uint32_t)w->id * WARP_SIZE + (uint32_t)a->lane;
  memcpy(f->ctaid, c->ctaid, sizeof f->ctaid);
  for (int i = 0; i < 3; i++) f->tid[i] = w->tid[i][a->lane];
  int32_t *s = &I->slot[f->pc];
  if (*s == -2) return;
  if (*s >= 0) {
    if (before(f, &I->found[*s])) I->found[*s] = *f;
    return;
  }
  if (I->nfound == INIT_MAX) { *s = -2; I->more++; return; }
  *s = (int32_t)I->nfound;
  I->found[I->nfound++] = *f;
}

static void check_one(InitLaunch *I, const MemAccess *a) {
  if (!a->size || a->kind == ACC_ASYNC_RD || a->kind == ACC_PRINTF) return;
  Warp *w = a->w;
  const uint8_t *p = a->host;
  bool write = a->kind != ACC_LD;
  Cta *c = w->cta;
  bool remote = false;
  if (!(c->shared && p >= c->shared && p < c->shared + c->shared_size)) {
    /* a .global access is of a device allocation (mem_ptr): no CTA's shared memory */
    Cta *o = a->sp != SP_GLOBAL && c->cluster && c->cluster->ncta > 1 ? cluster_cta_of(w, p, a->size) : NULL;
    if (o) c = o, remote = true;
    else c = NULL;
  }
  if (c) {   /* shared memory of CTA c */
    if (!c->written && !(c->written = calloc((size_t)c->shared_size / 8 + 1, 1))) return;
    uint64_t lo, hi;
    if (write) shared_written(c, p, a->size);
    else if (shared_undef(c, p, a->size, &lo, &hi)) {
      Found f = {.shared = true, .remote = remote, .lo = lo, .hi = hi};   /* only on a finding */
      found(I, a, &f);
    }
    return;
  }
  if (!I->global) return;   /* no allocation is tracked (checked at begin) */
  if ((uintptr_t)p - (uintptr_t)w->local < (size_t)w->local_size * WARP_SIZE) return;
  const Launch *L = w->launch;
  if (p >= L->params && p < L->params + L->param_size) return;
  if (write) { dev_set_written(L->dev, p, a->size); return; }
  DevUndef u;
  if (dev_find_undef(L->dev, p, a->size, &u)) {
    Found f = {.lo = u.lo, .hi = u.hi, .alloc = u};
    found(I, a, &f);
  }
}

/* The observer: the next one (the race checker) first, then this one. */
static void observe(void *ctx, const MemAccess *a) {
  InitLaunch *I = ctx;
  if (I->next) I->next->fn(I->next->ctx, a);
  check_one(I, a);
}

/* A warp-wide access that check_one would take as nothing to do for any of
 * its lanes, by one test over the span of its lanes: every byte of it already
 * written in the CTA's shared memory (a load finds nothing, a write marks
 * nothing new), or .global with no allocation tracked. False: leave it to
 * check_one lane by lane. */
LANE_CLONES static bool span_settled(const InitLaunch *I, const MemLanes *m) {
  if (!m->mask) return true;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  if (m->hi) {   /* their span, as mem_observe_lanes found it */
    lo = m->lo;
    hi = m->hi - m->size;
  } else if (m->mask == 0xffffffffu) {   /* a full warp: a loop that vectorizes */
    for (int l = 0; l < WARP_SIZE; l++) {
      uintptr_t p = (uintptr_t)m->host[l];
      lo = p < lo ? p : lo;
      hi = p > hi ? p : hi;
    }
  } else {
    for (uint32_t r = m->mask; r; r &= r - 1) {
      uintptr_t p = (uintptr_t)m->host[__builtin_ctz(r)];
      lo = p < lo ? p : lo;
      hi = p > hi ? p : hi;
    }
  }
  hi += m->size;
  const Cta *c = m->w->cta;
  uintptr_t sh = (uintptr_t)c->shared, she = sh + c->shared_size;
  if (c->shared && lo >= sh && hi <= she)
    return c->written && (c->nwritten == c->shared_size ||
                          shared_full(c, (const uint8_t *)lo, (uint32_t)(hi - lo)));
  /* .global: check_one looks at no CTA's shared memory, and with no
     allocation tracked at nothing else */
  return m->sp == SP_GLOBAL && !I->global && (!c->shared || hi <= sh || lo >= she);
}

/* A warp-wide access: the next observer takes it at once when it can (the
 * race checker's fast path), this one for the whole span when it can, else
 * lane by lane. */
static void observe_lanes(void *ctx, const MemLanes *m) {
  InitLaunch *I = ctx;
  const MemObserver *next = I->next;
  if (next && next->lanes) next->lanes(next->ctx, m);
  if (!(next && !next->lanes) && span_settled(I, m)) return;
  const void *prev = NULL;
  for (uint32_t r = m->mask; r; r &= r - 1) {
    int l = __builtin_ctz(r);
    /* the bytes the lane before accessed (a broadcast): the same verdict,
       and a finding keeps its lowest thread, the lane before's */
    bool same = m->host[l] == prev;
    if (same && !(next && !next->lanes)) continue;
    MemAccess a = {.w = m->w, .lane = l, .x = m->x, .kind = m->kind, .strong = m->strong, .sp = m->sp,
                   .addr = m->addr[l], .host = m->host[l], .size = m->size};
    if (next && !next->lanes) next->fn(next->ctx, &a);
    if (same) continue;
    prev = m->host[l];
    check_one(I, &a);
  }
}

/* "buf (shared offset 0x10)", as mbar.c names shared objects. */
static void shared_name(const Launch *L, uint64_t off, char *buf, size_t n) {
  const Program *p = L->prog;
  int k = program_func_index(p, L->kernel);
  const FuncInfo *fi = k >= 0 ? &p->funcs[k] : NULL;
  for (int i = 0; fi && i < fi->nshared; i++) {
    const VarAddr *v = &fi->shared[i];
    if (off >= v->addr && off < v->addr + (v->sym->size ? v->sym->size : 1)) {
      snprintf(buf, n, "in %s+%" PRIu64, v->sym->name, off - v->addr);
      return;
    }
  }
  snprintf(buf, n, "%s", fi && off >= fi->shared_base ? "in dynamic shared memory" : "in shared memory");
}

static void emit(InitLaunch *I, const Found *f) {
  Launch *L = I->L;
  const Program *p = L->prog;
  const XInsn *x = &p->code[f->pc];
  char where[320], in[200], insn[96], msg[1200], text[1400];
  exec_where(p, x, where, sizeof where);
  if (f->shared) shared_name(L, f->lo, in, sizeof in);
  else
    snprintf(in, sizeof in, "in the allocation 0x%" PRIx64 " (%" PRIu64 " bytes) at offset %" PRIu64,
             f->alloc.start, f->alloc.size, f->lo - f->alloc.start);
  snprintf(insn, sizeof insn, "%s", x->src ? op_info[x->src->op].mnemonic : "load");
  snprintf(msg, sizeof msg, "uninitialized read of %s bytes [0x%" PRIx64 ", 0x%" PRIx64 ") %s by %s at %s, "
           "kernel %s, %%ctaid (%u,%u,%u) %%tid (%u,%u,%u): %s",
           f->shared ? (f->remote ? ".shared::cluster" : ".shared") : ".global", f->lo, f->hi, in, insn,
           where, L->kernel->name, f->ctaid[0], f->ctaid[1], f->ctaid[2], f->tid[0], f->tid[1], f->tid[2],
           f->shared ? "no thread of its CTA wrote them" : "nothing wrote them since they were allocated");
  snprintf(text, sizeof text, "%s\n  (%s)", msg,
           f->shared ? "shared memory starts undefined in each CTA: store before loading, with a barrier "
                       "between threads"
                     : "a host copy or memset, or a kernel's store, initializes device memory");
  exec_report_text(L, 0, x, msg, text);
}

void initcheck_begin(Launch *L) {
  if (!L->check || L->init) return;
  InitLaunch *I = calloc(1, sizeof *I);
  if (!I) return;
  I->slot = malloc(((size_t)L->prog->ncode + 1) * sizeof *I->slot);
  if (!I->slot) { free(I); return; }
  memset(I->slot, 0xff, ((size_t)L->prog->ncode + 1) * sizeof *I->slot);   /* -1 */
  I->L = L;
  I->next = L->observer;
  I->global = dev_tracks_undef(L->dev);
  I->obs = (MemObserver){observe, I, observe_lanes};
  L->init = I;
  L->observer = &I->obs;
}

void initcheck_end(Launch *L) {
  InitLaunch *I = L->init;
  if (!I) return;
  for (unsigned i = 1; i < I->nfound; i++)   /* in instruction order */
    for (unsigned j = i; j > 0 && I->found[j - 1].pc > I->found[j].pc; j--) {
      Found f = I->found[j]; I->found[j] = I->found[j - 1]; I->found[j - 1] = f;
    }
  for (unsigned i = 0; i < I->nfound; i++) emit(I, &I->found[i]);
  if (I->more) {
    char msg[160];
    snprintf(msg, sizeof msg, "uninitialized: %" PRIu64 " more instructions read uninitialized memory (the "
             "first %d are reported)", I->more, INIT_MAX);
    exec_report_text(L, 0, NULL, msg, msg);
  }
  L->observer = I->next;
  L->init = NULL;
  free(I->slot);
  free(I);
}
