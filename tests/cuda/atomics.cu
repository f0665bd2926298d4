// atomics: atomicAdd (int, unsigned long long, float, double), atomicCAS (32/64/16-bit loops), atomicExch, atomicMin/Max (signed/unsigned/64), atomicInc/Dec (wrap), atomicAnd/Or/Xor, _block/_system scopes, on global and on shared memory; plus an all-threads spin lock (needs independent thread scheduling). Order-independent results. Launch: atomics_global -g 2 -b 256 ...; atomics_shared -g 2 -b 256 ...; spinlock_counter -g 2 -b 64 ...; see MANIFEST.

// Result layout (both kernels): int r[8], unsigned u[8], float f[2], double d[1], unsigned long long q[3], unsigned short s[2]
#define BODY(ri, ru, rf, rd, rq, rs, t)                                             \
    do {                                                                            \
        atomicAdd(&ri[0], 1);                                                       \
        atomicMin(&ri[1], (int)((t * 37u) % 512u) - 256);                           \
        atomicMax(&ri[2], (int)((t * 37u) % 512u) - 256);                           \
        if (atomicExch(&ri[3 + (t & 3)], 1) == 0) atomicAdd(&ri[7], 1);             \
        atomicInc(&ru[0], 16u);                                                     \
        atomicDec(&ru[1], 16u);                                                     \
        atomicAnd(&ru[2], ~(1u << (t % 20u)));                                      \
        atomicOr(&ru[3], 1u << (t % 24u));                                          \
        atomicXor(&ru[4], t * 2654435761u);                                         \
        atomicMin(&ru[5], (t * 7919u) % 1000u + 5u);                                \
        atomicMax(&ru[6], (t * 7919u) % 1000u + 5u);                                \
        {                                                                           \
            unsigned old = ru[7], assumed;                                          \
            do {                                                                    \
                assumed = old;                                                      \
                old = atomicCAS(&ru[7], assumed, assumed * 3u + 1u);                \
            } while (old != assumed);                                               \
        }                                                                           \
        atomicAdd(&rf[0], 0.5f);                                                    \
        atomicAdd(&rf[1], 0.25f * (float)t);                                        \
        atomicAdd(&rd[0], 0.125 * (double)t);                                       \
        atomicAdd(&rq[0], (1ull << 33) + t);                                        \
        atomicMax(&rq[1], (unsigned long long)t * 0x9E3779B97F4A7C15ull);           \
        {                                                                           \
            unsigned long long old = rq[2], assumed;                                \
            do {                                                                    \
                assumed = old;                                                      \
                old = atomicCAS(&rq[2], assumed, assumed * 3ull);                   \
            } while (old != assumed);                                               \
        }                                                                           \
        {                                                                           \
            unsigned short old = rs[0], assumed;                                    \
            do {                                                                    \
                assumed = old;                                                      \
                old = atomicCAS(&rs[0], assumed, (unsigned short)(assumed + 1u));   \
            } while (old != assumed);                                               \
        }                                                                           \
    } while (0)

// t is the global thread index; all result arrays are in global memory and must be pre-initialised
// (see MANIFEST): r = 0,0,0,0,0,0,0,0  u = 0,0,0xffffffff,0,0,0xffffffff,0,1  f = 0,0  d = 0  q = 0,0,1  s = 0,0
extern "C" __global__ void atomics_global(int* ri, unsigned* ru, float* rf, double* rd,
                                          unsigned long long* rq, unsigned short* rs)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    BODY(ri, ru, rf, rd, rq, rs, t);
    atomicAdd_system(&ri[0], 1);
    atomicAdd_block(&ru[0], 0u);
}

// Same operations on shared memory, per block (t = threadIdx.x); block b writes its results to
// out_i[b*8..], out_u[b*8..], out_f[b*2..], out_d[b], out_q[b*3..], out_s[b*2..].
extern "C" __global__ void atomics_shared(int* oi, unsigned* ou, float* of, double* od,
                                          unsigned long long* oq, unsigned short* os)
{
    __shared__ int ri[8];
    __shared__ unsigned ru[8];
    __shared__ float rf[2];
    __shared__ double rd[1];
    __shared__ unsigned long long rq[3];
    __shared__ unsigned short rs[2];
    unsigned t = threadIdx.x;
    if (t == 0) {
        for (int k = 0; k < 8; ++k) { ri[k] = 0; ru[k] = 0; }
        ru[2] = 0xffffffffu; ru[5] = 0xffffffffu; ru[7] = 1u;
        rf[0] = rf[1] = 0.0f; rd[0] = 0.0;
        rq[0] = 0; rq[1] = 0; rq[2] = 1;
        rs[0] = rs[1] = 0;
    }
    __syncthreads();
    BODY(ri, ru, rf, rd, rq, rs, t);
    atomicAdd_block(&ri[0], 1);
    __syncthreads();
    unsigned b = blockIdx.x;
    if (t < 8) { oi[b * 8 + t] = ri[t]; ou[b * 8 + t] = ru[t]; }
    if (t < 2) { of[b * 2 + t] = rf[t]; os[b * 2 + t] = rs[t]; }
    if (t < 3) oq[b * 3 + t] = rq[t];
    if (t == 0) od[b] = rd[0];
}

// Every thread takes a global spin lock (atomicCAS/atomicExch) and increments a plain counter.
// Lanes of one warp contend with each other, so this needs independent thread scheduling.
extern "C" __global__ void spinlock_counter(int* lock, int* counter)
{
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            __threadfence();
            volatile int* c = counter;
            *c = *c + 1;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}
