/* atom.c: family ATOM, atomic read-modify-write on global and shared memory
 * (PTX ISA 9.0 §9.7.13.5 atom, §9.7.13.6 red).
 *
 * Every form is one compare-and-swap loop over a host atomic of the element's
 * size (2, 4 or 8 bytes): read the old value, compute the new one with the
 * operation, swap if memory still holds the old value, else retry. That
 * makes each element atomic against every other host thread (CTAs will run
 * on several), for every operation alike, including the floating-point and
 * half-precision adds the host has no instruction for. The lanes of a warp
 * apply their operations one after the other in lane order; atom returns the
 * old value to each lane's destination, red discards it.
 *
 * Operations (Semantics section of atom/red):
 *   inc(r, s) = (r >= s) ? 0 : r + 1        dec(r, s) = (r == 0 || r > s) ? s : r - 1
 *   cas(r, s, t) = (r == s) ? t : r          exch(r, s) = s
 * and/or/xor on bits, add/min/max by type (signed for .s32/.s64). Float adds
 * round to nearest even; .f32 add on global memory flushes subnormal inputs
 * and results to sign-preserving zero, as the ISA says the current
 * implementation does, while shared memory keeps them; .f16/.bf16 adds
 * (.noftz) keep subnormals. A packed .f16x2/.bf16x2 element is updated as a
 * whole, which is at least as atomic as the ISA's per-half guarantee.
 * .sem orders the host atomic (.relaxed when absent); scopes need nothing
 * more since host atomics are system-wide.
 *
 * .b128 cas and exch (sm_90, PTX 8.3) operate on 16 aligned bytes as one
 * unit, the value registers being .b128 (two 64-bit slots, low first). On
 * x86-64 the host atomic is lock cmpxchg16b, asked for per function with
 * target("cx16") so that neither -mcx16 nor libatomic is needed (GCC's
 * __atomic_* on unsigned __int128 calls into libatomic, a new dependency);
 * it is atomic against every other host thread's access of that memory.
 * Elsewhere, or should a host address not be 16-aligned, a table of 64
 * striped mutexes keyed by address serialises the 16-byte accesses instead:
 * atomic against other .b128 atom, though not against narrower atomics on
 * the same bytes. cas: d = old; if old == b, memory = c. exch: d = old;
 * memory = b. A sink destination discards old. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "../mem/mem.h"
#include "fpconv.h"
#include "interp.h"

typedef enum { AO_ADD, AO_MIN, AO_MAX, AO_INC, AO_DEC, AO_AND, AO_OR, AO_XOR, AO_EXCH, AO_CAS } AtomOp;

typedef struct AtomInsn {
  AtomOp op;
  Type type;             /* element type */
  bool sg;               /* a signed integer type (min, max) */
  uint8_t size;          /* bytes per element */
  uint8_t n;             /* elements (vector forms) */
  bool ret;              /* atom: write the old value back */
  bool ftz;              /* .f32 add on global memory */
  int order;             /* __ATOMIC_* */
  Space sp;
  uint32_t base;         /* base register slot or UINT32_MAX */
  bool base64;
  uint8_t regw;          /* bytes of the value registers */
  uint32_t dst[8], b[8], c;   /* slots: destinations, operands b, cas operand c */
} AtomInsn;

static float ftz32(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }

/* ---- the operation on one element's bits ---- */

static double fmin_ptx(double a, double b) { return isnan(a) ? b : isnan(b) ? a : a < b ? a : b; }
static double fmax_ptx(double a, double b) { return isnan(a) ? b : isnan(b) ? a : a > b ? a : b; }

static double apply_float(AtomOp op, double r, double s) {
  return op == AO_MIN ? fmin_ptx(r, s) : op == AO_MAX ? fmax_ptx(r, s) : r + s;
}

/* One 16-bit half of a (packed) f16/bf16 value. */
static uint16_t apply_half(AtomOp op, bool bf, uint16_t r, uint16_t s) {
  double x = bf ? bf16_widen(r) : fp_decode(r, 5, 10);   /* fpconv.h */
  double y = bf ? bf16_widen(s) : fp_decode(s, 5, 10);
  double v = apply_float(op, x, y);
  return bf ? bf16_round_qnan(v) : f16_round_qnan(v);
}

