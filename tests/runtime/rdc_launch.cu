// rdc_launch.cu: dynamic parallelism (a kernel that launches a kernel,
// -rdc=true with libcudadevrt): ptxvm does not support device-side
// launches; the kernel that launches is refused at each launch, naming the
// device runtime's function, with cudaErrorNotSupported, as the driver
// refuses it; the module's other kernels run. libcudadevrt's object has no
// PTX for sm_90: it is left out of the link (said once).
// NVCC: -cudart shared -rdc=true -lcudadevrt
// STDERR: call to '__cudaCDP2GetParameterBufferV2', a function of the CUDA device runtime (libcudadevrt)
// STDERR-ONCE: #2: the image holds
#include "check.h"

__global__ void child(int *p) { *p = 42; }
__global__ void parent(int *p) { child<<<1, 1>>>(p); }
__global__ void plain(int *p) { *p = 7; }

int main() {
  int *d = nullptr, h = 0;
  OK(cudaMalloc(&d, sizeof(int)));
  parent<<<1, 1>>>(d);
  EXPECT(cudaGetLastError(), cudaErrorNotSupported);
  parent<<<1, 1>>>(d);
  EXPECT(cudaGetLastError(), cudaErrorNotSupported);
  plain<<<1, 1>>>(d);
  OK(cudaGetLastError());
  OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h == 7);
  child<<<1, 1>>>(d);
  OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h == 42);
  return finish();
}
