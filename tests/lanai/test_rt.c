/* Host test of the LANai runtime (firmware/lanai/rt): every routine against the C operator
 * or libc function it stands in for, on edge values and many pseudo-random inputs. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

#define RANDOM_ROUNDS 200000

static int passed, failed;
static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd64(void)
{
    /* xorshift64*: deterministic, so a failure reproduces. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717u;
}

/* Random operands biased toward short values, where division bugs like to hide. */
static uint64_t operand64(void)
{
    uint64_t v = rnd64();
    return v >> (rnd64() % 64);
}

static uint32_t operand32(void)
{
    return (uint32_t)operand64() ^ (uint32_t)(rnd64() & 1 ? 0 : rnd64() >> 32);
}

static const uint32_t edge32[] = {
    0, 1, 2, 3, 5, 7, 10, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000, 0x12345678,
    0x7FFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF, 0xDEADBEEF,
    0x55555555, 0xAAAAAAAA, 0xC0000000, 0x40000000,
};
static const uint64_t edge64[] = {
    0, 1, 2, 3, 7, 10, 0xFF, 0xFFFFFFFF, 0x100000000, 0x100000001, 0x7FFFFFFFFFFFFFFF,
    0x8000000000000000, 0x8000000000000001, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFE,
    0x00000000FFFFFFFE, 0x123456789ABCDEF0, 0xFFFFFFFF00000000, 0x0000000180000000,
    0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x4000000000000000, 0xC000000000000000,
};
#define NEDGE32 (sizeof edge32 / sizeof edge32[0])
#define NEDGE64 (sizeof edge64 / sizeof edge64[0])

struct check {
    const char *name;
    long mismatches;
    char first[160];
};

static void begin(struct check *c, const char *name)
{
    c->name = name;
    c->mismatches = 0;
    c->first[0] = '\0';
}

static void mismatch(struct check *c, const char *what, uint64_t a, uint64_t b, uint64_t got,
                     uint64_t want)
{
    if (c->mismatches++ == 0)
        snprintf(c->first, sizeof c->first, "%s(0x%llx, 0x%llx) = 0x%llx, want 0x%llx", what,
                 (unsigned long long)a, (unsigned long long)b, (unsigned long long)got,
                 (unsigned long long)want);
}

static void end(struct check *c)
{
    if (c->mismatches == 0) {
        passed++;
        printf("ok    %s\n", c->name);
    } else {
        failed++;
        printf("FAIL  %s: %ld mismatches, first: %s\n", c->name, c->mismatches, c->first);
    }
}

/* Checks one pair of 32-bit operands through all five 32-bit routines. */
static void ops32(struct check *c, uint32_t ua, uint32_t ub)
{
    int a = (int)ua, b = (int)ub;

    if (lanai___mulsi3(a, b) != (int)(ua * ub))
        mismatch(c, "__mulsi3", ua, ub, (uint32_t)lanai___mulsi3(a, b), ua * ub);
    if (ub == 0)
        return;
    if (lanai___udivsi3(ua, ub) != ua / ub)
        mismatch(c, "__udivsi3", ua, ub, lanai___udivsi3(ua, ub), ua / ub);
    if (lanai___umodsi3(ua, ub) != ua % ub)
        mismatch(c, "__umodsi3", ua, ub, lanai___umodsi3(ua, ub), ua % ub);
    if (a == INT_MIN && b == -1)
        return;
    if (lanai___divsi3(a, b) != a / b)
        mismatch(c, "__divsi3", ua, ub, (uint32_t)lanai___divsi3(a, b), (uint32_t)(a / b));
    if (lanai___modsi3(a, b) != a % b)
        mismatch(c, "__modsi3", ua, ub, (uint32_t)lanai___modsi3(a, b), (uint32_t)(a % b));
}

static void ops64(struct check *c, uint64_t ua, uint64_t ub)
{
    long long a = (long long)ua, b = (long long)ub;

    if ((uint64_t)lanai___muldi3(a, b) != ua * ub)
        mismatch(c, "__muldi3", ua, ub, (uint64_t)lanai___muldi3(a, b), ua * ub);
    if (ub == 0)
        return;
    if (lanai___udivdi3(ua, ub) != ua / ub)
        mismatch(c, "__udivdi3", ua, ub, lanai___udivdi3(ua, ub), ua / ub);
    if (lanai___umoddi3(ua, ub) != ua % ub)
        mismatch(c, "__umoddi3", ua, ub, lanai___umoddi3(ua, ub), ua % ub);
    if (a == LLONG_MIN && b == -1)
        return;
    if (lanai___divdi3(a, b) != a / b)
        mismatch(c, "__divdi3", ua, ub, (uint64_t)lanai___divdi3(a, b), (uint64_t)(a / b));
    if (lanai___moddi3(a, b) != a % b)
        mismatch(c, "__moddi3", ua, ub, (uint64_t)lanai___moddi3(a, b), (uint64_t)(a % b));
}

