/* W2 SGEMM in OpenCL C, bench/w2_sgemm.cu's algorithm: C = A * B, row-major
 * n x n (n a multiple of 32), 32x32 work-groups, 32x32 local-memory tiles. */
#define T 32
__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void w2_sgemm(__global const float *A, __global const float *B, __global float *C, int n)
{
    __local float As[T][T];
    __local float Bs[T][T];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * T + ty, col = get_group_id(0) * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += T) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < T; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
