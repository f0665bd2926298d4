/* Independent CPU reference for the real-input CUDA corpus (the .cu files in tests/cuda/).
 *
 * It re-implements what every kernel in MANIFEST computes, from the CUDA source and the PTX
 * semantics (saturating float->int conversions, canonical NaN, fma contraction where nvcc emits
 * fma.rn, half rounding, clamped shifts ...), and prints the whole MANIFEST on standard output:
 * the launch line of every kernel and its expected dump.  Regenerate with tests/cuda/reference/run.sh.
 *
 * Build: cc -std=c11 -O1 -frounding-math -ffp-contract=off ref.c -lm   (x86-64 or any IEEE host)
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -frounding-math stands in for "#pragma STDC FENV_ACCESS ON", which GCC ignores */

typedef int8_t i8;
typedef uint8_t u8;
typedef int16_t i16;
typedef uint16_t u16;
typedef int32_t i32;
typedef uint32_t u32;
typedef int64_t i64;
typedef uint64_t u64;

/* ---------------------------------------------------------------- growable strings */
typedef struct {
    char *s;
    size_t n, cap;
} str;

static void sadd(str *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (b->s && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) abort();
        if (b->n == 0) b->s[0] = 0;
    }
}
static void sreset(str *b)
{
    b->n = 0;
    if (b->s) b->s[0] = 0;
}
static const char *sget(str *b) { return b->s ? b->s : ""; }

/* ---------------------------------------------------------------- deterministic inputs */
static u64 lcg_state;
static void seed(u64 s) { lcg_state = s * 0x9E3779B97F4A7C15ull + 1; }
static u64 next64(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return lcg_state;
}
/* uniform integer in [lo, hi] */
static i64 rnd(i64 lo, i64 hi) { return lo + (i64)((next64() >> 16) % (u64)(hi - lo + 1)); }

/* ---------------------------------------------------------------- printing (CLI.md dump format) */
static void lit_i64(str *b, const i64 *v, int n)
{
    for (int i = 0; i < n; ++i) sadd(b, i ? ",%lld" : "%lld", (long long)v[i]);
}
static void lit_i32(str *b, const i32 *v, int n)
{
    for (int i = 0; i < n; ++i) sadd(b, i ? ",%d" : "%d", v[i]);
}
static void lit_u32(str *b, const u32 *v, int n)
{
    for (int i = 0; i < n; ++i) sadd(b, i ? ",%u" : "%u", v[i]);
}
static void lit_f32(str *b, const float *v, int n)
{
    for (int i = 0; i < n; ++i) sadd(b, i ? ",%.9g" : "%.9g", (double)v[i]);
}
static void lit_f64(str *b, const double *v, int n)
{
    for (int i = 0; i < n; ++i) sadd(b, i ? ",%.17g" : "%.17g", v[i]);
}

static void nl(str *e)
{
    if (e->n) sadd(e, "\\n");
}
static void d_i32(str *e, const i32 *v, int n)
{
    nl(e);
    for (int i = 0; i < n; ++i) sadd(e, i ? " %d" : "%d", v[i]);
}
static void d_u32(str *e, const u32 *v, int n)
{
    nl(e);
    for (int i = 0; i < n; ++i) sadd(e, i ? " %u" : "%u", v[i]);
}
static void d_i64(str *e, const i64 *v, int n)
{
    nl(e);
    for (int i = 0; i < n; ++i) sadd(e, i ? " %lld" : "%lld", (long long)v[i]);
}
static void d_u64(str *e, const u64 *v, int n)
{
    nl(e);
    for (int i = 0; i < n; ++i) sadd(e, i ? " %llu" : "%llu", (unsigned long long)v[i]);
}
static void d_u16(str *e, const u16 *v, int n)
{
    nl(e);
    for (int i = 0; i < n; ++i) sadd(e, i ? " %u" : "%u", v[i]);
}
static void d_f32(str *e, const float *v, int n)
{
    nl(e);
    for (int i = 0; i < n; ++i) sadd(e, i ? " %.9g" : "%.9g", (double)v[i]);
}
static void d_f64(str *e, const double *v, int n)
{
    nl(e);
    for (int i = 0; i < n; ++i) sadd(e, i ? " %.17g" : "%.17g", v[i]);
}

