/* interp.c: the warp interpreter and the CTA loop (DESIGN.md "Execution
 * model", "Independent thread scheduling"; exec.h).
 *
 * Each lane has its own pc, call depth and stack of return frames. Which
 * lanes run next is the lane-group policy of lanes.c (lowest first, passing
 * a spinning group, held at an aligned barrier, perturbed by --schedule;
 * lanes.h states the rules): before each instruction warp_run asks
 * lanes_must_pick and lanes_give_way, runs the group's XInsn with mask =
 * group ∩ guard (lanes of the group whose guard is false just advance), and
 * `after` moves the lanes as the handler's status says.
 *
 * Fast path: the group's pc is kept in a register (Lanes.gpc) and only
 * written back to the lanes when the group changes; while no other group of
 * the warp could run (converged) or the next pc stays below every other
 * group's pc (Lanes.limit), no group is recomputed.
 *
 * Calls: a call pushes {return pc, caller, frame and stack pointer} on each
 * lane's stack, pushes the callee's frame on the lane's local stack (frame
 * pointer = the stack pointer aligned to 16, stack pointer += frame size; a
 * stack that would pass the thread's local memory is a located "local stack
 * overflow" fault) and copies the .param arguments into it; ret copies the
 * return values back and pops both. Registers are per function (program.h, lower.h),
 * so when a lane enters a function it is already in (recursion), the
 * callee's register region is saved for that lane on the warp's save stack
 * and restored when it returns; frames need no saving.
 *
 * The CTA loop runs warps round-robin, QUANTUM instructions each. A lane that
 * returns XS_WAIT blocks until interp_release; when no warp can run, the
 * simple CTA barrier is polled (threads may have exited), and if nothing is
 * released the CTA is deadlocked: every blocked warp is reported with the
 * instruction it waits at. A step watchdog reports runaway loops.
 *
 * A cluster is resumable (cluster_resume): its loop returns after a budget
 * of warp-instructions, with what it needs to go on kept in the Cluster, so
 * that the launcher (src/sched/launch.c) can run other clusters meanwhile
 * and a CTA spinning on a flag that a later CTA sets does not starve it. */
#include "program.h"
#include "../sync/bar.h"
#include "warpsync.h"
#include "race.h"
#include "spin.h"
#include "lanes.h"
#include "trace.h"
#include "../util/check.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PTXVM_STRESS
enum { QUANTUM = 1 };      /* check.h: a turn is one instruction */
#else
enum { QUANTUM = 4096 };
#endif
#define DEFAULT_MAX_STEPS (1ull << 28)

typedef struct Frame { uint32_t ret_pc, func, fp, sp; } Frame;   /* fp, sp: the caller's */

typedef struct Save {
  uint32_t func, lanes, depth;      /* depth of the callee activation */
  uint32_t *r32, *pred;
  uint64_t *r64;
} Save;

typedef struct WState {
  Lanes ln;                         /* pcs, depths and the lane-group policy (lanes.h) */
  uint32_t func[WARP_SIZE];
  Frame *stack[WARP_SIZE];
  uint32_t cap[WARP_SIZE];
  uint32_t jumped;                  /* lanes moved by interp_jump */
  uint32_t cur_mask;                /* lanes executing the current insn */
  uint64_t sleep;                   /* nanosleep, virtual ns */
  void *wsync;                      /* warp-level rendezvous (src/exec/warpsync.c) */
  Save *saves; int nsaves, capsaves;
  uint64_t wi[FAM_COUNT], ti[FAM_COUNT];   /* instrumentation (LaunchStats) */
  uint64_t splits;
  uint64_t fx;                      /* effects issued (spin.c) */
  uint64_t probe_at;                /* steps from which a backward branch probes
                                       for a spin (UINT64_MAX: none) */
  void *spin;                       /* the spin detector's (spin_probe) */
} WState;

static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- errors ---- */

static _Thread_local uint64_t cur_cluster;

void launch_set_current(uint64_t cluster_index) { cur_cluster = cluster_index; }
uint64_t launch_current(void) { return cur_cluster; }

/* ---- instrumentation ---- */

static _Thread_local LaunchStats *cur_stats;   /* the running cluster's */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

void exec_count(ExecEvent e) { if (cur_stats) cur_stats->events[e]++; }

/* A fault of this cluster or of one before it (interp.h launch_set_current). */
static bool launch_failed(Launch *l) {
  pthread_mutex_lock(&error_lock);
  bool f = (l->error != NULL && l->error_cluster <= cur_cluster) || l->halted;
  pthread_mutex_unlock(&error_lock);
  return f;
}

/* Keeps msg (and a failed assertion's GPU lines) when it is the launch's
 * first fault in cluster order; frees what is not kept. */
static void set_error_with(Launch *l, char *msg, bool deadlock, FaultKind kind, char *assertion) {
  pthread_mutex_lock(&error_lock);
  if (!l->error || cur_cluster < l->error_cluster) {
    char *old = l->error, *old_assertion = l->assertion;
    l->error = msg; l->deadlock = deadlock; l->error_cluster = cur_cluster; msg = old;
    l->fault_kind = (int)kind;
    l->assertion = assertion; assertion = old_assertion;
  }
  pthread_mutex_unlock(&error_lock);
  free(msg);
  free(assertion);
}

static void set_error_kind(Launch *l, char *msg, bool deadlock, FaultKind kind) {
  set_error_with(l, msg, deadlock, kind, NULL);
}

static void set_error(Launch *l, char *msg, bool deadlock) { set_error_kind(l, msg, deadlock, FAULT_OTHER); }

static int lowest_lane(uint32_t m) {
  for (int l = 0; l < WARP_SIZE; l++) if (m >> l & 1) return l;
  return 0;
}

