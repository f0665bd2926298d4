/* race.c: the data-race checker of --check (issue 17; race.h).
 *
 * A data race is two accesses to the same byte by different threads, at
 * least one a write, at least one not atomic (atom, red, mbarrier
 * operations and strong ld/st are atomic here), that happens-before does
 * not order. Happens-before is computed exactly, whatever the schedule,
 * with vector clocks over the threads of a cluster:
 *   - each thread has a clock, bumped after each of its releases; an access
 *     is recorded as the epoch (cluster, thread, clock);
 *   - each thread's knowledge is a vector clock (made on first need), and
 *     each CTA has a floor F every one of its threads knows; a CTA barrier
 *     completion at which every non-exited thread of the CTA waited
 *     (__syncthreads) joins everything the arrivals knew into F and drops
 *     the threads' own vectors (a new generation), so barrier-only code
 *     never builds a vector;
 *   - edges: bar/barrier arrive (sync or arrive) -> the waiters of that
 *     completion; bar.warp.sync among its member lanes; barrier.cluster
 *     arrive (.release) -> the phase's completion (race_cluster_complete);
 *     mbarrier arrive (.release),
 *     complete_tx, a bulk copy's landing (tx) and cp.async.mbarrier.arrive
 *     -> a successful test_wait/try_wait (.acquire) on the object;
 *     cp.async and bulk-group copies are writes (and bulk-group reads) of
 *     agents of their thread (vector entries of their own, whose clock is
 *     the group) that wait_group / wait_all make known to the thread.
 * Threads of different clusters (and, besides the above, any two threads)
 * are ordered by release/acquire: a fence or membar, an atom/red/st with
 * .release or .acq_rel is a release of its thread (all scopes are taken as
 * .sys); a fence, any atom/red and a strong load is an acquire (the one-way
 * fences, .release/.acquire .sync_restrict: only their half, their state
 * space not told apart). A release
 * gets the next number of a launch-wide sequence, an acquire remembers the
 * sequence so far, and an access A of thread u happens before thread t
 * when a release of u after A numbers at most t's last acquire. That order
 * is the real one of this run, so it can only add edges a correct program
 * has: it never reports a race the program's flags order, but a racy
 * program whose releases and acquires are not a handoff may be found under
 * some schedules only.
 *
 * Modelled conservatively (more order than the ISA gives, so no false
 * positives, possibly missed races): exited threads count as having
 * arrived at a CTA barrier that completes without them; an mbarrier's
 * arrivals are joined over all its phases; a cluster barrier's completion
 * orders a thread that has arrived but not yet waited; any wait (barrier,
 * mbarrier, cluster) is also an acquire of every release so far; a
 * cp.async landing is checked with its thread's knowledge at landing;
 * scopes are ignored. Not reported, by choice: a plain load against
 * atomics only (the CAS-loop idiom), a store of the bytes the last write
 * left (threads storing one value), the lanes of one warp in one execution
 * of one instruction. The other .sync collectives (shfl.sync, vote.sync,
 * ...) order nothing, as the PTX memory model says. Not modelled here:
 * proxies (a bulk or tensor copy reading generic stores without
 * fence.proxy.async is proxycheck.c's finding; async landings are
 * ordinary accesses here), mbarrier.init's own ordering (an mbarrier
 * operation counts as atomic).
 * Which pairs are reported for one racy program can vary with the
 * schedule (the shadow keeps the last write and one read per granule),
 * whether it races does not.
 *
 * Shadow memory: per 4-byte granule of host memory touched, the last write
 * and one read (of concurrent readers the lowest thread), each with the
 * bytes it covered, in pages made on first touch (memory proportional to
 * what the launch touches; the writes and the reads of a page apart, 24
 * and 20 bytes a granule). A warp's coalesced load holds its reads of a
 * 128-byte line as one record (Span: 32 bytes a line, so memory only read
 * that way costs a quarter byte a byte), and coalesced loads, broadcasts
 * and coalesced stores are judged a line at a time when every granule's
 * outcome is a cheap one (observe_span, observe_bcast, observe_span_st),
 * with exactly the records lane by lane would leave. Shared memory's cells
 * are dropped when its CTA ends (its host bytes may be reused). Local and parameter memory never
 * race and are not tracked. Each distinct pair of instructions and state
 * space is reported once per launch (the lowest address, then threads, of
 * its occurrences), at most RACE_MAX pairs, at the end of the launch:
 * clusters run on one host thread under --check (launch.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "program.h"
#include "../sync/bar.h"
#include "race.h"

enum { RACE_MAX = 32, PAGE_BITS = 14, PAGE_CELLS = (1 << PAGE_BITS) / 4, LINE_CELLS = 32,
       PAGE_LINES = PAGE_CELLS / LINE_CELLS };

/* ---- launch-wide state ---- */

typedef struct Ep {            /* one access, 20 bytes */
  uint32_t cl, clk;            /* cluster index, clock; clk 0: none */
  uint32_t pc;                 /* instruction (index in Program.code) */
  uint32_t step;               /* the warp's instruction count (Warp.steps) at it */
  uint16_t tid;                /* slot in its cluster's vectors (< 4 x 16 CTAs x 1024: rcl_of) */
  uint8_t mask, kind : 4, sub : 2, remote : 1, atomic : 1;   /* bytes of the granule; AccessKind;
                                                               Ep.sub; of a peer CTA (DSMEM); atomic */
} Ep;
/* sub: 0, thread tid accessed the bytes of mask; 1 or 2, consecutive lanes of
 * one warp-wide load read sub bytes each (bytes or halves of a coalesced
 * load), the mask's lowest byte by thread tid: byte b by ep_thread(). */

/* The thread of p that accessed byte b of its mask. */
static inline uint32_t ep_thread(const Ep *p, unsigned b) {
  return p->sub ? p->tid + (b - (unsigned)__builtin_ctz(p->mask)) / p->sub : p->tid;
}

/* The bytes of p's mask that thread t of it accessed. */
static inline uint8_t ep_bytes(const Ep *p, uint32_t t) {
  if (!p->sub) return p->mask;
  unsigned at = (unsigned)__builtin_ctz(p->mask) + (t - p->tid) * p->sub;
  return (uint8_t)((((1u << p->sub) - 1) << at) & p->mask);
}

/* A shadow page: per granule the last write with the granule's value after
 * it, and apart from them the read records, so that memory only read (or
 * only written) touches only its half: W1's input costs 20 bytes of shadow
 * per 4 bytes read, not the 52 of one cell with both records. */
_Static_assert(sizeof(Ep) == 20, "Ep packs into 20 bytes");
typedef struct WCell { Ep w; uint32_t val; } WCell;   /* val: the granule after w */

/* The reads of one line (LINE_CELLS granules, 128 bytes) by one warp-wide
 * load whose lanes read consecutive granules or bytes (lg >= 0: lane l the
 * 2^lg granules from off + l 2^lg; lg < 0: 2^-lg lanes share a granule,
 * the last of them holds its record; observe_span), held as one record: a
 * coalesced load
 * then costs one record a line, not one a granule (W1's 64 MiB input: 28
 * bytes of shadow per 128, not 640). It stands for exactly the read
 * records the granules would hold (span_ep): an access that is not such a
 * load takes its granule's record out of the span first (rd_of). cover 0:
 * no span. wr: a granule of the line may hold a write record; wsafe: the
 * CTA (RCta.serial) whose floor orders every write record of the line (none
 * written since); rd: r[] may hold read records of the line. */
typedef struct Span {
  uint32_t cover;              /* granules of the line the span holds (bit i) */
  uint32_t clk, pc, step, cl;  /* as Ep's, the same for every lane */
  uint32_t wsafe;
  uint16_t tid0;               /* the thread of lane 0 */
  int8_t off;                  /* granule of the line where lane 0's would begin */
  int8_t lg;
  uint8_t kind : 7, atomic : 1;
  uint8_t wr, rd;
} Span;
_Static_assert(sizeof(Span) == 32, "Span packs into 32 bytes");
typedef struct Cells { Span s[PAGE_LINES]; WCell w[PAGE_CELLS]; Ep r[PAGE_CELLS]; } Cells;
typedef struct Page { uint64_t key; Cells *cells; } Page;

typedef struct Rel { uint32_t clk; uint64_t seq; uint32_t *F; } Rel;
/* A thread's releases (clock at each, its sequence number), or a CTA's
 * (F, the floor its threads knew at a release, with the first release's
 * number: a release after a barrier passes on what the barrier ordered). */
typedef struct RelList { uint64_t key; Rel *v; uint32_t n, cap; } RelList;

typedef struct Found {         /* one distinct race: pair of pcs and space */
  uint32_t pa, pb; int space;
  Ep a, b;                     /* a at pa, b at pb */
  uint64_t addr, end;
  uint64_t cluster;            /* order key of the finding */
} Found;

struct RaceLaunch {
  Launch *L;
  MemObserver obs;
  Page *pages; size_t npages, cappages;     /* open addressing on key */
  uint64_t last_key; Cells *last_cells;       /* the page of the last access */
  RelList *rels; size_t nrels, caprels;
  uint64_t seq;                              /* releases so far */
  uint64_t stamps;                           /* Acc stamps so far (from STAMP_ZERO) */
  uint32_t serials;                          /* RCta.serial so far */
  uint8_t *pcflags;                          /* per pc: 1 known, 2 release */
  Found found[RACE_MAX];
  unsigned nfound;
  unsigned long long more;
};

/* ---- per cluster ---- */

/* stamp: names a->v's content (a new one at each change); absorbed: a->v
 * holds the content of that stamp (a thread's vector copied from it, joined
 * in: the threads that learned one mbarrier phase then contribute the same
 * vector to the next barrier, joined once) */
typedef struct Acc { uint32_t *v; uint32_t fmask; bool arrive_only, used; uint64_t stamp, absorbed; } Acc;
enum { STAMP_ZERO = 1 };   /* a vector of zeros; 0: not known */

typedef struct RThr {
  uint32_t gen;                /* the CTA generation vc belongs to */
  uint32_t *vc;
  uint32_t grp, bgrp;          /* committed cp.async / bulk groups */
  uint32_t issue_clk;          /* clock at its latest asynchronous copy */
  uint64_t acq;                /* the release sequence at its last acquire */
  uint64_t vstamp;             /* vc is the content of that Acc stamp (or STAMP_ZERO; 0 unknown) */
} RThr;

typedef struct RCta {
  uint32_t *F; uint32_t gen;
  uint32_t vcgen;              /* gen + 1 when some thread's vc may be of gen (observe_span) */
  uint32_t serial;             /* the launch's number of the CTA (0 after 2^32: none) */
  bool fsnap;                  /* F is in the CTA's release list as it is */
  Acc bar[BAR_IDS];
} RCta;
typedef struct MbAcc { const void *obj; Acc a; } MbAcc;

