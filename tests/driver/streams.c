/* streams.c: a self-checking program on the CUDA driver's streams, events,
 * host functions, stream capture, graphs and user objects, run by tests/run.py as
 * `ptxvm exec PROGRAM` against ptxvm's libcuda.so.1 (see driver_api.c). The
 * expected values are the driver API's documented answers and plain
 * arithmetic: the kernel maps each element x to x * mul + add, so the value
 * after a sequence of launches, copies and sets says in which order they ran.
 *
 * STDERR: ptxvm: cuGraphInstantiate: the graph's dependencies form a cycle (node 1 of 3, in creation order, is on it)
 * STDERR: ptxvm: cuGraphInstantiate: the graph's dependencies form a cycle (node 2 of 3, in creation order, is on it)
 * STDERR: ptxvm: cuGraphAddChildGraphNode: the graph's dependencies form a cycle (node 2 of 3, in creation order, is on it)
 * STDERR: ptxvm: cuGraphAddNode: graph nodes of type 10 are not implemented
 * STDERR: ptxvm: cuStreamBeginCapture: capture of the per-thread default stream is not implemented
 * STDERR: ptxvm: st.global.u32: 4-byte global access at 0x10 is outside every allocation
 */
#define _POSIX_C_SOURCE 200809L   /* pthread barriers */
#include <cuda.h>
#include <pthread.h>
#include <string.h>

#include "../unit/check.h"

enum { N = 256 };

