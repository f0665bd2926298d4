/* stream.c: streams, events, host functions and stream callbacks.
 *
 * Work is executed when it is issued, so every stream is always idle:
 * synchronizing or querying one only reports its context's sticky error,
 * and an event records the host's monotonic clock when it is recorded
 * (cuEventElapsedTime then measures the simulation's own time); a wait on an
 * event has nothing to wait for. A host function or stream callback runs at
 * its call, after all the work issued before it (every stream's), which is
 * every order CUDA promises. While a stream captures (graph.c), records,
 * waits and host functions become nodes of its graph instead, and the calls
 * that would wait for it are refused (drv_capture_sync).
 *
 * As cuda.h says, a host function or callback may not call CUDA: inside one,
 * every entry point that checks initialization (drv_initialized) returns
 * CUDA_ERROR_NOT_PERMITTED. The per-thread flavours (_ptsz) of these calls
 * take stream 0 as CU_STREAM_PER_THREAD, which ptxvm runs as the legacy
 * stream except that it never captures nor waits for a capture. */
#include <stdlib.h>

#include "driver.h"

enum { PRIORITY_LEAST = 0, PRIORITY_GREATEST = -5 };   /* an H100/H200's range */

_Thread_local bool drv_in_host_fn;

static bool default_stream(CUstream s) {
  return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

/* Stream 0 of a per-thread flavour. */
static CUstream per_thread(CUstream s) { return s ? s : CU_STREAM_PER_THREAD; }

CUresult drv_stream_ctx(CUstream s, CUcontext *ctx) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (default_stream(s)) {
    *ctx = NULL;
    return drv_current() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
  }
  if (!drv_live(s, MAGIC_STREAM)) return CUDA_ERROR_INVALID_HANDLE;
  *ctx = s->ctx;
  return CUDA_SUCCESS;
}

/* Checks s and its context's sticky error, as every call that issues work. */
static CUresult stream_work(CUstream s) {
  CUcontext sc, c;
  CUresult r = drv_stream_ctx(s, &sc);
  if (r != CUDA_SUCCESS) return r;
  r = drv_enter_work(sc, &c);
  if (r == CUDA_SUCCESS) drv_leave(c);
  return r;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  return cuStreamCreateWithPriority(phStream, Flags, 0);
}

/* A priority outside the range is clamped to it, as documented. */
CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority) {
  CUcontext c;
  if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter_work(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  CUstream s = calloc(1, sizeof *s);
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  if (priority < PRIORITY_GREATEST) priority = PRIORITY_GREATEST;
  if (priority > PRIORITY_LEAST) priority = PRIORITY_LEAST;
  *s = (struct CUstream_st){.magic = MAGIC_STREAM, .ctx = c, .flags = flags, .priority = priority};
  if (!drv_handle_add(s)) {
    free(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *phStream = s;
  return CUDA_SUCCESS;
}

/* A stream that is capturing leaves its capture (graph.c). */
CUresult cuStreamDestroy_v2(CUstream hStream) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (default_stream(hStream) || !drv_live(hStream, MAGIC_STREAM)) return CUDA_ERROR_INVALID_HANDLE;
  drv_capture_stream_gone(hStream);
  drv_handle_remove(hStream);
  free(hStream);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  CUcontext c;
  CUresult r = drv_enter(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  if (leastPriority) *leastPriority = PRIORITY_LEAST;
  if (greatestPriority) *greatestPriority = PRIORITY_GREATEST;
  return CUDA_SUCCESS;
}

/* The default streams have priority 0 and no flags. */
CUresult cuStreamGetPriority(CUstream hStream, int *priority) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!priority) return CUDA_ERROR_INVALID_VALUE;
  *priority = default_stream(hStream) ? 0 : hStream->priority;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  *flags = default_stream(hStream) ? CU_STREAM_DEFAULT : hStream->flags;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = sc ? sc : drv_current();
  return CUDA_SUCCESS;
}

/* ptxvm has no green contexts. */
CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx) {
  if (!pGreenCtx) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = cuStreamGetCtx(hStream, pCtx);
  if (r == CUDA_SUCCESS) *pGreenCtx = NULL;
  return r;
}

CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}

PER_THREAD(cuStreamGetPriority_ptsz, cuStreamGetPriority)
PER_THREAD(cuStreamGetFlags_ptsz, cuStreamGetFlags)
PER_THREAD(cuStreamGetCtx_ptsz, cuStreamGetCtx)
PER_THREAD(cuStreamGetCtx_v2_ptsz, cuStreamGetCtx_v2)
PER_THREAD(cuStreamGetDevice_ptsz, cuStreamGetDevice)

/* Nothing is pending on any stream: the answer is the capture's verdict
 * (graph.c), then the context's sticky error. */
static CUresult stream_idle(CUstream s) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(s, &sc);
  if (r != CUDA_SUCCESS) return r;
  r = drv_capture_sync(s);
  return r != CUDA_SUCCESS ? r : stream_work(s);
}

CUresult cuStreamSynchronize(CUstream hStream) {
  drv_printf_flush();
  return stream_idle(hStream);
}
CUresult cuStreamQuery(CUstream hStream) { return stream_idle(hStream); }

CUresult cuStreamSynchronize_ptsz(CUstream hStream);
CUresult cuStreamSynchronize_ptsz(CUstream hStream) {
  drv_printf_flush();
  return stream_idle(per_thread(hStream));
}
CUresult cuStreamQuery_ptsz(CUstream hStream);
CUresult cuStreamQuery_ptsz(CUstream hStream) { return stream_idle(per_thread(hStream)); }

/* ---- host functions ---- */

void drv_run_host_fn(CUhostFn fn, void *data) {
  drv_printf_flush();   /* a GPU writes the output before a host function runs */
  bool outer = drv_in_host_fn;
  drv_in_host_fn = true;
  fn(data);
  drv_in_host_fn = outer;
}

/* Runs fn at once, after everything issued before it; while hStream
 * captures, it becomes a host node. Not called once the context has failed
 * (the sticky error is returned instead), as documented. */
CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData) {
  CUresult r = stream_work(hStream);
  if (r != CUDA_SUCCESS) return r;
  if (!fn) return CUDA_ERROR_INVALID_VALUE;
  DrvOp op = {DRV_OP_HOST, .u.host = {fn, userData}};
  if (drv_capture(hStream, &op, &r)) return r;
  drv_run_host_fn(fn, userData);
  return CUDA_SUCCESS;
}

/* As cuLaunchHostFunc, with the stream and status given to the callback;
 * capture does not take callbacks (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED). */
CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags) {
  CUresult r = stream_work(hStream);
  if (r != CUDA_SUCCESS) return r;
  if (!callback || flags) return CUDA_ERROR_INVALID_VALUE;
  r = drv_capture_sync(hStream);
  if (r != CUDA_SUCCESS) return r;
  bool outer = drv_in_host_fn;
  drv_in_host_fn = true;
  callback(hStream, CUDA_SUCCESS, userData);
  drv_in_host_fn = outer;
  return CUDA_SUCCESS;
}

CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData);
CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData) {
  return cuLaunchHostFunc(per_thread(hStream), fn, userData);
}
CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags);
CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags) {
  return cuStreamAddCallback(per_thread(hStream), callback, userData, flags);
}

/* ---- events ---- */

static bool live_event(CUevent e) { return drv_live(e, MAGIC_EVENT); }

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  CUcontext c;
  unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (!phEvent || (Flags & ~known)) return CUDA_ERROR_INVALID_VALUE;
  if (Flags & CU_EVENT_INTERPROCESS) {
    drv_say("cuEventCreate: CU_EVENT_INTERPROCESS is not implemented");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  CUresult r = drv_enter(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  CUevent e = calloc(1, sizeof *e);
  if (!e) return CUDA_ERROR_OUT_OF_MEMORY;
  *e = (struct CUevent_st){.magic = MAGIC_EVENT, .ctx = c, .flags = Flags};
  if (!drv_handle_add(e)) {
    free(e);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *phEvent = e;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent hEvent) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!live_event(hEvent)) return CUDA_ERROR_INVALID_HANDLE;
  drv_capture_event_gone(hEvent);
  drv_handle_remove(hEvent);
  free(hEvent);
  return CUDA_SUCCESS;
}

