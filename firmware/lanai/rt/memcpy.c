/* memcpy and memmove, byte at a time: clang calls them for struct copies; bulk payload
 * moves belong to the DMA engine, not to the CPU. */
#include "rt.h"

void *RT(memcpy)(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    /*@ loop invariant 0 <= i <= n;
        loop invariant \forall integer k; 0 <= k < i ==> d[k] == s[k];
        loop assigns i, d[0 .. n - 1];
        loop variant n - i; */
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
    return dst;
}

void *RT(memmove)(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    /* Compare as integers: relational operators on pointers into different objects are
     * undefined in C. Copy backwards when the destination overlaps the source's tail. */
    if ((uintptr_t)d <= (uintptr_t)s) {
        /*@ loop invariant 0 <= i <= n;
            loop assigns i, d[0 .. n - 1];
            loop variant n - i; */
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        /*@ loop invariant 0 <= i <= n;
            loop assigns i, d[0 .. n - 1];
            loop variant i; */
        for (size_t i = n; i > 0; i--)
            d[i - 1] = s[i - 1];
    }
    return dst;
}
