/* memset, byte at a time (clang calls it to zero structs and large locals). */
#include "rt.h"

void *RT(memset)(void *dst, int c, size_t n)
{
    unsigned char *d = dst;

    /*@ loop invariant 0 <= i <= n;
        loop invariant \forall integer k; 0 <= k < i ==> d[k] == (unsigned char)c;
        loop assigns i, d[0 .. n - 1];
        loop variant n - i; */
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)c;
    return dst;
}
