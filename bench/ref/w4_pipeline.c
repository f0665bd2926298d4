/* W4 reference: the same tile walk as bench/w4_pipeline.cu with a two-buffer
 * staging copy; out[i] = 2 * in[i] + 1 (exact in f32 for inputs in [-1, 1)).
 * in = rand=SEED f32. usage: w4_pipeline NTILES GRID SEED OUT.bin */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "splitmix.h"
#include "timing.h"

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: w4_pipeline NTILES GRID SEED OUT\n"); return 2; }
    uint32_t nt = (uint32_t)strtoul(argv[1], NULL, 0), grid = (uint32_t)strtoul(argv[2], NULL, 0);
    uint64_t st = strtoull(argv[3], NULL, 0);
    size_t n = (size_t)nt * 256;
    float *in = malloc(n * 4), *out = calloc(n, 4);
    static float buf[2][256];
    for (size_t i = 0; i < n; i++) in[i] = splitmix64_f32(&st);
    double t0 = now_s();
    for (uint32_t b = 0; b < grid; b++) {
        uint32_t t = b, k = 0;
        if (t < nt) memcpy(buf[0], in + (size_t)t * 256, sizeof buf[0]);
        for (; t < nt; t += grid, k ^= 1) {
            uint32_t next = t + grid;
            if (next < nt) memcpy(buf[k ^ 1], in + (size_t)next * 256, sizeof buf[0]);
            for (int i = 0; i < 256; i++) out[(size_t)t * 256 + i] = 2.0f * buf[k][i] + 1.0f;
        }
    }
    double t1 = now_s();
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(out, 4, n, f) != n || fclose(f)) { perror(argv[4]); return 1; }
    printf("%.6f %ld\n", t1 - t0, peak_kib());
    return 0;
}
