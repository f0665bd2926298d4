/* program.h: the lowered program as the interpreter and the handlers see it
 * (Program, its functions' FuncInfo, call and branch-table records), and the
 * services the interpreter (interp.c), the report (report.c), the CTA
 * barriers (sync.c) and the mbarriers (mbar.c) offer the handlers that need
 * more than exec.h: virtual time, waiting and releasing lanes, jumps. src/lower/
 * fills a Program; lower.h (its internals) includes this header, never the
 * other way round. The layout decisions are in lower.h's header. */
#ifndef PTXVM_EXEC_PROGRAM_H
#define PTXVM_EXEC_PROGRAM_H

#include <stdio.h>

#include "interp.h"

#define FUNC_ADDR_BASE 0x00007c0000000000ull

typedef struct FuncInfo {
  const Function *f;
  uint32_t pc, npc;                 /* first pc and count (0 without a body) */
  uint32_t r32, n32, r64, n64;      /* register region: first slot, count */
  uint32_t p0, np;                  /* predicate region */
  uint32_t frame, frame_size;       /* local-memory frame: offset (a kernel's:
                                       fixed; a .func's: 0, frame-pointer
                                       relative), bytes */
  uint64_t shared_base;             /* where its extern .shared arrays start;
                                       a kernel's static shared bytes (lower.c
                                       "shared memory per kernel") */
  uint64_t shared_static;           /* a kernel's: the end of its last static
                                       .shared variable, before the dynamic
                                       area's alignment (what CUDA reports) */
  struct VarAddr *shared;           /* a kernel's: the .shared variables it
                                       reaches, at their offsets in its
                                       layout (reports name them) */
  int nshared;
  uint32_t *regmap;                 /* Symbol.slot -> first slot in its file */
  struct CallOpd *formals, *formal_rets;   /* where its parameters and
                                       return values live: .param in its
                                       frame, .reg in its registers */
  const uint8_t *reach;             /* a kernel's: [i] = it can call function
                                       i (itself included); else NULL */
  int refusal;                      /* a kernel's: the first Refusal in a
                                       function it reaches, or -1 (known once
                                       they are all lowered) */
  bool lowered;                     /* its code is in Program.code */
} FuncInfo;

/* An instruction that lowering refused: PTX that ptxvm cannot execute yet
 * (lower.c "refusals"). Only the kernels that can reach its function are
 * refused at launch; its place in the code is a trap (never run). */
typedef struct Refusal {
  const Insn *in;
  int func;                         /* index in Program.funcs */
  const char *msg;                  /* "FILE:LINE:COL: what" */
} Refusal;

/* Where a call argument or return value lives: at the call site, or as a
 * callee's formal parameter. */
typedef struct CallOpd {
  enum { CO_MEM, CO_R32, CO_R64, CO_PRED } kind;
  uint32_t where;                   /* local offset from the frame pointer of
                                       its activation (CO_MEM) or slot */
  uint32_t size;                    /* bytes */
  uint8_t n;                        /* a vector register's elements, in
                                       consecutive slots of size / n bytes
                                       each (0 or 1: a scalar) */
} CallOpd;

typedef struct CallInfo {
  int func;                         /* callee index, or -1: through fslot */
  uint32_t fslot;                   /* 64-bit slot of the function address */
  bool fslot32;                     /* the address register is 32-bit */
  const Function *proto;            /* .callprototype signature, or NULL */
  const Symbol *targets;            /* .branchtargets-like list, or NULL */
  int nargs, nrets;
  CallOpd *args, *rets;
} CallInfo;

/* brx.idx: the label pcs of its .branchtargets list. */
typedef struct BrxInfo { uint32_t n; uint32_t *pcs; } BrxInfo;

/* report.c: the location of an instruction, "FILE:LINE:COL (CUDA:LINE)",
 * and a message with its full location (kernel, %ctaid, %tid of lane), as
 * faults and checker findings print them (malloc'd; NULL without memory). */
void exec_where(const Program *p, const XInsn *x, char *buf, size_t n);
char *exec_located(Warp *w, const XInsn *x, int lane, const char *msg);
/* Records a finding whose whole text is given (the race checker's, made at
 * the end of a launch): msg is its dedupe key, cluster its order key. */
void exec_report_text(Launch *L, uint64_t cluster, const XInsn *x, const char *msg, const char *text);

/* rel: addr is relative to the lane's frame pointer (a .func frame);
 * kparam: a kernel's parameter (addr: its offset in the launch buffer). */
typedef struct VarAddr { const Symbol *sym; uint64_t addr; bool rel, kparam; } VarAddr;

/* Bytes of local stack a program with recursion, indirect calls or alloca
 * gets beyond what its frames need (CUDA's default is 1 KiB). */
enum { LOCAL_STACK_EXTRA = 16384 };

