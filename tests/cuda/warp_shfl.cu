// warp_shfl: warp shuffles: butterfly all-reduce with __shfl_xor_sync, tree reduce with __shfl_down_sync, inclusive scan with __shfl_up_sync, broadcast/rotate with __shfl_sync, sub-warp width 8, float and double (64-bit split) shuffles. Launch: warp_shfl -g 1 -b 64 -a s32[64]:iota -a s32[384]:zero -a f64[64]:zero -o 1 -o 2.
extern "C" __global__ void warp_shfl(const int* in, int* out, double* outd)
{
    const unsigned FULL = 0xffffffffu;
    int tid = threadIdx.x;
    int lane = tid & 31;
    int v = in[tid] * 3 + 1;

    int xsum = v;                                   // butterfly: every lane gets the warp sum
    for (int m = 16; m > 0; m >>= 1) xsum += __shfl_xor_sync(FULL, xsum, m);

    int dsum = v;                                   // tree: lane 0 gets the sum
    for (int off = 16; off > 0; off >>= 1) dsum += __shfl_down_sync(FULL, dsum, off);

    int scan = v;                                   // inclusive scan
    for (int off = 1; off < 32; off <<= 1) {
        int y = __shfl_up_sync(FULL, scan, off);
        if (lane >= off) scan += y;
    }

    int rot = __shfl_sync(FULL, v, lane + 5);       // source lane wraps modulo 32
    int seg = __shfl_xor_sync(FULL, v, 1, 8) + __shfl_sync(FULL, v, 0, 8) * 1000;   // width-8 segments
    int up8 = __shfl_up_sync(FULL, v, 3, 8);        // lanes with (lane%8) < 3 keep their own value

    float f = (float)v * 0.5f;
    for (int m = 16; m > 0; m >>= 1) f = fmaxf(f, __shfl_xor_sync(FULL, f, m));

    double d = (double)v * 0.25 + 1e10;
    double dn = __shfl_down_sync(FULL, d, 1);       // last lane keeps its own value

    int* o = out + tid * 6;
    o[0] = xsum;
    o[1] = (lane == 0) ? dsum : -1;
    o[2] = scan;
    o[3] = rot;
    o[4] = seg * 100 + up8;
    o[5] = (int)f;
    outd[tid] = dn;
}
