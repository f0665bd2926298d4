/* exec.h: the contract between lowering, the warp interpreter and the
 * instruction families (DESIGN.md "Execution model", STYLE.md §2, §4, §5).
 *
 * Lowering (src/lower/) turns each function's IR into XInsn records in one
 * program-wide array, so a pc is a global index. Each XInsn carries its
 * handler, chosen at lowering by the family selector of its opcodes.def row
 * (exec_select_<FAMILY>, one per family file in src/exec/); a selector that
 * does not support a form returns false and the launch fails with
 * "FILE:LINE:COL: <instruction> is not supported".
 *
 * Registers are structure-of-arrays, separated by width: slot s of the
 * 32-bit file is 32 consecutive uint32_t, one per lane (8-, 16- and 32-bit
 * registers live there, zero-extended); the 64-bit file likewise; a
 * predicate register is one uint32_t lane mask. A .b128 register takes two
 * consecutive 64-bit slots (low half first). Immediates are materialised
 * once per warp into constant slots of the right width, so a handler never
 * asks "register or immediate?". Special registers read as operands are
 * copied into hidden slots by an XS-free pseudo-instruction lowering inserts
 * before the instruction (x->fn = exec_sreg_load).
 *
 * A handler runs one instruction for the lanes in `mask` (the lane group
 * intersected with the guard predicate) and returns an XStatus. ALU handlers
 * compute all 32 lanes into a temporary and merge under the mask (vectorises);
 * memory and other side-effecting handlers visit only the lanes in mask. */
#ifndef PTXVM_EXEC_H
#define PTXVM_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../ir/ir.h"
#include "../util/text.h"

enum { WARP_SIZE = 32 };

typedef enum {
  XS_NEXT,     /* every lane in mask continues at pc + 1 */
  XS_BRANCH,   /* lanes in w->taken go to x->target, the others to pc + 1 */
  XS_WAIT,     /* the lanes in mask block (barrier, warp sync): the handler
                  recorded what they wait for; they do not advance */
  XS_EXIT,     /* the lanes in mask exit */
  XS_TRAP,     /* a fault: the handler called exec_fault; the launch stops */
  XS_CALL,     /* lanes in mask enter x->aux's function (interpreter does it) */
  XS_RET,      /* lanes in mask return from their current function */
} XStatus;

typedef struct Warp Warp;
typedef struct XInsn XInsn;
typedef XStatus (*ExecFn)(Warp *w, const XInsn *x, uint32_t mask);

/* Decoded modifiers that many families share (bits of XInsn.mods). */
enum {
  XM_RN = 1 << 0, XM_RZ = 1 << 1, XM_RM = 1 << 2, XM_RP = 1 << 3,   /* rounding */
  XM_RNI = 1 << 4, XM_RZI = 1 << 5, XM_RMI = 1 << 6, XM_RPI = 1 << 7,
  XM_FTZ = 1 << 8, XM_SAT = 1 << 9, XM_APPROX = 1 << 10, XM_FULL = 1 << 11,
  XM_NAN = 1 << 12, XM_HI = 1 << 13, XM_LO = 1 << 14, XM_WIDE = 1 << 15,
  XM_CC = 1 << 16, XM_UNI = 1 << 17, XM_ALIGNED = 1 << 18, XM_XORSIGN = 1 << 19,
  XM_RELU = 1 << 20, XM_SHIFTAMT = 1 << 21, XM_VOLATILE = 1 << 22,
};

enum { XINSN_MAX_OPDS = 12 };

struct XInsn {
  ExecFn fn;
  const Insn *src;        /* IR instruction: location, modifiers, operands */
  const Function *func;   /* the function it belongs to */
  uint16_t op;            /* Opcode */
  uint8_t type, type2;    /* Type: the instruction's first and second type */
  uint8_t vec;            /* 1, 2, 4 (.vN) */
  uint8_t nslots;
  uint8_t fx;             /* 1: an effect the spin detector must see (spin.c
                             exec_effect): set by lowering */
  int32_t guard;          /* predicate slot, or -1 */
  bool guard_neg;
  uint8_t space;          /* Space named by the instruction (SP_NONE = generic) */
  uint8_t fam;            /* op_info[op].family, set by lowering (interp's counters) */
  uint8_t sub;            /* family-defined sub-operation (compare op, ...) */
  uint32_t mods;          /* XM_* bits */
  uint32_t slot[XINSN_MAX_OPDS];  /* operand slots, in operand order; a vector
                             operand contributes one slot per element */
  int64_t imm;            /* address offset, or a family-defined constant */
  uint32_t target;        /* branch target pc */
  void *aux;              /* family-defined data (call info, ...) in the program arena */
};

