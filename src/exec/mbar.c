/* mbar.c: family MBAR, the mbarrier objects (PTX ISA 9.0 §9.7.13.15; sync
 * digest §19) and cp.async.mbarrier.arrive (§9.7.9.25.3.2).
 *
 * Each CTA keeps a side table of its mbarrier objects keyed by shared-memory
 * offset; each entry holds the state machine of src/sync/mbarrier.c (whose
 * header documents the encodings of the object and of the returned state).
 * Every operation mirrors the entry into the object's 8 bytes, and checks
 * first that those bytes still hold what it last wrote: a non-mbarrier store
 * to a valid object is reported at the next mbarrier operation on it.
 * Operations run lane by lane in lane order. Every undefined-behaviour case
 * of the digest (§19.2-§19.10) is a located fault that stops the launch.
 * arrive, arrive_drop (whose state must then be _), expect_tx, complete_tx
 * and a bulk copy's complete_tx may reach an object in another CTA of the
 * cluster (a .shared::cluster address; cluster_cta_of): the owner's table is
 * updated and its waiters woken; every other operation needs the executing
 * CTA's own object.
 *
 * Waiting. test_wait never blocks. try_wait on an incomplete phase parks the
 * lane (XS_WAIT) with a virtual deadline: its suspend-time hint in ns, or
 * MB_DEFAULT_NS. A parked lane is released with true as soon as its phase
 * completes (by the arrive or complete_tx that completes it), and with false
 * when its deadline passes: when a warp that can run has reached the
 * deadline in virtual time (interp_clock), or when no lane of the CTA can run
 * at all (the deadline is then reached at once; the waiter's clock advances
 * to it). Such forced time-outs are counted; after MB_IDLE_LIMIT of them in
 * a row without any mbarrier changing state, the waiters stay parked and the
 * CTA is reported deadlocked, each waiting lane with the object (variable
 * name and shared offset), its phase, pending, expected and tx-count and
 * what it waits for. mbar_cta_poll (called from sync_cta_poll after every
 * round of the CTA loop) does the releases that no instruction does.
 *
 * The asynchronous-copy queue (the model is in src/exec/async.c's header)
 * lives here too, since completions signal mbarriers: a copy's complete_tx
 * and cp.async.mbarrier.arrive's deferred arrive-on (pending += 1 at issue
 * without .noinc, the arrive once the thread's earlier cp.async copies have
 * landed) happen when the copy completes. */
#include "program.h"
#include "../sync/bar.h"
#include "../sync/mbarrier.h"
#include "mbar.h"
#include "race.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MB_DEFAULT_NS = 10000, MB_IDLE_LIMIT = 64 };

/* MbInsn.flags: what lowering found in the operands. */
enum {
  MB_BASE64 = 1u << 0,   /* the address base is a 64-bit register */
  MB_COUNT = 1u << 1,    /* arrive: a count (or tx-count) operand */
  MB_HINT = 1u << 2,     /* try_wait: a suspend-time hint */
  MB_NOINC = 1u << 3,    /* cp.async.mbarrier.arrive.noinc */
  MB_SINK = 1u << 4,     /* arrive: the destination is _ */
  MB_RELAXED = 1u << 5,  /* .relaxed: orders nothing (the race checker) */
};

typedef struct MbInsn {
  uint32_t base;         /* address base slot, UINT32_MAX for none */
  Space sp;
  unsigned flags;        /* MB_* */
  unsigned arrive;       /* arrive: mbar_arrive's MBAR_NOCOMPLETE, MBAR_EXPECT_TX */
} MbInsn;

typedef struct MbEnt {
  uint32_t off; Mbar m; uint64_t enc;
  uint32_t observed;     /* phases a wait has seen complete (0..observed-1) */
  bool woken;            /* the waiters were last woken at this phase and */
  uint32_t woke_phase;   /* validity; whether a waiter is satisfied depends */
  bool woke_valid;       /* on nothing else (satisfied), so until they change
                            no waiter can be */
} MbEnt;

typedef struct MbWaiter {
  int ent;               /* entry waited on, -1 none */
  bool parity, ready;    /* parity form; released at the next poll */
  uint64_t val;          /* state or parity */
  uint32_t pslot;        /* predicate slot of the result */
  uint64_t deadline;     /* virtual ns */
  const XInsn *at;
} MbWaiter;

/* One asynchronous operation in flight (src/exec/async.c's model). */
typedef struct AsItem {
  int wl;                /* warp * 32 + lane of the issuing thread */
  AsyncKind kind;
  bool done;
  uint32_t group;        /* the lane's group sequence number at issue */
  uint32_t ord;          /* issue order among the thread's items of its stream */
  uint64_t due;          /* virtual time of completion */
  uint8_t *dst, *data;   /* destination; the bytes to land: malloc'd, or NULL
                            and in small (cp.async's 4, 8, 16 bytes) */
  uint8_t small[16];
  uint32_t size, moff;   /* bytes; mbarrier offset (tx, arrive) */
  const XInsn *x;        /* the issuing instruction (faults) */
  Cta *mc;               /* the CTA owning the mbarrier (tx, arrive) */
  bool red;              /* lands as a reduction (bulkred.h), not a copy */
  uint8_t red_op, red_type;
  const AsReduce *rred;  /* or as red.async / cp.reduce.async.bulk's (remote.c) */
} AsItem;

typedef struct MbCta {
  MbEnt *e; int n, cap;
  AsItem *q; int nq, capq;
  uint32_t *seq;         /* per thread and AsyncGroup: groups committed */
  uint32_t *issued, *landed;   /* per thread and stream (as_stream): items
                                  issued, items completed (they land in order) */
  uint32_t *plain;       /* per thread: cp.async copies and deferred arrives
                            in flight (as_plain) */
  MbWaiter *w;           /* nwarps x 32 */
  int nwarps;
  int idle;              /* forced time-outs since the last state change */
  const Launch *launch;
  Cta *cta;              /* the CTA it belongs to */
} MbCta;

static const uint8_t *as_bytes(const AsItem *it) { return it->data ? it->data : it->small; }

/* The stream of an item's kind: a thread's items of one stream land in issue
 * order. bulk_group copies have theirs; cp.async copies, deferred arrives and
 * complete_tx copies share the cp.async one (AsyncGroup numbers them). */
static inline int as_stream(AsyncKind k) { return k == AS_BULK_GROUP ? AG_BULK : AG_CP_ASYNC; }
/* The group an item of kind k belongs to (wait_group waits for it), or
 * AG_NKINDS for none (a complete_tx copy: its mbarrier tells). */
