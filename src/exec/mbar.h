/* mbar.h: the asynchronous-copy queue of a CTA, kept with its mbarrier table
 * (src/exec/mbar.c) because completions signal mbarriers; src/exec/async.c
 * issues into it. The model is described in async.c's header. */
#ifndef PTXVM_EXEC_MBAR_H
#define PTXVM_EXEC_MBAR_H

#include "exec.h"

/* Queues the copy of `size` bytes to dst (a host pointer already checked)
 * from src, of which the first nsrc are copied (snapshot now) and the rest
 * zero-filled, for `lane` of w. bulk: a bulk copy (bulk_group bookkeeping,
 * unless tx). tx: on completion, complete_tx(size) on the mbarrier at
 * (msp, maddr), which is checked now. */
XStatus mbar_async_copy(Warp *w, const XInsn *x, int lane, bool bulk, uint8_t *dst,
                        const uint8_t *src, uint32_t size, uint32_t nsrc, bool tx, Space msp,
                        uint64_t maddr);
/* cp.async.mbarrier.arrive{.noinc}: arrive on (msp, maddr) once the lane's
 * earlier cp.async copies completed (pending += 1 first without noinc). */
XStatus mbar_async_arrive(Warp *w, const XInsn *x, int lane, bool noinc, Space msp, uint64_t maddr);
/* commit_group: the lane's uncommitted copies form a group. */
void mbar_async_commit(Warp *w, int lane, bool bulk);
/* wait_group n: completes the lane's committed groups but the newest n;
 * all: wait_all (every copy of the lane, committed or not). */
void mbar_async_wait(Warp *w, int lane, bool bulk, uint32_t n, bool all);

#endif
