/* W5 reference: per-CTA tree sums as bench/w5_cluster.cu (W1's partition),
 * then each cluster of 4 CTAs adds ranks 1..3 into rank 0; sums mod 2^32.
 * usage: w5_cluster N GRID SEED OUT.bin (GRID a multiple of 4) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "cta_sums.h"
#include "splitmix.h"
#include "timing.h"

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: w5_cluster N GRID SEED OUT\n"); return 2; }
    uint32_t n = (uint32_t)strtoul(argv[1], NULL, 0), grid = (uint32_t)strtoul(argv[2], NULL, 0);
    uint64_t st = strtoull(argv[3], NULL, 0);
    uint32_t *in = malloc((size_t)n * 4), *cta = calloc(grid, 4), *out = calloc(grid / 4, 4);
    for (uint32_t i = 0; i < n; i++) in[i] = (uint32_t)splitmix64_next(&st);
    double t0 = now_s();
    cta_sums(in, n, grid, cta);
    for (uint32_t c = 0; c < grid / 4; c++) {
        uint32_t total = cta[4 * c];
        for (uint32_t r = 1; r < 4; r++) total += cta[4 * c + r];
        out[c] = total;
    }
    double t1 = now_s();
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(out, 4, grid / 4, f) != grid / 4 || fclose(f)) { perror(argv[4]); return 1; }
    printf("%.6f %ld\n", t1 - t0, peak_kib());
    return 0;
}