/* scale_add: p[i] = p[i] * mul + add for i < n; fault stores to 0x10. */
static const char ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry scale_add(.param .u64 p, .param .u32 mul, .param .u32 add, .param .u32 n)\n{\n"
  "  .reg .pred %q; .reg .b32 %r<9>; .reg .b64 %rd<4>;\n"
  "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [mul]; ld.param.u32 %r2, [add]; ld.param.u32 %r3, [n];\n"
  "  mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x; mov.u32 %r6, %tid.x;\n"
  "  mad.lo.s32 %r7, %r4, %r5, %r6;\n"
  "  setp.ge.u32 %q, %r7, %r3;\n"
  "  @%q bra DONE;\n"
  "  mul.wide.u32 %rd2, %r7, 4; add.s64 %rd3, %rd1, %rd2;\n"
  "  ld.global.u32 %r8, [%rd3]; mad.lo.u32 %r8, %r8, %r1, %r2; st.global.u32 [%rd3], %r8;\n"
  "DONE:\n  ret;\n}\n"
  ".visible .entry fault()\n{\n"
  "  .reg .b32 %r1; .reg .b64 %rd1;\n"
  "  mov.u64 %rd1, 16; mov.u32 %r1, 7;\n"
  "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";

static CUfunction kern, fault_kern;
static CUdeviceptr dbuf;
static unsigned host[N];

/* Issues p = p * mul + add on stream s; the argument values are read now. */
static CUresult scale_add(CUstream s, unsigned mul, unsigned add) {
  unsigned n = N;
  void *args[] = {&dbuf, &mul, &add, &n};
  return cuLaunchKernel(kern, N / 64, 1, 1, 64, 1, 1, 0, s, args, NULL);
}

/* Whether every element of host is v. */
static int all(unsigned v) {
  for (int i = 0; i < N; i++)
    if (host[i] != v) return 0;
  return 1;
}

static int read_back(void) { return cuMemcpyDtoH(host, dbuf, sizeof host) == CUDA_SUCCESS; }

/* ---- host functions: each logs what the host buffer holds when it runs ---- */

static unsigned log_vals[16];
static int nlog;
static CUresult inner;   /* what a CUDA call made inside a host function returned */

static void log_host(void *data) {
  (void)data;
  log_vals[nlog++ & 15] = host[0];
  inner = cuCtxSynchronize();
}

static CUstream cb_stream;
static CUresult cb_status = CUDA_ERROR_UNKNOWN;

static void log_callback(CUstream s, CUresult status, void *data) {
  cb_stream = s;
  cb_status = status;
  log_host(data);
}

static void test_streams_events(void) {
  int least = 1, greatest = 1, prio = 1;
  CHECK(cuCtxGetStreamPriorityRange(&least, &greatest) == CUDA_SUCCESS && greatest <= least);
  CUstream s1, s2;
  CHECK(cuStreamCreate(&s1, CU_STREAM_DEFAULT) == CUDA_SUCCESS);
  CHECK(cuStreamCreateWithPriority(&s2, CU_STREAM_NON_BLOCKING, greatest - 10) == CUDA_SUCCESS);
  CHECK(cuStreamGetPriority(s2, &prio) == CUDA_SUCCESS && prio == greatest);   /* clamped */
  CHECK(cuStreamGetPriority(s1, &prio) == CUDA_SUCCESS && prio == 0);
  unsigned flags = 9;
  CHECK(cuStreamGetFlags(s2, &flags) == CUDA_SUCCESS && flags == CU_STREAM_NON_BLOCKING);
  CHECK(cuStreamGetFlags(s1, &flags) == CUDA_SUCCESS && flags == CU_STREAM_DEFAULT);
  CUcontext c = NULL, cur = NULL;
  CHECK(cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cuStreamGetCtx(s2, &c) == CUDA_SUCCESS && c == cur);
  CHECK(cuStreamGetCtx(NULL, &c) == CUDA_SUCCESS && c == cur);

  /* s1: set to 1, then x*3+1 = 4; s2 waits for s1's event, then x*2 = 8 */
  CUevent e0, e1, e2, notime;
  CHECK(cuEventCreate(&e0, CU_EVENT_DEFAULT) == CUDA_SUCCESS && cuEventCreate(&e1, CU_EVENT_BLOCKING_SYNC) ==
        CUDA_SUCCESS && cuEventCreate(&e2, 0) == CUDA_SUCCESS);
  CHECK(cuEventCreate(&notime, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS);
  float ms = -1;
  CHECK(cuEventElapsedTime(&ms, e0, e1) == CUDA_ERROR_INVALID_HANDLE);   /* neither recorded */
  CHECK(cuEventQuery(e0) == CUDA_SUCCESS);   /* never recorded: no work */
  CHECK(cuEventRecord(e0, s1) == CUDA_SUCCESS);
  CHECK(cuMemsetD32Async(dbuf, 1, N, s1) == CUDA_SUCCESS && scale_add(s1, 3, 1) == CUDA_SUCCESS);
  CHECK(cuEventRecord(e1, s1) == CUDA_SUCCESS && cuEventRecord(notime, s1) == CUDA_SUCCESS);
  CHECK(cuStreamWaitEvent(s2, e1, 0) == CUDA_SUCCESS);
  CHECK(scale_add(s2, 2, 0) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoHAsync(host, dbuf, sizeof host, s2) == CUDA_SUCCESS);
  CHECK(cuEventRecordWithFlags(e2, s2, CU_EVENT_RECORD_DEFAULT) == CUDA_SUCCESS);
  CHECK(cuEventRecordWithFlags(e2, s2, CU_EVENT_RECORD_EXTERNAL) == CUDA_ERROR_INVALID_VALUE);   /* capture only */
  CHECK(cuStreamWaitEvent(s2, e1, CU_EVENT_WAIT_EXTERNAL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuEventSynchronize(e2) == CUDA_SUCCESS && cuEventQuery(e2) == CUDA_SUCCESS);
  CHECK(cuStreamSynchronize(s2) == CUDA_SUCCESS && cuStreamQuery(s1) == CUDA_SUCCESS);
  CHECK(all(8));
  CHECK(cuEventElapsedTime(&ms, e0, e2) == CUDA_SUCCESS && ms >= 0);
  CHECK(cuEventElapsedTime(&ms, e0, notime) == CUDA_ERROR_INVALID_HANDLE);   /* no timing */

  /* host functions and callbacks run after the work before them, in order */
  nlog = 0;
  inner = CUDA_SUCCESS;
  CHECK(scale_add(s1, 1, 5) == CUDA_SUCCESS && cuMemcpyDtoHAsync(host, dbuf, sizeof host, s1) == CUDA_SUCCESS);
  CHECK(cuLaunchHostFunc(s1, log_host, NULL) == CUDA_SUCCESS);   /* sees 13 */
  CHECK(scale_add(s1, 10, 0) == CUDA_SUCCESS && cuMemcpyDtoHAsync(host, dbuf, sizeof host, s1) == CUDA_SUCCESS);
  CHECK(cuStreamAddCallback(s1, log_callback, NULL, 0) == CUDA_SUCCESS);   /* sees 130 */
  CHECK(cuStreamAddCallback(s1, log_callback, NULL, 1) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuLaunchHostFunc(s1, NULL, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(nlog == 2 && log_vals[0] == 13 && log_vals[1] == 130);
  CHECK(cb_stream == s1 && cb_status == CUDA_SUCCESS);
  CHECK(inner == CUDA_ERROR_NOT_PERMITTED);   /* no CUDA inside a host function */
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);   /* and again outside */

  CHECK(cuEventDestroy(e0) == CUDA_SUCCESS && cuEventDestroy(e1) == CUDA_SUCCESS &&
        cuEventDestroy(e2) == CUDA_SUCCESS && cuEventDestroy(notime) == CUDA_SUCCESS);
  CHECK(cuEventQuery(e0) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuStreamDestroy(s1) == CUDA_SUCCESS && cuStreamDestroy(s2) == CUDA_SUCCESS);
  CHECK(cuStreamQuery(s1) == CUDA_ERROR_INVALID_HANDLE);
}

static int nhost;
static void count_host(void *data) {
  (void)data;
  nhost++;
  log_vals[0] = host[0];
}

/* Capture of a set, a launch, a copy and a host function into a graph, which
 * then runs twice, and once more with new kernel parameters. */
static void test_capture(void) {
  CUstream s, t;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS && cuStreamCreate(&t, 0) == CUDA_SUCCESS);
  unsigned init = 77;
  CHECK(cuMemsetD32(dbuf, init, N) == CUDA_SUCCESS);
  memset(host, 0xff, sizeof host);
  nhost = 0;
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
  CHECK(cuStreamIsCapturing(s, &st) == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_NONE);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_ERROR_ILLEGAL_STATE);
  CHECK(cuStreamIsCapturing(s, &st) == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
  CHECK(cuMemsetD32Async(dbuf, 5, N, s) == CUDA_SUCCESS);
  {
    unsigned mul = 3, add = 2, n = N;
    void *args[] = {&dbuf, &mul, &add, &n};
    CHECK(cuLaunchKernel(kern, N / 64, 1, 1, 64, 1, 1, 0, s, args, NULL) == CUDA_SUCCESS);
    mul = add = 1000;   /* the values were copied at the call */
  }
  CHECK(cuMemcpyDtoHAsync(host, dbuf, sizeof host, s) == CUDA_SUCCESS);
  CHECK(cuLaunchHostFunc(s, count_host, NULL) == CUDA_SUCCESS);
  cuuint64_t id = 0;
  CUgraph g = NULL;
  const CUgraphNode *deps = NULL;
  size_t ndeps = 0;
  CHECK(cuStreamGetCaptureInfo(s, &st, &id, &g, &deps, NULL, &ndeps) == CUDA_SUCCESS);
  CHECK(st == CU_STREAM_CAPTURE_STATUS_ACTIVE && id != 0 && g && ndeps == 1 && deps);
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_KERNEL;
  CHECK(ndeps == 1 && cuGraphNodeGetType(deps[0], &type) == CUDA_SUCCESS && type == CU_GRAPH_NODE_TYPE_HOST);
  /* nothing ran: the device and host buffers and the host function's count */
  unsigned dev0 = 0;
  CHECK(cuMemcpyDtoH(&dev0, dbuf, 4) == CUDA_SUCCESS && dev0 == init);   /* s does not block the legacy stream */
  CHECK(host[0] == 0xffffffffu && nhost == 0);
  CUgraph g_end = NULL;
  CHECK(cuStreamEndCapture(t, &g_end) == CUDA_ERROR_ILLEGAL_STATE);   /* t is not capturing */
  CHECK(cuStreamEndCapture(s, &g_end) == CUDA_SUCCESS && g_end == g);
  CHECK(cuStreamIsCapturing(s, &st) == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_NONE);

  size_t n = 0, roots = 0;
  CHECK(cuGraphGetNodes(g, NULL, &n) == CUDA_SUCCESS && n == 4);
  CUgraphNode nodes[6];
  n = 6;
  CHECK(cuGraphGetNodes(g, nodes, &n) == CUDA_SUCCESS && n == 4 && nodes[4] == NULL && nodes[5] == NULL);
  CHECK(cuGraphGetRootNodes(g, NULL, &roots) == CUDA_SUCCESS && roots == 1);
  static const CUgraphNodeType want[4] = {CU_GRAPH_NODE_TYPE_MEMSET, CU_GRAPH_NODE_TYPE_KERNEL,
                                          CU_GRAPH_NODE_TYPE_MEMCPY, CU_GRAPH_NODE_TYPE_HOST};
  for (int i = 0; i < 4 && n == 4; i++) {
    CUgraphNode dep = NULL;
    size_t nd = 1;
    CHECK(cuGraphNodeGetType(nodes[i], &type) == CUDA_SUCCESS && type == want[i]);
    CHECK(cuGraphNodeGetDependencies(nodes[i], &dep, NULL, &nd) == CUDA_SUCCESS);
    CHECK(i == 0 ? nd == 0 : nd == 1 && dep == nodes[i - 1]);   /* a chain, in stream order */
  }

  CUgraphExec x;
  CHECK(cuGraphInstantiate(&x, g, 0) == CUDA_SUCCESS);
  for (int run = 1; run <= 2; run++) {
    memset(host, 0, sizeof host);
    CHECK(cuGraphLaunch(x, t) == CUDA_SUCCESS && cuStreamSynchronize(t) == CUDA_SUCCESS);
    CHECK(all(5 * 3 + 2) && nhost == run && log_vals[0] == 17);
  }
  /* new kernel parameters for the executable graph only */
  if (n == 4) {
    unsigned mul = 4, add = 1, nn = N;
    void *args[] = {&dbuf, &mul, &add, &nn};
    CUDA_KERNEL_NODE_PARAMS kp = {kern, N / 64, 1, 1, 64, 1, 1, 0, args, NULL, NULL, NULL};
    CHECK(cuGraphExecKernelNodeSetParams(x, nodes[1], &kp) == CUDA_SUCCESS);
    CHECK(cuGraphExecKernelNodeSetParams(x, nodes[0], &kp) == CUDA_ERROR_INVALID_VALUE);   /* a memset node */
    CHECK(cuGraphLaunch(x, NULL) == CUDA_SUCCESS && all(5 * 4 + 1) && nhost == 3);
  }
  /* a graph launch into a capturing stream becomes a child graph node, with
     the executable graph's parameters of the time */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) == CUDA_SUCCESS);
  CHECK(cuGraphLaunch(x, s) == CUDA_SUCCESS && scale_add(s, 2, 0) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoHAsync(host, dbuf, sizeof host, s) == CUDA_SUCCESS);
  CUgraph g2 = NULL;
  CHECK(cuStreamEndCapture(s, &g2) == CUDA_SUCCESS && g2);
  CHECK(nhost == 3);   /* not run while captured */
  CUgraphNode first = NULL;
  size_t one = 1;
  CHECK(cuGraphGetRootNodes(g2, &first, &one) == CUDA_SUCCESS && one == 1 &&
        cuGraphNodeGetType(first, &type) == CUDA_SUCCESS && type == CU_GRAPH_NODE_TYPE_GRAPH);
  CUgraphExec x2;
  CHECK(cuGraphInstantiate(&x2, g2, 0) == CUDA_SUCCESS && cuGraphLaunch(x2, t) == CUDA_SUCCESS);
  CHECK(all((5 * 4 + 1) * 2) && nhost == 4);
  CHECK(cuGraphExecDestroy(x2) == CUDA_SUCCESS && cuGraphDestroy(g2) == CUDA_SUCCESS);

  /* capture into an existing graph, after its set node; a dependency set
     replaced in the middle of the capture */
  CUgraph into;
  CUgraphNode set3;
  CUcontext ctx;
  CUDA_MEMSET_NODE_PARAMS sp = {dbuf, 0, 3, 4, N, 1};
  CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && cuGraphCreate(&into, 0) == CUDA_SUCCESS &&
        cuGraphAddMemsetNode(&set3, into, NULL, 0, &sp, ctx) == CUDA_SUCCESS);
  CHECK(cuStreamUpdateCaptureDependencies(s, &set3, NULL, 1, 0) == CUDA_ERROR_ILLEGAL_STATE);   /* not capturing */
  CHECK(cuStreamBeginCaptureToGraph(s, into, &set3, NULL, 1, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(scale_add(s, 2, 1) == CUDA_SUCCESS);   /* 7 */
  CHECK(cuStreamUpdateCaptureDependencies(s, &set3, NULL, 1, 2) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuStreamUpdateCaptureDependencies(s, &set3, NULL, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoHAsync(host, dbuf, sizeof host, s) == CUDA_SUCCESS);   /* after the set only */
  CHECK(cuStreamEndCapture(s, &g2) == CUDA_SUCCESS && g2 == into);
  CHECK(cuGraphGetNodes(into, NULL, &n) == CUDA_SUCCESS && n == 3);
  CHECK(cuGraphGetRootNodes(into, NULL, &roots) == CUDA_SUCCESS && roots == 1);
  CHECK(cuGraphGetEdges(into, NULL, NULL, NULL, &n) == CUDA_SUCCESS && n == 2);   /* set->kernel, set->copy */
  CHECK(cuGraphInstantiate(&x2, into, 0) == CUDA_SUCCESS && cuGraphLaunch(x2, t) == CUDA_SUCCESS);
  CHECK(all(7));   /* the kernel, created first, ran first */
  CHECK(cuGraphExecDestroy(x2) == CUDA_SUCCESS && cuGraphDestroy(into) == CUDA_SUCCESS);

  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS && cuGraphExecDestroy(x) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS && cuGraphDestroy(g) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuStreamDestroy(s) == CUDA_SUCCESS && cuStreamDestroy(t) == CUDA_SUCCESS);
}

/* A fork into a second stream and its join, captured as two branches. */
static void test_fork_join(void) {
  CUstream s, u;
  CUevent fork, join;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS && cuStreamCreate(&u, 0) == CUDA_SUCCESS);
  CHECK(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS && cuEventCreate(&join, 0) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuMemsetD32Async(dbuf, 2, N, s) == CUDA_SUCCESS);
  CHECK(cuEventRecord(fork, s) == CUDA_SUCCESS);
  CHECK(cuEventQuery(fork) == CUDA_ERROR_CAPTURED_EVENT);
  CHECK(cuStreamWaitEvent(u, fork, 0) == CUDA_SUCCESS);   /* u joins the capture */
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  CHECK(cuStreamIsCapturing(u, &st) == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
  CHECK(scale_add(u, 5, 0) == CUDA_SUCCESS);    /* 10 */
  CHECK(cuEventRecord(join, u) == CUDA_SUCCESS);
  CHECK(cuStreamWaitEvent(s, join, 0) == CUDA_SUCCESS);
  CHECK(scale_add(s, 1, 3) == CUDA_SUCCESS);    /* 13 */
  CUgraph g = NULL;
  CHECK(cuStreamEndCapture(u, &g) == CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);   /* not where it began */
  CHECK(cuStreamEndCapture(s, &g) == CUDA_SUCCESS && g);
  CHECK(cuStreamIsCapturing(u, &st) == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_NONE);
  size_t n = 0;
  CHECK(cuGraphGetNodes(g, NULL, &n) == CUDA_SUCCESS && n == 3);
  CUgraphExec x;
  CHECK(cuGraphInstantiate(&x, g, 0) == CUDA_SUCCESS);
  CHECK(cuGraphLaunch(x, u) == CUDA_SUCCESS && read_back() && all(13));
  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS && cuGraphDestroy(g) == CUDA_SUCCESS);

  /* a fork never joined back */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuEventRecord(fork, s) == CUDA_SUCCESS && cuStreamWaitEvent(u, fork, 0) == CUDA_SUCCESS);
  CHECK(scale_add(u, 5, 0) == CUDA_SUCCESS);
  g = (CUgraph)1;
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_UNJOINED && g == NULL);
  CHECK(cuStreamIsCapturing(u, &st) == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_NONE);
  /* the event stands for nodes of a capture that is over */
  CHECK(cuEventSynchronize(fork) == CUDA_ERROR_CAPTURED_EVENT);
  CHECK(cuEventRecord(fork, u) == CUDA_SUCCESS && cuEventSynchronize(fork) == CUDA_SUCCESS);

  CHECK(cuEventDestroy(fork) == CUDA_SUCCESS && cuEventDestroy(join) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(s) == CUDA_SUCCESS && cuStreamDestroy(u) == CUDA_SUCCESS);
}

