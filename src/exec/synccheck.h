/* synccheck.h: the synchronization misuse checker of --check (issue 17). */
#ifndef PTXVM_EXEC_SYNCCHECK_H
#define PTXVM_EXEC_SYNCCHECK_H

#include <stdbool.h>
#include <stdint.h>

struct BarCta;
struct XInsn;

/* BarCta.on_check (src/sync/bar.h): barrier id of CTA ctx (a Cta) completes;
 * reports a completion of the no-count form (__syncthreads) whose waiting
 * threads came from different aligned barrier instructions, and one whose
 * thread count differs from the id's previous completion in the CTA. */
void synccheck_bar_complete(void *ctx, const struct BarCta *b, uint32_t id);

/* Whether bar instruction x is an aligned form (src/exec/sync.c). */
bool sync_bar_aligned(const struct XInsn *x);

#endif
