/* launch.c: checking a launch configuration and running the grid
 * (interp.h "the launcher"; PTX ISA 9.0 §11.4 performance-tuning
 * directives; the sm_90 limits of the CUDA programming guide).
 *
 * launch_check refuses what a GPU would refuse at launch time: zero or
 * oversized dimensions, more than 1024 threads per CTA, a grid that is not a
 * whole number of clusters, a cluster larger than the kernel allows, a CTA
 * shape that breaks .reqntid / .maxntid / .reqnctapercluster, shared memory
 * beyond 227 KiB. launch_run then runs the clusters (the CTAs of a
 * cluster together, their warps interleaved: cluster_resume) on a pool of
 * Launch.jobs host threads (-j; one, the caller's, for jobs <= 1 or a
 * checked launch) that start the clusters in x, y, z order and stop
 * starting them at the first that fails.
 *
 * Forward progress: like an SM, each host thread keeps up to RESIDENT_CTAS
 * CTAs resident (at least two clusters) and runs them in turns of SLICE
 * warp-instructions, so that a CTA spinning on a flag that a CTA started
 * after it sets (decoupled look-back) lets that one run, even at -j1. As on
 * a GPU, only started CTAs are sure to progress: one waiting for a CTA that
 * cannot become resident spins until the watchdog reports it (runaway).
 * A cooperative launch (ptxvm_launch_ex) keeps every cluster of the grid
 * resident, at most what the device model holds at once
 * (launch_check_cooperative, src/sched/occupancy.c), so CTAs that wait for
 * each other at a grid-wide barrier all progress.
 *
 * Clusters share only global memory (atomics are host atomics,
 * src/exec/atom.c), the first fault (set_error keeps the lowest cluster
 * index) and the printf callback, to which each cluster's output is passed
 * in index order, one call per printf call: a race-free kernel gives the
 * same results and output on any number of threads.
 *
 * printf output is bounded like the GPU's FIFO (cudaLimitPrintfFifoSize):
 * a cluster's buffer holds at most Launch.printf_limit bytes (1 MiB by
 * default), each call taking its text and RECORD_EXTRA bytes; the first
 * call that does not fit and all later calls of that cluster are dropped
 * and counted (Launch.printf_lost_*), a decision that depends on the
 * cluster alone, so the output is the same at any -j. The output of
 * finished clusters waiting for an earlier one is bounded too (take()). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/ptxvm.h"
#include "../exec/interp.h"
#include "../exec/initcheck.h"
#include "../exec/proxycheck.h"
#include "../exec/race.h"
#include "../util/text.h"

enum {
  MAX_BLOCK_THREADS = 1024,
  MAX_SHARED = PTXVM_DEVICE_SHARED_PER_CTA,   /* sm_90 opt-in maximum per CTA */
  MAX_CLUSTER_PORTABLE = PTXVM_DEVICE_CLUSTER_PORTABLE,
  MAX_CLUSTER = PTXVM_DEVICE_CLUSTER_MAX,     /* non-portable, sm_90 */
};

static bool dims_ok(const char *what, const uint32_t d[3], const uint64_t max[3], char *err,
                    size_t errlen) {
  static const char xyz[] = "xyz";
  for (int i = 0; i < 3; i++) {
    if (d[i] == 0 || d[i] > max[i]) {
      snprintf(err, errlen, "%s dimension %c is %u; it must be between 1 and %llu", what, xyz[i],
               d[i], (unsigned long long)max[i]);
      return false;
    }
  }
  return true;
}

static uint64_t volume(const uint32_t d[3]) { return (uint64_t)d[0] * d[1] * d[2]; }

