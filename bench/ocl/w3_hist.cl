/* W3 histogram in OpenCL C, bench/w3_hist.cu's algorithm: 256 work-items a
 * group count their grid-stride share in local bins with local atomics, then
 * add the bins to the global histogram with global atomics. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void w3_hist(__global const uchar *in, __global uint *hist, uint n)
{
    __local uint s[256];
    uint tid = get_local_id(0);
    s[tid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_group_id(0) * 256u + tid; i < n; i += get_num_groups(0) * 256u)
        atomic_inc(&s[in[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (s[tid])
        atomic_add(&hist[tid], s[tid]);
}
