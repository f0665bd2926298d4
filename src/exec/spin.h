/* spin.h: the spin detector (src/exec/spin.c) as lowering, the interpreter
 * (src/exec/interp.c) and the launcher (src/sched/launch.c) use it. */
#ifndef PTXVM_EXEC_SPIN_H
#define PTXVM_EXEC_SPIN_H

#include "interp.h"

/* Whether x is an effect (XInsn.fx, set by lowering): it may change more
 * than its own lanes' registers (memory, barriers, other lanes, frames,
 * exits), depend on other lanes, or read virtual time. */
bool exec_effect(const XInsn *x);

/* A warp's lanes as a probe sees them (effective pcs: the running group's
 * at its group pc). */
typedef struct SpinLanes {
  uint32_t pc[WARP_SIZE], depth[WARP_SIZE], func[WARP_SIZE];
  uint32_t group, waiting, exited, cc;
} SpinLanes;

/* At a backward branch that the whole group `ln->group` took from pc
 * `edge` while every other runnable lane of the warp is held at an aligned
 * barrier: snapshots the warp or compares it with its snapshot. `fx` is
 * the warp's effect count. Returns true when the warp is proven to spin
 * (the same state came back with no effect in between): it needs no
 * further probes. *slot is the warp's detector state (spin_free). */
bool spin_probe(Warp *w, void **slot, const SpinLanes *ln, uint64_t fx, uint32_t edge);
void spin_free(void *slot);

/* Every SPIN_CHECK warp-instructions of the cluster (cluster_loop, after a
 * round; `released`: the round's polls released lanes): true when the
 * cluster is proven stuck as long as no other cluster changes memory
 * (ClusterStatus CLUSTER_STUCK). It also sends the launch's note when the
 * cluster has run for a few seconds. */
enum { SPIN_CHECK = 1 << 15 };
bool spin_check(Cluster *cl, bool released);

/* The loop warp w was proven to spin in: its head and backward branch
 * pcs and lanes; false when it was not. */
bool spin_loop(Warp *w, uint32_t *head, uint32_t *edge, uint32_t *lanes);

/* ---- interpreter services for the detector (interp.c) ---- */
uint64_t interp_effects(const Warp *w);
void **interp_spin(Warp *w);
/* Probing on (the warp probes at its next backward branch) or off. */
void interp_probe(Warp *w, bool on);

#endif
