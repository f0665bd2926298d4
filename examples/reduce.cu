// reduce.cu: the README's demo. Each CTA sums its slice of `in` with a
// shared-memory tree and writes one partial sum per CTA to `out`.
//   ptxvm run examples/reduce.ptx _Z6reducePKiPii -g 4 -b 256 \
//       -a 's32[1024]:iota' -a 's32[4]:zero' -a s32:1024 -o 1
// prints 32640 98176 163712 229248.
__global__ void reduce(const int *in, int *out, int n) {
  __shared__ int buf[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  buf[t] = i < (unsigned)n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}