static uint64_t apply_f32(const AtomInsn *a, uint64_t r, uint64_t s) {
  float x, y;
  uint32_t rx = (uint32_t)r, sy = (uint32_t)s;
  memcpy(&x, &rx, 4);
  memcpy(&y, &sy, 4);
  if (a->ftz) { x = ftz32(x); y = ftz32(y); }
  float v = (float)apply_float(a->op, (double)x, (double)y);   /* exact sum, rounded once */
  if (a->ftz) v = ftz32(v);
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}

static uint64_t apply_f64(AtomOp op, uint64_t r, uint64_t s) {
  double x, y, v;
  memcpy(&x, &r, 8);
  memcpy(&y, &s, 8);
  v = apply_float(op, x, y);
  uint64_t u;
  memcpy(&u, &v, 8);
  return u;
}

static uint64_t sext(uint64_t v, unsigned size) {
  unsigned sh = 64 - 8 * size;
  return (uint64_t)((int64_t)(v << sh) >> sh);
}

static uint64_t apply_int(const AtomInsn *a, uint64_t r, uint64_t s) {
  bool sg = a->sg;
  switch (a->op) {
  case AO_ADD: return r + s;
  case AO_AND: return r & s;
  case AO_OR: return r | s;
  case AO_XOR: return r ^ s;
  case AO_EXCH: return s;
  case AO_INC: return r >= s ? 0 : r + 1;
  case AO_DEC: return r == 0 || r > s ? s : r - 1;
  case AO_MIN:
    if (sg) return (int64_t)sext(r, a->size) < (int64_t)sext(s, a->size) ? r : s;
    return r < s ? r : s;
  case AO_MAX:
    if (sg) return (int64_t)sext(r, a->size) > (int64_t)sext(s, a->size) ? r : s;
    return r > s ? r : s;
  default: return r;
  }
}

static uint64_t apply(const AtomInsn *a, uint64_t r, uint64_t s, uint64_t c) {
  if (a->op == AO_CAS) return r == s ? c : r;
  if (a->op == AO_EXCH) return s;
  switch (a->type) {
  case TY_F32: return apply_f32(a, r, s);
  case TY_F64: return apply_f64(a->op, r, s);
  case TY_F16: return apply_half(a->op, false, (uint16_t)r, (uint16_t)s);
  case TY_BF16: return apply_half(a->op, true, (uint16_t)r, (uint16_t)s);
  case TY_F16X2: case TY_BF16X2: {
    bool bf = a->type == TY_BF16X2;
    uint32_t lo = apply_half(a->op, bf, (uint16_t)r, (uint16_t)s);
    uint32_t hi = apply_half(a->op, bf, (uint16_t)(r >> 16), (uint16_t)(s >> 16));
    return lo | hi << 16;
  }
  default: return apply_int(a, r, s);
  }
}

/* ---- the host atomic ---- */

static int fail_order(int mo) {
  return mo == __ATOMIC_ACQUIRE || mo == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED;
}

#define RMW_LOOP(T)                                                               \
  do {                                                                            \
    T *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED);                         \
    for (;;) {                                                                    \
      T nv = (T)apply(a, old, s, c);                                              \
      if (__atomic_compare_exchange_n(q, &old, nv, true, a->order, fail_order(a->order))) \
        return old;                                                               \
    }                                                                             \
  } while (0)

/* Atomically replaces the element at p by apply(old, s, c); returns old. */
static uint64_t rmw(const AtomInsn *a, void *p, uint64_t s, uint64_t c) {
  switch (a->size) {
  case 2: RMW_LOOP(uint16_t);
  case 4: RMW_LOOP(uint32_t);
  default: RMW_LOOP(uint64_t);
  }
}

/* ---- the handler ---- */

static uint64_t rd(Warp *w, uint32_t slot, unsigned regw, int l) {
  return regw <= 4 ? R32(w, slot)[l] : R64(w, slot)[l];
}

