/* 64-bit shifts by a variable amount (__ashldi3, __lshrdi3, __ashrdi3), built from 32-bit
 * halves so they cannot recurse into themselves. The amount must be 0..63. */
#include "rt.h"

/*@ assigns \nothing; */
static long long join(uint32_t hi, uint32_t lo)
{
    return (long long)(((uint64_t)hi << 32) | lo);
}

long long RT(__ashldi3)(long long a, int b)
{
    uint32_t lo = (uint32_t)(uint64_t)a, hi = (uint32_t)((uint64_t)a >> 32);
    unsigned n = (unsigned)b % 64u; /* b & 63 */

    if (n >= 32)
        return join(lo << (n - 32), 0);
    if (n == 0)
        return a;
    return join((hi << n) | (lo >> (32 - n)), lo << n);
}

long long RT(__lshrdi3)(long long a, int b)
{
    uint32_t lo = (uint32_t)(uint64_t)a, hi = (uint32_t)((uint64_t)a >> 32);
    unsigned n = (unsigned)b % 64u; /* b & 63 */

    if (n >= 32)
        return join(0, hi >> (n - 32));
    if (n == 0)
        return a;
    return join(hi >> n, (lo >> n) | (hi << (32 - n)));
}

/* Arithmetic shift without relying on the implementation-defined >> of negative ints:
 * shift logically, then OR in the sign bits that the logical shift cleared. */
long long RT(__ashrdi3)(long long a, int b)
{
    uint32_t lo = (uint32_t)(uint64_t)a, hi = (uint32_t)((uint64_t)a >> 32);
    uint32_t sign = 0u - (hi >> 31);
    unsigned n = (unsigned)b % 64u; /* b & 63 */

    if (n >= 32) {
        n -= 32;
        return join(sign, n == 0 ? hi : (hi >> n) | (sign << (32 - n)));
    }
    if (n == 0)
        return a;
    return join((hi >> n) | (sign << (32 - n)), (lo >> n) | (hi << (32 - n)));
}
