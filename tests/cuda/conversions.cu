// conversions: float->int with each rounding intrinsic (rn/rz/ru/rd) incl. saturation and NaN, float->unsigned/64-bit, __saturatef, int/long long->float/double with rounding modes, double<->float with rounding modes, signed<->unsigned and narrowing/widening casts. Launch: conv_from_float -g 1 -b 12 ...; conv_from_int -g 1 -b 8 ...; see MANIFEST.
extern "C" __global__ void conv_from_float(const float* x, int* oi, unsigned* ou, long long* ol, float* of, double* od, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    oi[i * 5 + 0] = __float2int_rn(v);
    oi[i * 5 + 1] = __float2int_rz(v);
    oi[i * 5 + 2] = __float2int_ru(v);
    oi[i * 5 + 3] = __float2int_rd(v);
    oi[i * 5 + 4] = (int)v;
    ou[i * 3 + 0] = __float2uint_rn(v);
    ou[i * 3 + 1] = __float2uint_rd(v);
    ou[i * 3 + 2] = (unsigned)__float2int_rz(v);
    ol[i * 3 + 0] = __float2ll_rn(v);
    ol[i * 3 + 1] = __float2ll_rz(v);
    ol[i * 3 + 2] = (long long)__float2ull_ru(v);
    of[i * 3 + 0] = __saturatef(v);
    of[i * 3 + 1] = __int2float_rn(__float2int_rd(v));
    of[i * 3 + 2] = (float)((double)v * (1.0 / 3.0));   // f32->f64, f64 mul, f64->f32 rn
    od[i] = (double)v;
}

extern "C" __global__ void conv_from_int(const int* a, const long long* b, const double* d,
                                         float* of, double* od, int* oi, long long* ol, unsigned* ou, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    long long y = b[i];
    double z = d[i];
    float* f = of + i * 11;
    f[0] = __int2float_rn(x);
    f[1] = __int2float_rz(x);
    f[2] = __int2float_ru(x);
    f[3] = __int2float_rd(x);
    f[4] = __uint2float_rn((unsigned)x);
    f[5] = __ll2float_rn(y);
    f[6] = __ull2float_rz((unsigned long long)y);
    f[7] = __double2float_rn(z);
    f[8] = __double2float_rz(z);
    f[9] = __double2float_ru(z);
    f[10] = __double2float_rd(z);
    double* g = od + i * 4;
    g[0] = __ll2double_rn(y);
    g[1] = __ll2double_rz(y);
    g[2] = (double)x;
    g[3] = __ull2double_rd((unsigned long long)y);
    int* h = oi + i * 5;
    h[0] = __double2int_rn(z);
    h[1] = __double2int_rz(z);
    h[2] = (int)(short)x;
    h[3] = (int)(signed char)x;
    h[4] = (int)(unsigned short)x;
    long long* l = ol + i * 3;
    l[0] = __double2ll_rd(z);
    l[1] = (long long)(unsigned)x;
    l[2] = (long long)x;
    unsigned* u = ou + i * 2;
    u[0] = (unsigned)x;
    u[1] = __double2uint_ru(z);
}