static void shifts64(struct check *c, uint64_t ua, int n)
{
    long long a = (long long)ua;

    if ((uint64_t)lanai___ashldi3(a, n) != ua << n)
        mismatch(c, "__ashldi3", ua, (uint64_t)n, (uint64_t)lanai___ashldi3(a, n), ua << n);
    if ((uint64_t)lanai___lshrdi3(a, n) != ua >> n)
        mismatch(c, "__lshrdi3", ua, (uint64_t)n, (uint64_t)lanai___lshrdi3(a, n), ua >> n);
    /* gcc and clang define >> of a negative value as an arithmetic shift. */
    if (lanai___ashrdi3(a, n) != a >> n)
        mismatch(c, "__ashrdi3", ua, (uint64_t)n, (uint64_t)lanai___ashrdi3(a, n),
                 (uint64_t)(a >> n));
}

static void test_arith(void)
{
    struct check c;

    begin(&c, "32-bit mul/div/mod, all edge-value pairs");
    for (size_t i = 0; i < NEDGE32; i++)
        for (size_t j = 0; j < NEDGE32; j++)
            ops32(&c, edge32[i], edge32[j]);
    end(&c);

    begin(&c, "32-bit mul/div/mod, random operands");
    for (int i = 0; i < RANDOM_ROUNDS; i++)
        ops32(&c, operand32(), operand32());
    end(&c);

    begin(&c, "32-bit mul/div/mod, edge x random");
    for (size_t i = 0; i < NEDGE32; i++)
        for (int k = 0; k < 2000; k++) {
            uint32_t r = operand32();
            ops32(&c, edge32[i], r);
            ops32(&c, r, edge32[i]);
        }
    end(&c);

    begin(&c, "64-bit mul/div/mod, all edge-value pairs");
    for (size_t i = 0; i < NEDGE64; i++)
        for (size_t j = 0; j < NEDGE64; j++)
            ops64(&c, edge64[i], edge64[j]);
    end(&c);

    begin(&c, "64-bit mul/div/mod, random operands");
    for (int i = 0; i < RANDOM_ROUNDS; i++)
        ops64(&c, operand64(), operand64());
    end(&c);

    begin(&c, "64-bit mul/div/mod, edge x random");
    for (size_t i = 0; i < NEDGE64; i++)
        for (int k = 0; k < 2000; k++) {
            uint64_t r = operand64();
            ops64(&c, edge64[i], r);
            ops64(&c, r, edge64[i]);
        }
    end(&c);

    begin(&c, "64-bit shifts, every amount");
    for (int n = 0; n < 64; n++) {
        for (size_t i = 0; i < NEDGE64; i++)
            shifts64(&c, edge64[i], n);
        for (int k = 0; k < 2000; k++)
            shifts64(&c, rnd64(), n);
    }
    end(&c);
}

