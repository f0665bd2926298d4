// W7: an sm_90a GEMM through wgmma (no CUTLASS): C = A * B, A (n x n) and
// B (n x n) row-major f32, rounded to f16 on the way into shared memory, f32
// accumulation. One warpgroup (128 threads) per 64 x 64 tile of C; each K
// tile of 64 is staged in shared memory without swizzle (core matrices of
// 8 rows of 16 bytes): A K-major, B MN-major (imm-trans-b 1), four
// wgmma.mma_async.m64n64k16 per K tile in one group. Build: bench/gen.sh
// (nvcc -arch=sm_90a). Reference: bench/ref/w7_wgmma.c.
#include <cuda_fp16.h>
#include <stdint.h>

#define TM 64
#define TK 64

__device__ static uint64_t desc(const void *smem, unsigned lbo, unsigned sbo)
{
    uint64_t a = (uint64_t)__cvta_generic_to_shared(smem);
    return ((a >> 4) & 0x3fff) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32;
}

// Element offsets (halves). A (m, k), K-major: core matrix (m / 8, k / 8) at
// byte (m / 8) * 1024 + (k / 8) * 128 (LBO 128, SBO 1024).
__device__ static int a_off(int m, int k) { return (m / 8) * 512 + (k / 8) * 64 + (m % 8) * 8 + k % 8; }
// B (k, n), MN-major: core matrix (n / 8, k / 8) at byte (n / 8) * 128 +
// (k / 8) * 1024 (SBO 128, LBO 1024).
__device__ static int b_off(int k, int n) { return (n / 8) * 64 + (k / 8) * 512 + (k % 8) * 8 + n % 8; }

extern "C" __global__ void __launch_bounds__(128) w7_wgmma(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(1024) __half As[TM * TK], Bs[TK * TM];
    int tid = threadIdx.x, row0 = blockIdx.y * TM, col0 = blockIdx.x * TM;
    float d[32];
    for (int i = 0; i < 32; i++) d[i] = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TK) {
        for (int i = tid; i < TM * TK; i += 128) {
            int r = i / TK, c = i % TK;
            As[a_off(r, c)] = __float2half_rn(A[(size_t)(row0 + r) * n + k0 + c]);
            Bs[b_off(r, c)] = __float2half_rn(B[(size_t)(k0 + r) * n + col0 + c]);
        }
        // wgmma reads As and Bs through the async proxy (PTX ISA 9.7.15.4)
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < TK; kk += 16) {
            uint64_t da = desc(&As[a_off(0, kk)], 128, 1024), db = desc(&Bs[b_off(kk, 0)], 1024, 128);
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, "
                "%32, %33, p, 1, 1, 0, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                  "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
                  "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
                  "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(da), "l"(db));
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads();
    }
    // the accumulator fragment: warp w rows 16w.., element e of lane l at
    // row g + 8 * ((e >> 1) & 1), column 8 * (e >> 2) + 2t + (e & 1)
    int w = tid / 32, l = tid % 32, g = l >> 2, t = l & 3;
    for (int e = 0; e < 32; e++) {
        int r = 16 * w + g + 8 * ((e >> 1) & 1), c = 8 * (e >> 2) + 2 * t + (e & 1);
        C[(size_t)(row0 + r) * n + col0 + c] = d[e];
    }
}
