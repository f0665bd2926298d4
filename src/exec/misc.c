/* misc.c: family MISC (PTX ISA 9.0 §9.7.19): trap and brkpt, pmevent;
 * the stack manipulation instructions stacksave, stackrestore and alloca
 * (§9.7.18).
 *
 * trap aborts the kernel: a located fault, so the launch fails and names
 * the thread. brkpt suspends execution for a debugger; with no debugger
 * attached we report it the same way (the user asked to stop there).
 * pmevent triggers a performance-monitor event, which we do not model: a
 * no-op. setmaxnreg, a warpgroup instruction, is src/exec/wgmma.c's.
 *
 * Stack: each lane's stack pointer is a .local address (an offset in its
 * local memory) in the hidden slot Program.sp_slot (program.h); the stack
 * grows upwards from the kernel's frame, and calls push .func frames on it
 * (interp.c). alloca.type ptr, size{, align} rounds the stack pointer up to
 * align (default 8, §9.7.18.3), returns it in ptr (.local, usable by
 * ld.local / st.local, or generic after cvta.local) and advances it by size;
 * the memory lives until the function returns or a stackrestore. An
 * allocation past the thread's local memory is a located "local stack
 * overflow" fault. stacksave copies the stack pointer; stackrestore sets it,
 * and a value outside [end of the current frame, local size] is a fault
 * rather than a corrupt stack. */
#include "program.h"

HANDLER(exec_trap) {
  (void)mask;
  /* cooperative_groups' grid sync traps when the launch gave it no grid
   * workspace (%envreg1:%envreg2, sreg.c): say which launch it needs */
  const Launch *L = w->launch;
  char where[1024];
  exec_where(L->prog, x, where, sizeof where);
  if (!L->cooperative && !L->envreg[1] && !L->envreg[2] && strstr(where, "cooperative_groups"))
    return exec_fault_kind(w, x, -1, FAULT_TRAP, "trap in cooperative groups: a grid sync (this_grid().sync()) "
                           "needs a cooperative launch (cudaLaunchCooperativeKernel, ptxvm run --cooperative)");
  return exec_fault_kind(w, x, -1, FAULT_TRAP, "trap");
}

HANDLER(exec_brkpt) {
  (void)mask;
  return exec_fault_kind(w, x, -1, FAULT_TRAP, "brkpt: breakpoint reached (no debugger attached)");
}

HANDLER(exec_pmevent) {
  (void)w; (void)x; (void)mask;
  return XS_NEXT;
}

/* ---- stack (x->type: .u32 or .u64; x->imm: alloca's alignment, or
   stackrestore's lowest value relative to the frame pointer) ---- */

static bool wide(const XInsn *x) { return type_size((Type)x->type) == 8; }

static uint64_t opd64(Warp *w, const XInsn *x, uint32_t slot, int l) {
  return wide(x) ? R64(w, slot)[l] : R32(w, slot)[l];
}

static void set64(Warp *w, const XInsn *x, uint32_t slot, int l, uint64_t v) {
  if (wide(x)) R64(w, slot)[l] = v;
  else R32(w, slot)[l] = (uint32_t)v;
}

HANDLER(exec_alloca) {
  uint32_t *sp = R32(w, w->launch->prog->sp_slot);
  uint64_t align = (uint64_t)x->imm;
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t size = opd64(w, x, x->slot[1], l), a = ((uint64_t)sp[l] + align - 1) & ~(align - 1);
    if (size > w->local_size || a + size > w->local_size)
      return exec_fault_kind(w, x, l, FAULT_ADDRESS, "local stack overflow: alloca of %llu bytes at stack pointer 0x%x "
                        "needs %llu bytes of local memory per thread, there are %u bytes",
                        (unsigned long long)size, sp[l], (unsigned long long)(a + size),
                        w->local_size);
    sp[l] = (uint32_t)(a + size);
    set64(w, x, x->slot[0], l, a);
  }
  return XS_NEXT;
}

HANDLER(exec_stacksave) {
  const uint32_t *sp = R32(w, w->launch->prog->sp_slot);
  FOR_LANES(l) if (ACTIVE(mask, l)) set64(w, x, x->slot[0], l, sp[l]);
  return XS_NEXT;
}

HANDLER(exec_stackrestore) {
  const Program *p = w->launch->prog;
  uint32_t *sp = R32(w, p->sp_slot);
  const uint32_t *fp = R32(w, p->fp_slot);
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    uint64_t v = opd64(w, x, x->slot[0], l), lo = fp[l] + (uint64_t)x->imm;
    if (v < lo || v > w->local_size)
      return exec_fault(w, x, l, "stackrestore: 0x%llx is not a stack pointer of this function's "
                        "activation (0x%llx..0x%x)", (unsigned long long)v,
                        (unsigned long long)lo, w->local_size);
    sp[l] = (uint32_t)v;
  }
  return XS_NEXT;
}

/* End of the current function's frame, relative to its frame pointer. */
static int64_t frame_end(Lower *L, const XInsn *x) {
  int i = lower_func_index(L, x->func);
  if (i < 0) return 0;
  const FuncInfo *fi = lower_func_info(L, i);
  return (int64_t)((fi->frame + fi->frame_size + 15u) & ~15u);
}

static bool select_stack(Lower *L, const Insn *in, XInsn *x) {
  Type t = in->ntypes ? (Type)in->types[0] : TY_NONE;
  if (t != TY_U32 && t != TY_U64) return false;
  switch ((Opcode)in->op) {
  case OP_STACKSAVE:
    if (in->nopds != 1) return false;
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->nslots = 1;
    x->fn = exec_stacksave;
    return true;
  case OP_STACKRESTORE:
    if (in->nopds != 1) return false;
    x->slot[0] = lower_src(L, &in->opds[0], t);
    x->nslots = 1;
    x->imm = frame_end(L, x);
    x->fn = exec_stackrestore;
    return true;
  case OP_ALLOCA: {
    if (in->nopds < 2 || in->nopds > 3) return false;
    int64_t align = 8;
    if (in->nopds == 3) {
      const Operand *a = &in->opds[2];
      if (a->kind != OPD_IMM || a->ival <= 0 || (a->ival & (a->ival - 1)) || a->ival > (1 << 16))
        lower_refuse(L, "alloca: the alignment must be a constant power of two");
      align = a->ival;
    }
    x->slot[0] = lower_dst(L, &in->opds[0]);
    x->slot[1] = lower_src(L, &in->opds[1], t);
    x->nslots = 2;
    x->imm = align;
    x->fn = exec_alloca;
    return true;
  }
  default:
    return false;
  }
}

bool exec_select_MISC(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_TRAP: x->fn = exec_trap; return true;
  case OP_BRKPT: x->fn = exec_brkpt; return true;
  case OP_PMEVENT: x->fn = exec_pmevent; return true;
  case OP_STACKSAVE: case OP_STACKRESTORE: case OP_ALLOCA: return select_stack(L, in, x);
  case OP_SETMAXNREG: return wgmma_select(L, in, x);
  default: return false;
  }
}
