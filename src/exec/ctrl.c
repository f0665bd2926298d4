/* ctrl.c: family CTRL, control flow (PTX ISA 9.0 §9.7.12): bra, brx.idx,
 * call, ret, exit.
 *
 * The handlers are thin: they say what happens (XS_BRANCH with w->taken,
 * XS_CALL, XS_RET, XS_EXIT) and the interpreter, which owns pcs, frames
 * and lane groups, does it. bra.uni is bra: .uni only promises that the
 * branch is not divergent, and executing it as a possibly divergent branch
 * is always correct. brx.idx moves each lane to the label its index selects
 * (interp_jump); an index outside the .branchtargets list is a fault (the
 * ISA leaves it undefined).
 *
 * call [(rets),] f [, (args)] [, proto|targets]: the selector records where
 * each argument and return value lives at the call site (a .param variable
 * of the caller's frame, a register or an immediate) in a CallInfo; the
 * interpreter copies arguments into the callee's formal parameters and
 * return values back when the callee returns. f is a function name (direct)
 * or a register holding a function address (indirect, through a
 * .callprototype; the target is checked at run time). A call to a function
 * without a body is refused ("call to external function 'f' is not
 * supported"), except CUDA's system calls: vprintf, the device printf,
 * which runs in printf.c, __assertfail (a failed assert(): a located fault
 * there), and malloc and free, the device heap (heap.c). */
#include "program.h"

HANDLER(exec_bra) {
  (void)x;
  w->taken = mask;
  return XS_BRANCH;
}

HANDLER(exec_brx_idx) {
  const BrxInfo *b = x->aux;
  const uint32_t *idx = R32(w, x->slot[0]);
  FOR_LANES(l) {
    if (!ACTIVE(mask, l)) continue;
    if (idx[l] >= b->n)
      return exec_fault(w, x, l, "brx.idx: index %u is outside the %u branch targets", idx[l], b->n);
  }
  FOR_LANES(l) if (ACTIVE(mask, l)) interp_jump(w, l, b->pcs[idx[l]]);
  return XS_NEXT;
}

HANDLER(exec_call) {
  (void)w; (void)x; (void)mask;
  return XS_CALL;
}

HANDLER(exec_ret) {
  (void)w; (void)x; (void)mask;
  return XS_RET;
}

HANDLER(exec_exit) {
  (void)w; (void)x; (void)mask;
  return XS_EXIT;
}

XStatus exec_ret_implicit(Warp *w, const XInsn *x, uint32_t mask) { return exec_ret(w, x, mask); }
HANDLER_NAME(exec_ret_implicit);
XStatus exec_exit_implicit(Warp *w, const XInsn *x, uint32_t mask) { return exec_exit(w, x, mask); }
HANDLER_NAME(exec_exit_implicit);

static bool select_bra(Lower *L, const Insn *in, XInsn *x) {
  const Operand *o = &in->opds[0];
  if (o->kind != OPD_SYM || o->sym->kind != SYM_LABEL) return false;
  lower_branch_target(L, o->sym);
  x->fn = exec_bra;
  return true;
}

static bool select_brx(Lower *L, const Insn *in, XInsn *x) {
  const Operand *t = &in->opds[1];
  if (t->kind != OPD_SYM || t->sym->kind != SYM_TARGETS) return false;
  BrxInfo *b = lower_aux(L, sizeof *b);
  b->n = (uint32_t)t->sym->ntargets;
  b->pcs = lower_aux(L, (b->n + 1) * sizeof *b->pcs);
  for (uint32_t i = 0; i < b->n; i++) lower_label_pc(L, &b->pcs[i], t->sym->targets[i]);
  x->slot[0] = lower_src(L, &in->opds[0], TY_U32);
  x->nslots = 1;
  x->aux = b;
  x->fn = exec_brx_idx;
  return true;
}

