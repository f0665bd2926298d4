// graph.cu: a captured graph: kernels launched with <<<>>>, an async copy
// and a host function on a capturing stream become nodes instead of
// running; the graph, instantiated, runs them in order at each launch.
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
  OK(cudaStreamDestroy(s));
  return finish();
}
