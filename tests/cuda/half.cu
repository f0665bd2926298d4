// half: __half and __half2 arithmetic from cuda_fp16.h (add/sub/mul/fma/neg/compare/min/max, half2 lanes, conversions half<->float/int/short bits). Launch: half_ops -g 1 -b 8 -a f32[8]:... -a f32[8]:... -a f32[64]:zero -a s32[24]:zero -a s32:8 -o 2 -o 3 ; see MANIFEST.
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const float* x, const float* y, float* outf, int* outi, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    __half a = __float2half(x[i]);          // round to nearest even
    __half b = __float2half_rz(y[i]);       // toward zero
    __half c = __hadd(a, b);
    __half d = __hmul(a, b);
    __half e = __hfma(a, b, c);
    __half f = __hsub(a, __hneg(b));
    __half2 p = __halves2half2(a, b);
    __half2 q = __floats2half2_rn(0.5f, -1.5f);
    __half2 r = __hfma2(p, q, __hadd2(p, q));
    __half2 s = __hmul2(r, __lowhigh2highlow(p));
    float* o = outf + i * 8;
    o[0] = __half2float(c);
    o[1] = __half2float(d);
    o[2] = __half2float(e);
    o[3] = __half2float(f);
    o[4] = __low2float(r);
    o[5] = __high2float(r);
    o[6] = __low2float(s);
    o[7] = __half2float(__hmax(a, b)) + __half2float(__hmin(a, b)) * 2.0f;
    int* oi = outi + i * 3;
    oi[0] = __half2int_rn(e);
    oi[1] = (int)__half_as_ushort(a);
    oi[2] = (__hlt(a, b) ? 1 : 0) | (__hge(a, b) ? 2 : 0) | (__hbeq2(p, p) ? 4 : 0) | (__heq(d, __int2half_rn(i)) ? 8 : 0);
}
