/* mem.c: family MEM, loads and stores in every state space (PTX ISA 9.0
 * §9.7.9.8 ld, §9.7.9.9 ld.global.nc, §9.7.9.10 ldu, §9.7.9.11 st,
 * §9.7.9.15-16 prefetch/prefetchu, applypriority, discard, createpolicy),
 * and the address-space instructions cvta, cvta.to and isspacep (§9.7.9.19,
 * §9.7.9.20) that exec_select_MOV delegates here (exec.h, mem_select_addr).
 *
 * A load or store is one handler over a MemOp the selector fills: element
 * size in memory, vector width, the register width of each element (a
 * register may be wider than the type: loads zero- or sign-extend into it,
 * stores truncate), the base register and its width, and the memory order.
 * The address of lane l is base[l] + x->imm; mem_ptr checks it for the whole
 * vector (alignment = vector size, as §5.4.5 requires) and returns the host
 * bytes. .volatile, .relaxed, .acquire and .release accesses use host atomics
 * of that order (CTAs run on several host threads); weak ones copy bytes.
 * Scopes are accepted and need nothing more: host atomics are system-wide.
 *
 * Fast path (warp_span): the active lanes' addresses are first checked as
 * one range (lowest to highest, all aligned) against mem_span; when it
 * holds, no lane can fault and the lanes go straight to host bytes, a
 * broadcast or a coalesced warp (lane l at base + 4 l) as one copy. When it
 * does not, the lanes go through mem_ptr one by one, which reports the
 * first bad lane exactly as before; neither path touches anything first.
 *
 * Cache operators, eviction priorities and cache-policy operands are hints
 * and have no effect; prefetch, prefetchu, applypriority and discard do
 * nothing (discard leaves the data unchanged, which is one of the values the
 * ISA allows), createpolicy returns the opaque policy 0. */
#include <stdio.h>
#include <string.h>

#include "../mem/mem.h"
#include "interp.h"

typedef enum { ORD_WEAK, ORD_RELAXED, ORD_ACQUIRE, ORD_RELEASE } MemOrder;

typedef struct MemOp {
  Space sp;
  uint8_t size;          /* bytes of one element in memory */
  uint8_t n;             /* elements (vector width) */
  uint8_t regw[8];       /* bytes of each element's register: <= 4 r32, 8 r64, 16 b128 */
  bool sext;             /* signed type: sign-extend into wider registers */
  bool base64;           /* the base register is 64-bit */
  uint32_t base;         /* base register slot, UINT32_MAX for none */
  MemOrder order;
} MemOp;

/* ---- the per-lane address and one element's register ---- */

static uint64_t lane_addr(Warp *w, const XInsn *x, const MemOp *m, int l) {
  return lane_address(w, m->sp, x->imm, m->base, m->base64, l);
}

static uint64_t trunc_bytes(uint64_t v, unsigned bytes) {
  return bytes >= 8 ? v : v & ((1ull << (8 * bytes)) - 1);
}

static uint64_t extend(uint64_t v, unsigned size, bool sext) {
  if (!sext || size >= 8) return v;
  unsigned sh = 64 - 8 * size;
  return (uint64_t)((int64_t)(v << sh) >> sh);
}

static void reg_write(Warp *w, uint32_t slot, unsigned regw, int l, uint64_t v) {
  if (regw <= 4) R32(w, slot)[l] = (uint32_t)trunc_bytes(v, regw);
  else R64(w, slot)[l] = v;
}

static uint64_t reg_read(Warp *w, uint32_t slot, unsigned regw, int l) {
  return regw <= 4 ? R32(w, slot)[l] : R64(w, slot)[l];
}

/* ---- host accesses of 1, 2, 4 or 8 bytes at an order ---- */

static uint64_t load_bytes(const void *p, unsigned size, MemOrder o) {
  if (o == ORD_WEAK) {
    uint64_t v = 0;
    memcpy(&v, p, size);   /* little-endian host */
    return v;
  }
  int mo = o == ORD_ACQUIRE ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED;
  switch (size) {
  case 1: return __atomic_load_n((const uint8_t *)p, mo);
  case 2: return __atomic_load_n((const uint16_t *)p, mo);
  case 4: return __atomic_load_n((const uint32_t *)p, mo);
  default: return __atomic_load_n((const uint64_t *)p, mo);
  }
}