static inline int as_group(AsyncKind k) {
  return k == AS_BULK_GROUP ? AG_BULK : k == AS_BULK_TX ? AG_NKINDS : AG_CP_ASYNC;
}
/* The timeline's name of an item's kind (trace.h). */
static const char *as_name(AsyncKind k) {
  return k == AS_BULK_GROUP ? "cp.async.bulk" : k == AS_BULK_TX ? "cp.async.bulk (complete_tx)"
         : k == AS_ARRIVE ? "cp.async.mbarrier.arrive" : "cp.async";
}
/* Items counted in MbCta.plain: the ones a deferred arrive waits for. */
static inline bool as_plain(AsyncKind k) { return k == AS_CP_ASYNC || k == AS_ARRIVE; }

/* memcpy with the sizes of cp.async (4, 8, 16) inline: no libc call per lane. */
static inline void copy_bytes(uint8_t *d, const uint8_t *s, uint32_t n) {
  switch (n) {
  case 4: memcpy(d, s, 4); break;
  case 8: memcpy(d, s, 8); break;
  case 16: memcpy(d, s, 16); break;
  default: if (n) memcpy(d, s, n); break;   /* a 0-byte bulk copy has no source */
  }
}

/* Reports item it's landing to the observer (the race checker): its kind
 * (1 cp.async, 2 bulk group, 3 bulk tx) and its sequence number, 1-based
 * (tx: issue order, else its group), as mem_observe_landing says. */
static void observe_landing(Warp *w, const AsItem *it) {
  bool tx = it->kind == AS_BULK_TX;
  mem_observe_landing(w, it->x, it->wl % WARP_SIZE, it->dst, it->size,
                      tx ? 3 : it->kind == AS_BULK_GROUP ? 2 : 1, tx ? it->ord + 1 : it->group + 1, it->red);
}

/* The bytes of item it arrive at its destination: copied or reduced. */
static void land(const AsItem *it) {
  if (it->rred) remote_land_reduce(it->rred, it->dst, as_bytes(it), it->size);
  else if (it->red) bulkred_apply((BulkRedOp)it->red_op, (BulkRedType)it->red_type, it->dst, as_bytes(it), it->size);
  else copy_bytes(it->dst, as_bytes(it), it->size);
}

static void mb_free(void *p) {
  MbCta *t = p;
  if (!t) return;
  for (int i = 0; i < t->nq; i++) {   /* the CTA ended: its copies land */
    AsItem *it = &t->q[i];
    /* a bulk store lands in global memory, a cp.async in this CTA's shared
       memory (still allocated: cta_free frees it after this); another CTA's
       shared memory may be gone already, and nobody can read it */
    bool own = it->dst >= t->cta->shared && it->dst < t->cta->shared + t->cta->shared_size;
    if (!it->done && it->kind != AS_ARRIVE && it->dst && (it->kind == AS_BULK_GROUP || own)) {
      Warp *iw = &t->cta->warps[it->wl / WARP_SIZE];
      land(it);
      if (mem_observed(iw)) observe_landing(iw, it);
    }
    free(it->data);
  }
  free(t->q);
  free(t->seq);
  free(t->issued);
  free(t->landed);
  free(t->plain);
  free(t->e);
  free(t->w);
  free(t);
}

static bool mb_describe(void *p, int wid, int lane, char *buf, size_t n);

static MbCta *table_make(Cta *c) {
  BarCta *b = sync_bar_state(c);
  if (!b) return NULL;
  if (!b->ext) {
    MbCta *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->nwarps = c->nwarps;
    t->launch = c->launch;
    t->cta = c;
    t->w = calloc((size_t)c->nwarps * WARP_SIZE + 1, sizeof *t->w);
    size_t per_kind = (size_t)c->nwarps * WARP_SIZE * AG_NKINDS + 1;
    t->seq = calloc(per_kind, sizeof *t->seq);
    t->issued = calloc(per_kind, sizeof *t->issued);
    t->landed = calloc(per_kind, sizeof *t->landed);
    t->plain = calloc((size_t)c->nwarps * WARP_SIZE + 1, sizeof *t->plain);
    if (!t->w || !t->seq || !t->issued || !t->landed || !t->plain) {
      free(t->w); free(t->seq); free(t->issued); free(t->landed); free(t->plain);
      free(t);
      return NULL;
    }
    for (int i = 0; i < c->nwarps * WARP_SIZE; i++) t->w[i].ent = -1;
    b->ext = t;
    b->ext_free = mb_free;
    b->ext_describe = mb_describe;
  }
  return b->ext;
}

/* The CTA's table, made on first use. */
static inline MbCta *table(Cta *c) {
  const BarCta *b = c->sync;
  return b && b->ext ? b->ext : table_make(c);
}

/* "`bar` (shared offset 0x10)": a variable of the running kernel's shared
 * layout (variables of different kernels overlap: lower.c). */
static void obj_name(const Launch *L, uint32_t off, char *buf, size_t n) {
  const Program *p = L ? L->prog : NULL;
  int k = p && L->kernel ? program_func_index(p, L->kernel) : -1;
  const FuncInfo *fi = k >= 0 ? &p->funcs[k] : NULL;
  for (int i = 0; fi && i < fi->nshared; i++) {
    const VarAddr *v = &fi->shared[i];
    if (off >= v->addr && off < v->addr + (v->sym->size ? v->sym->size : 8)) {
      if (off == v->addr) snprintf(buf, n, "%s (shared offset 0x%x)", v->sym->name, off);
      else snprintf(buf, n, "%s+%u (shared offset 0x%x)", v->sym->name, (unsigned)(off - v->addr), off);
      return;
    }
  }
  snprintf(buf, n, "at shared offset 0x%x", off);
}

static XStatus fault_obj(Warp *w, const XInsn *x, int l, const MbEnt *e, uint32_t off,
                         const char *why) {
  char nm[128], on[160], st[128] = "";
  obj_name(w->launch, off, on, sizeof on);
  if (e && e->m.valid) { st[0] = ':'; st[1] = ' '; mbar_text(&e->m, st + 2, sizeof st - 2); }
  return exec_fault(w, x, l, "%s: %s (mbarrier %s%s)", insn_text(x->src, nm, sizeof nm), why, on, st);
}

/* Entry e (NULL: none) of the object at host bytes p for lane l: valid and
 * unchanged by other stores, or NULL after a fault; create (init): e as
 * it is. */