/* A graph built node by node: the dependencies decide the order, not the
 * creation order (copy, x*2, x*3+1, set, which would copy stale values). */
static void test_explicit_graph(void) {
  CUgraph g, other;
  CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS && cuGraphCreate(&other, 0) == CUDA_SUCCESS);
  CHECK(cuGraphCreate(&g, 1) == CUDA_ERROR_INVALID_VALUE);
  unsigned mul = 2, add = 0, n = N;
  void *args[] = {&dbuf, &mul, &add, &n};
  CUDA_KERNEL_NODE_PARAMS kp = {kern, N / 64, 1, 1, 64, 1, 1, 0, args, NULL, NULL, NULL};
  CUgraphNode set, twice, thrice, copy, host_node, join, stray;
  CUDA_MEMSET_NODE_PARAMS sp = {dbuf, 0, 1, 4, N, 1};
  CUDA_MEMCPY3D cp = {0};
  cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.srcDevice = dbuf;
  cp.dstMemoryType = CU_MEMORYTYPE_HOST;
  cp.dstHost = host;
  cp.WidthInBytes = sizeof host;
  cp.Height = cp.Depth = 1;
  CUDA_HOST_NODE_PARAMS hp = {count_host, NULL};
  CUcontext ctx;
  CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);
  CHECK(cuGraphAddMemcpyNode(&copy, g, NULL, 0, &cp, ctx) == CUDA_SUCCESS);
  CHECK(cuGraphAddKernelNode(&twice, g, NULL, 0, &kp) == CUDA_SUCCESS);
  mul = 3;
  add = 1;
  CHECK(cuGraphAddKernelNode(&thrice, g, NULL, 0, &kp) == CUDA_SUCCESS);
  CHECK(cuGraphAddMemsetNode(&set, g, NULL, 0, &sp, ctx) == CUDA_SUCCESS);
  CUgraphNode from[3] = {set, thrice, twice}, to[3] = {thrice, twice, copy};
  CHECK(cuGraphAddDependencies(g, from, to, NULL, 3) == CUDA_SUCCESS);
  CHECK(cuGraphAddDependencies(g, from, to, NULL, 1) == CUDA_ERROR_INVALID_VALUE);   /* exists */
  CHECK(cuGraphAddHostNode(&host_node, g, &copy, 1, &hp) == CUDA_SUCCESS);
  CUgraphNode both[2] = {host_node, copy}, dup[2] = {copy, copy};
  CHECK(cuGraphAddEmptyNode(&join, g, both, 2) == CUDA_SUCCESS);
  CHECK(cuGraphAddEmptyNode(&stray, g, dup, 2) == CUDA_ERROR_INVALID_VALUE);   /* a duplicate */
  CHECK(cuGraphAddEmptyNode(&stray, other, &copy, 1) == CUDA_ERROR_INVALID_VALUE);   /* another graph's */
  sp.elementSize = 3;
  CHECK(cuGraphAddMemsetNode(&stray, g, NULL, 0, &sp, ctx) == CUDA_ERROR_INVALID_VALUE);
  size_t roots = 0;
  CUgraphNode root = NULL;
  CHECK(cuGraphGetRootNodes(g, &root, &(size_t){1}) == CUDA_SUCCESS && root == set);
  CHECK(cuGraphGetRootNodes(g, NULL, &roots) == CUDA_SUCCESS && roots == 1);
  CUgraphExec x;
  CHECK(cuGraphInstantiate(&x, g, 0) == CUDA_SUCCESS);
  nhost = 0;
  memset(host, 0, sizeof host);
  CHECK(cuGraphLaunch(x, NULL) == CUDA_SUCCESS);
  CHECK(all((1 * 3 + 1) * 2) && nhost == 1 && log_vals[0] == 8);
  CHECK(cuGraphUpload(x, NULL) == CUDA_SUCCESS);
  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS);

  /* the edges; a node's own copy of its parameters; node removal */
  size_t ne = 0;
  CHECK(cuGraphGetEdges(g, NULL, NULL, NULL, &ne) == CUDA_SUCCESS && ne == 6);
  CUDA_KERNEL_NODE_PARAMS got;
  CHECK(cuGraphKernelNodeGetParams(twice, &got) == CUDA_SUCCESS && got.func == kern && got.gridDimX == N / 64);
  CHECK(got.kernelParams && *(unsigned *)got.kernelParams[1] == 2 && *(unsigned *)got.kernelParams[2] == 0);
  CHECK(cuGraphKernelNodeGetParams(copy, &got) == CUDA_ERROR_INVALID_VALUE);   /* a memcpy node */
  mul = 4;
  add = 0;
  CHECK(cuGraphKernelNodeSetParams(twice, &kp) == CUDA_SUCCESS);   /* twice becomes x*4 */
  CUDA_MEMCPY3D cp2;
  CHECK(cuGraphMemcpyNodeGetParams(copy, &cp2) == CUDA_SUCCESS && cp2.dstHost == host);
  CHECK(cuGraphDestroyNode(join) == CUDA_SUCCESS && cuGraphNodeGetType(join, &(CUgraphNodeType){0}) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(cuGraphGetEdges(g, NULL, NULL, NULL, &ne) == CUDA_SUCCESS && ne == 4);
  CUgraphNode after[2] = {NULL, NULL};
  size_t na = 2;
  CHECK(cuGraphNodeGetDependentNodes(copy, after, NULL, &na) == CUDA_SUCCESS && na == 1 && after[0] == host_node);
  CUgraphNodeParams np;
  memset(&np, 0, sizeof np);
  np.type = CU_GRAPH_NODE_TYPE_HOST;
  np.host.fn = count_host;
  CUgraphNode host2;
  CHECK(cuGraphAddNode(&host2, g, &host_node, NULL, 1, &np) == CUDA_SUCCESS);
  np.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  CHECK(cuGraphAddNode(&stray, g, NULL, NULL, 0, &np) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuGraphInstantiate(&x, g, 0) == CUDA_SUCCESS);
  nhost = 0;
  CHECK(cuGraphLaunch(x, NULL) == CUDA_SUCCESS && all((1 * 3 + 1) * 4) && nhost == 2);
  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS);
  /* a clone runs as the original did; its nodes are found from the originals */
  CUgraph gc;
  CUgraphNode twice_c = NULL;
  CHECK(cuGraphClone(&gc, g) == CUDA_SUCCESS);
  CHECK(cuGraphNodeFindInClone(&twice_c, twice, gc) == CUDA_SUCCESS && twice_c && twice_c != twice);
  CHECK(cuGraphNodeFindInClone(&twice_c, twice, other) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuGraphGetEdges(gc, NULL, NULL, NULL, &ne) == CUDA_SUCCESS && ne == 5);
  CHECK(cuGraphInstantiate(&x, gc, 0) == CUDA_SUCCESS);
  nhost = 0;
  memset(host, 0, sizeof host);
  CHECK(cuGraphLaunch(x, NULL) == CUDA_SUCCESS && all((1 * 3 + 1) * 4) && nhost == 2);
  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS && cuGraphDestroy(gc) == CUDA_SUCCESS);

  /* g as the child of another graph, after a set to 2, twice: the copy at
     the call stays as it was when the graph changes */
  CUgraph parent;
  CUgraphNode pre, child, child2;
  sp.elementSize = 4;
  sp.value = 2;
  CHECK(cuGraphCreate(&parent, 0) == CUDA_SUCCESS && cuGraphAddMemsetNode(&pre, parent, NULL, 0, &sp, ctx) ==
        CUDA_SUCCESS);
  CHECK(cuGraphAddChildGraphNode(&child, parent, &pre, 1, g) == CUDA_SUCCESS);
  CHECK(cuGraphAddChildGraphNode(&child2, parent, &child, 1, g) == CUDA_SUCCESS);
  CHECK(cuGraphDestroyNode(host2) == CUDA_SUCCESS);   /* after the copies */
  CHECK(cuGraphInstantiate(&x, parent, 0) == CUDA_SUCCESS);
  nhost = 0;
  CHECK(cuGraphLaunch(x, NULL) == CUDA_SUCCESS && all((1 * 3 + 1) * 4) && nhost == 4);
  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS && cuGraphDestroy(parent) == CUDA_SUCCESS);
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS && cuGraphDestroy(other) == CUDA_SUCCESS);
}