static void store_bytes(void *p, unsigned size, uint64_t v, MemOrder o) {
  if (o == ORD_WEAK) {
    memcpy(p, &v, size);
    return;
  }
  int mo = o == ORD_RELEASE ? __ATOMIC_RELEASE : __ATOMIC_RELAXED;
  switch (size) {
  case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, mo); break;
  case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, mo); break;
  case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, mo); break;
  default: __atomic_store_n((uint64_t *)p, v, mo); break;
  }
}

/* ---- handlers ---- */

/* Lowest, highest and or of the base register values of the lanes in mask
 * (not empty), by loops that vectorise for a full warp. For 64-bit bases,
 * which SSE2 cannot compare, a full warp at one address or at base[0] + 4 l
 * (the commonest patterns) is recognised first without compares. */
static inline bool lanes_pattern(uint64_t nu, uint64_t nc, uint64_t b0, uint64_t *mn, uint64_t *mx,
                          uint64_t *any) {
  if (!nu) { *mn = *mx = *any = b0; return true; }
  if (!nc && b0 <= UINT64_MAX - 124) { *mn = b0, *mx = b0 + 124, *any = b0 | 124; return true; }
  return false;
}
static inline void lanes_range32(const uint32_t *b, uint32_t mask, uint64_t *mn, uint64_t *mx,
                                 uint64_t *any) {
  uint32_t lo = UINT32_MAX, hi = 0, o = 0;
  if (mask == 0xffffffffu) {
    int32_t slo = INT32_MAX, shi = INT32_MIN;   /* signed: SSE2 has no unsigned compares */
    FOR_LANES(l) {
      int32_t v = (int32_t)(b[l] ^ 0x80000000u);
      slo = v < slo ? v : slo; shi = v > shi ? v : shi; o |= b[l];
    }
    lo = (uint32_t)slo ^ 0x80000000u, hi = (uint32_t)shi ^ 0x80000000u;
  } else {
    for (uint32_t r = mask; r; r &= r - 1) {
      uint32_t v = b[__builtin_ctz(r)];
      lo = v < lo ? v : lo; hi = v > hi ? v : hi; o |= v;
    }
  }
  *mn = lo, *mx = hi, *any = o;
}
static inline void lanes_range64(const uint64_t *b, uint32_t mask, uint64_t *mn, uint64_t *mx,
                                 uint64_t *any) {
  uint64_t lo = UINT64_MAX, hi = 0, o = 0;
  if (mask == 0xffffffffu) {
    uint64_t nu = 0, nc = 0;
    FOR_LANES(l) { nu |= b[l] ^ b[0]; nc |= (b[l] - b[0]) ^ 4u * (uint64_t)l; }
    if (lanes_pattern(nu, nc, b[0], mn, mx, any)) return;
  }
  for (uint32_t r = mask; r; r &= r - 1) {
    uint64_t v = b[__builtin_ctz(r)];
    lo = v < lo ? v : lo; hi = v > hi ? v : hi; o |= v;
  }
  *mn = lo, *mx = hi, *any = o;
}

/* The warp-wide fast path: when the accesses of the lanes in mask all lie
 * in one span mem_span accepts and are aligned, the result is the host
 * bytes of base value *bmin, and lane l's are at + (base[l] - *bmin), where
 * base[l] is the base register's value (0 without one), at most *bmax; NULL:
 * go lane by lane through mem_ptr, which finds and reports the fault.
 * Nothing has been touched either way, so both paths do the same. */
