/* wgmma.c: the warpgroup-level matrix instructions of sm_90a (PTX ISA 9.0
 * §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
 * wgmma.fence, wgmma.mma_async (dense: f16/bf16, tf32, e4m3/e5m2, s8/u8,
 * b1 .and .popc), wgmma.mma_async.sp (f16/bf16, tf32, e4m3/e5m2, s8/u8),
 * wgmma.commit_group, wgmma.wait_group, and setmaxnreg (§9.7.19), which is
 * warpgroup-wide too.
 *
 * Sparse A (.sp, §9.7.15.6): A (registers or descriptor) holds the
 * compressed 64 x K/2, in the registers and shared-memory layout of a dense
 * A of K/2; each warp's 16 rows are expanded by its lanes' sp-meta and the
 * selector sp-sel exactly as mma.sp's (mma.c's header, "Sparse A";
 * mma_sp_columns), and B is the dense K x N (K of 64 bytes: a K-major
 * swizzle narrower than that, 32B, is a located fault: not modelled).
 *
 * Warpgroup. Four contiguous warps (warp ids 4g .. 4g+3 of the CTA) execute
 * every .aligned instruction here together, each with all 32 lanes. Warp w
 * of the group owns rows 16*(w%4) .. +15 of the 64-row A and D, so each
 * warp's share of the GEMM needs only its own registers and shared memory:
 * a warp computes its 16 x N rows when it executes the instruction (one
 * small host GEMM, not lane by lane), and the rendezvous is a check, not a
 * wait: the warps of a group must execute the same sequence of these
 * instructions (each warp logs the last 64 it executed; a warp whose n-th
 * differs from another's n-th, a warpgroup that lacks warps (a CTA of
 * fewer than 4(g+1) warps), or one whose warp exited before its n-th is a
 * located fault).
 *
 * Fragments (lane l: g = l >> 2, t = l & 3; rows relative to the warp's
 * 16): an accumulator (D, f32/s32: N/2 registers; f16: N/4 of f16x2, the
 * lower element in the lower bits) holds its thread's elements
 * e = 0 .. N/2-1 at row g + 8*((e >> 1) & 1), column 8*(e >> 2) + 2t + (e & 1):
 * the m16n8 accumulator of mma.sync (mma.c) repeated every 8 columns. A
 * from registers (4 of them, epr elements each: f16/bf16 2, tf32 1, 8-bit
 * 4): element j of register r at row g + 8*(r & 1), column
 * epr*t + j + (K/2)*(r >> 1), the A of mma.m16n8kK. b1 (K = 256 bits) is
 * handled as bytes of 8 consecutive k (EK_B1): 32 bytes a row, laid out
 * and fragmented as 8-bit elements, each product popc(a AND b).
 *
 * Shared-memory matrix descriptor (64 bits): start address bits 0-13,
 * leading-dimension byte offset (LBO) bits 16-29, stride-dimension byte
 * offset (SBO) bits 32-45, each in units of 16 bytes; base offset bits
 * 49-51; swizzle mode bits 62-63 (0 none, 1 128B, 2 64B, 3 32B). A matrix
 * is read as "core matrices" of 8 rows of 16 bytes (T = 16 / element size
 * elements). For element (mn, k), mn the row of A (column of B), k < K
 * (K spans 32 bytes), with W = the swizzle width in 16-byte units (32B 2,
 * 64B 4, 128B 8; none 1), the byte offset from the start address is
 *   K-major (the default; A row-major, B column-major):
 *     none:     16*(mn%8) + SBO*(mn/8) + LBO*(k/T) + size*(k%T)
 *     swizzled: 16*W*(mn%8) + SBO*(mn/8) + 16*(k/T) + size*(k%T)
 *   MN-major (imm-trans 1; f16/bf16 only), q = mn/T:
 *     none:     SBO*q + 16*(k%8) + LBO*(k/8) + size*(mn%T)
 *     swizzled: 16*(q%W) + LBO*(q/W) + 16*W*(k%8) + SBO*(k/8) + size*(mn%T)
 * and a swizzle mode then exchanges the 16-byte chunk bits 4.. of the
 * shared address with its bits 7..: addr ^= ((addr >> 7) & (W-1)) << 4,
 * on the whole .shared address (so a swizzled tile is aligned to 128*W
 * bytes, and a start address advanced inside a swizzle atom reads as the
 * GPU's does). A non-zero base offset with a swizzle is not modelled: a
 * located fault names it. Every element read is bounds-checked against the
 * CTA's shared memory.
 *
 * Arithmetic: mma.c's model (exact products; f32 accumulation in k order
 * starting from C, one round-to-nearest-even per addition; an f16 D rounded
 * once at the end; s8/u8 exact in 64 bits, wrapped or .satfinite-clamped
 * to s32; b1: D = C + the sum of popc(a AND b), exact). e4m3/e5m2 elements
 * are exact f32 values. scale-d false: C is
 * 0. imm-scale-a/b -1 negates the elements of A/B (exact).
 *
 * Asynchrony. wgmma.mma_async computes its result when it executes, from
 * the registers and shared memory of that moment; D (read as C) is the
 * latest pending result for each accumulator register, so back-to-back
 * wgmma on one accumulator chain as on the GPU. The result lands in the
 * registers only when its group completes: commit_group closes the
 * pending operations into a group, wait_group N lands the oldest groups
 * until at most N remain pending. A program that reads an accumulator
 * before its wait_group reads the old value (the ISA leaves it undefined);
 * one that never commits or waits never sees the result. Under --check a
 * register of a pending accumulator written before its result lands is a
 * finding (found when it lands), and so is a store to the shared memory a
 * pending operation read (its elements are read again when it lands);
 * reads of a pending accumulator are not detected. Also under --check: a
 * wgmma.mma_async before the warp's first wgmma.fence, and one whose
 * accumulator or A registers the program wrote since an earlier
 * wgmma.mma_async used them with no wgmma.fence between; and the shared
 * bytes its descriptors read are async-proxy reads (PTX ISA 9.7.15.4),
 * judged by proxycheck.c as a bulk copy's source (generic stores to them
 * need a fence.proxy.async).
 *
 * setmaxnreg.inc/.dec: ptxvm does not allocate registers per thread, so
 * there is no budget to move; it checks what the ISA requires: the
 * warpgroup executes it together (the rendezvous above), the count is in
 * 24..256 and a multiple of 8 (lowering), and the warp's count moves the
 * named way: .inc below, or .dec above, the count of the warp's previous
 * setmaxnreg is a located fault (the first one is not checked: the
 * kernel's initial count is ptxas's choice). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "interp.h"
#include "mma.h"
#include "proxycheck.h"

enum { WG_LOG = 64, WG_OPEN = UINT32_MAX };

/* One pending accumulator register: its value for every lane when the
 * group lands, and what the register held at issue (--check). */
