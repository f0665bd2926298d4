/* W3 reference: 256-bin histogram of N bytes (rand=SEED u8: the low 8 bits
 * of each splitmix64 output), per-CTA shared bins as in bench/w3_hist.cu,
 * then summed. usage: w3_hist N GRID SEED OUT.bin */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "splitmix.h"
#include "timing.h"

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: w3_hist N GRID SEED OUT\n"); return 2; }
    uint32_t n = (uint32_t)strtoul(argv[1], NULL, 0), grid = (uint32_t)strtoul(argv[2], NULL, 0);
    uint64_t st = strtoull(argv[3], NULL, 0);
    uint8_t *in = malloc(n);
    uint32_t hist[256] = {0}, s[256];
    for (uint32_t i = 0; i < n; i++) in[i] = (uint8_t)splitmix64_next(&st);
    double t0 = now_s();
    for (uint32_t b = 0; b < grid; b++) {
        memset(s, 0, sizeof s);
        for (uint64_t base = (uint64_t)b * 256; base < n; base += (uint64_t)grid * 256)
            for (uint64_t i = base; i < base + 256 && i < n; i++) s[in[i]]++;
        for (int t = 0; t < 256; t++) hist[t] += s[t];
    }
    double t1 = now_s();
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(hist, 4, 256, f) != 256 || fclose(f)) { perror(argv[4]); return 1; }
    printf("%.6f %ld\n", t1 - t0, peak_kib());
    return 0;
}