typedef CUresult (*Instantiate5)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t);

/* A cycle is refused at instantiation, by every form of cuGraphInstantiate. */
static void test_cycle(void) {
  CUgraph g;
  CUgraphNode a, b, c;
  CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
  CHECK(cuGraphAddEmptyNode(&a, g, NULL, 0) == CUDA_SUCCESS && cuGraphAddEmptyNode(&b, g, &a, 1) == CUDA_SUCCESS &&
        cuGraphAddEmptyNode(&c, g, &b, 1) == CUDA_SUCCESS);
  CHECK(cuGraphAddDependencies(g, &c, &a, NULL, 1) == CUDA_SUCCESS);   /* a -> b -> c -> a */
  CUgraphExec x = NULL;
  CHECK(cuGraphInstantiate(&x, g, 0) == CUDA_ERROR_INVALID_VALUE && x == NULL);
  CUDA_GRAPH_INSTANTIATE_PARAMS ip = {0};
  CHECK(cuGraphInstantiateWithParams(&x, g, &ip) == CUDA_ERROR_INVALID_VALUE);
  CHECK(ip.result_out == CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE && ip.hErrNode_out == a);
  void *p = NULL;
  CUdriverProcAddressQueryResult q;
  CHECK(cuGetProcAddress("cuGraphInstantiate", &p, 11000, 0, &q) == CUDA_SUCCESS && p);
  char log[256] = "x";
  CUgraphNode err = NULL;
  if (p) {
    CHECK(((Instantiate5)p)(&x, g, &err, log, sizeof log) == CUDA_ERROR_INVALID_VALUE);
    CHECK(err == a && strstr(log, "cycle"));
  }
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);
  /* node 1 only waits for the cycle of nodes 2 and 3 */
  CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
  CHECK(cuGraphAddEmptyNode(&a, g, NULL, 0) == CUDA_SUCCESS && cuGraphAddEmptyNode(&b, g, NULL, 0) == CUDA_SUCCESS &&
        cuGraphAddEmptyNode(&c, g, &b, 1) == CUDA_SUCCESS);
  CUgraphNode from[2] = {c, b}, to[2] = {b, a};
  CHECK(cuGraphAddDependencies(g, from, to, NULL, 2) == CUDA_SUCCESS);
  memset(&ip, 0, sizeof ip);
  CHECK(cuGraphInstantiateWithParams(&x, g, &ip) == CUDA_ERROR_INVALID_VALUE && ip.hErrNode_out == b);
  CUgraph parent;
  CUgraphNode child;
  CHECK(cuGraphCreate(&parent, 0) == CUDA_SUCCESS);
  CHECK(cuGraphAddChildGraphNode(&child, parent, NULL, 0, g) == CUDA_ERROR_INVALID_VALUE);   /* a cyclic child */
  CHECK(cuGraphDestroy(parent) == CUDA_SUCCESS);
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS);
}

