// memory_3d.cu: 3-D pitched memory through the runtime: cudaMalloc3D's
// cudaPitchedPtr (pitch, xsize, ysize), cudaMemset3D(Async) of the whole
// volume and of a box inside it, a kernel that writes each element by its
// (x, y, z), cudaMemcpy3D down to a dense host volume, up into a box at an
// offset (srcPos/dstPos), between volumes (Async, Peer, cudaMemcpyDefault);
// cudaPointerGetAttributes says cudaMemoryTypeDevice; CUDA arrays are
// refused by name (cudaErrorNotSupported), a box outside the allocation
// and a device other than 0 by the errors the runtime gives.
// STDERR-ONCE: ptxvm: cudaMemcpy3D with a CUDA array (cudaArray_t) is not implemented
#include "check.h"

enum { X = 20, Y = 6, Z = 5 };   // X bytes per row

__global__ void fill(cudaPitchedPtr p, int depth) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < (int)p.xsize && y < (int)p.ysize && z < depth)
    ((unsigned char *)p.ptr)[(z * p.ysize + y) * p.pitch + x] = (unsigned char)(x + 10 * y + 100 * z);
}

static cudaMemcpy3DParms parms(cudaPitchedPtr src, cudaPos sp, cudaPitchedPtr dst, cudaPos dpos, cudaExtent e,
                               cudaMemcpyKind k) {
  cudaMemcpy3DParms p = {};
  p.srcPtr = src, p.srcPos = sp, p.dstPtr = dst, p.dstPos = dpos, p.extent = e, p.kind = k;
  return p;
}

int main() {
  cudaExtent ext = make_cudaExtent(X, Y, Z);
  cudaPitchedPtr v, w;
  OK(cudaMalloc3D(&v, ext));
  OK(cudaMalloc3D(&w, ext));
  CHECK(v.ptr && v.pitch >= X && v.xsize == X && v.ysize == Y);
  cudaPointerAttributes a;
  OK(cudaPointerGetAttributes(&a, (char *)v.ptr + (Z * Y - 1) * v.pitch));
  CHECK(a.type == cudaMemoryTypeDevice && a.hostPointer == nullptr);

  static unsigned char host[Z][Y][X];
  cudaPitchedPtr hp = make_cudaPitchedPtr(host, X, X, Y);
  cudaPos o = make_cudaPos(0, 0, 0);
  // a set of everything, then of a 4 x 2 x 3 box at (2, 1, 1)
  OK(cudaMemset3D(v, 7, ext));
  cudaPitchedPtr box = v;
  box.ptr = (char *)v.ptr + 1 * v.pitch * v.ysize + 1 * v.pitch + 2;
  OK(cudaMemset3D(box, 9, make_cudaExtent(4, 2, 3)));
  cudaMemcpy3DParms p = parms(v, o, hp, o, ext, cudaMemcpyDeviceToHost);
  OK(cudaMemcpy3D(&p));
  CHECK(host[0][1][2] == 7 && host[1][1][2] == 9 && host[3][2][5] == 9 && host[4][1][2] == 7 &&
        host[1][3][2] == 7 && host[1][1][6] == 7 && host[1][1][1] == 7);

  // a kernel fills it; down again
  fill<<<dim3(Y, Z), 32>>>(v, Z);
  OK(cudaMemcpy3D(&p));
  int bad = 0;
  for (int z = 0; z < Z; z++)
    for (int y = 0; y < Y; y++)
      for (int x = 0; x < X; x++) bad += host[z][y][x] != (unsigned char)(x + 10 * y + 100 * z);
  CHECK(bad == 0);

  // device to device (Async, on a stream), then a box of host bytes up at an offset
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  OK(cudaMemset3DAsync(w, 0, ext, s));
  cudaMemcpy3DParms q = parms(v, o, w, o, ext, cudaMemcpyDeviceToDevice);
  OK(cudaMemcpy3DAsync(&q, s));
  static unsigned char ones[2][2][3];
  memset(ones, 1, sizeof ones);
  cudaMemcpy3DParms up = parms(make_cudaPitchedPtr(ones, 3, 3, 2), o, w, make_cudaPos(5, 3, 2),
                               make_cudaExtent(3, 2, 2), cudaMemcpyHostToDevice);
  OK(cudaMemcpy3DAsync(&up, s));
  OK(cudaStreamSynchronize(s));
  memset(host, 0, sizeof host);
  cudaMemcpy3DParms down = parms(w, o, hp, o, ext, cudaMemcpyDefault);
  OK(cudaMemcpy3D(&down));
  CHECK(host[2][3][5] == 1 && host[3][4][7] == 1 && host[2][3][4] == (unsigned char)(4 + 30 + 200) &&
        host[4][4][7] == (unsigned char)(7 + 40 + 400) && host[0][0][1] == 1);
  // a box read from an offset into a dense host box
  static unsigned char sub[2][2][2];
  cudaMemcpy3DParms rd = parms(v, make_cudaPos(1, 2, 3), make_cudaPitchedPtr(sub, 2, 2, 2), o,
                               make_cudaExtent(2, 2, 2), cudaMemcpyDeviceToHost);
  OK(cudaMemcpy3D(&rd));
  CHECK(sub[0][0][0] == (unsigned char)(1 + 20 + 300) && sub[1][1][1] == (unsigned char)(2 + 30 + 400));

  // peer copies on the one device
  cudaMemcpy3DPeerParms pp = {};
  pp.srcPtr = v, pp.dstPtr = w, pp.extent = ext, pp.srcDevice = 0, pp.dstDevice = 0;
  OK(cudaMemcpy3DPeer(&pp));
  OK(cudaMemcpy3DPeerAsync(&pp, s));
  OK(cudaStreamSynchronize(s));
  OK(cudaMemcpy3D(&down));
  CHECK(host[2][3][5] == (unsigned char)(5 + 30 + 200));
  pp.dstDevice = 1;
  EXPECT(cudaMemcpy3DPeer(&pp), cudaErrorInvalidDevice);

  // what is refused
  cudaMemcpy3DParms arr = p;
  arr.srcArray = (cudaArray_t)&host;   // never read: arrays are refused first
  arr.srcPtr = make_cudaPitchedPtr(nullptr, 0, 0, 0);
  EXPECT(cudaMemcpy3D(&arr), cudaErrorNotSupported);
  EXPECT(cudaMemset3D(v, 1, make_cudaExtent(X, Y, Z + 1)), cudaErrorInvalidValue);
  OK(cudaMemcpy3D(&p));
  CHECK(host[Z - 1][Y - 1][X - 1] == (unsigned char)(X - 1 + 10 * (Y - 1) + 100 * (Z - 1)));   // untouched
  cudaMemcpy3DParms kind = p;
  kind.kind = (cudaMemcpyKind)9;
  EXPECT(cudaMemcpy3D(&kind), cudaErrorInvalidMemcpyDirection);
  cudaPitchedPtr zero;
  OK(cudaMalloc3D(&zero, make_cudaExtent(0, 4, 4)));
  CHECK(zero.ptr == nullptr);
  OK(cudaFree(v.ptr));
  OK(cudaFree(w.ptr));
  OK(cudaStreamDestroy(s));
  return finish();
}
