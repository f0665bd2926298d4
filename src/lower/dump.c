/* dump.c: the lowered program as text (ptxvm check --dump-lowered, the
 * unit tests), Lua's listcode: what lowering decided, one decoded
 * instruction (XInsn) a line, so a lowering change shows in a diff.
 *
 *   .entry k: pc 0+6, r32 0+4, r64 0+2, pred 0+1, frame 0+0, shared 0
 *       pc guard  handler                 slots        fields        ; line:col instruction
 *        0        exec_sreg_load          1            %tid.x u32    ; 9:5 mov.u32 %r1, %tid.x;
 *        3 @!p0   exec_bra                             ->5           ; 12:3 @!%p1 bra $L__BB0_2;
 *
 * guard     the predicate slot and its sense (@p0: runs where slot 0 is
 *           true; @!p0: false); blank for an unguarded instruction
 * handler   the function the interpreter calls (exec.h HANDLER: its name
 *           as defined, so grep finds it)
 * slots     x->slot[0..nslots-1] in operand order: a register slot of the
 *           file the operand's width picks (exec.h), or a constant slot
 * fields    what the family set besides: the first (and second) type, the
 *           sub-operation, the immediate, the branch target (->pc), the
 *           special register of a load (%tid.x), a refusal's message
 * source    the PTX line and column of the instruction it was lowered from
 *           (a pseudo-instruction shows the one it serves), and its text
 *
 * Nothing here is on the execution path. */
#include "lower.h"

#include <string.h>

static void dump_fields(const XInsn *x, const char *name, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
#define ADD(...) do { if (k < n) k += (size_t)snprintf(buf + k, n - k, __VA_ARGS__); } while (0)
  if (x->fn == exec_sreg_load) {
    const Symbol *s = x->aux;
    ADD(s->sreg_comps ? " %s.%c" : " %s", s->name, "xyzw"[x->imm & 3]);
  }
  if (x->type) ADD(" %s", type_name((Type)x->type));
  if (x->type2) ADD(" %s", type_name((Type)x->type2));
  if (x->vec > 1) ADD(" v%u", x->vec);
  if (x->sub && x->fn != exec_sreg_load) ADD(" sub=%u", x->sub);
  if (x->imm && x->fn != exec_sreg_load) {
    if (x->imm > -4096 && x->imm < 4096) ADD(" imm=%lld", (long long)x->imm);
    else ADD(" imm=0x%llx", (unsigned long long)x->imm);   /* an address */
  }
  if (x->target) ADD(" ->%u", x->target);
  if (name && !strcmp(name, "exec_refused") && x->aux) {
    const char *msg = x->aux, *what = strstr(msg, ": ");   /* after FILE:LINE:COL */
    ADD(" refused: %.*s", (int)strcspn(what ? what + 2 : msg, "\n"), what ? what + 2 : msg);
  }
#undef ADD
}

/* Line `line` (1-based) of src without its indentation, as "%.*s" wants it. */
static int source_line(const char *src, uint32_t line, const char **start) {
  const char *q = src;
  for (uint32_t l = 1; l < line && q; l++) {
    q = strchr(q, '\n');
    if (q) q++;
  }
  if (!q) return 0;
  while (*q == ' ' || *q == '\t') q++;
  int n = (int)strcspn(q, "\r\n");
  while (n > 0 && (q[n - 1] == ' ' || q[n - 1] == '\t')) n--;
  *start = q;
  return n;
}

static void dump_insn(const Program *p, uint32_t pc, const char *src, FILE *out) {
  const XInsn *x = &p->code[pc];
  const char *name = exec_handler_name(x->fn);
  char guard[16] = "", slots[160] = "", fields[256], text[256];
  if (x->guard >= 0) snprintf(guard, sizeof guard, "@%sp%d", x->guard_neg ? "!" : "", x->guard);
  size_t k = 0;
  for (int i = 0; i < x->nslots && k < sizeof slots; i++) {
    if (x->slot[i] == UINT32_MAX) k += (size_t)snprintf(slots + k, sizeof slots - k, "%s_", i ? " " : "");
    else k += (size_t)snprintf(slots + k, sizeof slots - k, "%s%u", i ? " " : "", x->slot[i]);
  }
  dump_fields(x, name, fields, sizeof fields);
  fprintf(out, "  %5u %-6s %-23s %-12s %-14s", pc, guard, name ? name : "(unnamed handler)", slots,
          fields[0] ? fields + 1 : "");
  if (x->src) {
    const char *line = NULL;
    int n = src ? source_line(src, x->src->line, &line) : 0;
    if (n) fprintf(out, " ; %u:%u %.*s", x->src->line, x->src->col, n, line);
    else fprintf(out, " ; %u:%u %s", x->src->line, x->src->col, insn_text(x->src, text, sizeof text));
  }
  fputc('\n', out);
}

static void dump_func(const Program *p, const FuncInfo *fi, const char *src, FILE *out) {
  fprintf(out, "%s %s: pc %u+%u, r32 %u+%u, r64 %u+%u, pred %u+%u, frame %u+%u, shared %llu\n",
          fi->f->is_entry ? ".entry" : ".func", fi->f->name, fi->pc, fi->npc, fi->r32, fi->n32, fi->r64,
          fi->n64, fi->p0, fi->np, fi->frame, fi->frame_size, (unsigned long long)fi->shared_base);
  if (fi->npc) fprintf(out, "  %5s %-6s %-23s %-12s %-14s ; %s\n", "pc", "guard", "handler", "slots", "fields",
                       "line:col source");
  for (uint32_t pc = fi->pc; pc < fi->pc + fi->npc; pc++) dump_insn(p, pc, src, out);
}

bool program_dump_source(const Program *p, const char *name, const char *src, FILE *out) {
  if (!name) {
    fprintf(out, "program: %u insns, slots r32 %u r64 %u pred %u, local %u\n", p->ncode, p->n32, p->n64,
            p->npred, p->local_size);
    for (int i = 0; i < p->nvars; i++)
      fprintf(out, "  var %s (%s) @ %s0x%llx\n", p->vars[i].sym->name, space_name(p->vars[i].sym->space),
              p->vars[i].rel ? "fp+" : "", (unsigned long long)p->vars[i].addr);
  }
  bool found = !name;
  for (int i = 0; i < p->nfuncs; i++)
    if (!name || (p->funcs[i].f->has_body && !strcmp(p->funcs[i].f->name, name))) {
      dump_func(p, &p->funcs[i], src, out);
      found = true;
    }
  return found;
}

void program_dump(const Program *p, FILE *out) { program_dump_source(p, NULL, NULL, out); }
