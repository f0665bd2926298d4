// inline_barrier_deadlock.cu: a deadlock inside CUDA's own headers, for the
// report's inline chain (tests/ptx/bar/inline_barrier_deadlock.ptx, made by
// `nvcc -arch=sm_90 -ptx -lineinfo -diag-suppress 20054`, the .file path
// made repository-relative and the RUN lines added on top). Warp 1
// (threads 32-63) waits on a cuda::barrier in the user's helper wait_all;
// warp 0 never arrives: it waits at __syncthreads for the others.
#include <cuda/barrier>

__device__ inline void wait_all(cuda::barrier<cuda::thread_scope_block> &b) {
  b.arrive_and_wait();
}

__global__ void inline_deadlock(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x >= 32)
    wait_all(bar);
  else
    __syncthreads();
  out[threadIdx.x] = 1;
}
