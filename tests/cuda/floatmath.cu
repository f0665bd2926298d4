// floatmath: f32/f64 math. Exact (IEEE-rounded) ops in *_exact (div, sqrtf, fmaf, fminf/fmaxf incl. NaN, floor/ceil/trunc/rint, copysign); libm-style and approximate ops in *_approx (sinf, cosf, expf, logf, rsqrtf, __fdividef, __sinf, __expf, exp2f, log2f; double exp/log/sin). Launch: float_exact -g 1 -b 8 -a f32[8]:... -a f32[8]:... -a f32[96]:zero -a s32:8 -o 2; see MANIFEST.
#include <math.h>

extern "C" __global__ void float_exact(const float* x, const float* y, float* out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float* o = out + i * 12;
    o[0] = a / b;
    o[1] = sqrtf(fabsf(a));
    o[2] = fmaf(a, b, -1.0f);
    o[3] = fminf(a, b);
    o[4] = fmaxf(a, b);
    o[5] = floorf(a);
    o[6] = ceilf(a);
    o[7] = truncf(a);
    o[8] = rintf(a);
    o[9] = copysignf(b, a);
    o[10] = fabsf(a - b);
    o[11] = __fmaf_rz(a, b, 1.0f) + __fmul_ru(a, 3.0f);   // directed-rounding intrinsics
}

extern "C" __global__ void float_approx(const float* x, const float* y, float* out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float* o = out + i * 10;
    o[0] = sinf(a);
    o[1] = cosf(a);
    o[2] = expf(b);
    o[3] = logf(fabsf(a));
    o[4] = rsqrtf(fabsf(b));
    o[5] = __fdividef(a, b);
    o[6] = __sinf(a);
    o[7] = __expf(b);
    o[8] = exp2f(b);
    o[9] = log2f(fabsf(a));
}

extern "C" __global__ void double_exact(const double* x, const double* y, double* out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    double* o = out + i * 6;
    o[0] = a / b;
    o[1] = sqrt(fabs(a));
    o[2] = fma(a, b, -1.0);
    o[3] = fmin(a, b);
    o[4] = floor(a) + ceil(b);
    o[5] = __dadd_rz(a, b) + __dmul_rd(a, b);
}

extern "C" __global__ void double_approx(const double* x, const double* y, double* out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    double* o = out + i * 4;
    o[0] = exp(b);
    o[1] = log(fabs(a));
    o[2] = sin(a);
    o[3] = rsqrt(fabs(b));
}
