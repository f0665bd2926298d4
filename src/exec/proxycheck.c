/* proxycheck.c: proxy races under --check (issue 17, "Proxies").
 *
 * A bulk or tensor copy (cp.async.bulk, cp.reduce.async.bulk,
 * cp.async.bulk.tensor) reads its shared-memory source through the async
 * proxy, and so does wgmma.mma_async its A and B matrices through their
 * descriptors (PTX ISA 9.7.15.4; 9.7.15.7.1: "an async proxy fence must be
 * used" between prior writes to the matrices and the wgmma's reads); bytes
 * that generic-proxy stores wrote reach it only across a fence.proxy.async
 * (PTX ISA 8.x "Proxies", "Memory consistency model": a proxy fence is
 * required to synchronize across proxies). An async-proxy read of shared
 * bytes whose last generic write (st, atom, red, an mbarrier operation) was
 * followed by no fence.proxy.async, neither in the writing thread nor in
 * the reading thread (the copy's issuing thread; for a wgmma, each of the
 * warp's lanes: every one must have fenced), is a finding of kind "proxy"
 * (one rule, judge(): the copies' reads come through the memory observer,
 * wgmma.c's through proxycheck_async_read). Ordering
 * between the threads is the race checker's business (race.c): this one
 * judges only the missing fence, and so gives one finding where the fence
 * alone is missing.
 *
 * State: each CTA's shared bytes record their last generic writer (a thread
 * of that CTA), its instruction and a launch-wide stamp; each thread the
 * stamp of its last fence.proxy.async (Cta.proxy, one block, made at the
 * CTA's first shared store or fence). A byte is fenced when the writer's or
 * the issuer's last fence has a later stamp than its write. Async-proxy
 * landings and writes by other CTAs' threads (.shared::cluster) clear the
 * byte (nothing to judge): a tensor map's box landed by TMA needs no fence
 * before a wgmma reads it. A checked launch runs on one host thread
 * (launch.c), so the state needs no lock. Each pair (store, async-proxy
 * read) is reported once per launch, for its first occurrence in (cluster,
 * CTA rank, reading thread) order; at most PROXY_MAX pairs, the rest
 * counted. A program with no async-proxy reader has no such pair: the
 * checker is not installed for its launches (W3's shared atomics would
 * otherwise record every byte they write). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxycheck.h"
#include "program.h"

enum { PROXY_MAX = 32 };

typedef struct PByte {
  uint64_t stamp;    /* of its last generic write */
  uint32_t pc;       /* that write's instruction */
  uint32_t thr;      /* its thread in the CTA + 1; 0: none to judge */
} PByte;

typedef struct PCta {
  uint32_t nthr;
  uint64_t *fence;   /* per thread: stamp of its last fence.proxy.async (0 none) */
  PByte *b;          /* per shared byte */
} PCta;

typedef struct Found {
  uint32_t spc, rpc;              /* the store and the copy */
  uint64_t cluster;
  uint32_t rank, thread;          /* order key (reader) */
  uint32_t ctaid[3], wtid[3], rtid[3];
  uint64_t lo, hi;                /* shared offsets */
} Found;

struct ProxyLaunch {
  Launch *L;
  MemObserver obs;
  const MemObserver *next;
  uint64_t stamp;
  Found found[PROXY_MAX];
  unsigned nfound;
  uint64_t more;
};

static PCta *pcta_of(Cta *c) {
  if (c->proxy) return c->proxy;
  uint32_t nthr = (uint32_t)c->nwarps * WARP_SIZE;
  PCta *p = calloc(1, sizeof *p + (size_t)nthr * sizeof *p->fence + (size_t)c->shared_size * sizeof *p->b);
  if (!p) return NULL;
  p->nthr = nthr;
  p->fence = (uint64_t *)(p + 1);
  p->b = (PByte *)(p->fence + nthr);
  c->proxy = p;
  return p;
}

void proxycheck_fence(Warp *w, uint32_t mask, bool global_only) {
  ProxyLaunch *P = w->launch ? w->launch->proxy : NULL;
  if (!P || global_only || !w->cta) return;
  PCta *p = pcta_of(w->cta);
  if (!p) return;
  uint64_t s = ++P->stamp;
  for (uint32_t r = mask; r; r &= r - 1) p->fence[(uint32_t)w->id * WARP_SIZE + (uint32_t)__builtin_ctz(r)] = s;
}

/* Whether x is a copy that reads through the async proxy (a bulk or tensor copy). */
static bool async_proxy_read(const XInsn *x) {
  return x && x->src && strstr(op_info[x->src->op].mnemonic, ".bulk");
}