static MbEnt *entry_check(Warp *w, const XInsn *x, int l, MbEnt *e, const uint8_t *p,
                          uint32_t off, bool create) {
  if (!e || !e->m.valid) {
    if (create) return e;
    fault_obj(w, x, l, NULL, off, "the object is not a valid mbarrier (uninitialized or invalidated)");
    return NULL;
  }
  uint64_t cur;
  memcpy(&cur, p, 8);
  if (cur != e->enc) {
    fault_obj(w, x, l, e, off, "the object's memory was changed by a non-mbarrier access while it "
              "was valid");
    return NULL;
  }
  return e;
}

/* How lookup finds lane l's object: AT_CREATE (init) makes its entry;
 * AT_REMOTE (arrive, arrive_drop, expect_tx, complete_tx, a bulk copy's
 * complete_tx) accepts an object in another CTA's shared memory of the
 * cluster. */
enum { AT_CREATE = 1u << 0, AT_REMOTE = 1u << 1 };

/* The entry of lane l's object; NULL after a fault. The object is in the
 * executing CTA's shared memory, or with AT_REMOTE in another CTA's of the
 * cluster: *ownp and *tp receive the owner and its table. */
static MbEnt *lookup_at(Warp *w, const XInsn *x, int l, Cta **ownp, MbCta **tp, unsigned how,
                        Space sp, uint64_t addr, uint32_t *offp) {
  bool create = how & AT_CREATE, remote_ok = how & AT_REMOTE;
  uint8_t *p = mem_access(w, x, l, sp, addr, 8, 8, ACC_ATOM);
  if (!p) return NULL;
  Cta *c = w->cta;
  if (p < c->shared || p + 8 > c->shared + c->shared_size) {
    char nm[128];
    c = remote_ok ? cluster_cta_of(w, p, 8) : NULL;
    if (!c) {
      exec_fault(w, x, l, "%s: address 0x%llx is not in the shared memory of the executing CTA%s",
                 insn_text(x->src, nm, sizeof nm), (unsigned long long)addr,
                 remote_ok ? " or of another CTA of its cluster"
                           : " (only arrive, arrive_drop, expect_tx and complete_tx may reach "
                             "another CTA's mbarrier)");
      return NULL;
    }
  }
  MbCta *t = table(c);
  if (!t) { exec_fault(w, x, l, "out of memory"); return NULL; }
  *ownp = c;
  *tp = t;
  uint32_t off = (uint32_t)(p - c->shared);
  *offp = off;
  MbEnt *e = NULL;
  for (int i = 0; i < t->n; i++) if (t->e[i].off == off) { e = &t->e[i]; break; }
  if (!e && create) {
    if (t->n == t->cap) {
      int cap = t->cap ? t->cap * 2 : 8;
      MbEnt *ne = realloc(t->e, (size_t)cap * sizeof *ne);
      if (!ne) { exec_fault(w, x, l, "out of memory"); return NULL; }
      t->e = ne; t->cap = cap;
    }
    e = &t->e[t->n++];
    memset(e, 0, sizeof *e);
    e->off = off;
  }
  return entry_check(w, x, l, e, p, off, create);
}

/* The last object a handler found, reused by the next lanes at the same
 * address (a warp usually works on one mbarrier): everything lookup_at
 * finds from an address alone; entry_check still runs for each lane. */
typedef struct MbHit {
  bool have;
  uint64_t addr;
  Cta *oc;
  MbCta *t;
  int k;
  uint32_t off;
} MbHit;

static uint64_t mb_address(Warp *w, const XInsn *x, int l) {
  const MbInsn *a = x->aux;
  return lane_address(w, a->sp, x->imm, a->base, a->flags & MB_BASE64, l);
}

/* Lane l's object, as a handler sees it: entry, owner CTA and its table. */
typedef struct MbAt { MbEnt *e; Cta *oc; MbCta *t; int k; uint32_t off; } MbAt;

/* Finds lane l's object (how: AT_*) into *o; false after a fault. */
static bool lookup(Warp *w, const XInsn *x, int l, unsigned how, MbHit *hit, MbAt *o) {
  const MbInsn *a = x->aux;
  uint64_t addr = mb_address(w, x, l);
  if (hit->have && hit->addr == addr) {
    *o = (MbAt){NULL, hit->oc, hit->t, hit->k, hit->off};
    o->e = entry_check(w, x, l, &hit->t->e[hit->k], hit->oc->shared + hit->off, hit->off,
                       how & AT_CREATE);
    return o->e != NULL;
  }
  o->oc = w->cta;
  o->off = 0;
  o->e = lookup_at(w, x, l, &o->oc, &o->t, how, a->sp, addr, &o->off);
  if (!o->e) return false;
  o->k = (int)(o->e - o->t->e);
  *hit = (MbHit){true, addr, o->oc, o->t, o->k, o->off};
  return true;
}

/* Mirrors e into the object's bytes in its owner c's shared memory. */
static void store(Cta *c, MbEnt *e) {
  e->enc = e->m.valid ? mbar_encode(&e->m) : 0;
  if (e->m.valid) memcpy(c->shared + e->off, &e->enc, 8);
}

/* Whether waiter q's condition holds now (false on a stale state: the
 * waiter keeps waiting; the phase moved on by one at a time). */
static bool satisfied(const MbCta *t, const MbWaiter *q) {
  const MbEnt *e = &t->e[q->ent];
  if (q->parity) return mbar_test_parity(&e->m, (uint32_t)q->val);
  bool done = false;
  return !mbar_test_state(&e->m, e->off, q->val, &done) && done;
}

static void release(Cta *c, MbCta *t, int wid, int l, bool v) {
  MbWaiter *q = &t->w[wid * WARP_SIZE + l];
  Warp *w = &c->warps[wid];
  if (v && q->ent >= 0) {
    t->e[q->ent].observed = t->e[q->ent].m.phase;
    if (mem_observed(w) && !(((const MbInsn *)q->at->aux)->flags & MB_RELAXED))
      race_mbar_acquire(w, l, c->shared + t->e[q->ent].off);
  }
  pred_put(w, q->pslot, l, v);
  q->ent = -1;
  q->ready = false;
  interp_release(w, 1u << l);
}

