/* trace.h: the launch's timeline (ptxvm_set_trace, the CLI's --trace) in
 * the Chrome trace-event JSON format. The interpreter calls these only when
 * Launch.trace is set, so a launch without a trace pays one branch per
 * warp turn (interp.c cluster_loop) and per mbarrier phase or async copy.
 *
 * Time is virtual: the cluster's warp-instructions so far (a turn of warp
 * w that starts at T runs its k-th instruction at T + k), so a trace is
 * the same on every machine for the same schedule. pid: the CTA's linear
 * index in the grid; tid: the warp. */
#ifndef PTXVM_TRACE_H
#define PTXVM_TRACE_H

#include <stdint.h>

#include "interp.h"

typedef struct Trace Trace;

/* A trace that keeps at most max_events events (0: TRACE_DEFAULT_MAX);
 * NULL when memory runs out. */
enum { TRACE_DEFAULT_MAX = 1000000 };
Trace *trace_new(uint64_t max_events);
/* Writes t's events to path (sorted by cluster, each cluster's in the
 * order they happened) and frees t; false with errno set when the file
 * cannot be written. *dropped: the events beyond the bound. */
bool trace_write(Trace *t, const char *path, uint64_t *dropped);
void trace_free(Trace *t);

/* A turn of warp w of cluster cl begins at cluster time t0. */
void trace_turn_begin(Cluster *cl, Warp *w, uint64_t t0);
/* ... and ends having run n instructions; blocked: it stopped because no
 * lane of it could run. */
void trace_turn_end(Cluster *cl, Warp *w, uint64_t n, bool blocked);
/* Lanes of w were released from a wait (interp_release): its wait ends. */
void trace_release(Warp *w);
/* Between rounds (the barrier polls): cluster time t. */
void trace_at(Cluster *cl, uint64_t t);
/* Closes the cluster's open spans; frees its state (cluster_end). */
void trace_cluster_end(Cluster *cl);
/* An mbarrier phase of CTA c at shared offset off completed (phase: the
 * new current phase). */
void trace_mbar_phase(Cta *c, uint32_t off, uint32_t phase);
/* An asynchronous copy of thread wl (warp * 32 + lane) of CTA c, number
 * ord of its stream, is issued (begin) or lands (!begin). */
void trace_async(Cta *c, int wl, const char *kind, uint32_t stream, uint32_t ord, bool begin);

#endif