typedef struct WgEntry {
  uint32_t slot, group;
  uint32_t v[WARP_SIZE], old[WARP_SIZE];
} WgEntry;

typedef struct WgState {
  WgEntry *e;
  size_t n, cap;
  uint32_t committed, landed;   /* groups numbered from 1 */
  uint64_t seq;                 /* warpgroup instructions executed */
  const XInsn *log[WG_LOG];     /* the last WG_LOG of them, by seq % WG_LOG */
  uint32_t maxnreg;             /* the last setmaxnreg's count, 0: none */
  struct WgScratch *tmp;        /* wgmma.mma_async's operands (too big for a stack) */
  struct WgRead *rd;            /* --check: the pending operations' shared operands */
  size_t nrd, caprd;
  bool fenced;                  /* --check: a wgmma.fence has executed */
  struct WgSeen *seen;          /* --check: registers wgmma.mma_async used since it */
  size_t nseen, capseen;
} WgState;

/* --check: a register as the last wgmma.mma_async (or the landing of its
 * result) left it, since the last wgmma.fence. */
typedef struct WgSeen {
  uint32_t slot;
  uint32_t v[WARP_SIZE];
} WgSeen;

/* --check: what a pending wgmma.mma_async read from shared memory (a hash
 * of its A and B elements), read again when its group lands: a write to
 * them in between is a finding. */
typedef struct WgRead {
  const XInsn *x;
  uint32_t group;
  uint64_t adesc, bdesc, sum;
} WgRead;

/* A (the warp's 16 rows) and B (N <= 256 rows of K <= 64: sparse 8-bit),
 * raw and decoded; the compressed sparse A and its columns. */
typedef struct WgScratch {
  uint32_t A[16 * 64], B[256 * 64], Ac[16 * 32];
  uint32_t off[16 * 64 + 256 * 64];   /* --check: the shared offsets of A's and B's elements */
  uint8_t col[16 * 32];
  float fa[16 * 64], fb[256 * 64];
  int64_t ia[16 * 64], ib[256 * 64];
} WgScratch;

void wgmma_free(Warp *w) {
  WgState *s = w->wgmma;
  if (s) { free(s->e); free(s->tmp); free(s->rd); free(s->seen); }
  free(s);
  w->wgmma = NULL;
}

static WgState *wg_state(Warp *w) {
  if (!w->wgmma) w->wgmma = calloc(1, sizeof(WgState));
  return w->wgmma;
}

/* ---- the warpgroup rendezvous ---- */

static const char *insn_name(const XInsn *x) { return op_info[x->op].mnemonic; }

