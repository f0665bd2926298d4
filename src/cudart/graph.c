/* graph.c: stream capture and graphs, forwarded to the driver (cudaGraph_t
 * is CUgraph, cudaGraphExec_t CUgraphExec; capture modes, statuses and
 * instantiation flags have the driver's numbers). A kernel launched with
 * <<<>>> on a capturing stream reaches cuLaunchKernel there and becomes a
 * node. Graphs built node by node with the runtime's parameter structs
 * are below: kernel, memset, 1D copy, host and empty nodes. */
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

/* ---- graphs built node by node ----
 * The runtime's node parameters become the driver's: a kernel named by its
 * host stub becomes its CUfunction (its module loaded now), a copy's kind
 * becomes the memory types of a CUDA_MEMCPY3D. The other structs have the
 * driver's layout. */

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams) {
  if (!pNodeParams) return rt_ret(cudaErrorInvalidValue);
  INIT();
  struct CUkern_st *k = rt_kernel_of(pNodeParams->func);
  if (!k) k = rt_kernel_handle(pNodeParams->func);
  if (!k) return rt_ret(cudaErrorInvalidDeviceFunction);
  CUfunction f = NULL;
  cudaError_t e = rt_function(k, &f);
  if (e != cudaSuccess) return rt_ret(e);
  const struct cudaKernelNodeParams *p = pNodeParams;
  CUDA_KERNEL_NODE_PARAMS c = {f, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x, p->blockDim.y,
                               p->blockDim.z, p->sharedMemBytes, p->kernelParams, p->extra, NULL, NULL};
  return rt_cu(cuGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, &c));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams) {
  if (!pMemsetParams) return rt_ret(cudaErrorInvalidValue);
  INIT();
  const struct cudaMemsetParams *p = pMemsetParams;
  CUDA_MEMSET_NODE_PARAMS c = {(CUdeviceptr)(uintptr_t)p->dst, p->pitch, p->value, p->elementSize, p->width,
                               p->height};
  return rt_cu(cuGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, &c, NULL));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                     const void *src, size_t count, enum cudaMemcpyKind kind) {
  if ((unsigned)kind > cudaMemcpyDefault) return rt_ret(cudaErrorInvalidMemcpyDirection);
  INIT();
  CUDA_MEMCPY3D c = {0};
  bool sd = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  bool dd = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault) {
    c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.srcDevice = (CUdeviceptr)(uintptr_t)src;
    c.dstDevice = (CUdeviceptr)(uintptr_t)dst;
  } else {
    c.srcMemoryType = sd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    c.dstMemoryType = dd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    if (sd) c.srcDevice = (CUdeviceptr)(uintptr_t)src;
    else c.srcHost = src;
    if (dd) c.dstDevice = (CUdeviceptr)(uintptr_t)dst;
    else c.dstHost = dst;
  }
  c.WidthInBytes = count;
  c.Height = c.Depth = 1;
  return rt_cu(cuGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &c, NULL));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *pNodeParams) {
  if (!pNodeParams) return rt_ret(cudaErrorInvalidValue);
  INIT();
  CUDA_HOST_NODE_PARAMS c = {pNodeParams->fn, pNodeParams->userData};
  return rt_cu(cuGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies, &c));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies) {
  INIT();
  return rt_cu(cuGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies));
}

/* cudaGraphEdgeData has CUgraphEdgeData's layout. */
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *edgeData, size_t numDependencies) {
  INIT();
  return rt_cu(cuGraphAddDependencies(graph, from, to, (const CUgraphEdgeData *)edgeData, numDependencies));
}
