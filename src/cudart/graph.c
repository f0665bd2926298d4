/* graph.c: stream capture and graphs, forwarded to the driver (cudaGraph_t
 * is CUgraph, cudaGraphExec_t CUgraphExec; capture modes, statuses and
 * instantiation flags have the driver's numbers). A kernel launched with
 * <<<>>> on a capturing stream reaches cuLaunchKernel there and becomes a
 * node. Graphs built node by node with the runtime's parameter structs
 * (cudaGraphAddKernelNode ...) are not implemented yet (stubs). */
#include "runtime.h"

#define INIT()                                                                 \
  do {                                                                         \
    cudaError_t e_ = rt_init();                                                \
    if (e_ != cudaSuccess) return rt_ret(e_);                                  \
  } while (0)

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  INIT();
  return rt_cu(cuStreamBeginCapture(stream, (CUstreamCaptureMode)mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
  INIT();
  return rt_cu(cuStreamEndCapture(stream, pGraph));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
  INIT();
  return rt_cu(cuStreamIsCapturing(stream, (CUstreamCaptureStatus *)pCaptureStatus));
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
  INIT();
  return rt_cu(cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
  INIT();
  return rt_cu(cuGraphCreate(pGraph, flags));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  INIT();
  return rt_cu(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  INIT();
  return rt_cu(cuGraphLaunch(graphExec, stream));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  INIT();
  return rt_cu(cuGraphExecDestroy(graphExec));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  INIT();
  return rt_cu(cuGraphDestroy(graph));
}