static XStatus rendezvous(Warp *w, const XInsn *x, uint32_t mask) {
  if (mma_converged(w, x, mask, insn_name(x)) != XS_NEXT) return XS_TRAP;
  WgState *s = wg_state(w);
  if (!s) return exec_fault(w, x, -1, "out of memory");
  uint64_t n = s->seq++;
  s->log[n % WG_LOG] = x;
  Cta *c = w->cta;
  if (!c) return XS_NEXT;   /* a warp made by hand (unit tests) */
  int first = w->id / 4 * 4;
  if (first + 4 > c->nwarps)
    return exec_fault(w, x, -1, "%s executed by warp %d of warpgroup %d, which has only %d warp%s: "
                      "a warpgroup is 4 contiguous warps (the CTA has %u threads)", insn_name(x),
                      w->id, w->id / 4, c->nwarps - first, c->nwarps - first == 1 ? "" : "s",
                      w->launch->block[0] * w->launch->block[1] * w->launch->block[2]);
  for (int i = first; i < first + 4; i++) {
    const Warp *o = &c->warps[i];
    if (o == w) continue;
    const WgState *t = o->wgmma;
    uint64_t done = t ? t->seq : 0;
    if (done > n && done - n <= WG_LOG && t->log[n % WG_LOG] != x) {
      const XInsn *y = t->log[n % WG_LOG];
      return exec_fault(w, x, -1, "%s: warp %d executes it as its warpgroup instruction %llu, "
                        "but warp %d of its warpgroup executed %s (line %u) there: the four "
                        "warps of a warpgroup must execute the same .aligned instructions",
                        insn_name(x), w->id, (unsigned long long)n + 1, i, insn_name(y),
                        y->src ? y->src->line : 0);
    }
    if (done <= n && (o->valid & ~o->exited) == 0)
      return exec_fault(w, x, -1, "%s: warp %d of the warpgroup of warp %d exited before "
                        "executing it: the four warps of a warpgroup must execute it together",
                        insn_name(x), i, w->id);
  }
  return XS_NEXT;
}

/* ---- pending results ---- */

static const uint32_t *acc_read(Warp *w, WgState *s, uint32_t slot) {
  for (size_t i = s->n; i-- > 0;)
    if (s->e[i].slot == slot) return s->e[i].v;
  return R32(w, slot);
}

static bool acc_write(Warp *w, WgState *s, uint32_t slot, const uint32_t *v) {
  for (size_t i = s->n; i-- > 0;)
    if (s->e[i].slot == slot) {
      if (s->e[i].group != WG_OPEN) break;
      memcpy(s->e[i].v, v, sizeof s->e[i].v);
      return true;
    }
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    WgEntry *e = realloc(s->e, cap * sizeof *e);
    if (!e) return false;
    s->e = e;
    s->cap = cap;
  }
  WgEntry *e = &s->e[s->n++];
  e->slot = slot;
  e->group = WG_OPEN;
  memcpy(e->v, v, sizeof e->v);
  memcpy(e->old, R32(w, slot), sizeof e->old);
  return true;
}

static uint64_t operands_sum(Warp *w, const XInsn *x, uint64_t adesc, uint64_t bdesc, bool *ok);

/* --check: each landing operation's shared operands, read again. */
static void recheck(Warp *w, const XInsn *x, WgState *s, uint32_t upto) {
  size_t k = 0;
  for (size_t i = 0; i < s->nrd; i++) {
    WgRead *r = &s->rd[i];
    if (r->group == WG_OPEN || r->group > upto) { s->rd[k++] = *r; continue; }
    bool ok;
    uint64_t sum = operands_sum(w, r->x, r->adesc, r->bdesc, &ok);
    if (ok && sum != r->sum)
      exec_report(w, x, -1, "wgmma.wait_group: the shared-memory operands of the wgmma.mma_async "
                  "at line %u (group %u) were written while it was pending (the ISA leaves "
                  "what it read undefined); ptxvm used the values at its issue",
                  r->x->src ? r->x->src->line : 0, r->group);
  }
  s->nrd = k;
}

/* Lands every entry of groups <= upto, in issue order. */
static void land(Warp *w, const XInsn *x, WgState *s, uint32_t upto) {
  if (s->nrd) recheck(w, x, s, upto);
  size_t k = 0;
  for (size_t i = 0; i < s->n; i++) {
    WgEntry *e = &s->e[i];
    if (e->group == WG_OPEN || e->group > upto) { s->e[k++] = *e; continue; }
    uint32_t *r = R32(w, e->slot);
    if (exec_checking(w)) {
      if (memcmp(r, e->old, sizeof e->old))
        exec_report(w, x, -1, "wgmma.wait_group: an accumulator register of a wgmma.mma_async of "
                    "group %u was written while the operation was pending (the ISA leaves its "
                    "value undefined); the result overwrites it here", e->group);
      for (size_t j = i + 1; j < s->n; j++)   /* a later group's register changes here, not by the program */
        if (s->e[j].slot == e->slot) memcpy(s->e[j].old, e->v, sizeof e->v);
      for (size_t j = 0; j < s->nseen; j++)
        if (s->seen[j].slot == e->slot) memcpy(s->seen[j].v, e->v, sizeof e->v);
    }
    memcpy(r, e->v, sizeof e->v);
  }
  s->n = k;
  s->landed = upto;
}