static XStatus vfault(Warp *w, const XInsn *x, int lane, FaultKind kind, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static XStatus vfault(Warp *w, const XInsn *x, int lane, FaultKind kind, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  WState *s = w->interp;
  if (lane < 0) lane = lowest_lane(s ? s->cur_mask : w->valid);
  char *out = exec_located(w, x, lane, msg);
  if (!out) return XS_TRAP;
  set_error_kind(w->launch, out, false, kind);
  return XS_TRAP;
}

XStatus exec_fault(Warp *w, const XInsn *x, int lane, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  XStatus st = vfault(w, x, lane, FAULT_OTHER, fmt, ap);
  va_end(ap);
  return st;
}

XStatus exec_assert_fault(Warp *w, const XInsn *x, int lane, char *gpu_lines, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char *out = exec_located(w, x, lane, msg);
  if (!out) {
    free(gpu_lines);
    return XS_TRAP;
  }
  set_error_with(w->launch, out, false, FAULT_ASSERT, gpu_lines);
  return XS_TRAP;
}

XStatus exec_fault_kind(Warp *w, const XInsn *x, int lane, FaultKind kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  XStatus st = vfault(w, x, lane, kind, fmt, ap);
  va_end(ap);
  return st;
}

/* ---- services for handlers (program.h) ---- */

uint64_t interp_clock(const Warp *w) { return w->steps + ((const WState *)w->interp)->sleep; }
void interp_sleep(Warp *w, uint64_t ns) { ((WState *)w->interp)->sleep += ns; }

void interp_jump(Warp *w, int lane, uint32_t pc) {
  WState *s = w->interp;
  s->ln.pc[lane] = pc;
  s->jumped |= 1u << lane;
}

void interp_release(Warp *w, uint32_t lanes) {
  WState *s = w->interp;
  lanes &= s->ln.waiting;
  if (lanes == UINT32_MAX) FOR_LANES(l) s->ln.pc[l]++;   /* a whole warp: a loop that vectorises */
  else for (uint32_t r = lanes; r; r &= r - 1) s->ln.pc[__builtin_ctz(r)]++;   /* often one lane */
  s->ln.waiting &= ~lanes;
  lanes_regroup(&s->ln);
  if (w->launch && w->launch->trace) trace_release(w);
}

void **interp_wsync(Warp *w) { return &((WState *)w->interp)->wsync; }

uint64_t interp_effects(const Warp *w) { return ((const WState *)w->interp)->fx; }
void **interp_spin(Warp *w) { return &((WState *)w->interp)->spin; }
void interp_probe(Warp *w, bool on) { ((WState *)w->interp)->probe_at = on ? 0 : UINT64_MAX; }

uint32_t interp_waiting(const Warp *w) { return ((const WState *)w->interp)->ln.waiting; }

uint32_t interp_pc(const Warp *w, int lane) {
  const WState *s = w->interp;
  return s->ln.state != LG_NONE && (s->ln.gmask >> lane & 1) ? s->ln.gpc : s->ln.pc[lane];
}

/* ---- calls ---- */

static uint8_t *lane_local(Warp *w, int l) { return w->local + (size_t)l * w->local_size; }
/* Lane l's current frame in its local memory. */
static uint8_t *lane_frame(Warp *w, int l) {
  return lane_local(w, l) + R32(w, w->launch->prog->fp_slot)[l];
}

/* A vector register (o->n > 1) is its elements in consecutive slots, laid
 * out one after the other in the argument bytes, .x first. */
static void opd_read(Warp *w, const CallOpd *o, int l, uint8_t *dst) {
  uint32_t n = o->n > 1 ? o->n : 1, es = o->size / n;
  if (o->kind == CO_MEM) { memcpy(dst, lane_frame(w, l) + o->where, o->size); return; }
  if (o->kind == CO_PRED) { dst[0] = (uint8_t)(w->pred[o->where] >> l & 1); return; }
  for (uint32_t e = 0; e < n; e++, dst += es) {
    if (o->kind == CO_R32) { uint32_t v = R32(w, o->where + e)[l]; memcpy(dst, &v, es < 4 ? es : 4); }
    else { uint64_t v = R64(w, o->where + e)[l]; memcpy(dst, &v, es < 8 ? es : 8); }
  }
}

static void opd_write(Warp *w, const CallOpd *o, int l, const uint8_t *src) {
  uint32_t n = o->n > 1 ? o->n : 1, es = o->size / n;
  if (o->kind == CO_MEM) { memcpy(lane_frame(w, l) + o->where, src, o->size); return; }
  if (o->kind == CO_PRED) {
    pred_put(w, o->where, l, src[0] & 1);
    return;
  }
  for (uint32_t e = 0; e < n; e++, src += es) {
    if (o->kind == CO_R32) { uint32_t v = 0; memcpy(&v, src, es < 4 ? es : 4); R32(w, o->where + e)[l] = v; }
    else { uint64_t v = 0; memcpy(&v, src, es < 8 ? es : 8); R64(w, o->where + e)[l] = v; }
  }
}

static bool on_stack(const WState *s, int l, uint32_t f) {
  if (s->func[l] == f) return true;
  for (uint32_t d = 0; d < s->ln.depth[l]; d++) if (s->stack[l][d].func == f) return true;
  return false;
}

static void push_save(Warp *w, WState *s, const FuncInfo *fi, uint32_t f, uint32_t lanes,
                      uint32_t depth) {
  if (s->nsaves == s->capsaves) {
    s->capsaves = s->capsaves ? 2 * s->capsaves : 8;
    s->saves = realloc(s->saves, (size_t)s->capsaves * sizeof *s->saves);
  }
  Save *sv = &s->saves[s->nsaves++];
  sv->func = f; sv->lanes = lanes; sv->depth = depth;
  sv->r32 = malloc((size_t)fi->n32 * WARP_SIZE * 4 + 1);
  sv->r64 = malloc((size_t)fi->n64 * WARP_SIZE * 8 + 1);
  sv->pred = malloc((size_t)fi->np * 4 + 1);
  memcpy(sv->r32, R32(w, fi->r32), (size_t)fi->n32 * WARP_SIZE * 4);
  memcpy(sv->r64, R64(w, fi->r64), (size_t)fi->n64 * WARP_SIZE * 8);
  memcpy(sv->pred, w->pred + fi->p0, (size_t)fi->np * 4);
}

static void free_save(Save *sv) { free(sv->r32); free(sv->r64); free(sv->pred); }

/* Restores lane l's registers of the activation it leaves. */
static void pop_save(Warp *w, WState *s, const FuncInfo *fi, int l, uint32_t depth) {
  for (int i = s->nsaves - 1; i >= 0; i--) {
    Save *sv = &s->saves[i];
    if (!(sv->lanes >> l & 1) || sv->depth != depth) continue;
    for (uint32_t k = 0; k < fi->n32; k++) R32(w, fi->r32 + k)[l] = sv->r32[k * WARP_SIZE + (uint32_t)l];
    for (uint32_t k = 0; k < fi->n64; k++) R64(w, fi->r64 + k)[l] = sv->r64[k * WARP_SIZE + (uint32_t)l];
    for (uint32_t k = 0; k < fi->np; k++)
      w->pred[fi->p0 + k] = (w->pred[fi->p0 + k] & ~(1u << l)) | (sv->pred[k] & (1u << l));
    sv->lanes &= ~(1u << l);
    break;
  }
  while (s->nsaves && !s->saves[s->nsaves - 1].lanes) free_save(&s->saves[--s->nsaves]);
}

static bool push_frame(WState *s, int l, Frame f) {
  if (s->ln.depth[l] == s->cap[l]) {
    uint32_t nc = s->cap[l] ? 2 * s->cap[l] : 8;
    Frame *ns = realloc(s->stack[l], nc * sizeof *ns);
    if (!ns) return false;
    s->stack[l] = ns;
    s->cap[l] = nc;
  }
  s->stack[l][s->ln.depth[l]++] = f;
  return true;
}

enum { MAX_DEPTH = 1u << 16, ARGBUF = 4096 };

/* The callee of lane l: direct, or through a function-address register. */
static int callee_of(Warp *w, const XInsn *x, const CallInfo *ci, int l) {
  if (ci->func >= 0) return ci->func;
  uint64_t a = ci->fslot32 ? R32(w, ci->fslot)[l] : R64(w, ci->fslot)[l];
  const Program *p = w->launch->prog;
  if (a < FUNC_ADDR_BASE || a - FUNC_ADDR_BASE >= (uint64_t)p->nfuncs ||
      !p->funcs[a - FUNC_ADDR_BASE].f->has_body) {
    exec_fault(w, x, l, "call: 0x%llx is not the address of a function with a body",
               (unsigned long long)a);
    return -1;
  }
  if (!p->funcs[a - FUNC_ADDR_BASE].lowered) {   /* lowered are the kernel's reach (program_lower) */
    exec_fault(w, x, l, "call: 0x%llx is the address of '%s', which the module never takes",
               (unsigned long long)a, p->funcs[a - FUNC_ADDR_BASE].f->name);
    return -1;
  }
  return (int)(a - FUNC_ADDR_BASE);
}

/* Copies the call's arguments of lane l into a byte buffer. */
static bool gather(Warp *w, const CallOpd *o, int n, int l, uint8_t *buf, uint32_t *offs) {
  uint32_t at = 0;
  for (int k = 0; k < n; k++) {
    if (at + o[k].size > ARGBUF) return false;
    offs[k] = at;
    opd_read(w, &o[k], l, buf + at);
    at += o[k].size;
  }
  return true;
}

static bool call_lane(Warp *w, WState *s, const XInsn *x, uint32_t pc, int l) {
  const Program *p = w->launch->prog;
  const CallInfo *ci = x->aux;
  int f = callee_of(w, x, ci, l);
  if (f < 0) return false;
  const FuncInfo *fi = &p->funcs[f];
  uint8_t buf[ARGBUF];
  uint32_t offs[256];
  if (ci->nargs > 256 || !gather(w, ci->args, ci->nargs, l, buf, offs)) {
    exec_fault(w, x, l, "call: arguments too large");
    return false;
  }
  /* the callee's frame on the lane's local stack */
  uint32_t *fp = R32(w, p->fp_slot), *sp = R32(w, p->sp_slot);
  uint64_t nfp = ((uint64_t)sp[l] + 15) & ~15ull, nsp = nfp + ((fi->frame_size + 15u) & ~15u);
  if (nsp > w->local_size) {
    exec_fault_kind(w, x, l, FAULT_ADDRESS, "local stack overflow: the call to '%s' (depth %u) needs %llu bytes of "
               "local memory per thread, there are %u bytes", fi->f->name, s->ln.depth[l] + 1,
               (unsigned long long)nsp, w->local_size);
    return false;
  }
  /* entering a function the lane is already in: save that activation */
  if (on_stack(s, l, (uint32_t)f)) push_save(w, s, fi, (uint32_t)f, 1u << l, s->ln.depth[l] + 1);
  if (s->ln.depth[l] >= MAX_DEPTH || !push_frame(s, l, (Frame){pc + 1, s->func[l], fp[l], sp[l]})) {
    exec_fault(w, x, l, "call: call stack overflow (%u frames)", s->ln.depth[l]);
    return false;
  }
  fp[l] = (uint32_t)nfp;
  sp[l] = (uint32_t)nsp;
  uint8_t *frame = lane_local(w, l) + nfp;
  memset(frame, 0, fi->frame_size);
  for (int k = 0; k < ci->nargs && k < fi->f->nparams; k++) {
    uint8_t tmp[ARGBUF];   /* the argument, zero-extended to the formal's size */
    uint32_t sz = fi->formals[k].size;
    memset(tmp, 0, sz);
    memcpy(tmp, buf + offs[k], ci->args[k].size < sz ? ci->args[k].size : sz);
    opd_write(w, &fi->formals[k], l, tmp);
  }
  s->func[l] = (uint32_t)f;
  s->ln.pc[l] = fi->pc;
  return true;
}

static bool ret_lane(Warp *w, WState *s, int l) {
  const Program *p = w->launch->prog;
  if (s->ln.depth[l] == 0) { w->exited |= 1u << l; return true; }   /* ret from the kernel */
  const FuncInfo *fi = &p->funcs[s->func[l]];
  uint8_t buf[ARGBUF];
  uint32_t at = 0, offs[256];
  for (int k = 0; k < fi->f->nrets && k < 256; k++) {
    uint32_t sz = fi->formal_rets[k].size;
    if (at + sz > ARGBUF) break;
    offs[k] = at;
    opd_read(w, &fi->formal_rets[k], l, buf + at);
    at += sz;
  }
  uint32_t depth = s->ln.depth[l];
  Frame fr = s->stack[l][--s->ln.depth[l]];
  if (s->nsaves) pop_save(w, s, fi, l, depth);
  R32(w, p->fp_slot)[l] = fr.fp;   /* pop the callee's frame */
  R32(w, p->sp_slot)[l] = fr.sp;
  const CallInfo *ci = p->code[fr.ret_pc - 1].aux;
  for (int k = 0; ci && k < ci->nrets && k < fi->f->nrets; k++) {
    uint8_t tmp[ARGBUF];
    uint32_t sz = fi->formal_rets[k].size;
    memset(tmp, 0, ci->rets[k].size);
    memcpy(tmp, buf + offs[k], sz < ci->rets[k].size ? sz : ci->rets[k].size);
    opd_write(w, &ci->rets[k], l, tmp);
  }
  s->func[l] = fr.func;
  s->ln.pc[l] = fr.ret_pc;
  return true;
}

/* ---- one step ---- */

/* The spin detector's probe (spin.c) at a backward branch the whole group
 * took: the warp's other runnable lanes, if any, must be held at an
 * aligned barrier (lanes.c), where they stay while the group spins. */
static void probe(Warp *w, WState *s, uint32_t edge) {
  uint32_t others = warp_live(w) & ~s->ln.waiting & ~s->ln.gmask;
  s->probe_at = w->steps + 1024;   /* a probe compares the warp's registers: not too often */
  if (others && lanes_at_aligned_barrier(&s->ln, w, others) != others) return;
  SpinLanes ln;
  memcpy(ln.pc, s->ln.pc, sizeof ln.pc);
  for (uint32_t g = s->ln.gmask; g; g &= g - 1) ln.pc[__builtin_ctz(g)] = s->ln.gpc;
  memcpy(ln.depth, s->ln.depth, sizeof ln.depth);
  memcpy(ln.func, s->func, sizeof ln.func);
  ln.group = s->ln.gmask;
  ln.waiting = s->ln.waiting;
  ln.exited = w->exited;
  ln.cc = w->cc;
  if (spin_probe(w, &s->spin, &ln, s->fx, edge)) s->probe_at = UINT64_MAX;
}

/* The lanes inside a call (depth > 0), whose ret returns to the caller. */
static uint32_t in_call(const WState *s) {
  int32_t t[WARP_SIZE];
  for (int l = 0; l < WARP_SIZE; l++) t[l] = -(int32_t)(s->ln.depth[l] != 0);
  return lanes_pack(t);
}

/* The group's lanes that did not execute (guard false) go on to next. */
static void step_rest(WState *s, uint32_t lanes, uint32_t next) {
  for (uint32_t r = lanes; r; r &= r - 1) s->ln.pc[__builtin_ctz(r)] = next;
}

/* Advances the group after a handler; returns false to stop the warp. */
static bool after(Warp *w, WState *s, const XInsn *x, XStatus st, uint32_t exec) {
  uint32_t pc = s->ln.gpc, g = s->ln.gmask;
  switch (st) {
  case XS_NEXT:
    if (s->jumped) {   /* brx.idx: the jumped lanes' pcs are set already */
      s->ln.state = LG_NONE;
      for (int l = 0; l < WARP_SIZE; l++)
        if ((g & ~s->jumped) >> l & 1) s->ln.pc[l] = pc + 1;
      s->jumped = 0;
      lanes_regroup(&s->ln);
      return true;
    }
    s->ln.gpc = pc + 1;
    if (s->ln.gpc >= s->ln.limit) lanes_regroup(&s->ln);
    return true;
  case XS_BRANCH: {
    uint32_t taken = w->taken & exec;
    if (taken == g) {                       /* uniform */
      s->ln.gpc = x->target;
      if (x->target <= pc) {
        if (w->steps >= s->probe_at) probe(w, s, pc);
        lanes_backward_branch(&s->ln, w);
      }
      if (s->ln.gpc >= s->ln.limit) lanes_regroup(&s->ln);
      return true;
    }
    lanes_flush(&s->ln);
    if (taken) s->splits++;
    for (int l = 0; l < WARP_SIZE; l++)
      if (g >> l & 1) s->ln.pc[l] = (taken >> l & 1) ? x->target : pc + 1;
    lanes_regroup(&s->ln);
    return true;
  }
  case XS_WAIT:
    lanes_flush(&s->ln);
    step_rest(s, g & ~exec, pc + 1);
    s->ln.waiting |= exec;
    lanes_regroup(&s->ln);
    if (s->wsync) warpsync_poll(w);   /* a warp collective may be complete */
    return true;
  case XS_EXIT:
    lanes_flush(&s->ln);
    step_rest(s, g & ~exec, pc + 1);
    w->exited |= exec;
    lanes_regroup(&s->ln);
    if (s->wsync) warpsync_poll(w);   /* exited lanes no longer hold one back */
    return true;
  case XS_CALL:
  case XS_RET:
    lanes_flush(&s->ln);
    if (st == XS_RET && !(exec & in_call(s))) {   /* ret from the kernel: the lanes exit */
      step_rest(s, g & ~exec, pc + 1);
      w->exited |= exec;
      lanes_regroup(&s->ln);
      if (s->wsync) warpsync_poll(w);
      return true;
    }
    for (int l = 0; l < WARP_SIZE; l++) {
      if (!(g >> l & 1)) continue;
      if (!(exec >> l & 1)) { s->ln.pc[l] = pc + 1; continue; }
      if (st == XS_CALL ? !call_lane(w, s, x, pc, l) : !ret_lane(w, s, l)) return false;
    }
    lanes_regroup(&s->ln);
    if (s->wsync) warpsync_poll(w);   /* ret from the kernel exits lanes */
    return true;
  case XS_TRAP:
  default:
    return false;
  }
}

/* Runs up to `quantum` instructions of w. Returns how many ran; *stop is set
 * on a fault. */
static uint64_t warp_run(Warp *w, uint64_t quantum, bool *stop) {
  WState *s = w->interp;
  const XInsn *code = w->launch->prog->code;
  uint64_t n = 0;
  for (; n < quantum; n++) {
    if (lanes_must_pick(&s->ln, w, code) && !lanes_pick(&s->ln, w, 0)) break;
    if (lanes_give_way(&s->ln, w, code) && !lanes_yield(&s->ln, w)) break;
    const XInsn *x = &code[s->ln.gpc];
    uint32_t exec = s->ln.gmask;
    if (x->guard >= 0) {
      uint32_t g = w->pred[x->guard];
      exec &= x->guard_neg ? ~g : g;
    }
    s->cur_mask = exec;
    w->steps++;
    s->fx += x->fx;
    Family fam = (Family)x->fam;
    s->wi[fam]++;
    s->ti[fam] += exec == 0xffffffffu ? 32u : (uint64_t)__builtin_popcount(exec);   /* no popcnt in baseline x86-64 */
    XStatus st = exec ? x->fn(w, x, exec) : XS_NEXT;
    if (!after(w, s, x, st, exec)) { *stop = true; return n + 1; }
  }
  return n;
}

/* ---- warps and CTAs ---- */

/* A warp's state lies in one block of the CTA's (cta_alloc): its WState,
 * 64-bit, 32-bit and predicate registers and local memory, in that order,
 * each part a multiple of 16 bytes. */
static size_t part(size_t n) { return (n + 15) & ~(size_t)15; }
static size_t warp_block_size(const Program *p) {
  return part(sizeof(WState)) + part((size_t)p->n64 * WARP_SIZE * 8) + part((size_t)p->n32 * WARP_SIZE * 4) +
         part((size_t)p->npred * 4) + part((size_t)p->local_size * WARP_SIZE);
}

static void warp_init(Warp *w, Cta *c, int id, uint32_t nthreads, uint8_t *mem) {
  Launch *L = c->launch;
  const Program *p = L->prog;
  memset(w, 0, sizeof *w);
  w->id = id;
  w->cta = c;
  w->launch = L;
  w->observer = L ? L->observer : NULL;
  WState *s = (WState *)mem;
  memset(s, 0, sizeof *s);
  mem += part(sizeof *s);
  w->r64 = (uint64_t *)mem; mem += part((size_t)p->n64 * WARP_SIZE * 8);
  w->r32 = (uint32_t *)mem; mem += part((size_t)p->n32 * WARP_SIZE * 4);
  w->pred = (uint32_t *)mem; mem += part((size_t)p->npred * 4);
  w->local_size = p->local_size;
  w->local = mem;
  memset(w->local, 0, (size_t)p->local_size * WARP_SIZE);
  w->interp = s;
  memcpy(w->r32, p->init32, (size_t)p->n32 * WARP_SIZE * 4);
  memcpy(w->r64, p->init64, (size_t)p->n64 * WARP_SIZE * 8);
  memcpy(w->pred, p->initpred, (size_t)p->npred * 4);
  int k = program_func_index(p, L->kernel);
  const FuncInfo *kf = &p->funcs[k];
  const uint32_t *b = L->block;
  s->probe_at = UINT64_MAX;
  /* %tid of the first lane, then counted up (x fastest) without a division per lane */
  uint32_t t0 = (uint32_t)id * WARP_SIZE;
  uint32_t tx = t0 % b[0], ty = (t0 / b[0]) % b[1], tz = t0 / (b[0] * b[1]);
  w->valid = t0 >= nthreads ? 0 : nthreads - t0 >= WARP_SIZE ? 0xffffffffu : (1u << (nthreads - t0)) - 1;
  uint32_t sp = (kf->frame + kf->frame_size + 15u) & ~15u;
  if (tx + WARP_SIZE <= b[0])   /* the warp within one row: a loop that vectorises */
    for (int l = 0; l < WARP_SIZE; l++) {
      w->tid[0][l] = tx + (uint32_t)l;
      w->tid[1][l] = ty;
      w->tid[2][l] = tz;
    }
  else
    for (int l = 0; l < WARP_SIZE; l++) {
      w->tid[0][l] = tx;
      w->tid[1][l] = ty;
      w->tid[2][l] = tz;
      if (++tx == b[0]) { tx = 0; if (++ty == b[1]) { ty = 0; tz++; } }
    }
  for (int l = 0; l < WARP_SIZE; l++) {
    s->ln.pc[l] = kf->pc;
    s->func[l] = (uint32_t)k;
    R32(w, p->fp_slot)[l] = 0;   /* the kernel's frame is fixed; the stack follows it */
    R32(w, p->sp_slot)[l] = sp;
  }
}

static void warp_free(Warp *w) {
  WState *s = w->interp;
  if (s && cur_stats) {
    for (int f = 0; f < FAM_COUNT; f++) {
      cur_stats->warp_insns[f] += s->wi[f];
      cur_stats->thread_insns[f] += s->ti[f];
    }
    cur_stats->splits += s->splits;
    cur_stats->merges += s->ln.merges;
  }
  if (s) {
    for (int l = 0; l < WARP_SIZE; l++) if (s->stack[l]) free(s->stack[l]);   /* few lanes call */
    for (int i = 0; i < s->nsaves; i++) free_save(&s->saves[i]);
    warpsync_free(s->wsync);
    spin_free(s->spin);
    free(s->saves);
  }
  wgmma_free(w);   /* the rest lies in the CTA's block (warp_init) */
}

static bool warp_done(const Warp *w) { return warp_live(w) == 0; }

static uint32_t live_threads(const Cta *c) {
  uint32_t n = 0;
  for (int i = 0; i < c->nwarps; i++)
    n += (uint32_t)__builtin_popcount(warp_live(&c->warps[i]));
  return n;
}

/* Live and blocked threads of the cluster. */
static void count_threads(const Cluster *cl, uint32_t *live, uint32_t *waiting) {
  *live = *waiting = 0;
  for (int r = 0; r < cl->ncta; r++) {
    const Cta *c = &cl->ctas[r];
    *live += live_threads(c);
    for (int i = 0; i < c->nwarps; i++) *waiting += (uint32_t)__builtin_popcount(interp_waiting(&c->warps[i]));
  }
}

/* "CTA rank R %ctaid (x,y,z) " in a report on a cluster of several CTAs. */
static void cta_who(const Cluster *cl, const Cta *c, char *who, size_t n) {
  who[0] = 0;
  if (cl->ncta > 1)
    snprintf(who, n, "CTA rank %u %%ctaid (%u,%u,%u) ", c->rank, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
}

/* Appends to msg (len bytes used of cap) a line per blocked lane group of
 * the cluster and what it waits for; returns the new length. */
static size_t waiting_lines(Cluster *cl, char *msg, size_t len, size_t cap) {
  const Program *p = cl->launch->prog;
  for (int r = 0; r < cl->ncta; r++) {
    Cta *c = &cl->ctas[r];
    for (int i = 0; i < c->nwarps && len + 600 < cap; i++) {
      Warp *w = &c->warps[i];
      WState *s = w->interp;
      uint32_t left = s->ln.waiting;
      while (left && len + 600 < cap) {
        int l0 = lowest_lane(left);
        uint32_t m = 0;
        for (int l = 0; l < WARP_SIZE; l++)
          if ((left >> l & 1) && s->ln.pc[l] == s->ln.pc[l0]) m |= 1u << l;
        left &= ~m;
        const XInsn *x = &p->code[s->ln.pc[l0]];
        char loc[512], lanes[160];
        exec_where(p, x, loc, sizeof loc);
        lanes_text(m, lanes, sizeof lanes);
        char what[400];
        if (!warpsync_describe(w, l0, what, sizeof what) &&
            !(c->sync && bar_describe(c->sync, w->id, l0, what, sizeof what)) &&
            !cluster_bar_describe(c, w->id, l0, what, sizeof what))
          snprintf(what, sizeof what, "blocked");
        char nm[96], who[96];
        cta_who(cl, c, who, sizeof who);
        len += (size_t)snprintf(msg + len, cap - len, "\n  %swarp %d lanes %s waits at %s (%s): %s",
                                who, w->id, lanes, loc, insn_text(x->src, nm, sizeof nm), what);
      }
    }
  }
  return len;
}

/* The deadlock report: every blocked warp of every CTA of the cluster and
 * what it waits for (a cluster of one CTA: the CTA's report). */
static void report_deadlock(Cluster *cl) {
  Launch *L = cl->launch;
  size_t cap = 4096 + (size_t)cl->ncta * 4096, len = 0;
  char *msg = malloc(cap);
  if (!msg) return;
  uint32_t live, waiting;
  count_threads(cl, &live, &waiting);
  const uint32_t *c0 = cl->ctas[0].ctaid;
  if (cl->ncta == 1)
    len += (size_t)snprintf(msg, cap, "deadlock: kernel %s, %%ctaid (%u,%u,%u): no warp can progress "
                            "(%u of %u live threads blocked)", L->kernel->name, c0[0], c0[1], c0[2],
                            waiting, live);
  else
    len += (size_t)snprintf(msg, cap, "deadlock: kernel %s, %%clusterid (%u,%u,%u) (%d CTAs): no warp "
                            "of the cluster can progress (%u of %u live threads blocked)",
                            L->kernel->name, cl->id[0], cl->id[1], cl->id[2], cl->ncta, waiting, live);
  waiting_lines(cl, msg, len, cap);
  set_error(L, msg, true);
}

/* A lane group held at an aligned barrier (lanes.c) in the cluster, for
 * the runaway report: the lanes it waits for may be the ones that spin. */
static void held_note(Cluster *cl, char *buf, size_t n) {
  buf[0] = 0;
  for (int r = 0; r < cl->ncta; r++)
    for (int i = 0; i < cl->ctas[r].nwarps; i++) {
      Warp *w = &cl->ctas[r].warps[i];
      uint32_t live = warp_live(w) & ~interp_waiting(w), h = 0;
      for (int l = 0; l < WARP_SIZE; l++)
        if ((live >> l & 1) && lanes_aligned_barrier(&w->launch->prog->code[interp_pc(w, l)])) h |= 1u << l;
      if (!h || h == live) continue;
      char loc[512], t1[160], t2[160];
      exec_where(w->launch->prog, &w->launch->prog->code[interp_pc(w, __builtin_ctz(h))], loc, sizeof loc);
      lanes_text(h, t1, sizeof t1);
      lanes_text(live & ~h, t2, sizeof t2);
      snprintf(buf, n, "; lanes %s of warp %d of %%ctaid (%u,%u,%u) wait at the aligned barrier at "
               "%s for lanes %s of their warp to exit or come to it", t1, w->id,
               w->cta->ctaid[0], w->cta->ctaid[1], w->cta->ctaid[2], loc, t2);
      return;
    }
}

/* The runaway report names where the first warp that can run runs (the
 * spin loop, not lanes that wait for it at a barrier), else a live lane.
 * It leaves a fault of a later cluster in place: the spin most likely
 * waits for a flag that cluster would have set. */
static void report_runaway(Cluster *cl, uint64_t steps) {
  Launch *L = cl->launch;
  pthread_mutex_lock(&error_lock);
  bool faulted = L->error != NULL;
  pthread_mutex_unlock(&error_lock);
  if (faulted) return;
  char loc[512] = "";
  Cta *at = &cl->ctas[0];
  Warp *ww = NULL;
  int lane = 0;
  for (int pass = 0; pass < 2 && !ww; pass++)
    for (int r = 0; r < cl->ncta && !ww; r++) {
      Cta *c = &cl->ctas[r];
      for (int i = 0; i < c->nwarps && !ww; i++) {
        Warp *w = &c->warps[i];
        uint32_t m = warp_live(w) & (pass ? ~0u : ~interp_waiting(w));
        if (!m) continue;
        const WState *s = w->interp;
        ww = w; at = c; lane = lowest_lane(s->ln.state != LG_NONE && (s->ln.gmask & m) ? s->ln.gmask & m : m);
      }
    }
  if (ww) exec_where(L->prog, &L->prog->code[interp_pc(ww, lane)], loc, sizeof loc);
  char *msg = malloc(3072);
  if (!msg) return;
  snprintf(msg, 1024, "runaway: kernel %s, %%ctaid (%u,%u,%u) executed %llu warp-instructions "
           "without finishing (watchdog); a warp is at %s", L->kernel->name, at->ctaid[0],
           at->ctaid[1], at->ctaid[2], (unsigned long long)steps, loc);
  size_t len = strlen(msg);
  if (launch_unstarted_note(L, msg + len + 2, 510)) memcpy(msg + len, "; ", 2);
  held_note(cl, msg + strlen(msg), 1536);
  set_error(L, msg, false);
}

bool launch_unstarted_note(Launch *L, char *buf, size_t n) {
  uint32_t d[3], c[3];   /* clusters: CTAs per dimension, clusters per dimension */
  for (int i = 0; i < 3; i++) { d[i] = L->cluster[i] ? L->cluster[i] : 1; c[i] = L->grid[i] / d[i]; }
  uint64_t s = __atomic_load_n(&L->started, __ATOMIC_RELAXED);
  if (!n || !s || s >= (uint64_t)c[0] * c[1] * c[2]) return false;   /* a spin may wait for one */
  snprintf(buf, n, "the CTAs from %%ctaid (%u,%u,%u) on had not started: only started "
           "CTAs are sure to progress, and a host thread keeps at most 16 resident (two "
           "clusters if larger)",
           (uint32_t)(s % c[0]) * d[0], (uint32_t)(s / c[0] % c[1]) * d[1],
           (uint32_t)(s / ((uint64_t)c[0] * c[1])) * d[2]);
  return true;
}

/* Appends a line per warp of the cluster proven to spin (spin_loop). */
static size_t spin_lines(Cluster *cl, char *msg, size_t len, size_t cap) {
  const Program *p = cl->launch->prog;
  for (int r = 0; r < cl->ncta; r++) {
    Cta *c = &cl->ctas[r];
    for (int i = 0; i < c->nwarps && len + 1200 < cap; i++) {
      Warp *w = &c->warps[i];
      uint32_t head, edge, m;
      if (!spin_loop(w, &head, &edge, &m)) continue;
      char from[512], to[512], lanes[160], nm[96], who[96], what[1024] = "";
      exec_where(p, &p->code[head], from, sizeof from);
      exec_where(p, &p->code[edge], to, sizeof to);
      lanes_text(m, lanes, sizeof lanes);
      cta_who(cl, c, who, sizeof who);
      int l = __builtin_ctz(m);
      for (uint32_t pc = head; pc <= edge && !what[0]; pc++)   /* what the loop tests, if it can say */
        mbar_describe_test(w, &p->code[pc], l, what, sizeof what);
      for (uint32_t pc = head; pc <= edge && !what[0]; pc++) {
        char got[200], at[512];
        if (!mem_describe_load(w, &p->code[pc], l, got, sizeof got)) continue;
        exec_where(p, &p->code[pc], at, sizeof at);
        snprintf(what, sizeof what, "lane %d's load at %s reads %s", l, at, got);
      }
      len += (size_t)snprintf(msg + len, cap - len, "\n  %swarp %d lanes %s spin in the loop from %s "
                              "to %s (%s): every turn ends with the registers it began with, and "
                              "no store, atomic, arrival or copy is left that could change what "
                              "it reads%s%s", who, w->id, lanes, from, to,
                              insn_text(p->code[edge].src, nm, sizeof nm), what[0] ? "; " : "", what);
    }
  }
  return len;
}

char *cluster_livelock_text(Cluster *cl) {
  Launch *L = cl->launch;
  size_t cap = 8192 + (size_t)cl->ncta * 8192, len = 0;
  char *msg = malloc(cap);
  if (!msg) return NULL;
  uint32_t live, waiting, spin = 0, head, edge, m;
  count_threads(cl, &live, &waiting);
  for (int r = 0; r < cl->ncta; r++)
    for (int i = 0; i < cl->ctas[r].nwarps; i++)
      if (spin_loop(&cl->ctas[r].warps[i], &head, &edge, &m)) spin += (uint32_t)__builtin_popcount(m);
  const uint32_t *c0 = cl->ctas[0].ctaid;
  if (cl->ncta == 1)
    len += (size_t)snprintf(msg, cap, "livelock: kernel %s, %%ctaid (%u,%u,%u): no thread can "
                            "progress (%u of %u live threads spin forever, %u blocked)",
                            L->kernel->name, c0[0], c0[1], c0[2], spin, live, waiting);
  else
    len += (size_t)snprintf(msg, cap, "livelock: kernel %s, %%clusterid (%u,%u,%u) (%d CTAs): no "
                            "thread of the cluster can progress (%u of %u live threads spin "
                            "forever, %u blocked)", L->kernel->name, cl->id[0], cl->id[1], cl->id[2],
                            cl->ncta, spin, live, waiting);
  held_note(cl, msg + len, cap - len);
  len += strlen(msg + len);
  len = spin_lines(cl, msg, len, cap);
  waiting_lines(cl, msg, len, cap);
  return msg;
}

void launch_livelock(Launch *L, uint64_t index, char *msg) {
  pthread_mutex_lock(&error_lock);
  L->halted = true;
  if (!L->error && msg) {
    L->error = msg;
    L->deadlock = true;
    L->error_cluster = index;
    msg = NULL;
  }
  pthread_mutex_unlock(&error_lock);
  free(msg);
}

static bool cta_alloc(Cta *c, Launch *L, const uint32_t ctaid[3]) {
  memset(c, 0, sizeof *c);
  c->launch = L;
  memcpy(c->ctaid, ctaid, sizeof c->ctaid);
  uint32_t nthreads = L->block[0] * L->block[1] * L->block[2];
  c->shared_size = (uint32_t)(program_static_shared(L->prog, L->kernel) + L->dyn_shared);   /* static size + dyn <= MAX_SHARED (launch_check); the base is at most 15
     bytes more, the dynamic area's alignment */
  /* 128-byte aligned, as the GPU's: rows of a shared tile are the race
     checker's lines (race.c Span), not split across two */
  size_t shn = ((size_t)c->shared_size + 128) & ~(size_t)127;
  if ((c->shared = aligned_alloc(128, shn))) memset(c->shared, 0, shn);
  c->nwarps = (int)((nthreads + WARP_SIZE - 1) / WARP_SIZE);
  c->warps = calloc((size_t)c->nwarps + 1, sizeof *c->warps);
  size_t wsz = warp_block_size(L->prog);
  c->wmem = aligned_alloc(16, wsz * (size_t)c->nwarps + 16);
  if (!c->shared || !c->warps || !c->wmem) return false;
  for (int i = 0; i < c->nwarps; i++) warp_init(&c->warps[i], c, i, nthreads, c->wmem + wsz * (size_t)i);
  return true;
}

static void cta_free(Cta *c) {
  for (int i = 0; c->warps && c->wmem && i < c->nwarps; i++) warp_free(&c->warps[i]);
  sync_cta_free(c);
  free(c->wmem);
  free(c->warps);
  free(c->shared);
  free(c->written);
  free(c->proxy);
  free(c->synccheck);
}

static bool cta_done(const Cta *c) {
  for (int i = 0; i < c->nwarps; i++) if (!warp_done(&c->warps[i])) return false;
  return true;
}

/* Runs the warps of the cluster's CTAs round-robin, CTA by CTA in rank
 * order (Launch.schedule != 0: each round the CTAs and the warps of each
 * in a pseudo-random order, each warp for 1..64 instructions), until the
 * cluster ends or `budget` warp-instructions ran (interp.h cluster_resume). */
static ClusterStatus cluster_loop(Cluster *cl, uint64_t budget) {
  Launch *L = cl->launch;
  uint64_t max = L->max_steps ? L->max_steps : DEFAULT_MAX_STEPS, here = 0;
  int *order = cl->worder, *corder = cl->corder;
  for (;;) {
    uint64_t ran = 0;
    bool all_done = true, stop = false;
    if (L->schedule)
      for (int i = cl->ncta - 1; i > 0 && i < 64; i--) {
        int k = (int)(splitmix64(&cl->rng) % (uint64_t)(i + 1)), t = corder[i];
        corder[i] = corder[k]; corder[k] = t;
      }
    for (int q = 0; q < cl->ncta && !stop; q++) {
      Cta *c = &cl->ctas[q < 64 ? corder[q] : q];
      if (c->exited) continue;
      if (L->schedule)
        for (int i = c->nwarps - 1; i > 0; i--) {
          int k = (int)(splitmix64(&cl->rng) % (uint64_t)(i + 1)), t = order[i];
          order[i] = order[k]; order[k] = t;
        }
      for (int j = 0; j < c->nwarps && !stop; j++) {
        int i = L->schedule && j < BAR_MAX_WARPS && order[j] < c->nwarps ? order[j] : j;
        if (L->schedule && j < BAR_MAX_WARPS && order[j] >= c->nwarps) continue;
        if (warp_done(&c->warps[i])) continue;
        uint64_t quantum = L->schedule ? 1 + splitmix64(&cl->rng) % 64 : QUANTUM;
        if (L->trace) trace_turn_begin(cl, &c->warps[i], cl->steps + ran);
        uint64_t n = warp_run(&c->warps[i], quantum, &stop);
        ran += n;
        if (L->trace) trace_turn_end(cl, &c->warps[i], n, n < quantum && !stop);
      }
      if (cta_done(c)) c->exited = true;
      all_done &= c->exited;
    }
    if (stop || launch_failed(L) || launch_cancelled(L)) return CLUSTER_FAILED;
    if (all_done) return CLUSTER_DONE;
    cl->steps += ran;
    if (cl->steps > max) { report_runaway(cl, cl->steps); return CLUSTER_FAILED; }
    bool released = false;
    if (L->trace) trace_at(cl, cl->steps);
    for (int r = 0; r < cl->ncta; r++) released |= sync_cta_poll(&cl->ctas[r]);   /* exits may complete CTA barriers */
    released |= cluster_bar_poll(cl);   /* ... and the cluster barrier */
    if (!ran && !released) { report_deadlock(cl); return CLUSTER_FAILED; }
    if (cl->steps >= cl->spin.next) {
      cl->spin.next = cl->steps + SPIN_CHECK;
      if (spin_check(cl, released)) return CLUSTER_STUCK;
    }
    if ((here += ran) >= budget) return CLUSTER_YIELD;
  }
}

_Static_assert(BAR_MAX_WARPS <= 1024 / WARP_SIZE, "Cluster.worder holds a CTA's warps");

static Cluster *cluster_new(Launch *launch, const uint32_t first[3], const uint32_t dim[3],
                            uint64_t index) {
  int n = (int)(dim[0] * dim[1] * dim[2]);
  cur_cluster = index;
  Cluster *cl = calloc(1, sizeof *cl);
  if (!cl) { set_error(launch, strdup("out of memory creating a cluster's CTAs"), false); return NULL; }
  cl->launch = launch;
  cl->index = index;
  cl->ncta = n;
  cl->ctas = calloc((size_t)n, sizeof *cl->ctas);
  bool ok = cl->ctas != NULL;
  for (int r = 0; ok && r < n; r++) {
    uint32_t id[3] = {first[0] + (uint32_t)r % dim[0], first[1] + (uint32_t)r / dim[0] % dim[1],
                      first[2] + (uint32_t)r / (dim[0] * dim[1])};
    ok = cta_alloc(&cl->ctas[r], launch, id);
    cl->ctas[r].cluster = cl;
    cl->ctas[r].rank = (uint32_t)r;
  }
  if (!ok) {
    set_error(launch, strdup("out of memory creating a cluster's CTAs"), false);
    cluster_end(cl);
    return NULL;
  }
  const uint32_t *c0 = cl->ctas[0].ctaid;
  cl->rng = launch->schedule ^ ((uint64_t)c0[0] << 32 ^ (uint64_t)c0[1] << 16 ^ c0[2]);
  cl->spin.epoch = UINT64_MAX;   /* the first check announces the cluster (spin.c) */
  for (int i = 0; i < 1024 / WARP_SIZE; i++) cl->worder[i] = i;
  for (int r = 0; r < 64; r++) cl->corder[r] = r;
  return cl;
}

Cluster *cluster_start(Launch *launch, const uint32_t clusterid[3], uint64_t index) {
  uint32_t dim[3], first[3];
  for (int i = 0; i < 3; i++) {
    dim[i] = launch->cluster[i] ? launch->cluster[i] : 1;
    first[i] = clusterid[i] * dim[i];
  }
  Cluster *cl = cluster_new(launch, first, dim, index);
  if (cl) memcpy(cl->id, clusterid, sizeof cl->id);
  return cl;
}

ClusterStatus cluster_resume(Cluster *cl, uint64_t budget) {
  cur_cluster = cl->index;
  cur_stats = &cl->stats;
  ClusterStatus st = cluster_loop(cl, budget);
  cur_stats = NULL;
  return st;
}

void cluster_end(Cluster *cl) {
  Launch *launch = cl->launch;
  atomic_fetch_add(&launch->progress, 1);   /* its last effects (spin.c "Other clusters") */
  cur_cluster = cl->index;
  cur_stats = &cl->stats;
  if (cl->trace) trace_cluster_end(cl);
  for (int r = 0; cl->ctas && r < cl->ncta; r++) cta_free(&cl->ctas[r]);   /* adds the warps' counts */
  race_cluster_end(cl);   /* after the CTAs' last copies landed */
  cluster_bar_free(cl);
  free(cl->ctas);
  cur_stats = NULL;
  const LaunchStats *st = &cl->stats;
  pthread_mutex_lock(&stats_lock);
  LaunchStats *d = &launch->stats;
  for (int f = 0; f < FAM_COUNT; f++) {
    d->warp_insns[f] += st->warp_insns[f];
    d->thread_insns[f] += st->thread_insns[f];
  }
  for (int e = 0; e < EV_COUNT; e++) d->events[e] += st->events[e];
  d->splits += st->splits;
  d->merges += st->merges;
  pthread_mutex_unlock(&stats_lock);
  free(cl);
}

bool cta_run(Launch *launch, const uint32_t ctaid[3]) {
  static const uint32_t one[3] = {1, 1, 1};
  Cluster *cl = cluster_new(launch, ctaid, one, cur_cluster);
  if (!cl) return false;
  memcpy(cl->id, ctaid, sizeof cl->id);
  ClusterStatus st = cluster_resume(cl, UINT64_MAX);
  if (st == CLUSTER_STUCK) launch_livelock(launch, cl->index, cluster_livelock_text(cl));   /* alone */
  bool ok = st == CLUSTER_DONE;
  cluster_end(cl);
  return ok;
}