static void found(ProxyLaunch *P, const Found *f) {
  for (unsigned i = 0; i < P->nfound; i++) {
    Found *g = &P->found[i];
    if (g->spc != f->spc || g->rpc != f->rpc) continue;
    if (f->cluster < g->cluster || (f->cluster == g->cluster && (f->rank < g->rank ||
        (f->rank == g->rank && f->thread < g->thread)))) *g = *f;
    return;
  }
  if (P->nfound == PROXY_MAX) { P->more++; return; }
  P->found[P->nfound++] = *f;
}

/* An async-proxy read x by the lanes of mask of w of the n spans of size
 * bytes at shared offsets off[] of its CTA (in bounds): a byte is unfenced
 * when neither its writer's last fence nor that of every reading lane
 * follows its write. The finding names the first unfenced byte's store, the
 * bytes of that store it read (lowest to highest), and the lowest reading
 * lane whose fence does not follow it. */
static void judge(ProxyLaunch *P, Warp *w, const XInsn *x, uint32_t mask, const uint32_t *off, size_t n,
                  uint32_t size) {
  Cta *c = w->cta;
  PCta *p = c->proxy;
  if (!p || !mask) return;
  uint32_t t0 = (uint32_t)w->id * WARP_SIZE;
  uint64_t rf = UINT64_MAX;   /* the reading lanes' earliest last fence */
  for (uint32_t r = mask; r; r &= r - 1) {
    uint64_t f = p->fence[t0 + (uint32_t)__builtin_ctz(r)];
    if (f < rf) rf = f;
  }
  const PByte *bad = NULL;
  uint64_t lo = 0, hi = 0;
  for (size_t j = 0; j < n; j++)
    for (uint32_t i = off[j]; i < off[j] + size; i++) {
      const PByte *b = &p->b[i];
      if (!b->thr || p->fence[b->thr - 1] > b->stamp || rf > b->stamp) continue;
      if (!bad) { bad = b; lo = hi = i; }
      if (b->pc != bad->pc) continue;
      if (i < lo) lo = i;
      if (i + 1 > hi) hi = i + 1;
    }
  if (!bad) return;
  int rl = 0;
  for (uint32_t r = mask; r; r &= r - 1)
    if (p->fence[t0 + (uint32_t)(rl = __builtin_ctz(r))] <= bad->stamp) break;
  const Warp *v = &c->warps[(bad->thr - 1) / WARP_SIZE];
  int vl = (int)((bad->thr - 1) % WARP_SIZE);
  Found f = {.spc = bad->pc, .rpc = (uint32_t)(x - P->L->prog->code),
             .cluster = c->cluster ? c->cluster->index : 0, .rank = c->rank, .thread = t0 + (uint32_t)rl,
             .lo = lo, .hi = hi};
  memcpy(f.ctaid, c->ctaid, sizeof f.ctaid);
  for (int i = 0; i < 3; i++) { f.wtid[i] = v->tid[i][vl]; f.rtid[i] = w->tid[i][rl]; }
  found(P, &f);
}

void proxycheck_async_read(Warp *w, const XInsn *x, uint32_t mask, const uint32_t *off, size_t n,
                           uint32_t size) {
  ProxyLaunch *P = w->launch ? w->launch->proxy : NULL;
  if (P && w->cta) judge(P, w, x, mask, off, n, size);
}

static void check_one(ProxyLaunch *P, const MemAccess *a) {
  if (!a->size || a->kind == ACC_LD || a->kind == ACC_PRINTF) return;
  Warp *w = a->w;
  const uint8_t *h = a->host;
  Cta *c = w->cta;
  bool own = true;
  if (!(c->shared && h >= c->shared && h < c->shared + c->shared_size)) {
    Cta *o = c->cluster && c->cluster->ncta > 1 ? cluster_cta_of(w, h, a->size) : NULL;
    if (!o) return;   /* not shared memory */
    c = o, own = false;
  }
  uint32_t k = (uint32_t)(h - c->shared), e = k + a->size;
  if (e > c->shared_size) e = c->shared_size;
  uint32_t t = (uint32_t)w->id * WARP_SIZE + (uint32_t)a->lane;
  if (a->kind == ACC_ASYNC_RD) {
    if (own && async_proxy_read(a->x)) judge(P, w, a->x, 1u << a->lane, &k, 1, e - k);
    return;
  }
  PCta *p = pcta_of(c);
  if (!p) return;
  bool judge = own && a->kind != ACC_ASYNC_WR && a->x;   /* a generic write of this CTA */
  uint64_t s = judge ? ++P->stamp : 0;
  uint32_t pc = judge ? (uint32_t)(a->x - P->L->prog->code) : 0;
  for (uint32_t i = k; i < e; i++) p->b[i] = (PByte){s, pc, judge ? t + 1 : 0};
}

