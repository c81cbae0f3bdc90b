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
    RELOC_OUTSIDE,     /* the patched word is not inside its section */
};

#define RELOC_21_LIMIT 0x00200000u /* R_LANAI_21(_F): V < 2 MiB */
#define RELOC_25_LIMIT 0x02000000u /* R_LANAI_25: V < 32 MiB */

/* ACSL (proofs/modules.conf, module ld-reloc): each patch rejects exactly the values that do
 * not fit its field (or are misaligned) and writes *out only when it accepts. */
/*@ requires \valid(out);
    assigns *out;
    ensures \result == RELOC_OK || \result == RELOC_OVERFLOW;
    ensures \result == RELOC_OVERFLOW <==> value >= RELOC_21_LIMIT;
    ensures \result != RELOC_OK ==> *out == \old(*out); */
enum reloc_status reloc_patch_21(uint32_t word, uint32_t value, uint32_t *out);
/*@ requires \valid(out);
    assigns *out;
    ensures \result == RELOC_OK || \result == RELOC_OVERFLOW || \result == RELOC_MISALIGNED;
    ensures \result == RELOC_OVERFLOW <==> value >= RELOC_21_LIMIT;
    ensures \result == RELOC_OK <==> value < RELOC_21_LIMIT && value % 4 == 0;
    ensures \result != RELOC_OK ==> *out == \old(*out); */
enum reloc_status reloc_patch_21_f(uint32_t word, uint32_t value, uint32_t *out);
/*@ requires \valid(out);
    assigns *out;
    ensures \result == RELOC_OK || \result == RELOC_OVERFLOW || \result == RELOC_MISALIGNED;
    ensures \result == RELOC_OVERFLOW <==> value >= RELOC_25_LIMIT;
    ensures \result == RELOC_OK <==> value < RELOC_25_LIMIT && value % 4 == 0;
    ensures \result != RELOC_OK ==> *out == \old(*out); */
enum reloc_status reloc_patch_25(uint32_t word, uint32_t value, uint32_t *out);
/*@ requires \valid(out);
    assigns *out;
    ensures \result == RELOC_OK && *out == value; */
enum reloc_status reloc_patch_32(uint32_t word, uint32_t value, uint32_t *out);
/*@ requires \valid(out);
    assigns *out;
    ensures \result == RELOC_OK; */
enum reloc_status reloc_patch_hi16(uint32_t word, uint32_t value, uint32_t *out);
/*@ requires \valid(out);
    assigns *out;
    ensures \result == RELOC_OK; */
enum reloc_status reloc_patch_lo16(uint32_t word, uint32_t value, uint32_t *out);

/* Dispatches on type. On any status but RELOC_OK, *out is left untouched. */
/*@ requires \valid(out);
    assigns *out;
    ensures \result == RELOC_UNSUPPORTED <==> type > R_LANAI_LO16;
    ensures \result != RELOC_OUTSIDE;
    ensures \result != RELOC_OK ==> *out == \old(*out);
    ensures type == R_LANAI_NONE ==> \result == RELOC_OK && *out == word; */
enum reloc_status reloc_patch(uint32_t type, uint32_t word, uint32_t value, uint32_t *out);

/* Patches the big-endian word at sec[off .. off + 3] of a section of size bytes: reloc_patch
 * of the word there. RELOC_OUTSIDE when those four bytes are not all inside the section.
 * Every byte written is one of those four, and none is written unless the status is OK. */
/*@ requires \valid(sec + (0 .. size - 1));
    assigns sec[off .. off + 3];
    ensures \result == RELOC_OUTSIDE <==> off > size || size - off < 4;
    ensures \result == RELOC_UNSUPPORTED ==> type > R_LANAI_LO16;
    ensures \result != RELOC_OK ==> \forall integer i; 0 <= i < size ==> sec[i] == \old(sec[i]); */
enum reloc_status reloc_apply(uint32_t type, uint8_t *sec, uint32_t size, uint32_t off,
                              uint32_t value);

/* "R_LANAI_25" etc., or NULL for an unknown type. */
/*@ assigns \nothing;
    ensures \result == \null <==> type > R_LANAI_LO16; */
const char *reloc_name(uint32_t type);

/* Largest value + 1 the type accepts (0 when every 32-bit value fits). */
/*@ assigns \nothing;
    ensures type == R_LANAI_21 || type == R_LANAI_21_F ==> \result == RELOC_21_LIMIT;
    ensures type == R_LANAI_25 ==> \result == RELOC_25_LIMIT; */
uint32_t reloc_limit(uint32_t type);

#endif
