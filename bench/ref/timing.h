#include <stdlib.h>
#include <time.h>
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#include <stdio.h>
#include <string.h>
/* This process's peak resident memory in KiB (Linux VmHWM; 0 elsewhere):
 * unlike getrusage's ru_maxrss it does not count the memory of the process
 * that exec'd us. */
static inline long peak_kib(void)
{
    char line[128];
    long kib = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kib = atol(line + 6);
    if (f) fclose(f);
    return kib;
}
