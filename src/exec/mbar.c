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
#include "../lower/lower.h"
#include "../sync/bar.h"
#include "../sync/mbarrier.h"
#include "mbar.h"
#include "race.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MB_DEFAULT_NS = 10000, MB_IDLE_LIMIT = 64 };

typedef enum {
  MO_INIT, MO_INVAL, MO_EXPECT_TX, MO_COMPLETE_TX, MO_ARRIVE, MO_TEST_STATE, MO_TEST_PARITY,
  MO_TRY_STATE, MO_TRY_PARITY, MO_PENDING_COUNT, MO_CP_ARRIVE,
} MbOp;

typedef struct MbInsn {
  uint32_t base;         /* address base slot, UINT32_MAX for none */
  bool base64;
  Space sp;
  bool drop, nocomplete, has_tx, has_count, has_hint, noinc, sink;
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
  bool bulk, tx, arrive, done;
  uint32_t group;        /* the lane's group sequence number at issue */
  uint32_t ord;          /* issue order among the thread's items of its kind */
  uint64_t due;          /* virtual time of completion */
  uint8_t *dst, *data;   /* destination; the bytes to land: malloc'd, or NULL
                            and in small (cp.async's 4, 8, 16 bytes) */
  uint8_t small[16];
  uint32_t size, moff;   /* bytes; mbarrier offset (tx, arrive) */
  const XInsn *x;        /* the issuing instruction (faults) */
  Cta *mc;               /* the CTA owning the mbarrier (tx, arrive) */
} AsItem;

typedef struct MbCta {
  MbEnt *e; int n, cap;
  AsItem *q; int nq, capq;
  uint32_t *gseq, *bseq; /* per thread: committed cp.async / bulk groups */
  uint32_t *issued, *landed;   /* per thread and kind (AsItem.bulk): items
                                  issued, items completed (they land in order) */
  uint32_t *plain;       /* per thread: items in flight that are neither bulk
                            nor tx (cp.async and deferred arrives) */
  MbWaiter *w;           /* nwarps x 32 */
  int nwarps;
  int idle;              /* forced time-outs since the last state change */
  const Launch *launch;
  Cta *cta;              /* the CTA it belongs to */
} MbCta;

static const uint8_t *as_bytes(const AsItem *it) { return it->data ? it->data : it->small; }

