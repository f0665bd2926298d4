// graph.cu: a captured graph: kernels launched with <<<>>>, an async copy
// and a host function on a capturing stream become nodes instead of
// running; the graph, instantiated, runs them in order at each launch. And
// a graph built node by node: memset -> kernel -> copy -> host function.
#include "check.h"

__global__ void add(int *p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}
__global__ void twice(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2;
}

static int host_calls;
static void CUDART_CB count(void *) { host_calls++; }

int main() {
  const int n = 512;
  int *d = nullptr;
  static int h[n];
  OK(cudaMalloc(&d, n * sizeof(int)));
  OK(cudaMemset(d, 0, n * sizeof(int)));
  cudaStream_t s;
  OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  OK(cudaStreamIsCapturing(s, &st));
  CHECK(st == cudaStreamCaptureStatusActive);
  add<<<n / 128, 128, 0, s>>>(d, 3, n);
  twice<<<n / 128, 128, 0, s>>>(d, n);
  OK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  OK(cudaLaunchHostFunc(s, count, nullptr));
  cudaGraph_t g = nullptr;
  OK(cudaStreamEndCapture(s, &g));
  CHECK(host_calls == 0);   // captured, not run
  int first = -1;
  OK(cudaMemcpy(&first, d, sizeof first, cudaMemcpyDeviceToHost));
  CHECK(first == 0);
  cudaGraphExec_t x = nullptr;
  OK(cudaGraphInstantiate(&x, g, 0));
  OK(cudaGraphLaunch(x, s));
  OK(cudaStreamSynchronize(s));
  CHECK(h[0] == 6 && h[n - 1] == 6 && host_calls == 1);
  OK(cudaGraphLaunch(x, s));
  OK(cudaStreamSynchronize(s));
  CHECK(h[0] == 18 && h[n - 1] == 18 && host_calls == 2);
  OK(cudaGraphExecDestroy(x));
  OK(cudaGraphDestroy(g));

  // node by node
  cudaGraph_t g2 = nullptr;
  OK(cudaGraphCreate(&g2, 0));
  cudaGraphNode_t set, kern, copy, host, empty;
  cudaMemsetParams mp = {};
  mp.dst = d;
  mp.value = 1;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  OK(cudaGraphAddMemsetNode(&set, g2, nullptr, 0, &mp));
  int v = 10, nn = n;
  void *args[] = {&d, &v, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)add;
  kp.gridDim = dim3(n / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  OK(cudaGraphAddKernelNode(&kern, g2, &set, 1, &kp));
  OK(cudaGraphAddMemcpyNode1D(&copy, g2, &kern, 1, h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp = {count, nullptr};
  OK(cudaGraphAddHostNode(&host, g2, nullptr, 0, &hp));
  OK(cudaGraphAddEmptyNode(&empty, g2, nullptr, 0));
  OK(cudaGraphAddDependencies(g2, &copy, &host, nullptr, 1));
  OK(cudaGraphInstantiate(&x, g2, 0));
  h[0] = h[n - 1] = -1;
  OK(cudaGraphLaunch(x, s));
  OK(cudaStreamSynchronize(s));
  CHECK(h[0] == 11 && h[n - 1] == 11 && host_calls == 3);
  kp.func = (void *)&main;   // not a kernel
  EXPECT(cudaGraphAddKernelNode(&kern, g2, nullptr, 0, &kp), cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  OK(cudaGraphExecDestroy(x));
  OK(cudaGraphDestroy(g2));
  OK(cudaStreamDestroy(s));
  return finish();
}