LANE_CLONES static uint8_t *warp_span(Warp *w, const XInsn *x, const MemOp *m, uint32_t mask,
                                      bool write, uint64_t *bmin, uint64_t *bmax) {
  uint64_t total = (uint64_t)m->size * m->n, mn = 0, mx = 0, any = 0, imm = (uint64_t)x->imm;
  if (!mask) return NULL;
  if (m->base != UINT32_MAX) {
    if (m->base64) lanes_range64(R64(w, m->base), mask, &mn, &mx, &any);
    else lanes_range32(R32(w, m->base), mask, &mn, &mx, &any);
  }
  /* Sufficient for alignment; lo <= hi: imm + base does not wrap between
     the lowest and the highest lane, so every lane lies in [lo, hi]. */
  uint64_t lo = imm + mn, hi = imm + mx;
  if (((imm | any) & (total - 1)) || hi < lo || hi > UINT64_MAX - total) return NULL;
  *bmin = mn, *bmax = mx;
  return mem_span(w, m->sp, lo, hi + total, write);
}

/* Lane l's host bytes on the fast path. */
static uint8_t *span_lane(Warp *w, const MemOp *m, uint8_t *at, uint64_t bmin, int l) {
  if (m->base == UINT32_MAX) return at;
  return at + ((m->base64 ? R64(w, m->base)[l] : R32(w, m->base)[l]) - bmin);
}

/* Lane l's base is base[0] + 4 l for every lane: a coalesced 4-byte access. */
static inline bool consecutive4(const Warp *w, const MemOp *m) {
  uint32_t bad = 0;
  if (m->base64) {
    const uint64_t *b = R64((Warp *)(uintptr_t)w, m->base);
    FOR_LANES(l) bad |= b[l] - b[0] != 4u * (uint64_t)l;
  } else {
    const uint32_t *b = R32((Warp *)(uintptr_t)w, m->base);
    FOR_LANES(l) bad |= b[l] - b[0] != 4u * (uint32_t)l;
  }
  return !bad;
}

/* One lane's elements from host bytes p into its registers. */
static void ld_lane(Warp *w, const XInsn *x, const MemOp *m, int l, const uint8_t *p) {
  for (int e = 0; e < m->n; e++) {
    const uint8_t *q = p + (size_t)e * m->size;
    if (m->size == 16) {   /* .b128: two 64-bit slots, low half first */
      R64(w, x->slot[e])[l] = load_bytes(q, 8, m->order);
      R64(w, x->slot[e] + 1)[l] = load_bytes(q + 8, 8, m->order);
      continue;
    }
    uint64_t v = extend(load_bytes(q, m->size, m->order), m->size, m->sext);
    reg_write(w, x->slot[e], m->regw[e], l, v);
  }
}

static void st_lane(Warp *w, const XInsn *x, const MemOp *m, int l, uint8_t *p) {
  for (int e = 0; e < m->n; e++) {
    uint8_t *q = p + (size_t)e * m->size;
    if (m->size == 16) {
      store_bytes(q, 8, R64(w, x->slot[e])[l], m->order);
      store_bytes(q + 8, 8, R64(w, x->slot[e] + 1)[l], m->order);
      continue;
    }
    store_bytes(q, m->size, reg_read(w, x->slot[e], m->regw[e], l), m->order);
  }
}

/* A weak 4-byte access of one element into a 32-bit register through a
 * base register: the commonest one, with the two commonest patterns, every
 * lane at one address (a broadcast) and lane l at base + 4 l (coalesced). */
static bool plain32(const MemOp *m) {
  return m->order == ORD_WEAK && m->n == 1 && m->size == 4 && m->regw[0] == 4 &&
         m->base != UINT32_MAX;
}

LANE_CLONES static void ld_plain32(Warp *w, const XInsn *x, const MemOp *m, uint32_t mask,
                                   const uint8_t *at, uint64_t bmin, uint64_t bmax) {
  uint32_t *d = R32(w, x->slot[0]), v;
  if (bmin == bmax) {
    memcpy(&v, at, 4);
    if (mask == 0xffffffffu) FOR_LANES(l) d[l] = v;
    else FOR_LANES(l) if (ACTIVE(mask, l)) d[l] = v;
  } else if (mask == 0xffffffffu && bmax - bmin == 124 && consecutive4(w, m)) {
    memcpy(d, at, 128);   /* device memory never overlaps registers */
  } else if (m->base64) {
    const uint64_t *b = R64(w, m->base);
    FOR_LANES(l) if (ACTIVE(mask, l)) memcpy(&d[l], at + (b[l] - bmin), 4);
  } else {
    const uint32_t *b = R32(w, m->base), b0 = (uint32_t)bmin;
    if (mask == 0xffffffffu) FOR_LANES(l) memcpy(&d[l], at + (b[l] - b0), 4);
    else FOR_LANES(l) if (ACTIVE(mask, l)) memcpy(&d[l], at + (b[l] - b0), 4);
  }
}