typedef struct RCl {
  RaceLaunch *R;
  Cluster *cl;
  int ncta;
  uint32_t tpc, nth, nt;       /* thread slots per CTA, threads, vector size (4 nth) */
  uint32_t segs;               /* bit k: some vector holds a clock of agent kind k (AG_*);
                                  the slots of the others are 0 everywhere, so joins skip them */
  RThr *thr;
  uint32_t *clk;               /* per thread, its clock (apart from RThr: a warp's in one line) */
  uint32_t *dirty;             /* per warp, its lanes accessed memory since their last release */
  RCta *cta;
  Acc cbar;                    /* barrier.cluster: this phase's arrivals */
  MbAcc *mb; int nmb, capmb;
} RCl;

/* slots: thread, its cp.async agent, its bulk-group agent, its tx-copy agent */
enum { AG_THREAD, AG_CP, AG_BULK, AG_TX };
_Static_assert(4 * 16 * 1024 <= 65536, "a cluster's vector slots fit Ep.tid");

static void *zalloc(size_t n) { return calloc(1, n ? n : 1); }

static RCl *rcl_make(Warp *w);

/* The race state of w's cluster (made on first need). */
static inline RCl *rcl_of(Warp *w) {
  Cta *c = w->cta;
  if (c && c->cluster && c->cluster->race) return c->cluster->race;
  return rcl_make(w);
}

static RCl *rcl_make(Warp *w) {
  Launch *L = w->launch;
  Cta *c = w->cta;
  if (!L || !L->race || !c || !c->cluster) return NULL;
  Cluster *cl = c->cluster;
  if (cl->race) return cl->race;
  RCl *r = zalloc(sizeof *r);
  if (!r) return NULL;
  r->R = L->race;
  r->cl = cl;
  r->ncta = cl->ncta;
  r->tpc = (uint32_t)cl->ctas[0].nwarps * WARP_SIZE;
  r->nth = r->tpc * (uint32_t)r->ncta;
  r->nt = 4 * r->nth;   /* at most 4 x 16 CTAs x 1024 threads: Ep.tid's 16 bits */
  r->thr = zalloc((size_t)r->nth * sizeof *r->thr);
  r->cta = zalloc((size_t)r->ncta * sizeof *r->cta);
  r->dirty = zalloc((size_t)r->nth / WARP_SIZE * 4);
  r->clk = malloc((size_t)r->nth * 4);
  if (!r->thr || !r->cta || !r->dirty || !r->clk) {
    free(r->thr); free(r->cta); free(r->dirty); free(r->clk); free(r);
    return NULL;
  }
  for (uint32_t i = 0; i < r->nth; i++) r->clk[i] = 1;
  r->segs = 1u << AG_THREAD;
  for (int i = 0; i < r->ncta; i++) {
    r->cta[i].F = zalloc((size_t)r->nt * 4);
    r->cta[i].serial = r->R->serials == UINT32_MAX ? 0 : ++r->R->serials;
    BarCta *b = sync_bar_state(&cl->ctas[i]);   /* the completion callback */
    if (b) { b->on_complete = race_bar_complete; b->on_ctx = &cl->ctas[i]; }
  }
  cl->race = r;
  return r;
}

static uint32_t tid_of(const RCl *r, const Warp *w, int lane) {
  return w->cta->rank * r->tpc + (uint32_t)w->id * WARP_SIZE + (uint32_t)lane;
}

/* d = max(d, s) by element; four at a time (the mbarrier joins of a
 * pipeline take whole vectors per arrive and per wait: W4's cost) */
typedef uint32_t V4 __attribute__((vector_size(16)));
static void vmax(uint32_t *d, const uint32_t *s, uint32_t n) {
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    V4 x, y;
    memcpy(&x, d + i, sizeof x);
    memcpy(&y, s + i, sizeof y);
    V4 m = (V4)(y > x);
    x = (y & m) | (x & ~m);
    memcpy(d + i, &x, sizeof x);
  }
  for (; i < n; i++) d[i] = s[i] > d[i] ? s[i] : d[i];
}

/* d = max(d, s) and v = 0 over the slots of the agent kinds in use */
static void join(const RCl *r, uint32_t *d, const uint32_t *s) {
  for (uint32_t m = r->segs; m; m &= m - 1) {
    uint32_t k = (uint32_t)__builtin_ctz(m) * r->nth;
    vmax(d + k, s + k, r->nth);
  }
}

static void vcopy(const RCl *r, uint32_t *d, const uint32_t *s) {
  for (uint32_t m = r->segs; m; m &= m - 1) {
    uint32_t k = (uint32_t)__builtin_ctz(m) * r->nth;
    memcpy(d + k, s + k, (size_t)r->nth * 4);
  }
}

static void vzero(const RCl *r, uint32_t *v) {
  for (uint32_t m = r->segs; m; m &= m - 1) memset(v + (uint32_t)__builtin_ctz(m) * r->nth, 0, (size_t)r->nth * 4);
}

/* Thread t's vector of the current generation (made, or cleared, now). */
static uint32_t *vc_of(RCl *r, uint32_t t) {
  RThr *h = &r->thr[t];
  RCta *c = &r->cta[t / r->tpc];
  if (!h->vc) {
    if (!(h->vc = zalloc((size_t)r->nt * 4))) return NULL;
    h->vstamp = STAMP_ZERO;
  }
  if (h->gen != c->gen) { vzero(r, h->vc); h->gen = c->gen; h->vstamp = STAMP_ZERO; }
  c->vcgen = c->gen + 1;
  return h->vc;
}

static const uint32_t *vc_valid(const RCl *r, uint32_t t) {
  const RThr *h = &r->thr[t];
  return h->vc && h->gen == r->cta[t / r->tpc].gen ? h->vc : NULL;
}

/* Whether thread t (of r) knows epoch clock clk of slot s. */
static bool knows(const RCl *r, uint32_t t, uint32_t s, uint32_t clk) {
  if (clk <= r->cta[t / r->tpc].F[s]) return true;
  const uint32_t *v = vc_valid(r, t);
  return v && clk <= v[s];
}

static bool acc_make(const RCl *r, Acc *a) {
  if (!a->v && !(a->v = zalloc((size_t)r->nt * 4))) return false;
  if (!a->used) {
    vzero(r, a->v);
    a->fmask = 0; a->arrive_only = false; a->used = true;
    a->stamp = ++r->R->stamps; a->absorbed = 0;
  }
  return true;
}

/* What thread t knows and has done goes into a (a release); t's clock moves on. */
static void contribute(RCl *r, uint32_t t, Acc *a) {
  if (!acc_make(r, a)) return;
  RThr *h = &r->thr[t];
  const uint32_t *v = vc_valid(r, t);
  if (v && h->vstamp != STAMP_ZERO && (!h->vstamp || h->vstamp != a->absorbed)) {
    join(r, a->v, v);
    if (h->vstamp) a->absorbed = h->vstamp;
  }
  if (r->clk[t] > a->v[t]) a->v[t] = r->clk[t];
  a->stamp = ++r->R->stamps;
  a->fmask |= 1u << (t / r->tpc);
  r->clk[t]++;
}

/* Thread t learns a (an acquire): a copy of a's vector when t's own is of
 * an older generation or zero, nothing when it is a's vector already. */
static void learn(RCl *r, uint32_t t, const Acc *a) {
  r->thr[t].acq = r->R->seq;   /* a wait is an acquire: fence; relaxed arrive -> wait */
  if (!a->used || !a->v) return;
  RThr *h = &r->thr[t];
  RCta *c = &r->cta[t / r->tpc];
  bool fresh = !h->vc || h->gen != c->gen || h->vstamp == STAMP_ZERO, same = !fresh && h->vstamp == a->stamp;
  if (!h->vc) {   /* copied below, but the slots of kinds not in use are 0 */
    if (!(h->vc = malloc((size_t)r->nt * 4))) return;
    for (uint32_t k = 0; k < 4; k++)
      if (!(r->segs >> k & 1)) memset(h->vc + k * r->nth, 0, (size_t)r->nth * 4);
  }
  if (fresh) vcopy(r, h->vc, a->v);
  else if (!same) join(r, h->vc, a->v);
  h->gen = c->gen;
  c->vcgen = c->gen + 1;
  uint32_t own = t / r->tpc, others = a->fmask & ~(1u << own);
  for (uint32_t m = others; m; m &= m - 1) join(r, h->vc, r->cta[__builtin_ctz(m)].F);
  h->vstamp = !others && (fresh || same) ? a->stamp : 0;
}

/* ---- release / acquire by sequence ---- */

static RelList *rel_list(RaceLaunch *R, uint64_t key, bool make) {
  if (R->caprels) {
    for (size_t i = key * 0x9E3779B97F4A7C15ull >> 20 & (R->caprels - 1);; i = (i + 1) & (R->caprels - 1)) {
      if (R->rels[i].cap && R->rels[i].key == key) return &R->rels[i];
      if (!R->rels[i].cap) break;
    }
  }
  if (!make) return NULL;
  if (2 * (R->nrels + 1) > R->caprels) {
    size_t cap = R->caprels ? 2 * R->caprels : 256;
    RelList *n = zalloc(cap * sizeof *n);
    if (!n) return NULL;
    for (size_t j = 0; j < R->caprels; j++) {
      if (!R->rels[j].cap) continue;
      size_t i = R->rels[j].key * 0x9E3779B97F4A7C15ull >> 20 & (cap - 1);
      while (n[i].cap) i = (i + 1) & (cap - 1);
      n[i] = R->rels[j];
    }
    free(R->rels);
    R->rels = n;
    R->caprels = cap;
  }
  size_t i = key * 0x9E3779B97F4A7C15ull >> 20 & (R->caprels - 1);
  while (R->rels[i].cap) i = (i + 1) & (R->caprels - 1);
  RelList *l = &R->rels[i];
  l->key = key;
  l->v = malloc(4 * sizeof *l->v);
  if (!l->v) return NULL;
  l->cap = 4;
  R->nrels++;
  return l;
}

static bool rel_push(RelList *l, Rel e) {
  if (l->n == l->cap) {
    Rel *v = realloc(l->v, 2 * l->cap * sizeof *v);
    if (!v) return false;
    l->v = v;
    l->cap *= 2;
  }
  l->v[l->n++] = e;
  return true;
}

/* Keys of the release lists: a thread's, a CTA's floor. */
static uint64_t thr_key(uint64_t cl, uint32_t t) { return cl << 32 | t; }
static uint64_t cta_key(uint64_t cl, uint32_t rank) { return cl << 32 | 0x80000000u | rank; }

