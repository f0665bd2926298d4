/* race.h: the data-race checker of --check (issue 17; src/exec/race.c
 * says how it decides). It sees every access through the memory-access
 * hook (exec.h) and every synchronization edge through the calls below,
 * which the synchronization handlers make; each returns at once when the
 * launch is not checked (Launch.race NULL), so they cost a call per
 * synchronization instruction, nothing per access: the calls taking a warp
 * are inline tests of its observer (mem_observed) before the work, and so is
 * any work before a call (asking for .relaxed). */
#ifndef PTXVM_RACE_H
#define PTXVM_RACE_H

#include "exec.h"

typedef struct Cluster Cluster;
typedef struct RaceLaunch RaceLaunch;
struct BarCta;

/* Launch boundaries (src/sched/launch.c launch_run): begin installs the
 * checker as the launch's observer when L->check; end turns what it found
 * into findings (exec_report_text) and frees it. */
void race_begin(Launch *L);
void race_end(Launch *L);
/* A cluster ended (interp.c cluster_end, after cta_free: the addresses of
 * its shared memory are still in its Ctas). */
void race_cluster_end(Cluster *cl);

/* bar / barrier (sync.c): lanes of w execute barrier id, sync (bar.sync,
 * bar.red: they wait) or not (bar.arrive); before the state machine runs. */
void race_bar_arrive_(Warp *w, uint32_t lanes, uint32_t id, bool sync);
static inline void race_bar_arrive(Warp *w, uint32_t lanes, uint32_t id, bool sync) {
  if (mem_observed(w)) race_bar_arrive_(w, lanes, id, sync);
}
/* bar.c's completion callback (BarCta.on_complete): barrier id of the CTA
 * completes; b->w[i].parked[id] are the lanes that waited. */
void race_bar_complete(void *cta, const struct BarCta *b, uint32_t id);
/* bar.warp.sync (warp.c): the member lanes met. */
void race_warp_sync_(Warp *w, uint32_t lanes);
static inline void race_warp_sync(Warp *w, uint32_t lanes) {
  if (mem_observed(w)) race_warp_sync_(w, lanes);
}
/* barrier.cluster (cluster.c): arrive (release: not .relaxed), the phase
 * completes, lanes return from wait. */
void race_cluster_arrive_(Warp *w, uint32_t lanes, bool release);
static inline void race_cluster_arrive(Warp *w, uint32_t lanes, bool release) {
  if (mem_observed(w)) race_cluster_arrive_(w, lanes, release);
}
void race_cluster_complete(Cluster *cl);
void race_cluster_wait_(Warp *w, uint32_t lanes);
static inline void race_cluster_wait(Warp *w, uint32_t lanes) {
  if (mem_observed(w)) race_cluster_wait_(w, lanes);
}
/* mbarrier (mbar.c), the object at host bytes obj: a release arrive (or
 * complete_tx) of lane; with agent_seq, a cp.async.mbarrier.arrive, which
 * also releases the thread's cp.async copies up to that group (1-based);
 * tx landing: a bulk copy (issue-order seq, 1-based) completed its bytes on
 * obj; a successful test_wait/try_wait of lane. */
void race_mbar_arrive_(Warp *w, int lane, const void *obj, uint32_t agent_seq);
static inline void race_mbar_arrive(Warp *w, int lane, const void *obj, uint32_t agent_seq) {
  if (mem_observed(w)) race_mbar_arrive_(w, lane, obj, agent_seq);
}
void race_mbar_tx_(Warp *w, int lane, const void *obj, uint32_t seq);
static inline void race_mbar_tx(Warp *w, int lane, const void *obj, uint32_t seq) {
  if (mem_observed(w)) race_mbar_tx_(w, lane, obj, seq);
}
void race_mbar_acquire_(Warp *w, int lane, const void *obj);
static inline void race_mbar_acquire(Warp *w, int lane, const void *obj) {
  if (mem_observed(w)) race_mbar_acquire_(w, lane, obj);
}
/* cp.async / cp.async.bulk groups (mbar.c): a copy's issue, commit, and a wait that
 * completed every group up to `upto` (1-based; 0: none). */
void race_async_issue_(Warp *w, int lane);
static inline void race_async_issue(Warp *w, int lane) {
  if (mem_observed(w)) race_async_issue_(w, lane);
}
void race_async_commit_(Warp *w, int lane, bool bulk);
static inline void race_async_commit(Warp *w, int lane, bool bulk) {
  if (mem_observed(w)) race_async_commit_(w, lane, bulk);
}
void race_async_waited_(Warp *w, int lane, bool bulk, uint32_t upto);
static inline void race_async_waited(Warp *w, int lane, bool bulk, uint32_t upto) {
  if (mem_observed(w)) race_async_waited_(w, lane, bulk, upto);
}
/* fence / membar (sync.c): a release and an acquire of each lane. */
void race_fence_(Warp *w, uint32_t lanes);
static inline void race_fence(Warp *w, uint32_t lanes) {
  if (mem_observed(w)) race_fence_(w, lanes);
}
/* a one-way fence (sync.c): only the release, or only the acquire. */
void race_fence_half_(Warp *w, uint32_t lanes, bool release);
static inline void race_fence_half(Warp *w, uint32_t lanes, bool release) {
  if (mem_observed(w)) race_fence_half_(w, lanes, release);
}

#endif