static uint64_t fit(uint64_t v, unsigned size) {
  return size >= 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* A relaxed 4-byte atom on the executing CTA's shared memory, every lane's
 * address valid (mem_span): only this host thread can reach that memory (a
 * cluster runs on one), so lane after lane a plain read-modify-write does
 * what the host atomic would, without its cost. False: take the general
 * path. */
static bool atom_shared32(Warp *w, const XInsn *x, const AtomInsn *a, uint32_t mask) {
  if (a->sp != SP_SHARED || a->n != 1 || a->size != 4 || a->regw > 4 ||
      a->order != __ATOMIC_RELAXED || a->base == UINT32_MAX || a->base64)
    return false;
  const uint32_t *b = R32(w, a->base), *s = R32(w, a->b[0]);
  const uint32_t *c = a->op == AO_CAS ? R32(w, a->c) : s;
  uint32_t lo = UINT32_MAX, hi = 0, any = 0;
  for (uint32_t r = mask; r; r &= r - 1) {
    uint32_t v = b[__builtin_ctz(r)];
    lo = v < lo ? v : lo; hi = v > hi ? v : hi; any |= v;
  }
  uint64_t imm = (uint64_t)x->imm, first = imm + lo, last = imm + hi;
  if (!mask || ((imm | any) & 3) || last < first || last > UINT64_MAX - 4) return false;
  uint8_t *at = mem_span(w, SP_SHARED, first, last + 4, true);
  if (!at) return false;
  uint32_t *d = a->ret ? R32(w, a->dst[0]) : NULL;
  bool add = a->op == AO_ADD && (a->type == TY_U32 || a->type == TY_S32);   /* histograms */
  for (uint32_t r = mask; r; r &= r - 1) {
    int l = __builtin_ctz(r);
    uint8_t *p = at + (b[l] - lo);
    uint32_t old;
    memcpy(&old, p, 4);
    uint32_t nv = add ? old + s[l] : (uint32_t)apply(a, old, s[l], c[l]);
    memcpy(p, &nv, 4);
    if (d) d[l] = old;
  }
  return true;
}

static inline __attribute__((always_inline)) XStatus atom_warp(Warp *w, const XInsn *x,
                                                                const AtomInsn *a, uint32_t mask) {
  uint32_t total = (uint32_t)a->size * a->n;
  if (atom_shared32(w, x, a, mask)) return XS_NEXT;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t addr = lane_address(w, a->sp, x->imm, a->base, a->base64, l);
    uint8_t *p = mem_ptr(w, x, l, a->sp, addr, total, total, true);
    if (!p) return XS_TRAP;
    for (int e = 0; e < a->n; e++) {
      uint64_t s = fit(rd(w, a->b[e], a->regw, l), a->size);
      uint64_t c = a->op == AO_CAS ? fit(rd(w, a->c, a->regw, l), a->size) : 0;
      uint64_t old = rmw(a, p + (size_t)e * a->size, s, c);
      if (!a->ret) continue;
      if (a->regw <= 4) R32(w, a->dst[e])[l] = (uint32_t)old;
      else R64(w, a->dst[e])[l] = old;
    }
  }
  return XS_NEXT;
}

/* The access hook (exec.h): addresses before (the destination may be the
 * base register), reported after. */
static void atom_addrs(Warp *w, const XInsn *x, const AtomInsn *a, uint32_t mask, uint64_t *ad) {
  FOR_LANES(l) if (ACTIVE(mask, l)) ad[l] = lane_address(w, a->sp, x->imm, a->base, a->base64, l);
}

/* The observed twin (a second instantiation of atom_warp, out of line so
 * the fast path keeps its frame). */
static __attribute__((noinline)) XStatus atom_observed(Warp *w, const XInsn *x, const AtomInsn *a,
                                                       uint32_t mask) {
  uint64_t ad[WARP_SIZE];
  atom_addrs(w, x, a, mask, ad);
  XStatus s = atom_warp(w, x, a, mask);
  if (s == XS_NEXT) mem_observe_lanes(w, x, mask, a->sp, ad, (uint32_t)a->size * a->n, ACC_ATOM, true);
  return s;
}

HANDLER(exec_atom) {
  const AtomInsn *a = x->aux;
  return mem_observed(w) ? atom_observed(w, x, a, mask) : atom_warp(w, x, a, mask);
}

/* ---- 16-byte cas and exch ---- */

typedef unsigned __int128 u128;

static pthread_mutex_t b128_locks[64] = {
#define M4 PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER
  M4, M4, M4, M4, M4, M4, M4, M4, M4, M4, M4, M4, M4, M4, M4, M4,
#undef M4
};

/* Under the address's stripe lock: the 16 bytes at p become new unless
 * is_cas and they differ from cmp; returns the old bytes. */
