/* memcpy and memmove, byte at a time: clang calls them for struct copies; bulk payload
 * moves belong to the DMA engine, not to the CPU. */
#include "rt.h"

void *RT(memcpy)(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

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
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        for (size_t i = n; i > 0; i--)
            d[i - 1] = s[i - 1];
    }
    return dst;
}
