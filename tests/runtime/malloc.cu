// malloc.cu: device malloc and free (CUDA's device heap). The heap size is
// set with cudaDeviceSetLimit before the first launch that uses it and read
// back; each thread mallocs a block, fills it; a second launch reads the
// blocks through pointers the first left in device memory (blocks outlive
// their launch) and frees them; the heap is then full again. malloc
// returns NULL when the heap has no room; free(NULL) does nothing. After
// that launch the heap size is fixed: another value is cudaErrorInvalidValue.
#include "check.h"

enum { N = 256, HEAP = 64 << 10 };

__global__ void fill(int **slots) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = (int *)malloc(16 * sizeof(int));
  slots[t] = p;
  if (p)
    for (int i = 0; i < 16; i++) p[i] = t * 16 + i;
}

__global__ void drain(int **slots, int *sums, int *aligned) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = slots[t];
  int s = -1;
  if (p) {
    s = 0;
    for (int i = 0; i < 16; i++) s += p[i];
    if ((unsigned long long)p % 16) atomicAdd(aligned, 1);
  }
  sums[t] = s;
  free(p);
  free(nullptr);
}

// How many blocks of `bytes` the heap gives one thread, in a loop, then frees.
__global__ void count(int bytes, int *n) {
  void *first = nullptr, **prev = nullptr;
  int k = 0;
  for (void **p; (p = (void **)malloc(bytes)) != nullptr; k++) {
    *p = nullptr;
    if (prev) *prev = p; else first = p;
    prev = p;
  }
  for (void *p = first; p;) {
    void *next = *(void **)p;
    free(p);
    p = next;
  }
  *n = k;
}

int main() {
  size_t v = 0;
  OK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  CHECK(v == 8 << 20);   // CUDA's default
  OK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, HEAP));
  OK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  CHECK(v == HEAP);
  int **slots, *sums, *aligned, *n;
  OK(cudaMalloc(&slots, N * sizeof *slots));
  OK(cudaMalloc(&sums, N * sizeof *sums));
  OK(cudaMalloc(&aligned, sizeof *aligned));
  OK(cudaMalloc(&n, sizeof *n));
  OK(cudaMemset(aligned, 0, sizeof *aligned));
  fill<<<N / 64, 64>>>(slots);
  OK(cudaGetLastError());
  OK(cudaDeviceSynchronize());
  drain<<<N / 64, 64>>>(slots, sums, aligned);
  OK(cudaDeviceSynchronize());
  int h[N], a = -1;
  OK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
  OK(cudaMemcpy(&a, aligned, sizeof a, cudaMemcpyDeviceToHost));
  for (int t = 0; t < N; t++) CHECK(h[t] == 256 * t + 120);   // 64 KiB holds 256 blocks of 64 bytes
  CHECK(a == 0);
  // the heap is empty again: 1 KiB blocks fill its 64 KiB exactly, then NULL
  count<<<1, 1>>>(1024, n);
  int k = 0;
  OK(cudaMemcpy(&k, n, sizeof k, cudaMemcpyDeviceToHost));
  CHECK(k == HEAP / 1024);
  EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20), cudaErrorInvalidValue);
  OK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  CHECK(v == HEAP);
  OK(cudaFree(slots));
  OK(cudaFree(sums));
  OK(cudaFree(aligned));
  OK(cudaFree(n));
  return finish();
}
