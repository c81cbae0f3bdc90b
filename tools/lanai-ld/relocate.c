/* Applies every relocation of the placed sections to the image, through the pure patch
 * functions of reloc.c, and turns their verdicts into named errors. */
#include "link.h"
#include "reloc.h"

static void report(struct link *l, const struct link_input *in, const struct elf_rela *r,
                   const struct elf_section *target, uint32_t value, enum reloc_status st)
{
    const char *sym = symbols_display_name(in, r->sym);
    const char *name = reloc_name(r->type);

    switch (st) {
    case RELOC_UNSUPPORTED:
        diag_error(l->diag, in->path, "unsupported relocation type %u at %s+0x%x", r->type,
                   target->name, r->offset);
        break;
    case RELOC_OVERFLOW:
        diag_error(l->diag, in->path, "relocation %s at %s+0x%x against '%s' overflows: value "
                   "0x%08x, must be below 0x%08x", name, target->name, r->offset, sym, value,
                   reloc_limit(r->type));
        break;
    case RELOC_MISALIGNED:
        diag_error(l->diag, in->path, "relocation %s at %s+0x%x against '%s': value 0x%08x "
                   "is not word-aligned", name, target->name, r->offset, sym, value);
        break;
    case RELOC_OUTSIDE: /* apply() checks the offset first */
        diag_error(l->diag, in->path, "malformed ELF: relocation offset 0x%x is outside "
                   "section '%s' (%u bytes)", r->offset, target->name, target->size);
        break;
    case RELOC_OK:
        break;
    }
}

static int apply(struct link *l, uint32_t obj, const struct elf_section *rs)
{
    const struct link_input *in = &l->in[obj];
    const struct elf_section *target = &in->obj.sections[rs->info];
    uint32_t base = in->addr[rs->info];
    int rc = 0;

    for (uint32_t k = 0; k < elf_rela_count(rs); k++) {
        struct elf_rela r = elf_rela_get(rs, k);
        uint32_t value;

        if (r.type == R_LANAI_NONE)
            continue;
        if (!reloc_name(r.type)) {
            report(l, in, &r, target, 0, RELOC_UNSUPPORTED);
            rc = -1;
            continue;
        }
        if (target->type == SHT_NOBITS) {
            diag_error(l->diag, in->path, "relocation at %s+0x%x patches a section without "
                       "contents", target->name, r.offset);
            rc = -1;
            continue;
        }
        if (r.offset > target->size || target->size - r.offset < 4) {
            diag_error(l->diag, in->path, "malformed ELF: relocation offset 0x%x is outside "
                       "section '%s' (%u bytes)", r.offset, target->name, target->size);
            rc = -1;
            continue;
        }
        if (symbols_value(l, obj, r.sym, &value) != 0) {
            rc = -1;
            continue;
        }
        value += (uint32_t)r.addend;
        /* Patches only the four bytes at r.offset of the section (reloc.h, proved). */
        enum reloc_status st = reloc_apply(r.type, l->image + base, target->size, r.offset, value);
        if (st != RELOC_OK) {
            report(l, in, &r, target, value, st);
            rc = -1;
        }
    }
    return rc;
}

int relocate_all(struct link *l)
{
    int rc = 0;

    for (uint32_t i = 0; i < l->nin; i++) {
        const struct elf_object *o = &l->in[i].obj;
        for (uint32_t k = 0; k < o->nsections; k++) {
            const struct elf_section *s = &o->sections[k];
            if (s->type == SHT_RELA && l->in[i].cls[s->info] != OUT_NONE &&
                apply(l, i, s) != 0)
                rc = -1;
        }
    }
    return rc;
}
