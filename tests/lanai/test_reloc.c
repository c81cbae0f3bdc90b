/* Unit tests of the relocation patches (tools/lanai-ld/reloc.c). Expected words are
 * llvm-mc's encodings of the same instruction with the value written in literally
 * (`llvm-mc -triple=lanai -show-encoding`), applied to the zero-field templates clang
 * leaves in objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "reloc.h"

struct vector {
    uint32_t type, word, value, want;
    const char *asm_text;
};

static const struct vector vectors[] = {
    {R_LANAI_21, 0xF1820000, 0x0001ABCD, 0xF186ABCD, "mov 0x1abcd, %r3 (SLI)"},
    {R_LANAI_21, 0xF1800000, 0x0001ABCC, 0xF184ABCC, "ld [0x1abcc], %r3 (SLS load)"},
    {R_LANAI_21, 0xF4820000, 0x001FFFFE, 0xF4FEFFFE, "mov 0x1ffffe, %r9"},
    {R_LANAI_21, 0xF3810000, 0x001FFFFC, 0xF3FDFFFC, "st %r7, [0x1ffffc] (SLS store)"},
    {R_LANAI_21, 0xF1810000, 0x00001000, 0xF1811000, "st %r3, [0x1000]"},
    {R_LANAI_21_F, 0xF4000000, 0x001FFFFC, 0xF47CFFFC, "ld [0x1ffffc], %rv"},
    {R_LANAI_21_F, 0xF1800000, 0x0001ABCC, 0xF184ABCC, "ld [0x1abcc], %r3"},
    {R_LANAI_25, 0xE0000000, 0x00001234, 0xE0001234, "bt 0x1234"},
    {R_LANAI_25, 0xE6000001, 0x01FFFF00, 0xE7FFFF01, "beq 0x1ffff00 (keeps the I bit)"},
    {R_LANAI_25, 0xE6000000, 0x00000004, 0xE6000004, "bne 0x4"},
    {R_LANAI_25, 0xE2000000, 0x00001000, 0xE2001000, "bugt 0x1000"},
    {R_LANAI_25, 0xE0000001, 0x00000008, 0xE0000009, "bf 0x8"},
    {R_LANAI_HI16, 0x01810000, 0x12345678, 0x01811234, "mov 0x12340000, %r3"},
    {R_LANAI_HI16, 0x04010000, 0xFFFF0000, 0x0401FFFF, "mov 0xffff0000, %rv"},
    {R_LANAI_LO16, 0x518C0000, 0x12345678, 0x518C5678, "or %r3, 0x5678, %r3"},
    {R_LANAI_LO16, 0x54200000, 0x0000FFFF, 0x5420FFFF, "or %rv, 0xffff, %rv"},
    {R_LANAI_32, 0x00000000, 0xDEADBEEF, 0xDEADBEEF, ".long 0xdeadbeef"},
    {R_LANAI_32, 0x12345678, 0x00000000, 0x00000000, ".long 0 (old contents dropped)"},
    {R_LANAI_NONE, 0xCAFEF00D, 0x12345678, 0xCAFEF00D, "R_LANAI_NONE leaves the word"},
};

static void test_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const struct vector *v = &vectors[i];
        uint32_t out = 0;
        print_message("  %-14s %s\n", reloc_name(v->type), v->asm_text);
        assert_int_equal(reloc_patch(v->type, v->word, v->value, &out), RELOC_OK);
        assert_int_equal(out, v->want);
    }
}

static void expect_status(uint32_t type, uint32_t value, enum reloc_status want)
{
    uint32_t out = 0x5A5A5A5A;
    assert_int_equal(reloc_patch(type, 0xE0000000, value, &out), want);
    if (want != RELOC_OK)
        assert_int_equal(out, 0x5A5A5A5A); /* untouched on error */
}

static void test_21_range(void **state)
{
    (void)state;
    expect_status(R_LANAI_21, 0, RELOC_OK);
    expect_status(R_LANAI_21, 0x001FFFFF, RELOC_OK);
    expect_status(R_LANAI_21, 0x00200000, RELOC_OVERFLOW);
    expect_status(R_LANAI_21, 0xFFFFFFFC, RELOC_OVERFLOW); /* a "negative" S + A */
    expect_status(R_LANAI_21, 0x80000000, RELOC_OVERFLOW);
}