static int capture_status_is(CUstream s, CUstreamCaptureStatus want) {
  CUstreamCaptureStatus st = (CUstreamCaptureStatus)99;
  return cuStreamIsCapturing(s, &st) == CUDA_SUCCESS && st == want;
}

/* Calls that capture forbids fail and invalidate the capture. */
static void test_illegal_in_capture(void) {
  CUstream s, nb;
  CUevent e;
  CUgraph g = (CUgraph)1;
  CHECK(cuStreamCreate(&s, CU_STREAM_DEFAULT) == CUDA_SUCCESS && cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING) ==
        CUDA_SUCCESS && cuEventCreate(&e, 0) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK(cuStreamBeginCapture(CU_STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_GLOBAL) ==
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK(cuStreamBeginCapture(s, (CUstreamCaptureMode)7) == CUDA_ERROR_INVALID_VALUE);

  /* synchronizing the capturing stream */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(scale_add(s, 1, 1) == CUDA_SUCCESS);
  CHECK(cuStreamSynchronize(s) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK(capture_status_is(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED));
  CHECK(scale_add(s, 1, 1) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED && g == NULL);
  CHECK(capture_status_is(s, CU_STREAM_CAPTURE_STATUS_NONE));

  /* querying it, and a stream callback, which capture does not take */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuStreamQuery(s) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuStreamAddCallback(s, log_callback, NULL, 0) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  /* synchronizing the context: forbidden unless the thread or the capture is relaxed */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CHECK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(cuStreamEndCapture(nb, &g) == CUDA_SUCCESS && g && cuGraphDestroy(g) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) == CUDA_SUCCESS);
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  CHECK(cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS && mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS && mode == CU_STREAM_CAPTURE_MODE_RELAXED);
  CHECK(cuCtxSynchronize() == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CHECK(cuStreamEndCapture(nb, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  /* the legacy stream while a blocking stream captures: an implicit dependency */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CUstreamCaptureStatus st;
  CHECK(cuStreamIsCapturing(NULL, &st) == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);   /* does not invalidate */
  CHECK(capture_status_is(s, CU_STREAM_CAPTURE_STATUS_ACTIVE));
  CHECK(cuMemcpyHtoD(dbuf, host, 4) == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  CHECK(capture_status_is(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED));
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(scale_add(NULL, 1, 0) == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  /* a wait on an event recorded outside the capture */
  CHECK(cuEventRecord(e, nb) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuStreamWaitEvent(s, e, 0) == CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
  CHECK(cuStreamEndCapture(s, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  /* ... unless it is an external event wait node */
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(cuStreamWaitEvent(s, e, CU_EVENT_WAIT_EXTERNAL) == CUDA_SUCCESS);
  CHECK(cuEventRecordWithFlags(e, s, CU_EVENT_RECORD_EXTERNAL) == CUDA_SUCCESS);
  CHECK(cuStreamEndCapture(s, &g) == CUDA_SUCCESS && g);
  CUgraphNode nodes[2];
  size_t n = 2;
  CUgraphNodeType t0 = CU_GRAPH_NODE_TYPE_KERNEL, t1 = CU_GRAPH_NODE_TYPE_KERNEL;
  CHECK(cuGraphGetNodes(g, nodes, &n) == CUDA_SUCCESS && n == 2);
  CHECK(cuGraphNodeGetType(nodes[0], &t0) == CUDA_SUCCESS && t0 == CU_GRAPH_NODE_TYPE_WAIT_EVENT);
  CHECK(cuGraphNodeGetType(nodes[1], &t1) == CUDA_SUCCESS && t1 == CU_GRAPH_NODE_TYPE_EVENT_RECORD);
  CUgraphExec x;
  CHECK(cuGraphInstantiate(&x, g, 0) == CUDA_SUCCESS && cuGraphLaunch(x, nb) == CUDA_SUCCESS);
  CHECK(cuEventQuery(e) == CUDA_SUCCESS);   /* recorded by the graph, outside any capture */
  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS && cuGraphDestroy(g) == CUDA_SUCCESS);

  /* a stream destroyed while capturing ends its capture */
  CUstream gone;
  CHECK(cuStreamCreate(&gone, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CHECK(cuStreamBeginCapture(gone, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
  CHECK(scale_add(gone, 1, 1) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(gone) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);   /* no capture left */

  CHECK(cuEventDestroy(e) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(s) == CUDA_SUCCESS && cuStreamDestroy(nb) == CUDA_SUCCESS);
}

/* 2D set and copy nodes (pitched rows) and a kernel node given by `extra`. */
static void test_2d_nodes(void) {
  enum { W = 16, H = 4, PITCH = 128 };   /* 16 u32 of each 128-byte row */
  CUgraph g;
  CUgraphNode set, fill, copy;
  CUcontext ctx;
  CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && cuGraphCreate(&g, 0) == CUDA_SUCCESS);
  CHECK(cuMemsetD32(dbuf, 9, N) == CUDA_SUCCESS);   /* N * 4 = 1024 bytes: 8 rows */
  CUDA_MEMSET_NODE_PARAMS sp = {dbuf, PITCH, 0x01020304, 4, W, H};
  CHECK(cuGraphAddMemsetNode(&set, g, NULL, 0, &sp, ctx) == CUDA_SUCCESS);
  struct { CUdeviceptr p; unsigned mul, add, n; } args = {dbuf, 1, 1, N};
  size_t size = sizeof args;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CUDA_KERNEL_NODE_PARAMS kp = {kern, N / 64, 1, 1, 64, 1, 1, 0, NULL, extra, NULL, NULL};
  CHECK(cuGraphAddKernelNode(&fill, g, &set, 1, &kp) == CUDA_SUCCESS);
  args.add = 50;   /* copied at the call */
  static unsigned rows[H][W + 2];   /* a host pitch of 72 bytes, from column 1 */
  memset(rows, 0, sizeof rows);
  CUDA_MEMCPY3D cp = {0};
  cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.srcDevice = dbuf;
  cp.srcXInBytes = 4;   /* from element 1 of each device row */
  cp.srcPitch = PITCH;
  cp.dstMemoryType = CU_MEMORYTYPE_HOST;
  cp.dstHost = rows;
  cp.dstXInBytes = 4;
  cp.dstPitch = sizeof rows[0];
  cp.WidthInBytes = (W - 1) * 4;
  cp.Height = H;
  cp.Depth = 1;
  CHECK(cuGraphAddMemcpyNode(&copy, g, &fill, 1, &cp, ctx) == CUDA_SUCCESS);
  cp.dstPitch = 8;   /* narrower than a row */
  CUgraphNode bad;
  CHECK(cuGraphAddMemcpyNode(&bad, g, NULL, 0, &cp, ctx) == CUDA_ERROR_INVALID_VALUE);
  CUgraphExec x;
  CUDA_GRAPH_INSTANTIATE_PARAMS ip = {0};
  CHECK(cuGraphInstantiateWithParams(&x, g, &ip) == CUDA_SUCCESS);
  CHECK(ip.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS && ip.hErrNode_out == NULL);
  CHECK(cuGraphLaunch(x, NULL) == CUDA_SUCCESS && read_back());
  int ok = 1, ok_rows = 1;
  for (int i = 0; i < N; i++) {
    int in_set = i % (PITCH / 4) < W && i / (PITCH / 4) < H;
    ok &= host[i] == (in_set ? 0x01020304u + 1 : 9u + 1);
  }
  for (int y = 0; y < H; y++)
    for (int c = 0; c < W + 2; c++) ok_rows &= rows[y][c] == (c >= 1 && c < W ? 0x01020305u : 0);
  CHECK(ok && ok_rows);
  CHECK(cuGraphExecDestroy(x) == CUDA_SUCCESS && cuGraphDestroy(g) == CUDA_SUCCESS);
}

/* Capture modes across threads: a global capture in another thread forbids
 * this thread's unsafe calls, and only its own thread may end it. */
static pthread_barrier_t step;
static CUstream other_stream;
static CUresult other_end = CUDA_ERROR_UNKNOWN;

static void *other_thread(void *ctx) {
  CUgraph g = NULL;
  cuCtxSetCurrent(ctx);
  cuStreamBeginCapture(other_stream, CU_STREAM_CAPTURE_MODE_GLOBAL);
  pthread_barrier_wait(&step);   /* capturing */
  pthread_barrier_wait(&step);   /* the main thread has tried */
  other_end = cuStreamEndCapture(other_stream, &g);
  if (g) cuGraphDestroy(g);
  return NULL;
}

static void test_threads(void) {
  CUcontext ctx;
  CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);
  CHECK(cuStreamCreate(&other_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  pthread_t t;
  pthread_barrier_init(&step, NULL, 2);
  CHECK(pthread_create(&t, NULL, other_thread, ctx) == 0);
  pthread_barrier_wait(&step);
  CUgraph g = NULL;
  CHECK(cuStreamEndCapture(other_stream, &g) == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
  CHECK(cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);   /* other threads' captures are ignored */
  CHECK(cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS && mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  CHECK(cuCtxSynchronize() == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);   /* global: forbidden */
  pthread_barrier_wait(&step);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(other_end == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  pthread_barrier_destroy(&step);
  CHECK(cuStreamDestroy(other_stream) == CUDA_SUCCESS);
}

/* The per-thread flavours take stream 0 as CU_STREAM_PER_THREAD; the older
 * forms of the capture calls. */
typedef CUresult (*CaptureInfo1)(CUstream, CUstreamCaptureStatus *, cuuint64_t *);
typedef CUresult (*BeginCapture1)(CUstream);

static void test_flavours(void) {
  void *p = NULL, *q = NULL;
  CUdriverProcAddressQueryResult r;
  CUstream s;
  CHECK(cuStreamCreate(&s, 0) == CUDA_SUCCESS);
  CHECK(cuGetProcAddress("cuStreamBeginCapture", &p, 10000, 0, &r) == CUDA_SUCCESS && p);
  CHECK(cuGetProcAddress("cuStreamGetCaptureInfo", &q, 10010, 0, &r) == CUDA_SUCCESS && q);
  if (p && q) {
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CHECK(((BeginCapture1)p)(s) == CUDA_SUCCESS);
    CHECK(((CaptureInfo1)q)(s, &st, &id) == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_ACTIVE && id);
    /* the per-thread stream does not wait for the capture; the legacy one would */
    CHECK(cuGetProcAddress("cuStreamIsCapturing", &q, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &r) ==
          CUDA_SUCCESS && q);
    CHECK(((CUresult(*)(CUstream, CUstreamCaptureStatus *))q)(NULL, &st) == CUDA_SUCCESS &&
          st == CU_STREAM_CAPTURE_STATUS_NONE);
    CHECK(cuStreamIsCapturing(NULL, &st) == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    const CUgraphNode *deps = NULL;
    const CUgraphEdgeData *edges = NULL;
    size_t nd = 9;
    CHECK(scale_add(s, 1, 0) == CUDA_SUCCESS);
    CHECK(cuStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, &edges, &nd) == CUDA_SUCCESS && nd == 1 && edges &&
          edges[0].type == 0 && edges[0].from_port == 0);
    CUgraph g = NULL;
    CHECK(cuStreamEndCapture(s, &g) == CUDA_SUCCESS && g && cuGraphDestroy(g) == CUDA_SUCCESS);
  }
  CHECK(cuStreamBeginCapture(CU_STREAM_PER_THREAD, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_ERROR_NOT_SUPPORTED);
  CUcontext c = NULL;
  CUgreenCtx green = (CUgreenCtx)1;
  CHECK(cuStreamGetCtx_v2(s, &c, &green) == CUDA_SUCCESS && c && green == NULL);
  CHECK(cuStreamDestroy(s) == CUDA_SUCCESS);
}

/* After a kernel fault, stream and graph calls return the sticky error; the
 * graph's nodes after the faulting kernel do not run. */
static void test_sticky(void) {
  CUcontext ctx, prev;
  CUmodule mod;
  CUfunction bad, good;
  CUdeviceptr d;
  CHECK(cuCtxGetCurrent(&prev) == CUDA_SUCCESS);
  CHECK(cuCtxCreate(&ctx, NULL, 0, 0) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&mod, ptx) == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&bad, mod, "fault") == CUDA_SUCCESS &&
        cuModuleGetFunction(&good, mod, "scale_add") == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&d, 4) == CUDA_SUCCESS);
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CUgraph g;
  CUgraphNode k1, k2;
  CUDA_KERNEL_NODE_PARAMS kp = {bad, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL, NULL};
  CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS && cuGraphAddKernelNode(&k1, g, NULL, 0, &kp) == CUDA_SUCCESS);
  CUDA_MEMSET_NODE_PARAMS sp = {d, 0, 42, 4, 1, 1};
  CHECK(cuGraphAddMemsetNode(&k2, g, &k1, 1, &sp, ctx) == CUDA_SUCCESS);
  CUgraphExec x;
  CHECK(cuGraphInstantiate(&x, g, 0) == CUDA_SUCCESS);
  CHECK(cuMemsetD32(d, 1, 1) == CUDA_SUCCESS);
  CHECK(cuGraphLaunch(x, s) == CUDA_SUCCESS);   /* the fault is reported by the next call */
  CHECK(cuStreamSynchronize(s) == CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK(cuGraphLaunch(x, s) == CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK(cuLaunchHostFunc(s, count_host, NULL) == CUDA_ERROR_ILLEGAL_ADDRESS);
  CUevent e;
  CHECK(cuEventCreate(&e, 0) == CUDA_SUCCESS);
  CHECK(cuEventRecord(e, s) == CUDA_ERROR_ILLEGAL_ADDRESS && cuStreamWaitEvent(s, e, 0) == CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK(cuEventDestroy(e) == CUDA_SUCCESS && cuGraphExecDestroy(x) == CUDA_SUCCESS &&
        cuGraphDestroy(g) == CUDA_SUCCESS && cuStreamDestroy(s) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(ctx) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(prev) == CUDA_SUCCESS);
}

/* User objects: references owned by the caller and by graphs; a graph's
 * clone and its executable graph own copies; the destructor runs once the
 * last reference is gone, and may not call CUDA. */
static int destroyed;
static void *destroyed_ptr;
static CUresult in_destructor;

static void destructor(void *p) {
  destroyed++;
  destroyed_ptr = p;
  in_destructor = cuCtxSynchronize();
}

static void test_user_objects(void) {
  static int tag;
  CUuserObject o, o2;
  CHECK(cuUserObjectCreate(&o, &tag, destructor, 1, 0) == CUDA_ERROR_INVALID_VALUE);   /* the flag is required */
  CHECK(cuUserObjectCreate(&o, &tag, destructor, 0, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuUserObjectCreate(&o, &tag, destructor, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) == CUDA_SUCCESS);
  CUgraph g, clone;
  CHECK(cuGraphCreate(&g, 0) == CUDA_SUCCESS);
  CHECK(cuGraphAddEmptyNode(&(CUgraphNode){0}, g, NULL, 0) == CUDA_SUCCESS);
  CHECK(cuGraphRetainUserObject(g, o, 1, CU_GRAPH_USER_OBJECT_MOVE) == CUDA_SUCCESS);   /* the caller's one */
  CHECK(cuGraphRetainUserObject(g, o, 2, 0) == CUDA_SUCCESS);
  CHECK(cuGraphRetainUserObject(g, o, 1, 4) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuGraphReleaseUserObject(g, o, 2) == CUDA_SUCCESS);
  CHECK(cuGraphReleaseUserObject(g, o, 5) == CUDA_ERROR_INVALID_VALUE);   /* it holds 1 */
  CHECK(cuGraphClone(&clone, g) == CUDA_SUCCESS);
  CUgraphExec exec;
  CHECK(cuGraphInstantiate(&exec, g, 0) == CUDA_SUCCESS);
  CHECK(cuGraphDestroy(g) == CUDA_SUCCESS && destroyed == 0);
  CHECK(cuGraphDestroy(clone) == CUDA_SUCCESS && destroyed == 0);
  CHECK(cuGraphLaunch(exec, NULL) == CUDA_SUCCESS && destroyed == 0);
  CHECK(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
  CHECK(destroyed == 1 && destroyed_ptr == &tag && in_destructor == CUDA_ERROR_NOT_PERMITTED);
  CHECK(cuUserObjectRetain(o, 1) == CUDA_ERROR_INVALID_VALUE);   /* gone */
  /* the caller's own references */
  CHECK(cuUserObjectCreate(&o2, NULL, destructor, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) == CUDA_SUCCESS);
  CHECK(cuUserObjectRelease(o2, 1) == CUDA_SUCCESS && cuUserObjectRetain(o2, 1) == CUDA_SUCCESS);
  CHECK(cuUserObjectRetain(o2, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuUserObjectRelease(o2, 1) == CUDA_SUCCESS && destroyed == 1);
  CHECK(cuUserObjectRelease(o2, 1) == CUDA_SUCCESS && destroyed == 2 && destroyed_ptr == NULL);
}

int main(void) {
  CUcontext ctx;
  CUmodule mod;
  CHECK(cuGraphCreate(&(CUgraph){0}, 0) == CUDA_ERROR_NOT_INITIALIZED);
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  CHECK(cuModuleLoadData(&mod, ptx) == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&kern, mod, "scale_add") == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&fault_kern, mod, "fault") == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&dbuf, N * 4) == CUDA_SUCCESS);
  test_streams_events();
  test_capture();
  test_fork_join();
  test_explicit_graph();
  test_cycle();
  test_illegal_in_capture();
  test_2d_nodes();
  test_threads();
  test_flavours();
  test_user_objects();
  test_sticky();
  CHECK(cuMemFree(dbuf) == CUDA_SUCCESS && cuModuleUnload(mod) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  return unit_report();
}
