/* cta_sums.h: W1's partition and tree (bench/w1_reduce.cu), which W5 reuses:
 * CTA b of `grid` (256 threads) sums in[] grid-stride, thread t from
 * b*256 + t, then a shared-memory tree; out[b] = the CTA's sum mod 2^32. */
#include <stdint.h>
static void cta_sums(const uint32_t *in, uint32_t n, uint32_t grid, uint32_t *out)
{
    uint32_t s[256];
    for (uint32_t b = 0; b < grid; b++) {
        for (uint32_t t = 0; t < 256; t++) {
            uint32_t sum = 0;
            for (uint64_t i = (uint64_t)b * 256 + t; i < n; i += (uint64_t)grid * 256) sum += in[i];
            s[t] = sum;
        }
        for (uint32_t k = 128; k >= 1; k >>= 1)
            for (uint32_t t = 0; t < k; t++) s[t] += s[t + k];
        out[b] = s[0];
    }
}
