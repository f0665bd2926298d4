// barrier_deadlock.cu: issue 4 vector 9 from nvcc. 128 threads; threads below
// 64 call __syncthreads() inside a branch while the others wait at a named
// barrier (bar.sync 1, 128): a deadlock (launch: -b 128 -a u32[128]:zero).
// In others_return the others simply return instead, which releases barrier
// 0 (exits count as arrived, spec §5.2): out[t] = t + 1 for t < 64, else 0.
extern "C" __global__ void syncthreads_vs_named(unsigned *out) {
  unsigned t = threadIdx.x;
  if (t < 64) {
    out[t] = t + 1;
    __syncthreads();
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    out[t] = 2 * t;
  }
}

extern "C" __global__ void others_return(unsigned *out) {
  unsigned t = threadIdx.x;
  if (t >= 64) return;
  out[t] = t + 1;
  __syncthreads();
}
