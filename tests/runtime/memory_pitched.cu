// memory_pitched.cu: pitched (2-D) device memory through the runtime:
// cudaMallocPitch gives rows of at least the width, cudaMemset2D sets a
// box of them, cudaMemcpy2D moves a host image up (its own pitch) and down,
// a kernel walks the rows by the pitch, cudaMemcpy2DAsync copies between
// two pitched buffers and with cudaMemcpyDefault; cudaPointerGetAttributes
// says cudaMemoryTypeDevice anywhere in it; a width larger than a pitch is
// cudaErrorInvalidPitchValue.
#include "check.h"

enum { W = 37, H = 9 };   // W ints per row

__global__ void add_rows(int *p, size_t pitch, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) {
    int *row = (int *)((char *)p + y * pitch);
    row[x] += 1000 * y;
  }
}

static bool is_device(const void *p) {
  cudaPointerAttributes a;
  return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice && a.devicePointer == p;
}

int main() {
  int *d = nullptr, *e = nullptr;
  size_t pitch = 0, pitch2 = 0;
  OK(cudaMallocPitch((void **)&d, &pitch, W * sizeof(int), H));
  OK(cudaMallocPitch((void **)&e, &pitch2, W * sizeof(int), H));
  CHECK(pitch >= W * sizeof(int) && pitch % sizeof(int) == 0 && pitch2 == pitch);
  CHECK(is_device(d) && is_device((char *)d + (H - 1) * pitch + 4));
  // a box of bytes set, the rest left
  OK(cudaMemset2D(d, pitch, 0, W * sizeof(int), H));
  OK(cudaMemset2D((char *)d + pitch + 8, pitch, 0x01, 3 * sizeof(int), 2));
  int img[H][W];
  OK(cudaMemcpy2D(img, W * sizeof(int), d, pitch, W * sizeof(int), H, cudaMemcpyDeviceToHost));
  CHECK(img[0][2] == 0 && img[1][1] == 0 && img[1][2] == 0x01010101 && img[2][4] == 0x01010101 &&
        img[2][5] == 0 && img[3][2] == 0);
  // up, kernel, across, down
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) img[y][x] = y * W + x;
  OK(cudaMemcpy2D(d, pitch, img, W * sizeof(int), W * sizeof(int), H, cudaMemcpyHostToDevice));
  add_rows<<<H, 64>>>(d, pitch, W, H);
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  OK(cudaMemcpy2DAsync(e, pitch2, d, pitch, W * sizeof(int), H, cudaMemcpyDeviceToDevice, s));
  int back[H][W];
  memset(back, 0, sizeof back);
  OK(cudaMemcpy2DAsync(back, W * sizeof(int), e, pitch2, W * sizeof(int), H, cudaMemcpyDefault, s));
  OK(cudaStreamSynchronize(s));
  int bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) bad += back[y][x] != y * W + x + 1000 * y;
  CHECK(bad == 0);
  // a sub-box: 4 ints of rows 2..4 from column 3
  int part[3][4];
  OK(cudaMemcpy2D(part, 4 * sizeof(int), (char *)e + 2 * pitch2 + 3 * sizeof(int), pitch2, 4 * sizeof(int), 3,
                  cudaMemcpyDeviceToHost));
  CHECK(part[0][0] == 2 * W + 3 + 2000 && part[2][3] == 4 * W + 6 + 4000);
  EXPECT(cudaMemcpy2D(back, 4, d, pitch, 8, 2, cudaMemcpyDeviceToHost), cudaErrorInvalidPitchValue);
  OK(cudaFree(d));
  OK(cudaFree(e));
  OK(cudaStreamDestroy(s));
  return finish();
}