static u128 b128_locked(void *p, bool is_cas, u128 cmp, u128 nv) {
  pthread_mutex_t *m = &b128_locks[((uintptr_t)p >> 4) & 63];
  pthread_mutex_lock(m);
  u128 old;
  memcpy(&old, p, 16);
  if (!is_cas || old == cmp) memcpy(p, &nv, 16);
  pthread_mutex_unlock(m);
  return old;
}

#if defined(__x86_64__)
/* lock cmpxchg16b (every x86-64 that runs CUDA-era code has it): compares
 * the 16 bytes at p with cmp and stores nv if equal; returns the old bytes.
 * Inline assembly, because compilers otherwise call libatomic for 16-byte
 * compare-and-swap or need -mcx16 for the whole file. */
static u128 cas16(u128 *p, u128 cmp, u128 nv) {
  uint64_t lo = (uint64_t)cmp, hi = (uint64_t)(cmp >> 64);
  __asm__ __volatile__("lock cmpxchg16b %0"
                       : "+m"(*p), "+a"(lo), "+d"(hi)
                       : "b"((uint64_t)nv), "c"((uint64_t)(nv >> 64))
                       : "memory", "cc");
  return (u128)hi << 64 | lo;
}

static u128 b128_cx16(u128 *p, bool is_cas, u128 cmp, u128 nv) {
  if (is_cas) return cas16(p, cmp, nv);
  u128 old = cas16(p, 0, 0);   /* an atomic read */
  for (;;) {
    u128 seen = cas16(p, old, nv);
    if (seen == old) return old;
    old = seen;
  }
}
#endif

/* cmpxchg16b is a full barrier, which covers every .sem. */
static u128 b128_rmw(void *p, bool is_cas, u128 cmp, u128 nv) {
#if defined(__x86_64__)
  if (((uintptr_t)p & 15) == 0) return b128_cx16(p, is_cas, cmp, nv);
#endif
  return b128_locked(p, is_cas, cmp, nv);
}

static u128 rd128(Warp *w, uint32_t slot, int l) {
  return (u128)R64(w, slot + 1)[l] << 64 | R64(w, slot)[l];
}

static XStatus atom128_warp(Warp *w, const XInsn *x, const AtomInsn *a, uint32_t mask) {
  bool is_cas = a->op == AO_CAS;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t addr = lane_address(w, a->sp, x->imm, a->base, a->base64, l);
    uint8_t *p = mem_ptr(w, x, l, a->sp, addr, 16, 16, true);
    if (!p) return XS_TRAP;
    u128 b = rd128(w, a->b[0], l), c = is_cas ? rd128(w, a->c, l) : 0;
    u128 old = b128_rmw(p, is_cas, b, is_cas ? c : b);
    if (!a->ret) continue;
    R64(w, a->dst[0])[l] = (uint64_t)old;
    R64(w, a->dst[0] + 1)[l] = (uint64_t)(old >> 64);
  }
  return XS_NEXT;
}

HANDLER(exec_atom128) {
  const AtomInsn *a = x->aux;
  uint64_t ad[WARP_SIZE];
  bool obs = mem_observed(w);
  if (obs) atom_addrs(w, x, a, mask, ad);
  XStatus s = atom128_warp(w, x, a, mask);
  if (obs && s == XS_NEXT) mem_observe_lanes(w, x, mask, a->sp, ad, 16, ACC_ATOM, true);
  return s;
}

/* atom{...}.{cas,exch}.b128 d, [a], b{, c}: register operands only (PTX has
 * no 128-bit immediates). */
static bool select_atom128(Lower *L, const Insn *in, XInsn *x, AtomInsn *a) {
  if (!a->ret || (a->op != AO_CAS && a->op != AO_EXCH)) return false;
  if (in->nopds < (a->op == AO_CAS ? 4 : 3)) return false;
  const Operand *m = &in->opds[1];
  if (m->kind != OPD_ADDR) return false;
  for (int i = 2; i < (a->op == AO_CAS ? 4 : 3); i++) {
    const Operand *o = &in->opds[i];
    if (o->kind != OPD_REG || o->sym->kind != SYM_REG || type_size(o->sym->type) != 16) return false;
  }
  const Operand *d = &in->opds[0];
  if (d->kind == OPD_SINK) a->ret = false;
  else if (d->kind != OPD_REG || d->sym->kind != SYM_REG || type_size(d->sym->type) != 16) return false;
  a->size = 16;
  a->n = 1;
  x->imm = lower_addr(L, m, a->sp, &a->base);
  a->base64 = m->sym && m->sym->kind == SYM_REG && type_size(m->sym->type) == 8;
  a->b[0] = lower_src(L, &in->opds[2], TY_B128);
  if (a->op == AO_CAS) a->c = lower_src(L, &in->opds[3], TY_B128);
  if (a->ret) a->dst[0] = lower_dst(L, d);
  x->fn = exec_atom128;
  return true;
}

