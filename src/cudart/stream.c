/* stream.c: streams, events and host callbacks, forwarded to the driver
 * (cudaStream_t is CUstream, cudaEvent_t is CUevent; the flag values are
 * the driver's). ptxvm's work completes in issue order when it is issued,
 * so a callback runs when it is enqueued, after everything before it. */
#include "runtime.h"

#define INIT()                                                                 \
  do {                                                                         \
    cudaError_t e_ = rt_init();                                                \
    if (e_ != cudaSuccess) return rt_ret(e_);                                  \
  } while (0)

cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  if (!pStream) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuStreamCreate(pStream, 0));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
  if (!pStream) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuStreamCreate(pStream, flags));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
  if (!pStream) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuStreamCreateWithPriority(pStream, flags, priority));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  INIT();
  return rt_cu(cuStreamDestroy(stream));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  INIT();
  return rt_cu(cuStreamSynchronize(stream));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  INIT();
  return rt_cu(cuStreamQuery(stream));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  INIT();
  return rt_cu(cuStreamWaitEvent(stream, event, flags));
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) {
  INIT();
  return rt_cu(cuStreamGetFlags(hStream, flags));
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) {
  INIT();
  return rt_cu(cuStreamGetPriority(hStream, priority));
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId) {
  INIT();
  return rt_cu(cuStreamGetId(hStream, streamId));
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) {
  if (!device) return rt_ret(cudaErrorInvalidValue);
  INIT();
  CUstream s = hStream;
  unsigned f = 0;
  CUresult r = cuStreamGetFlags(s, &f);   /* checks the handle */
  if (r == CUDA_SUCCESS) *device = 0;
  return rt_cu(r);
}

/* The driver runs a host function after the work before it, or makes it a
 * node of the graph a capturing stream builds. cudaStreamCallback_t and
 * CUstreamCallback differ only in the status's type, whose numbers agree. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
  INIT();
  return rt_cu(cuLaunchHostFunc(stream, fn, userData));
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                  unsigned int flags) {
  INIT();
  return rt_cu(cuStreamAddCallback(stream, (CUstreamCallback)(void (*)(void))callback, userData, flags));
}

/* ---- events ---- */

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  if (!event) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuEventCreate(event, 0));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  if (!event) return rt_ret(cudaErrorInvalidValue);
  INIT();
  return rt_cu(cuEventCreate(event, flags));
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  INIT();
  return rt_cu(cuEventRecord(event, stream));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  INIT();
  return rt_cu(cuEventRecordWithFlags(event, stream, flags));
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  INIT();
  return rt_cu(cuEventQuery(event));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  INIT();
  return rt_cu(cuEventSynchronize(event));
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  INIT();
  return rt_cu(cuEventDestroy(event));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  INIT();
  return rt_cu(cuEventElapsedTime(ms, start, end));
}
