/* The six LANai relocation patches (LANAI-ISA.md §11.2), each a pure function. */
#include "reloc.h"

#include <stddef.h>

/* SLS/SLI split a 21-bit address: V bits 20..16 go to word bits 22..18 (the Rs1 field),
 * V bits 15..0 to word bits 15..0. */
/*@ assigns \nothing;
    ensures \result == value / 65536 % 32 * 262144 + value % 65536; */
static uint32_t split21(uint32_t value)
{
    /* ((value >> 16) & 0x1F) << 18 | (value & 0xFFFF), in arithmetic the provers follow */
    return value / 0x10000u % 32u * 0x40000u + value % 0x10000u;
}

enum reloc_status reloc_patch_21(uint32_t word, uint32_t value, uint32_t *out)
{
    if (value >= RELOC_21_LIMIT)
        return RELOC_OVERFLOW;
    *out = (word & ~0x007CFFFFu) | split21(value);
    return RELOC_OK;
}

enum reloc_status reloc_patch_21_f(uint32_t word, uint32_t value, uint32_t *out)
{
    if (value >= RELOC_21_LIMIT)
        return RELOC_OVERFLOW;
    if (value % 4u != 0)
        return RELOC_MISALIGNED;
    *out = (word & ~0x007CFFFCu) | split21(value);
    return RELOC_OK;
}

/* Bits 1..0 of a BR word hold the branch/SCC selector and the condition's I bit: keep them. */
enum reloc_status reloc_patch_25(uint32_t word, uint32_t value, uint32_t *out)
{
    if (value >= RELOC_25_LIMIT)
        return RELOC_OVERFLOW;
    if (value % 4u != 0)
        return RELOC_MISALIGNED;
    *out = (word & ~0x01FFFFFCu) | value;
    return RELOC_OK;
}

enum reloc_status reloc_patch_32(uint32_t word, uint32_t value, uint32_t *out)
{
    (void)word;
    *out = value;
    return RELOC_OK;
}

/* mov hi(sym) / or lo(sym): the pair is combined with OR, not ADD, so the high half needs
 * no carry correction for a "negative" low half. */
enum reloc_status reloc_patch_hi16(uint32_t word, uint32_t value, uint32_t *out)
{
    *out = (word & 0xFFFF0000u) | (value >> 16);
    return RELOC_OK;
}

enum reloc_status reloc_patch_lo16(uint32_t word, uint32_t value, uint32_t *out)
{
    *out = (word & 0xFFFF0000u) | (value & 0xFFFFu);
    return RELOC_OK;
}

enum reloc_status reloc_patch(uint32_t type, uint32_t word, uint32_t value, uint32_t *out)
{
    switch (type) {
    case R_LANAI_NONE:
        *out = word;
        return RELOC_OK;
    case R_LANAI_21:
        return reloc_patch_21(word, value, out);
    case R_LANAI_21_F:
        return reloc_patch_21_f(word, value, out);
    case R_LANAI_25:
        return reloc_patch_25(word, value, out);
    case R_LANAI_32:
        return reloc_patch_32(word, value, out);
    case R_LANAI_HI16:
        return reloc_patch_hi16(word, value, out);
    case R_LANAI_LO16:
        return reloc_patch_lo16(word, value, out);
    default:
        return RELOC_UNSUPPORTED;
    }
}

enum reloc_status reloc_apply(uint32_t type, uint8_t *sec, uint32_t size, uint32_t off,
                              uint32_t value)
{
    if (off > size || size - off < 4)
        return RELOC_OUTSIDE;
    uint8_t *p = sec + off;
    uint32_t word = (uint32_t)p[0] * 0x1000000u + (uint32_t)p[1] * 0x10000u +
                    (uint32_t)p[2] * 0x100u + p[3];
    uint32_t out = 0;
    enum reloc_status st = reloc_patch(type, word, value, &out);
    if (st != RELOC_OK)
        return st;
    p[0] = (uint8_t)(out >> 24);
    p[1] = (uint8_t)(out >> 16);
    p[2] = (uint8_t)(out >> 8);
    p[3] = (uint8_t)out;
    return RELOC_OK;
}

const char *reloc_name(uint32_t type)
{
    static const char *const names[] = {
        "R_LANAI_NONE", "R_LANAI_21",   "R_LANAI_21_F", "R_LANAI_25",
        "R_LANAI_32",   "R_LANAI_HI16", "R_LANAI_LO16",
    };
    return type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

uint32_t reloc_limit(uint32_t type)
{
    switch (type) {
    case R_LANAI_21:
    case R_LANAI_21_F:
        return RELOC_21_LIMIT;
    case R_LANAI_25:
        return RELOC_25_LIMIT;
    default:
        return 0;
    }
}