/* The event and the stream must be of one context. */
static CUresult event_on(CUevent e, CUstream s) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(s, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!live_event(e) || e->ctx != (sc ? sc : drv_current())) return CUDA_ERROR_INVALID_HANDLE;
  return stream_work(s);
}

/* In a capturing stream, the record marks the capture's nodes so far
 * (graph.c); else it takes the time. */
static CUresult event_record(CUevent hEvent, CUstream hStream, unsigned flags) {
  CUresult r = event_on(hEvent, hStream);
  if (r != CUDA_SUCCESS) return r;
  if (drv_capture_event(hStream, hEvent, flags, false, &r)) return r;
  hEvent->recorded = true;
  hEvent->t_ms = drv_now_ms();
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return event_record(hEvent, hStream, 0); }

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
  return event_record(hEvent, hStream, flags);
}

CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream);
CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { return cuEventRecord(hEvent, per_thread(hStream)); }
CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags);
CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags) {
  return cuEventRecordWithFlags(hEvent, per_thread(hStream), flags);
}

/* Everything an event can stand for has run, so outside capture a wait
 * only checks its arguments; in capture it adds the event's nodes to the
 * stream's dependencies, or brings the stream into the capture (graph.c). */
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!live_event(hEvent)) return CUDA_ERROR_INVALID_HANDLE;
  if (Flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
  r = stream_work(hStream);
  if (r != CUDA_SUCCESS) return r;
  drv_capture_event(hStream, hEvent, Flags, true, &r);
  return r;
}

CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags);
CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return cuStreamWaitEvent(per_thread(hStream), hEvent, Flags);
}

/* A recorded event has completed (its work ran when it was issued); one never
 * recorded counts as complete too, as in CUDA. One last recorded in a capture
 * stands for no work that runs: CUDA_ERROR_CAPTURED_EVENT. */
CUresult cuEventQuery(CUevent hEvent) {
  if (!live_event(hEvent)) return drv_initialized() != CUDA_SUCCESS ? CUDA_ERROR_NOT_INITIALIZED
                                                                    : CUDA_ERROR_INVALID_HANDLE;
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (drv_event_captured(hEvent)) return CUDA_ERROR_CAPTURED_EVENT;
  CUcontext c;
  r = drv_enter_work(hEvent->ctx, &c);
  if (r == CUDA_SUCCESS) drv_leave(c);
  return r;
}

CUresult cuEventSynchronize(CUevent hEvent) {
  drv_printf_flush();
  return cuEventQuery(hEvent);
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
  if (!live_event(hStart) || !live_event(hEnd)) return CUDA_ERROR_INVALID_HANDLE;
  if ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (drv_event_captured(hStart) || drv_event_captured(hEnd)) return CUDA_ERROR_CAPTURED_EVENT;
  if (!hStart->recorded || !hEnd->recorded) return CUDA_ERROR_INVALID_HANDLE;
  *pMilliseconds = (float)(hEnd->t_ms - hStart->t_ms);
  return CUDA_SUCCESS;
}

/* The CUDA 2.0 form has the same arguments. */
#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

/* ---- older ABI variants with the same arguments ----
 * Programs built against older cuda.h headers (CUDA 12 maps cuCtxCreate to
 * cuCtxCreate_v2) and cuGetProcAddress calls with an older cudaVersion get
 * these, not a stub; variants whose arguments changed width (the CUDA 2.0
 * 32-bit CUdeviceptr forms) stay stubs (entries.c). An alias must sit beside
 * its target's definition. */
#undef cuStreamDestroy
#undef cuEventDestroy
SAME_AS(cuStreamDestroy, cuStreamDestroy_v2)
SAME_AS(cuEventDestroy, cuEventDestroy_v2)