static bool directives_ok(const Function *k, const uint32_t block[3], const uint32_t cluster[3],
                          bool nonportable, char *err, size_t errlen) {
  if (k->reqntid[0] && (block[0] != k->reqntid[0] || block[1] != (k->reqntid[1] ? k->reqntid[1] : 1) ||
                        block[2] != (k->reqntid[2] ? k->reqntid[2] : 1))) {
    snprintf(err, errlen, "block %u,%u,%u differs from the kernel's .reqntid %u,%u,%u", block[0],
             block[1], block[2], k->reqntid[0], k->reqntid[1] ? k->reqntid[1] : 1,
             k->reqntid[2] ? k->reqntid[2] : 1);
    return false;
  }
  if (k->maxntid[0]) {
    uint32_t m[3] = {k->maxntid[0], k->maxntid[1] ? k->maxntid[1] : 1,
                     k->maxntid[2] ? k->maxntid[2] : 1};
    if (volume(block) > volume(m)) {
      snprintf(err, errlen, "block %u,%u,%u has %llu threads, more than the kernel's .maxntid %u,%u,%u allows",
               block[0], block[1], block[2], (unsigned long long)volume(block), m[0], m[1], m[2]);
      return false;
    }
  }
  if (k->reqnctapercluster[0]) {
    uint32_t r[3] = {k->reqnctapercluster[0], k->reqnctapercluster[1] ? k->reqnctapercluster[1] : 1,
                     k->reqnctapercluster[2] ? k->reqnctapercluster[2] : 1};
    if (memcmp(r, cluster, sizeof r)) {
      snprintf(err, errlen, "cluster %u,%u,%u differs from the kernel's .reqnctapercluster %u,%u,%u",
               cluster[0], cluster[1], cluster[2], r[0], r[1], r[2]);
      return false;
    }
  }
  uint64_t maxc = nonportable || k->maxclusterrank > MAX_CLUSTER_PORTABLE ? MAX_CLUSTER : MAX_CLUSTER_PORTABLE;
  if (k->maxclusterrank && k->maxclusterrank < maxc) maxc = k->maxclusterrank;
  if (volume(cluster) > maxc) {
    snprintf(err, errlen, "cluster %u,%u,%u has %llu CTAs; at most %llu are allowed", cluster[0],
             cluster[1], cluster[2], (unsigned long long)volume(cluster), (unsigned long long)maxc);
    return false;
  }
  return true;
}

bool launch_check_shape(const Function *kernel, const uint32_t grid[3], const uint32_t block[3],
                        const uint32_t cluster[3], uint64_t shared_bytes, bool nonportable, char *err,
                        size_t errlen) {
  static const uint64_t gmax[3] = {0x7fffffff, 65535, 65535};
  static const uint64_t bmax[3] = {1024, 1024, 64};
  static const uint64_t cmax[3] = {MAX_CLUSTER, MAX_CLUSTER, MAX_CLUSTER};
  static const char xyz[] = "xyz";
  if (!dims_ok("grid", grid, gmax, err, errlen) || !dims_ok("block", block, bmax, err, errlen) ||
      !dims_ok("cluster", cluster, cmax, err, errlen))
    return false;
  if (volume(block) > MAX_BLOCK_THREADS) {
    snprintf(err, errlen, "block %u,%u,%u has %llu threads; at most %d are allowed", block[0],
             block[1], block[2], (unsigned long long)volume(block), MAX_BLOCK_THREADS);
    return false;
  }
  for (int i = 0; i < 3; i++)
    if (grid[i] % cluster[i]) {
      snprintf(err, errlen, "grid dimension %c (%u) is not a multiple of the cluster's (%u)",
               xyz[i], grid[i], cluster[i]);
      return false;
    }
  if (shared_bytes > MAX_SHARED) {
    snprintf(err, errlen, "%llu bytes of shared memory per CTA exceed the %d available",
             (unsigned long long)shared_bytes, MAX_SHARED);
    return false;
  }
  return directives_ok(kernel, block, cluster, nonportable, err, errlen);
}

bool launch_check(const Function *kernel, const uint32_t grid[3], const uint32_t block[3],
                  const uint32_t cluster[3], uint64_t shared_bytes, char *err, size_t errlen) {
  return launch_check_shape(kernel, grid, block, cluster, shared_bytes, false, err, errlen);
}