struct Program {
  const Module *m;
  Device *dev;
  Arena arena;
  XInsn *code;  uint32_t ncode;
  FuncInfo *funcs; int nfuncs;      /* parallel to m->funcs */
  uint32_t n32, n64, npred;         /* slots in each file */
  uint32_t *init32; uint64_t *init64; uint32_t *initpred;  /* init image */
  uint32_t local_size;              /* local bytes per thread (stack included) */
  uint32_t fp_slot, sp_slot;        /* 32-bit file: frame and stack pointer */
  VarAddr *vars; int nvars, capvars; /* every addressable variable */
  int *varhash; uint32_t capvarhash; /* open addressing: index in vars + 1, by sym */
  Refusal *refusals; int nrefusals, caprefusals;   /* in function order
                                       (of the functions lowered so far) */
  Lower *lower;                     /* lowering state kept for the functions
                                       not lowered yet (program_lower); NULL
                                       once every function is */
};

/* Address of a variable in its own state space: global/const device
 * address, shared or local offset, kernel-parameter offset (for a variable
 * of a .func frame: the offset from the frame pointer). */
bool program_lookup_var(const Program *p, const Symbol *s, uint64_t *addr);
int program_func_index(const Program *p, const Function *f);
/* vprintf (printf.c): a call to the body-less function vprintf, lowered by
 * ctrl.c with x->aux = its CallInfo (two .b64 arguments: format and
 * argument buffer, both generic addresses; optional .b32 return value). */
XStatus exec_vprintf(Warp *w, const XInsn *x, uint32_t mask);
/* __assertfail(message, file, line, function, charSize) (printf.c): the
 * lowest lane of mask reports "assertion failed" with the strings, a fault. */
XStatus exec_assertfail(Warp *w, const XInsn *x, uint32_t mask);

/* malloc(size) and free(ptr) (heap.c), CUDA's device heap: calls of the
 * body-less functions, lowered by ctrl.c with x->aux = the CallInfo (one
 * .b64 argument; malloc's optional .b64 return value). */
XStatus exec_malloc(Warp *w, const XInsn *x, uint32_t mask);
XStatus exec_free(Warp *w, const XInsn *x, uint32_t mask);
/* Whether kernel can call malloc or free (its launch needs the heap). */
bool program_uses_heap(const Program *p, const Function *kernel);

/* A call operand's value for lane l (up to 8 bytes, zero-extended), and
 * storing v into a return operand (its size's low bytes) (ctrl.c). */
uint64_t call_opd_u64(Warp *w, const CallOpd *o, int l);
void call_opd_put(Warp *w, const CallOpd *o, int l, uint64_t v);

/* The implicit end of a function (ctrl.c). */
XStatus exec_ret_implicit(Warp *w, const XInsn *x, uint32_t mask);
XStatus exec_exit_implicit(Warp *w, const XInsn *x, uint32_t mask);

/* ---- special registers (sreg.c) ---- */
/* x->aux = the Symbol, x->sub = sreg_id of its name, x->imm = component,
 * x->type = its type, x->slot[0] = destination slot in the file of the
 * register's width (64-bit types: r64; .pred: predicate file; else r32). */
XStatus exec_sreg_load(Warp *w, const XInsn *x, uint32_t mask);
int sreg_id(const char *name);     /* -1 for an unknown name */
uint64_t sreg_value(Warp *w, int id, int comp, int lane);

/* ---- interpreter services (interp.c) ---- */
/* Virtual time of the warp in cycles (= nanoseconds). */
uint64_t interp_clock(const Warp *w);
void interp_sleep(Warp *w, uint64_t ns);
/* Moves `lane` to pc (brx.idx); the interpreter regroups lanes. The handler
 * then returns XS_NEXT and the lane is not advanced again. */
void interp_jump(Warp *w, int lane, uint32_t pc);
/* Releases lanes blocked by XS_WAIT: they continue after the instruction. */
void interp_release(Warp *w, uint32_t lanes);
uint32_t interp_waiting(const Warp *w);
/* The pc a lane is at. */
uint32_t interp_pc(const Warp *w, int lane);

/* ---- simple CTA barrier (sync.c) ---- */
/* Called when no warp of the CTA can run: completes a barrier that every
 * live thread has reached. Returns true if it released any lane. */
bool sync_cta_poll(Cta *c);
void sync_cta_free(Cta *c);
/* mbarrier waiters (src/exec/mbar.c), polled by sync_cta_poll after the
   CTA barriers (`released`: they released a lane): releases try_wait lanes
   whose phase completed or whose time limit passed. True if it released any. */
bool mbar_cta_poll(Cta *c, bool released);
/* Whether nothing of the CTA's mbarriers waits on time (the spin detector,
   src/exec/spin.c): no asynchronous copy in flight, no lane parked in a
   try_wait (its time limit may pass). */
bool mbar_cta_timeless(const Cta *c);
/* What the test_wait x of lane l tests, for the livelock report: the
   object, its state and the phase or parity it waits for; false when x is
   not a test_wait or its object cannot be named. */
/* The try_wait lane (wid, lane) of c is parked on: "mbarrier NAME: STATE;
   waits for parity P to complete" (the timeline, trace.c); false if none. */
bool mbar_wait_text(Cta *c, int wid, int lane, char *buf, size_t n);
bool mbar_describe_test(Warp *w, const XInsn *x, int l, char *buf, size_t n);
/* Whether the special register load x (x->fn == exec_sreg_load) reads
   virtual time (%clock, %clock64, %globaltimer...), which changes every
   step (sreg.c). */
bool sreg_timed(const XInsn *x);

#endif
