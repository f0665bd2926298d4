/* check.h: internal invariants and stress switches (STYLE.md §6, §9, §10;
 * Lua's lua_assert and ltests.h).
 *
 * PTXVM_ASSERT(cond) states an invariant of ptxvm itself (a scheduler's or
 * a collective's bookkeeping), never a property of the kernel: a kernel's
 * mistakes are located faults. In the debug build (make DEBUG=1, which
 * defines PTXVM_DEBUG) a broken one prints "ptxvm: internal error:
 * FILE:LINE: COND" on stderr and aborts, so the test that found it fails
 * loudly; elsewhere it is not compiled, and costs nothing (a function only
 * an assertion calls sits inside #ifdef PTXVM_DEBUG).
 *
 * The stress switches (make DEBUG=1 STRESS=1, PTXVM_STRESS) make rare paths
 * common: every warp runs one instruction per turn (interp.c QUANTUM), and a
 * context's default --schedule seed is PTXVM_STRESS_SEED instead of 0
 * (src/api/context.c), so lane groups and warps interleave as they may on a
 * GPU. Results must not change; printf order and reports that name "the
 * first" warp may. */
#ifndef PTXVM_CHECK_H
#define PTXVM_CHECK_H

#ifdef PTXVM_DEBUG
_Noreturn void ptxvm_assert_fail(const char *cond, const char *file, int line);
#define PTXVM_ASSERT(cond) ((cond) ? (void)0 : ptxvm_assert_fail(#cond, __FILE__, __LINE__))
#else
#define PTXVM_ASSERT(cond) ((void)0)
#endif

#ifdef PTXVM_STRESS
#define PTXVM_STRESS_SEED 0x5eed5eedull
#endif

#endif