bool launch_check_cooperative(const Function *kernel, const uint32_t grid[3], const uint32_t block[3],
                              const uint32_t cluster[3], uint64_t shared_bytes, char *err, size_t errlen) {
  uint32_t threads = (uint32_t)volume(block), ctas = (uint32_t)volume(cluster);
  uint64_t per_sm = occupancy_ctas(kernel, threads, shared_bytes);
  uint64_t fit = occupancy_clusters(kernel, threads, shared_bytes, ctas), want = volume(grid) / ctas;
  if (want <= fit) return true;
  snprintf(err, errlen, "a cooperative grid of %llu %s is more than the %llu the device holds at once "
           "(%d SMs x %llu CTAs of %u threads and %llu bytes of shared memory per SM)",
           (unsigned long long)want, ctas > 1 ? "clusters" : "CTAs", (unsigned long long)fit,
           PTXVM_DEVICE_SMS, (unsigned long long)per_sm, threads, (unsigned long long)shared_bytes);
  return false;
}

/* ---- clusters on a pool of host threads ---- */

/* A cluster's printf output: the text kept, and what was dropped. */
typedef struct Output {
  Text text;
  uint64_t lost_calls, lost_bytes;
} Output;

/* The printf output of one finished cluster, waiting for those before it. */
typedef struct Pending {
  uint64_t idx;
  Output out;
  struct Pending *next;
} Pending;

/* A resident cluster proven stuck (CLUSTER_STUCK) in a window opened when
 * Launch.progress was `progress`, and its report. */
typedef struct Stuck {
  uint64_t idx, progress;
  char *msg;
} Stuck;

/* A cluster that has started and not ended, and its printf output. */
typedef struct Resident {
  Cluster *cl;
  uint64_t idx;
  Output out;
} Resident;

enum {
  RESIDENT_CTAS = 16,       /* CTAs resident per host thread (at least two clusters) */
  SLICE = 1 << 12,          /* warp-instructions (at least a round: cluster_resume) a
                               cluster runs before the next's turn; small, as a
                               spinning CTA spends its whole turn */
  WINDOW = 4096,            /* see take() */
  PENDING_LIMITS = 16,      /* take(): the pending output, in printf limits */
  RECORD_EXTRA = sizeof(size_t) + 1,  /* a printf record's length and NUL (buffer_printf) */
};

typedef struct Pool {
  Launch *l;
  int resident;             /* clusters resident per host thread */
  uint32_t n[3];
  uint64_t total;
  pthread_mutex_t lock;
  uint64_t next;            /* the next cluster to start */
  uint64_t stop;            /* clusters >= stop are not started (failure + 1) */
  uint64_t flushed;         /* clusters whose output has been passed on */
  Pending *pending;         /* finished, not yet passed on, by index */
  uint64_t pending_bytes;   /* their printf text */
  uint64_t limit;           /* printf bytes kept per cluster */
  uint64_t live;            /* clusters taken and not finished */
  uint64_t workers;         /* host threads that may take clusters */
  Stuck *stuck;             /* resident clusters proven stuck (livelock) */
  int nstuck, capstuck;
  bool livelock;            /* reported: no second report */
  void (*fn)(const char *text, size_t len, void *user);
  void *user;
} Pool;

static _Thread_local Output *cur_out;

/* Under p->lock: whether a cluster may still be started (window aside). */
static bool take_possible(const Pool *p) {
  return p->next < p->total && p->next < p->stop && !launch_cancelled(p->l);
}

/* Launch.printf_fn while the pool runs (user: the Pool): the text of one
 * printf call goes to the cluster's buffer as a record, its length (a
 * size_t), the bytes and a NUL, so that pass_on gives the callback one call
 * per printf call; or, from the first call that does not fit in the
 * buffer's limit (or finds the host out of memory) on, it is counted as
 * lost. */