HANDLER(exec_wgmma_fence) {
  if (rendezvous(w, x, mask) != XS_NEXT) return XS_TRAP;
  WgState *s = w->wgmma;
  s->fenced = true;
  s->nseen = 0;
  return XS_NEXT;
}

HANDLER(exec_wgmma_commit) {
  if (rendezvous(w, x, mask) != XS_NEXT) return XS_TRAP;
  WgState *s = w->wgmma;
  for (size_t i = 0; i < s->n; i++)
    if (s->e[i].group == WG_OPEN) s->e[i].group = s->committed + 1;
  for (size_t i = 0; i < s->nrd; i++)
    if (s->rd[i].group == WG_OPEN) s->rd[i].group = s->committed + 1;
  s->committed++;   /* an empty group is a group too (it completes at once) */
  return XS_NEXT;
}

HANDLER(exec_wgmma_wait) {
  if (rendezvous(w, x, mask) != XS_NEXT) return XS_TRAP;
  WgState *s = w->wgmma;
  uint32_t keep = (uint32_t)x->imm;
  if (s->committed - s->landed > keep) land(w, x, s, s->committed - keep);
  return XS_NEXT;
}

/* ---- wgmma.mma_async ---- */

typedef struct WgOp {
  uint16_t n;                   /* N; M = 64 */
  uint8_t k;                    /* K (logical) */
  uint8_t ka;                   /* the K that A holds: K, or K/2 when sparse */
  bool sparse;                  /* wgmma.mma_async.sp */
  uint8_t sel;                  /* its sparsity selector */
  uint32_t meta;                /* its metadata register sp-meta */
  uint8_t ed, ea, eb;           /* EKind of D (= C), A, B */
  bool adesc, trans_a, trans_b, satfinite;
  int8_t scale_a, scale_b;      /* 1 or -1 */
  int8_t scale_d;               /* 0 or 1 when an immediate, -1: the predicate slot */
  bool scale_d_neg;             /* the predicate is negated (!p) */
  uint32_t pslot;               /* scale-d predicate */
  uint32_t a;                   /* A descriptor slot (64-bit) */
  uint32_t areg[4];             /* A registers */
  uint32_t b;                   /* B descriptor slot */
  uint16_t nd;                  /* D registers */
  uint32_t d[];                 /* their slots */
} WgOp;

typedef struct Desc { uint32_t start, lbo, sbo, w; int mode; } Desc;

static XStatus desc_decode(Warp *w, const XInsn *x, uint64_t v, const char *which, Desc *d) {
  static const uint8_t width[4] = {1, 8, 4, 2};
  d->start = (uint32_t)(v & 0x3fff) << 4;
  d->lbo = (uint32_t)(v >> 16 & 0x3fff) << 4;
  d->sbo = (uint32_t)(v >> 32 & 0x3fff) << 4;
  d->mode = (int)(v >> 62);
  d->w = width[d->mode];
  unsigned base = (unsigned)(v >> 49 & 7);
  if (base && d->mode)
    return exec_fault(w, x, -1, "wgmma.mma_async: the %s descriptor 0x%016llx has base offset %u: "
                      "a non-zero matrix base offset is not supported", which,
                      (unsigned long long)v, base);
  return XS_NEXT;
}

/* Shared address of element (mn, k) (the header's table). */
static uint32_t desc_addr(const Desc *d, bool mn_major, uint32_t size, uint32_t mn, uint32_t k) {
  uint32_t T = 16 / size, W = d->w, a;
  if (!mn_major)
    a = d->mode == 0 ? 16 * (mn % 8) + d->sbo * (mn / 8) + d->lbo * (k / T) + size * (k % T)
                     : 16 * W * (mn % 8) + d->sbo * (mn / 8) + 16 * (k / T) + size * (k % T);
  else if (d->mode == 0)
    a = d->sbo * (mn / T) + 16 * (k % 8) + d->lbo * (k / 8) + size * (mn % T);
  else
    a = 16 * (mn / T % W) + d->lbo * (mn / T / W) + 16 * W * (k % 8) + d->sbo * (k / 8) + size * (mn % T);
  a += d->start;
  return d->mode ? a ^ ((a >> 7 & (W - 1)) << 4) : a;
}

/* Reads rows mn0 .. mn0+rows-1 (all K) of a descriptor operand into
 * mat[(mn - mn0) * K + k] (raw encodings), and each element's shared offset
 * into off[] at the same index unless off is NULL. */