static void st_plain32(Warp *w, const XInsn *x, const MemOp *m, uint32_t mask, uint8_t *at,
                       uint64_t bmin, uint64_t bmax) {
  const uint32_t *v = R32(w, x->slot[0]);
  if (bmin == bmax) {   /* the highest lane stores last */
    memcpy(at, &v[31 - __builtin_clz(mask)], 4);
  } else if (mask == 0xffffffffu && bmax - bmin == 124 && consecutive4(w, m)) {
    memcpy(at, v, 128);
  } else if (m->base64) {
    const uint64_t *b = R64(w, m->base);
    FOR_LANES(l) if (ACTIVE(mask, l)) memcpy(at + (b[l] - bmin), &v[l], 4);
  } else {
    const uint32_t *b = R32(w, m->base), b0 = (uint32_t)bmin;
    FOR_LANES(l) if (ACTIVE(mask, l)) memcpy(at + (b[l] - b0), &v[l], 4);
  }
}

/* Any other weak access of one element of 1, 2, 4 or 8 bytes, on the fast
 * path: each lane's offset from at, then a loop per element size (no
 * memcpy of a variable size per lane). */
static bool scalar(const MemOp *m) { return m->order == ORD_WEAK && m->n == 1 && m->size <= 8; }

static inline void span_offsets(Warp *w, const MemOp *m, uint64_t bmin, uint64_t off[WARP_SIZE]) {
  if (m->base == UINT32_MAX) { FOR_LANES(l) off[l] = 0; return; }
  if (m->base64) { const uint64_t *b = R64(w, m->base); FOR_LANES(l) off[l] = b[l] - bmin; }
  else { const uint32_t *b = R32(w, m->base); FOR_LANES(l) off[l] = b[l] - bmin; }
}

/* v[l] = lane l's element of type T, extended through type S to 64 bits. */
#define LD_LANES(T, S) do { \
    if (mask == 0xffffffffu) \
      FOR_LANES(l) { T e_; memcpy(&e_, at + off[l], sizeof e_); v[l] = (uint64_t)(S)e_; } \
    else \
      FOR_LANES(l) { \
        T e_ = 0; \
        if (ACTIVE(mask, l)) memcpy(&e_, at + off[l], sizeof e_); \
        v[l] = (uint64_t)(S)e_; \
      } \
  } while (0)
#define ST_LANES(T) do { \
    FOR_LANES(l) if (ACTIVE(mask, l)) { T e_ = (T)v[l]; memcpy(at + off[l], &e_, sizeof e_); } \
  } while (0)

LANE_CLONES static void ld_scalar(Warp *w, const XInsn *x, const MemOp *m, uint32_t mask,
                                  const uint8_t *at, uint64_t bmin) {
  uint64_t off[WARP_SIZE], v[WARP_SIZE];
  span_offsets(w, m, bmin, off);
  switch (m->size * 2 + m->sext) {   /* extend (above) for each size */
  case 2: LD_LANES(uint8_t, uint8_t); break;
  case 3: LD_LANES(uint8_t, int8_t); break;
  case 4: LD_LANES(uint16_t, uint16_t); break;
  case 5: LD_LANES(uint16_t, int16_t); break;
  case 8: LD_LANES(uint32_t, uint32_t); break;
  case 9: LD_LANES(uint32_t, int32_t); break;
  default: LD_LANES(uint64_t, uint64_t); break;
  }
  unsigned regw = m->regw[0];
  if (regw > 4) {
    merge64(R64(w, x->slot[0]), v, mask);
  } else {   /* reg_write's truncation */
    uint32_t t[WARP_SIZE], keep = regw >= 4 ? UINT32_MAX : (1u << 8 * regw) - 1;
    FOR_LANES(l) t[l] = (uint32_t)v[l] & keep;
    merge32(R32(w, x->slot[0]), t, mask);
  }
}