/* ---- what a handler may touch ---- */

typedef struct Cta Cta;
typedef struct Launch Launch;

struct Warp {
  uint32_t *r32;          /* nslots32 x 32 */
  uint64_t *r64;          /* nslots64 x 32 */
  uint32_t *pred;         /* npred masks */
  uint32_t taken;         /* XS_BRANCH: lanes that take the branch */
  uint32_t valid;         /* lanes that exist (a partial last warp has fewer) */
  uint32_t exited;        /* lanes that have exited */
  uint32_t cc;            /* carry flag CC.CF of each lane (add.cc, addc, ...) */
  int id;                 /* warp index in the CTA (%warpid) */
  Cta *cta;
  Launch *launch;
  uint32_t tid[3][WARP_SIZE];  /* %tid of each lane */
  uint64_t steps;         /* instructions executed (virtual time) */
  uint8_t *local;         /* local memory: lane l's bytes at local + l * local_size */
  uint32_t local_size;    /* bytes of local memory per thread */
  void *interp;           /* interpreter-private state (pcs, frames, ...) */
  const struct MemObserver *observer;  /* Launch.observer (the access hook below) */
  void *wgmma;            /* warpgroup state: pending wgmma results, the
                             warpgroup rendezvous log (wgmma.c); NULL: none */
};

/* Lane loops gain most from wider vectors: LANE_CLONES gives a function a
 * second copy built for x86-64-v3 (AVX2, FMA), chosen once at load for the
 * CPU (GCC target_clones, an ifunc). Both copies compute the same bits:
 * integer code, and float code whose expressions are never contracted
 * (-ffp-contract=off, Makefile) and whose fmaf/fma are exactly specified.
 * Elsewhere it is empty, and under ThreadSanitizer (make TSAN=1), which
 * instruments the ifunc resolver that the dynamic loader runs before the
 * sanitizer's runtime exists (a crash at load). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__)
#define LANE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LANE_CLONES
#endif

/* Defining a handler: HANDLER(exec_name) { body } defines the static
 * handler exec_name(w, x, mask) and files its name for the lowered-code
 * dump (ptxvm check --dump-lowered, exec_handler_name); LANE_HANDLER also
 * builds it twice (LANE_CLONES). Pass the whole name, so that grep finds
 * the definition. A handler defined otherwise (one shared with other
 * files) files its name with HANDLER_NAME(exec_name) after it. The name
 * table is a linker section (ptxvm_handlers); each entry holds a function
 * returning the handler, since the address of a LANE_CLONES function taken
 * in data is one of its copies, not the one code sees. */
typedef struct HandlerName { ExecFn (*get)(void); const char *name; } HandlerName;
#define HANDLER_NAME(NAME)                                                      \
  static ExecFn NAME##_ref(void) { return NAME; }                              \
  static const HandlerName NAME##_name __attribute__((used, section("ptxvm_handlers"))) = { \
      NAME##_ref, #NAME}
#define HANDLER_WITH(ATTR, NAME)                                                \
  ATTR static XStatus NAME(Warp *w, const XInsn *x, uint32_t mask);           \
  HANDLER_NAME(NAME);                                                          \
  ATTR static XStatus NAME(Warp *w, const XInsn *x, uint32_t mask)
#define HANDLER(NAME) HANDLER_WITH(, NAME)
#define LANE_HANDLER(NAME) HANDLER_WITH(LANE_CLONES, NAME)
/* The name a handler was defined with ("exec_add_b32"), or NULL for one
 * that did not file it (names.c). */
const char *exec_handler_name(ExecFn fn);

/* Slot pointers: the 32 lanes of a register. */
static inline uint32_t *R32(Warp *w, uint32_t slot) { return w->r32 + (size_t)slot * WARP_SIZE; }
static inline uint64_t *R64(Warp *w, uint32_t slot) { return w->r64 + (size_t)slot * WARP_SIZE; }

/* ---- lane helpers shared by the families ---- */