static void release_seq(RCl *r, uint32_t t) {
  RaceLaunch *R = r->R;
  RCta *c = &r->cta[t / r->tpc];
  if (!c->fsnap) {   /* what the CTA's barriers ordered goes with this release */
    RelList *fl = rel_list(R, cta_key(r->cl->index, t / r->tpc), true);
    uint32_t *F = fl ? malloc((size_t)r->nt * 4) : NULL;
    if (F) {
      memcpy(F, c->F, (size_t)r->nt * 4);
      if (rel_push(fl, (Rel){0, R->seq + 1, F})) c->fsnap = true;
      else free(F);
    }
  }
  RelList *l = rel_list(R, thr_key(r->cl->index, t), true);
  R->seq++;
  if (!l) return;
  uint32_t *d = &r->dirty[t / WARP_SIZE], b = 1u << (t % WARP_SIZE);
  if (l->n && !(*d & b)) return;   /* nothing new since its last release, which covers all */
  if (!rel_push(l, (Rel){r->clk[t], R->seq, NULL})) return;
  r->clk[t]++;
  *d &= ~b;
}

/* Whether a release of thread slot s of cluster cl after clock clk numbers
 * at most acq. */
static bool released_to(RaceLaunch *R, uint32_t cl, uint32_t s, uint32_t clk, uint64_t acq,
                        uint32_t ncta) {
  if (!R->nrels) return false;   /* no release in the launch so far */
  RelList *l = rel_list(R, thr_key(cl, s), false);
  if (l) {
    uint32_t lo = 0, hi = l->n;   /* the first entry with clock >= clk */
    while (lo < hi) { uint32_t m = (lo + hi) / 2; if (l->v[m].clk < clk) lo = m + 1; else hi = m; }
    if (lo < l->n && l->v[lo].seq <= acq) return true;
  }
  for (uint32_t k = 0; k < ncta; k++) {   /* a CTA's release after a barrier that ordered it */
    RelList *f = rel_list(R, cta_key(cl, k), false);
    if (!f) continue;
    uint32_t lo = 0, hi = f->n;   /* floors only grow: the first that holds clk */
    while (lo < hi) { uint32_t m = (lo + hi) / 2; if (f->v[m].F[s] < clk) lo = m + 1; else hi = m; }
    if (lo < f->n && f->v[lo].seq <= acq) return true;
  }
  return false;
}

/* ---- happens-before of a recorded access and the current one ---- */

typedef struct Cur {           /* the current access */
  RCl *r;
  uint32_t t;                  /* its thread (for an agent: the issuing thread) */
  Ep e;                        /* its epoch (tid: the agent's slot for an agent) */
  const uint32_t *F;           /* the floor of t's CTA */
  const uint32_t *vc;          /* t's vector (vc_valid) */
} Cur;

static bool hb_slow(const Cur *c, const Ep *p) {
  const RCl *r = c->r;
  if (p->cl == c->e.cl) {
    if (p->tid == c->e.tid) return true;   /* program order (an agent's copies in order) */
    /* lanes of one warp in one execution of one instruction: one warp-wide
       access (lanes storing a shared value, as compilers emit) */
    if (p->pc == c->e.pc && p->step == c->e.step && p->tid / WARP_SIZE == c->e.tid / WARP_SIZE &&
        p->tid < r->nth && c->e.tid < r->nth)
      return true;
    if (p->tid == c->t && c->e.tid != c->t) return p->clk <= r->thr[c->t].issue_clk;
    if (knows(r, c->t, p->tid, p->clk)) return true;
  }
  return released_to(r->R, p->cl, p->tid, p->clk, r->thr[c->t].acq, (uint32_t)r->ncta);
}

/* hb_slow inlined for a thread's own access in its cluster, the common
 * case, with its tests in cheapest-first order (an agent's access goes
 * through its issuing thread: hb_slow) */
static inline bool hb(const Cur *c, const Ep *p) {
  if (p->cl != c->e.cl || c->e.tid != c->t) return hb_slow(c, p);
  if (p->tid == c->e.tid || p->clk <= c->F[p->tid]) return true;
  if (p->pc == c->e.pc && p->step == c->e.step && p->tid / WARP_SIZE == c->e.tid / WARP_SIZE &&
      p->tid < c->r->nth)
    return true;
  if (c->vc && p->clk <= c->vc[p->tid]) return true;
  return c->r->R->nrels && released_to(c->r->R, p->cl, p->tid, p->clk, c->r->thr[c->t].acq,
                                       (uint32_t)c->r->ncta);
}

/* ---- shadow memory ---- */

static Cells *cells_find(RaceLaunch *R, uint64_t key);

static Cells *cells_of(RaceLaunch *R, uint64_t key) {
  if (R->last_cells && R->last_key == key) return R->last_cells;
  Cells *c = cells_find(R, key);
  if (c) { R->last_key = key; R->last_cells = c; }
  return c;
}

