/* mbar.h: the asynchronous-copy queue of a CTA, kept with its mbarrier table
 * (src/exec/mbar.c) because completions signal mbarriers; src/exec/async.c
 * issues into it. The model is described in async.c's header. */
#ifndef PTXVM_EXEC_MBAR_H
#define PTXVM_EXEC_MBAR_H

#include "exec.h"
#include "bulkred.h"

/* The kinds of asynchronous group a thread commits and waits for, each with
 * its own sequence of groups: cp.async.commit_group / wait_group / wait_all,
 * and cp.async.bulk.commit_group / wait_group (bulk_group completion).
 * (wgmma.commit_group / wait_group are wgmma.c's: their results land in
 * registers, per warp, not through this queue.) */
typedef enum { AG_CP_ASYNC, AG_BULK, AG_NKINDS } AsyncGroup;

/* What an item of the queue is, and so how it completes: a cp.async copy
 * (group AG_CP_ASYNC), a bulk copy of group AG_BULK, a bulk copy that
 * signals complete_tx on an mbarrier (no group), the deferred arrive of
 * cp.async.mbarrier.arrive (group AG_CP_ASYNC). */
typedef enum { AS_CP_ASYNC, AS_BULK_GROUP, AS_BULK_TX, AS_ARRIVE } AsyncKind;

/* Queues the copy of `size` bytes to dst (a host pointer already checked)
 * from src, of which the first nsrc are copied (snapshot now) and the rest
 * zero-filled, for `lane` of w; kind AS_CP_ASYNC, AS_BULK_GROUP or
 * AS_BULK_TX: on completion, complete_tx(size) on the mbarrier at (msp,
 * maddr), which is checked now. */
XStatus mbar_async_copy(Warp *w, const XInsn *x, int lane, AsyncKind kind, uint8_t *dst,
                        const uint8_t *src, uint32_t size, uint32_t nsrc, Space msp,
                        uint64_t maddr);
/* A bulk-group item (AS_BULK_GROUP) like mbar_async_copy's of size bytes
 * from src (snapshot now) that lands as the reduction dst[i] = op(dst[i],
 * src[i]) of element type type (bulkred_apply, at landing). */
XStatus mbar_async_reduce(Warp *w, const XInsn *x, int lane, uint8_t *dst, const uint8_t *src,
                          uint32_t size, BulkRedOp op, BulkRedType type);
/* A reduction's landing (red.async, cp.reduce.async.bulk; remote.c): the
 * operation and element type the landing applies to dst's elements. */
typedef struct AsReduce { int op; Type type; uint8_t esize; bool global, ftz; } AsReduce;
/* mbar_async_copy whose landing reduces the bytes into dst with red
 * (remote_land_reduce) instead of copying them (red NULL: a copy). */
XStatus mbar_async_reduce_with(Warp *w, const XInsn *x, int lane, AsyncKind kind, uint8_t *dst,
                               const uint8_t *src, uint32_t size, uint32_t nsrc, Space msp,
                               uint64_t maddr, const AsReduce *red);
/* Applies red element-wise: dst[i] = dst[i] op src[i] (remote.c). */
void remote_land_reduce(const AsReduce *red, uint8_t *dst, const uint8_t *src, uint32_t size);
/* commit_group of kind g: the lane's uncommitted items of g form a group. */
void mbar_async_commit(Warp *w, int lane, AsyncGroup g);
/* wait_group n of kind g: completes the lane's committed groups of g but the
 * newest n. */
void mbar_async_wait(Warp *w, int lane, AsyncGroup g, uint32_t n);
/* cp.async.wait_all: every cp.async item of the lane, committed or not. */
void mbar_async_wait_all(Warp *w, int lane);

#endif