static void observe(void *ctx, const MemAccess *a) {
  ProxyLaunch *P = ctx;
  if (P->next) P->next->fn(P->next->ctx, a);
  check_one(P, a);
}

static void observe_lanes(void *ctx, const MemLanes *m) {
  ProxyLaunch *P = ctx;
  const MemObserver *next = P->next;
  if (next && next->lanes) next->lanes(next->ctx, m);
  bool mine = m->kind != ACC_LD && m->kind != ACC_PRINTF;
  for (uint32_t r = m->mask; r && (mine || (next && !next->lanes)); r &= r - 1) {
    int l = __builtin_ctz(r);
    MemAccess a = {.w = m->w, .lane = l, .x = m->x, .kind = m->kind, .strong = m->strong, .sp = m->sp,
                   .addr = m->addr[l], .host = m->host[l], .size = m->size};
    if (next && !next->lanes) next->fn(next->ctx, &a);
    if (mine) check_one(P, &a);
  }
}

static void emit(ProxyLaunch *P, const Found *f) {
  Launch *L = P->L;
  const Program *p = L->prog;
  const XInsn *sx = &p->code[f->spc], *rx = &p->code[f->rpc];
  char ws[320], wr[320], msg[1200], text[1500];
  exec_where(p, sx, ws, sizeof ws);
  exec_where(p, rx, wr, sizeof wr);
  const char *rm = rx->src ? op_info[rx->src->op].mnemonic : "copy";
  bool mma = !strncmp(rm, "wgmma", 5);   /* else a bulk or tensor copy */
  snprintf(msg, sizeof msg, "data race (proxy) on .shared: %s at %s by %%ctaid (%u,%u,%u) %%tid (%u,%u,%u) "
           "and async %s read (%s) at %s by %%ctaid (%u,%u,%u) %%tid (%u,%u,%u), bytes [0x%" PRIx64
           ", 0x%" PRIx64 ")", sx->src ? op_info[sx->src->op].mnemonic : "st", ws, f->ctaid[0], f->ctaid[1],
           f->ctaid[2], f->wtid[0], f->wtid[1], f->wtid[2], mma ? "matrix" : "copy", rm,
           wr, f->ctaid[0], f->ctaid[1], f->ctaid[2], f->rtid[0], f->rtid[1], f->rtid[2], f->lo, f->hi);
  snprintf(text, sizeof text, "%s\n  (the generic-proxy store reaches the async proxy's %s only across a "
           "fence.proxy.async.shared::cta by the storing thread after its store, before the synchronization "
           "that orders it with the %s)", msg, mma ? "wgmma.mma_async" : "copy",
           mma ? "wgmma.mma_async" : "copy");
  exec_report_text(L, f->cluster, rx, msg, text);
}

/* Whether the program has an instruction that reads shared memory through
 * the async proxy (a bulk or tensor copy, wgmma.mma_async's descriptors):
 * without one no finding of this checker can arise, and generic writes
 * need no record. */
static bool program_reads_async(const Program *p) {
  for (uint32_t i = 0; i < p->ncode; i++) {
    const XInsn *x = &p->code[i];
    if (async_proxy_read(x) ||
        (x->src && strncmp(op_info[x->src->op].mnemonic, "wgmma.mma_async", 15) == 0))
      return true;
  }
  return false;
}

void proxycheck_begin(Launch *L) {
  if (!L->check || L->proxy || !program_reads_async(L->prog)) return;
  ProxyLaunch *P = calloc(1, sizeof *P);
  if (!P) return;
  P->L = L;
  P->next = L->observer;
  P->obs = (MemObserver){observe, P, observe_lanes};
  L->proxy = P;
  L->observer = &P->obs;
}

void proxycheck_end(Launch *L) {
  ProxyLaunch *P = L->proxy;
  if (!P) return;
  for (unsigned i = 0; i < P->nfound; i++) emit(P, &P->found[i]);
  if (P->more) {
    char msg[160];
    snprintf(msg, sizeof msg, "data race (proxy): %" PRIu64 " more pairs of a store and an async-proxy read lack "
             "fence.proxy.async (the first %d are reported)", P->more, PROXY_MAX);
    exec_report_text(L, 0, NULL, msg, msg);
  }
  L->observer = P->next;
  L->proxy = NULL;
  free(P);
}
