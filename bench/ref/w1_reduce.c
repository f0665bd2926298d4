/* W1 reference: the same per-CTA partition and tree as bench/w1_reduce.cu,
 * sums mod 2^32. usage: w1_reduce N GRID SEED OUT.bin
 * Prints the kernel-equivalent time (input generation excluded) on stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "cta_sums.h"
#include "splitmix.h"
#include "timing.h"

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: w1_reduce N GRID SEED OUT\n"); return 2; }
    uint32_t n = (uint32_t)strtoul(argv[1], NULL, 0), grid = (uint32_t)strtoul(argv[2], NULL, 0);
    uint64_t st = strtoull(argv[3], NULL, 0);
    uint32_t *in = malloc((size_t)n * 4), *out = calloc(grid, 4);
    for (uint32_t i = 0; i < n; i++) in[i] = (uint32_t)splitmix64_next(&st);
    double t0 = now_s();
    cta_sums(in, n, grid, out);
    double t1 = now_s();
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(out, 4, grid, f) != grid || fclose(f)) { perror(argv[4]); return 1; }
    printf("%.6f %ld\n", t1 - t0, peak_kib());
    return 0;
}
