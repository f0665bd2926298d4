// mma_tile: warp-level tensor-core GEMM tiles in inline PTX: ldmatrix.x4 (A) and ldmatrix.x2.trans (B) from shared memory into mma.sync.m16n8k16.row.col.f32.f16.f16.f32, one 16x8 tile of C = A*B per warp (M=32, N=16, K=32: two k-steps); and an s8 tile, mma.sync.m16n8k32.row.col.s32.s8.s8.s32 with fragments loaded straight from global memory (B given transposed, N x K). Launch: mma_f16 -b 128, args A B C, dump 2; mma_s8 -b 32, args A Bt C D, dump 3; see MANIFEST.
#include <cuda_fp16.h>

#define M 32
#define N 16
#define K 32

extern "C" __global__ void mma_f16(const float *A, const float *B, float *C)
{
    __shared__ __align__(16) __half As[M][K + 8];   /* padded rows: 80 and 48 bytes, 16-byte multiples */
    __shared__ __align__(16) __half Bs[K][N + 8];
    for (int i = threadIdx.x; i < M * K; i += blockDim.x) As[i / K][i % K] = __float2half(A[i]);
    for (int i = threadIdx.x; i < K * N; i += blockDim.x) Bs[i / N][i % N] = __float2half(B[i]);
    __syncthreads();
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int tm = (warp / 2) * 16, tn = (warp % 2) * 8;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        unsigned a[4], b[2];
        /* A 16x16 at (tm, k0): lanes 0-15 give rows 0-15 at column k0, lanes 16-31 at k0 + 8 */
        unsigned sa = (unsigned)__cvta_generic_to_shared(&As[tm + lane % 16][k0 + (lane / 16) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(sa));
        /* B 16x8 at (k0, tn), row-major in shared: transposed 8x8 loads give the column fragments */
        unsigned sb = (unsigned)__cvta_generic_to_shared(&Bs[k0 + lane % 16][tn]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(sb));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) C[(tm + g + 8 * (i / 2)) * N + tn + 2 * t + i % 2] = d[i];
}

/* A 16x32 row-major, Bt 8x32 (B transposed), C and D 16x8 row-major */
extern "C" __global__ void mma_s8(const signed char *A, const signed char *Bt, const int *C, int *D)
{
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int *A4 = (const int *)A, *B4 = (const int *)Bt;
    int a[4], b[2], d[4];
    for (int r = 0; r < 4; ++r) a[r] = A4[((g + 8 * (r % 2)) * 32 + 4 * t + 16 * (r / 2)) / 4];
    for (int r = 0; r < 2; ++r) b[r] = B4[(g * 32 + 4 * t + 16 * r) / 4];
    for (int i = 0; i < 4; ++i) d[i] = C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i) D[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}