/* The warp's lanes that exist and have not exited. */
static inline uint32_t warp_live(const Warp *w) { return w->valid & ~w->exited; }
/* Sets lane l of the predicate in slot to v. */
static inline void pred_put(Warp *w, uint32_t slot, int l, bool v) {
  w->pred[slot] = (w->pred[slot] & ~(1u << l)) | ((uint32_t)v << l);
}

/* Lane l's address [base+imm] in state space sp (base UINT32_MAX: none;
 * base64: a 64-bit register). A .shared address in a 32-bit register wraps
 * at 32 bits, as the GPU computes it; warp-wide fast paths need not care:
 * a wrapped range is past the CTA's shared memory, so they fall back here. */
static inline uint64_t lane_address(Warp *w, Space sp, int64_t imm, uint32_t base, bool base64, int l) {
  uint64_t a = (uint64_t)imm;
  if (base != UINT32_MAX) a += base64 ? R64(w, base)[l] : R32(w, base)[l];
  return sp == SP_SHARED && base != UINT32_MAX && !base64 ? (uint32_t)a : a;
}

/* Merge 32 computed lanes into a destination under a mask. */
static inline void merge32(uint32_t *d, const uint32_t *t, uint32_t mask) {
  if (mask == 0xffffffffu) { memcpy(d, t, 32 * sizeof *d); return; }
  for (int l = 0; l < WARP_SIZE; l++) if (mask >> l & 1) d[l] = t[l];
}
static inline void merge64(uint64_t *d, const uint64_t *t, uint32_t mask) {
  if (mask == 0xffffffffu) { memcpy(d, t, 32 * sizeof *d); return; }
  for (int l = 0; l < WARP_SIZE; l++) if (mask >> l & 1) d[l] = t[l];
}

/* ALU bodies: EXPR computes t[l] from lanes l of the sources for all 32
 * lanes, then the result is merged under mask.
 *   ALU32(x->slot[0], t[l] = a[l] + b[l]) with a = R32(w, x->slot[1]) ... */
#define FOR_LANES(l) for (int l = 0; l < WARP_SIZE; l++)
#define ACTIVE(mask, l) ((mask) >> (l) & 1)

/* The lane mask of t, whose lanes are each 0 or all ones (a vector
 * compare's result): a movemask per 4 lanes (SSE2, baseline x86-64)
 * instead of a shift-and-or per lane, which does not vectorise. */
static inline uint32_t lanes_pack(const int32_t *t) {
#if defined(__SSE2__)
  uint32_t m = 0;
  for (int i = 0; i < WARP_SIZE; i += 4)
    m |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(t + i)))) << i;
  return m;
#else
  uint32_t m = 0;
  FOR_LANES(l) m |= (uint32_t)(t[l] & 1) << l;
  return m;
#endif
}

/* Reports a fault at x for `lane` (or -1 for the whole warp): the message
 * gets the location, kernel, %ctaid and %tid appended by the interpreter.
 * Returns XS_TRAP so handlers can `return exec_fault(...)`. */
