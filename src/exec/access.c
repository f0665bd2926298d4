/* access.c: mem_ptr, the one door from a PTX address to host memory
 * (exec.h, mem.h "Generic address map").
 *
 * A state-space address is checked against what that space holds: global
 * and .const addresses against the live allocations of the device arena,
 * .shared offsets against the shared size of the CTA their rank bits name
 * (mem.h: the executing CTA, or another CTA of its cluster), .local offsets against the
 * thread's local size, kernel .param offsets against the parameter buffer. A
 * generic address is first mapped through its window. Every access must be
 * naturally aligned (PTX ISA 9.0 §5.4.5: "all addresses ... must be
 * naturally aligned to a multiple of the access size"). A bad access becomes
 * a fault whose message names the instruction, the state space, the access
 * size and the address; the interpreter appends location, kernel and thread. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "interp.h"
#include "../mem/mem.h"

static void *fault_as(Warp *w, const XInsn *x, int lane, FaultKind kind, const char *space, uint64_t addr,
                      uint32_t size, const char *why) {
  char t[128];
  exec_fault_kind(w, x, lane, kind, "%s: %u-byte %s access at 0x%" PRIx64 " %s",
                  x && x->src ? insn_text(x->src, t, sizeof t) : "access", size, space, addr, why);
  return NULL;
}

/* An address its state space does not hold (or may not be written there). */
static void *fault(Warp *w, const XInsn *x, int lane, const char *space, uint64_t addr,
                   uint32_t size, const char *why) {
  return fault_as(w, x, lane, FAULT_ADDRESS, space, addr, size, why);
}

static void *global_ptr(Warp *w, const XInsn *x, int lane, const char *space, uint64_t addr,
                        uint32_t size, bool write) {
  Device *d = w->launch->dev;
  void *p = write ? dev_host_w(d, addr, size) : dev_host(d, addr, size);
  if (p) return p;
  uint64_t start, asize;
  bool readonly;
  if (!dev_find(d, addr, &start, &asize, &readonly))
    return fault(w, x, lane, space, addr, size, "is outside every allocation");
  p = dev_host_padded(d, addr, size, write);
  if (p) {   /* past the requested size, inside the padding (ptxvm_set_alloc_padding) */
    if (exec_checking(w)) {   /* no address in the text: an instruction reports once per buffer */
      char t[128];
      exec_report(w, x, lane, "%s: %u-byte %s accesses run past the end of the %" PRIu64
                  "-byte allocation at 0x%" PRIx64 " into its padding (a GPU does not fault there)",
                  x && x->src ? insn_text(x->src, t, sizeof t) : "access", size, space, asize, start);
    }
    return p;
  }
  char why[160];
  if (write && readonly && dev_host(d, addr, size))
    snprintf(why, sizeof why, "writes the .const variable at 0x%" PRIx64 " (constant memory is read-only)",
             start);
  else
    snprintf(why, sizeof why, "runs past the end of the %" PRIu64 "-byte allocation at 0x%" PRIx64,
             asize, start);
  return fault(w, x, lane, space, addr, size, why);
}

/* An offset into a window of `limit` bytes at host pointer `base`. */
static void *window_ptr(Warp *w, const XInsn *x, int lane, const char *space, uint64_t shown,
                        uint64_t off, uint32_t size, uint8_t *base, uint64_t limit) {
  if (!base || off > limit || limit - off < size) {
    char why[96];
    snprintf(why, sizeof why, "is outside the %" PRIu64 " bytes of %s memory", limit, space);
    return fault(w, x, lane, space, shown, size, why);
  }
  return base + off;
}

/* Whether x reaches shared memory as .shared::cluster: by naming that state
 * space, or generically (the generic window holds every CTA's). .shared and
 * .shared::cta name the executing CTA only (PTX ISA 9.0, ld: ".shared" with
 * no sub-qualifier is ::cta), so a mapa'd address of another CTA is
 * undefined there: reported, never taken to the peer. */
static bool cluster_space(const XInsn *x, bool generic) {
  return generic || !x || !x->src || insn_has_mod(x->src, ".shared::cluster");
}

/* A shared (::cta or ::cluster) offset: the rank bits (mem.h) name the CTA
 * of the cluster, zero the executing one. */