LANE_CLONES static void st_scalar(Warp *w, const XInsn *x, const MemOp *m, uint32_t mask,
                                  uint8_t *at, uint64_t bmin) {
  uint64_t off[WARP_SIZE], v[WARP_SIZE];
  span_offsets(w, m, bmin, off);
  unsigned regw = m->regw[0];
  FOR_LANES(l) v[l] = ACTIVE(mask, l) ? reg_read(w, x->slot[0], regw, l) : 0;
  switch (m->size) {
  case 1: ST_LANES(uint8_t); break;
  case 2: ST_LANES(uint16_t); break;
  case 4: ST_LANES(uint32_t); break;
  default: ST_LANES(uint64_t); break;
  }
}

/* ld_warp with warp_span's answer (at, bmin, bmax) */
static inline __attribute__((always_inline)) XStatus ld_warp_at(Warp *w, const XInsn *x, const MemOp *m,
                                                                 uint32_t mask, uint8_t *at, uint64_t bmin,
                                                                 uint64_t bmax) {
  uint32_t total = (uint32_t)m->size * m->n;
  if (at && plain32(m)) {
    ld_plain32(w, x, m, mask, at, bmin, bmax);
    return XS_NEXT;
  }
  if (at && scalar(m)) {
    ld_scalar(w, x, m, mask, at, bmin);
    return XS_NEXT;
  }
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    const uint8_t *p = at ? span_lane(w, m, at, bmin, l)
                          : mem_ptr(w, x, l, m->sp, lane_addr(w, x, m, l), total, total, false);
    if (!p) return XS_TRAP;
    ld_lane(w, x, m, l, p);
  }
  return XS_NEXT;
}

static inline __attribute__((always_inline)) XStatus ld_warp(Warp *w, const XInsn *x, const MemOp *m,
                                                              uint32_t mask) {
  uint64_t bmin, bmax;
  uint8_t *at = warp_span(w, x, m, mask, false, &bmin, &bmax);
  return ld_warp_at(w, x, m, mask, at, bmin, bmax);
}

static inline __attribute__((always_inline)) XStatus st_warp_at(Warp *w, const XInsn *x, const MemOp *m,
                                                                 uint32_t mask, uint8_t *at, uint64_t bmin,
                                                                 uint64_t bmax) {
  uint32_t total = (uint32_t)m->size * m->n;
  if (at && plain32(m)) {
    st_plain32(w, x, m, mask, at, bmin, bmax);
    return XS_NEXT;
  }
  if (at && scalar(m)) {
    st_scalar(w, x, m, mask, at, bmin);
    return XS_NEXT;
  }
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint8_t *p = at ? span_lane(w, m, at, bmin, l)
                    : mem_ptr(w, x, l, m->sp, lane_addr(w, x, m, l), total, total, true);
    if (!p) return XS_TRAP;
    st_lane(w, x, m, l, p);
  }
  return XS_NEXT;
}

static inline __attribute__((always_inline)) XStatus st_warp(Warp *w, const XInsn *x, const MemOp *m,
                                                              uint32_t mask) {
  uint64_t bmin, bmax;
  uint8_t *at = warp_span(w, x, m, mask, true, &bmin, &bmax);
  return st_warp_at(w, x, m, mask, at, bmin, bmax);
}

/* The access hook (exec.h): the lanes' addresses before the access. */
/* lane_addr of every lane (the inactive ones too: their registers are only
 * read, the observer takes the lanes of mask), with the operand's form
 * tested once so that each loop vectorizes. */
static void lane_addrs(Warp *w, const XInsn *x, const MemOp *m, uint64_t *a) {
  uint64_t imm = (uint64_t)x->imm;
  if (m->base == UINT32_MAX) {
    FOR_LANES(l) a[l] = imm;
  } else if (m->base64) {
    const uint64_t *b = R64(w, m->base);
    FOR_LANES(l) a[l] = imm + b[l];
  } else {
    const uint32_t *b = R32(w, m->base);
    if (m->sp == SP_SHARED) FOR_LANES(l) a[l] = (uint32_t)(imm + b[l]);
    else FOR_LANES(l) a[l] = imm + b[l];
  }
}