static XStatus desc_read(Warp *w, const XInsn *x, uint64_t v, const char *which, int ek, bool mn_major,
                         int mn0, int rows, int K, uint32_t *mat, uint32_t *off) {
  Desc d;
  if (desc_decode(w, x, v, which, &d) != XS_NEXT) return XS_TRAP;
  const Cta *c = w->cta;
  int size = ek_bits(ek) / 8;
  if (!mn_major && d.mode && (uint32_t)(K * size) > 16 * d.w)   /* sparse B: K of 64 bytes */
    return exec_fault(w, x, -1, "wgmma.mma_async: the %s descriptor 0x%016llx is K-major with a "
                      "%u-byte swizzle, narrower than its K of %d bytes: not modelled", which,
                      (unsigned long long)v, 16 * d.w, K * size);
  for (int i = 0; i < rows; i++)
    for (int k = 0; k < K; k++) {
      uint32_t a = desc_addr(&d, mn_major, (uint32_t)size, (uint32_t)(mn0 + i), (uint32_t)k);
      if (!c || (uint64_t)a + (uint64_t)size > c->shared_size)
        return exec_fault(w, x, -1, "wgmma.mma_async: the %s descriptor 0x%016llx reads shared "
                          "address 0x%x (element %d, %d), past the CTA's %u bytes of shared memory",
                          which, (unsigned long long)v, a, mn0 + i, k, c ? c->shared_size : 0);
      const uint8_t *p = c->shared + a;
      if (off) off[i * K + k] = a;
      mat[i * K + k] = size == 1 ? p[0] : size == 2 ? (uint32_t)p[0] | (uint32_t)p[1] << 8
                                                    : (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                                                      (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
  return XS_NEXT;
}

static uint64_t hash_words(uint64_t h, const uint32_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ v[i]) * 0x100000001b3ull;   /* FNV-1a style */
  return h;
}

static bool note_read(Warp *w, const XInsn *x, WgState *s, const WgOp *o, const uint32_t *A,
                      const uint32_t *B) {
  if (s->nrd == s->caprd) {
    size_t cap = s->caprd ? 2 * s->caprd : 16;
    WgRead *r = realloc(s->rd, cap * sizeof *r);
    if (!r) return false;
    s->rd = r;
    s->caprd = cap;
  }
  uint64_t h = 0xcbf29ce484222325ull;
  if (o->adesc) h = hash_words(h, A, (size_t)16 * o->ka);
  s->rd[s->nrd++] = (WgRead){x, WG_OPEN, o->adesc ? R64(w, o->a)[0] : 0, R64(w, o->b)[0],
                             hash_words(h, B, (size_t)o->n * o->k)};
  return true;
}

/* The hash note_read took, of the same descriptors' elements now. */
static uint64_t operands_sum(Warp *w, const XInsn *x, uint64_t adesc, uint64_t bdesc, bool *ok) {
  const WgOp *o = x->aux;
  WgState *s = w->wgmma;
  uint32_t *A = o->sparse ? s->tmp->Ac : s->tmp->A, *B = s->tmp->B;
  uint64_t h = 0xcbf29ce484222325ull;
  *ok = (!o->adesc || desc_read(w, x, adesc, "A", o->ea, o->trans_a, 16 * (w->id % 4), 16, o->ka, A,
                                 NULL) == XS_NEXT) &&
        desc_read(w, x, bdesc, "B", o->eb, o->trans_b, 0, o->n, o->k, B, NULL) == XS_NEXT;
  if (o->adesc) h = hash_words(h, A, (size_t)16 * o->ka);
  return hash_words(h, B, (size_t)o->n * o->k);
}

/* --check: the ISA's wgmma.fence rules that a program's writes show: one
 * before a warp's first wgmma.mma_async, and one between a write to an
 * accumulator or A register and a wgmma.mma_async that uses it (reads,
 * which need one too, are not seen). */
static bool fence_check(Warp *w, const XInsn *x, WgState *s, const WgOp *o) {
  if (!s->fenced) {
    exec_report(w, x, -1, "wgmma.mma_async executed before any wgmma.fence of its warp (the ISA "
                "requires one before the first wgmma.mma_async)");
    s->fenced = true;
  }
  int n = o->nd + (o->adesc ? 0 : 4);
  for (int i = 0; i < n; i++) {
    uint32_t slot = i < o->nd ? o->d[i] : o->areg[i - o->nd];
    if (slot == NOSLOT) continue;
    const uint32_t *r = R32(w, slot);
    size_t j = 0;
    while (j < s->nseen && s->seen[j].slot != slot) j++;
    if (j < s->nseen) {
      if (memcmp(r, s->seen[j].v, sizeof s->seen[j].v))
        exec_report(w, x, -1, "wgmma.mma_async: its %s register %d was written after an earlier "
                    "wgmma.mma_async used it, with no wgmma.fence between (the ISA requires one)",
                    i < o->nd ? "accumulator" : "A", i < o->nd ? i : i - o->nd);
    } else {
      if (s->nseen == s->capseen) {
        size_t cap = s->capseen ? 2 * s->capseen : 64;
        WgSeen *e = realloc(s->seen, cap * sizeof *e);
        if (!e) return false;
        s->seen = e;
        s->capseen = cap;
      }
      s->seen[s->nseen++].slot = slot;
    }
    memcpy(s->seen[j].v, r, sizeof s->seen[j].v);
  }
  return true;
}

HANDLER(exec_wgmma_mma) {
  if (rendezvous(w, x, mask) != XS_NEXT) return XS_TRAP;
  const WgOp *o = x->aux;
  WgState *s = w->wgmma;
  int N = o->n, K = o->k, row0 = 16 * (w->id % 4);
  if (!s->tmp && !(s->tmp = malloc(sizeof *s->tmp))) return exec_fault(w, x, -1, "out of memory");
  uint32_t *A = s->tmp->A, *B = s->tmp->B;   /* A[i][k] (the warp's 16 rows), B[n][k] */
  uint32_t *Ar = o->sparse ? s->tmp->Ac : A;  /* what A holds: 16 x ka */
  int KA = o->ka;
  bool check = exec_checking(w);
  uint32_t *off = check ? s->tmp->off : NULL, noff = o->adesc ? 16 * (uint32_t)KA : 0;
  if (o->adesc) {
    if (desc_read(w, x, R64(w, o->a)[0], "A", o->ea, o->trans_a, row0, 16, KA, Ar, off) != XS_NEXT)
      return XS_TRAP;
  } else {
    int bits = ek_bits(o->ea), epr = 32 / bits;
    FOR_LANES(l) for (int r = 0; r < 4; r++) {
      uint32_t v = R32(w, o->areg[r])[l];
      for (int j = 0; j < epr; j++) {
        int row = (l >> 2) + 8 * (r & 1), col = epr * (l & 3) + j + KA / 2 * (r >> 1);
        Ar[row * KA + col] = v >> (bits * j) & (uint32_t)((1ull << bits) - 1);
      }
    }
  }
  if (o->sparse) {   /* the logical A: the compressed elements at their metadata's columns */
    uint8_t *col = s->tmp->col;
    if (mma_sp_columns(w, x, o->ea, K, o->sel, false, o->meta, col) != XS_NEXT) return XS_TRAP;
    memset(A, 0, sizeof(uint32_t) * 16 * (size_t)K);
    for (int i = 0; i < 16 * KA; i++) A[i / KA * K + col[i]] = Ar[i];
  }
  if (desc_read(w, x, R64(w, o->b)[0], "B", o->eb, o->trans_b, 0, N, K, B, off ? off + noff : NULL) != XS_NEXT)
    return XS_TRAP;
  if (check) {
    if (!note_read(w, x, s, o, Ar, B) || !fence_check(w, x, s, o)) return exec_fault(w, x, -1, "out of memory");
    /* the descriptors' reads are the async proxy's (PTX ISA 9.7.15.4): generic stores to them need a
       fence.proxy.async (proxycheck.c) */
    uint32_t sa = (uint32_t)ek_bits(o->ea) / 8, sb = (uint32_t)ek_bits(o->eb) / 8;
    if (sa == sb) proxycheck_async_read(w, x, mask, off, noff + (uint32_t)(N * K), sb);
    else {
      proxycheck_async_read(w, x, mask, off, noff, sa);
      proxycheck_async_read(w, x, mask, off + noff, (uint32_t)(N * K), sb);
    }
  }
  bool scale_d = o->scale_d >= 0 ? o->scale_d : ((w->pred[o->pslot] & 1) != 0) != o->scale_d_neg;
  /* the descriptors and scale-d are warp-uniform operands: lane 0's are used */
  bool f16d = o->ed == EK_F16, intd = o->ed == EK_S32;
  int epr = f16d ? 2 : 1;
  float *fa = s->tmp->fa, *fb = s->tmp->fb;
  int64_t *ia = s->tmp->ia, *ib = s->tmp->ib;
  if (intd) {
    for (int i = 0; i < 16 * K; i++) ia[i] = ek_int(o->ea, A[i]);
    for (int i = 0; i < N * K; i++) ib[i] = ek_int(o->eb, B[i]);
  } else {
    for (int i = 0; i < 16 * K; i++) fa[i] = o->scale_a * ek_f32(o->ea, A[i]);
    for (int i = 0; i < N * K; i++) fb[i] = o->scale_b * ek_f32(o->eb, B[i]);
  }
  for (int r = 0; r < o->nd; r++) {
    const uint32_t *c = acc_read(w, s, o->d[r]);
    uint32_t v[WARP_SIZE];
    FOR_LANES(l) {
      uint32_t out = 0;
      for (int j = 0; j < epr; j++) {
        int e = r * epr + j, g = l >> 2, t = l & 3;
        int row = g + 8 * (e >> 1 & 1), col = 8 * (e >> 2) + 2 * t + (e & 1);
        if (intd) {
          int64_t acc = scale_d ? (int32_t)c[l] : 0;
          if (o->ea == EK_B1)   /* bytes of 8 bits: popc of a AND b */
            for (int k = 0; k < K; k++) acc += __builtin_popcount((uint32_t)(ia[row * K + k] & ib[col * K + k]));
          else
            for (int k = 0; k < K; k++) acc += ia[row * K + k] * ib[col * K + k];
          if (o->satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
          out = (uint32_t)acc;
        } else {
          float acc = !scale_d ? 0.0f : f16d ? f16_to_f32((uint16_t)(c[l] >> (16 * j))) : bits_f32(c[l]);
          for (int k = 0; k < K; k++) acc = fmaf(fa[row * K + k], fb[col * K + k], acc);
          if (f16d) out |= (uint32_t)f32_to_f16(acc, FR_RN) << (16 * j);
          else out = f32_is_nan(f32_bits(acc)) ? F32_CNAN : f32_bits(acc);
        }
      }
      v[l] = out;
    }
    if (o->d[r] != NOSLOT && !acc_write(w, s, o->d[r], v)) return exec_fault(w, x, -1, "out of memory");
  }
  return XS_NEXT;
}

/* ---- setmaxnreg ---- */

HANDLER(exec_setmaxnreg) {
  if (rendezvous(w, x, mask) != XS_NEXT) return XS_TRAP;
  WgState *s = w->wgmma;
  uint32_t n = (uint32_t)x->imm;
  bool inc = x->sub;
  if (s->maxnreg && (inc ? n < s->maxnreg : n > s->maxnreg))
    return exec_fault(w, x, -1, "setmaxnreg.%s %u: warp %d's register count is %u (its last "
                      "setmaxnreg); .%s must not %s it", inc ? "inc" : "dec", n, w->id, s->maxnreg,
                      inc ? "inc" : "dec", inc ? "lower" : "raise");
  s->maxnreg = n;
  return XS_NEXT;
}

/* ---- selection ---- */

static int imm_opd(Lower *L, const Insn *in, int i, const char *what, int lo, int hi) {
  const Operand *o = &in->opds[i];
  if (o->kind != OPD_IMM || o->ival < lo || o->ival > hi || (lo == -1 && o->ival == 0))
    lower_refuse(L, "wgmma.mma_async: %s (operand %d) must be the constant %s", what, i + 1,
                 lo == -1 ? "1 or -1" : "0 or 1");
  return (int)o->ival;
}

static uint32_t desc_opd(Lower *L, const Insn *in, int i, const char *what) {
  const Operand *o = &in->opds[i];
  if (o->kind == OPD_REG && o->sym && o->sym->kind == SYM_REG && lower_reg_file(o->sym) != 1)
    lower_refuse(L, "wgmma.mma_async: the %s descriptor (operand %d) must be a 64-bit register", what,
                 i + 1);
  return lower_src(L, o, TY_B64);
}

static bool select_mma_async(Lower *L, const Insn *in, XInsn *x, bool sparse) {
  int ek[3], nt = 0, n = 0, k = 0;
  for (int i = 0; i < in->nmods; i++) {
    int kind = mma_kind_of(in->mods[i]);
    if (kind >= 0) { if (nt < 3) ek[nt] = kind; nt++; continue; }
    (void)sscanf(in->mods[i], ".m64n%dk%d", &n, &k);
  }
  if (nt != 3 || !n || !k) return false;
  int d = ek[0], a = ek[1], b = ek[2];
  bool f16 = a == EK_F16 || a == EK_BF16, i8 = a == EK_S8 || a == EK_U8 || a == EK_B1;
  if (f16 && (a != b || (a == EK_BF16 && d != EK_F32))) return false;
  if (i8 && n > 32 && n % 16)
    lower_refuse(L, "wgmma.mma_async: .m64n%dk%d is not a shape of the %s forms (N is 8, 16, 24, 32 "
                 "or a multiple of 16)", n, k, a == EK_B1 ? ".b1" : ".s8/.u8");
  if (a == EK_B1) k /= 8;   /* K bits in K/8 bytes (EK_B1) */
  int sp = sparse ? 2 : 0;   /* .sp: sp-meta, sp-sel after b-desc */
  if (in->nopds < 4 + sp)
    lower_refuse(L, "wgmma.mma_async: needs at least %d operands (d, a, b-desc, %sscale-d), not %d",
                 4 + sp, sparse ? "sp-meta, sp-sel, " : "", in->nopds);
  bool adesc = in->opds[1].kind != OPD_VEC;
  /* operands: d, a, b-desc, [sp-meta, sp-sel,] scale-d, then imm-scale-a, imm-scale-b (not
     integer), imm-trans-a (f16/bf16 with an A descriptor), imm-trans-b (f16/bf16) */
  int want = (i8 ? 4 : f16 ? (adesc ? 8 : 7) : 6) + sp;
  if (in->nopds != want)
    lower_refuse(L, "wgmma.mma_async: this form takes %d operands, not %d", want, in->nopds);
  int nd = d == EK_F16 ? n / 4 : n / 2;
  WgOp *o = lower_aux(L, sizeof *o + (size_t)nd * sizeof o->d[0]);
  o->n = (uint16_t)n; o->k = (uint8_t)k;
  o->ka = (uint8_t)(sparse ? k / 2 : k);
  o->sparse = sparse;
  if (sparse) {
    const Operand *f = &in->opds[4];
    int nsel = 4 / mma_sp_lanes(a, k);
    if (f->kind != OPD_IMM || f->ival < 0 || f->ival >= nsel)
      lower_refuse(L, "wgmma.mma_async.sp: sp-sel (operand 5) must be the constant %s for this "
                   "type (PTX ISA 9.7.15.6.3)", nsel == 2 ? "0 or 1" : "0");
    o->sel = (uint8_t)f->ival;
    o->meta = lower_src(L, &in->opds[3], TY_B32);
  }
  o->ed = (uint8_t)d; o->ea = (uint8_t)a; o->eb = (uint8_t)b;
  o->adesc = adesc;
  o->satfinite = insn_has_mod(in, ".satfinite");
  o->nd = (uint16_t)nd;
  o->scale_a = o->scale_b = 1;
  mma_lower_regs(L, in, &in->opds[0], nd, true, d == EK_F32 ? TY_F32 : TY_B32, o->d, "d");
  if (adesc) o->a = desc_opd(L, in, 1, "A");
  else mma_lower_regs(L, in, &in->opds[1], 4, false, TY_B32, o->areg, "a");
  o->b = desc_opd(L, in, 2, "B");
  const Operand *sd = &in->opds[3 + sp];
  if (sd->kind == OPD_IMM) o->scale_d = sd->ival != 0;
  else if (sd->kind == OPD_REG && sd->sym && sd->sym->type == TY_PRED) {
    o->scale_d = -1;
    o->scale_d_neg = (sd->flags & OPF_NEG) != 0;
    o->pslot = lower_src(L, sd, TY_PRED);
  } else lower_refuse(L, "wgmma.mma_async: scale-d (operand %d) must be a predicate or a constant",
                      4 + sp);
  if (!i8) {
    o->scale_a = (int8_t)imm_opd(L, in, 4 + sp, "imm-scale-a", -1, 1);
    o->scale_b = (int8_t)imm_opd(L, in, 5 + sp, "imm-scale-b", -1, 1);
  }
  if (f16) {
    if (adesc) o->trans_a = imm_opd(L, in, 6 + sp, "imm-trans-a", 0, 1);
    o->trans_b = imm_opd(L, in, (adesc ? 7 : 6) + sp, "imm-trans-b", 0, 1);
  }
  x->aux = o;
  x->nslots = 0;
  x->fn = exec_wgmma_mma;
  return true;
}

bool wgmma_select(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_WGMMA_FENCE: x->fn = exec_wgmma_fence; return true;
  case OP_WGMMA_COMMIT_GROUP: x->fn = exec_wgmma_commit; return true;
  case OP_WGMMA_WAIT_GROUP:
    if (in->nopds != 1 || in->opds[0].kind != OPD_IMM || in->opds[0].ival < 0)
      lower_refuse(L, "wgmma.wait_group: N must be a non-negative constant");
    x->imm = in->opds[0].ival;
    x->fn = exec_wgmma_wait;
    return true;
  case OP_WGMMA_F16: case OP_WGMMA_TF32: case OP_WGMMA_F8: case OP_WGMMA_I8: case OP_WGMMA_U8:
  case OP_WGMMA_I8_MIXED: case OP_WGMMA_B1:
    return select_mma_async(L, in, x, false);
  case OP_WGMMA_SP_F16: case OP_WGMMA_SP_TF32: case OP_WGMMA_SP_F8: case OP_WGMMA_SP_I8:
    return select_mma_async(L, in, x, true);
  case OP_SETMAXNREG:
    x->imm = in->opds[0].ival;
    x->sub = insn_has_mod(in, ".inc");
    x->fn = exec_setmaxnreg;
    return true;
  default:
    return false;
  }
}
