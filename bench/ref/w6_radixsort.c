/* W6 reference: each tile of 2048 u32 keys (256 threads x 8, as
 * bench/w6_radixsort.cu) sorted by an LSD radix sort with 4-bit digits
 * (CUB BlockRadixSort's default RADIX_BITS), 8 stable counting passes.
 * keys = rand=SEED u32. usage: w6_radixsort NKEYS SEED OUT.bin (NKEYS a multiple of 2048) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "splitmix.h"
#include "timing.h"
#define TILE 2048

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: w6_radixsort NKEYS SEED OUT\n"); return 2; }
    uint32_t n = (uint32_t)strtoul(argv[1], NULL, 0);
    uint64_t st = strtoull(argv[2], NULL, 0);
    uint32_t *keys = malloc((size_t)n * 4);
    static uint32_t tmp[TILE];
    for (uint32_t i = 0; i < n; i++) keys[i] = (uint32_t)splitmix64_next(&st);
    double t0 = now_s();
    for (uint32_t b = 0; b < n / TILE; b++) {
        uint32_t *k = keys + (size_t)b * TILE;
        for (int sh = 0; sh < 32; sh += 4) {
            uint32_t cnt[17] = {0};
            for (int i = 0; i < TILE; i++) cnt[((k[i] >> sh) & 15) + 1]++;
            for (int d = 0; d < 16; d++) cnt[d + 1] += cnt[d];
            for (int i = 0; i < TILE; i++) tmp[cnt[(k[i] >> sh) & 15]++] = k[i];
            memcpy(k, tmp, sizeof tmp);
        }
    }
    double t1 = now_s();
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(keys, 4, n, f) != n || fclose(f)) { perror(argv[3]); return 1; }
    printf("%.6f %ld\n", t1 - t0, peak_kib());
    return 0;
}