/* The lanes' accesses to the observer: in the span warp_span found (at,
 * for PTX address imm + bmin), lane l's bytes at at + (a[l] - imm - bmin),
 * a[] the addresses taken before the access (a load may overwrite its base
 * register), handed over as they are; else mem_observe_lanes finds them. */
LANE_CLONES static void observe_done(Warp *w, const XInsn *x, const MemOp *m, uint32_t mask, const uint64_t *a,
                         uint8_t *at, uint64_t bmin, uint64_t bmax, AccessKind kind) {
  uint32_t total = (uint32_t)m->size * m->n;
  if (!at) {
    mem_observe_lanes(w, x, mask, m->sp, a, total, kind, m->order != ORD_WEAK);
    return;
  }
  const void *host[WARP_SIZE];
  uintptr_t h = (uintptr_t)at;
  uint64_t lo = (uint64_t)x->imm + bmin;
  FOR_LANES(l) host[l] = (const void *)(h + (uintptr_t)(a[l] - lo));
  mem_observe_span(w, x, mask, m->sp, a, host, h, h + (uintptr_t)(bmax - bmin) + total, total, kind,
                   m->order != ORD_WEAK);
}

/* The observed twins: second instantiations of ld_warp and st_warp, out
 * of line so the fast paths keep their frames. */
static __attribute__((noinline)) XStatus ld_observed(Warp *w, const XInsn *x, const MemOp *m,
                                                     uint32_t mask) {
  uint64_t a[WARP_SIZE], bmin = 0, bmax = 0;
  lane_addrs(w, x, m, a);
  uint8_t *at = warp_span(w, x, m, mask, false, &bmin, &bmax);
  XStatus s = ld_warp_at(w, x, m, mask, at, bmin, bmax);
  if (s == XS_NEXT) observe_done(w, x, m, mask, a, at, bmin, bmax, ACC_LD);
  return s;
}

static __attribute__((noinline)) XStatus st_observed(Warp *w, const XInsn *x, const MemOp *m,
                                                     uint32_t mask) {
  uint64_t a[WARP_SIZE], bmin = 0, bmax = 0;
  lane_addrs(w, x, m, a);
  uint8_t *at = warp_span(w, x, m, mask, true, &bmin, &bmax);
  XStatus s = st_warp_at(w, x, m, mask, at, bmin, bmax);
  if (s == XS_NEXT) observe_done(w, x, m, mask, a, at, bmin, bmax, ACC_ST);
  return s;
}

HANDLER(exec_ld) {
  const MemOp *m = x->aux;
  return mem_observed(w) ? ld_observed(w, x, m, mask) : ld_warp(w, x, m, mask);
}

HANDLER(exec_st) {
  const MemOp *m = x->aux;
  return mem_observed(w) ? st_observed(w, x, m, mask) : st_warp(w, x, m, mask);
}

bool mem_describe_load(Warp *w, const XInsn *x, int lane, char *buf, size_t n) {
  if (x->fn != exec_ld) return false;
  const MemOp *m = x->aux;
  uint64_t a = lane_addr(w, x, m, lane), v = 0;
  unsigned size = m->size < 8 ? m->size : 8;
  const uint8_t *p = mem_span(w, m->sp, a, a + size, false);   /* reports nothing */
  if (!p) return false;
  memcpy(&v, p, size);   /* little-endian host */
  snprintf(buf, n, "0x%llx from %s address 0x%llx", (unsigned long long)v,
           m->sp == SP_NONE ? "generic" : space_name(m->sp), (unsigned long long)a);
  return true;
}

HANDLER(exec_mem_nop) {
  (void)w, (void)x, (void)mask;
  return XS_NEXT;
}

HANDLER(exec_createpolicy) {
  FOR_LANES(l) if (ACTIVE(mask, l)) R64(w, x->slot[0])[l] = 0;
  return XS_NEXT;
}

/* ---- selection ---- */

/* Bytes of the register an operand names; immediates and sinks take the
 * width of the access type (at least 4: the 32-bit file). */
