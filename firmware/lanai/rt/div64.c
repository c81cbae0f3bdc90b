/* 64-bit division and remainder (__udivdi3, __umoddi3, __divdi3, __moddi3).
 * Same restoring algorithm as div32.c; the dividend is shifted out by a constant 1 each
 * step so that no variable 64-bit shift (itself a libcall on LANai) is needed. */
#include "rt.h"

/*@ requires \valid(rem);
    assigns *rem; */
static uint64_t udivmod64(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = 0, r = 0;

    if (n <= UINT32_MAX && d <= UINT32_MAX && d != 0) { /* the high words are 0 */
        *rem = (uint32_t)n % (uint32_t)d;
        return (uint32_t)n / (uint32_t)d;
    }
    /*@ loop invariant 0 <= i <= 64;
        loop assigns i, n, q, r;
        loop variant 64 - i; */
    for (int i = 0; i < 64; i++) {
        /* As in div32.c, r is at most the prefix of n taken so far, so r < 2^63. */
        r = (r << 1) | (n >> 63);
        n <<= 1;
        q <<= 1;
        if (r >= d) {
            r -= d;
            q |= 1u;
        }
    }
    *rem = r;
    return q;
}

/*@ assigns \nothing; */
static uint64_t magnitude(long long x)
{
    return x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
}

unsigned long long RT(__udivdi3)(unsigned long long a, unsigned long long b)
{
    uint64_t r;
    return udivmod64(a, b, &r);
}

unsigned long long RT(__umoddi3)(unsigned long long a, unsigned long long b)
{
    uint64_t r;
    udivmod64(a, b, &r);
    return r;
}

long long RT(__divdi3)(long long a, long long b)
{
    uint64_t r, q = udivmod64(magnitude(a), magnitude(b), &r);
    return (long long)((a < 0) != (b < 0) ? 0u - q : q);
}

long long RT(__moddi3)(long long a, long long b)
{
    uint64_t r;
    udivmod64(magnitude(a), magnitude(b), &r);
    return (long long)(a < 0 ? 0u - r : r);
}