static void *shared_ptr(Warp *w, const XInsn *x, int lane, uint64_t shown, uint64_t off,
                        uint32_t size, bool generic) {
  Cta *c = w->cta;
  uint64_t hi = off >> SHARED_RANK_SHIFT;
  if (hi && c && off < WINDOW_SIZE) {
    Cluster *cl = c->cluster;
    int n = cl ? cl->ncta : 1;
    char why[160];
    if (!cluster_space(x, generic)) {
      snprintf(why, sizeof why, "is a .shared::cluster address (of CTA rank %" PRIu64 "), but "
               "the instruction's state space is .shared::cta, the executing CTA's only", hi - 1);
      return fault(w, x, lane, "shared", shown, size, why);
    }
    if (hi > (uint64_t)n) {
      snprintf(why, sizeof why, "names CTA rank %" PRIu64 ", which is not in the cluster "
               "(%%cluster_nctarank %d)", hi - 1, n);
      return fault(w, x, lane, "shared::cluster", shown, size, why);
    }
    Cta *t = cl ? &cl->ctas[hi - 1] : c;
    if (t->exited) {
      snprintf(why, sizeof why, "is in the shared memory of CTA rank %" PRIu64 " of the cluster, "
               "which has exited", hi - 1);
      return fault(w, x, lane, "shared::cluster", shown, size, why);
    }
    c = t;
    off &= SHARED_OFFSET_MASK;
  }
  return window_ptr(w, x, lane, "shared", shown, off, size, c ? c->shared : NULL,
                    c ? c->shared_size : 0);
}

static void *local_ptr(Warp *w, const XInsn *x, int lane, uint64_t shown, uint64_t off,
                       uint32_t size) {
  uint8_t *base = w->local ? w->local + (size_t)lane * w->local_size : NULL;
  return window_ptr(w, x, lane, "local", shown, off, size, base, w->local_size);
}

static void *param_ptr(Warp *w, const XInsn *x, int lane, uint64_t shown, uint64_t off,
                       uint32_t size, bool write) {
  if (write) return fault(w, x, lane, "param", shown, size, "writes a kernel parameter");
  const Launch *l = w->launch;
  return window_ptr(w, x, lane, "param", shown, off, size, (uint8_t *)(uintptr_t)l->params,
                    l->param_size);
}

static bool in_window(uint64_t addr, uint64_t base) { return addr - base < WINDOW_SIZE; }

static void *generic_ptr(Warp *w, const XInsn *x, int lane, uint64_t addr, uint32_t size,
                         bool write) {
  if (in_window(addr, SHARED_WINDOW)) return shared_ptr(w, x, lane, addr, addr - SHARED_WINDOW, size, true);
  if (in_window(addr, LOCAL_WINDOW)) return local_ptr(w, x, lane, addr, addr - LOCAL_WINDOW, size);
  if (in_window(addr, PARAM_WINDOW))
    return param_ptr(w, x, lane, addr, addr - PARAM_WINDOW, size, write);
  return global_ptr(w, x, lane, "generic", addr, size, write);
}

/* mem_ptr past its fast path: the checks space by space, and the faults. */
static __attribute__((noinline)) void *mem_ptr_checked(Warp *w, const XInsn *x, int lane, Space sp,
                                                      uint64_t addr, uint32_t size, uint32_t align,
                                                      bool write) {
  if (align > 1 && (addr & (align - 1))) {
    char why[64];
    snprintf(why, sizeof why, "is misaligned (needs %u-byte alignment)", align);
    const char *name = sp == SP_NONE || sp == SP_GENERIC ? "generic" : space_name(sp);
    return fault_as(w, x, lane, FAULT_MISALIGNED, name, addr, size, why);
  }
  switch (sp) {
  case SP_GLOBAL: return global_ptr(w, x, lane, "global", addr, size, write);
  case SP_CONST: return write ? fault(w, x, lane, "const", addr, size, "writes constant memory")
                              : global_ptr(w, x, lane, "const", addr, size, false);
  case SP_SHARED: return shared_ptr(w, x, lane, addr, addr, size, false);
  case SP_LOCAL: return local_ptr(w, x, lane, addr, addr, size);
  case SP_PARAM:
    /* .func parameters live in the thread's frame, addressed generically. */
    if (in_window(addr, LOCAL_WINDOW)) return local_ptr(w, x, lane, addr, addr - LOCAL_WINDOW, size);
    return param_ptr(w, x, lane, addr, addr, size, write);
  case SP_NONE:
  case SP_GENERIC: return generic_ptr(w, x, lane, addr, size, write);
  default: return fault(w, x, lane, space_name(sp), addr, size, "is in an unsupported state space");
  }
}

/* The executing CTA's shared bytes [lo, hi) (offsets without rank bits). */
static void *shared_span(const Warp *w, uint64_t lo, uint64_t hi) {
  const Cta *c = w->cta;
  return c && c->shared && hi <= c->shared_size ? c->shared + lo : NULL;
}

/* mem_span; static so that mem_ptr inlines it (-fPIC keeps exported
   functions from being inlined). */
static inline __attribute__((always_inline)) void *span_of(Warp *w, Space sp, uint64_t lo, uint64_t hi,
                                                          bool write) {
  if (hi < lo) return NULL;
  switch (sp) {
  case SP_GLOBAL: return write ? dev_host_w(w->launch->dev, lo, hi - lo) : dev_host(w->launch->dev, lo, hi - lo);
  case SP_CONST: return write ? NULL : dev_host(w->launch->dev, lo, hi - lo);
  case SP_SHARED: return shared_span(w, lo, hi);
  case SP_PARAM:
    return !write && hi <= w->launch->param_size ? (uint8_t *)(uintptr_t)w->launch->params + lo : NULL;
  case SP_NONE:
  case SP_GENERIC:
    if (in_window(lo, SHARED_WINDOW) && in_window(hi, SHARED_WINDOW))
      return shared_span(w, lo - SHARED_WINDOW, hi - SHARED_WINDOW);
    if (!mem_in_window(lo))
      return write ? dev_host_w(w->launch->dev, lo, hi - lo) : dev_host(w->launch->dev, lo, hi - lo);
    return NULL;
  default: return NULL;
  }
}