static void buffer_printf(const char *text, size_t len, void *user) {
  const Pool *p = user;
  Output *o = cur_out;
  if (!o) return;
  uint64_t room = p->limit - o->text.n;   /* the buffer never exceeds the limit */
  if (!o->lost_calls && len < room && room - len >= RECORD_EXTRA) {
    text_put(&o->text, (const char *)&len, sizeof len);
    text_put(&o->text, text, len);
    text_put(&o->text, "", 1);
    if (!o->text.oom) return;
  }
  o->lost_calls++;
  o->lost_bytes += len;
}

/* Passes the records of a cluster's buffer (buffer_printf) to the
 * callback, one call each; a record cut short by a failed allocation ends
 * it. */
static void pass_on(const Pool *p, const char *t, size_t n) {
  size_t len;
  for (size_t i = 0; n - i >= sizeof len; i += sizeof len + len + 1) {
    memcpy(&len, t + i, sizeof len);
    if (n - i - sizeof len < len + 1) break;
    p->fn(t + i + sizeof len, len, p->user);
  }
}

/* Under p->lock: counts the output a passed-on cluster lost. */
static void count_lost(Pool *p, uint64_t idx, const Output *o) {
  Launch *l = p->l;
  if (!o->lost_calls) return;
  if (!l->printf_lost_clusters++) {
    l->printf_lost_first[0] = (uint32_t)(idx % p->n[0]);
    l->printf_lost_first[1] = (uint32_t)(idx / p->n[0] % p->n[1]);
    l->printf_lost_first[2] = (uint32_t)(idx / ((uint64_t)p->n[0] * p->n[1]));
  }
  l->printf_lost_calls += o->lost_calls;
  l->printf_lost_bytes += o->lost_bytes;
}

/* Under p->lock: passes on the output of the finished clusters that follow
 * the last passed on, in index order, none after a failed one. */
static void flush_pending(Pool *p) {
  while (p->pending && p->pending->idx == p->flushed) {
    Pending *h = p->pending;
    p->pending = h->next;
    if (h->idx < p->stop && p->fn && h->out.text.n) pass_on(p, h->out.text.p, h->out.text.n);
    if (h->idx < p->stop) count_lost(p, h->idx, &h->out);
    p->pending_bytes -= h->out.text.n;
    free(h->out.text.p);
    free(h);
    p->flushed++;
  }
}

/* Under p->lock: takes the next cluster to start into *idx. A thread that
 * has clusters resident (`busy`) starts one only within WINDOW of the first
 * whose output is not passed on, and while the output waiting in the
 * Pending list is under PENDING_LIMITS printf limits, which bounds the
 * list while an early cluster spins. */
static bool take(Pool *p, bool busy, uint64_t *idx) {
  if (!take_possible(p)) return false;
  if (busy && !p->l->cooperative &&
      (p->next >= p->flushed + WINDOW || p->pending_bytes / PENDING_LIMITS >= p->limit))
    return false;
  *idx = p->next++;
  p->live++;
  __atomic_store_n(&p->l->started, p->next, __ATOMIC_RELAXED);
  return true;
}

/* Under p->lock: drops the record of cluster idx as stuck. */
static void unstick(Pool *p, uint64_t idx) {
  for (int i = 0; i < p->nstuck; i++)
    if (p->stuck[i].idx == idx) {
      free(p->stuck[i].msg);
      p->stuck[i] = p->stuck[--p->nstuck];
      return;
    }
}

/* Livelock (spin.c "Other clusters"): cluster idx is proven stuck unless
 * another cluster changes memory. When every resident cluster is stuck in
 * a window opened at the current Launch.progress (none has announced an
 * effect since) and no cluster can start (none is left, or every host
 * thread holds as many as it may), none can ever change memory: the lowest
 * one's report is the launch's failure. */