/* ---- selection ---- */

static bool op_of(const Insn *in, AtomOp *op) {
  static const struct { const char *mod; AtomOp op; } ops[] = {
    {".add", AO_ADD}, {".min", AO_MIN}, {".max", AO_MAX}, {".inc", AO_INC}, {".dec", AO_DEC},
    {".and", AO_AND}, {".or", AO_OR}, {".xor", AO_XOR}, {".exch", AO_EXCH}, {".cas", AO_CAS},
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (insn_has_mod(in, ops[i].mod)) { *op = ops[i].op; return true; }
  return false;
}

static int order_of(const Insn *in) {
  if (insn_has_mod(in, ".acq_rel")) return __ATOMIC_ACQ_REL;
  if (insn_has_mod(in, ".acquire")) return __ATOMIC_ACQUIRE;
  if (insn_has_mod(in, ".release")) return __ATOMIC_RELEASE;
  return __ATOMIC_RELAXED;
}

/* The operand's elements (a vector or one register / immediate). */
static const Operand *elems_of(const Operand *o, int *n) {
  *n = o->kind == OPD_VEC ? o->n : 1;
  return o->kind == OPD_VEC ? o->elems : o;
}

bool exec_select_ATOM(Lower *L, const Insn *in, XInsn *x) {
  bool is_red = op_has(in->op, OPF_NORES);
  AtomInsn *a = lower_aux(L, sizeof *a);
  x->aux = a;
  a->type = in->ntypes ? (Type)in->types[0] : TY_NONE;
  a->sg = type_kind(a->type) == K_S;
  int size = type_size(a->type);
  if (!op_of(in, &a->op)) return false;
  a->ret = !is_red;
  a->order = order_of(in);
  a->sp = lower_space(in);
  if (size == 16) return !is_red && select_atom128(L, in, x, a);
  if (size != 2 && size != 4 && size != 8) return false;
  a->size = (uint8_t)size;
  a->regw = size == 8 ? 8 : 4;
  a->ftz = a->type == TY_F32 && a->op == AO_ADD && a->sp == SP_GLOBAL;
  int k = is_red ? 0 : 1;   /* index of the address operand */
  const Operand *m = &in->opds[k];
  if (m->kind != OPD_ADDR || in->nopds < k + 2) return false;
  x->imm = lower_addr(L, m, a->sp, &a->base);
  a->base64 = m->sym && m->sym->kind == SYM_REG && type_size(m->sym->type) == 8;
  int nb, nd = 0;
  const Operand *b = elems_of(&in->opds[k + 1], &nb);
  const Operand *d = is_red ? NULL : elems_of(&in->opds[0], &nd);
  if (nb < 1 || nb > 8 || (!is_red && nd != nb)) return false;
  a->n = (uint8_t)nb;
  for (int e = 0; e < nb; e++) {
    a->b[e] = lower_src(L, &b[e], a->type);
    if (d) a->dst[e] = lower_dst(L, &d[e]);
  }
  if (a->op == AO_CAS) {
    if (in->nopds < 4) return false;
    a->c = lower_src(L, &in->opds[3], a->type);
  }
  x->fn = exec_atom;
  return true;
}

/* The reductions of the asynchronous queue (remote.c) share these. */
int atom_reduce_op(const Insn *in) {
  AtomOp op;
  return op_of(in, &op) ? (int)op : -1;
}

uint64_t atom_reduce_value(int op, Type t, bool ftz, uint64_t r, uint64_t s) {
  AtomInsn a = {.op = (AtomOp)op, .type = t, .sg = type_kind(t) == K_S,
                .size = (uint8_t)type_size(t), .ftz = ftz};
  return apply(&a, r, s, 0);
}