/* Entry k's phase or validity moved: wake the waiters now satisfied. */
static void wake(Cta *c, MbCta *t, int k) {
  MbEnt *e = &t->e[k];
  e->woken = true, e->woke_phase = e->m.phase, e->woke_valid = e->m.valid;
  for (int i = 0; i < t->nwarps * WARP_SIZE; i++) {
    MbWaiter *q = &t->w[i];
    if (q->ent == k && !q->ready && satisfied(t, q)) release(c, t, i / WARP_SIZE, i % WARP_SIZE, true);
  }
}

/* A state change of entry k: wake the waiters whose phase completed. */
static inline void changed(Cta *c, MbCta *t, int k) {
  t->idle = 0;
  const MbEnt *e = &t->e[k];
  if (!e->woken || e->woke_phase != e->m.phase || e->woke_valid != e->m.valid) wake(c, t, k);
}

/* The statistics' (and the timeline's) mbarrier phase completions: the
   phase of e in CTA c moved on from `before`. */
static void count_phases(Cta *c, const MbEnt *e, uint32_t before) {
  for (; before != e->m.phase; before++) {
    exec_count(EV_MBAR_PHASE);
    if (c->launch && c->launch->trace) trace_mbar_phase(c, e->off, before + 1);
  }
}

/* One handler per mbarrier operation (the lowering picks it: exec_select_MBAR
 * below). Each visits its lanes in lane order; the first lane that faults
 * stops the instruction. */

HANDLER(exec_mbar_init) {
  MbHit hit = {0};
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    MbAt o;
    if (!lookup(w, x, l, AT_CREATE, &hit, &o)) return XS_TRAP;
    o.e->observed = 0;
    const char *err = mbar_init(&o.e->m, R32(w, x->slot[1])[l]);
    if (err) return fault_obj(w, x, l, o.e, o.off, err);
    store(o.oc, o.e);
    changed(o.oc, o.t, o.k);
  }
  return XS_NEXT;
}

HANDLER(exec_mbar_inval) {
  MbHit hit = {0};
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    MbAt o;
    if (!lookup(w, x, l, 0, &hit, &o)) return XS_TRAP;
    const char *err = NULL;
    for (int i = 0; i < o.t->nwarps * WARP_SIZE && !err; i++)
      if (o.t->w[i].ent == o.k) err = "inval while threads wait on the object";
    if (!err) err = mbar_inval(&o.e->m);
    if (err) return fault_obj(w, x, l, o.e, o.off, err);
    o.e->enc = 0;
    changed(o.oc, o.t, o.k);
  }
  return XS_NEXT;
}

HANDLER(exec_mbar_expect_tx) {
  MbHit hit = {0};
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    MbAt o;
    if (!lookup(w, x, l, AT_REMOTE, &hit, &o)) return XS_TRAP;
    const char *err = mbar_expect_tx(&o.e->m, R32(w, x->slot[1])[l]);
    if (err) return fault_obj(w, x, l, o.e, o.off, err);
    store(o.oc, o.e);
    o.t->idle = 0;
  }
  return XS_NEXT;
}

HANDLER(exec_mbar_complete_tx) {
  MbHit hit = {0};
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    MbAt o;
    if (!lookup(w, x, l, AT_REMOTE, &hit, &o)) return XS_TRAP;
    uint32_t ph = o.e->m.phase;
    bool done = false;
    const char *err = mbar_complete_tx(&o.e->m, R32(w, x->slot[1])[l], &done);
    count_phases(o.oc, o.e, ph);
    if (err) return fault_obj(w, x, l, o.e, o.off, err);
    race_mbar_arrive(w, l, o.oc->shared + o.off, 0);
    store(o.oc, o.e);
    changed(o.oc, o.t, o.k);
  }
  return XS_NEXT;
}

/* arrive and arrive_drop (flags MBAR_DROP), with the instruction's
 * .noComplete / .expect_tx (MbInsn.arrive). */
static inline XStatus arrive_lanes(Warp *w, const XInsn *x, uint32_t mask, unsigned flags) {
  const MbInsn *a = x->aux;
  flags |= a->arrive;
  MbHit hit = {0};
  /* Every active lane on one object and no observer: one lookup, and the
     object's bytes stored and its waiters woken once per completed phase
     and at the end, not per lane (nothing reads them in between). */
  bool one = mask && !mem_observed(w);
  uint64_t a0 = one ? mb_address(w, x, __builtin_ctz(mask)) : 0;
  FOR_LANES(l) if (one && ACTIVE(mask, l) && mb_address(w, x, l) != a0) one = false;
  MbAt o;
  if (one && !lookup(w, x, __builtin_ctz(mask), AT_REMOTE, &hit, &o)) return XS_TRAP;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    if (!one) {
      if (!lookup(w, x, l, AT_REMOTE, &hit, &o)) return XS_TRAP;
    }
    MbEnt *e = o.e;
    if (o.oc != w->cta && !(a->flags & MB_SINK))
      return fault_obj(w, x, l, e, o.off, "an arrive on another CTA's mbarrier cannot return a "
                       "state (the destination must be _)");
    bool tx = flags & MBAR_EXPECT_TX;
    uint32_t cnt = a->flags & MB_COUNT && !tx ? R32(w, x->slot[2])[l] : 1;
    uint32_t txc = tx ? R32(w, x->slot[2])[l] : 0;
    if (e->m.phase > e->observed && o.oc == w->cta && exec_checking(w)) {
      char on[160];
      obj_name(w->launch, o.off, on, sizeof on);
      exec_report(w, x, l, "arrive on phase %u of mbarrier %s before any test_wait/try_wait "
                  "observed phase %u complete (each phase must be observed before the next "
                  "one's arrivals)", e->m.phase, on, e->m.phase - 1);
    }
    uint32_t ph = e->m.phase;
    uint64_t st = 0;
    bool done = false;
    if (mem_observed(w) && !(a->flags & MB_RELAXED)) race_mbar_arrive(w, l, o.oc->shared + o.off, 0);
    const char *err = mbar_arrive(&e->m, o.off, cnt, flags, txc, &st, &done);
    count_phases(o.oc, e, ph);
    if (err) {
      if (one) { store(o.oc, e); changed(o.oc, o.t, o.k); }
      return fault_obj(w, x, l, e, o.off, err);
    }
    R64(w, x->slot[0])[l] = st;
    if (!one || done) { store(o.oc, e); changed(o.oc, o.t, o.k); }
  }
  if (one) { store(o.oc, o.e); changed(o.oc, o.t, o.k); }
  return XS_NEXT;
}

HANDLER(exec_mbar_arrive) { return arrive_lanes(w, x, mask, 0); }
HANDLER(exec_mbar_arrive_drop) { return arrive_lanes(w, x, mask, MBAR_DROP); }

