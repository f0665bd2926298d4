// streams.cu: streams, events and host callbacks in issue order: a chain of
// kernels and copies on two streams joined by an event (cudaStreamWaitEvent), cudaStreamQuery and
// cudaEventQuery, elapsed time, cudaLaunchHostFunc and cudaStreamAddCallback
// running after the work before them, the default streams, invalid handles,
// and a second host thread working on the same device memory (the runtime's
// one primary context is current on every thread).
#include <thread>
#include "check.h"

__global__ void add(int *p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

static int *host_view;
static int seen_by_callback = -1;
static void CUDART_CB host_fn(void *arg) { seen_by_callback = *(int *)arg; }
static cudaError_t callback_status = cudaErrorUnknown;
static void CUDART_CB stream_cb(cudaStream_t, cudaError_t status, void *arg) {
  callback_status = status;
  *(int *)arg = host_view[0];
}

int main() {
  const int n = 4096;
  int *d = nullptr;
  static int h[n];
  host_view = h;
  cudaStream_t a, b, nb;
  OK(cudaStreamCreate(&a));
  OK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
  int lo = 0, hi = 0;
  OK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  CHECK(lo >= hi);   // a greater priority is a smaller number
  OK(cudaStreamCreateWithPriority(&b, cudaStreamDefault, hi));
  unsigned flags = 7;
  OK(cudaStreamGetFlags(nb, &flags));
  CHECK(flags == cudaStreamNonBlocking);
  cudaEvent_t start, mid, stop;
  OK(cudaEventCreate(&start));
  OK(cudaEventCreateWithFlags(&mid, cudaEventDisableTiming));
  OK(cudaEventCreate(&stop));
  OK(cudaMalloc(&d, n * sizeof(int)));
  OK(cudaMemsetAsync(d, 0, n * sizeof(int), a));
  OK(cudaEventRecord(start, a));
  for (int k = 1; k <= 10; k++) add<<<n / 256, 256, 0, a>>>(d, k, n);
  OK(cudaEventRecord(mid, a));
  OK(cudaStreamWaitEvent(b, mid, 0));
  add<<<n / 256, 256, 0, b>>>(d, 1000, n);
  OK(cudaEventRecord(stop, b));
  OK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, b));
  int value = 0, seen = -1;
  OK(cudaStreamAddCallback(b, stream_cb, &seen, 0));
  value = 42;
  OK(cudaLaunchHostFunc(b, host_fn, &value));
  OK(cudaStreamSynchronize(b));
  CHECK(h[0] == 1055 && h[n - 1] == 1055);
  CHECK(seen == 1055 && callback_status == cudaSuccess);
  CHECK(seen_by_callback == 42);
  OK(cudaStreamQuery(a));
  OK(cudaEventQuery(stop));
  OK(cudaEventSynchronize(stop));
  float ms = -1;
  OK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0);
  EXPECT(cudaEventElapsedTime(&ms, start, mid), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  // the legacy and per-thread default streams
  add<<<n / 256, 256, 0, cudaStreamLegacy>>>(d, 1, n);
  add<<<n / 256, 256, 0, cudaStreamPerThread>>>(d, 1, n);
  OK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(h[0] == 1057);
  // another host thread: same context, same memory, its own last error
  cudaError_t in_thread = cudaErrorUnknown, last = cudaErrorUnknown;
  std::thread t([&] {
    add<<<n / 256, 256>>>(d, 10, n);
    in_thread = cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost);
    last = cudaGetLastError();
  });
  t.join();
  CHECK(in_thread == cudaSuccess && last == cudaSuccess && h[0] == 1067);
  OK(cudaEventDestroy(start));
  OK(cudaEventDestroy(mid));
  OK(cudaEventDestroy(stop));
  OK(cudaStreamDestroy(a));
  OK(cudaStreamDestroy(b));
  OK(cudaStreamDestroy(nb));
  EXPECT(cudaStreamSynchronize(a), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  OK(cudaFree(d));
  return finish();
}
