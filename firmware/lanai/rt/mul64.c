/* 64-bit multiply (__muldi3): shift-and-add on the full 64 bits. Only constant 64-bit
 * shifts and adds are used, which clang inlines, so this never calls itself. */
#include "rt.h"

long long RT(__muldi3)(long long a, long long b)
{
    uint64_t x = (uint64_t)a, y = (uint64_t)b, r = 0;

    /*@ loop assigns r, x, y;
        loop variant y; */
    while (y != 0) {
        if (y & 1u)
            r += x;
        x <<= 1;
        y >>= 1;
    }
    return (long long)r;
}