static Cells *cells_find(RaceLaunch *R, uint64_t key) {
  if (R->cappages) {
    for (size_t i = key * 0x9E3779B97F4A7C15ull >> 24 & (R->cappages - 1);; i = (i + 1) & (R->cappages - 1)) {
      if (!R->pages[i].cells) break;
      if (R->pages[i].key == key) return R->pages[i].cells;
    }
  }
  if (2 * (R->npages + 1) > R->cappages) {
    size_t cap = R->cappages ? 2 * R->cappages : 1024;
    Page *n = zalloc(cap * sizeof *n);
    if (!n) return NULL;
    for (size_t j = 0; j < R->cappages; j++) {
      if (!R->pages[j].cells) continue;
      size_t i = R->pages[j].key * 0x9E3779B97F4A7C15ull >> 24 & (cap - 1);
      while (n[i].cells) i = (i + 1) & (cap - 1);
      n[i] = R->pages[j];
    }
    free(R->pages);
    R->pages = n;
    R->cappages = cap;
  }
  size_t i = key * 0x9E3779B97F4A7C15ull >> 24 & (R->cappages - 1);
  while (R->pages[i].cells) i = (i + 1) & (R->cappages - 1);
  /* fresh zero pages from the system: touched (and so made) only where
     the launch accesses, with no memset (calloc clears pages it reuses) */
  void *m = mmap(NULL, sizeof(Cells), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  Cells *c = m;
  R->pages[i] = (Page){key, c};
  R->npages++;
  return c;
}

/* Cells of [p, p + n), n a multiple of 4 and p 4-aligned, if any exist. */
static void cells_clear(RaceLaunch *R, uintptr_t p, size_t n) {
  for (uintptr_t a = p; a < p + n;) {
    uint64_t key = a >> PAGE_BITS;
    uintptr_t end = (key + 1) << PAGE_BITS;
    if (end > p + n) end = p + n;
    for (size_t i = key * 0x9E3779B97F4A7C15ull >> 24 & (R->cappages - 1); R->cappages;
         i = (i + 1) & (R->cappages - 1)) {
      if (!R->pages[i].cells) break;
      if (R->pages[i].key != key) continue;
      size_t lo = (a & ((1u << PAGE_BITS) - 1)) / 4, hi = lo + (end - a + 3) / 4;
      Cells *c = R->pages[i].cells;
      memset(&c->w[lo], 0, (hi - lo) * sizeof(WCell));
      memset(&c->r[lo], 0, (hi - lo) * sizeof(Ep));
      for (size_t g = lo; g < hi;) {   /* the spans' granules in the range */
        size_t li = g / LINE_CELLS, e = (li + 1) * LINE_CELLS < hi ? (li + 1) * LINE_CELLS : hi;
        if (g == li * LINE_CELLS && e == (li + 1) * LINE_CELLS) memset(&c->s[li], 0, sizeof(Span));
        else c->s[li].cover &= ~(uint32_t)((((uint64_t)1 << (e - g)) - 1) << (g % LINE_CELLS));
        g = e;
      }
      break;
    }
    a = end;
  }
}

/* The read record granule gi of line s stands for (gi in s->cover). */
/* The first and the last lane reading granule gi of a line whose span
 * would have lane 0 at off, lanes at lg (Span.lg). */
static inline uint32_t span_first(int gi, int off, int lg) {
  return lg >= 0 ? (uint32_t)((gi - off) >> lg) : (uint32_t)((gi - off) << -lg);
}
static inline uint32_t span_last(int gi, int off, int lg) {
  return lg >= 0 ? (uint32_t)((gi - off) >> lg) : (uint32_t)(((gi - off + 1) << -lg) - 1);
}

static inline Ep span_ep(const Span *s, unsigned gi) {
  return (Ep){.cl = s->cl, .clk = s->clk, .pc = s->pc, .step = s->step,
              .tid = (uint16_t)(s->tid0 + span_first((int)gi, s->off, s->lg)), .mask = 0xf,
              .kind = s->kind & 7, .sub = s->lg == -2 ? 1 : s->lg == -1 ? 2 : 0, .atomic = s->atomic};
}

/* Granule i's read record, taken out of its line's span first. */
static inline Ep *rd_of(Cells *c, size_t i) {
  Span *s = &c->s[i / LINE_CELLS];
  uint32_t b = 1u << (i % LINE_CELLS);
  if (s->cover & b) { c->r[i] = span_ep(s, (unsigned)(i % LINE_CELLS)); s->cover &= ~b; }
  if (!s->rd) s->rd = 1;
  return &c->r[i];
}

/* Granule i's write cell, for an access that may write it. */
static inline WCell *wc_of(Cells *c, size_t i, bool write) {
  Span *s = &c->s[i / LINE_CELLS];
  if (write) {
    if (!s->wr) s->wr = 1;
    if (s->wsafe) s->wsafe = 0;
  }
  return &c->w[i];
}

/* ---- findings ---- */

static int ep_cmp(const Ep *x, const Ep *y) {
  if (x->cl != y->cl) return x->cl < y->cl ? -1 : 1;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  return 0;
}

enum { SPC_SHARED, SPC_CLUSTER, SPC_GLOBAL };

static void found(RaceLaunch *R, const Ep *p, const Ep *q, int space, uint64_t addr, uint64_t end,
                  uint64_t cluster) {
  /* a pair one of whose accesses reached the bytes from a peer CTA is of
     .shared::cluster, whichever of them came second */
  if (space == SPC_SHARED && (p->remote || q->remote)) space = SPC_CLUSTER;
  uint64_t d;   /* .global: the device address, not the host's (which varies run to run) */
  if (space == SPC_GLOBAL && dev_addr_of(R->L->dev, (const void *)(uintptr_t)addr, &d)) {
    end = d + (end - addr);
    addr = d;
  }
  const Ep *a = p, *b = q;
  if (a->pc > b->pc || (a->pc == b->pc && ep_cmp(a, b) > 0)) { a = q; b = p; }
  for (unsigned i = 0; i < R->nfound; i++) {
    Found *f = &R->found[i];
    if (f->pa != a->pc || f->pb != b->pc || f->space != space) continue;
    int c = addr != f->addr ? (addr < f->addr ? -1 : 1) : ep_cmp(a, &f->a) ? ep_cmp(a, &f->a) : ep_cmp(b, &f->b);
    if (c < 0) { f->a = *a; f->b = *b; f->addr = addr; f->end = end; }
    if (cluster < f->cluster) f->cluster = cluster;
    return;
  }
  if (R->nfound == RACE_MAX) { R->more++; return; }
  R->found[R->nfound++] = (Found){a->pc, b->pc, space, *a, *b, addr, end, cluster};
}

static const char *kind_name(int k, bool atomic) {
  switch ((AccessKind)k) {
  case ACC_LD: return atomic ? "strong ld" : "ld";
  case ACC_ST: return atomic ? "strong st" : "st";
  case ACC_ATOM: return "atom";
  case ACC_ASYNC_RD: return "async copy read";
  case ACC_ASYNC_WR: return "async copy write";
  default: return "printf read";
  }
}

/* "%ctaid (x,y,z) %tid (x,y,z)" of thread slot s of the cluster of linear index ci. */
static void thread_text(const Launch *L, uint32_t ci, uint32_t s, uint32_t nth, uint32_t tpc,
                        char *buf, size_t n) {
  uint32_t cd[3], nc[3], cid[3];
  for (int i = 0; i < 3; i++) { cd[i] = L->cluster[i] ? L->cluster[i] : 1; nc[i] = L->grid[i] / cd[i]; }
  cid[0] = ci % nc[0]; cid[1] = ci / nc[0] % nc[1]; cid[2] = ci / nc[0] / nc[1];
  uint32_t th = s % nth, rank = th / tpc, lin = th % tpc, ag = s / nth;
  uint32_t ct[3] = {cid[0] * cd[0] + rank % cd[0], cid[1] * cd[1] + rank / cd[0] % cd[1],
                    cid[2] * cd[2] + rank / cd[0] / cd[1]};
  const uint32_t *b = L->block;
  snprintf(buf, n, "%%ctaid (%u,%u,%u) %%tid (%u,%u,%u)%s", ct[0], ct[1], ct[2], lin % b[0],
           lin / b[0] % b[1], lin / b[0] / b[1], ag == AG_THREAD ? "" : " (its asynchronous copy)");
}

static const char *space_text[] = {".shared", ".shared::cluster", ".global"};

static void emit(RaceLaunch *R, const Found *f, uint32_t nth, uint32_t tpc) {
  Launch *L = R->L;
  const Program *p = L->prog;
  char wa[320], wb[320], ta[96], tb[96], msg[1200], text[1400];
  exec_where(p, &p->code[f->pa], wa, sizeof wa);
  exec_where(p, &p->code[f->pb], wb, sizeof wb);
  thread_text(L, f->a.cl, f->a.tid, nth, tpc, ta, sizeof ta);
  thread_text(L, f->b.cl, f->b.tid, nth, tpc, tb, sizeof tb);
  snprintf(msg, sizeof msg, "data race on %s: %s at %s by %s and %s at %s by %s, bytes [0x%llx, "
           "0x%llx): no synchronization orders them", space_text[f->space],
           kind_name(f->a.kind, f->a.atomic), wa, ta, kind_name(f->b.kind, f->b.atomic), wb, tb,
           (unsigned long long)f->addr, (unsigned long long)f->end);
  snprintf(text, sizeof text, "%s\n  in kernel %s (a missing barrier, __syncwarp, mbarrier wait or "
           "cp.async wait, or a flag without release/acquire)", msg, L->kernel->name);
  exec_report_text(L, f->cluster, &p->code[f->pb], msg, text);
}

/* ---- the observer ---- */

/* Release/acquire flags of the instruction at pc (cached). */
static bool pc_release(RaceLaunch *R, const XInsn *x, uint32_t pc) {
  if (!R->pcflags[pc]) {
    const Insn *in = x->src;
    bool rel = in && (insn_has_mod(in, ".release") || insn_has_mod(in, ".acq_rel"));
    R->pcflags[pc] = rel ? 2 : 1;
  }
  return R->pcflags[pc] == 2;
}

static int space_of(const Warp *w, const void *host, uint32_t n, bool *skip) {
  const Cta *c = w->cta;
  const uint8_t *p = host;
  *skip = false;
  if (c->shared && p >= c->shared && p < c->shared + c->shared_size) return SPC_SHARED;
  if (w->local && p >= w->local && p < w->local + (size_t)w->local_size * WARP_SIZE) { *skip = true; return 0; }
  const Launch *L = w->launch;
  if (p >= L->params && p < L->params + L->param_size) { *skip = true; return 0; }
  if (c->cluster && c->cluster->ncta > 1 && cluster_cta_of(w, host, n)) return SPC_CLUSTER;
  return SPC_GLOBAL;
}

/* The bits of a granule's bytes in mask m. */
static const uint32_t byte_mask[16] = {
  0, 0xff, 0xff00, 0xffff, 0xff0000, 0xff00ff, 0xffff00, 0xffffff, 0xff000000, 0xff0000ff,
  0xff00ff00, 0xff00ffff, 0xffff0000, 0xffff00ff, 0xffffff00, 0xffffffff};

/* A read of bytes m (c->e: 1 or 2 bytes, a thread's) joining the read
 * record rd of other lanes of the same warp and load instruction at the
 * same clock (lanes of one coalesced load, in one execution or in the
 * parts independent thread scheduling runs it in): false when it does not
 * fit rd's lanes-to-bytes map (Ep.sub); else rd holds it too (true). */
static inline bool ep_join(const Cur *c, Ep *rd, uint8_t m) {
  const Ep *cur = &c->e;
  unsigned n = (unsigned)__builtin_popcount(m);
  if ((n != 1 && n != 2) || rd->pc != cur->pc || rd->cl != cur->cl || rd->clk != cur->clk ||
      rd->kind != cur->kind || rd->atomic != cur->atomic || rd->tid / WARP_SIZE != cur->tid / WARP_SIZE ||
      cur->tid >= c->r->nth || rd->tid >= c->r->nth)
    return false;
  if (rd->sub && (ep_bytes(rd, cur->tid) & m) == m && ep_thread(rd, (unsigned)__builtin_ctz(m)) == cur->tid)
    return true;   /* its own bytes again: held already */
  if ((rd->mask & m) || (rd->sub ? rd->sub != n : (unsigned)__builtin_popcount(rd->mask) != n ||
                         (unsigned)(rd->mask >> __builtin_ctz(rd->mask)) != (1u << n) - 1))
    return false;
  int d = __builtin_ctz(m) - __builtin_ctz(rd->mask);   /* bytes from rd's lowest */
  if (d % (int)n || (int)cur->tid != (int)rd->tid + d / (int)n) return false;
  if (d < 0) rd->tid = cur->tid;
  rd->sub = (uint8_t)(n & 3);
  rd->mask |= m;
  return true;
}

static inline __attribute__((always_inline)) void check_cell(RaceLaunch *R, const Cur *c, WCell *cell, Ep *rd, uint8_t m,
                                                            bool write, int space,
                       uint64_t gaddr, const uint8_t *host) {
  const Ep *cur = &c->e;
  bool atomic = cur->atomic;
  Ep *w = &cell->w;
  uint32_t now = 0, bm = 0;
  if (write) {   /* the granule's bytes after this write (observed after it) */
    memcpy(&now, host, 4);
    bm = byte_mask[m & 0xf];
    /* a silent store (the bytes the last write left, stored again: lanes or
       threads storing one value, as compilers emit for reductions) changes
       nothing any reader can see: not a race, and the last write stays */
    if (w->clk && !atomic && !w->atomic && (w->mask & m) == m && ((now ^ cell->val) & bm) == 0) return;
  }
  for (int k = 0; k < 2; k++) {
    Ep *p = k ? rd : w;
    if (!p->clk || !(p->mask & m) || (k && !write) || (atomic && p->atomic)) continue;
    /* a plain load racing only with atomics reads one of the values, as a
       relaxed load would: the CAS-loop idiom (old = *p; do ... atomicCAS)
       is not reported; a plain store against an atomic is */
    if ((p->kind == ACC_ATOM && cur->kind == ACC_LD) || (cur->kind == ACC_ATOM && p->kind == ACC_LD && !p->atomic))
      continue;
    for (uint8_t rest = p->mask & m; rest;) {   /* each reading thread of the bytes alone */
      Ep q = *p;
      q.tid = (uint16_t)ep_thread(p, (unsigned)__builtin_ctz(rest));
      q.mask = ep_bytes(p, q.tid);
      q.sub = 0;
      uint8_t o = q.mask & m;
      rest &= (uint8_t)~q.mask;
      if (hb(c, &q)) continue;
      uint64_t lo = gaddr + (uint64_t)__builtin_ctz(o), hi = gaddr + 32 - (uint64_t)__builtin_clz(o);
      found(R, &q, cur, space, lo, hi, c->r->cl->index);
    }
  }
  if (write) {
    uint8_t keep = w->clk && w->tid == cur->tid && w->cl == cur->cl ? w->mask & ~m : 0;
    *w = *cur;
    w->mask = m | keep;
    cell->val = (cell->val & ~bm) | (now & bm);
    if (rd->clk && rd->sub) {   /* the lanes whose bytes it wrote leave the record */
      uint8_t drop = 0;
      for (uint8_t o = rd->mask & m; o; o &= (uint8_t)~drop) drop |= ep_bytes(rd, ep_thread(rd, (unsigned)__builtin_ctz(o)));
      uint8_t left = rd->mask & (uint8_t)~drop;
      if (!left) rd->clk = 0;
      else {
        rd->tid = (uint16_t)ep_thread(rd, (unsigned)__builtin_ctz(left));
        rd->mask = left;
      }
    } else if (rd->clk && (rd->mask & ~m) == 0) rd->clk = 0;
    else rd->mask &= (uint8_t)~m;
  } else if (rd->clk && rd->mask && ep_join(c, rd, m)) {
    /* another lane of the same load: one record of both (Ep.sub), not the
       later lane's alone, whichever order the lanes ran in */
  } else if (!rd->clk || !rd->mask || ep_cmp(cur, rd) <= 0 || hb(c, rd)) {
    uint8_t keep = rd->clk && !rd->sub && rd->tid == cur->tid && rd->cl == cur->cl ? rd->mask & ~m : 0;
    *rd = *cur;
    rd->mask = m | keep;
  }
}

/* What one warp instruction's accesses share (worked out once a warp). */
typedef struct Ins {
  RaceLaunch *R;
  RCl *r;
  Warp *w;
  const XInsn *x;
  uint32_t pc;
  AccessKind kind;
  bool atomic, write, release;
} Ins;

static bool ins_init(Ins *in, RaceLaunch *R, Warp *w, const XInsn *x, AccessKind kind, bool strong) {
  RCl *r = rcl_of(w);
  if (!r) return false;
  uint32_t pc = x ? (uint32_t)(x - R->L->prog->code) : 0;
  *in = (Ins){R, r, w, x, pc, kind, kind == ACC_ATOM || strong,
              kind == ACC_ST || kind == ACC_ATOM || kind == ACC_ASYNC_WR,
              (kind == ACC_ATOM || kind == ACC_ST) && x && pc_release(R, x, pc)};
  return true;
}

/* One lane's access of size bytes at host (async, seq: MemAccess's). */
static void observe_lane(const Ins *in, int lane, const void *host, uint32_t size, uint8_t async,
                         uint32_t seq) {
  RaceLaunch *R = in->R;
  RCl *r = in->r;
  Warp *w = in->w;
  AccessKind kind = in->kind;
  bool skip;
  int space = space_of(w, host, size, &skip);
  if (skip) return;
  uint32_t t = tid_of(r, w, lane);
  RThr *h = &r->thr[t];
  /* acquires before the access, releases after it */
  if (kind == ACC_ATOM || (kind == ACC_LD && in->atomic)) h->acq = R->seq;
  if (kind == ACC_ASYNC_RD) { h->issue_clk = r->clk[t]; r->clk[t]++; }   /* an issue: the copy's agent
                                                                       knows what came before */
  Cur c = {r, t, {.cl = (uint32_t)r->cl->index, .clk = r->clk[t], .pc = in->pc, .step = (uint32_t)w->steps,
                   .tid = (uint16_t)t, .mask = 0, .kind = kind & 7, .remote = space == SPC_CLUSTER,
                   .atomic = in->atomic},
           r->cta[t / r->tpc].F, vc_valid(r, t)};
  if (kind == ACC_ASYNC_WR || (kind == ACC_ASYNC_RD && space != SPC_GLOBAL)) {
    /* an agent: cp.async writes its group, bulk-group copies read and
       write theirs, tx copies land with their issue-order number */
    int ag = kind == ACC_ASYNC_RD ? AG_BULK : async == 1 ? AG_CP : async == 2 ? AG_BULK : AG_TX;
    c.e.tid = (uint16_t)((uint32_t)ag * r->nth + t);
    c.e.clk = kind == ACC_ASYNC_RD ? h->bgrp + 1 : seq;
  }
  const uint8_t *lo = host, *hi = lo + size;
  uintptr_t base = space == SPC_GLOBAL ? 0 : (uintptr_t)w->cta->shared;
  if (space == SPC_CLUSTER) base = (uintptr_t)cluster_cta_of(w, host, size)->shared;
  for (uintptr_t g = (uintptr_t)lo & ~(uintptr_t)3; g < (uintptr_t)hi; g += 4) {
    Cells *cells = cells_of(R, g >> PAGE_BITS);
    if (!cells) return;
    size_t i = (g >> 2) & (PAGE_CELLS - 1);
    uintptr_t s = g < (uintptr_t)lo ? (uintptr_t)lo : g, e = g + 4 < (uintptr_t)hi ? g + 4 : (uintptr_t)hi;
    uint8_t m = (uint8_t)(((1u << (e - s)) - 1) << (s - g));
    c.e.mask = m;
    check_cell(R, &c, wc_of(cells, i, in->write), rd_of(cells, i), m, in->write, space,
               (uint64_t)(g - base), (const uint8_t *)g);
  }
  r->dirty[t / WARP_SIZE] |= 1u << (t % WARP_SIZE);
  if (in->release) release_seq(r, t);
}

static void observe(void *ctx, const MemAccess *a) {
  Ins in;
  if (!a->size || !ins_init(&in, ctx, a->w, a->x, a->kind, a->strong)) return;
  observe_lane(&in, a->lane, a->host, a->size, a->async, a->seq);
}

/* check_cell for a weak ld or st of a whole granule by the thread itself
 * (c->e.tid == c->t, mask 0xf), when each pair resolves by the cheap tests
 * (program order, the CTA floor, one warp-wide access): true when it did
 * what check_cell does; false, the cell untouched, to leave it to check_cell. */
static inline bool cell_fast(const Cur *c, WCell *cell, Ep *rd, bool write, const uint8_t *host) {
  const Ep *cur = &c->e;
  Ep *w = &cell->w;
  if (!write) {
    if (w->clk && w->kind != ACC_ATOM &&
        !(w->cl == cur->cl && (w->tid == cur->tid || w->clk <= c->F[w->tid])))
      return false;
    if (!rd->clk || !rd->mask || ep_cmp(cur, rd) <= 0 || hb(c, rd)) { *rd = *cur; rd->mask = 0xf; }
    return true;
  }
  uint32_t now;
  memcpy(&now, host, 4);
  if (w->clk && !w->atomic && w->mask == 0xf && now == cell->val) return true;   /* a silent store */
  if (w->clk && !(w->cl == cur->cl && (w->tid == cur->tid || w->clk <= c->F[w->tid]))) return false;
  if (rd->clk && rd->mask && (rd->sub || !(rd->cl == cur->cl && (rd->tid == cur->tid || rd->clk <= c->F[rd->tid]))))
    return false;
  *w = *cur;
  w->mask = 0xf;
  cell->val = now;
  rd->clk = 0;
  return true;
}

/* The lanes of a warp-wide access (observe_lanes) in lane order, exactly
 * as observe_lane would take them (distributed shared memory goes to it).
 * whole (a constant, so that each use is its own loop): a weak ld or st of
 * whole granules, which takes cell_fast first and no acquire or release. */
static inline __attribute__((always_inline)) void lanes_loop(const Ins *in, const MemLanes *a, bool whole) {
  RaceLaunch *R = in->R;
  RCl *r = in->r;
  Warp *w = a->w;
  bool acquire = !whole && (a->kind == ACC_ATOM || (a->kind == ACC_LD && in->atomic));
  uint32_t t0 = tid_of(r, w, 0), gen = r->cta[w->cta->rank].gen;
  Cur c = {r, t0, {.cl = (uint32_t)r->cl->index, .clk = 0, .pc = in->pc, .step = (uint32_t)w->steps,
                    .tid = (uint16_t)t0, .mask = 0xf, .kind = a->kind & 7, .atomic = in->atomic},
            r->cta[w->cta->rank].F, NULL};
  const uint8_t *sh = w->cta->shared, *she = sh ? sh + w->cta->shared_size : NULL;
  WCell *prev = NULL;   /* the cell the previous lane's read took as its own (a broadcast) */
  for (uint32_t lm = a->mask; lm; lm &= lm - 1) {
    int l = __builtin_ctz(lm);
    const uint8_t *host = a->host[l];
    bool skip = false;
    int space = whole && ((uintptr_t)host & 3) ? SPC_CLUSTER
              : host >= sh && host < she ? SPC_SHARED
              : a->sp == SP_GLOBAL ? SPC_GLOBAL   /* a device allocation (mem_ptr) */
              : space_of(w, host, a->size, &skip);
    if (space == SPC_CLUSTER) { observe_lane(in, l, host, a->size, 0, 0); prev = NULL; continue; }
    if (skip) continue;
    uint32_t t = t0 + (uint32_t)l;
    RThr *h = &r->thr[t];
    if (acquire) h->acq = R->seq;
    c.t = t;
    c.e.tid = (uint16_t)t;
    c.e.clk = r->clk[t];
    c.vc = h->vc && h->gen == gen ? h->vc : NULL;
    uintptr_t base = space == SPC_GLOBAL ? 0 : (uintptr_t)sh;
    uintptr_t lo = (uintptr_t)host, hi = lo + a->size;
    for (uintptr_t g = lo & ~(uintptr_t)3; g < hi; g += 4) {
      Cells *cells = cells_of(R, g >> PAGE_BITS);
      if (!cells) return;
      size_t i = (g >> 2) & (PAGE_CELLS - 1);
      WCell *cell = wc_of(cells, i, in->write);
      Ep *rd = rd_of(cells, i);
      if (!whole) {
        uintptr_t s = g < lo ? lo : g, e = g + 4 < hi ? g + 4 : hi;
        uint8_t m = (uint8_t)(((1u << (e - s)) - 1) << (s - g));
        c.e.mask = m;
        check_cell(R, &c, cell, rd, m, in->write, space, (uint64_t)(g - base), (const uint8_t *)g);
        continue;
      }
      const Ep *pw = &cell->w;
      if (cell == prev &&
          (!pw->clk || pw->kind == ACC_ATOM || (pw->cl == c.e.cl && (pw->tid == t || pw->clk <= c.F[pw->tid])))) {
        /* the lane before read it in this execution: its read record, one
           warp-wide access with this one, gives way (check_cell's rule) */
        rd->tid = (uint16_t)t;
        rd->clk = c.e.clk;
        continue;
      }
      prev = NULL;
      if (cell_fast(&c, cell, rd, in->write, (const uint8_t *)g)) {
        if (!in->write && rd->tid == t && rd->clk == c.e.clk && rd->cl == c.e.cl) prev = cell;
      } else {
        check_cell(R, &c, cell, rd, 0xf, in->write, space, (uint64_t)(g - base), (const uint8_t *)g);
      }
    }
    r->dirty[t / WARP_SIZE] |= 1u << l;
    if (!whole && in->release) release_seq(r, t);
  }
}

/* A weak load whose active lanes read consecutive bytes (lane l the size
 * bytes at lane 0's address + l size: a coalesced load; size 4, 8 or 16,
 * or 1 or 2 by a whole warp from a granule's start) in shared or global
 * memory, at one clock: its records become one span per line, when every
 * granule comes out of it as it would lane by lane (lanes_loop) without a
 * finding: its write record ordered before the lanes, and its read record
 * replaced by the (first) lane's in every granule of the line or in none
 * (the later lanes of a granule then take it over: one warp-wide access).
 * True when done; false, nothing changed, to take it lane by lane. */
enum { SPAN_LINES = 5 };   /* 32 lanes of 16 bytes, not line-aligned */
enum { D_REPL = 1, D_KEEP = 2 };

/* Whether the lane of thread t, reading with c (c->e its epoch), replaces
 * the read record old: lanes_loop's rule. */
static inline int span_decide(Cur *c, const RCl *r, uint32_t t, uint32_t gen, const Ep *old) {
  c->t = t;
  c->e.tid = (uint16_t)t;
  const RThr *h = &r->thr[t];
  c->vc = h->vc && h->gen == gen ? h->vc : NULL;
  return !old->mask || ep_cmp(&c->e, old) <= 0 || hb(c, old) ? D_REPL : D_KEEP;
}

/* How many of the read records span s holds in granules held (of s->cover)
 * the CTA floor F orders (clock at most F of their thread). */
LANE_CLONES static uint32_t span_floored(const Span *s, uint32_t held, const uint32_t *F) {
  uint32_t nf = 0;
  if (s->lg == 0) {   /* lane l at granule l + off: the lanes' floors in one sweep */
    uint32_t lm = s->off >= 0 ? held >> s->off : held << -s->off;
    const uint32_t *Fs = F + s->tid0;
    if (lm == UINT32_MAX) {   /* four at a time */
      V4 c4 = {s->clk, s->clk, s->clk, s->clk}, n4 = {0, 0, 0, 0};
      for (int l = 0; l < WARP_SIZE; l += 4) {
        V4 f;
        memcpy(&f, Fs + l, sizeof f);
        n4 += (V4)(f >= c4) & 1;
      }
      return n4[0] + n4[1] + n4[2] + n4[3];
    }
    for (int l = 0; l < WARP_SIZE; l++) nf += (lm >> l & 1) & (s->clk <= Fs[l]);
    return nf;
  }
  for (uint32_t m = held; m; m &= m - 1)
    nf += s->clk <= F[s->tid0 + span_first(__builtin_ctz(m), s->off, s->lg)];
  return nf;
}

/* A warp-wide access as observe_span and observe_span_st take it: its
 * lanes at consecutive addresses in shared or global memory at one clock. */
typedef struct Lanes4 {
  uintptr_t lo, hi;            /* the host bytes */
  uintptr_t gb;                /* lane 0's first granule */
  unsigned __int128 e;         /* the granules the lanes access, from gb */
  uint32_t t0, clk;            /* lane 0's thread; the lanes' clock */
  int lg;                      /* Span.lg */
} Lanes4;

LANE_CLONES static bool lanes_consecutive(const Ins *in, const MemLanes *a, Lanes4 *q) {
  uint32_t size = a->size, mask = a->mask;
  int lg = size == 1 ? -2 : size == 2 ? -1 : size == 4 ? 0 : size == 8 ? 1 : size == 16 ? 2 : 9;
  if (lg == 9 || (lg < 0 && mask != UINT32_MAX)) return false;
  Warp *w = a->w;
  RCl *r = in->r;
  int l0 = __builtin_ctz(mask), l1 = 31 - __builtin_clz(mask);
  uintptr_t lo = (uintptr_t)a->host[l0], hi = (uintptr_t)a->host[l1] + size;
  uintptr_t base = lo - (uintptr_t)l0 * size;   /* lane 0's, were it active */
  if (lo & 3) return false;
  uintptr_t diff = 0;
  if (mask == UINT32_MAX)   /* a sweep that vectorizes */
    for (int l = 0; l < WARP_SIZE; l++) diff |= (uintptr_t)a->host[l] ^ (base + (uintptr_t)l * size);
  else
    for (uint32_t m = mask; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      diff |= (uintptr_t)a->host[l] ^ (base + (uintptr_t)l * size);
    }
  if (diff) return false;
  const uint8_t *sh = w->cta->shared;
  if (!(sh && lo >= (uintptr_t)sh && hi <= (uintptr_t)sh + w->cta->shared_size) && a->sp != SP_GLOBAL)
    return false;
  uint32_t t0 = tid_of(r, w, 0);
  const uint32_t *ck = r->clk + t0;
  uint32_t clk = ck[l0], cdiff = 0;
  if (mask == UINT32_MAX) for (int l = 0; l < WARP_SIZE; l++) cdiff |= ck[l] ^ clk;
  else for (uint32_t m = mask; m; m &= m - 1) cdiff |= ck[__builtin_ctz(m)] ^ clk;
  if (cdiff) return false;
  unsigned __int128 e = 0;
  if (lg < 0) e = ((unsigned __int128)1 << (32 >> -lg)) - 1;
  else if (mask == UINT32_MAX) e = lg == 2 ? ~(unsigned __int128)0 : ((unsigned __int128)1 << (32 << lg)) - 1;
  else
    for (uint32_t m = mask; m; m &= m - 1)
      e |= (((unsigned __int128)1 << (1 << lg)) - 1) << (__builtin_ctz(m) << lg);
  *q = (Lanes4){lo, hi, base >> 2, e, t0, clk, lg};
  return true;
}

/* The granules of line L (first granule gl) that q's lanes access. */
static inline uint32_t lanes_cover(const Lanes4 *q, uintptr_t gl) {
  return (uint32_t)(gl >= q->gb ? q->e >> (gl - q->gb) : q->e << (q->gb - gl));
}

LANE_CLONES static bool observe_span(const Ins *in, const MemLanes *a) {
  Lanes4 q;
  if (!lanes_consecutive(in, a, &q)) return false;
  uint32_t mask = a->mask, t0 = q.t0, clk = q.clk;
  int lg = q.lg;
  uintptr_t lo = q.lo, hi = q.hi, gb = q.gb;
  Warp *w = a->w;
  RCl *r = in->r;
  const RCta *rc = &r->cta[w->cta->rank];
  uint32_t gen = rc->gen;
  bool anyvc = rc->vcgen == gen + 1;
  Cur c = {r, t0, {.cl = (uint32_t)r->cl->index, .clk = clk, .pc = in->pc, .step = (uint32_t)w->steps,
                   .tid = (uint16_t)t0, .mask = 0xf, .kind = a->kind & 7, .atomic = in->atomic},
           rc->F, NULL};
  struct { Span *s; Cells *cells; uint32_t cover; int dec; bool safe; int8_t off; } ln[SPAN_LINES];
  int n = 0;
  for (uintptr_t L = lo >> 7; L <= (hi - 1) >> 7; L++) {
    uintptr_t gl = L * LINE_CELLS;              /* the line's first granule */
    uint32_t cover = lanes_cover(&q, gl);
    if (!cover) continue;
    Cells *cells = cells_of(in->R, L >> (PAGE_BITS - 7));
    if (!cells || n == SPAN_LINES) return false;
    size_t i0 = (L & (PAGE_LINES - 1)) * LINE_CELLS;
    Span *s = &cells->s[L & (PAGE_LINES - 1)];
    int8_t off = (int8_t)((intptr_t)gb - (intptr_t)gl);
#define SPAN_TID(gi) (t0 + span_first((int)(gi), off, lg))   /* the granule's first lane */
    bool safe = s->wsafe && s->wsafe == rc->serial;
    if (s->wr && !safe) {   /* the write records: cell_fast's test */
      safe = rc->serial != 0;
      for (unsigned gi = 0; gi < LINE_CELLS; gi++) {
        const Ep *pw = &cells->w[i0 + gi].w;
        if (!pw->clk || pw->kind == ACC_ATOM || (pw->cl == c.e.cl && pw->clk <= c.F[pw->tid])) continue;
        safe = false;
        if (!(cover >> gi & 1) || (lg >= 0 && pw->cl == c.e.cl && pw->tid == SPAN_TID(gi))) continue;
        return false;
      }
    }
    int dec = 0;
    uint32_t held = s->cover & cover, rest = cover & ~held;
    if (rest && s->rd) {
      for (uint32_t m = rest; m; m &= m - 1) {
        unsigned gi = (unsigned)__builtin_ctz(m);
        const Ep *old = &cells->r[i0 + gi];
        dec |= old->clk ? span_decide(&c, r, SPAN_TID(gi), gen, old) : D_REPL;
      }
    } else if (rest) dec |= D_REPL;
    if (held) {
      if (s->cl == c.e.cl && s->off == off && s->lg == lg && s->tid0 != t0) {
        /* the same lanes of another warp (both readers' lane l at granule
           gi): the lower thread keeps it unless it is ordered before */
        if (t0 < s->tid0) dec |= D_REPL;
        else {
          uint32_t nf = span_floored(s, held, c.F);
          if (nf == (uint32_t)__builtin_popcount(held)) dec |= D_REPL;
          else if (!nf && !anyvc && !in->R->nrels) dec |= D_KEEP;
          else
            for (uint32_t m = held; m; m &= m - 1) {
              unsigned gi = (unsigned)__builtin_ctz(m);
              Ep old = span_ep(s, gi);
              dec |= span_decide(&c, r, SPAN_TID(gi), gen, &old);
            }
        }
      } else if (s->cl == c.e.cl && s->off == off && s->lg == lg) dec |= D_REPL;   /* this warp's */
      else if (s->cl != c.e.cl && !in->R->nrels)
        /* another cluster's, with no release in the launch to order them:
           the lower cluster's keeps it (ep_cmp), whatever the granule */
        dec |= c.e.cl < s->cl ? D_REPL : D_KEEP;
      else
        for (uint32_t m = held; m; m &= m - 1) {
          unsigned gi = (unsigned)__builtin_ctz(m);
          Ep old = span_ep(s, gi);
          dec |= span_decide(&c, r, SPAN_TID(gi), gen, &old);
        }
    }
#undef SPAN_TID
    if (dec == (D_REPL | D_KEEP)) return false;
    ln[n].s = s; ln[n].cells = cells; ln[n].cover = cover; ln[n].dec = dec; ln[n].safe = safe;
    ln[n].off = off;
    n++;
  }
  for (int k = 0; k < n; k++) {
    Span *s = ln[k].s;
    if (ln[k].safe) s->wsafe = rc->serial;
    if (ln[k].dec != D_REPL) continue;
    Cells *cells = ln[k].cells;
    size_t i0 = (size_t)(s - cells->s) * LINE_CELLS;
    uint32_t nc = ln[k].cover;
    if (s->cover && !(s->cover & nc) && s->cl == c.e.cl && s->clk == clk && s->pc == in->pc &&
        s->step == (uint32_t)w->steps && s->lg == lg && s->kind == (a->kind & 7) &&
        s->atomic == in->atomic) {
      /* the next part of the line by the next warp in the same step (a
         grid-stride loop's): one span when it names the same threads */
      bool same = true;
      for (uint32_t m = nc; m && same; m &= m - 1) {
        int gi = __builtin_ctz(m);
        same = s->tid0 + span_first(gi, s->off, lg) == t0 + span_first(gi, ln[k].off, lg) &&
               s->tid0 + span_last(gi, s->off, lg) == t0 + span_last(gi, ln[k].off, lg);
      }
      if (same) {
        if (s->rd)
          for (uint32_t m = nc; m; m &= m - 1) cells->r[i0 + (unsigned)__builtin_ctz(m)].clk = 0;
        s->cover |= nc;
        continue;
      }
    }
    for (uint32_t m = s->cover & ~nc; m; m &= m - 1) {   /* granules the new span does not hold */
      unsigned gi = (unsigned)__builtin_ctz(m);
      cells->r[i0 + gi] = span_ep(s, gi);
      s->rd = 1;
    }
    if (s->rd) {   /* the lanes' records replace those of r[] */
      if (nc == UINT32_MAX) { memset(&cells->r[i0], 0, LINE_CELLS * sizeof(Ep)); s->rd = 0; }
      else for (uint32_t m = nc; m; m &= m - 1) cells->r[i0 + (unsigned)__builtin_ctz(m)].clk = 0;
    }
    s->cover = nc; s->clk = clk; s->pc = in->pc; s->step = (uint32_t)w->steps; s->cl = c.e.cl;
    s->tid0 = (uint16_t)t0; s->off = ln[k].off; s->lg = (int8_t)lg; s->kind = a->kind & 7;
    s->atomic = in->atomic;
  }
  r->dirty[t0 / WARP_SIZE] |= mask;
  return true;
}

/* A weak store of whole granules by lanes writing consecutive ones
 * (lanes_consecutive, size 4, 8 or 16: a coalesced store), line by line as
 * lanes_loop's cell_fast takes each granule when it finds nothing: the
 * bytes the last write left stored again (silent: nothing changes), or its
 * write and read records ordered before the lane (program order, the CTA
 * floor), the lane's write then its record and its read record gone.
 * True when done; false, nothing changed, to take it lane by lane. */
LANE_CLONES static bool observe_span_st(const Ins *in, const MemLanes *a) {
  Lanes4 q;
  if (!lanes_consecutive(in, a, &q) || q.lg < 0) return false;
  Warp *w = a->w;
  RCl *r = in->r;
  const uint32_t *F = r->cta[w->cta->rank].F;
  uint32_t cl = (uint32_t)r->cl->index;
  struct { Cells *cells; size_t i0; uintptr_t gl; uint32_t write; int8_t off; } ln[SPAN_LINES];
  int n = 0;
  for (uintptr_t L = q.lo >> 7; L <= (q.hi - 1) >> 7; L++) {
    uintptr_t gl = L * LINE_CELLS;
    uint32_t cover = lanes_cover(&q, gl);
    if (!cover) continue;
    Cells *cells = cells_of(in->R, L >> (PAGE_BITS - 7));
    if (!cells || n == SPAN_LINES) return false;
    size_t i0 = (L & (PAGE_LINES - 1)) * LINE_CELLS;
    const Span *s = &cells->s[L & (PAGE_LINES - 1)];
    int8_t off = (int8_t)((intptr_t)q.gb - (intptr_t)gl);
    uint32_t write = 0, held = s->cover & cover, settled = 0;
    /* the read records of the line's span: the writing lanes' own, or all
       under the CTA floor, settle every granule at once */
    if (held && s->cl == cl && s->lg >= 0 &&
        ((s->tid0 == q.t0 && s->off == off && s->lg == q.lg) ||
         span_floored(s, held, F) == (uint32_t)__builtin_popcount(held)))
      settled = held;
    for (uint32_t m = cover; m; m &= m - 1) {
      unsigned gi = (unsigned)__builtin_ctz(m);
      uint32_t t = q.t0 + span_first((int)gi, off, q.lg), now;
      const WCell *cell = &cells->w[i0 + gi];
      const Ep *pw = &cell->w;
      memcpy(&now, (const void *)((gl + gi) << 2), 4);
      if (pw->clk && !pw->atomic && pw->mask == 0xf && now == cell->val) continue;   /* silent */
      if (pw->clk && !(pw->cl == cl && (pw->tid == t || pw->clk <= F[pw->tid]))) return false;
      Ep old;
      const Ep *rd = NULL;
      if (settled >> gi & 1) {
      } else if (s->cover >> gi & 1) { old = span_ep(s, gi); rd = &old; }
      else if (s->rd && cells->r[i0 + gi].clk) rd = &cells->r[i0 + gi];
      if (rd && rd->mask && (rd->sub || !(rd->cl == cl && (rd->tid == t || rd->clk <= F[rd->tid])))) return false;
      write |= 1u << gi;
    }
    ln[n].cells = cells; ln[n].i0 = i0; ln[n].gl = gl; ln[n].write = write; ln[n].off = off;
    n++;
  }
  const Ep e = {.cl = cl, .clk = q.clk, .pc = in->pc, .step = (uint32_t)w->steps, .mask = 0xf,
                .kind = a->kind & 7, .atomic = in->atomic};
  for (int k = 0; k < n; k++) {
    Cells *cells = ln[k].cells;
    size_t i0 = ln[k].i0;
    Span *s = &cells->s[i0 / LINE_CELLS];
    s->wr = 1;
    s->wsafe = 0;
    for (uint32_t m = ln[k].write; m; m &= m - 1) {
      unsigned gi = (unsigned)__builtin_ctz(m);
      WCell *cell = &cells->w[i0 + gi];
      cell->w = e;
      cell->w.tid = (uint16_t)(q.t0 + span_first((int)gi, ln[k].off, q.lg));
      memcpy(&cell->val, (const void *)((ln[k].gl + gi) << 2), 4);   /* the granule after the store */
      if (s->cover >> gi & 1) s->cover &= ~(1u << gi);
      else if (s->rd) cells->r[i0 + gi].clk = 0;
    }
  }
  r->dirty[q.t0 / WARP_SIZE] |= a->mask;
  return true;
}

/* A weak 4-byte load of one granule by every active lane (a broadcast,
 * As[ty][k] of a tiled GEMM), when lanes_loop would take it as one
 * warp-wide read: the granule's write record ordered before every lane
 * (not by program order alone), and the first lane's read replacing its
 * read record, which each later lane then takes over (the last one's
 * remains). True when done; false, nothing changed, to take it lane by lane. */
LANE_CLONES static bool observe_bcast(const Ins *in, const MemLanes *a) {
  uint32_t mask = a->mask;
  if (a->size != 4) return false;
  Warp *w = a->w;
  RCl *r = in->r;
  int l0 = __builtin_ctz(mask), l1 = 31 - __builtin_clz(mask);
  const void *p = a->host[l0];
  uintptr_t g = (uintptr_t)p;
  if ((g & 3) || a->host[l1] != p) return false;
  uintptr_t diff = 0;
  if (mask == UINT32_MAX)
    for (int l = 0; l < WARP_SIZE; l++) diff |= (uintptr_t)a->host[l] ^ g;
  else
    for (uint32_t m = mask & (mask - 1); m; m &= m - 1) diff |= (uintptr_t)a->host[__builtin_ctz(m)] ^ g;
  if (diff) return false;
  const uint8_t *sh = w->cta->shared;
  if (!(sh && g >= (uintptr_t)sh && g + 4 <= (uintptr_t)sh + w->cta->shared_size) && a->sp != SP_GLOBAL)
    return false;
  Cells *cells = cells_of(in->R, g >> PAGE_BITS);
  if (!cells) return false;
  size_t i = (g >> 2) & (PAGE_CELLS - 1);
  const RCta *rc = &r->cta[w->cta->rank];
  uint32_t t0 = tid_of(r, w, 0), cl = (uint32_t)r->cl->index;
  const Ep *pw = &cells->w[i].w;
  if (pw->clk && pw->kind != ACC_ATOM && !(pw->cl == cl && pw->clk <= rc->F[pw->tid])) return false;
  uint32_t t = t0 + (uint32_t)l0;
  const RThr *h = &r->thr[t];
  Cur c = {r, t, {.cl = cl, .clk = r->clk[t], .pc = in->pc, .step = (uint32_t)w->steps, .tid = (uint16_t)t,
                  .mask = 0xf, .kind = a->kind & 7, .atomic = in->atomic},
           rc->F, h->vc && h->gen == rc->gen ? h->vc : NULL};
  Ep *rd = rd_of(cells, i);
  if (!(!rd->clk || !rd->mask || ep_cmp(&c.e, rd) <= 0 || hb(&c, rd))) return false;
  *rd = c.e;
  rd->tid = (uint16_t)(t0 + (uint32_t)l1);
  rd->clk = r->clk[t0 + (uint32_t)l1];
  r->dirty[t0 / WARP_SIZE] |= mask;
  return true;
}

/* A warp-wide access (ld, st, atom, red; mem_observe_lanes): the
 * instruction's share once, then its lanes. */
static void observe_lanes(void *ctx, const MemLanes *a) {
  Ins in;
  if (!a->size || !ins_init(&in, ctx, a->w, a->x, a->kind, a->strong)) return;
  if (a->kind == ACC_LD && !in.atomic && a->size < 4 && observe_span(&in, a)) return;
  if ((a->kind == ACC_LD || a->kind == ACC_ST) && !in.atomic && !in.release && !(a->size & 3)) {
    if (a->kind == ACC_LD) {   /* a broadcast's first and last lanes share their address */
      const void *h0 = a->host[__builtin_ctz(a->mask)], *h1 = a->host[31 - __builtin_clz(a->mask)];
      if (h0 == h1 ? observe_bcast(&in, a) : observe_span(&in, a)) return;
    }
    if (a->kind == ACC_ST && observe_span_st(&in, a)) return;
    lanes_loop(&in, a, true);
  }
  else
    lanes_loop(&in, a, false);
}

/* ---- launch ---- */

void race_begin(Launch *L) {
  if (!L->check || L->race) return;
  RaceLaunch *R = zalloc(sizeof *R);
  if (!R) return;
  R->L = L;
  R->stamps = STAMP_ZERO;
  R->pcflags = zalloc(L->prog->ncode + 1);
  if (!R->pcflags) { free(R); return; }
  R->obs = (MemObserver){observe, R, observe_lanes};
  L->race = R;
  L->observer = &R->obs;
}

void race_end(Launch *L) {
  RaceLaunch *R = L->race;
  if (!R) return;
  uint32_t tpc = 1;
  for (int i = 0; i < 3; i++) tpc *= L->block[i];
  tpc = (tpc + WARP_SIZE - 1) / WARP_SIZE * WARP_SIZE;
  uint32_t ncta = 1;
  for (int i = 0; i < 3; i++) ncta *= L->cluster[i] ? L->cluster[i] : 1;
  /* in instruction order, so the report does not depend on the schedule */
  for (unsigned i = 1; i < R->nfound; i++)
    for (unsigned j = i; j > 0 && (R->found[j - 1].pa > R->found[j].pa ||
                                   (R->found[j - 1].pa == R->found[j].pa && R->found[j - 1].pb > R->found[j].pb)); j--) {
      Found f = R->found[j]; R->found[j] = R->found[j - 1]; R->found[j - 1] = f;
    }
  for (unsigned i = 0; i < R->nfound; i++) {
    R->found[i].cluster = 0;   /* before the other findings' clusters: one order */
    emit(R, &R->found[i], tpc * ncta, tpc);
  }
  if (R->more) {
    char msg[160];
    snprintf(msg, sizeof msg, "data race: %llu more distinct pairs of instructions race (the first %d "
             "are reported)", R->more, RACE_MAX);
    exec_report_text(L, 0, NULL, msg, msg);
  }
  for (size_t i = 0; i < R->cappages; i++)
    if (R->pages[i].cells) munmap(R->pages[i].cells, sizeof(Cells));
  for (size_t i = 0; i < R->caprels; i++) {
    for (uint32_t k = 0; R->rels[i].cap && k < R->rels[i].n; k++) free(R->rels[i].v[k].F);
    free(R->rels[i].v);
  }
  free(R->pages);
  free(R->rels);
  free(R->pcflags);
  free(R);
  L->race = NULL;
  L->observer = NULL;
}

static void acc_free(Acc *a) { free(a->v); }

void race_cluster_end(Cluster *cl) {
  RCl *r = cl->race;
  if (!r) return;
  for (int i = 0; i < r->ncta; i++) {
    Cta *c = &cl->ctas[i];
    /* its shared memory is freed (cta_free): only the address is used */
    if (c->shared) cells_clear(r->R, (uintptr_t)c->shared & ~(uintptr_t)3, c->shared_size + 8);
    free(r->cta[i].F);
    for (int k = 0; k < BAR_IDS; k++) acc_free(&r->cta[i].bar[k]);
  }
  for (uint32_t i = 0; i < r->nth; i++) free(r->thr[i].vc);
  for (int i = 0; i < r->nmb; i++) acc_free(&r->mb[i].a);
  acc_free(&r->cbar);
  free(r->mb);
  free(r->thr);
  free(r->clk);
  free(r->dirty);
  free(r->cta);
  free(r);
  cl->race = NULL;
}

/* ---- synchronization edges ---- */

void race_bar_arrive_(Warp *w, uint32_t lanes, uint32_t id, bool sync) {
  RCl *r = rcl_of(w);
  if (!r || id >= BAR_IDS) return;
  RCta *rc = &r->cta[w->cta->rank];
  Acc *a = &rc->bar[id];
  if (lanes && rc->vcgen != rc->gen + 1) {   /* no thread has a vector to join: contribute, a warp at once */
    if (!acc_make(r, a)) return;
    uint32_t t0 = tid_of(r, w, 0), *v = a->v + t0, *ck = r->clk + t0;
    FOR_LANES(l) if (ACTIVE(lanes, l)) {
      if (ck[l] > v[l]) v[l] = ck[l];
      ck[l]++;
    }
    a->stamp = ++r->R->stamps;
    a->fmask |= 1u << w->cta->rank;
  } else
    FOR_LANES(l) if (ACTIVE(lanes, l)) contribute(r, tid_of(r, w, l), a);
  if (!sync) a->arrive_only = true;
}

void race_bar_complete(void *ctx, const BarCta *b, uint32_t id) {
  Cta *c = ctx;
  RCl *r = c->cluster ? c->cluster->race : NULL;
  if (!r) return;
  RCta *rc = &r->cta[c->rank];
  Acc *a = &rc->bar[id];
  if (!a->used) return;
  bool full = !a->arrive_only;
  for (int i = 0; i < c->nwarps && full; i++) {
    const Warp *w = &c->warps[i];
    if ((w->valid & ~w->exited) & ~b->w[i].parked[id]) full = false;
  }
  if (full) {   /* __syncthreads: everything anyone knew is known to all */
    join(r, rc->F, a->v);
    for (uint32_t m = a->fmask & ~(1u << c->rank); m; m &= m - 1) join(r, rc->F, r->cta[__builtin_ctz(m)].F);
    for (int i = 0; i < c->nwarps; i++) {   /* exited threads: taken as arrived */
      const Warp *w = &c->warps[i];
      FOR_LANES(l) if (w->exited >> l & 1) {
        uint32_t t = tid_of(r, w, l);
        if (r->clk[t] > rc->F[t]) rc->F[t] = r->clk[t];
        r->clk[t]++;
      }
    }
    rc->gen++;
    rc->fsnap = false;
    for (int i = 0; i < c->nwarps; i++)
      FOR_LANES(l) if (b->w[i].parked[id] >> l & 1) r->thr[tid_of(r, &c->warps[i], l)].acq = r->R->seq;
  } else {
    for (int i = 0; i < c->nwarps; i++)
      FOR_LANES(l) if (b->w[i].parked[id] >> l & 1) learn(r, tid_of(r, &c->warps[i], l), a);
  }
  a->used = false;
}

void race_warp_sync_(Warp *w, uint32_t lanes) {
  RCl *r = rcl_of(w);
  if (!r) return;
  Acc a = {0};
  FOR_LANES(l) if (ACTIVE(lanes, l)) contribute(r, tid_of(r, w, l), &a);
  FOR_LANES(l) if (ACTIVE(lanes, l)) learn(r, tid_of(r, w, l), &a);
  acc_free(&a);
}

void race_cluster_arrive_(Warp *w, uint32_t lanes, bool release) {
  RCl *r = rcl_of(w);
  if (!r) return;
  if (!acc_make(r, &r->cbar)) return;
  FOR_LANES(l) if (ACTIVE(lanes, l)) {
    uint32_t t = tid_of(r, w, l);
    if (release) contribute(r, t, &r->cbar);
  }
}

/* Every thread of the cluster waits for the phase, so what its arrivals
 * knew joins every CTA's floor at once, before the waits return: a thread
 * between its arrive and its wait is then taken as ordered too (more order
 * than the ISA's, never a false finding), and no thread needs a vector of
 * the cluster's size (16 CTAs of 1024 threads would make that 4 GiB). */
void race_cluster_complete(Cluster *cl) {
  RCl *r = cl->race;
  if (!r || !r->cbar.used) return;
  for (int i = 0; i < r->ncta; i++) {
    join(r, r->cta[i].F, r->cbar.v);
    r->cta[i].fsnap = false;
  }
  for (int i = 0; i < r->ncta; i++)   /* the floors of the contributors' CTAs */
    for (uint32_t m = r->cbar.fmask & ~(1u << i); m; m &= m - 1) join(r, r->cta[i].F, r->cta[__builtin_ctz(m)].F);
  r->cbar.used = false;
}

void race_cluster_wait_(Warp *w, uint32_t lanes) {
  RCl *r = rcl_of(w);
  if (!r) return;
  FOR_LANES(l) if (ACTIVE(lanes, l)) r->thr[tid_of(r, w, l)].acq = r->R->seq;
}

static Acc *mb_acc(RCl *r, const void *obj) {
  for (int i = 0; i < r->nmb; i++) if (r->mb[i].obj == obj) return &r->mb[i].a;
  if (r->nmb == r->capmb) {
    int cap = r->capmb ? 2 * r->capmb : 8;
    MbAcc *n = realloc(r->mb, (size_t)cap * sizeof *n);
    if (!n) return NULL;
    r->mb = n;
    r->capmb = cap;
  }
  r->mb[r->nmb] = (MbAcc){obj, {0}};
  return &r->mb[r->nmb++].a;
}

void race_mbar_arrive_(Warp *w, int lane, const void *obj, uint32_t agent_seq) {
  RCl *r = rcl_of(w);
  Acc *a = r ? mb_acc(r, obj) : NULL;
  if (!a || !acc_make(r, a)) return;
  uint32_t t = tid_of(r, w, lane);
  contribute(r, t, a);
  uint32_t s = AG_CP * r->nth + t;
  if (agent_seq > a->v[s]) { a->v[s] = agent_seq; r->segs |= 1u << AG_CP; a->stamp = ++r->R->stamps; }
}

void race_mbar_tx_(Warp *w, int lane, const void *obj, uint32_t seq) {
  RCl *r = rcl_of(w);
  Acc *a = r ? mb_acc(r, obj) : NULL;
  if (!a || !acc_make(r, a)) return;
  uint32_t s = AG_TX * r->nth + tid_of(r, w, lane);
  if (seq > a->v[s]) { a->v[s] = seq; r->segs |= 1u << AG_TX; a->stamp = ++r->R->stamps; }
}

void race_mbar_acquire_(Warp *w, int lane, const void *obj) {
  RCl *r = rcl_of(w);
  Acc *a = r ? mb_acc(r, obj) : NULL;
  if (a) learn(r, tid_of(r, w, lane), a);
}

void race_async_issue_(Warp *w, int lane) {
  RCl *r = rcl_of(w);
  if (!r) return;
  uint32_t t = tid_of(r, w, lane);
  r->thr[t].issue_clk = r->clk[t];
  r->clk[t]++;
}

void race_async_commit_(Warp *w, int lane, bool bulk) {
  RCl *r = rcl_of(w);
  if (!r) return;
  RThr *h = &r->thr[tid_of(r, w, lane)];
  if (bulk) h->bgrp++; else h->grp++;
}

void race_async_waited_(Warp *w, int lane, bool bulk, uint32_t upto) {
  RCl *r = rcl_of(w);
  if (!r || !upto) return;
  uint32_t t = tid_of(r, w, lane);
  uint32_t *v = vc_of(r, t);
  uint32_t s = (bulk ? AG_BULK : AG_CP) * r->nth + t;
  if (v && upto > v[s]) { v[s] = upto; r->segs |= 1u << (bulk ? AG_BULK : AG_CP); r->thr[t].vstamp = 0; }
}

void race_fence_(Warp *w, uint32_t lanes) {
  RCl *r = rcl_of(w);
  if (!r) return;
  FOR_LANES(l) if (ACTIVE(lanes, l)) {
    uint32_t t = tid_of(r, w, l);
    release_seq(r, t);
    r->thr[t].acq = r->R->seq;
  }
}

void race_fence_half_(Warp *w, uint32_t lanes, bool release) {
  RCl *r = rcl_of(w);
  if (!r) return;
  FOR_LANES(l) if (ACTIVE(lanes, l)) {
    uint32_t t = tid_of(r, w, l);
    if (release) release_seq(r, t);
    else r->thr[t].acq = r->R->seq;
  }
}