static void stuck(Pool *p, uint64_t idx, uint64_t progress, char *msg) {
  Launch *l = p->l;
  pthread_mutex_lock(&p->lock);
  unstick(p, idx);
  if (p->nstuck == p->capstuck) {
    int cap = p->capstuck ? 2 * p->capstuck : 16;
    Stuck *ns = realloc(p->stuck, (size_t)cap * sizeof *ns);
    if (ns) p->stuck = ns, p->capstuck = cap;
  }
  if (!msg || p->nstuck == p->capstuck) { free(msg); pthread_mutex_unlock(&p->lock); return; }
  uint64_t now = atomic_load(&l->progress);
  p->stuck[p->nstuck++] = (Stuck){idx, progress, msg};
  uint64_t n = 0;
  Stuck *low = NULL;
  for (int i = 0; i < p->nstuck; i++)
    if (p->stuck[i].progress == now) {
      n++;
      if (!low || p->stuck[i].idx < low->idx) low = &p->stuck[i];
    }
  bool full = !take_possible(p) || p->live >= p->workers * (uint64_t)p->resident;
  char *report = NULL;
  uint64_t at = 0;
  if (n == p->live && full && low && !p->livelock) {
    size_t len = strlen(low->msg);
    report = realloc(low->msg, len + 800);
    if (report) {
      low->msg = NULL;
      p->livelock = true;
      at = low->idx;
      if (n > 1)
        len += (size_t)snprintf(report + len, 200, "\n  %llu other resident %s spin or wait "
                                "likewise", (unsigned long long)(n - 1),
                                l->cluster[0] * l->cluster[1] * l->cluster[2] > 1 ? "clusters" : "CTAs");
      if (launch_unstarted_note(l, report + len + 3, 590)) memcpy(report + len, "\n  ", 3);
      if (at + 1 < p->stop) p->stop = at + 1;
    }
  }
  pthread_mutex_unlock(&p->lock);
  if (report) launch_livelock(l, at, report);
}

/* A cluster's run ended (done or failed): queue its output and pass on what
 * is in order. */
static void finished(Pool *p, uint64_t idx, bool ok, Output *b) {
  Pending *e = malloc(sizeof *e);
  pthread_mutex_lock(&p->lock);
  p->live--;
  unstick(p, idx);
  if (!ok && idx + 1 < p->stop) p->stop = idx + 1;
  if (e) {
    *e = (Pending){idx, *b, NULL};
    p->pending_bytes += b->text.n;
    Pending **at = &p->pending;
    while (*at && (*at)->idx < idx) at = &(*at)->next;
    e->next = *at;
    *at = e;
  } else {
    free(b->text.p);
    if (idx + 1 < p->stop) p->stop = idx + 1;   /* cannot keep the order */
  }
  flush_pending(p);
  pthread_mutex_unlock(&p->lock);
}

/* A host thread's pool and its resident clusters. */
typedef struct Worker {
  Pool *p;
  Resident *ring;           /* its resident clusters: room for Pool.resident */
} Worker;

/* One host thread: clusters taken in index order, up to `resident` at a
 * time (a GPU SM's occupancy). Each runs for SLICE warp-instructions, then
 * the next gets its turn: a new cluster while there is room, else the one
 * that waited longest. So a CTA that spins on a flag set by a CTA started
 * after it (decoupled look-back) lets that CTA run, at any -j. A cluster
 * alone on its thread with nothing left to start runs without pause. */
static void *worker(void *arg) {
  Pool *p = ((Worker *)arg)->p;
  Resident *ring = ((Worker *)arg)->ring;
  Launch *l = p->l;
  int n = 0;
  for (;;) {
    Resident r;
    uint64_t idx;
    pthread_mutex_lock(&p->lock);
    bool fresh = n < p->resident && take(p, n > 0, &idx);
    bool more = take_possible(p);
    pthread_mutex_unlock(&p->lock);
    if (fresh) {
      const uint32_t id[3] = {(uint32_t)(idx % p->n[0]), (uint32_t)(idx / p->n[0] % p->n[1]),
                              (uint32_t)(idx / ((uint64_t)p->n[0] * p->n[1]))};
      r = (Resident){.cl = cluster_start(l, id, idx), .idx = idx};
      if (!r.cl) { finished(p, idx, false, &r.out); continue; }
    } else if (n) {
      r = ring[0];
      memmove(ring, ring + 1, (size_t)--n * sizeof *ring);
    } else {
      break;
    }
    cur_out = &r.out;
    ClusterStatus st = cluster_resume(r.cl, n || more ? SLICE : UINT64_MAX);
    cur_out = NULL;
    if (st == CLUSTER_STUCK) stuck(p, r.idx, r.cl->spin.progress, cluster_livelock_text(r.cl));
    if (st == CLUSTER_YIELD || st == CLUSTER_STUCK) { ring[n++] = r; continue; }
    cluster_end(r.cl);
    finished(p, r.idx, st == CLUSTER_DONE, &r.out);
  }
  return NULL;
}

