// managed.cu: managed memory through the runtime. A __managed__ array that
// the host writes before any runtime call (nvcc's code calls
// __cudaInitModule first, which must aim its pointer at the variable), a
// kernel updates and the host reads back in place; a __managed__ scalar's
// initializer; the symbol calls on managed variables; cudaMallocManaged
// memory shared the same way; cudaPointerGetAttributes says
// cudaMemoryTypeManaged with both pointers; the hints (cudaMemAdvise,
// cudaMemPrefetchAsync on a stream) reported back by
// cudaMemRangeGetAttribute(s); the errors for memory that is not managed;
// after cudaDeviceReset, the variables usable again from the next runtime
// call on.
#include "check.h"

enum { N = 64 };

__managed__ int x[N];
__managed__ float factor = 2.0f;

__global__ void bump(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * (int)factor + i;
}

__global__ void add_x(int *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i] += x[i];
}

static bool is_managed(const void *p) {
  cudaPointerAttributes a;
  memset(&a, 0x5a, sizeof a);
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  return e == cudaSuccess && a.type == cudaMemoryTypeManaged && a.device == 0 && a.devicePointer == p &&
         a.hostPointer == p;
}

int main() {
  for (int i = 0; i < N; i++) x[i] = i;   // before any runtime call
  CHECK(factor == 2.0f);
  bump<<<2, 32>>>(N);
  OK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < N; i++) bad += x[i] != 3 * i;
  CHECK(bad == 0);
  CHECK(is_managed(x) && is_managed(&x[7]) && is_managed(&factor));

  // the symbol calls see the same storage
  void *addr = nullptr;
  size_t size = 0;
  OK(cudaGetSymbolAddress(&addr, x));
  CHECK(addr == (void *)x);
  OK(cudaGetSymbolSize(&size, x));
  CHECK(size == sizeof x);
  int v = 77;
  OK(cudaMemcpyToSymbol(x, &v, sizeof v, 4 * sizeof(int)));
  CHECK(x[4] == 77);
  OK(cudaMemcpyFromSymbol(&v, x, sizeof v, 5 * sizeof(int)));
  CHECK(v == 15);
  float f = 3.0f;
  OK(cudaMemcpyToSymbol(factor, &f, sizeof f));
  CHECK(factor == 3.0f);
  factor = 1.0f;

  // cudaMallocManaged: written by the host, a kernel, read by the host
  int *m = nullptr;
  OK(cudaMallocManaged(&m, N * sizeof(int)));
  CHECK(is_managed(m) && is_managed(m + 3));
  for (int i = 0; i < N; i++) m[i] = 1000 * i;
  add_x<<<1, N>>>(m, N);
  OK(cudaDeviceSynchronize());
  bad = 0;
  for (int i = 0; i < N; i++) bad += m[i] != 1000 * i + x[i];
  CHECK(bad == 0);
  int *h = nullptr;
  OK(cudaMallocManaged(&h, 16, cudaMemAttachHost));
  CHECK(is_managed(h));
  OK(cudaFree(h));
  EXPECT(cudaMallocManaged(&h, 16, 7), cudaErrorInvalidValue);

  // hints, recorded and reported back
  cudaMemLocation dev = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
  int rm = -1, loc = -1;
  OK(cudaMemRangeGetAttribute(&rm, 4, cudaMemRangeAttributeReadMostly, m, N * sizeof(int)));
  CHECK(rm == 0);
  OK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetReadMostly, dev));
  OK(cudaMemRangeGetAttribute(&rm, 4, cudaMemRangeAttributeReadMostly, m, N * sizeof(int)));
  CHECK(rm == 1);
  OK(cudaMemRangeGetAttribute(&loc, 4, cudaMemRangeAttributePreferredLocation, m, N * sizeof(int)));
  CHECK(loc == cudaInvalidDeviceId);
  OK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetPreferredLocation, host));
  OK(cudaMemRangeGetAttribute(&loc, 4, cudaMemRangeAttributePreferredLocation, m, N * sizeof(int)));
  CHECK(loc == cudaCpuDeviceId);
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  OK(cudaMemPrefetchAsync(m, N * sizeof(int), dev, 0, s));
  add_x<<<1, N, 0, s>>>(m, N);
  OK(cudaMemPrefetchAsync(m, N * sizeof(int), host, 0, s));
  OK(cudaStreamSynchronize(s));
  CHECK(m[2] == 2000 + 2 * x[2]);
  int last = -5, type = -5;
  void *data[2] = {&last, &type};
  size_t sizes[2] = {4, 4};
  cudaMemRangeAttribute which[2] = {cudaMemRangeAttributeLastPrefetchLocation,
                                    cudaMemRangeAttributeLastPrefetchLocationType};
  OK(cudaMemRangeGetAttributes(data, sizes, which, 2, m, N * sizeof(int)));
  CHECK(last == cudaCpuDeviceId && type == cudaMemLocationTypeHost);
  // a __managed__ variable takes advice too
  int by[2] = {7, 7};
  OK(cudaMemAdvise(x, sizeof x, cudaMemAdviseSetAccessedBy, dev));
  OK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, x, sizeof x));
  CHECK(by[0] == 0 && by[1] == cudaInvalidDeviceId);

  // not managed memory
  int *d = nullptr;
  OK(cudaMalloc(&d, 256));
  EXPECT(cudaMemAdvise(d, 256, cudaMemAdviseSetReadMostly, dev), cudaErrorInvalidValue);
  EXPECT(cudaMemPrefetchAsync(d, 256, dev, 0, s), cudaErrorInvalidValue);
  EXPECT(cudaMemRangeGetAttribute(&rm, 4, cudaMemRangeAttributeReadMostly, d, 256), cudaErrorInvalidValue);
  EXPECT(cudaMemRangeGetAttribute(&rm, 8, cudaMemRangeAttributeReadMostly, m, 4), cudaErrorInvalidValue);
  EXPECT(cudaMemAdvise(m, 4, cudaMemAdviseSetPreferredLocation, cudaMemLocation{cudaMemLocationTypeDevice, 3}),
         cudaErrorInvalidDevice);
  OK(cudaFree(d));
  OK(cudaFree(m));
  OK(cudaStreamDestroy(s));
  EXPECT(cudaGetLastError(), cudaErrorInvalidDevice);   // the last error, read and cleared
  OK(cudaGetLastError());

  // after cudaDeviceReset the first runtime call aims the pointers again
  OK(cudaDeviceReset());
  OK(cudaFree(nullptr));
  for (int i = 0; i < N; i++) x[i] = -i;
  factor = 1.0f;
  bump<<<2, 32>>>(N);
  OK(cudaDeviceSynchronize());
  bad = 0;
  for (int i = 0; i < N; i++) bad += x[i] != 0;
  CHECK(bad == 0);
  CHECK(is_managed(x));
  return finish();
}