/* memcpy with the sizes of cp.async (4, 8, 16) inline: no libc call per lane. */
static inline void copy_bytes(uint8_t *d, const uint8_t *s, uint32_t n) {
  switch (n) {
  case 4: memcpy(d, s, 4); break;
  case 8: memcpy(d, s, 8); break;
  case 16: memcpy(d, s, 16); break;
  default: if (n) memcpy(d, s, n); break;   /* a 0-byte bulk copy has no source */
  }
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
    if (!it->done && !it->arrive && it->dst && ((it->bulk && !it->tx) || own)) {
      Warp *iw = &t->cta->warps[it->wl / WARP_SIZE];
      memcpy(it->dst, as_bytes(it), it->size);
      if (mem_observed(iw))
        mem_observe_landing(iw, it->x, it->wl % WARP_SIZE, it->dst, it->size,
                            it->tx ? 3 : it->bulk ? 2 : 1, it->tx ? it->ord + 1 : it->group + 1);
    }
    free(it->data);
  }
  free(t->q);
  free(t->gseq);
  free(t->bseq);
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
    t->gseq = calloc((size_t)c->nwarps * WARP_SIZE + 1, sizeof *t->gseq);
    t->bseq = calloc((size_t)c->nwarps * WARP_SIZE + 1, sizeof *t->bseq);
    t->issued = calloc((size_t)c->nwarps * WARP_SIZE * 2 + 1, sizeof *t->issued);
    t->landed = calloc((size_t)c->nwarps * WARP_SIZE * 2 + 1, sizeof *t->landed);
    t->plain = calloc((size_t)c->nwarps * WARP_SIZE + 1, sizeof *t->plain);
    if (!t->w || !t->gseq || !t->bseq || !t->issued || !t->landed || !t->plain) {
      free(t->w); free(t->gseq); free(t->bseq); free(t->issued); free(t->landed); free(t->plain);
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

/* The entry of lane l's object; NULL after a fault. create: init. The
 * object is in the executing CTA's shared memory, or with remote_ok
 * (arrive, arrive_drop, expect_tx, complete_tx, a bulk copy's complete_tx)
 * in another CTA's of the cluster: *ownp and *tp receive the owner and its
 * table. */
static MbEnt *lookup_at(Warp *w, const XInsn *x, int l, Cta **ownp, MbCta **tp, bool create,
                        bool remote_ok, Space sp, uint64_t addr, uint32_t *offp) {
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

/* The last object exec_mbar found, reused by the next lanes at the same
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

static MbEnt *lookup(Warp *w, const XInsn *x, int l, Cta **ownp, MbCta **tp, bool create,
                     bool remote_ok, uint32_t *offp, MbHit *hit) {
  const MbInsn *a = x->aux;
  uint64_t addr = lane_address(w, a->sp, x->imm, a->base, a->base64, l);
  if (hit->have && hit->addr == addr) {
    *ownp = hit->oc, *tp = hit->t, *offp = hit->off;
    return entry_check(w, x, l, &hit->t->e[hit->k], hit->oc->shared + hit->off, hit->off, create);
  }
  MbEnt *e = lookup_at(w, x, l, ownp, tp, create, remote_ok, a->sp, addr, offp);
  if (e) *hit = (MbHit){true, addr, *ownp, *tp, (int)(e - (*tp)->e), *offp};
  return e;
}

/* Mirrors e into the object's bytes in its owner c's shared memory. */
static void store(Cta *c, MbEnt *e) {
  e->enc = e->m.valid ? mbar_encode(&e->m) : 0;
  if (e->m.valid) memcpy(c->shared + e->off, &e->enc, 8);
}

static void set_pred(Warp *w, uint32_t slot, int l, bool v) {
  w->pred[slot] = (w->pred[slot] & ~(1u << l)) | ((uint32_t)v << l);
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
    if (mem_observed(w) && !insn_has_mod(q->at->src, ".relaxed")) race_mbar_acquire(w, l, c->shared + t->e[q->ent].off);
  }
  set_pred(w, q->pslot, l, v);
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

/* The statistics' mbarrier phase completions: m's phase moved on from `before`. */
static void count_phases(const Mbar *m, uint32_t before) {
  for (; before != m->phase; before++) exec_count(EV_MBAR_PHASE);
}

HANDLER(exec_mbar) {
  MbCta *t = table(w->cta);
  if (!t) return exec_fault(w, x, -1, "out of memory");
  const MbInsn *a = x->aux;
  MbOp op = (MbOp)x->sub;
  if (op == MO_PENDING_COUNT) {
    FOR_LANES(l) {
      if (!ACTIVE(mask, l)) continue;
      uint32_t cnt;
      const char *e = mbar_pending_count(R64(w, x->slot[1])[l], &cnt);
      if (e) { char nm[96]; return exec_fault(w, x, l, "%s: %s", insn_text(x->src, nm, sizeof nm), e); }
      R32(w, x->slot[0])[l] = cnt;
    }
    return XS_NEXT;
  }
  uint32_t parked = 0, ready = 0;
  MbCta *own_t = t;
  MbHit hit = {0};
  bool remote_ok = op == MO_ARRIVE || op == MO_EXPECT_TX || op == MO_COMPLETE_TX;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint32_t off = 0;
    Cta *oc = w->cta;
    MbEnt *e = lookup(w, x, l, &oc, &t, op == MO_INIT, remote_ok, &off, &hit);
    if (!e) return XS_TRAP;
    if (oc != w->cta && op == MO_ARRIVE && !a->sink)
      return fault_obj(w, x, l, e, off, "an arrive on another CTA's mbarrier cannot return a "
                       "state (the destination must be _)");
    int k = (int)(e - t->e);
    const char *err = NULL;
    bool done = false;
    switch (op) {
    case MO_INIT:
      e->observed = 0;
      err = mbar_init(&e->m, R32(w, x->slot[1])[l]);
      if (!err) { store(oc, e); changed(oc, t, k); }
      break;
    case MO_INVAL:
      for (int i = 0; i < t->nwarps * WARP_SIZE && !err; i++)
        if (t->w[i].ent == k) err = "inval while threads wait on the object";
      if (!err) err = mbar_inval(&e->m);
      if (!err) { e->enc = 0; changed(oc, t, k); }
      break;
    case MO_EXPECT_TX:
      err = mbar_expect_tx(&e->m, R32(w, x->slot[1])[l]);
      if (!err) { store(oc, e); t->idle = 0; }
      break;
    case MO_COMPLETE_TX: {
      uint32_t ph = e->m.phase;
      err = mbar_complete_tx(&e->m, R32(w, x->slot[1])[l], &done);
      count_phases(&e->m, ph);
      if (!err) { race_mbar_arrive(w, l, oc->shared + off, 0); store(oc, e); changed(oc, t, k); }
      break;
    }
    case MO_ARRIVE: {
      uint64_t st = 0;
      uint32_t cnt = a->has_count && !a->has_tx ? R32(w, x->slot[2])[l] : 1;
      uint32_t tx = a->has_tx ? R32(w, x->slot[2])[l] : 0;
      if (e->m.phase > e->observed && oc == w->cta && exec_checking(w)) {
        char on[160];
        obj_name(w->launch, off, on, sizeof on);
        exec_report(w, x, l, "arrive on phase %u of mbarrier %s before any test_wait/try_wait "
                    "observed phase %u complete (each phase must be observed before the next "
                    "one's arrivals)", e->m.phase, on, e->m.phase - 1);
      }
      uint32_t ph = e->m.phase;
      if (mem_observed(w) && !insn_has_mod(x->src, ".relaxed")) race_mbar_arrive(w, l, oc->shared + off, 0);
      err = mbar_arrive(&e->m, off, cnt, a->drop, a->nocomplete, a->has_tx, tx, &st, &done);
      count_phases(&e->m, ph);
      if (!err) { R64(w, x->slot[0])[l] = st; store(oc, e); changed(oc, t, k); }
      break;
    }
    case MO_CP_ARRIVE: {
      uint64_t addr = lane_address(w, a->sp, x->imm, a->base, a->base64, l);
      if (mbar_async_arrive(w, x, l, a->noinc, a->sp, addr) != XS_NEXT) return XS_TRAP;
      break;
    }
    case MO_TEST_STATE: case MO_TRY_STATE: case MO_TEST_PARITY: case MO_TRY_PARITY: {
      bool parity = op == MO_TEST_PARITY || op == MO_TRY_PARITY;
      uint64_t v = parity ? R32(w, x->slot[2])[l] : R64(w, x->slot[2])[l];
      if (parity) done = mbar_test_parity(&e->m, (uint32_t)v);
      else err = mbar_test_state(&e->m, off, v, &done);
      if (err) break;
      if (done) {
        e->observed = e->m.phase;
        if (mem_observed(w) && !insn_has_mod(x->src, ".relaxed")) race_mbar_acquire(w, l, w->cta->shared + off);
      }
      if (op == MO_TEST_STATE || op == MO_TEST_PARITY) { set_pred(w, x->slot[0], l, done); break; }
      MbWaiter *q = &own_t->w[w->id * WARP_SIZE + l];
      *q = (MbWaiter){.ent = k, .parity = parity, .val = v, .pslot = x->slot[0], .ready = done,
                      .at = x};
      uint64_t hint = a->has_hint ? R32(w, x->slot[3])[l] : MB_DEFAULT_NS;
      q->deadline = interp_clock(w) + hint;
      parked |= 1u << l;
      if (done) ready |= 1u << l;
      break;
    }
    default: break;
    }
    if (err) return fault_obj(w, x, l, e, off, err);
  }
  if (parked && parked == ready) {   /* every try_wait lane done at once */
    FOR_LANES(l) if (ACTIVE(parked, l)) {
      MbWaiter *q = &own_t->w[w->id * WARP_SIZE + l];
      set_pred(w, q->pslot, l, true);
      q->ent = -1; q->ready = false;
    }
    return XS_NEXT;
  }
  return parked ? XS_WAIT : XS_NEXT;
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

/* Completes item i (and first the earlier items of the same thread).
   False after a fault. */
static bool as_complete(Cta *c, MbCta *t, int i) {
  AsItem *it = &t->q[i];
  if (it->done) return true;
  uint32_t *landed = &t->landed[it->wl * 2 + it->bulk];
  for (int j = 0; j < i && it->ord != *landed; j++)   /* earlier items of the thread's kind */
    if (!t->q[j].done && t->q[j].wl == it->wl && !t->q[j].bulk == !it->bulk && !as_complete(c, t, j))
      return false;
  it->done = true;
  (*landed)++;
  if (!it->bulk && !it->tx) t->plain[it->wl]--;
  t->idle = 0;
  if (!it->arrive && it->dst) {
    Warp *iw = &c->warps[it->wl / WARP_SIZE];
    copy_bytes(it->dst, as_bytes(it), it->size);
    if (mem_observed(iw))
      mem_observe_landing(iw, it->x, it->wl % WARP_SIZE, it->dst, it->size,
                          it->tx ? 3 : it->bulk ? 2 : 1, it->tx ? it->ord + 1 : it->group + 1);
  }
  free(it->data);
  it->data = NULL;
  if (!it->tx && !it->arrive) return true;
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
    if (it->tx) race_mbar_tx(w, l, mc->shared + it->moff, it->ord + 1);
    else race_mbar_arrive(w, l, mc->shared + it->moff, it->group + 1);
    err = it->tx ? mbar_complete_tx(&e->m, it->size, &done)
                 : mbar_arrive(&e->m, it->moff, 1, false, false, false, 0, NULL, &done);
    count_phases(&e->m, ph);
    if (!err) { store(mc, e); changed(mc, mt, (int)(e - mt->e)); return true; }
  }
  char why[400];
  snprintf(why, sizeof why, "at the completion of this asynchronous operation: %s", err);
  fault_obj(w, it->x, l, e, it->moff, why);
  return false;
}

/* Drops completed items from the queue's front. */
static void as_compact(MbCta *t) {
  int k = 0;
  for (int i = 0; i < t->nq; i++) if (!t->q[i].done) t->q[k++] = t->q[i];
  t->nq = k;
}

static AsItem *as_push(Warp *w, const XInsn *x, int lane, MbCta *t) {
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
  memset(it, 0, sizeof *it);
  it->wl = w->id * WARP_SIZE + lane;
  it->x = x;
  it->due = interp_clock(w) + async_delay(w);
  return it;
}

/* Counts item it, its kind (bulk, tx, arrive) set, as issued. */
static void as_issued(MbCta *t, AsItem *it) {
  it->ord = t->issued[it->wl * 2 + it->bulk]++;
  if (!it->bulk && !it->tx) t->plain[it->wl]++;
}

XStatus mbar_async_copy(Warp *w, const XInsn *x, int lane, bool bulk, uint8_t *dst,
                        const uint8_t *src, uint32_t size, uint32_t nsrc, bool tx, Space msp,
                        uint64_t maddr) {
  MbCta *t = table(w->cta);
  if (!t) return exec_fault(w, x, lane, "out of memory");
  uint32_t off = 0;
  Cta *mc = w->cta;
  MbCta *mt = t;
  if (tx && !lookup_at(w, x, lane, &mc, &mt, false, true, msp, maddr, &off)) return XS_TRAP;
  race_async_issue(w, lane);
  AsItem *it = as_push(w, x, lane, t);
  bool small = size <= sizeof it->small;   /* no allocation per cp.async */
  uint8_t *data = small ? NULL : malloc(size);
  if (!it || (!small && !data)) { free(data); return exec_fault(w, x, lane, "out of memory"); }
  uint8_t *bytes = small ? it->small : data;
  copy_bytes(bytes, src, nsrc);
  if (!small) memset(bytes + nsrc, 0, size - nsrc);   /* small is zeroed (as_push) */
  it->data = data; it->dst = dst; it->size = size; it->bulk = bulk && !tx; it->tx = tx;
  it->moff = off;
  it->mc = mc;
  it->group = it->bulk ? t->bseq[it->wl] : t->gseq[it->wl];
  as_issued(t, it);
  if (async_delay(w) == 0 && !as_complete(w->cta, t, t->nq - 1)) return XS_TRAP;
  return XS_NEXT;
}

XStatus mbar_async_arrive(Warp *w, const XInsn *x, int lane, bool noinc, Space msp, uint64_t maddr) {
  MbCta *t = table(w->cta);
  if (!t) return exec_fault(w, x, lane, "out of memory");
  uint32_t off = 0;
  Cta *oc = w->cta;
  MbCta *ot = t;
  MbEnt *e = lookup_at(w, x, lane, &oc, &ot, false, false, msp, maddr, &off);
  if (!e) return XS_TRAP;
  const char *err = noinc ? NULL : mbar_increment(&e->m);
  if (err) return fault_obj(w, x, lane, e, off, err);
  store(w->cta, e);
  int wl = w->id * WARP_SIZE + lane;
  if (t->plain[wl]) {   /* the thread's earlier cp.async copies are in flight */
    AsItem *it = as_push(w, x, lane, t);
    if (!it) return exec_fault(w, x, lane, "out of memory");
    it->arrive = true; it->moff = off; it->group = t->gseq[wl];
    as_issued(t, it);
    return XS_NEXT;
  }
  bool done = false;
  uint32_t ph = e->m.phase;
  race_mbar_arrive(w, lane, w->cta->shared + off, t->gseq[wl] + 1);
  err = mbar_arrive(&e->m, off, 1, false, false, false, 0, NULL, &done);
  count_phases(&e->m, ph);
  if (err) return fault_obj(w, x, lane, e, off, err);
  store(w->cta, e);
  changed(w->cta, t, (int)(e - t->e));
  return XS_NEXT;
}

void mbar_async_commit(Warp *w, int lane, bool bulk) {
  MbCta *t = table(w->cta);
  if (!t) return;
  int wl = w->id * WARP_SIZE + lane;
  if (bulk) t->bseq[wl]++; else t->gseq[wl]++;
  race_async_commit(w, lane, bulk);
}

void mbar_async_wait(Warp *w, int lane, bool bulk, uint32_t n, bool all) {
  MbCta *t = table(w->cta);
  if (!t) return;
  int wl = w->id * WARP_SIZE + lane;
  uint32_t seq = bulk ? t->bseq[wl] : t->gseq[wl];
  uint64_t latest = 0;
  for (int i = 0; i < t->nq; i++) {
    AsItem *it = &t->q[i];
    if (it->done || it->wl != wl || it->bulk != bulk || (!bulk && it->tx)) continue;
    if (!all && !(it->group + n < seq)) continue;
    if (it->due > latest) latest = it->due;
    if (!as_complete(w->cta, t, i)) return;
  }
  race_async_waited(w, lane, bulk, all ? seq + 1 : seq > n ? seq - n : 0);
  uint64_t ck = interp_clock(w);   /* the wait lasts until the last copy landed */
  if (latest > ck) interp_sleep(w, latest - ck);
}

bool mbar_cta_poll(Cta *c, bool released) {
  BarCta *b = c->sync;
  MbCta *t = b ? b->ext : NULL;
  if (!t) return false;
  bool any = false;
  uint64_t now = 0;
  bool runnable = false;
  for (int i = 0; i < c->nwarps; i++) {
    Warp *w = &c->warps[i];
    if (w->valid & ~w->exited & ~interp_waiting(w)) {
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
  if (t->nq) as_compact(t);
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
  if (x->fn != exec_mbar || (x->sub != MO_TEST_STATE && x->sub != MO_TEST_PARITY)) return false;
  const MbInsn *a = x->aux;
  uint64_t addr = lane_address(w, a->sp, x->imm, a->base, a->base64, l);
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
  if (x->sub == MO_TEST_PARITY) snprintf(what, sizeof what, "parity %u", R32(w, x->slot[2])[l] & 1);
  else snprintf(what, sizeof what, "the state of phase %u", (unsigned)(R64(w, x->slot[2])[l] >> 48));
  snprintf(buf, n, "mbarrier %s: %s; its test_wait waits for %s to complete", on, st, what);
  return true;
}

static bool mb_describe(void *p, int wid, int lane, char *buf, size_t n) {
  MbCta *t = p;
  if (!t || wid >= t->nwarps) return false;
  const MbWaiter *q = &t->w[wid * WARP_SIZE + lane];
  if (q->ent < 0) return false;
  const MbEnt *e = &t->e[q->ent];
  char on[160], st[128], what[64];
  obj_name(t->launch, e->off, on, sizeof on);
  mbar_text(&e->m, st, sizeof st);
  if (q->parity) snprintf(what, sizeof what, "parity %u", (unsigned)(q->val & 1));
  else snprintf(what, sizeof what, "the state of phase %u", (unsigned)(q->val >> 48));
  snprintf(buf, n, "mbarrier %s: %s; waits for %s to complete (no thread can arrive, no "
           "transaction is in flight)", on, st, what);
  return true;
}

bool exec_select_MBAR(Lower *L, const Insn *in, XInsn *x) {
  MbInsn *a = lower_aux(L, sizeof *a);
  x->aux = a;
  a->sp = lower_space(in);
  const Operand *o = in->opds;
  int mi = 0;   /* the address operand's index */
  switch ((Opcode)in->op) {
  case OP_MBARRIER_INIT: x->sub = MO_INIT; break;
  case OP_MBARRIER_INVAL: x->sub = MO_INVAL; break;
  case OP_MBARRIER_EXPECT_TX: x->sub = MO_EXPECT_TX; break;
  case OP_MBARRIER_COMPLETE_TX: x->sub = MO_COMPLETE_TX; break;
  case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_SEM: case OP_MBARRIER_ARRIVE_EXPECT_TX:
  case OP_MBARRIER_ARRIVE_NOCOMPLETE: case OP_MBARRIER_ARRIVE_DROP: case OP_MBARRIER_ARRIVE_DROP_SEM:
  case OP_MBARRIER_ARRIVE_DROP_EXPECT_TX: case OP_MBARRIER_ARRIVE_DROP_NOCOMPLETE:
    x->sub = MO_ARRIVE;
    mi = 1;
    a->drop = op_has(in->op, OPF_DROP);
    a->nocomplete = op_has(in->op, OPF_NOCOMP);
    a->has_tx = op_has(in->op, OPF_TX);
    a->has_count = in->nopds > 2;
    x->slot[0] = lower_dst(L, &o[0]);
    a->sink = o[0].kind == OPD_SINK;
    if (in->nopds > 2) x->slot[2] = lower_src(L, &o[2], TY_U32);
    break;
  case OP_MBARRIER_TEST_WAIT: case OP_MBARRIER_TEST_WAIT_SEM: x->sub = MO_TEST_STATE; mi = 1; break;
  case OP_MBARRIER_TEST_WAIT_PARITY: case OP_MBARRIER_TEST_WAIT_PARITY_SEM:
    x->sub = MO_TEST_PARITY; mi = 1; break;
  case OP_MBARRIER_TRY_WAIT: case OP_MBARRIER_TRY_WAIT_SEM: x->sub = MO_TRY_STATE; mi = 1; break;
  case OP_MBARRIER_TRY_WAIT_PARITY: case OP_MBARRIER_TRY_WAIT_PARITY_SEM:
    x->sub = MO_TRY_PARITY; mi = 1; break;
  case OP_MBARRIER_PENDING_COUNT:
    x->sub = MO_PENDING_COUNT;
    x->slot[0] = lower_dst(L, &o[0]);
    x->slot[1] = lower_src(L, &o[1], TY_B64);
    x->nslots = 2;
    x->fn = exec_mbar;
    return true;
  case OP_CP_ASYNC_MBARRIER_ARRIVE:
    x->sub = MO_CP_ARRIVE;
    a->noinc = insn_has_mod(in, ".noinc");
    break;
  default:
    return false;
  }
  if (x->sub == MO_INIT || x->sub == MO_EXPECT_TX || x->sub == MO_COMPLETE_TX)
    x->slot[1] = lower_src(L, &o[1], TY_U32);
  if (x->sub >= MO_TEST_STATE && x->sub <= MO_TRY_PARITY) {
    bool parity = x->sub == MO_TEST_PARITY || x->sub == MO_TRY_PARITY;
    x->slot[0] = lower_dst(L, &o[0]);
    x->slot[2] = lower_src(L, &o[2], parity ? TY_U32 : TY_B64);
    if (in->nopds > 3) { a->has_hint = true; x->slot[3] = lower_src(L, &o[3], TY_U32); }
  }
  const Operand *m = &o[mi];
  x->imm = lower_addr(L, m, a->sp, &a->base);
  a->base64 = m->sym && m->sym->kind == SYM_REG && type_size(m->sym->type) == 8;
  x->nslots = 4;
  x->fn = exec_mbar;
  return true;
}
