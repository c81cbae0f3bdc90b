/* memset, byte at a time (clang calls it to zero structs and large locals). */
#include "rt.h"

void *RT(memset)(void *dst, int c, size_t n)
{
    unsigned char *d = dst;

    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)c;
    return dst;
}
