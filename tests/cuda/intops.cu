// intops: integer arithmetic at every width (8/16/32/64, signed/unsigned): wrap-around, div/rem, mul.hi, shifts (incl. raw PTX shifts by >= width), popc/clz/brev/ffs, byte_perm, funnel shifts, bfe/bfi, sad, hadd/rhadd, mul24, min/max/abs. Launch: int_ops -g 1 -b 8 -a s64[8]:... -a s64[8]:... -a u64[384]:zero -a s32:8 -o 2 (48 results per element); see MANIFEST.
#define NOPS 48

extern "C" __global__ void int_ops(const long long* A, const long long* B, unsigned long long* out, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    long long a = A[i], b = B[i];
    unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    int a32 = (int)a, b32 = (int)b;
    unsigned ua32 = (unsigned)a, ub32 = (unsigned)b;
    short a16 = (short)a, b16 = (short)b;
    unsigned short ua16 = (unsigned short)a, ub16 = (unsigned short)b;
    signed char a8 = (signed char)a, b8 = (signed char)b;
    unsigned char ua8 = (unsigned char)a, ub8 = (unsigned char)b;
    unsigned long long* o = out + i * NOPS;
    int k = 0;
    // 8-bit
    o[k++] = (unsigned long long)(long long)(signed char)(a8 * b8 + a8);
    o[k++] = (unsigned char)(ua8 / (unsigned char)(ub8 | 1));
    o[k++] = (unsigned long long)(long long)(signed char)(a8 >> 2);
    o[k++] = (unsigned char)(ua8 - ub8);
    // 16-bit
    o[k++] = (unsigned long long)(long long)(short)(a16 * b16);
    o[k++] = (unsigned short)(ua16 + ub16 * 3u);
    o[k++] = (unsigned long long)(long long)(a16 / (b16 ? b16 : 1));
    o[k++] = (unsigned short)(ua16 % (ub16 ? ub16 : 7));
    // 32-bit
    o[k++] = (unsigned long long)(long long)(a32 / (b32 ? b32 : 1));
    o[k++] = (unsigned long long)(long long)(a32 % (b32 ? b32 : 1));
    o[k++] = ua32 / (ub32 | 1u);
    o[k++] = ua32 % (ub32 | 1u);
    o[k++] = (unsigned long long)(long long)__mulhi(a32, b32);
    o[k++] = __umulhi(ua32, ub32);
    o[k++] = (unsigned)(a32 * b32);
    o[k++] = (unsigned long long)(long long)(a32 >> (b32 & 31));
    o[k++] = ua32 >> (ub32 & 31);
    o[k++] = ua32 << (ub32 & 31);
    // 64-bit
    o[k++] = (unsigned long long)(a / (b ? b : 1));
    o[k++] = (unsigned long long)(a % (b ? b : 1));
    o[k++] = ua / (ub | 1ull);
    o[k++] = ua % (ub | 1ull);
    o[k++] = (unsigned long long)__mul64hi(a, b);
    o[k++] = __umul64hi(ua, ub);
    o[k++] = (unsigned long long)(a >> (b & 63));
    o[k++] = ua << (ub & 63);
    // bit manipulation
    o[k++] = __popc(ua32);
    o[k++] = __popcll(ua);
    o[k++] = __clz(a32);
    o[k++] = __clzll(a);
    o[k++] = __brev(ua32);
    o[k++] = __brevll(ua);
    o[k++] = __ffs(a32);
    o[k++] = __ffsll(a);
    o[k++] = __byte_perm(ua32, ub32, 0x3715);
    o[k++] = __byte_perm(ua32, ub32, ub32 >> 16);
    o[k++] = __funnelshift_l(ua32, ub32, ua32);
    o[k++] = __funnelshift_rc(ua32, ub32, ub32 & 63);
    unsigned r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(ua32), "r"(ub32 & 15), "r"(((ua32 >> 3) & 15) + 1));
    o[k++] = r;
    int rs;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(rs) : "r"(a32), "r"(ub32 & 15), "r"(((ua32 >> 3) & 15) + 1));
    o[k++] = (unsigned long long)(long long)rs;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(ub32), "r"(ua32), "r"(ua32 & 31), "r"(ub32 & 15));
    o[k++] = r;
    asm("shr.s32 %0, %1, %2;" : "=r"(rs) : "r"(a32), "r"(ub32));   // PTX clamps shift amounts >= 32
    o[k++] = (unsigned long long)(long long)rs;
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(ua32), "r"(ub32));
    o[k++] = r;
    // misc
    o[k++] = __sad(a32, b32, 7u);
    o[k++] = (unsigned long long)(long long)__hadd(a32, b32);
    o[k++] = (unsigned long long)(long long)__rhadd(a32, b32);
    o[k++] = (unsigned long long)(long long)__mul24(a32, b32);
    o[k++] = (unsigned long long)(long long)max(a32, b32) + min(ua, ub) + (unsigned long long)llabs(a);
}