/* wait_lanes' forms: W_PARITY (the .parity operand), W_TRY (try_wait: an
 * incomplete phase parks the lane). */
enum { W_PARITY = 1u << 0, W_TRY = 1u << 1 };

/* test_wait and try_wait, each with a state or a parity operand. */
static inline XStatus wait_lanes(Warp *w, const XInsn *x, uint32_t mask, unsigned form) {
  const MbInsn *a = x->aux;
  MbCta *own_t = table(w->cta);
  if (!own_t) return exec_fault(w, x, -1, "out of memory");
  uint32_t parked = 0, ready = 0;
  MbHit hit = {0};
  bool parity = form & W_PARITY;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    MbAt o;
    if (!lookup(w, x, l, 0, &hit, &o)) return XS_TRAP;
    MbEnt *e = o.e;
    uint64_t v = parity ? R32(w, x->slot[2])[l] : R64(w, x->slot[2])[l];
    bool done = false;
    if (parity) {
      done = mbar_test_parity(&e->m, (uint32_t)v);
    } else {
      const char *err = mbar_test_state(&e->m, o.off, v, &done);
      if (err) return fault_obj(w, x, l, e, o.off, err);
    }
    if (done) {
      e->observed = e->m.phase;
      if (mem_observed(w) && !(a->flags & MB_RELAXED)) race_mbar_acquire(w, l, w->cta->shared + o.off);
    }
    if (!(form & W_TRY)) { pred_put(w, x->slot[0], l, done); continue; }
    MbWaiter *q = &own_t->w[w->id * WARP_SIZE + l];
    *q = (MbWaiter){.ent = o.k, .parity = parity, .val = v, .pslot = x->slot[0], .ready = done,
                    .at = x};
    uint64_t hint = a->flags & MB_HINT ? R32(w, x->slot[3])[l] : MB_DEFAULT_NS;
    q->deadline = interp_clock(w) + hint;
    parked |= 1u << l;
    if (done) ready |= 1u << l;
  }
  if (parked && parked == ready) {   /* every try_wait lane done at once */
    FOR_LANES(l) if (ACTIVE(parked, l)) {
      MbWaiter *q = &own_t->w[w->id * WARP_SIZE + l];
      pred_put(w, q->pslot, l, true);
      q->ent = -1; q->ready = false;
    }
    return XS_NEXT;
  }
  return parked ? XS_WAIT : XS_NEXT;
}

HANDLER(exec_mbar_test_wait) { return wait_lanes(w, x, mask, 0); }
HANDLER(exec_mbar_test_wait_parity) { return wait_lanes(w, x, mask, W_PARITY); }
HANDLER(exec_mbar_try_wait) { return wait_lanes(w, x, mask, W_TRY); }
HANDLER(exec_mbar_try_wait_parity) { return wait_lanes(w, x, mask, W_TRY | W_PARITY); }

HANDLER(exec_mbar_pending_count) {
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint32_t cnt;
    const char *e = mbar_pending_count(R64(w, x->slot[1])[l], &cnt);
    if (e) { char nm[96]; return exec_fault(w, x, l, "%s: %s", insn_text(x->src, nm, sizeof nm), e); }
    R32(w, x->slot[0])[l] = cnt;
  }
  return XS_NEXT;
}

static XStatus async_arrive(Warp *w, const XInsn *x, int lane, unsigned flags, MbEnt *e,
                            uint32_t off);

/* cp.async.mbarrier.arrive{.noinc}: the queue below defers the arrive. Lanes
 * on the address of the lane before reuse its lookup (MbHit) when no
 * observer is installed; with one, each lane's access goes through
 * mem_access so the observer sees it. */
HANDLER(exec_cp_async_mbarrier_arrive) {
  const MbInsn *a = x->aux;
  MbHit hit = {0};
  bool observed = mem_observed(w);
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    MbAt o;
    if (observed) hit.have = false;
    if (!lookup(w, x, l, 0, &hit, &o)) return XS_TRAP;
    if (async_arrive(w, x, l, a->flags, o.e, o.off) != XS_NEXT) return XS_TRAP;
  }
  return XS_NEXT;
}

/* ---- the asynchronous-copy queue (model: src/exec/async.c) ---- */

/* Virtual ns from issue to completion: Launch.async_delay when set
   (ptxvm_set_async_delay, --async-delay), else PTXVM_ASYNC_DELAY, else
   ASYNC_DEFAULT_DELAY; 0 = complete at issue. */
enum { ASYNC_DEFAULT_DELAY = 2000 };
static uint64_t async_delay(const Warp *w) {
  static _Thread_local int have;
  static _Thread_local uint64_t d;
  if (w->launch && w->launch->has_async_delay) return w->launch->async_delay;
  if (!have) {
    const char *e = getenv("PTXVM_ASYNC_DELAY");
    d = e && *e ? strtoull(e, NULL, 10) : ASYNC_DEFAULT_DELAY;
    have = 1;
  }
  return d;
}

/* Item it's fault at its completion (out of line: as_complete's frame
   stays small). False. */
static __attribute__((noinline)) bool complete_fault(Warp *w, const AsItem *it, const MbEnt *e,
                                                     const char *err) {
  char why[400];
  snprintf(why, sizeof why, "at the completion of this asynchronous operation: %s", err);
  fault_obj(w, it->x, it->wl % WARP_SIZE, e, it->moff, why);
  return false;
}

/* Completes item i (and first the earlier items of the same thread).
   False after a fault. */