uint64_t call_opd_u64(Warp *w, const CallOpd *o, int l) {
  uint64_t v = 0;
  switch (o->kind) {
  case CO_MEM:   /* where: from the lane's frame pointer (program.h) */
    memcpy(&v, w->local + (size_t)l * w->local_size + R32(w, w->launch->prog->fp_slot)[l] + o->where,
           o->size < 8 ? o->size : 8);
    break;
  case CO_R32: v = R32(w, o->where)[l]; break;
  case CO_R64: v = R64(w, o->where)[l]; break;
  case CO_PRED: v = w->pred[o->where] >> l & 1; break;
  }
  return v;
}

void call_opd_put(Warp *w, const CallOpd *o, int l, uint64_t v) {
  switch (o->kind) {
  case CO_MEM:
    memcpy(w->local + (size_t)l * w->local_size + R32(w, w->launch->prog->fp_slot)[l] + o->where, &v,
           o->size < 8 ? o->size : 8);
    break;
  case CO_R32: R32(w, o->where)[l] = (uint32_t)v; break;
  case CO_R64: R64(w, o->where)[l] = v; break;
  case CO_PRED: pred_put(w, o->where, l, v & 1); break;
  }
}

/* Where one call argument or return value lives; `formal` types an
 * immediate (NULL: 32-bit). */
static bool call_opd(Lower *L, const Operand *o, const Symbol *formal, bool is_ret, CallOpd *c) {
  uint64_t off;
  if (o->kind == OPD_SYM && o->sym->kind == SYM_VAR && lower_var_offset(L, o->sym, &off)) {
    c->kind = CO_MEM;
    c->where = (uint32_t)(off + (uint64_t)o->ival);
    c->size = (uint32_t)o->sym->size;
    return true;
  }
  if (o->kind == OPD_REG && o->sym->kind == SYM_REG) {
    int f = lower_reg_file(o->sym);
    Operand first = *o;   /* a vector register: its slots from .x on */
    uint8_t n = o->sym->vec;
    if (n > 1 && o->comp < 0) {
      if (!formal || formal->kind != SYM_REG || formal->vec != n)
        lower_refuse(L, "vector register '%s' as a call argument needs a .reg .v%d formal "
                     "parameter of its shape", o->sym->name, n);
      first.comp = 0;
    } else {
      n = 1;
    }
    c->kind = f == 0 ? CO_R32 : f == 1 ? CO_R64 : CO_PRED;
    c->where = is_ret ? lower_dst(L, &first) : lower_src(L, &first, (Type)o->sym->type);
    c->size = f == 2 ? 1 : (uint32_t)type_size((Type)o->sym->type) * n;
    c->n = n;
    return true;
  }
  if (!is_ret && (o->kind == OPD_IMM || o->kind == OPD_FIMM || o->kind == OPD_REG)) {
    Type t = formal ? (Type)formal->type : TY_B32;
    if (type_size(t) == 0) t = TY_B32;
    c->kind = type_size(t) == 8 ? CO_R64 : CO_R32;
    c->where = lower_src(L, o, t);
    c->size = (uint32_t)type_size(t);
    return true;
  }
  return false;
}

static bool call_list(Lower *L, const Operand *list, Symbol *const *formals, int nformals,
                      bool is_ret, CallOpd **out) {
  *out = lower_aux(L, (size_t)(list->n + 1) * sizeof **out);
  for (int k = 0; k < list->n; k++)
    if (!call_opd(L, &list->elems[k], k < nformals ? formals[k] : NULL, is_ret, &(*out)[k]))
      return false;
  return true;
}

/* call (ret), vprintf, (fmt, args): the handler formats in printf.c; also
 * call __assertfail, (message, file, line, function, charSize), CUDA's
 * failed assert() (-G builds call it): a located fault (printf.c); and
 * call (ptr), malloc, (size) and call free, (ptr) (heap.c). */
