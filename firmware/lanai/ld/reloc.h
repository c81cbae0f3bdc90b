/* Patching LANai relocations into instruction and data words: pure functions of
 * (relocation type, original word, value V = S + A), kept free of I/O and global state so
 * they can be specified and proved on their own.
 *
 * No LANai relocation is PC-relative (branches and calls carry absolute targets), so the
 * address of the patched word never enters the computation. */
#ifndef LANAI_LD_RELOC_H
#define LANAI_LD_RELOC_H

#include <stdint.h>

enum {
    R_LANAI_NONE = 0,
    R_LANAI_21 = 1,   /* SLS/SLI: 21-bit absolute address in bits 22..18 and 15..0 */
    R_LANAI_21_F = 2, /* the same, word-aligned: bits 1..0 of the word are kept */
    R_LANAI_25 = 3,   /* BR/bCC: 25-bit absolute, word-aligned target in bits 24..2 */
    R_LANAI_32 = 4,   /* plain 32-bit data word */
    R_LANAI_HI16 = 5, /* bits 15..0 <- V >> 16 */
    R_LANAI_LO16 = 6, /* bits 15..0 <- V & 0xFFFF */
};

enum reloc_status {
    RELOC_OK,
    RELOC_UNSUPPORTED, /* unknown relocation type */
    RELOC_OVERFLOW,    /* V does not fit the field */
    RELOC_MISALIGNED,  /* V must be a multiple of 4 */
};

#define RELOC_21_LIMIT 0x00200000u /* R_LANAI_21(_F): V < 2 MiB */
#define RELOC_25_LIMIT 0x02000000u /* R_LANAI_25: V < 32 MiB */

enum reloc_status reloc_patch_21(uint32_t word, uint32_t value, uint32_t *out);
enum reloc_status reloc_patch_21_f(uint32_t word, uint32_t value, uint32_t *out);
enum reloc_status reloc_patch_25(uint32_t word, uint32_t value, uint32_t *out);
enum reloc_status reloc_patch_32(uint32_t word, uint32_t value, uint32_t *out);
enum reloc_status reloc_patch_hi16(uint32_t word, uint32_t value, uint32_t *out);
enum reloc_status reloc_patch_lo16(uint32_t word, uint32_t value, uint32_t *out);

/* Dispatches on type. On any status but RELOC_OK, *out is left untouched. */
enum reloc_status reloc_patch(uint32_t type, uint32_t word, uint32_t value, uint32_t *out);

/* "R_LANAI_25" etc., or NULL for an unknown type. */
const char *reloc_name(uint32_t type);

/* Largest value + 1 the type accepts (0 when every 32-bit value fits). */
uint32_t reloc_limit(uint32_t type);

#endif
