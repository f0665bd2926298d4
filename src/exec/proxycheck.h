/* proxycheck.h: the proxy-race checker of --check (issue 17, "Proxies";
 * src/exec/proxycheck.c says what it reports). */
#ifndef PTXVM_PROXYCHECK_H
#define PTXVM_PROXYCHECK_H

#include "interp.h"

typedef struct ProxyLaunch ProxyLaunch;

/* Launch boundaries (src/sched/launch.c launch_run), inside initcheck_begin
 * / initcheck_end: begin installs the checker as the launch's observer when
 * L->check, passing each access on to the observer already there; end turns
 * what it found into findings (exec_report_text), puts that observer back
 * and frees it. */
void proxycheck_begin(Launch *L);
void proxycheck_end(Launch *L);

/* Lanes mask of w execute fence.proxy.async (global_only: its .global form,
 * which orders no shared memory): their generic stores so far are fenced. */
void proxycheck_fence(Warp *w, uint32_t mask, bool global_only);

/* --check: lanes mask of w read, through the async proxy, the n spans of
 * size bytes at shared offsets off[] of their CTA (in bounds; x:
 * wgmma.mma_async's descriptor operands), judged as a bulk copy's source. */
void proxycheck_async_read(Warp *w, const XInsn *x, uint32_t mask, const uint32_t *off, size_t n,
                           uint32_t size);

#endif
