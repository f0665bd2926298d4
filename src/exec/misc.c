/* misc.c: family MISC (PTX ISA 9.0 §9.7.19): trap and brkpt, pmevent.
 *
 * trap aborts the kernel: a located fault, so the launch fails and names
 * the thread. brkpt suspends execution for a debugger; with no debugger
 * attached we report it the same way (the user asked to stop there).
 * pmevent triggers a performance-monitor event, which we do not model: a
 * no-op. stacksave, stackrestore, alloca and setmaxnreg are a later issue. */
#include "../lower/lower.h"

static XStatus exec_trap(Warp *w, const XInsn *x, uint32_t mask) {
  (void)mask;
  return exec_fault(w, x, -1, "trap");
}

static XStatus exec_brkpt(Warp *w, const XInsn *x, uint32_t mask) {
  (void)mask;
  return exec_fault(w, x, -1, "brkpt: breakpoint reached (no debugger attached)");
}

static XStatus exec_pmevent(Warp *w, const XInsn *x, uint32_t mask) {
  (void)w; (void)x; (void)mask;
  return XS_NEXT;
}

bool exec_select_MISC(Lower *L, const Insn *in, XInsn *x) {
  (void)L;
  switch ((Opcode)in->op) {
  case OP_TRAP: x->fn = exec_trap; return true;
  case OP_BRKPT: x->fn = exec_brkpt; return true;
  case OP_PMEVENT: x->fn = exec_pmevent; return true;
  default: return false;
  }
}