static bool select_system(Lower *L, const Function *f, const Operand *rets, const Operand *args,
                           CallInfo *ci, XInsn *x) {
  if (!strcmp(f->name, "__assertfail")) {
    if (!args || args->n != 5 || rets) return false;
    ci->func = -1;
    ci->proto = f;
    if (!call_list(L, args, f->params, f->nparams, false, &ci->args)) return false;
    ci->nargs = 5;
    x->aux = ci;
    x->fn = exec_assertfail;
    return true;
  }
  bool is_malloc = !strcmp(f->name, "malloc");
  if (is_malloc || !strcmp(f->name, "free")) {
    if (!args || args->n != 1 || (rets && (!is_malloc || rets->n != 1))) return false;
    ci->func = -1;
    ci->proto = f;
    if (rets && !call_list(L, rets, f->rets, f->nrets, true, &ci->rets)) return false;
    if (!call_list(L, args, f->params, f->nparams, false, &ci->args)) return false;
    ci->nrets = rets ? 1 : 0;
    ci->nargs = 1;
    x->aux = ci;
    x->fn = is_malloc ? exec_malloc : exec_free;
    return true;
  }
  if (!args || args->n != 2 || (rets && rets->n != 1)) return false;
  ci->func = -1;
  ci->proto = f;
  if (rets && !call_list(L, rets, f->rets, f->nrets, true, &ci->rets)) return false;
  if (!call_list(L, args, f->params, f->nparams, false, &ci->args)) return false;
  ci->nrets = rets ? rets->n : 0;
  ci->nargs = 2;
  x->aux = ci;
  x->fn = exec_vprintf;
  return true;
}

static bool select_call(Lower *L, const Insn *in, XInsn *x) {
  int i = 0, n = in->nopds;
  const Operand *rets = NULL, *args = NULL, *fo;
  if (n > 1 && in->opds[0].kind == OPD_LIST) rets = &in->opds[i++];
  if (i >= n) return false;
  fo = &in->opds[i++];
  if (i < n && in->opds[i].kind == OPD_LIST) args = &in->opds[i++];
  CallInfo *ci = lower_aux(L, sizeof *ci);
  const Function *sig = NULL;
  if (fo->kind == OPD_SYM && fo->sym->kind == SYM_FUNC && fo->sym->func) {
    const Function *callee = fo->sym->func;
    if (!callee->has_body) {
      if (device_runtime_function(callee->name))
        lower_refuse(L, "call to '%s', a function of the CUDA device runtime (libcudadevrt): ptxvm does not "
                     "support device-side kernel launches (dynamic parallelism) or other device runtime calls",
                     callee->name);
      if (strcmp(callee->name, "vprintf") != 0 && strcmp(callee->name, "__assertfail") != 0 &&
          strcmp(callee->name, "malloc") != 0 && strcmp(callee->name, "free") != 0)
        lower_refuse(L, "call to external function '%s' is not supported", callee->name);
      return select_system(L, callee, rets, args, ci, x);
    }
    ci->func = lower_func_index(L, callee);
    if (ci->func < 0 || !lower_func_info(L, ci->func)->f->has_body) return false;
    sig = lower_func_info(L, ci->func)->f;
  } else if (fo->kind == OPD_REG && fo->sym->kind == SYM_REG) {
    ci->func = -1;
    ci->fslot = lower_src(L, fo, (Type)fo->sym->type);
    ci->fslot32 = lower_reg_file(fo->sym) == 0;
    if (i < n && in->opds[i].kind == OPD_SYM && in->opds[i].sym->kind == SYM_PROTO)
      sig = in->opds[i].sym->func;
  } else {
    return false;
  }
  ci->proto = sig;
  if (rets && !call_list(L, rets, sig ? sig->rets : NULL, sig ? sig->nrets : 0, true, &ci->rets))
    return false;
  if (args && !call_list(L, args, sig ? sig->params : NULL, sig ? sig->nparams : 0, false, &ci->args))
    return false;
  ci->nrets = rets ? rets->n : 0;
  ci->nargs = args ? args->n : 0;
  x->aux = ci;
  x->fn = exec_call;
  return true;
}

bool exec_select_CTRL(Lower *L, const Insn *in, XInsn *x) {
  switch ((Opcode)in->op) {
  case OP_BRA: return select_bra(L, in, x);
  case OP_BRX_IDX: return select_brx(L, in, x);
  case OP_CALL: return select_call(L, in, x);
  case OP_RET: x->fn = exec_ret; return true;
  case OP_EXIT: x->fn = exec_exit; return true;
  default: return false;
  }
}