static unsigned operand_width(const Operand *o, Type t) {
  unsigned w = o->kind == OPD_REG && o->sym ? (unsigned)type_size(o->sym->type)
                                            : (unsigned)type_size(t);
  return w < 4 ? (w ? w : 4) : w;
}

static MemOrder order_of(const Insn *in) {
  if (insn_has_mod(in, ".acquire")) return ORD_ACQUIRE;
  if (insn_has_mod(in, ".release")) return ORD_RELEASE;
  if (insn_has_mod(in, ".relaxed") || insn_has_mod(in, ".volatile") || insn_has_mod(in, ".mmio"))
    return ORD_RELAXED;
  return ORD_WEAK;
}

/* Fills the address part of m from address operand o. */
static void select_address(Lower *L, const Operand *o, Space sp, XInsn *x, MemOp *m) {
  m->sp = sp;
  x->imm = lower_addr(L, o, sp, &m->base);
  m->base64 = o->sym && o->sym->kind == SYM_REG && type_size(o->sym->type) == 8;
}

/* ld / st / ldu: vals is the value operand (a register or a vector). */
static bool select_ldst(Lower *L, const Insn *in, XInsn *x, bool store) {
  const Operand *addr = &in->opds[store ? 0 : 1];
  const Operand *vals = &in->opds[store ? 1 : 0];
  Type t = (Type)in->types[0];
  int size = type_size(t);
  if (size <= 0 || addr->kind != OPD_ADDR || addr->n) return false;
  MemOp *m = lower_aux(L, sizeof *m);
  x->aux = m;
  m->size = (uint8_t)size;
  m->sext = type_kind(t) == K_S;
  m->order = order_of(in);
  select_address(L, addr, lower_space(in), x, m);
  const Operand *elems = vals->kind == OPD_VEC ? vals->elems : vals;
  int n = vals->kind == OPD_VEC ? vals->n : 1;
  if (n < 1 || n > 8 || (size == 16 && n != 1)) return false;
  m->n = (uint8_t)n;
  for (int e = 0; e < n; e++) {
    const Operand *o = &elems[e];
    if (!store && o->kind != OPD_REG && o->kind != OPD_SINK) return false;
    m->regw[e] = (uint8_t)operand_width(o, t);
    x->slot[e] = store ? lower_src(L, o, t) : lower_dst(L, o);
  }
  x->nslots = (uint8_t)n;
  x->fn = store ? exec_st : exec_ld;
  return true;
}

bool exec_select_MEM(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_LD: case OP_LD_NC: case OP_LD_VOLATILE: case OP_LD_SEM: case OP_LD_MMIO: case OP_LDU:
    return select_ldst(L, in, x, false);
  case OP_ST: case OP_ST_VOLATILE: case OP_ST_SEM: case OP_ST_MMIO:
    return select_ldst(L, in, x, true);
  case OP_PREFETCH: case OP_PREFETCH_EVICT: case OP_PREFETCH_TENSORMAP: case OP_PREFETCHU:
  case OP_APPLYPRIORITY: case OP_DISCARD:
    x->fn = exec_mem_nop;
    return true;
  case OP_CREATEPOLICY_RANGE: case OP_CREATEPOLICY_FRAC: case OP_CREATEPOLICY_CVT:
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->fn = exec_createpolicy;
    return true;
  default:
    return false;   /* st.bulk, multimem.*: not yet */
  }
}

/* ---- cvta, cvta.to, isspacep (§9.7.9.19-20) ---- */

/* Window base of a state space in the generic map (0: same numbers). */
static uint64_t window_of(Space sp) {
  switch (sp) {
  case SP_SHARED: return SHARED_WINDOW;
  case SP_LOCAL: return LOCAL_WINDOW;
  case SP_PARAM: return PARAM_WINDOW;
  default: return 0;   /* global and const live at their own addresses */
  }
}

static bool in_window(uint64_t a, uint64_t base) { return a - base < WINDOW_SIZE; }

/* cvta, cvta.to and isspacep: destination, source and its width. */
typedef struct AddrOp {
  uint32_t dst, src;     /* src UINT32_MAX: the address is x->imm alone */
  bool src64, dst64, to;
} AddrOp;