/* One MANIFEST line. */
static void emit(const char *file, const char *kernel, const char *args, const char *expected)
{
    printf("ptx/%s.sm_90.ptx %s | %s | %s\n", file, kernel, args, expected);
}
/* a line for one variant only (ptx/NAME.VARIANT.ptx), where its PTX computes something else */
static void emit_variant(const char *file, const char *variant, const char *kernel, const char *args,
                         const char *expected)
{
    printf("ptx/%s.%s.ptx %s | %s | %s\n", file, variant, kernel, args, expected);
}
static void comment(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static str A, E; /* current args and expected output */

/* ---------------------------------------------------------------- PTX arithmetic helpers */
static float f32_canon(float x) { return isnan(x) ? __builtin_nanf("") : x; } /* GPU NaN is 0x7fffffff: positive */
static double rnd_mode_f(int mode, long double exact)
{
    /* round an exactly representable long double to float in the given mode */
    int old = fegetround();
    fesetround(mode);
    volatile long double x = exact;
    volatile float r = (float)x;
    fesetround(old);
    return r;
}
static double rnd_mode_d(int mode, long double exact)
{
    int old = fegetround();
    fesetround(mode);
    volatile long double x = exact;
    volatile double r = (double)x;
    fesetround(old);
    return r;
}
/* single IEEE operations in a directed rounding mode (the host FPU honours fesetround) */
static float fma_mode(int mode, float a, float b, float c)
{
    int old = fegetround();
    fesetround(mode);
    volatile float va = a, vb = b, vc = c;
    volatile float r = fmaf(va, vb, vc);
    fesetround(old);
    return r;
}
static float mul_mode_f(int mode, float a, float b)
{
    int old = fegetround();
    fesetround(mode);
    volatile float va = a, vb = b;
    volatile float r = va * vb;
    fesetround(old);
    return r;
}
static double add_mode_d(int mode, double a, double b)
{
    int old = fegetround();
    fesetround(mode);
    volatile double va = a, vb = b;
    volatile double r = va + vb;
    fesetround(old);
    return r;
}
static double mul_mode_d(int mode, double a, double b)
{
    int old = fegetround();
    fesetround(mode);
    volatile double va = a, vb = b;
    volatile double r = va * vb;
    fesetround(old);
    return r;
}
/* PTX min/max.f32: NaN operands are ignored, and -0 < +0 */
static float ptx_minf(float a, float b)
{
    if (isnan(a)) return isnan(b) ? __builtin_nanf("") : b;
    if (isnan(b)) return a;
    if (a == 0 && b == 0) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static float ptx_maxf(float a, float b)
{
    if (isnan(a)) return isnan(b) ? __builtin_nanf("") : b;
    if (isnan(b)) return a;
    if (a == 0 && b == 0) return signbit(a) ? b : a;
    return a > b ? a : b;
}
static double ptx_min(double a, double b)
{
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    if (a == 0 && b == 0) return signbit(a) ? a : b;
    return a < b ? a : b;
}
/* float/double -> integer as cvt.rXi.{s,u}{32,64}: round, clamp to range. NaN: the ISA leaves the
 * result unspecified; the GPU (and ptxvm, src/exec/cvt.c) gives 0 for a 32-bit destination from an
 * f32 source and 1 << (bits - 1) for a 64-bit destination (0x8000000000000000, signed or unsigned).
 * (An f64 source gives 1 << (bits - 1) for 32-bit destinations too; the corpus has no NaN double.) */
static long double round_mode(long double x, char m)
{
    switch (m) {
    case 'n': return nearbyintl(x); /* current mode is round-to-nearest-even */
    case 'z': return truncl(x);
    case 'u': return ceill(x);
    default: return floorl(x);
    }
}
static i64 cvt_s(long double x, char m, int bits)
{
    if (isnan(x)) return bits == 64 ? INT64_MIN : 0;
    long double r = round_mode(x, m);
    long double hi = ldexpl(1.0L, bits - 1) - 1, lo = -ldexpl(1.0L, bits - 1);
    if (r > hi) return bits == 64 ? INT64_MAX : (i64)hi;
    if (r < lo) return bits == 64 ? INT64_MIN : (i64)lo;
    return (i64)r;
}
static u64 cvt_u(long double x, char m, int bits)
{
    if (isnan(x)) return bits == 64 ? 1ull << 63 : 0;
    long double r = round_mode(x, m);
    long double hi = ldexpl(1.0L, bits) - 1;
    if (r > hi) return bits == 64 ? UINT64_MAX : (u64)hi;
    if (r < 0) return 0;
    return (u64)r;
}

/* ---------------------------------------------------------------- IEEE binary16 */
typedef u16 half;
static float h2f(half h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0) v = ldexpf((float)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexpf((float)(m | 1024), e - 25);
    return s ? -v : v;
}
/* round an exact value to half: mode 'n' (nearest even) or 'z' (toward zero) */
static half ld2h(long double x, char mode)
{
    if (isnan(x)) return 0x7fff;
    u16 sign = signbit(x) ? 0x8000 : 0;
    long double a = fabsl(x);
    if (isinf(a)) return sign | 0x7c00;
    if (a == 0) return sign;
    int e;
    frexpl(a, &e);                        /* a = f * 2^e, f in [0.5,1) */
    int q = e - 11;                       /* quantum exponent for 11 significant bits */
    if (q < -24) q = -24;                 /* subnormal quantum */
    long double r = ldexpl(a, -q);
    r = (mode == 'n') ? nearbyintl(r) : truncl(r);
    long double v = ldexpl(r, q);
    if (v > 65504.0L) return mode == 'n' ? (sign | 0x7c00) : (sign | 0x7bff);
    /* encode */
    if (v == 0) return sign;
    int ee;
    frexpl(v, &ee);
    if (ee - 1 < -14) return sign | (u16)(long)ldexpl(v, 24);            /* subnormal */
    int biased = ee - 1 + 15;
    u16 man = (u16)((long)ldexpl(v, -(ee - 1) + 10) - 1024);
    return sign | (u16)(biased << 10) | man;
}
static half f2h(float f, char mode) { return ld2h((long double)f, mode); }

/* ---------------------------------------------------------------- integer intrinsics */
static u32 brev32(u32 x)
{
    u32 r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static u64 brev64(u64 x)
{
    u64 r = 0;
    for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i);
    return r;
}
static int clz32(u32 x) { return x ? __builtin_clz(x) : 32; }
static int clz64(u64 x) { return x ? __builtin_clzll(x) : 64; }
static int ffs32(u32 x) { return x ? __builtin_ctz(x) + 1 : 0; }
static int ffs64(u64 x) { return x ? __builtin_ctzll(x) + 1 : 0; }
static int popc32(u32 x) { return __builtin_popcount(x); }
static int popc64(u64 x) { return __builtin_popcountll(x); }
/* prmt.b32 default mode: byte selectors of 4 bits; bit 3 replicates the sign of the byte */
static u32 prmt(u32 a, u32 b, u32 c)
{
    u64 t = ((u64)b << 32) | a;
    u32 r = 0;
    for (int i = 0; i < 4; ++i) {
        u32 sel = (c >> (4 * i)) & 15;
        u32 byte = (u32)(t >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
    }
    return r;
}
static u32 byte_perm(u32 x, u32 y, u32 s) { return prmt(x, y, s & 0x7777); }
static u32 funnelshift_l(u32 lo, u32 hi, u32 sh)
{
    u64 t = ((u64)hi << 32) | lo;
    return (u32)((t << (sh & 31)) >> 32);
}
static u32 funnelshift_rc(u32 lo, u32 hi, u32 sh)
{
    u64 t = ((u64)hi << 32) | lo;
    if (sh > 32) sh = 32;
    return (u32)(t >> sh);
}
static u32 bfe_u32(u32 a, u32 pos, u32 len)
{
    pos &= 0xff;
    len &= 0xff;
    u32 r = 0;
    for (u32 i = 0; i < len; ++i) {
        u32 bit = (pos + i < 32) ? (a >> (pos + i)) & 1u : 0;
        r |= bit << i;
    }
    return len >= 32 ? r : r; /* len <= 16 here */
}
static i32 bfe_s32(i32 a, u32 pos, u32 len)
{
    pos &= 0xff;
    len &= 0xff;
    if (len == 0) return 0;
    u32 sbit_pos = (pos + len - 1 < 31) ? pos + len - 1 : 31;
    u32 sbit = ((u32)a >> sbit_pos) & 1u;
    u32 r = 0;
    for (u32 i = 0; i < 32; ++i) {
        u32 bit = (i < len) ? (((pos + i) < 32) ? ((u32)a >> (pos + i)) & 1u : sbit) : sbit;
        r |= bit << i;
    }
    return (i32)r;
}
static u32 bfi_b32(u32 a, u32 b, u32 pos, u32 len)
{
    pos &= 0xff;
    len &= 0xff;
    u32 r = b;
    for (u32 i = 0; i < len && pos + i < 32; ++i) {
        u32 bit = (a >> i) & 1u;
        r = (r & ~(1u << (pos + i))) | (bit << (pos + i));
    }
    return r;
}

/* ================================================================ kernels */

static void k_vecadd(void)
{
    int n = 250;
    i32 c[250];
    float cf[250];
    for (int i = 0; i < n; ++i) {
        c[i] = i + 3;
        cf[i] = (float)i + 0.5f;
    }
    sreset(&E);
    d_i32(&E, c, n);
    emit("vecadd", "vecadd_int", "-g 4 -b 64 -a s32[250]:iota -a s32[250]:fill=3 -a s32[250]:zero -a s32:250 -o 2", sget(&E));
    sreset(&E);
    d_f32(&E, cf, n);
    emit("vecadd", "vecadd_float", "-g 4 -b 64 -a f32[250]:iota -a f32[250]:fill=0.5 -a f32[250]:zero -a s32:250 -o 2", sget(&E));
}

static void k_axpy(void)
{
    int n = 100;
    float y[100];
    double yd[100];
    for (int i = 0; i < n; ++i) {
        y[i] = fmaf(0.1f, (float)i, 1.0f);  /* fma.rn.f32 */
        yd[i] = fma(0.1, (double)i, 1.0);   /* fma.rn.f64 */
    }
    sreset(&E);
    d_f32(&E, y, n);
    emit("axpy", "saxpy", "-g 2 -b 32 -a s32:100 -a f32:0.1 -a f32[100]:iota -a f32[100]:fill=1 -o 3", sget(&E));
    sreset(&E);
    d_f64(&E, yd, n);
    emit("axpy", "daxpy", "-g 2 -b 32 -a s32:100 -a f64:0.1 -a f64[100]:iota -a f64[100]:fill=1 -o 3", sget(&E));
    /* -G PTX is not contracted: mul.f32 then add.f32 (mul.f64, add.f64), each rounded to nearest */
    for (int i = 0; i < n; ++i) {
        volatile float p = 0.1f * (float)i;
        volatile double pd = 0.1 * (double)i;
        y[i] = p + 1.0f;
        yd[i] = pd + 1.0;
    }
    sreset(&E);
    d_f32(&E, y, n);
    emit_variant("axpy", "sm_90.G", "saxpy", "-g 2 -b 32 -a s32:100 -a f32:0.1 -a f32[100]:iota -a f32[100]:fill=1 -o 3",
                 sget(&E));
    sreset(&E);
    d_f64(&E, yd, n);
    emit_variant("axpy", "sm_90.G", "daxpy", "-g 2 -b 32 -a s32:100 -a f64:0.1 -a f64[100]:iota -a f64[100]:fill=1 -o 3",
                 sget(&E));
}

static void k_stencil(void)
{
    enum { W = 12, H = 10 };
    float in[W * H], out[W * H];
    seed(1);
    for (int i = 0; i < W * H; ++i) in[i] = (float)rnd(0, 9);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            int c = y * W + x;
            if (x == 0 || y == 0 || x == W - 1 || y == H - 1) {
                out[c] = in[c];
                continue;
            }
            float l = in[c - 1], r = in[c + 1], u = in[c - W], d = in[c + W], v = in[c];
            float s = (l + r) + (u + d);
            out[c] = fmaf(fmaf(v, -4.0f, s), 0.25f, v); /* as contracted by nvcc */
        }
    sreset(&A);
    sadd(&A, "-g 2,2 -b 8,8 -a f32[%d]:", W * H);
    lit_f32(&A, in, W * H);
    sadd(&A, " -a f32[%d]:zero -a s32:%d -a s32:%d -o 1", W * H, W, H);
    sreset(&E);
    d_f32(&E, out, W * H);
    emit("stencil2d", "stencil5", sget(&A), sget(&E));
}

static void matmul_case(const char *kernel, const char *grid, int M, int N, int K, u64 s)
{
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N), *c = malloc(sizeof(float) * M * N);
    seed(s);
    for (int i = 0; i < M * K; ++i) a[i] = (float)rnd(-4, 4);
    for (int i = 0; i < K * N; ++i) b[i] = (float)rnd(-4, 4);
    for (int r = 0; r < M; ++r)
        for (int col = 0; col < N; ++col) {
            float acc = 0;
            for (int k = 0; k < K; ++k) acc = fmaf(a[r * K + k], b[k * N + col], acc);
            c[r * N + col] = acc; /* small integers: exact in any order */
        }
    sreset(&A);
    sadd(&A, "-g %s -b 16,16 -a f32[%d]:", grid, M * K);
    lit_f32(&A, a, M * K);
    sadd(&A, " -a f32[%d]:", K * N);
    lit_f32(&A, b, K * N);
    sadd(&A, " -a f32[%d]:zero -a s32:%d -a s32:%d -a s32:%d -o 2", M * N, M, N, K);
    sreset(&E);
    d_f32(&E, c, M * N);
    emit("matmul", kernel, sget(&A), sget(&E));
    free(a);
    free(b);
    free(c);
}

static void k_transpose(void)
{
    enum { W = 64, H = 40 };
    static float out[W * H];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) out[x * H + y] = (float)(y * W + x);
    sreset(&E);
    d_f32(&E, out, W * H);
    emit("transpose", "transpose", "-g 2,2 -b 32,8 -a f32[2560]:iota -a f32[2560]:zero -a s32:64 -a s32:40 -o 1", sget(&E));
}

static void k_histogram(void)
{
    enum { N = 1000 };
    i32 data[N];
    u32 bins[16] = {0};
    seed(2);
    for (int i = 0; i < N; ++i) {
        data[i] = (i32)rnd(0, 255);
        bins[data[i] >> 4]++;
    }
    const char *ks[2] = {"hist_global", "hist_shared"};
    for (int k = 0; k < 2; ++k) {
        sreset(&A);
        sadd(&A, "-g 4 -b 128 -a u8[%d]:", N);
        lit_i32(&A, data, N);
        sadd(&A, " -a s32:%d -a u32[16]:zero -o 2", N);
        sreset(&E);
        d_u32(&E, bins, 16);
        emit("histogram", ks[k], sget(&A), sget(&E));
    }
}

static void k_scan(void)
{
    {
        enum { N = 300 };
        i32 in[N], out[N];
        seed(3);
        for (int i = 0; i < N; ++i) in[i] = (i32)rnd(-9, 9);
        for (int b = 0; b * 128 < N; ++b) {
            int acc = 0;
            for (int t = 0; t < 128 && b * 128 + t < N; ++t) out[b * 128 + t] = acc += in[b * 128 + t];
        }
        sreset(&A);
        sadd(&A, "-g 3 -b 128 -a s32[%d]:", N);
        lit_i32(&A, in, N);
        sadd(&A, " -a s32[%d]:zero -a s32:%d -o 1", N, N);
        sreset(&E);
        d_i32(&E, out, N);
        emit("scan_block", "scan_inclusive", sget(&A), sget(&E));
    }
    {
        enum { N = 500, NB = 512 };
        i32 in[N], out[NB] = {0};
        seed(4);
        for (int i = 0; i < N; ++i) in[i] = (i32)rnd(0, 20);
        for (int b = 0; b < 2; ++b) {
            int acc = 0;
            for (int t = 0; t < 256 && b * 256 + t < N; ++t) {
                out[b * 256 + t] = acc;
                acc += in[b * 256 + t];
            }
        }
        sreset(&A);
        sadd(&A, "-g 2 -b 128 -s 1024 -a s32[%d]:", N);
        lit_i32(&A, in, N);
        sadd(&A, " -a s32[%d]:zero -a s32:%d -o 1", N, N);
        sreset(&E);
        d_i32(&E, out, N);
        emit("scan_block", "scan_exclusive", sget(&A), sget(&E));
    }
}

