/* lower.h: the internals of lowering (src/lower/lower.c, dump.c) and what
 * the API (src/api/) asks of it. The Program it makes is declared in
 * src/exec/program.h; the services selectors use are in src/exec/exec.h.
 * Nothing in src/exec/ includes this header.
 *
 * Layout decisions (see lower.c for the reasons):
 *   - every function owns a private region of each register file, so a
 *     recursive call saves and restores just that region, per lane;
 *   - local memory of a thread: module-scope .local variables at fixed
 *     offsets from 0, then the frame of the kernel (its .local variables and
 *     the .param variables it declares for calls) at a fixed offset, then a
 *     per-lane stack. A .func's frame (its .local variables, formal .param
 *     parameters and return values, and call-site .param variables) is
 *     pushed on that stack by each call: its variables are addressed
 *     relative to the lane's frame pointer (the hidden 32-bit slot
 *     Program.fp_slot, 0 in a kernel), so each activation has its own;
 *     Program.sp_slot is the lane's stack pointer (alloca, stacksave,
 *     stackrestore); both are local offsets. Recursion saves registers only;
 *   - constant slots and the init image are shared by all functions;
 *   - a function's "address" (mov.u64 %rd, f; call through a register) is
 *     FUNC_ADDR_BASE + its index in Module.funcs. */
#ifndef PTXVM_LOWER_H
#define PTXVM_LOWER_H

#include <stdio.h>

#include "../exec/program.h"

/* The refusal that stops kernel from launching (its own first instruction
 * that ptxvm cannot execute, or the first one of a function it can call),
 * or NULL when it can launch; the kernel must have been lowered
 * (program_lower). */
const Refusal *program_kernel_refusal(const Program *p, const Function *kernel);

/* The lowered program as text (dump.c): its slot counts and variables,
 * then each function's header and decoded instructions, one a line (pc,
 * guard, handler, operand slots, the fields a family set, source line and
 * instruction). program_dump_source prints only the function called
 * `name` (NULL: all, as program_dump), false when there is none, and
 * shows each instruction's line of src (the module's PTX text; NULL: its
 * mnemonic). */
void program_dump(const Program *p, FILE *out);
bool program_dump_source(const Program *p, const char *name, const char *src, FILE *out);

#endif