void *mem_ptr(Warp *w, const XInsn *x, int lane, Space sp, uint64_t addr, uint32_t size,
              uint32_t align, bool write) {
  void *p = align <= 1 || !(addr & (align - 1)) ? span_of(w, sp, addr, addr + size, write) : NULL;
  return p ? p : mem_ptr_checked(w, x, lane, sp, addr, size, align, write);
}

void *mem_span(Warp *w, Space sp, uint64_t lo, uint64_t hi, bool write) {
  return span_of(w, sp, lo, hi, write);
}

void mem_observe(Warp *w, const XInsn *x, int lane, Space sp, uint64_t addr, const void *host,
                 uint32_t size, AccessKind kind, bool strong) {
  const MemObserver *o = w->observer;
  MemAccess a = {w, lane, x, kind, strong, (uint8_t)sp, addr, host, size, 0, 0};
  o->fn(o->ctx, &a);
}

void mem_observe_landing(Warp *w, const XInsn *x, int lane, const void *dst, uint32_t size,
                         uint8_t async, uint32_t seq, bool atomic) {
  const MemObserver *o = w->observer;
  MemAccess a = {w, lane, x, ACC_ASYNC_WR, atomic, SP_NONE, 0, dst, size, async, seq};
  o->fn(o->ctx, &a);
}

void mem_observe_span(Warp *w, const XInsn *x, uint32_t mask, Space sp, const uint64_t *addr,
                      const void *const *host, uintptr_t lo, uintptr_t hi, uint32_t size, AccessKind kind,
                      bool strong) {
  const MemObserver *o = w->observer;
  if (!o->lanes) {
    for (uint32_t r = mask; r; r &= r - 1) {
      int l = __builtin_ctz(r);
      mem_observe(w, x, l, sp, addr[l], host[l], size, kind, strong);
    }
    return;
  }
  MemLanes a = {w, x, mask, kind, strong, (uint8_t)sp, size, addr, host, lo, hi};
  o->lanes(o->ctx, &a);
}

LANE_CLONES void mem_observe_lanes(Warp *w, const XInsn *x, uint32_t mask, Space sp, const uint64_t *addr,
                       uint32_t size, AccessKind kind, bool strong) {
  bool write = kind == ACC_ST || kind == ACC_ATOM || kind == ACC_ASYNC_WR;
  const MemObserver *o = w->observer;
  if (!o->lanes) {
    for (uint32_t r = mask; r; r &= r - 1) {
      int l = __builtin_ctz(r);
      const void *p = mem_ptr(w, x, l, sp, addr[l], size, size, write);
      if (p) mem_observe(w, x, l, sp, addr[l], p, size, kind, strong);
    }
    return;
  }
  /* one span for the warp when its lanes lie in one place (the common
     case), else lane by lane */
  const void *host[WARP_SIZE];
  uint64_t lo = UINT64_MAX, hi = 0;
  if (mask == 0xffffffffu) {   /* a full warp: the same, in loops that vectorize */
    for (int l = 0; l < WARP_SIZE; l++) {
      lo = addr[l] < lo ? addr[l] : lo;
      hi = addr[l] > hi ? addr[l] : hi;
    }
    uint8_t *base = hi + size > hi ? span_of(w, sp, lo, hi + size, write) : NULL;
    if (base) {
      for (int l = 0; l < WARP_SIZE; l++) host[l] = base + (addr[l] - lo);
      MemLanes a = {w, x, mask, kind, strong, (uint8_t)sp, size, addr, host,
                    (uintptr_t)base, (uintptr_t)base + (hi - lo) + size};
      o->lanes(o->ctx, &a);
      return;
    }
  }
  for (uint32_t r = mask; r; r &= r - 1) {
    int l = __builtin_ctz(r);
    if (addr[l] < lo) lo = addr[l];
    if (addr[l] > hi) hi = addr[l];
  }
  uint8_t *base = mask && hi + size > hi ? span_of(w, sp, lo, hi + size, write) : NULL;
  uint32_t got = 0;
  for (uint32_t r = mask; r; r &= r - 1) {
    int l = __builtin_ctz(r);
    host[l] = base ? base + (addr[l] - lo) : mem_ptr(w, x, l, sp, addr[l], size, size, write);
    if (host[l]) got |= 1u << l;
  }
  MemLanes a = {w, x, got, kind, strong, (uint8_t)sp, size, addr, host,
                base ? (uintptr_t)base : 0, base ? (uintptr_t)base + (hi - lo) + size : 0};
  if (got) o->lanes(o->ctx, &a);
}