/* The values the runtime defines where C leaves the result undefined (see rt.h). */
static void test_defined_corners(void)
{
    struct check c;

    begin(&c, "division by zero and overflow corners");
    for (size_t i = 0; i < NEDGE32; i++) {
        uint32_t a = edge32[i];
        if (lanai___udivsi3(a, 0) != 0xFFFFFFFFu)
            mismatch(&c, "__udivsi3", a, 0, lanai___udivsi3(a, 0), 0xFFFFFFFFu);
        if (lanai___umodsi3(a, 0) != a)
            mismatch(&c, "__umodsi3", a, 0, lanai___umodsi3(a, 0), a);
        if (lanai___modsi3((int)a, 0) != (int)a)
            mismatch(&c, "__modsi3", a, 0, (uint32_t)lanai___modsi3((int)a, 0), a);
        int q = (int)a < 0 ? 1 : -1;
        if (lanai___divsi3((int)a, 0) != q)
            mismatch(&c, "__divsi3", a, 0, (uint32_t)lanai___divsi3((int)a, 0), (uint32_t)q);
    }
    for (size_t i = 0; i < NEDGE64; i++) {
        uint64_t a = edge64[i];
        if (lanai___udivdi3(a, 0) != UINT64_MAX)
            mismatch(&c, "__udivdi3", a, 0, lanai___udivdi3(a, 0), UINT64_MAX);
        if (lanai___umoddi3(a, 0) != a)
            mismatch(&c, "__umoddi3", a, 0, lanai___umoddi3(a, 0), a);
        if (lanai___moddi3((long long)a, 0) != (long long)a)
            mismatch(&c, "__moddi3", a, 0, (uint64_t)lanai___moddi3((long long)a, 0), a);
        long long q = (long long)a < 0 ? 1 : -1;
        if (lanai___divdi3((long long)a, 0) != q)
            mismatch(&c, "__divdi3", a, 0, (uint64_t)lanai___divdi3((long long)a, 0),
                     (uint64_t)q);
    }
    if (lanai___divsi3(INT_MIN, -1) != INT_MIN)
        mismatch(&c, "__divsi3", 0x80000000u, 0xFFFFFFFFu, (uint32_t)lanai___divsi3(INT_MIN, -1),
                 0x80000000u);
    if (lanai___modsi3(INT_MIN, -1) != 0)
        mismatch(&c, "__modsi3", 0x80000000u, 0xFFFFFFFFu, (uint32_t)lanai___modsi3(INT_MIN, -1),
                 0);
    if (lanai___divdi3(LLONG_MIN, -1) != LLONG_MIN)
        mismatch(&c, "__divdi3", (uint64_t)LLONG_MIN, UINT64_MAX,
                 (uint64_t)lanai___divdi3(LLONG_MIN, -1), (uint64_t)LLONG_MIN);
    if (lanai___moddi3(LLONG_MIN, -1) != 0)
        mismatch(&c, "__moddi3", (uint64_t)LLONG_MIN, UINT64_MAX,
                 (uint64_t)lanai___moddi3(LLONG_MIN, -1), 0);
    end(&c);
}

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

static void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd64();
}

enum { BUF = 96 };

static void test_memory(void)
{
    unsigned char a[BUF], b[BUF], want[BUF];
    struct check c;

    begin(&c, "memcpy, all offsets and lengths");
    for (size_t d = 0; d < 16; d++)
        for (size_t s = 0; s < 16; s++)
            for (size_t n = 0; n + 16 <= BUF; n += 3) {
                fill(a, BUF);
                fill(b, BUF);
                memcpy(want, b, BUF);
                memcpy(want + d, a + s, n);
                void *r = lanai_memcpy(b + d, a + s, n);
                if (r != b + d || memcmp(b, want, BUF) != 0)
                    mismatch(&c, "memcpy", d, s, n, 0);
            }
    end(&c);

    begin(&c, "memmove, overlapping both ways");
    for (size_t d = 0; d < 40; d++)
        for (size_t s = 0; s < 40; s++)
            for (size_t n = 0; n + 40 <= BUF; n += 5) {
                fill(a, BUF);
                memcpy(want, a, BUF);
                memmove(want + d, want + s, n);
                void *r = lanai_memmove(a + d, a + s, n);
                if (r != a + d || memcmp(a, want, BUF) != 0)
                    mismatch(&c, "memmove", d, s, n, 0);
            }
    end(&c);

    begin(&c, "memset, values including negative and >255");
    static const int values[] = {0, 1, 0x7F, 0x80, 0xFF, -1, -128, 0x1234, 0x100};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
        for (size_t d = 0; d < 16; d++)
            for (size_t n = 0; n + 16 <= BUF; n += 7) {
                fill(a, BUF);
                memcpy(want, a, BUF);
                memset(want + d, values[v], n);
                void *r = lanai_memset(a + d, values[v], n);
                if (r != a + d || memcmp(a, want, BUF) != 0)
                    mismatch(&c, "memset", (uint64_t)values[v], d, n, 0);
            }
    end(&c);

    begin(&c, "memcmp, sign of first difference");
    for (int k = 0; k < 20000; k++) {
        size_t n = (size_t)(rnd64() % 32);
        fill(a, n);
        memcpy(b, a, n);
        if (n > 0 && rnd64() % 4 != 0)
            b[rnd64() % n] = (unsigned char)rnd64();
        int got = sign(lanai_memcmp(a, b, n)), exp = sign(memcmp(a, b, n));
        if (got != exp)
            mismatch(&c, "memcmp", n, 0, (uint64_t)got, (uint64_t)exp);
    }
    /* Bytes compare as unsigned: 0x80 > 0x7F. */
    a[0] = 0x80;
    b[0] = 0x7F;
    if (lanai_memcmp(a, b, 1) <= 0 || lanai_memcmp(b, a, 1) >= 0 || lanai_memcmp(a, b, 0) != 0)
        mismatch(&c, "memcmp", 0x80, 0x7F, 0, 1);
    end(&c);
}

int main(void)
{
    test_arith();
    test_defined_corners();
    test_memory();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
