/* warpsync.h: the warp-level rendezvous of the .sync collectives
 * (bar.warp.sync, shfl.sync, vote.sync, match.sync, redux.sync, elect.sync;
 * sync digest §1.3, §1.5, §6, §11-§16; DESIGN.md "Independent thread
 * scheduling").
 *
 * A lane that executes a .sync collective arrives at the warp's open
 * gathering for its membermask and waits (XS_WAIT); the other lanes of the
 * warp keep running. A gathering completes when every lane of its mask that
 * exists and has not exited has arrived, from any instruction with the same
 * key (opcode and qualifiers): a warp split by if/else meets across the two
 * arms. The completion callback then computes every participant's result
 * from the inputs each lane supplied when it arrived, and the lanes are
 * released (interp_release). Errors, each a located fault of the
 * instruction: a lane not in its own membermask; a lane arriving with a
 * membermask that overlaps, but differs from, an open gathering's (or
 * another executing lane's); the same membermask at a collective of another
 * kind or qualifiers. */
#ifndef PTXVM_WARPSYNC_H
#define PTXVM_WARPSYNC_H

#include "exec.h"

/* One open gathering: its mask and key, the lanes that arrived, and for each
 * the instruction it arrived at and up to three 64-bit inputs. */
typedef struct WsGather WsGather;
/* Writes the results of `lanes` (the participants) of g. */
typedef void (*WsDone)(Warp *w, const WsGather *g, uint32_t lanes);

struct WsGather {
  uint32_t mask, key, arrived;
  WsDone done;
  const XInsn *at[WARP_SIZE];
  uint64_t in[WARP_SIZE][3];
};

/* Lanes `exec` execute collective x (`name` for messages) with key `key`;
 * mm[l] is lane l's membermask and in[l] its inputs. Returns XS_NEXT when
 * every gathering completed at once (results written), XS_WAIT when the
 * lanes wait, XS_TRAP after a fault. */
XStatus warpsync_arrive(Warp *w, const XInsn *x, uint32_t exec, const char *name, uint32_t key,
                        const uint32_t *mm, const uint64_t (*in)[3], WsDone done);

/* The interpreter calls this after lanes of w waited or exited: completes
 * and releases the gatherings no remaining lane holds back. */
void warpsync_poll(Warp *w);
/* Deadlock report: a description of what waiting lane `lane` waits for
 * (the mask and the missing lanes); false when it does not wait here. */
bool warpsync_describe(Warp *w, int lane, char *buf, size_t n);
void warpsync_free(void *ws);

/* The interpreter's slot for the warp's rendezvous state (interp.c). */
void **interp_wsync(Warp *w);

#endif