static void test_21_f_range_and_alignment(void **state)
{
    (void)state;
    expect_status(R_LANAI_21_F, 0x001FFFFC, RELOC_OK);
    expect_status(R_LANAI_21_F, 0x00200000, RELOC_OVERFLOW);
    expect_status(R_LANAI_21_F, 0x00000002, RELOC_MISALIGNED);
    expect_status(R_LANAI_21_F, 0x00001001, RELOC_MISALIGNED);
}

static void test_25_range_and_alignment(void **state)
{
    (void)state;
    expect_status(R_LANAI_25, 0, RELOC_OK);
    expect_status(R_LANAI_25, 0x01FFFFFC, RELOC_OK);
    expect_status(R_LANAI_25, 0x02000000, RELOC_OVERFLOW);
    expect_status(R_LANAI_25, 0xFFFFFFF0, RELOC_OVERFLOW);
    expect_status(R_LANAI_25, 0x00000102, RELOC_MISALIGNED);
    expect_status(R_LANAI_25, 0x00000001, RELOC_MISALIGNED);
}

static void test_unsupported(void **state)
{
    (void)state;
    expect_status(7, 0, RELOC_UNSUPPORTED);
    expect_status(0xFF, 0, RELOC_UNSUPPORTED);
    expect_status(0xFFFFFFFF, 0, RELOC_UNSUPPORTED);
    assert_null(reloc_name(7));
    assert_string_equal(reloc_name(R_LANAI_HI16), "R_LANAI_HI16");
    assert_int_equal(reloc_limit(R_LANAI_21), 0x00200000);
    assert_int_equal(reloc_limit(R_LANAI_25), 0x02000000);
    assert_int_equal(reloc_limit(R_LANAI_32), 0);
}

static uint32_t rng = 0x1234567u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* For random words and in-range values: bits outside the field are kept and the field
 * decodes back to the value, the way the CPU (LANAI-ISA.md §4.6, §4.7) reads it. */
static void test_fields_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < 100000; i++) {
        uint32_t w = rnd(), v = rnd(), out;

        assert_int_equal(reloc_patch_21(w, v & 0x1FFFFF, &out), RELOC_OK);
        assert_int_equal(out & ~0x007CFFFFu, w & ~0x007CFFFFu);
        assert_int_equal(((out >> 18) & 0x1F) << 16 | (out & 0xFFFF), v & 0x1FFFFF);

        assert_int_equal(reloc_patch_21_f(w, v & 0x1FFFFC, &out), RELOC_OK);
        assert_int_equal(out & ~0x007CFFFCu, w & ~0x007CFFFCu);
        assert_int_equal(((out >> 18) & 0x1F) << 16 | (out & 0xFFFC), v & 0x1FFFFC);

        assert_int_equal(reloc_patch_25(w, v & 0x1FFFFFC, &out), RELOC_OK);
        assert_int_equal(out & ~0x01FFFFFCu, w & ~0x01FFFFFCu);
        assert_int_equal(out & 0x01FFFFFC, v & 0x1FFFFFC);

        uint32_t hi, lo;
        assert_int_equal(reloc_patch_hi16(w, v, &hi), RELOC_OK);
        assert_int_equal(reloc_patch_lo16(w, v, &lo), RELOC_OK);
        assert_int_equal(hi >> 16, w >> 16);
        assert_int_equal(lo >> 16, w >> 16);
        assert_int_equal((hi & 0xFFFF) << 16 | (lo & 0xFFFF), v); /* mov hi ; or lo */

        assert_int_equal(reloc_patch_32(w, v, &out), RELOC_OK);
        assert_int_equal(out, v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_21_range),
        cmocka_unit_test(test_21_f_range_and_alignment),
        cmocka_unit_test(test_25_range_and_alignment),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_fields_round_trip),
    };
    return cmocka_run_group_tests_name("lanai relocations", tests, NULL, NULL);
}
