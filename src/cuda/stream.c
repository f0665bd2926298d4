/* stream.c: streams and events.
 *
 * Work is executed when it is issued, so every stream is always idle:
 * synchronizing or querying one only reports its context's sticky error,
 * and an event records the host's monotonic clock when it is recorded
 * (cuEventElapsedTime then measures the simulation's own time). */
#include <stdlib.h>
#include <time.h>

#include "driver.h"


static bool default_stream(CUstream s) {
  return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

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

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  return cuStreamCreateWithPriority(phStream, Flags, 0);
}

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority) {
  CUcontext c;
  if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = drv_enter(NULL, &c);
  if (r != CUDA_SUCCESS) return r;
  drv_leave(c);
  CUstream s = calloc(1, sizeof *s);
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  *s = (struct CUstream_st){MAGIC_STREAM, c, flags, priority};
  if (!drv_handle_add(s)) {
    free(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *phStream = s;
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream hStream) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (default_stream(hStream) || !drv_live(hStream, MAGIC_STREAM)) return CUDA_ERROR_INVALID_HANDLE;
  drv_handle_remove(hStream);
  free(hStream);
  return CUDA_SUCCESS;
}

/* Nothing is pending on any stream; the context's sticky error is the answer. */
static CUresult stream_idle(CUstream s) {
  CUcontext sc, c;
  CUresult r = drv_stream_ctx(s, &sc);
  if (r != CUDA_SUCCESS) return r;
  r = drv_enter_work(sc, &c);
  if (r == CUDA_SUCCESS) drv_leave(c);
  return r;
}

CUresult cuStreamSynchronize(CUstream hStream) { return stream_idle(hStream); }
CUresult cuStreamQuery(CUstream hStream) { return stream_idle(hStream); }

PER_THREAD(cuStreamSynchronize_ptsz, cuStreamSynchronize)
PER_THREAD(cuStreamQuery_ptsz, cuStreamQuery)

/* ---- events ---- */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

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
  *e = (struct CUevent_st){MAGIC_EVENT, c, Flags, false, 0};
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
  drv_handle_remove(hEvent);
  free(hEvent);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  CUcontext sc;
  CUresult r = drv_stream_ctx(hStream, &sc);
  if (r != CUDA_SUCCESS) return r;
  if (!live_event(hEvent)) return CUDA_ERROR_INVALID_HANDLE;
  hEvent->recorded = true;
  hEvent->t_ms = now_ms();
  return CUDA_SUCCESS;
}

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
  return cuEventRecord(hEvent, hStream);
}

PER_THREAD(cuEventRecord_ptsz, cuEventRecord)
PER_THREAD(cuEventRecordWithFlags_ptsz, cuEventRecordWithFlags)

/* A recorded event has completed (its work ran when it was issued); one never
 * recorded counts as complete too, as in CUDA. */
CUresult cuEventQuery(CUevent hEvent) {
  if (!live_event(hEvent)) return drv_initialized() != CUDA_SUCCESS ? CUDA_ERROR_NOT_INITIALIZED
                                                                    : CUDA_ERROR_INVALID_HANDLE;
  CUcontext c;
  CUresult r = drv_enter_work(hEvent->ctx, &c);
  if (r == CUDA_SUCCESS) drv_leave(c);
  return r;
}

CUresult cuEventSynchronize(CUevent hEvent) { return cuEventQuery(hEvent); }

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  CUresult r = drv_initialized();
  if (r != CUDA_SUCCESS) return r;
  if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
  if (!live_event(hStart) || !live_event(hEnd)) return CUDA_ERROR_INVALID_HANDLE;
  if ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
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
