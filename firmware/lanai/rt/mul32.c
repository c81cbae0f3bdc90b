/* 32-bit multiply (__mulsi3): shift-and-add, since LANai has no multiplier. */
#include "rt.h"

int RT(__mulsi3)(int a, int b)
{
    uint32_t x = (uint32_t)a, y = (uint32_t)b, r = 0;

    /*@ loop assigns r, x, y;
        loop variant y; */
    while (y != 0) {
        if (y & 1u)
            r += x;
        x <<= 1;
        y >>= 1;
    }
    return (int)r;
}
