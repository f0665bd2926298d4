#!/usr/bin/env python3
"""Expected values for tests/ptx/atom/b128_*.ptx, from atom's semantics
(PTX ISA §9.7.13.5): cas(r, s, t) = (r == s) ? t : r, exch(r, s) = s, the
old 128-bit value returned; a .b128 value is {lo, hi} 64-bit halves, lo at
the lower address. Prints each file's EXPECT line."""
M = 2**64 - 1

def b128_cas_exch():
    out = []
    for i in range(32):
        lo, hi = 2 * i, 2 * i + 1          # u64[64]:iota, element i
        clo, chi = 2 * i, 2 * i + 1        # compare value: equal for i % 4 == 0 or 2
        if i % 4 == 1: clo += 1            # low half differs
        if i % 4 == 3: chi += 1            # high half differs
        nlo, nhi = ~(2 * i) & M, (0x5555555555555555 + i) & M
        old = (lo, hi)
        if (lo, hi) == (clo, chi): lo, hi = nlo, nhi
        ex_old = (lo, hi)
        lo, hi = (7 * i) & M, (9 * i + (1 << 63)) & M
        out += [*old, *ex_old, lo, hi]
    return out

def b128_contend(n, lo0, hi0):
    v = (hi0 << 64 | lo0) + n
    return [v & M, v >> 64]

if __name__ == '__main__':
    print('atom/b128_cas_exch EXPECT:', *b128_cas_exch())
    # 8 CTAs x 64 threads, one 128-bit increment each, from 2^64 - 200
    print('atom/b128_global_contend EXPECT:', *b128_contend(512, M - 199, 5))
    # 128 threads of one CTA on shared memory, from 2^64 - 100; then exch
    print('atom/b128_shared EXPECT:', *b128_contend(128, M - 99, 0))