static uint64_t addr_src(Warp *w, const XInsn *x, const AddrOp *a, int l) {
  uint64_t v = (uint64_t)x->imm;
  if (a->src != UINT32_MAX) v += a->src64 ? R64(w, a->src)[l] : R32(w, a->src)[l];
  return v;
}

HANDLER(exec_cvta) {
  const AddrOp *a = x->aux;
  Space sp = (Space)x->space;
  uint64_t base = window_of(sp);
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t v = addr_src(w, x, a, l);
    /* the .param of a .func already lives in the local window (exec.h) */
    if (!(sp == SP_PARAM && in_window(v, LOCAL_WINDOW))) v = a->to ? v - base : v + base;
    if (a->dst64) R64(w, a->dst)[l] = v;
    else R32(w, a->dst)[l] = (uint32_t)v;
  }
  return XS_NEXT;
}

static bool is_space(Space sp, uint64_t a) {
  switch (sp) {
  /* global: every address outside the shared and local windows (mem.h;
     param ⊂ global); const lies in global */
  case SP_GLOBAL: return !in_window(a, SHARED_WINDOW) && !in_window(a, LOCAL_WINDOW);
  case SP_CONST: return !mem_in_window(a);
  case SP_SHARED: return in_window(a, SHARED_WINDOW);
  case SP_LOCAL: return in_window(a, LOCAL_WINDOW);
  case SP_PARAM: return in_window(a, PARAM_WINDOW);
  default: return false;
  }
}

/* isspacep.shared{::cta} (x->sub 0): the executing CTA's shared memory (rank
 * bits zero or its own rank); isspacep.shared::cluster (x->sub 1): the
 * shared memory of any CTA of the cluster (mem.h encoding). */
static bool is_shared(const Warp *w, const XInsn *x, uint64_t a) {
  if (!in_window(a, SHARED_WINDOW)) return false;
  uint64_t hi = (a - SHARED_WINDOW) >> SHARED_RANK_SHIFT;
  const Cta *c = w->cta;
  uint32_t own = c ? c->rank : 0, n = c && c->cluster ? (uint32_t)c->cluster->ncta : 1;
  return x->sub ? hi <= n : hi == 0 || hi == own + 1u;
}

HANDLER(exec_isspacep) {
  const AddrOp *a = x->aux;
  uint32_t *p = &w->pred[a->dst], r = 0;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t v = addr_src(w, x, a, l);
    if (x->space == SP_SHARED ? is_shared(w, x, v) : is_space((Space)x->space, v)) r |= 1u << l;
  }
  *p = (*p & ~mask) | r;
  return XS_NEXT;
}

bool mem_select_addr(Lower *L, const Insn *in, XInsn *x) {
  Space sp = lower_space(in);
  if (sp == SP_NONE || in->nopds < 2) return false;
  AddrOp *a = lower_aux(L, sizeof *a);
  x->space = (uint8_t)sp;
  const Operand *src = &in->opds[1];
  if (src->kind == OPD_SYM || src->kind == OPD_ADDR) {   /* cvta.shared.u64 %rd, var; */
    x->imm = lower_addr(L, src, sp, &a->src);
    a->src64 = src->sym && src->sym->kind == SYM_REG && type_size(src->sym->type) == 8;
  } else {
    Type t = in->ntypes ? (Type)in->types[0] : TY_U64;
    if (src->kind == OPD_REG && src->sym) t = src->sym->type;
    a->src = lower_src(L, src, t);
    a->src64 = type_size(t) == 8;
    x->imm = 0;
  }
  a->dst = lower_dst(L, &in->opds[0]);
  a->dst64 = !(in->ntypes && type_size((Type)in->types[0]) == 4);
  a->to = in->op == OP_CVTA_TO;
  x->sub = insn_has_mod(in, ".shared::cluster");
  x->aux = a;
  switch ((Opcode)in->op) {
  case OP_CVTA: case OP_CVTA_TO: x->fn = exec_cvta; return true;
  case OP_ISSPACEP: x->fn = exec_isspacep; return true;
  default: return false;
  }
}
