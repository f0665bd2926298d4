/* W7 reference: C = A * B (row-major n x n) with A and B rounded to f16
 * (round to nearest even) and each C element accumulated in k order in f32
 * with one rounding per step (fmaf: the f16 products are exact), as
 * bench/w7_wgmma.cu's wgmma chain does under ptxvm's model. A = rand=SEEDA,
 * B = rand=SEEDB. usage: w7_wgmma N SEEDA SEEDB OUT.bin */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "splitmix.h"
#include "timing.h"

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: w7_wgmma N SEEDA SEEDB OUT\n"); return 2; }
    int n = atoi(argv[1]);
    uint64_t sa = strtoull(argv[2], NULL, 0), sb = strtoull(argv[3], NULL, 0);
    size_t nn = (size_t)n * n;
    float *A = malloc(nn * 4), *Bt = malloc(nn * 4), *C = calloc(nn, 4);
    for (size_t i = 0; i < nn; i++) A[i] = (float)(_Float16)splitmix64_f32(&sa);
    for (size_t i = 0; i < nn; i++) Bt[(i % n) * n + i / n] = (float)(_Float16)splitmix64_f32(&sb);
    double t0 = now_s();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int k = 0; k < n; k++) acc = fmaf(A[(size_t)i * n + k], Bt[(size_t)j * n + k], acc);
            C[(size_t)i * n + j] = acc;
        }
    double t1 = now_s();
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(C, 4, nn, f) != nn || fclose(f)) { perror(argv[4]); return 1; }
    printf("%.6f %ld\n", t1 - t0, peak_kib());
    return 0;
}
