// named_barrier: named barriers through inline PTX: producer/consumer over a shared buffer (warps 0-1 produce, warps 2-3 consume; "bar.arrive 1, 128" / "bar.sync 1, 128" for full, barrier 2 for empty), and two independent 64-thread groups each using their own "bar.sync N, 64". Launch: producer_consumer -g 2 -b 128 -a s32[1024]:iota -a s32[1024]:zero -a s32:512 -o 1 ; split_groups -g 1 -b 128 -a s32[128]:iota -a s32[128]:zero -o 1.
#define CHUNK 64

// Each block processes in[blockIdx.x*per_block .. +per_block) in chunks of 64: out = 2*in + 1.
extern "C" __global__ void producer_consumer(const int* in, int* out, int per_block)
{
    __shared__ int buf[CHUNK];
    int tid = threadIdx.x;
    int base = blockIdx.x * per_block;
    int nchunks = per_block / CHUNK;
    if (tid < 64) {                       // producers
        for (int c = 0; c < nchunks; ++c) {
            if (c > 0) asm volatile("bar.sync 2, 128;" ::: "memory");     // wait: buffer empty
            buf[tid] = in[base + c * CHUNK + tid] * 2;
            asm volatile("bar.arrive 1, 128;" ::: "memory");               // signal: buffer full
        }
    } else {                              // consumers
        int j = tid - 64;
        for (int c = 0; c < nchunks; ++c) {
            asm volatile("bar.sync 1, 128;" ::: "memory");                 // wait: buffer full
            int v = buf[CHUNK - 1 - j];
            out[base + c * CHUNK + CHUNK - 1 - j] = v + 1;
            if (c + 1 < nchunks) asm volatile("bar.arrive 2, 128;" ::: "memory");  // signal: empty
        }
    }
}

// Threads 0-63 and 64-127 synchronise independently on barriers 1 and 2 (64 threads each),
// then everyone meets at barrier 0. out[t] = in[mirror within group] + in[mirror of other group].
extern "C" __global__ void split_groups(const int* in, int* out)
{
    __shared__ int s[128];
    __shared__ int r[128];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    if (tid < 64) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        r[tid] = s[63 - tid];
    } else {
        asm volatile("bar.sync 2, 64;" ::: "memory");
        r[tid] = s[191 - tid] * 1000;
    }
    __syncthreads();
    out[tid] = r[tid] + r[tid ^ 64];
}
