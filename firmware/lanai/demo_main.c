/* Demo firmware for the LANai cross-build: a toy packet pipeline that makes clang emit
 * every construct the image linker and runtime must handle: direct and indirect calls, a
 * function-pointer table (R_LANAI_32 in .rodata and .data), globals in .data/.bss/.rodata
 * (R_LANAI_HI16/LO16), a 21-bit absolute access (R_LANAI_21), branches (R_LANAI_25),
 * 32/64-bit multiply, divide, remainder and shifts (runtime libcalls), struct copies and
 * clears (memcpy/memset), memmove and memcmp. main returns a checksum of the work done;
 * the same file builds natively, so a simulator can compare against the host. */
#include <stddef.h>
#include <stdint.h>

#include "rt.h"

#ifndef __lanai__
#define memcpy lanai_memcpy
#define memmove lanai_memmove
#define memcmp lanai_memcmp
#endif

struct packet {
    uint32_t seq;
    uint16_t len;
    uint8_t flags;
    uint8_t port;
    uint8_t payload[64];
};

typedef uint32_t (*handler_fn)(struct packet *p, uint32_t arg);

int main(void);

/* Inputs live in .data with external linkage, so the compiler cannot fold the arithmetic
 * away. */
uint32_t seed = 0x2545F491u;
int32_t bias = -77;
int64_t wide_bias = -1234567890123LL;
uint32_t tick_count = 3;

static struct packet ring[4];  /* .bss */
static uint32_t stats[6];      /* .bss */
static const char banner[] = "verinic lanai demo firmware";

/* The firmware is small enough to live below 2 MiB, so a counter can be read with a
 * single absolute SLS load (`ld [sym]`), which carries an R_LANAI_21 relocation. */
static uint32_t read_ticks(void)
{
#ifdef __lanai__
    uint32_t v;
    __asm__ volatile("ld [%1], %0" : "=r"(v) : "i"(&tick_count) : "memory");
    return v;
#else
    return tick_count;
#endif
}

static uint32_t next_random(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    return seed;
}

static uint32_t h_scale(struct packet *p, uint32_t arg)
{
    int32_t s = (int32_t)(p->seq * (uint32_t)bias); /* __mulsi3 (wraps) */
    return (uint32_t)s + p->len * arg;
}

static uint32_t h_divide(struct packet *p, uint32_t arg)
{
    uint32_t d = arg | 1u;
    int32_t sq = (int32_t)p->seq / bias;         /* __divsi3 */
    int32_t sr = (int32_t)p->seq % bias;         /* __modsi3 */
    return p->seq / d + p->seq % d + (uint32_t)sq + (uint32_t)sr; /* __udivsi3, __umodsi3 */
}

static uint32_t h_wide(struct packet *p, uint32_t arg)
{
    uint64_t x = (uint64_t)p->seq << 20 | arg;
    int64_t y = (int64_t)((uint64_t)wide_bias * x); /* __muldi3 (wraps, as on LANai) */
    uint64_t q = x / (arg | 3u) + x % 1000003u;  /* __udivdi3, __umoddi3 */
    int64_t r = y / 977 + y % 65537;             /* __divdi3, __moddi3 */
    int64_t s = y >> (arg & 63);                 /* __ashrdi3 */
    uint64_t t = (x << (arg & 31)) ^ (x >> (p->len & 63));
    return (uint32_t)(q ^ (uint64_t)r ^ (uint64_t)s ^ t ^ (t >> 32));
}

static uint32_t h_copy(struct packet *p, uint32_t arg)
{
    struct packet *slot = &ring[arg % 4];
    *slot = *p;                                  /* memcpy */
    memmove(slot->payload + 1, slot->payload, sizeof slot->payload - 1);
    return (uint32_t)memcmp(slot->payload, banner, sizeof banner) + slot->payload[7];
}

static const handler_fn handlers[4] = {h_scale, h_divide, h_wide, h_copy};
handler_fn fallback[2] = {h_scale, h_copy}; /* .data: a writable table */

static uint32_t dispatch(struct packet *p, unsigned which)
{
    handler_fn h = which < 4 ? handlers[which] : fallback[which & 1];
    return h(p, read_ticks() + which);
}

static void fill(struct packet *p, uint32_t seq)
{
    struct packet blank = {0};                   /* memset */
    *p = blank;
    p->seq = seq;
    p->len = (uint16_t)(next_random() % sizeof p->payload);
    p->port = (uint8_t)(seq & 3);
    for (size_t i = 0; i < sizeof p->payload; i++)
        p->payload[i] = (uint8_t)(banner[i % (sizeof banner - 1)] + seq);
}

int main(void)
{
    struct packet pkt;
    uint32_t sum = 0;

    for (uint32_t seq = 1; seq <= 24; seq++) {
        fill(&pkt, seq * next_random());
        unsigned which = (unsigned)(seq % 6);
        uint32_t r = dispatch(&pkt, which);
        stats[which] += r;
        sum = (sum << 5 | sum >> 27) ^ r;
        tick_count++;
    }
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        sum += stats[i];
    return (int)(sum & 0x7FFFFFFF);
}