/* Runs the clusters on l->jobs host threads (--check: one, the caller, so
 * that findings keep their order), each a worker. A cooperative launch lets
 * every thread hold every cluster (launch_check_cooperative bounds them to
 * what the device model holds), so all of them start. */
static bool run_pool(Launch *l, const uint32_t n[3], uint64_t total) {
  uint64_t nt = l->jobs > 1 && !l->check ? l->jobs : 1;
  if (nt > total) nt = total;
  uint32_t ctas = 1;
  for (int i = 0; i < 3; i++) ctas *= l->cluster[i] ? l->cluster[i] : 1;
  Pool p = {.l = l, .n = {n[0], n[1], n[2]}, .total = total, .stop = UINT64_MAX,
            .fn = l->printf_fn, .user = l->printf_user,
            .limit = l->printf_limit ? l->printf_limit : PTXVM_PRINTF_BUFFER_DEFAULT,
            .resident = l->cooperative ? (int)total
                        : ctas <= RESIDENT_CTAS / 2 ? RESIDENT_CTAS / (int)ctas : 2,
            .workers = nt};   /* until all are created: more than run, never fewer */
  pthread_t *th = calloc((size_t)nt, sizeof *th);
  Worker *w = calloc((size_t)nt, sizeof *w);
  Resident *rings = calloc((size_t)nt * (size_t)p.resident, sizeof *rings);
  if (!th || !w || !rings) {
    free(th);
    free(w);
    free(rings);
    return false;
  }
  for (uint64_t i = 0; i < nt; i++) w[i] = (Worker){&p, rings + i * (uint64_t)p.resident};
  pthread_mutex_init(&p.lock, NULL);
  if (l->printf_fn) { l->printf_fn = buffer_printf; l->printf_user = &p; }
  uint64_t started = 0;
  for (; nt > 1 && started < nt; started++)
    if (pthread_create(&th[started], NULL, worker, &w[started])) break;
  pthread_mutex_lock(&p.lock);
  p.workers = started ? started : 1;
  pthread_mutex_unlock(&p.lock);
  if (!started) worker(&w[0]);
  for (uint64_t i = 0; i < started; i++) pthread_join(th[i], NULL);
  free(w);
  free(rings);
  l->printf_fn = p.fn;
  l->printf_user = p.user;
  launch_set_current(0);
  while (p.pending) {   /* after a failure: the clusters that ran past it */
    Pending *h = p.pending;
    p.pending = h->next;
    free(h->out.text.p);
    free(h);
  }
  for (int i = 0; i < p.nstuck; i++) free(p.stuck[i].msg);
  free(p.stuck);
  pthread_mutex_destroy(&p.lock);
  free(th);
  return p.stop == UINT64_MAX && p.next >= total && !l->error;
}

bool launch_run(Launch *l) {
  const uint32_t *g = l->grid, *c = l->cluster;
  uint32_t n[3];
  for (int i = 0; i < 3; i++) n[i] = g[i] / (c[i] ? c[i] : 1);
  race_begin(l);   /* --check: the race checker observes the launch */
  initcheck_begin(l);   /* and the uninitialized-read checker, before it */
  proxycheck_begin(l);   /* and the proxy-race checker, before both */
  bool ok = run_pool(l, n, (uint64_t)n[0] * n[1] * n[2]);
  proxycheck_end(l);
  initcheck_end(l);
  race_end(l);
  return ok;
}