static void k_reduce(void)
{
    i32 s[4] = {0};
    float sf[4] = {0};
    for (int i = 0; i < 1000; ++i) s[i / 256] += i;
    for (int b = 0; b < 4; ++b) sf[b] = (float)s[b]; /* integer partial sums < 2^24: exact */
    sreset(&E);
    d_i32(&E, s, 4);
    emit("reduce_block", "block_reduce_sum", "-g 4 -b 256 -a s32[1000]:iota -a s32[4]:zero -a s32:1000 -o 1", sget(&E));
    sreset(&E);
    d_f32(&E, sf, 4);
    emit("reduce_block", "block_reduce_sum_f32", "-g 4 -b 256 -a f32[1000]:iota -a f32[4]:zero -a s32:1000 -o 1", sget(&E));
}

static void k_mandelbrot(void)
{
    enum { W = 32, H = 24 };
    i32 it_out[W * H];
    volatile float x0 = -2.0f, y0 = -1.125f, dx = 0.09375f, dy = 0.09375f;
    for (int py = 0; py < H; ++py)
        for (int px = 0; px < W; ++px) {
            float cx = x0 + (float)px * dx; /* each op rounded to float: -ffp-contract=off */
            float cy = y0 + (float)py * dy;
            float x = 0, y = 0;
            int it = 0;
            while (it < 64) {
                float x2 = x * x, y2 = y * y;
                if (x2 + y2 > 4.0f) break;
                float xy = x * y;
                y = (xy + xy) + cy;
                x = (x2 - y2) + cx;
                ++it;
            }
            it_out[py * W + px] = it;
        }
    sreset(&E);
    d_i32(&E, it_out, W * H);
    emit("mandelbrot", "mandelbrot",
         "-g 2,3 -b 16,8 -a s32[768]:zero -a s32:32 -a s32:24 -a f32:-2.0 -a f32:-1.125 -a f32:0.09375 -a f32:0.09375 -a s32:64 -o 0",
         sget(&E));
}

static int cmp_i32(const void *a, const void *b)
{
    i32 x = *(const i32 *)a, y = *(const i32 *)b;
    return (x > y) - (x < y);
}

static void k_bitonic(void)
{
    i32 in[512], out[512];
    seed(5);
    for (int i = 0; i < 512; ++i) in[i] = (i32)rnd(-1000, 1000);
    memcpy(out, in, sizeof in);
    qsort(out, 256, sizeof(i32), cmp_i32);
    qsort(out + 256, 256, sizeof(i32), cmp_i32);
    sreset(&A);
    sadd(&A, "-g 2 -b 256 -a s32[512]:");
    lit_i32(&A, in, 512);
    sadd(&A, " -o 0");
    sreset(&E);
    d_i32(&E, out, 512);
    emit("bitonic", "bitonic_sort", sget(&A), sget(&E));
}

static void k_printf(void)
{
    float v[4] = {0.5f, 1.25f, -2.0f, 3.75f};
    sreset(&E);
    for (int t = 0; t < 4; ++t) {
        nl(&E);
        sadd(&E, "tid %d value %f", t, (double)v[t]);
    }
    emit("printf", "print_values", "-g 1 -b 4 -a f32[4]:0.5,1.25,-2,3.75 -a s32:4", sget(&E));
    sreset(&E);
    sadd(&E, "anyorder: ");
    long long big = -1234567890123LL;
    for (unsigned b = 0; b < 2; ++b)
        for (unsigned t = 0; t < 2; ++t) {
            if (b || t) sadd(&E, "\\n");
            double d = 1.0 / (1 + b + t);
            sadd(&E, "block %d thread %u: %lld %x %c %s %.3e %g", (int)b, t, big + t, 0xBEEF0000u + t, 'A' + (int)t,
                 t ? "odd" : "even", d, (double)((float)t * 0.5f));
        }
    emit("printf", "print_mixed", "-g 2 -b 2 -a s64:-1234567890123", sget(&E));
}

static void k_recursion(void)
{
    u64 f[21];
    i32 fib[21];
    f[0] = 1;
    for (int i = 1; i < 21; ++i) f[i] = f[i - 1] * (u64)i;
    fib[0] = 0;
    fib[1] = 1;
    for (int i = 2; i < 21; ++i) fib[i] = fib[i - 1] + fib[i - 2];
    sreset(&E);
    d_u64(&E, f, 21);
    d_i32(&E, fib, 21);
    emit("recursion", "recursion", "-g 1 -b 21 -a u64[21]:zero -a s32[21]:zero -a s32:21 -o 0 -o 1", sget(&E));
}

static void k_struct_param(void)
{
    /* struct Params { int n; float scale; double offset; char tag; short s[3]; long long big; unsigned flags; } */
    int n = 8;
    float scale = 1.5f;
    double offset = 0.25;
    signed char tag = 3;
    short s[3] = {10, -20, 30};
    long long big = 5LL << 32;
    unsigned flags = 0x2Au;
    unsigned char bytes[40] = {0};
    memcpy(bytes + 0, &n, 4);
    memcpy(bytes + 4, &scale, 4);
    memcpy(bytes + 8, &offset, 8);
    memcpy(bytes + 16, &tag, 1);
    memcpy(bytes + 18, s, 6);
    memcpy(bytes + 24, &big, 8);
    memcpy(bytes + 32, &flags, 4);
    float out[8];
    for (int i = 0; i < 8; ++i) {
        float v = fmaf((float)i, scale, (float)offset);
        if (flags & (1u << i)) v = -v;
        v = v + ((float)(tag + s[i % 3]) + (float)(big >> 32));
        out[i] = v;
    }
    /* the struct's bytes by value: a TYPE[N]:INIT spec for an array parameter (README, command line) */
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a b8[40]:");
    for (int i = 0; i < 40; ++i) sadd(&A, "%s0x%02x", i ? "," : "", bytes[i]);
    sadd(&A, " -a f32[8]:iota -a f32[8]:zero -o 2");
    sreset(&E);
    d_f32(&E, out, 8);
    comment("struct_param takes a 40-byte struct by value (.param .align 8 .b8 struct_param_param_0[40]):");
    comment("  {n=8, scale=1.5f, offset=0.25, tag=3, s={10,-20,30}, big=5<<32, flags=0x2a}; b8[40]:... gives its bytes");
    emit("struct_param", "struct_param", sget(&A), sget(&E));
}

