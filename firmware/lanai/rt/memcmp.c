/* memcmp: the sign of the first differing byte pair, compared as unsigned char. */
#include "rt.h"

int RT(memcmp)(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    /*@ loop invariant 0 <= i <= n;
        loop invariant \forall integer k; 0 <= k < i ==> x[k] == y[k];
        loop assigns i;
        loop variant n - i; */
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}
