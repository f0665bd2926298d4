/* W2 reference: C = A * B (row-major n x n, f32) with the same 32x32 tiling
 * as bench/w2_sgemm.cu; each C element accumulates k in increasing order.
 * A = rand=SEEDA, B = rand=SEEDB. usage: w2_sgemm N SEEDA SEEDB OUT.bin */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "splitmix.h"
#include "timing.h"
#define T 32

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: w2_sgemm N SEEDA SEEDB OUT\n"); return 2; }
    int n = atoi(argv[1]);
    uint64_t sa = strtoull(argv[2], NULL, 0), sb = strtoull(argv[3], NULL, 0);
    size_t nn = (size_t)n * n;
    float *A = malloc(nn * 4), *B = malloc(nn * 4), *C = calloc(nn, 4);
    static float As[T][T], Bs[T][T], acc[T][T];
    for (size_t i = 0; i < nn; i++) A[i] = splitmix64_f32(&sa);
    for (size_t i = 0; i < nn; i++) B[i] = splitmix64_f32(&sb);
    double t0 = now_s();
    for (int by = 0; by < n / T; by++)
        for (int bx = 0; bx < n / T; bx++) {
            memset(acc, 0, sizeof acc);
            for (int t = 0; t < n; t += T) {
                for (int ty = 0; ty < T; ty++)
                    for (int tx = 0; tx < T; tx++) {
                        As[ty][tx] = A[(size_t)(by * T + ty) * n + t + tx];
                        Bs[ty][tx] = B[(size_t)(t + ty) * n + bx * T + tx];
                    }
                for (int ty = 0; ty < T; ty++)
                    for (int k = 0; k < T; k++) {
                        float a = As[ty][k];
                        for (int tx = 0; tx < T; tx++) acc[ty][tx] += a * Bs[k][tx];
                    }
            }
            for (int ty = 0; ty < T; ty++)
                for (int tx = 0; tx < T; tx++) C[(size_t)(by * T + ty) * n + bx * T + tx] = acc[ty][tx];
        }
    double t1 = now_s();
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(C, 4, nn, f) != nn || fclose(f)) { perror(argv[4]); return 1; }
    printf("%.6f %ld\n", t1 - t0, peak_kib());
    return 0;
}
