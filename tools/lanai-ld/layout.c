/* Section placement: text (entry first) from address 0, then rodata, data and bss, each
 * input section at its own alignment; commons at the end of bss. Then the budget check
 * and the copy of the section contents into the flat image. */
#include "link.h"
#include "reloc.h"

#include <stdlib.h>
#include <string.h>

#define WORD_NOP 0x00000001u
#define WORD_BT 0xE0000000u /* BR, condition "always"; target patched like R_LANAI_25 */

static int classify(struct link *l, uint32_t obj, uint32_t idx)
{
    const struct elf_section *s = &l->in[obj].obj.sections[idx];
    const char *path = l->in[obj].path;

    if (!(s->flags & SHF_ALLOC))
        return OUT_NONE;
    if (s->flags & SHF_TLS) {
        diag_error(l->diag, path, "section '%s': thread-local storage is not supported",
                   s->name);
        return OUT_NONE;
    }
    switch (s->type) {
    case SHT_NOBITS:
        return OUT_BSS;
    case SHT_PROGBITS:
    case SHT_NOTE:
        if (s->flags & SHF_EXECINSTR)
            return OUT_TEXT;
        return (s->flags & SHF_WRITE) ? OUT_DATA : OUT_RODATA;
    case SHT_INIT_ARRAY:
    case SHT_FINI_ARRAY:
    case SHT_PREINIT_ARRAY:
        diag_error(l->diag, path, "section '%s': constructors and destructors are not "
                   "supported (crt0 does not run them)", s->name);
        return OUT_NONE;
    default:
        diag_error(l->diag, path, "section '%s': unsupported allocated section type 0x%x",
                   s->name, s->type);
        return OUT_NONE;
    }
}

static uint64_t align_up(uint64_t v, uint32_t align)
{
    return (v + align - 1) & ~(uint64_t)(align - 1);
}

/* Places one section at the next address its alignment allows. Addresses are computed in
 * 64 bits and capped at LANAI_ADDR_LIMIT, so no input can make them wrap. */
static int place(struct link *l, uint64_t *addr, uint32_t obj, uint32_t idx)
{
    const struct elf_section *s = &l->in[obj].obj.sections[idx];
    uint64_t at = align_up(*addr, s->align);

    if (at + s->size > LANAI_ADDR_LIMIT) {
        diag_error(l->diag, l->in[obj].path, "section '%s' (%u bytes, alignment %u) does not "
                   "fit below the 32 MiB LANai address limit", s->name, s->size, s->align);
        return -1;
    }
    l->in[obj].addr[idx] = (uint32_t)at;
    *addr = at + s->size;
    return 0;
}

static int place_class(struct link *l, uint64_t *addr, int cls, uint32_t skip_obj,
                       uint32_t skip_sec)
{
    for (uint32_t i = 0; i < l->nin; i++)
        for (uint32_t k = 0; k < l->in[i].obj.nsections; k++) {
            if (l->in[i].cls[k] != cls || (i == skip_obj && k == skip_sec))
                continue;
            if (place(l, addr, i, k) != 0)
                return -1;
        }
    return 0;
}

static int place_commons(struct link *l, uint64_t *addr)
{
    for (uint32_t i = 0; i < l->nin; i++)
        for (uint32_t k = 1; k < l->in[i].obj.nsymbols; k++) {
            const struct elf_symbol *s = &l->in[i].obj.symbols[k];
            if (s->shndx != SHN_COMMON || s->bind == STB_LOCAL)
                continue;
            struct gsym *g = gtable_find(&l->globals, s->name);
            if (!g || g->state != G_COMMON || g->obj != i || g->sym != k)
                continue;
            uint64_t at = align_up(*addr, g->align);
            if (at + g->size > LANAI_ADDR_LIMIT) {
                diag_error(l->diag, l->in[i].path, "common symbol '%s' (%u bytes) does not "
                           "fit below the 32 MiB LANai address limit", s->name, g->size);
                return -1;
            }
            g->addr = (uint32_t)at;
            *addr = at + g->size;
        }
    return 0;
}

/* The entry symbol's section goes first, so the entry is at 0 when it starts its section;
 * otherwise a two-word jump at 0 leads to it. */