static void k_local_array(void)
{
    i32 idx[16], out[16];
    seed(6);
    for (int i = 0; i < 16; ++i) idx[i] = (i32)rnd(0, 100);
    for (int tid = 0; tid < 16; ++tid) {
        int arr[16];
        for (int k = 0; k < 16; ++k) arr[k] = k * k + tid;
        int j = idx[tid] & 15;
        arr[j] += 1000;
        arr[(j * 7 + 3) & 15] -= 7;
        int acc = 0;
        for (int k = 0; k <= j; ++k) acc += arr[(k + tid) & 15];
        out[tid] = acc + arr[j];
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 16 -a s32[16]:");
    lit_i32(&A, idx, 16);
    sadd(&A, " -a s32[16]:zero -a s32:16 -o 1");
    sreset(&E);
    d_i32(&E, out, 16);
    emit("local_array", "local_array", sget(&A), sget(&E));
}

static void k_half(void)
{
    /* x[1]*y[1] == 1 sets the __heq flag; 65504*2 overflows to inf; 1e-5 is a half subnormal */
    float x[8] = {1.0f, 0.5f, -2.5f, 65504.0f, 1e-5f, 3.14159f, -0.0001f, 1000.7f};
    float y[8] = {2.0f, 2.0f, 1.75f, 2.0f, 3.0f, -3.14159f, 100.0f, 0.5001f};
    float of[64];
    i32 oi[24];
    for (int i = 0; i < 8; ++i) {
        half a = f2h(x[i], 'n'), b = f2h(y[i], 'z');
        long double fa = h2f(a), fb = h2f(b);
        half c = ld2h(fa + fb, 'n');
        half d = ld2h(fa * fb, 'n');
        half e = ld2h(fa * fb + (long double)h2f(c), 'n');
        half f = ld2h(fa - (-fb), 'n');
        /* p = (lo a, hi b), q = (lo 0.5, hi -1.5) */
        half qlo = f2h(0.5f, 'n'), qhi = f2h(-1.5f, 'n');
        half slo = ld2h(fa + h2f(qlo), 'n'), shi = ld2h(fb + h2f(qhi), 'n');
        half rlo = ld2h(fa * h2f(qlo) + h2f(slo), 'n'), rhi = ld2h(fb * h2f(qhi) + h2f(shi), 'n');
        half slo2 = ld2h((long double)h2f(rlo) * fb, 'n'); /* r * swap(p): lo = r.lo * b */
        float *o = of + i * 8;
        o[0] = h2f(c);
        o[1] = h2f(d);
        o[2] = h2f(e);
        o[3] = h2f(f);
        o[4] = h2f(rlo);
        o[5] = h2f(rhi);
        o[6] = h2f(slo2);
        float mx = h2f(a) > h2f(b) ? h2f(a) : h2f(b), mn = h2f(a) < h2f(b) ? h2f(a) : h2f(b);
        o[7] = fmaf(mn, 2.0f, mx);
        i32 *q = oi + i * 3;
        q[0] = (i32)cvt_s(h2f(e), 'n', 32);
        q[1] = a;
        half ih = ld2h((long double)i, 'n');
        q[2] = (h2f(a) < h2f(b) ? 1 : 0) | (h2f(a) >= h2f(b) ? 2 : 0) | 4 | (h2f(d) == h2f(ih) ? 8 : 0);
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a f32[8]:");
    lit_f32(&A, x, 8);
    sadd(&A, " -a f32[8]:");
    lit_f32(&A, y, 8);
    sadd(&A, " -a f32[64]:zero -a s32[24]:zero -a s32:8 -o 2 -o 3");
    sreset(&E);
    d_f32(&E, of, 64);
    d_i32(&E, oi, 24);
    emit("half", "half_ops", sget(&A), sget(&E));
}

static void k_intops(void)
{
    enum { NOPS = 48 };
    i64 A_[8] = {123456789, -7, INT64_MAX, -1, 0x123456789abcdef0LL, 0, -9223372036854775807LL, 0xdeadbeefLL};
    i64 B_[8] = {-987, 3, 2, 0x100000001LL, -0x0fedcba987654321LL, 0, -3, 0x40};
    u64 out[8 * NOPS];
    for (int i = 0; i < 8; ++i) {
        i64 a = A_[i], b = B_[i];
        u64 ua = (u64)a, ub = (u64)b;
        i32 a32 = (i32)a, b32 = (i32)b;
        u32 ua32 = (u32)a, ub32 = (u32)b;
        i16 a16 = (i16)a, b16 = (i16)b;
        u16 ua16 = (u16)a, ub16 = (u16)b;
        i8 a8 = (i8)a, b8 = (i8)b;
        u8 ua8 = (u8)a, ub8 = (u8)b;
        u64 *o = out + i * NOPS;
        int k = 0;
        o[k++] = (u64)(i64)(i8)(a8 * b8 + a8);
        o[k++] = (u8)(ua8 / (u8)(ub8 | 1));
        o[k++] = (u64)(i64)(i8)(a8 >> 2);
        o[k++] = (u8)(ua8 - ub8);
        o[k++] = (u64)(i64)(i16)(a16 * b16);
        o[k++] = (u16)(ua16 + ub16 * 3u);
        o[k++] = (u64)(i64)(a16 / (b16 ? b16 : 1));
        o[k++] = (u16)(ua16 % (ub16 ? ub16 : 7));
        o[k++] = (u64)(i64)(a32 / (b32 ? b32 : 1));
        o[k++] = (u64)(i64)(a32 % (b32 ? b32 : 1));
        o[k++] = ua32 / (ub32 | 1u);
        o[k++] = ua32 % (ub32 | 1u);
        o[k++] = (u64)(i64)(i32)(((i64)a32 * b32) >> 32);
        o[k++] = (u32)(((u64)ua32 * ub32) >> 32);
        o[k++] = (u32)((u32)a32 * (u32)b32);
        o[k++] = (u64)(i64)(a32 >> (b32 & 31));
        o[k++] = ua32 >> (ub32 & 31);
        o[k++] = (u32)(ua32 << (ub32 & 31));
        o[k++] = (u64)(a / (b ? b : 1));
        o[k++] = (u64)(a % (b ? b : 1));
        o[k++] = ua / (ub | 1ull);
        o[k++] = ua % (ub | 1ull);
        o[k++] = (u64)(i64)(((__int128)a * b) >> 64);
        o[k++] = (u64)(((unsigned __int128)ua * ub) >> 64);
        o[k++] = (u64)(a >> (b & 63));
        o[k++] = ua << (ub & 63);
        o[k++] = (u64)popc32(ua32);
        o[k++] = (u64)popc64(ua);
        o[k++] = (u64)clz32((u32)a32);
        o[k++] = (u64)clz64((u64)a);
        o[k++] = brev32(ua32);
        o[k++] = brev64(ua);
        o[k++] = (u64)(i64)ffs32((u32)a32);
        o[k++] = (u64)(i64)ffs64((u64)a);
        o[k++] = byte_perm(ua32, ub32, 0x3715);
        o[k++] = byte_perm(ua32, ub32, ub32 >> 16);
        o[k++] = funnelshift_l(ua32, ub32, ua32);
        o[k++] = funnelshift_rc(ua32, ub32, ub32 & 63);
        o[k++] = bfe_u32(ua32, ub32 & 15, ((ua32 >> 3) & 15) + 1);
        o[k++] = (u64)(i64)bfe_s32(a32, ub32 & 15, ((ua32 >> 3) & 15) + 1);
        o[k++] = bfi_b32(ub32, ua32, ua32 & 31, ub32 & 15);
        o[k++] = (u64)(i64)(ub32 >= 32 ? (a32 < 0 ? -1 : 0) : (a32 >> ub32)); /* shr.s32 clamps */
        o[k++] = ub32 >= 32 ? 0u : (u32)(ua32 << ub32);                      /* shl.b32 clamps */
        {
            i64 dd = (i64)a32 - b32;
            o[k++] = (u32)((u32)(dd < 0 ? -dd : dd) + 7u);
        }
        o[k++] = (u64)(i64)(i32)(((i64)a32 + b32) >> 1);
        o[k++] = (u64)(i64)(i32)(((i64)a32 + b32 + 1) >> 1);
        {
            i32 x24 = (i32)((u32)a32 << 8) >> 8, y24 = (i32)((u32)b32 << 8) >> 8;
            o[k++] = (u64)(i64)(i32)((u32)x24 * (u32)y24);
        }
        {
            i32 mx = a32 > b32 ? a32 : b32;
            u64 mn = ua < ub ? ua : ub;
            u64 ab = a < 0 ? (u64)0 - ua : ua;
            o[k++] = (u64)(i64)mx + mn + ab;
        }
        if (k != NOPS) {
            fprintf(stderr, "intops: %d ops\n", k);
            exit(1);
        }
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a s64[8]:");
    lit_i64(&A, A_, 8);
    sadd(&A, " -a s64[8]:");
    lit_i64(&A, B_, 8);
    sadd(&A, " -a u64[%d]:zero -a s32:8 -o 2", 8 * NOPS);
    sreset(&E);
    d_u64(&E, out, 8 * NOPS);
    emit("intops", "int_ops", sget(&A), sget(&E));
}

static void k_floatmath(void)
{
    float x[8] = {7.0f, -2.5f, 0.1f, 1e-3f, 123456.7f, -0.0f, 3.0f, NAN};
    float y[8] = {3.0f, 4.0f, -0.3f, 1e-3f, 1e30f, 0.0f, -1e-40f, 2.0f};
    float o[96];
    for (int i = 0; i < 8; ++i) {
        float a = x[i], b = y[i];
        float *q = o + i * 12;
        q[0] = f32_canon(a / b);
        q[1] = f32_canon(sqrtf(fabsf(a)));
        q[2] = f32_canon(fmaf(a, b, -1.0f));
        q[3] = ptx_minf(a, b);
        q[4] = ptx_maxf(a, b);
        q[5] = f32_canon(floorf(a));
        q[6] = f32_canon(ceilf(a));
        q[7] = f32_canon(truncf(a));
        q[8] = f32_canon(nearbyintf(a));
        q[9] = copysignf(b, a);
        q[10] = f32_canon(fabsf(a - b));
        q[11] = f32_canon(fma_mode(FE_TOWARDZERO, a, b, 1.0f) + mul_mode_f(FE_UPWARD, a, 3.0f));
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a f32[8]:");
    lit_f32(&A, x, 8);
    sadd(&A, " -a f32[8]:");
    lit_f32(&A, y, 8);
    sadd(&A, " -a f32[96]:zero -a s32:8 -o 2");
    sreset(&E);
    d_f32(&E, o, 96);
    emit("floatmath", "float_exact", sget(&A), sget(&E));

    float xa[8] = {0.5f, -1.25f, 2.0f, 3.0f, -0.75f, 1.5f, -2.9f, 0.1f};
    float ya[8] = {1.0f, -2.0f, 3.5f, 0.25f, -3.75f, 2.5f, 4.0f, -0.5f};
    float oa[80];
    for (int i = 0; i < 8; ++i) {
        double a = xa[i], b = ya[i];
        float *q = oa + i * 10;
        q[0] = (float)sin(a);
        q[1] = (float)cos(a);
        q[2] = (float)exp(b);
        q[3] = (float)log(fabs(a));
        q[4] = (float)(1.0 / sqrt(fabs(b)));
        q[5] = (float)(a / b);
        q[6] = (float)sin(a);
        q[7] = (float)exp(b);
        q[8] = (float)exp2(b);
        q[9] = (float)log2(fabs(a));
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a f32[8]:");
    lit_f32(&A, xa, 8);
    sadd(&A, " -a f32[8]:");
    lit_f32(&A, ya, 8);
    sadd(&A, " -a f32[80]:zero -a s32:8 -o 2");
    sreset(&E);
    sadd(&E, "approx rtol=1e-5 atol=1e-6: ");
    for (int i = 0; i < 80; ++i) sadd(&E, i ? " %.9g" : "%.9g", (double)oa[i]);
    emit("floatmath", "float_approx", sget(&A), sget(&E));

    double dx[8] = {2.0, -3.5, 0.1, 1e-3, 12345.678, 7.0, 1e100, -0.25};
    double dy[8] = {3.0, 0.5, -7.25, 1e-3, 2.0, -1.0, 1e-100, 4.0};
    double od[48];
    for (int i = 0; i < 8; ++i) {
        double a = dx[i], b = dy[i];
        double *q = od + i * 6;
        q[0] = a / b;
        q[1] = sqrt(fabs(a));
        q[2] = fma(a, b, -1.0);
        q[3] = ptx_min(a, b);
        q[4] = floor(a) + ceil(b);
        q[5] = add_mode_d(FE_TOWARDZERO, a, b) + mul_mode_d(FE_DOWNWARD, a, b);
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a f64[8]:");
    lit_f64(&A, dx, 8);
    sadd(&A, " -a f64[8]:");
    lit_f64(&A, dy, 8);
    sadd(&A, " -a f64[48]:zero -a s32:8 -o 2");
    sreset(&E);
    d_f64(&E, od, 48);
    emit("floatmath", "double_exact", sget(&A), sget(&E));

    double ox[32];
    double ax[8] = {2.0, -3.5, 0.1, 1e-3, 12345.678, 7.0, 0.5, -0.25};
    double ay[8] = {3.0, 0.5, -7.25, 1e-3, 2.0, -1.0, 10.0, 4.0};
    for (int i = 0; i < 8; ++i) {
        ox[i * 4 + 0] = exp(ay[i]);
        ox[i * 4 + 1] = log(fabs(ax[i]));
        ox[i * 4 + 2] = sin(ax[i]);
        ox[i * 4 + 3] = 1.0 / sqrt(fabs(ay[i]));
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a f64[8]:");
    lit_f64(&A, ax, 8);
    sadd(&A, " -a f64[8]:");
    lit_f64(&A, ay, 8);
    sadd(&A, " -a f64[32]:zero -a s32:8 -o 2");
    sreset(&E);
    sadd(&E, "approx rtol=1e-14 atol=1e-300: ");
    for (int i = 0; i < 32; ++i) sadd(&E, i ? " %.17g" : "%.17g", ox[i]);
    emit("floatmath", "double_approx", sget(&A), sget(&E));
}

static void k_conversions(void)
{
    float x[12] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.7f, 2.3f, 3e9f, -3e9f, 1e20f, NAN, -INFINITY};
    i32 oi[60];
    u32 ou[36];
    i64 ol[36];
    float of[36];
    double od[12];
    for (int i = 0; i < 12; ++i) {
        float v = x[i];
        oi[i * 5 + 0] = (i32)cvt_s(v, 'n', 32);
        oi[i * 5 + 1] = (i32)cvt_s(v, 'z', 32);
        oi[i * 5 + 2] = (i32)cvt_s(v, 'u', 32);
        oi[i * 5 + 3] = (i32)cvt_s(v, 'd', 32);
        oi[i * 5 + 4] = (i32)cvt_s(v, 'z', 32);
        ou[i * 3 + 0] = (u32)cvt_u(v, 'n', 32);
        ou[i * 3 + 1] = (u32)cvt_u(v, 'd', 32);
        ou[i * 3 + 2] = (u32)(i32)cvt_s(v, 'z', 32);
        ol[i * 3 + 0] = cvt_s(v, 'n', 64);
        ol[i * 3 + 1] = cvt_s(v, 'z', 64);
        ol[i * 3 + 2] = (i64)cvt_u(v, 'u', 64);
        of[i * 3 + 0] = isnan(v) ? 0.0f : (v < 0 ? 0.0f : (v > 1 ? 1.0f : v));
        of[i * 3 + 1] = (float)(i32)cvt_s(v, 'd', 32);
        of[i * 3 + 2] = f32_canon((float)((double)v * (1.0 / 3.0)));
        od[i] = (double)v;
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 12 -a f32[12]:");
    lit_f32(&A, x, 12);
    sadd(&A, " -a s32[60]:zero -a u32[36]:zero -a s64[36]:zero -a f32[36]:zero -a f64[12]:zero -a s32:12 -o 1 -o 2 -o 3 -o 4 -o 5");
    sreset(&E);
    d_i32(&E, oi, 60);
    d_u32(&E, ou, 36);
    d_i64(&E, ol, 36);
    d_f32(&E, of, 36);
    d_f64(&E, od, 12);
    emit("conversions", "conv_from_float", sget(&A), sget(&E));

    i32 a[8] = {16777217, -16777217, 2147483647, -2147483647 - 1, 123456789, -1, 0, 40000};
    i64 b[8] = {9007199254740993LL, -9007199254740993LL, INT64_MAX, -1, 123456789012345678LL, 0, 1, -5};
    double d[8] = {1.00000001, -2.5, 3.5, 1e300, -1e10, 1.5e-45, 0.1, -0.0};
    float f[88];
    double g[32];
    i32 h[40];
    i64 l[24];
    u32 u[16];
    int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
    for (int i = 0; i < 8; ++i) {
        i32 xv = a[i];
        i64 yv = b[i];
        double z = d[i];
        float *ff = f + i * 11;
        for (int m = 0; m < 4; ++m) ff[m] = (float)rnd_mode_f(modes[m], (long double)xv);
        ff[4] = (float)rnd_mode_f(FE_TONEAREST, (long double)(u32)xv);
        ff[5] = (float)rnd_mode_f(FE_TONEAREST, (long double)yv);
        ff[6] = (float)rnd_mode_f(FE_TOWARDZERO, (long double)(u64)yv);
        for (int m = 0; m < 4; ++m) ff[7 + m] = (float)rnd_mode_f(modes[m], (long double)z);
        double *gg = g + i * 4;
        gg[0] = rnd_mode_d(FE_TONEAREST, (long double)yv);
        gg[1] = rnd_mode_d(FE_TOWARDZERO, (long double)yv);
        gg[2] = (double)xv;
        gg[3] = rnd_mode_d(FE_DOWNWARD, (long double)(u64)yv);
        i32 *hh = h + i * 5;
        hh[0] = (i32)cvt_s(z, 'n', 32);
        hh[1] = (i32)cvt_s(z, 'z', 32);
        hh[2] = (i16)xv;
        hh[3] = (i8)xv;
        hh[4] = (u16)xv;
        i64 *ll = l + i * 3;
        ll[0] = cvt_s(z, 'd', 64);
        ll[1] = (i64)(u32)xv;
        ll[2] = xv;
        u32 *uu = u + i * 2;
        uu[0] = (u32)xv;
        uu[1] = (u32)cvt_u(z, 'u', 32);
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 8 -a s32[8]:");
    lit_i32(&A, a, 8);
    sadd(&A, " -a s64[8]:");
    lit_i64(&A, b, 8);
    sadd(&A, " -a f64[8]:");
    lit_f64(&A, d, 8);
    sadd(&A, " -a f32[88]:zero -a f64[32]:zero -a s32[40]:zero -a s64[24]:zero -a u32[16]:zero -a s32:8 -o 3 -o 4 -o 5 -o 6 -o 7");
    sreset(&E);
    d_f32(&E, f, 88);
    d_f64(&E, g, 32);
    d_i32(&E, h, 40);
    d_i64(&E, l, 24);
    d_u32(&E, u, 16);
    emit("conversions", "conv_from_int", sget(&A), sget(&E));
}

/* results of the atomics BODY over threads t = 0..N-1 (see atomics.cu) */
typedef struct {
    i32 ri[8];
    u32 ru[8];
    float rf[2];
    double rd[1];
    u64 rq[3];
    u16 rs[2];
} atom_res;

static void atomics_body(atom_res *r, unsigned N)
{
    for (unsigned t = 0; t < N; ++t) {
        r->ri[0] += 1;
        i32 v = (i32)((t * 37u) % 512u) - 256;
        if (v < r->ri[1]) r->ri[1] = v;
        if (v > r->ri[2]) r->ri[2] = v;
        if (r->ri[3 + (t & 3)] == 0) r->ri[7] += 1;
        r->ri[3 + (t & 3)] = 1;
        r->ru[0] = (r->ru[0] >= 16u) ? 0 : r->ru[0] + 1;
        r->ru[1] = (r->ru[1] == 0 || r->ru[1] > 16u) ? 16u : r->ru[1] - 1;
        r->ru[2] &= ~(1u << (t % 20u));
        r->ru[3] |= 1u << (t % 24u);
        r->ru[4] ^= t * 2654435761u;
        u32 w = (t * 7919u) % 1000u + 5u;
        if (w < r->ru[5]) r->ru[5] = w;
        if (w > r->ru[6]) r->ru[6] = w;
        r->ru[7] = r->ru[7] * 3u + 1u;
        r->rf[0] += 0.5f;
        r->rf[1] += 0.25f * (float)t;
        r->rd[0] += 0.125 * (double)t;
        r->rq[0] += (1ull << 33) + t;
        u64 q = (u64)t * 0x9E3779B97F4A7C15ull;
        if (q > r->rq[1]) r->rq[1] = q;
        r->rq[2] *= 3ull;
        r->rs[0] = (u16)(r->rs[0] + 1u);
    }
}
static void atom_init(atom_res *r)
{
    memset(r, 0, sizeof *r);
    r->ru[2] = 0xffffffffu;
    r->ru[5] = 0xffffffffu;
    r->ru[7] = 1u;
    r->rq[2] = 1;
}

static void k_atomics(void)
{
    atom_res g;
    atom_init(&g);
    atomics_body(&g, 512);
    g.ri[0] += 512; /* atomicAdd_system */
    sreset(&E);
    d_i32(&E, g.ri, 8);
    d_u32(&E, g.ru, 8);
    d_f32(&E, g.rf, 2);
    d_f64(&E, g.rd, 1);
    d_u64(&E, g.rq, 3);
    d_u16(&E, g.rs, 2);
    emit("atomics", "atomics_global",
         "-g 2 -b 256 -a s32[8]:zero -a u32[8]:0,0,4294967295,0,0,4294967295,0,1 -a f32[2]:zero -a f64[1]:zero "
         "-a u64[3]:0,0,1 -a u16[2]:zero -o 0 -o 1 -o 2 -o 3 -o 4 -o 5",
         sget(&E));

    atom_res s;
    atom_init(&s);
    atomics_body(&s, 256);
    s.ri[0] += 256; /* atomicAdd_block */
    i32 oi[16];
    u32 ou[16];
    float of[4];
    double od[2];
    u64 oq[6];
    u16 os[4];
    for (int b = 0; b < 2; ++b) {
        memcpy(oi + b * 8, s.ri, sizeof s.ri);
        memcpy(ou + b * 8, s.ru, sizeof s.ru);
        memcpy(of + b * 2, s.rf, sizeof s.rf);
        od[b] = s.rd[0];
        memcpy(oq + b * 3, s.rq, sizeof s.rq);
        memcpy(os + b * 2, s.rs, sizeof s.rs);
    }
    sreset(&E);
    d_i32(&E, oi, 16);
    d_u32(&E, ou, 16);
    d_f32(&E, of, 4);
    d_f64(&E, od, 2);
    d_u64(&E, oq, 6);
    d_u16(&E, os, 4);
    emit("atomics", "atomics_shared",
         "-g 2 -b 256 -a s32[16]:zero -a u32[16]:zero -a f32[4]:zero -a f64[2]:zero -a u64[6]:zero -a u16[4]:zero "
         "-o 0 -o 1 -o 2 -o 3 -o 4 -o 5",
         sget(&E));

    emit("atomics", "spinlock_counter", "-g 2 -b 64 -a s32[1]:zero -a s32[1]:zero -o 1", "128");
}

static void k_sync_count(void)
{
    i32 out[16];
    for (int b = 0; b < 4; ++b) {
        int cnt = 0, all = 1, any = 0, even = 0;
        for (int t = 0; t < 128; ++t) {
            int v = b * 128 + t;
            int p = v > 200;
            cnt += p;
            all &= p;
            any |= p;
            even += (v & 1) == 0;
        }
        out[b * 4 + 0] = cnt;
        out[b * 4 + 1] = all;
        out[b * 4 + 2] = any;
        out[b * 4 + 3] = even;
    }
    sreset(&E);
    d_i32(&E, out, 16);
    emit("sync_count", "sync_count", "-g 4 -b 128 -a s32[512]:iota -a s32[16]:zero -a s32:200 -o 1", sget(&E));
}

static void k_syncwarp(void)
{
    i32 r1[64], out[128];
    for (int tid = 0; tid < 64; ++tid) {
        int lane = tid & 31, wb = tid & ~31;
        if (lane & 1) r1[tid] = (wb | ((lane + 2) & 31)) * 10;
        else r1[tid] = (wb | ((lane + 30) & 31)) * 100;
    }
    for (int tid = 0; tid < 64; ++tid) {
        int lane = tid & 31, wb = tid & ~31;
        out[tid] = r1[tid ^ 1];
        if (lane < 16) out[64 + tid] = r1[wb | (15 - lane)] + 1;
        else out[64 + tid] = r1[wb | (47 - lane)] - 1;
    }
    sreset(&E);
    d_i32(&E, out, 128);
    emit("syncwarp", "syncwarp_exchange", "-g 1 -b 64 -a s32[64]:iota -a s32[128]:zero -o 1", sget(&E));
}

static void k_named_barrier(void)
{
    static i32 out[1024];
    for (int i = 0; i < 1024; ++i) out[i] = 2 * i + 1;
    sreset(&E);
    d_i32(&E, out, 1024);
    emit("named_barrier", "producer_consumer", "-g 2 -b 128 -a s32[1024]:iota -a s32[1024]:zero -a s32:512 -o 1", sget(&E));
    i32 r[128], o2[128];
    for (int t = 0; t < 128; ++t) r[t] = t < 64 ? 63 - t : (191 - t) * 1000;
    for (int t = 0; t < 128; ++t) o2[t] = r[t] + r[t ^ 64];
    sreset(&E);
    d_i32(&E, o2, 128);
    emit("named_barrier", "split_groups", "-g 1 -b 128 -a s32[128]:iota -a s32[128]:zero -o 1", sget(&E));
}

static void k_cg_tiles(void)
{
    i32 out[512];
    for (int b = 0; b < 2; ++b) {
        int v[64];
        for (int t = 0; t < 64; ++t) v[t] = b * 64 + (t + 1) % 64;
        for (int t = 0; t < 64; ++t) {
            int t16 = t / 16, l16 = t % 16, t4 = t / 4, l4 = t % 4;
            int sum16 = 0, scan16 = 0;
            for (int k = 0; k < 16; ++k) {
                sum16 += v[t16 * 16 + k];
                if (k <= l16) scan16 += v[t16 * 16 + k];
            }
            int max4 = INT32_MIN, ex4 = 0;
            unsigned ballot = 0;
            for (int k = 0; k < 4; ++k) {
                int tt = t4 * 4 + k;
                int w = v[tt] * ((tt & 1) ? -1 : 1);
                if (w > max4) max4 = w;
                if (k < l4) ex4 += v[tt];
                if (v[tt] & 1) ballot |= 1u << k;
            }
            int first = v[t4 * 4];
            int *o = out + (b * 64 + t) * 4;
            o[0] = sum16 + t16 * 1000000;
            o[1] = scan16;
            o[2] = max4 * 1000 + t4;
            o[3] = ex4 + first * 100 + (int)ballot * 100000;
        }
    }
    sreset(&E);
    d_i32(&E, out, 512);
    emit("cg_tiles", "cg_tiles", "-g 2 -b 64 -a s32[128]:iota -a s32[512]:zero -o 1", sget(&E));
}

static void k_cg_cluster(void)
{
    i32 out[256];
    for (int b = 0; b < 4; ++b)
        for (int t = 0; t < 64; ++t) {
            int pb = b ^ 1, prank = pb % 2;
            int v = prank * 1000 + pb * 100 + (t + 1) % 64;
            out[b * 64 + t] = v + 2 * 1000000 + 128 * 10000000;
        }
    sreset(&E);
    d_i32(&E, out, 256);
    emit("cg_cluster", "cg_cluster", "-g 4 -b 64 -a s32[256]:zero -o 0", sget(&E));
}

static void k_cuda_barrier(void)
{
    i32 out[256];
    for (int b = 0; b < 2; ++b) {
        int s[128];
        for (int k = 0; k < 128; ++k) s[k] = 3 * (b * 128 + (k + 5) % 128);
        for (int t = 0; t < 128; ++t) {
            int acc = 0;
            for (int ph = 2; ph < 6; ++ph) {
                if (t >= 96 && ph == 3) break;
                acc += s[(t + ph) % 96] + ph;
            }
            out[b * 128 + t] = acc;
        }
    }
    sreset(&E);
    d_i32(&E, out, 256);
    emit("cuda_barrier", "cuda_barrier", "-g 2 -b 128 -a s32[256]:iota -a s32[256]:zero -o 1", sget(&E));
}

static void k_pipeline(void)
{
    i32 out[128];
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 64; ++t) {
            int total = 0;
            for (int it = 0; it < 4; ++it) {
                int idx = (b * 4 + it) * 64 + t;
                int x = 4 * idx, y = x + 1, z = x + 2, w = x + 3;
                total += (x + 2 * y + 3 * z + 4 * w) * (it + 1);
            }
            out[b * 64 + t] = total;
        }
    sreset(&E);
    d_i32(&E, out, 128);
    emit("pipeline", "pipeline_thread", "-g 2 -b 64 -a s32[2048]:iota -a s32[128]:zero -a s32:4 -o 1", sget(&E));
    i32 o2[256];
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 128; ++t) {
            int acc = 0;
            for (int c = 0; c < 4; ++c) {
                int base = (b * 4 + c) * 256;
                acc += (base + t + base + t + 128) * (c + 1);
            }
            o2[b * 128 + t] = acc;
        }
    sreset(&E);
    d_i32(&E, o2, 256);
    emit("pipeline", "pipeline_block", "-g 2 -b 128 -a s32[2048]:iota -a s32[256]:zero -a s32:4 -o 1", sget(&E));
}

static void k_cg_memcpy(void)
{
    i32 out[600];
    int n = 300;
    for (int b = 0; b < 2; ++b)
        for (int i = 0; i < n; ++i) out[b * n + i] = b * n + n - 1 - i + i;
    sreset(&E);
    d_i32(&E, out, 600);
    emit("cg_memcpy_async", "cg_memcpy_block", "-g 2 -b 96 -a s32[600]:iota -a s32[600]:zero -a s32:300 -o 1", sget(&E));
    i32 o2[128];
    for (int w = 0; w < 2; ++w)
        for (int k = 0; k < 64; ++k) o2[w * 64 + k] = (w * 128 + k) * 10 + (w * 128 + 64 + k);
    sreset(&E);
    d_i32(&E, o2, 128);
    emit("cg_memcpy_async", "cg_memcpy_tiles", "-g 1 -b 64 -a s32[256]:iota -a s32[128]:zero -o 1", sget(&E));
}

static void k_bulk_copy(void)
{
    i32 out[1024];
    for (int i = 0; i < 512; ++i) out[i] = 2 * i + 1;
    sreset(&E);
    d_i32(&E, out, 512);
    emit("bulk_copy", "bulk_copy_cccl", "-g 2 -b 128 -a s32[512]:iota -a s32[512]:zero -o 1", sget(&E));
    for (int b = 0; b < 2; ++b)
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 256; ++i) out[b * 512 + h * 256 + i] = b * 512 + h * 256 + 255 - i + h * 1000000;
    sreset(&E);
    d_i32(&E, out, 1024);
    emit("bulk_copy", "bulk_copy_ptx", "-g 2 -b 128 -a s32[1024]:iota -a s32[1024]:zero -o 1", sget(&E));
}

static void k_dsmem(void)
{
    enum { N = 1000 };
    i32 in[N], bins[64] = {0};
    seed(7);
    for (int i = 0; i < N; ++i) {
        in[i] = (i32)rnd(-5, 70);
        int bin = in[i] < 0 ? 0 : (in[i] >= 64 ? 63 : in[i]);
        bins[bin]++;
    }
    sreset(&A);
    sadd(&A, "-g 4 -b 64 -s 128 -a s32[64]:zero -a s32:64 -a s32:32 -a s32[%d]:", N);
    lit_i32(&A, in, N);
    sadd(&A, " -a u64:%d -o 0", N);
    sreset(&E);
    d_i32(&E, bins, 64);
    emit("dsmem_histogram", "dsmem_histogram", sget(&A), sget(&E));
}

static void k_cluster_reduce(void)
{
    i32 out[2] = {0}, info[8];
    for (int i = 0; i < 1024; ++i) out[i / 512] += i;
    for (int b = 0; b < 8; ++b) info[b] = (b / 4) * 100 + (b % 4) * 10 + 4;
    sreset(&E);
    d_i32(&E, out, 2);
    d_i32(&E, info, 8);
    emit("cluster_reduce", "cluster_reduce", "-g 8 -b 128 -a s32[1024]:iota -a s32[2]:zero -a s32[8]:zero -o 1 -o 2", sget(&E));
}

static void k_warp_shfl(void)
{
    i32 out[384];
    double outd[64];
    for (int w = 0; w < 2; ++w) {
        int v[32];
        double d[32];
        for (int l = 0; l < 32; ++l) {
            v[l] = (w * 32 + l) * 3 + 1;
            d[l] = fma((double)v[l], 0.25, 1e10);
        }
        int sum = 0;
        float fmax_ = -INFINITY;
        for (int l = 0; l < 32; ++l) {
            sum += v[l];
            float f = (float)v[l] * 0.5f;
            if (f > fmax_) fmax_ = f;
        }
        int scan = 0;
        for (int l = 0; l < 32; ++l) {
            scan += v[l];
            int tid = w * 32 + l;
            int seg = v[l ^ 1] + v[l & ~7] * 1000;
            int up8 = (l - 3 >= (l & ~7)) ? v[l - 3] : v[l];
            int *o = out + tid * 6;
            o[0] = sum;
            o[1] = l == 0 ? sum : -1;
            o[2] = scan;
            o[3] = v[(l + 5) & 31];
            o[4] = seg * 100 + up8;
            o[5] = (int)fmax_;
            outd[tid] = l < 31 ? d[l + 1] : d[l];
        }
    }
    sreset(&E);
    d_i32(&E, out, 384);
    d_f64(&E, outd, 64);
    emit("warp_shfl", "warp_shfl", "-g 1 -b 64 -a s32[64]:iota -a s32[384]:zero -a f64[64]:zero -o 1 -o 2", sget(&E));
}

static void k_warp_vote(void)
{
    i32 in[64];
    u32 out[384];
    seed(8);
    for (int i = 0; i < 64; ++i) in[i] = (i32)(i < 32 ? rnd(-99, 50) : rnd(-99, 99));
    in[40] = -150;
    for (int w = 0; w < 2; ++w) {
        u32 ballot = 0, partial = 0;
        int all = 1, any = 0;
        for (int l = 0; l < 32; ++l) {
            int v = in[w * 32 + l];
            if (v > 0) ballot |= 1u << l;
            all &= v > -100;
            any |= v > 50;
            if (l < 16 && (v & 1)) partial |= 1u << l;
        }
        for (int l = 0; l < 32; ++l) {
            u32 *o = out + (w * 32 + l) * 6;
            o[0] = ballot;
            o[1] = (u32)popc32(ballot);
            o[2] = (u32)(all * 2 + any);
            o[3] = (l % 3 == 0) ? 0x49249249u : 0;
            o[4] = l < 16 ? partial : 0;
            o[5] = (u32)ffs32(ballot) + ((u32)clz32(ballot) << 8);
        }
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 64 -a s32[64]:");
    lit_i32(&A, in, 64);
    sadd(&A, " -a u32[384]:zero -o 1");
    sreset(&E);
    d_u32(&E, out, 384);
    emit("warp_vote", "warp_vote", sget(&A), sget(&E));
}

static void k_warp_aggregated(void)
{
    enum { N = 100 };
    i32 in[N], out[N] = {0};
    seed(9);
    for (int i = 0; i < N; ++i) in[i] = (i32)rnd(-50, 50);
    int cnt = 0;
    for (int i = 0; i < N; ++i)
        if (in[i] > 0) out[cnt++] = in[i];
    const char *ks[2] = {"filter_positive", "filter_positive_cg"};
    for (int k = 0; k < 2; ++k) {
        sreset(&A);
        sadd(&A, "-g 1 -b 32 -a s32[%d]:", N);
        lit_i32(&A, in, N);
        sadd(&A, " -a s32[%d]:zero -a s32[1]:zero -a s32:%d -o 1 -o 2", N, N);
        sreset(&E);
        d_i32(&E, out, N);
        d_i32(&E, &cnt, 1);
        emit("warp_aggregated", ks[k], sget(&A), sget(&E));
    }
}

static void k_warp_match(void)
{
    i32 keys[64], counts[8] = {0};
    u32 out[640];
    seed(10);
    for (int i = 0; i < 64; ++i) keys[i] = (i32)(i < 32 ? rnd(0, 7) : rnd(0, 20));
    for (int i = 0; i < 64; ++i) counts[keys[i] & 7]++;
    for (int w = 0; w < 2; ++w) {
        int *k = keys + w * 32;
        int same_hi = 1;
        for (int l = 1; l < 32; ++l) same_hi &= (k[l] >> 3) == (k[0] >> 3);
        u32 add = 0, andv = 0xffffffffu, orv = 0, xorv = 0, minu = 0xffffffffu;
        i32 mins = INT32_MAX, maxs = INT32_MIN;
        for (int l = 0; l < 32; ++l) {
            add += (u32)(k[l] * l);
            if (k[l] - l < mins) mins = k[l] - l;
            if (k[l] - 20 > maxs) maxs = k[l] - 20;
            u32 um = (u32)(k[l] * 7 + l);
            if (um < minu) minu = um;
            andv &= (u32)k[l] | 0xF0u;
            orv |= 1u << (k[l] & 31);
            xorv ^= (u32)k[l] * 2654435761u;
        }
        for (int l = 0; l < 32; ++l) {
            u32 peers = 0;
            for (int m = 0; m < 32; ++m)
                if (k[m] == k[l]) peers |= 1u << m;
            u32 *o = out + (w * 32 + l) * 10;
            o[0] = peers;
            o[1] = same_hi ? 0xffffffffu : 0;
            o[2] = (u32)same_hi;
            o[3] = add;
            o[4] = (u32)mins;
            o[5] = (u32)maxs;
            o[6] = minu;
            o[7] = andv;
            o[8] = orv;
            o[9] = xorv;
        }
    }
    sreset(&A);
    sadd(&A, "-g 1 -b 64 -a s32[64]:");
    lit_i32(&A, keys, 64);
    sadd(&A, " -a s32[8]:zero -a u32[640]:zero -o 1 -o 2");
    sreset(&E);
    d_i32(&E, counts, 8);
    d_u32(&E, out, 640);
    emit("warp_match_reduce", "warp_match_reduce", sget(&A), sget(&E));
}

static void k_cub(void)
{
    {
        i32 out[4];
        for (int b = 0; b < 2; ++b) {
            int sum = 0, mx = INT32_MIN;
            for (int i = 0; i < 512; ++i) sum += b * 512 + i;
            for (int t = 0; t < 128; ++t) {
                int w = ((b * 512 + t * 4) * 37) % 501;
                if (w > mx) mx = w;
            }
            out[b * 2] = sum;
            out[b * 2 + 1] = mx;
        }
        sreset(&E);
        d_i32(&E, out, 4);
        emit("cub_block_reduce", "cub_block_reduce", "-g 2 -b 128 -a s32[1024]:iota -a s32[4]:zero -o 1", sget(&E));
    }
    {
        i32 in[1024], ex[1024], mx[1024];
        seed(11);
        for (int i = 0; i < 1024; ++i) in[i] = (i32)rnd(-20, 20);
        for (int b = 0; b < 2; ++b) {
            int acc = 0, m = INT32_MIN;
            for (int i = 0; i < 512; ++i) {
                int v = in[b * 512 + i];
                ex[b * 512 + i] = acc;
                acc += v;
                if (v > m) m = v;
                mx[b * 512 + i] = m;
            }
        }
        sreset(&A);
        sadd(&A, "-g 2 -b 128 -a s32[1024]:");
        lit_i32(&A, in, 1024);
        sadd(&A, " -a s32[1024]:zero -a s32[1024]:zero -o 1 -o 2");
        sreset(&E);
        d_i32(&E, ex, 1024);
        d_i32(&E, mx, 1024);
        emit("cub_block_scan", "cub_block_scan", sget(&A), sget(&E));
    }
    {
        i32 in[1024], out[1024];
        seed(12);
        for (int i = 0; i < 1024; ++i) in[i] = (i32)rnd(-1000000, 1000000);
        in[3] = INT32_MIN;
        in[700] = INT32_MAX;
        in[701] = -1;
        in[702] = 0;
        memcpy(out, in, sizeof in);
        qsort(out, 512, sizeof(i32), cmp_i32);
        qsort(out + 512, 512, sizeof(i32), cmp_i32);
        sreset(&A);
        sadd(&A, "-g 2 -b 128 -a s32[1024]:");
        lit_i32(&A, in, 1024);
        sadd(&A, " -o 0");
        sreset(&E);
        d_i32(&E, out, 1024);
        emit("cub_block_radix_sort", "cub_radix_sort_keys", sget(&A), sget(&E));
    }
    {
        u32 keys[512], ok[512];
        i32 ov[512];
        seed(13);
        for (int i = 0; i < 512; ++i) keys[i] = (i % 5 == 0) ? (u32)rnd(0, 9) : (u32)(next64() >> 32); /* duplicates */
        /* stable sort descending: insertion-free, O(n^2) is fine for 512 */
        int idx[512];
        for (int i = 0; i < 512; ++i) idx[i] = i;
        for (int i = 1; i < 512; ++i) {
            int x = idx[i], j = i - 1;
            while (j >= 0 && keys[idx[j]] < keys[x]) {
                idx[j + 1] = idx[j];
                --j;
            }
            idx[j + 1] = x;
        }
        for (int i = 0; i < 512; ++i) {
            ok[i] = keys[idx[i]];
            ov[i] = idx[i];
        }
        sreset(&A);
        sadd(&A, "-g 1 -b 128 -a u32[512]:");
        lit_u32(&A, keys, 512);
        sadd(&A, " -a s32[512]:iota -o 0 -o 1");
        sreset(&E);
        d_u32(&E, ok, 512);
        d_i32(&E, ov, 512);
        emit("cub_block_radix_sort", "cub_radix_sort_pairs", sget(&A), sget(&E));
    }
    {
        i32 in[64], out[384];
        seed(14);
        for (int i = 0; i < 64; ++i) in[i] = (i32)rnd(-50, 50);
        for (int t = 0; t < 64; ++t) {
            int w = t / 32, h = t / 16;
            int sum = 0, mn = INT32_MAX, incl = 0, excl = 0, sum16 = 0, incl16 = 0;
            for (int l = w * 32; l < w * 32 + 32; ++l) {
                sum += in[l];
                if (in[l] < mn) mn = in[l];
                if (l <= t) incl += in[l];
                if (l < t) excl += in[l];
            }
            for (int l = h * 16; l < h * 16 + 16; ++l) {
                sum16 += in[l];
                if (l <= t) incl16 += in[l];
            }
            int *o = out + t * 6;
            o[0] = (t & 31) == 0 ? sum : 0;
            o[1] = (t & 31) == 0 ? mn : 0;
            o[2] = incl;
            o[3] = excl;
            o[4] = (t & 15) == 0 ? sum16 : 0;
            o[5] = incl16;
        }
        sreset(&A);
        sadd(&A, "-g 1 -b 64 -a s32[64]:");
        lit_i32(&A, in, 64);
        sadd(&A, " -a s32[384]:zero -o 1");
        sreset(&E);
        d_i32(&E, out, 384);
        emit("cub_warp", "cub_warp", sget(&A), sget(&E));
    }
}

/* lookback_scan.cu: a prefix sum over the whole array, whatever the order the CTAs take tiles in. */
static void lookback_case(const char *kernel, int n, int grid, int block, int jobs, u64 sd)
{
    i32 in[2000], out[2000];
    seed(sd);
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = (i32)rnd(-9, 9);
        out[i] = acc += in[i];
    }
    sreset(&A);
    sadd(&A, "-g %d -b %d -j %d -a s32[%d]:", grid, block, jobs, n);
    lit_i32(&A, in, n);
    sadd(&A, " -a s32[%d]:zero -a s32:%d -a u64[%d]:zero", n, n, grid);
    if (!strcmp(kernel, "scan_lookback_ticket")) sadd(&A, " -a u32[1]:zero");
    sadd(&A, " -o 1");
    sreset(&E);
    d_i32(&E, out, n);
    emit("lookback_scan", kernel, sget(&A), sget(&E));
}

static void k_lookback(void)
{
    comment("lookback_scan: at -j1, CTA 0 of scan_lookback_reverse waits for the 15 CTAs started after it (16 CTAs are resident per host thread).");
    comment("The kernels were checked on an NVIDIA H200 (driver 580.159.04, 2026-11-29) against a CPU prefix sum: these shapes");
    comment("with other inputs, and 132 CTAs x 256 (reverse), 32768 CTAs x 128 (ticket).");
    lookback_case("scan_lookback_reverse", 1000, 16, 64, 1, 5);
    lookback_case("scan_lookback_ticket", 2000, 32, 64, 2, 6);
}

/* grid_sync.cu: rounds of read-the-neighbour / grid sync / write / grid sync over the whole grid. */
static void gridsync_case(int grid, int block, int rounds, const char *extra)
{
    static i32 d[4096], v[4096];
    int n = grid * block;
    for (int i = 0; i < n; ++i) d[i] = i;
    for (int r = 0; r < rounds; ++r) {
        for (int t = 0; t < n; ++t) v[t] = d[(t + 1) % n];
        for (int t = 0; t < n; ++t) d[t] = (i32)((u32)v[t] + (u32)t + (u32)r);
    }
    sreset(&A);
    sadd(&A, "--cooperative -g %d -b %d%s -a s32[%d]:iota -a s32:%d -o 0", grid, block, extra, n, rounds);
    sreset(&E);
    d_i32(&E, d, n);
    emit("grid_sync", "gridsync_rounds", sget(&A), sget(&E));
}

static void k_gridsync(void)
{
    comment("grid_sync: a cooperative launch keeps every CTA resident (24 CTAs: more than the 16 a host thread keeps in a");
    comment("plain launch) and gives the grid workspace of this_grid().sync(); not run on a GPU yet.");
    gridsync_case(24, 32, 2, "");
    gridsync_case(10, 48, 3, " --schedule 7");
    gridsync_case(6, 64, 4, " -j 1");
}

/* mma_tile: C = A*B by tensor-core tiles; small integers, so exact in any order of accumulation */
static void k_mma_tile(void)
{
    enum { M = 32, N = 16, K = 32 };
    float a[M * K], b[K * N], c[M * N];
    seed(1800);
    for (int i = 0; i < M * K; ++i) a[i] = (float)rnd(-8, 8);
    for (int i = 0; i < K * N; ++i) b[i] = (float)rnd(-8, 8);
    for (int r = 0; r < M; ++r)
        for (int col = 0; col < N; ++col) {
            float acc = 0;
            for (int k = 0; k < K; ++k) acc = fmaf(a[r * K + k], b[k * N + col], acc);
            c[r * N + col] = acc;
        }
    sreset(&A);
    sadd(&A, "-b 128 -a f32[%d]:", M * K);
    lit_f32(&A, a, M * K);
    sadd(&A, " -a f32[%d]:", K * N);
    lit_f32(&A, b, K * N);
    sadd(&A, " -a f32[%d]:zero -o 2", M * N);
    sreset(&E);
    d_f32(&E, c, M * N);
    emit("mma_tile", "mma_f16", sget(&A), sget(&E));

    /* s8: A 16x32, Bt 8x32 (B transposed), D = A*B + C over the whole int8 range */
    i32 sa[16 * 32], sb[8 * 32], sc[16 * 8], sd[16 * 8];
    for (int i = 0; i < 16 * 32; ++i) sa[i] = (i32)rnd(-128, 127);
    for (int i = 0; i < 8 * 32; ++i) sb[i] = (i32)rnd(-128, 127);
    for (int i = 0; i < 16 * 8; ++i) sc[i] = (i32)rnd(-1000000, 1000000);
    for (int r = 0; r < 16; ++r)
        for (int col = 0; col < 8; ++col) {
            i64 acc = sc[r * 8 + col];
            for (int k = 0; k < 32; ++k) acc += (i64)sa[r * 32 + k] * sb[col * 32 + k];
            sd[r * 8 + col] = (i32)acc;
        }
    sreset(&A);
    sadd(&A, "-b 32 -a s8[512]:");
    lit_i32(&A, sa, 512);
    sadd(&A, " -a s8[256]:");
    lit_i32(&A, sb, 256);
    sadd(&A, " -a s32[128]:");
    lit_i32(&A, sc, 128);
    sadd(&A, " -a s32[128]:zero -o 3");
    sreset(&E);
    d_i32(&E, sd, 128);
    emit("mma_tile", "mma_s8", sget(&A), sget(&E));
}

int main(void)
{
    fesetround(FE_TONEAREST);
    printf("# tests/cuda/MANIFEST -- generated by tests/cuda/reference/run.sh from reference/ref.c; do not edit.\n");
    printf("#\n");
    printf("# One line per kernel launch:  FILE KERNEL | OPTIONS | EXPECTED\n");
    printf("#   FILE      a PTX file relative to tests/cuda/. The same line holds for every variant of that source:\n");
    printf("#             ptx/NAME.sm_90.ptx, ptx/NAME.sm_90a.ptx, ptx/NAME.sm_90.G.ptx, ptx/NAME.sm_90.lineinfo.ptx.\n");
    printf("#             Exception: a line whose FILE names another variant (ptx/NAME.sm_90.G.ptx) holds for that\n");
    printf("#             variant only and replaces the sm_90 line's expectation there (its PTX computes otherwise,\n");
    printf("#             e.g. -G does not contract a*x+y into fma).\n");
    printf("#   KERNEL    the .entry name.\n");
    printf("#   OPTIONS   `ptxvm run` options (shared/CLI.md), separated by single spaces; no option contains a\n");
    printf("#             space, so split on whitespace and pass the words straight to ptxvm (no shell: '[' would glob).\n");
    printf("#   EXPECTED  the exact standard output of `ptxvm run -q ... FILE KERNEL`, with each newline written as\n");
    printf("#             the two characters \\n (no trailing newline). Two prefixes change how to compare:\n");
    printf("#               'approx rtol=R atol=A: ' -- one dump line of numbers; each value v must satisfy\n");
    printf("#                   |v - expected| <= A + R*|expected| (libm-style and .approx instructions);\n");
    printf("#               'anyorder: ' -- printf lines from several warps/CTAs, whose order is unspecified;\n");
    printf("#                   compare the lines as a multiset.\n");
    printf("# Lines starting with '#' are comments. Cluster sizes come from __cluster_dims__ (.reqnctapercluster)\n");
    printf("# unless -c is given. Floating-point results assume the PTX semantics: fma.rn where nvcc contracted,\n");
    printf("# canonical (positive) NaN, PTX min/max NaN rules, saturating float->int cvt with NaN -> 0\n");
    printf("# (-> 1 << 63 for a 64-bit destination, as the GPU and ptxvm do; the ISA leaves it unspecified).\n");
    printf("#\n");
    k_vecadd();
    k_axpy();
    k_stencil();
    matmul_case("matmul_naive", "2,2", 20, 24, 12, 100);
    matmul_case("matmul_tiled", "3,2", 24, 40, 20, 101);
    k_transpose();
    k_histogram();
    k_scan();
    k_reduce();
    k_mandelbrot();
    k_bitonic();
    k_printf();
    k_recursion();
    k_struct_param();
    k_local_array();
    k_half();
    k_intops();
    k_floatmath();
    k_conversions();
    k_atomics();
    k_sync_count();
    k_syncwarp();
    k_named_barrier();
    k_cg_tiles();
    k_cg_cluster();
    k_cuda_barrier();
    k_pipeline();
    k_cg_memcpy();
    k_bulk_copy();
    k_dsmem();
    k_cluster_reduce();
    k_warp_shfl();
    k_warp_vote();
    k_warp_aggregated();
    k_warp_match();
    k_cub();
    k_lookback();
    k_gridsync();
    k_mma_tile();
    return 0;
}