XStatus exec_fault(Warp *w, const XInsn *x, int lane, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* What a fault was, for drivers that map it to their own codes
 * (ptxvm_launch_fault); exec_fault's faults are FAULT_OTHER. */
typedef enum FaultKind { FAULT_OTHER, FAULT_ADDRESS, FAULT_MISALIGNED, FAULT_TRAP, FAULT_ASSERT } FaultKind;
XStatus exec_fault_kind(Warp *w, const XInsn *x, int lane, FaultKind kind, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A failed assertion (FAULT_ASSERT) of lane: the located report from fmt,
 * and gpu_lines (malloc'd, taken), what a GPU prints for it
 * (ptxvm_launch_assertion). */
XStatus exec_assert_fault(Warp *w, const XInsn *x, int lane, char *gpu_lines, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* lanes_text (a lane mask as "0-3,8" for messages) is in src/util/text.h. */

/* Records a checker finding at x for `lane` (or -1: the lowest live lane):
 * a hazard or an undefined value the run goes on past (STYLE.md §6 item 3),
 * with the location, kernel, %ctaid and %tid appended as exec_fault does.
 * Only launches with checking on (Launch.check, ptxvm_set_check) record it;
 * call sites guard the work of finding a hazard with exec_checking(w)
 * (interp.h), so checking off costs one predictable branch. */
void exec_report(Warp *w, const XInsn *x, int lane, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Translates a PTX address in state space `sp` (SP_NONE = generic) to a host
 * pointer for `size` bytes for `lane`, checking bounds and alignment
 * (natural alignment of `align` bytes). On a bad address it reports the
 * fault (exec_fault) and returns NULL. */
void *mem_ptr(Warp *w, const XInsn *x, int lane, Space sp, uint64_t addr,
              uint32_t size, uint32_t align, bool write);
/* The warp-wide fast path of loads and stores: a host pointer for the bytes
 * [lo, hi) of state space sp when they lie in one place every access inside
 * may use (one global allocation, the executing CTA's shared memory, the
 * kernel's parameter buffer), else NULL. It reports nothing and checks no
 * alignment: on NULL the caller takes mem_ptr lane by lane, which does. */
void *mem_span(Warp *w, Space sp, uint64_t lo, uint64_t hi, bool write);

/* ---- the memory-access hook ----
 *
 * Every access a kernel makes to memory is visible to one observer (under
 * --check the uninitialized-read checker, src/exec/initcheck.c, which
 * passes each access on to the race checker, src/exec/race.c; a trace; a
 * future compiled tier): loads,
 * stores, atomics and reductions, mbarrier operations on their object, the
 * source read of an asynchronous copy at issue and its destination write when
 * it lands (cp.async, cp.async.bulk), and the argument and string reads of
 * printf. A handler reports each lane's access with mem_access (mem_ptr plus
 * the hook) or, on a warp-wide fast path that bypasses mem_ptr, with
 * mem_observe for each lane under one `if (mem_observed(w))` per instruction:
 * the same handler body serves both, and with no observer the cost is that
 * one predictable branch (w->observer is NULL). Accesses are reported in
 * the order the interpreter performs them, right after each (the bytes an
 * observer reads at `host` are those the access left). */
typedef enum AccessKind {
  ACC_LD,          /* ld, ldu, ldmatrix: a read */
  ACC_ST,          /* st, stmatrix: a write */
  ACC_ATOM,        /* atom, red, an mbarrier operation: atomic read-modify-write */
  ACC_ASYNC_RD,    /* the source bytes of an asynchronous copy, read at issue */
  ACC_ASYNC_WR,    /* the destination bytes of an asynchronous copy, as it lands */
  ACC_PRINTF,      /* vprintf reading an argument or a string */
} AccessKind;

typedef struct MemAccess {
  Warp *w;                /* the thread: w->cta->ctaid, w->tid[.][lane] */
  int lane;
  const XInsn *x;         /* the instruction (x->src: FILE:LINE:COL); for a
                             landing, the copy's issuing instruction */
  AccessKind kind;
  bool strong;            /* a strong (relaxed/acquire/release/volatile)
                             ld or st: morally strong, not a data race */
  uint8_t sp;             /* Space the instruction names (SP_NONE: generic) */
  uint64_t addr;          /* PTX address in sp (0 for a landing: see host) */
  const void *host;       /* the host bytes (they identify the memory: a
                             shared byte of CTA c lies in c->shared) */
  uint32_t size;          /* bytes */
  uint8_t async;          /* ACC_ASYNC_WR: 1 cp.async, 2 a bulk-group copy,
                             3 a bulk copy completing on an mbarrier (tx) */
  uint32_t seq;           /* ACC_ASYNC_WR: its group of the thread (1-based:
                             cp.async, bulk group) or, tx, its issue number */
} MemAccess;

/* One warp instruction's accesses, for an observer that takes them at
 * once (MemObserver.lanes): lane l of mask accessed host[l] (size bytes at
 * PTX address addr[l] of sp), in lane order, as mem_observe would report them. */
typedef struct MemLanes {
  Warp *w;
  const XInsn *x;
  uint32_t mask;
  AccessKind kind;
  bool strong;
  uint8_t sp;
  uint32_t size;
  const uint64_t *addr;
  const void *const *host;
  uintptr_t lo, hi;       /* the host bytes [lo, hi) the lanes lie in, when they lie in
                             one span of memory; hi 0: not known */
} MemLanes;

/* The observer (Launch.observer, copied to each Warp): fn is called for
 * each access, on the host thread that runs the warp; lanes, when not NULL,
 * instead of fn for the lanes of one warp-wide access (mem_observe_lanes:
 * one call per warp instruction, the checker's fast path). */
typedef struct MemObserver {
  void (*fn)(void *ctx, const MemAccess *a);
  void *ctx;
  void (*lanes)(void *ctx, const MemLanes *a);
} MemObserver;

static inline bool mem_observed(const Warp *w) { return __builtin_expect(w->observer != NULL, 0); }
/* Reports one access to the observer (call under mem_observed). */
void mem_observe(Warp *w, const XInsn *x, int lane, Space sp, uint64_t addr, const void *host,
                 uint32_t size, AccessKind kind, bool strong);
/* A landing of an asynchronous copy of lane (issued by x) on host bytes
 * dst, reported after the bytes landed: async and seq as MemAccess says;
 * atomic for a reduction's (cp.reduce.async.bulk*: each element a
 * .relaxed.gpu read-modify-write, MemAccess.strong). */
void mem_observe_landing(Warp *w, const XInsn *x, int lane, const void *dst, uint32_t size,
                         uint8_t async, uint32_t seq, bool atomic);
/* mem_observe for each lane in mask, whose PTX addresses in sp are addr[l]
 * (taken before the access: it may overwrite the base register), after the
 * access succeeded: the host bytes are mem_ptr's, which then cannot fault. */
void mem_observe_lanes(Warp *w, const XInsn *x, uint32_t mask, Space sp, const uint64_t *addr,
                       uint32_t size, AccessKind kind, bool strong);
/* mem_observe_lanes for lanes whose host bytes the caller has found in one
 * span: lane l of mask at host[l], all of them in [lo, hi). */
void mem_observe_span(Warp *w, const XInsn *x, uint32_t mask, Space sp, const uint64_t *addr,
                      const void *const *host, uintptr_t lo, uintptr_t hi, uint32_t size, AccessKind kind,
                      bool strong);
/* mem_ptr for an access of the given kind, reported to the observer when
 * the address is good (writes: ACC_ST, ACC_ATOM, ACC_ASYNC_WR), before the
 * caller accesses: for reads and atomics only (a plain write is reported
 * with mem_observe once written). */
static inline void *mem_access(Warp *w, const XInsn *x, int lane, Space sp, uint64_t addr,
                               uint32_t size, uint32_t align, AccessKind kind) {
  bool write = kind == ACC_ST || kind == ACC_ATOM || kind == ACC_ASYNC_WR;
  void *p = mem_ptr(w, x, lane, sp, addr, size, align, write);
  if (p && mem_observed(w)) mem_observe(w, x, lane, sp, addr, p, size, kind, false);
  return p;
}

/* For the livelock report (spin.c): what the load x reads for `lane` now,
 * "0x0 from .global address 0x...", without faulting; false when x is not
 * a load or the address is not readable. */
bool mem_describe_load(Warp *w, const XInsn *x, int lane, char *buf, size_t n);

/* ---- lowering interface used by family selectors ---- */

typedef struct Lower Lower;
/* Slot of an IR operand as a source of the given width (4 or 8 bytes, or 0
 * for a predicate): a register slot, or a constant slot holding the
 * immediate (converted to the width / type `t`), or a hidden slot loaded
 * from a special register. */
uint32_t lower_src(Lower *L, const Operand *o, Type t);
/* Slot of a destination register operand (a sink gets a scratch slot). */
uint32_t lower_dst(Lower *L, const Operand *o);
/* Address operand: sets *slot to the base register slot (or UINT32_MAX for
 * none: [imm] or [var]), and returns the constant part (variable address +
 * offset) in the state space `sp` of the access. */
int64_t lower_addr(Lower *L, const Operand *o, Space sp, uint32_t *slot);
/* .param addresses (ld.param / st.param, sp = SP_PARAM): for a kernel's own
 * parameters the constant is the byte offset in launch->params (the layout of
 * ptxvm_function_get_param); for the parameters of a .func and for .param
 * variables declared at a call site, lowering returns a generic address in
 * the LOCAL window (LOCAL_WINDOW + offset of the frame's slot in the thread's
 * local memory), and mem_ptr(SP_PARAM) then accesses local memory. */
/* Allocates n bytes of per-program data for x->aux (freed with the program). */
void *lower_aux(Lower *L, size_t n);
uint32_t lower_mods(const Insn *in);   /* the XM_* bits of in's modifiers */
/* Space named by an instruction's modifiers (SP_NONE when generic). */
Space lower_space(const Insn *in);

/* Lowering services for the CTRL and MOV selectors (lower.c). */
typedef struct FuncInfo FuncInfo;
/* The branch target (XInsn.target) of the instruction being selected. */
void lower_branch_target(Lower *L, const Symbol *label);
/* *dst (memory from lower_aux) receives the pc of label. */
void lower_label_pc(Lower *L, uint32_t *dst, const Symbol *label);
/* Index of f's definition in Program.funcs (-1 if none). */
int lower_func_index(Lower *L, const Function *f);
const FuncInfo *lower_func_info(Lower *L, int i);
/* Address of a variable in its own space (for a .param of a call site or
 * a .func: its offset from the frame pointer, which is 0 in a kernel);
 * false if it has none. */
bool lower_var_offset(Lower *L, const Symbol *s, uint64_t *off);
/* Register file of a register symbol: 0 = 32-bit, 1 = 64-bit, 2 = pred. */
int lower_reg_file(const Symbol *s);

/* Refuses the instruction being selected with a message of the selector's
 * own (prefixed with its FILE:LINE:COL); does not return. */
_Noreturn void lower_refuse(Lower *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Address-space instructions cvta, cvta.to and isspacep (§9.7.9.19-20, 23):
 * opcodes.def files them under MOV, but their semantics is the address map
 * of mem.h, so src/exec/mem.c implements them; exec_select_MOV delegates
 * OP_CVTA, OP_CVTA_TO and OP_ISSPACEP here. Same contract as a selector. */
bool mem_select_addr(Lower *L, const Insn *in, XInsn *x);
/* Clusters (src/exec/cluster.c): exec_select_SYNC delegates
 * barrier.cluster.arrive/.wait, exec_select_MOV mapa and getctarank. */
bool cluster_select_barrier(Lower *L, const Insn *in, XInsn *x);
bool cluster_select_map(Lower *L, const Insn *in, XInsn *x);
/* bar.warp.sync (family SYNC) is a warp rendezvous: src/exec/warp.c
 * implements it and exec_select_SYNC delegates OP_BAR_WARP_SYNC here. */
bool warp_select_bar_warp_sync(Lower *L, const Insn *in, XInsn *x);
/* The warpgroup instructions wgmma.* (family MMA) and setmaxnreg (MISC):
 * src/exec/wgmma.c; exec_select_MMA and exec_select_MISC delegate them. */
bool wgmma_select(Lower *L, const Insn *in, XInsn *x);
/* The tensor copies cp.async.bulk.tensor and cp.async.bulk.prefetch.tensor
 * (family ASYNC): src/exec/tensor.c; exec_select_ASYNC delegates them. */
bool tensor_select(Lower *L, const Insn *in, XInsn *x);
/* st.async and cp.async.bulk into a peer CTA's shared memory (shared::cta
 * source, multicast; family ASYNC): src/exec/remote.c. */
bool remote_select(Lower *L, const Insn *in, XInsn *x);
/* atom.c's operations for remote.c's reductions: the .op of in (an AtomOp,
 * -1 for none) and r op s on one element of type t (ftz: an .f32 add
 * flushing subnormal inputs and result to sign-preserving zero). */
int atom_reduce_op(const Insn *in);
uint64_t atom_reduce_value(int op, Type t, bool ftz, uint64_t r, uint64_t s);
/* Frees a warp's warpgroup state (Warp.wgmma; interp.c warp_free). */
void wgmma_free(Warp *w);

/* One selector per family (families in ir.h): sets x->fn and the fields it
 * needs, returns false when the form is not supported yet. Declared here from
 * the family list, so a family without a selector fails to link. */
#define X(f) bool exec_select_##f(Lower *L, const Insn *in, XInsn *x);
FAMILIES(X)
#undef X

/* Instrumentation (ptxvm_launch_stats): counts one synchronization event in
 * the statistics of the cluster the calling host thread runs (nothing
 * outside a cluster run). Implemented in interp.c. */
typedef enum { EV_BAR_CTA, EV_WARP_SYNC, EV_BAR_CLUSTER, EV_MBAR_PHASE, EV_COUNT } ExecEvent;
void exec_count(ExecEvent e);

#endif