static int find_entry(struct link *l, uint32_t *obj, uint32_t *sec, uint32_t *offset)
{
    const struct gsym *g = gtable_find(&l->globals, l->opt.entry);

    if (!g || (g->state != G_DEFINED && g->state != G_WEAK)) {
        diag_error(l->diag, NULL, "entry symbol '%s' is not defined", l->opt.entry);
        return -1;
    }
    const struct elf_symbol *s = &l->in[g->obj].obj.symbols[g->sym];
    if (s->shndx >= SHN_LORESERVE || l->in[g->obj].cls[s->shndx] != OUT_TEXT) {
        diag_error(l->diag, l->in[g->obj].path, "entry symbol '%s' is not in a code section",
                   l->opt.entry);
        return -1;
    }
    *obj = g->obj;
    *sec = s->shndx;
    *offset = s->value;
    return 0;
}

static int check_budget(struct link *l)
{
    uint64_t used = l->end[OUT_BSS], need = used + l->opt.stack;

    if (need <= l->opt.budget)
        return 0;
    diag_error(l->diag, NULL, "image does not fit the SRAM budget: text %u + rodata %u + "
               "data %u + bss %u + stack %u = %llu bytes, budget %u (over by %llu)",
               l->end[OUT_TEXT] - l->start[OUT_TEXT], l->end[OUT_RODATA] - l->start[OUT_RODATA],
               l->end[OUT_DATA] - l->start[OUT_DATA], l->end[OUT_BSS] - l->start[OUT_BSS],
               l->opt.stack, (unsigned long long)need, l->opt.budget,
               (unsigned long long)(need - l->opt.budget));
    return -1;
}

int layout_sections(struct link *l)
{
    uint32_t eobj, esec, eoff;
    uint64_t addr = 0;
    int bad = 0;

    for (uint32_t i = 0; i < l->nin; i++)
        for (uint32_t k = 0; k < l->in[i].obj.nsections; k++) {
            int before = l->diag->errors;
            l->in[i].cls[k] = (int8_t)classify(l, i, k);
            bad |= l->diag->errors != before;
        }
    if (bad || find_entry(l, &eobj, &esec, &eoff) != 0)
        return -1;

    l->trampoline = eoff != 0;
    addr = l->trampoline ? 8 : 0;
    l->start[OUT_TEXT] = 0;
    if (place(l, &addr, eobj, esec) != 0 || place_class(l, &addr, OUT_TEXT, eobj, esec) != 0)
        return -1;
    l->end[OUT_TEXT] = (uint32_t)addr;
    l->entry = l->in[eobj].addr[esec] + eoff;

    for (int cls = OUT_RODATA; cls <= OUT_DATA; cls++) {
        l->start[cls] = (uint32_t)addr;
        if (place_class(l, &addr, cls, UINT32_MAX, UINT32_MAX) != 0)
            return -1;
        l->end[cls] = (uint32_t)addr;
    }
    /* crt0 clears bss a word at a time: both ends are word-aligned, and so is the end of
     * the file image. */
    addr = align_up(addr, 4);
    l->end[OUT_DATA] = (uint32_t)addr;
    l->image_size = (uint32_t)addr;
    l->start[OUT_BSS] = (uint32_t)addr;
    if (place_class(l, &addr, OUT_BSS, UINT32_MAX, UINT32_MAX) != 0 ||
        place_commons(l, &addr) != 0)
        return -1;
    addr = align_up(addr, 4);
    if (addr > LANAI_ADDR_LIMIT) {
        diag_error(l->diag, NULL, "image does not fit below the 32 MiB LANai address limit");
        return -1;
    }
    l->end[OUT_BSS] = (uint32_t)addr;
    return check_budget(l);
}

int layout_image(struct link *l)
{
    l->image = calloc(l->image_size ? l->image_size : 1, 1);
    if (!l->image) {
        diag_error(l->diag, NULL, "out of memory for a %u-byte image", l->image_size);
        return -1;
    }
    for (uint32_t i = 0; i < l->nin; i++)
        for (uint32_t k = 0; k < l->in[i].obj.nsections; k++) {
            const struct elf_section *s = &l->in[i].obj.sections[k];
            int cls = l->in[i].cls[k];
            if (cls != OUT_NONE && cls != OUT_BSS && s->size != 0)
                memcpy(l->image + l->in[i].addr[k], s->data, s->size);
        }
    if (l->trampoline) {
        uint32_t bt;
        if (reloc_patch_25(WORD_BT, l->entry, &bt) != RELOC_OK) {
            diag_error(l->diag, NULL, "entry symbol '%s' at 0x%08x is not word-aligned",
                       l->opt.entry, l->entry);
            return -1;
        }
        put_be32(l->image, bt);
        put_be32(l->image + 4, WORD_NOP);
    }
    return 0;
}