static bool as_complete(Cta *c, MbCta *t, int i) {
  AsItem *it = &t->q[i];
  if (it->done) return true;
  int stream = as_stream(it->kind);
  uint32_t *landed = &t->landed[it->wl * AG_NKINDS + stream];
  for (int j = 0; j < i && it->ord != *landed; j++)   /* earlier items of the thread's stream */
    if (!t->q[j].done && t->q[j].wl == it->wl && as_stream(t->q[j].kind) == stream &&
        !as_complete(c, t, j))
      return false;
  it->done = true;
  if (t->launch->trace) trace_async(c, it->wl, as_name(it->kind), (uint32_t)stream, it->ord, false);
  (*landed)++;
  if (as_plain(it->kind)) t->plain[it->wl]--;
  t->idle = 0;
  if (it->kind != AS_ARRIVE && it->dst) {
    Warp *iw = &c->warps[it->wl / WARP_SIZE];
    land(it);
    if (mem_observed(iw)) observe_landing(iw, it);
  }
  free(it->data);
  it->data = NULL;
  if (it->kind != AS_BULK_TX && it->kind != AS_ARRIVE) return true;
  Warp *w = &c->warps[it->wl / WARP_SIZE];
  int l = it->wl % WARP_SIZE;
  Cta *mc = it->mc ? it->mc : c;
  MbCta *mt = table(mc);
  MbEnt *e = NULL;
  for (int k = 0; mt && k < mt->n; k++) if (mt->e[k].off == it->moff) e = &mt->e[k];
  const char *err = "the object is not a valid mbarrier (uninitialized or invalidated)";
  bool done = false;
  if (e && e->m.valid) {
    uint32_t ph = e->m.phase;
    if (it->kind == AS_BULK_TX) race_mbar_tx(w, l, mc->shared + it->moff, it->ord + 1);
    else race_mbar_arrive(w, l, mc->shared + it->moff, it->group + 1);
    err = it->kind == AS_BULK_TX ? mbar_complete_tx(&e->m, it->size, &done)
                                 : mbar_arrive(&e->m, it->moff, 1, 0, 0, NULL, &done);
    count_phases(mc, e, ph);
    if (!err) { store(mc, e); changed(mc, mt, (int)(e - mt->e)); return true; }
  }
  return complete_fault(w, it, e, err);
}

/* Drops completed items from the queue's front. */
static void as_compact(MbCta *t) {
  int k = 0;
  for (int i = 0; i < t->nq; i++) if (!t->q[i].done) t->q[k++] = t->q[i];
  t->nq = k;
}

/* A new item of lane's, due delay (async_delay) from now. */
static AsItem *as_push(Warp *w, const XInsn *x, int lane, MbCta *t, uint64_t delay) {
  if (t->nq == t->capq) {
    as_compact(t);
    if (t->nq == t->capq) {
      int cap = t->capq ? t->capq * 2 : 16;
      AsItem *nq = realloc(t->q, (size_t)cap * sizeof *nq);
      if (!nq) return NULL;
      t->q = nq; t->capq = cap;
    }
  }
  AsItem *it = &t->q[t->nq++];
  *it = (AsItem){.wl = w->id * WARP_SIZE + lane, .x = x, .due = interp_clock(w) + delay};
  return it;
}

/* Counts item it, its kind set, as issued in its stream and group. */
static void as_issued(MbCta *t, AsItem *it) {
  int g = as_group(it->kind);
  it->group = g < AG_NKINDS ? t->seq[it->wl * AG_NKINDS + g] : 0;
  it->ord = t->issued[it->wl * AG_NKINDS + as_stream(it->kind)]++;
  if (as_plain(it->kind)) t->plain[it->wl]++;
  if (t->launch->trace) trace_async(t->cta, it->wl, as_name(it->kind), (uint32_t)as_stream(it->kind), it->ord, true);
}

/* mbar_async_copy, or with red >= 0 mbar_async_reduce's reduction red of
 * element type rt, or with rred
 * mbar_async_reduce_with's. */
static XStatus async_item(Warp *w, const XInsn *x, int lane, AsyncKind kind, uint8_t *dst,
                          const uint8_t *src, uint32_t size, uint32_t nsrc, Space msp,
                          uint64_t maddr, int red, BulkRedType rt,
                          const AsReduce *rred) {
  bool tx = kind == AS_BULK_TX;
  MbCta *t = table(w->cta);
  if (!t) return exec_fault(w, x, lane, "out of memory");
  uint32_t off = 0;
  Cta *mc = w->cta;
  MbCta *mt = t;
  if (tx && !lookup_at(w, x, lane, &mc, &mt, AT_REMOTE, msp, maddr, &off)) return XS_TRAP;
  race_async_issue(w, lane);
  uint64_t delay = async_delay(w);
  AsItem *it = as_push(w, x, lane, t, delay);
  bool small = size <= sizeof it->small;   /* no allocation per cp.async */
  uint8_t *data = small ? NULL : malloc(size);
  if (!it || (!small && !data)) { free(data); return exec_fault(w, x, lane, "out of memory"); }
  uint8_t *bytes = small ? it->small : data;
  copy_bytes(bytes, src, nsrc);
  if (!small) memset(bytes + nsrc, 0, size - nsrc);   /* small is zeroed (as_push) */
  it->data = data; it->dst = dst; it->size = size; it->kind = kind;
  it->moff = off;
  it->mc = mc;
  if (red >= 0) { it->red = true; it->red_op = (uint8_t)red; it->red_type = (uint8_t)rt; }
  it->rred = rred;
  as_issued(t, it);
  if (delay == 0 && !as_complete(w->cta, t, t->nq - 1)) return XS_TRAP;
  return XS_NEXT;
}

XStatus mbar_async_reduce(Warp *w, const XInsn *x, int lane, uint8_t *dst, const uint8_t *src,
                          uint32_t size, BulkRedOp op, BulkRedType type) {
  return async_item(w, x, lane, AS_BULK_GROUP, dst, src, size, size, SP_NONE, 0, (int)op, type, NULL);
}

XStatus mbar_async_copy(Warp *w, const XInsn *x, int lane, AsyncKind kind, uint8_t *dst,
                        const uint8_t *src, uint32_t size, uint32_t nsrc, Space msp,
                        uint64_t maddr) {
  return async_item(w, x, lane, kind, dst, src, size, nsrc, msp, maddr, -1, BRT_U32, NULL);
}

XStatus mbar_async_reduce_with(Warp *w, const XInsn *x, int lane, AsyncKind kind, uint8_t *dst,
                               const uint8_t *src, uint32_t size, uint32_t nsrc, Space msp,
                               uint64_t maddr, const AsReduce *red) {
  return async_item(w, x, lane, kind, dst, src, size, nsrc, msp, maddr, -1, BRT_U32, red);
}

/* cp.async.mbarrier.arrive{.noinc} (flags MB_NOINC): arrive on entry e (at offset off)
 * once the lane's earlier cp.async copies completed (pending += 1 first
 * without .noinc). */
