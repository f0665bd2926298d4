/* W1 reduction in OpenCL C, bench/w1_reduce.cu's algorithm: 256 work-items a
 * group, grid-stride load, a local-memory tree with barriers. OpenCL 1.2 has
 * no shuffle, so the last 32 steps stay in local memory (a barrier each);
 * integer sums mod 2^32 do not depend on the order. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void w1_reduce(__global const int *in, __global int *out, uint n)
{
    __local int s[256];
    uint tid = get_local_id(0);
    int sum = 0;
    for (uint i = get_group_id(0) * 256u + tid; i < n; i += get_num_groups(0) * 256u)
        sum += in[i];
    s[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 128; k > 0; k >>= 1) {
        if (tid < k)
            s[tid] += s[tid + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        out[get_group_id(0)] = s[0];
}
