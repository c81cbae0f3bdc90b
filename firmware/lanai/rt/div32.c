/* 32-bit division and remainder (__udivsi3, __umodsi3, __divsi3, __modsi3):
 * restoring shift-and-subtract, one quotient bit per step. */
#include "rt.h"

/* Returns n / d and stores n % d in *rem. */
/*@ requires \valid(rem);
    assigns *rem; */
static uint32_t udivmod32(uint32_t n, uint32_t d, uint32_t *rem)
{
    uint32_t q = 0, r = 0;

    /* The common case in the firmware (an index modulo a small count): no loop. */
    if (n < d) {
        *rem = n;
        return 0;
    }
    /*@ loop invariant -1 <= i <= 31;
        loop assigns i, q, r;
        loop variant i + 1; */
    for (int i = 31; i >= 0; i--) {
        /* r <= n >> (i + 1) < 2^31 here (the remainder never exceeds the prefix of n
         * brought down so far), so the shift cannot lose a bit. */
        r = (r << 1) | ((n >> i) & 1u);
        if (r >= d) {
            r -= d;
            q |= 1u << i;
        }
    }
    *rem = r;
    return q;
}

/*@ assigns \nothing; */
static uint32_t magnitude(int x)
{
    return x < 0 ? 0u - (uint32_t)x : (uint32_t)x;
}

unsigned RT(__udivsi3)(unsigned a, unsigned b)
{
    uint32_t r;
    return udivmod32(a, b, &r);
}

unsigned RT(__umodsi3)(unsigned a, unsigned b)
{
    uint32_t r;
    udivmod32(a, b, &r);
    return r;
}

/* C division truncates toward zero: the quotient is negative when the signs differ,
 * the remainder takes the sign of the dividend. */
int RT(__divsi3)(int a, int b)
{
    uint32_t r, q = udivmod32(magnitude(a), magnitude(b), &r);
    return (int)((a < 0) != (b < 0) ? 0u - q : q);
}

int RT(__modsi3)(int a, int b)
{
    uint32_t r;
    udivmod32(magnitude(a), magnitude(b), &r);
    return (int)(a < 0 ? 0u - r : r);
}