static XStatus async_arrive(Warp *w, const XInsn *x, int lane, unsigned flags, MbEnt *e,
                            uint32_t off) {
  MbCta *t = table(w->cta);
  if (!t) return exec_fault(w, x, lane, "out of memory");
  const char *err = flags & MB_NOINC ? NULL : mbar_increment(&e->m);
  if (err) return fault_obj(w, x, lane, e, off, err);
  store(w->cta, e);
  int wl = w->id * WARP_SIZE + lane;
  if (t->plain[wl]) {   /* the thread's earlier cp.async copies are in flight */
    AsItem *it = as_push(w, x, lane, t, async_delay(w));
    if (!it) return exec_fault(w, x, lane, "out of memory");
    it->kind = AS_ARRIVE; it->moff = off;
    as_issued(t, it);
    return XS_NEXT;
  }
  bool done = false;
  uint32_t ph = e->m.phase;
  race_mbar_arrive(w, lane, w->cta->shared + off, t->seq[wl * AG_NKINDS + AG_CP_ASYNC] + 1);
  err = mbar_arrive(&e->m, off, 1, 0, 0, NULL, &done);
  count_phases(w->cta, e, ph);
  if (err) return fault_obj(w, x, lane, e, off, err);
  store(w->cta, e);
  changed(w->cta, t, (int)(e - t->e));
  return XS_NEXT;
}

void mbar_async_commit(Warp *w, int lane, AsyncGroup g) {
  MbCta *t = table(w->cta);
  if (!t) return;
  t->seq[(w->id * WARP_SIZE + lane) * AG_NKINDS + (int)g]++;
  race_async_commit(w, lane, g == AG_BULK);
}

/* wait_group n, or with all (wait_all) every item of group kind g. */
static void async_wait(Warp *w, int lane, AsyncGroup g, uint32_t n, bool all) {
  MbCta *t = table(w->cta);
  if (!t) return;
  int wl = w->id * WARP_SIZE + lane;
  uint32_t seq = t->seq[wl * AG_NKINDS + (int)g];
  uint64_t latest = 0;
  for (int i = 0; i < t->nq; i++) {
    AsItem *it = &t->q[i];
    if (it->done || it->wl != wl || as_group(it->kind) != (int)g) continue;
    if (!all && !(it->group + n < seq)) continue;
    if (it->due > latest) latest = it->due;
    if (!as_complete(w->cta, t, i)) return;
  }
  race_async_waited(w, lane, g == AG_BULK, all ? seq + 1 : seq > n ? seq - n : 0);
  uint64_t ck = interp_clock(w);   /* the wait lasts until the last copy landed */
  if (latest > ck) interp_sleep(w, latest - ck);
}

void mbar_async_wait(Warp *w, int lane, AsyncGroup g, uint32_t n) { async_wait(w, lane, g, n, false); }
void mbar_async_wait_all(Warp *w, int lane) { async_wait(w, lane, AG_CP_ASYNC, 0, true); }

bool mbar_cta_poll(Cta *c, bool released) {
  BarCta *b = c->sync;
  MbCta *t = b ? b->ext : NULL;
  if (!t) return false;
  bool any = false;
  uint64_t now = 0;
  bool runnable = false;
  for (int i = 0; i < c->nwarps; i++) {
    Warp *w = &c->warps[i];
    if (warp_live(w) & ~interp_waiting(w)) {
      runnable = true;
      uint64_t ck = interp_clock(w);
      if (ck > now) now = ck;
    }
  }
  uint64_t all_now = now;
  for (int i = 0; i < c->nwarps; i++) {
    uint64_t ck = interp_clock(&c->warps[i]);
    if (ck > all_now) all_now = ck;
  }
  bool inflight = false;
  for (int i = 0; i < t->nq; i++) {   /* copies whose time came */
    if (t->q[i].done) continue;
    if (t->q[i].due <= all_now || (!runnable && !released)) {
      if (!as_complete(c, t, i)) return false;
      any = true;
    } else {
      inflight = true;
    }
  }
  if (any) as_compact(t);   /* nothing landed: nothing to drop */
  if (any && !runnable) return true;   /* landed copies may have released waiters */
  bool waiters = false;
  for (int i = 0; i < t->nwarps * WARP_SIZE; i++) {
    MbWaiter *q = &t->w[i];
    if (q->ent < 0) continue;
    Warp *w = &c->warps[i / WARP_SIZE];
    if (!(interp_waiting(w) >> (i % WARP_SIZE) & 1)) { q->ent = -1; continue; }
    if (q->ready) { release(c, t, i / WARP_SIZE, i % WARP_SIZE, true); any = true; continue; }
    if (runnable && q->deadline <= now) {
      uint64_t ck = interp_clock(w);
      if (q->deadline > ck) interp_sleep(w, q->deadline - ck);
      release(c, t, i / WARP_SIZE, i % WARP_SIZE, false);
      any = true;
      continue;
    }
    waiters = true;
  }
  if (any || released || runnable || !waiters || inflight || t->idle >= MB_IDLE_LIMIT) return any;
  /* No lane of the CTA can run: every parked try_wait times out now. */
  t->idle++;
  for (int i = 0; i < t->nwarps * WARP_SIZE; i++) {
    MbWaiter *q = &t->w[i];
    if (q->ent < 0) continue;
    Warp *w = &c->warps[i / WARP_SIZE];
    uint64_t ck = interp_clock(w);
    if (q->deadline > ck) interp_sleep(w, q->deadline - ck);
    release(c, t, i / WARP_SIZE, i % WARP_SIZE, false);
  }
  return true;
}

bool mbar_cta_timeless(const Cta *c) {
  const BarCta *b = c->sync;
  const MbCta *t = b ? b->ext : NULL;
  if (!t) return true;
  for (int i = 0; i < t->nq; i++) if (!t->q[i].done) return false;
  for (int i = 0; i < t->nwarps * WARP_SIZE; i++) if (t->w[i].ent >= 0) return false;
  return true;
}

bool mbar_describe_test(Warp *w, const XInsn *x, int l, char *buf, size_t n) {
  bool parity = x->fn == exec_mbar_test_wait_parity;
  if (x->fn != exec_mbar_test_wait && !parity) return false;
  const MbInsn *a = x->aux;
  uint64_t addr = mb_address(w, x, l);
  const uint8_t *p = mem_span(w, a->sp, addr, addr + 8, false);   /* reports nothing */
  const Cta *c = w->cta;
  const BarCta *b = c->sync;
  const MbCta *t = b ? b->ext : NULL;
  if (!p || !t || p < c->shared || p + 8 > c->shared + c->shared_size) return false;
  uint32_t off = (uint32_t)(p - c->shared);
  const MbEnt *e = NULL;
  for (int i = 0; i < t->n; i++) if (t->e[i].off == off) e = &t->e[i];
  if (!e || !e->m.valid) return false;
  char on[160], st[128], what[64];
  obj_name(t->launch, off, on, sizeof on);
  mbar_text(&e->m, st, sizeof st);
  if (parity) snprintf(what, sizeof what, "parity %u", R32(w, x->slot[2])[l] & 1);
  else snprintf(what, sizeof what, "the state of phase %u", (unsigned)(R64(w, x->slot[2])[l] >> 48));
  snprintf(buf, n, "mbarrier %s: %s; its test_wait waits for %s to complete", on, st, what);
  return true;
}

