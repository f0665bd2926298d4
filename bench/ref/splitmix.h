/* splitmix64 exactly as README.md "rand=SEED" defines it. */
#include <stdint.h>
static inline uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z;
    *state += 0x9E3779B97F4A7C15ull;
    z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* f32 element: ((x >> 40) * 2^-24) * 2 - 1 */
static inline float splitmix64_f32(uint64_t *state)
{
    uint64_t x = splitmix64_next(state);
    return (float)(x >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
}