/* "mbarrier NAME: STATE; waits for parity P" of the try_wait lane (wid,
   lane) of t parks; false when it parks none. */
static bool waiter_text(const MbCta *t, int wid, int lane, char *buf, size_t n) {
  if (!t || wid >= t->nwarps) return false;
  const MbWaiter *q = &t->w[wid * WARP_SIZE + lane];
  if (q->ent < 0) return false;
  const MbEnt *e = &t->e[q->ent];
  char on[160], st[128], what[64];
  obj_name(t->launch, e->off, on, sizeof on);
  mbar_text(&e->m, st, sizeof st);
  if (q->parity) snprintf(what, sizeof what, "parity %u", (unsigned)(q->val & 1));
  else snprintf(what, sizeof what, "the state of phase %u", (unsigned)(q->val >> 48));
  snprintf(buf, n, "mbarrier %s: %s; waits for %s to complete", on, st, what);
  return true;
}

bool mbar_wait_text(Cta *c, int wid, int lane, char *buf, size_t n) {
  BarCta *b = c->sync;
  return b && b->ext_describe == mb_describe && waiter_text(b->ext, wid, lane, buf, n);
}

static bool mb_describe(void *p, int wid, int lane, char *buf, size_t n) {
  if (!waiter_text(p, wid, lane, buf, n)) return false;
  size_t k = strlen(buf);
  snprintf(buf + k, n - k, " (no thread can arrive, no transaction is in flight)");
  return true;
}

/* test_wait / try_wait's operands: p, [m], state or parity {, hint}. */
static void wait_opds(Lower *L, const Insn *in, XInsn *x, MbInsn *a, bool parity) {
  x->slot[0] = lower_dst(L, &in->opds[0]);
  x->slot[2] = lower_src(L, &in->opds[2], parity ? TY_U32 : TY_B64);
  if (in->nopds > 3) { a->flags |= MB_HINT; x->slot[3] = lower_src(L, &in->opds[3], TY_U32); }
}

/* The handler of each MBAR row and its operands. */
bool exec_select_MBAR(Lower *L, const Insn *in, XInsn *x) {
  MbInsn *a = lower_aux(L, sizeof *a);
  x->aux = a;
  a->sp = lower_space(in);
  const Operand *o = in->opds;
  int mi = 0;   /* the address operand's index */
  switch ((Opcode)in->op) {
  case OP_MBARRIER_INIT: x->fn = exec_mbar_init; x->slot[1] = lower_src(L, &o[1], TY_U32); break;
  case OP_MBARRIER_INVAL: x->fn = exec_mbar_inval; break;
  case OP_MBARRIER_EXPECT_TX:
    x->fn = exec_mbar_expect_tx;
    x->slot[1] = lower_src(L, &o[1], TY_U32);
    break;
  case OP_MBARRIER_COMPLETE_TX:
    x->fn = exec_mbar_complete_tx;
    x->slot[1] = lower_src(L, &o[1], TY_U32);
    break;
  case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_SEM: case OP_MBARRIER_ARRIVE_EXPECT_TX:
  case OP_MBARRIER_ARRIVE_NOCOMPLETE: case OP_MBARRIER_ARRIVE_DROP: case OP_MBARRIER_ARRIVE_DROP_SEM:
  case OP_MBARRIER_ARRIVE_DROP_EXPECT_TX: case OP_MBARRIER_ARRIVE_DROP_NOCOMPLETE:
    x->fn = op_has(in->op, OPF_DROP) ? exec_mbar_arrive_drop : exec_mbar_arrive;
    mi = 1;
    a->arrive = (op_has(in->op, OPF_NOCOMP) ? MBAR_NOCOMPLETE : 0) |
                (op_has(in->op, OPF_TX) ? MBAR_EXPECT_TX : 0);
    x->slot[0] = lower_dst(L, &o[0]);
    if (o[0].kind == OPD_SINK) a->flags |= MB_SINK;
    if (in->nopds > 2) { a->flags |= MB_COUNT; x->slot[2] = lower_src(L, &o[2], TY_U32); }
    break;
  case OP_MBARRIER_TEST_WAIT: case OP_MBARRIER_TEST_WAIT_SEM:
    x->fn = exec_mbar_test_wait; mi = 1; wait_opds(L, in, x, a, false); break;
  case OP_MBARRIER_TEST_WAIT_PARITY: case OP_MBARRIER_TEST_WAIT_PARITY_SEM:
    x->fn = exec_mbar_test_wait_parity; mi = 1; wait_opds(L, in, x, a, true); break;
  case OP_MBARRIER_TRY_WAIT: case OP_MBARRIER_TRY_WAIT_SEM:
    x->fn = exec_mbar_try_wait; mi = 1; wait_opds(L, in, x, a, false); break;
  case OP_MBARRIER_TRY_WAIT_PARITY: case OP_MBARRIER_TRY_WAIT_PARITY_SEM:
    x->fn = exec_mbar_try_wait_parity; mi = 1; wait_opds(L, in, x, a, true); break;
  case OP_MBARRIER_PENDING_COUNT:
    x->slot[0] = lower_dst(L, &o[0]);
    x->slot[1] = lower_src(L, &o[1], TY_B64);
    x->nslots = 2;
    x->fn = exec_mbar_pending_count;
    return true;
  case OP_CP_ASYNC_MBARRIER_ARRIVE:
    x->fn = exec_cp_async_mbarrier_arrive;
    if (insn_has_mod(in, ".noinc")) a->flags |= MB_NOINC;
    break;
  default:
    return false;
  }
  if (insn_has_mod(in, ".relaxed")) a->flags |= MB_RELAXED;
  const Operand *m = &o[mi];
  x->imm = lower_addr(L, m, a->sp, &a->base);
  if (m->sym && m->sym->kind == SYM_REG && type_size(m->sym->type) == 8) a->flags |= MB_BASE64;
  x->nslots = 4;
  return true;
}
