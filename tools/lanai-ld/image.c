/* The flat image, the map file and the size table. */
#include "image.h"

#include <stdlib.h>

int image_write_flat(const struct link *l, FILE *f)
{
    if (l->image_size != 0 && fwrite(l->image, 1, l->image_size, f) != l->image_size)
        return -1;
    return 0;
}

static char type_letter(const struct out_symbol *s)
{
    static const char letters[] = {'T', 'R', 'D', 'B'};
    char c = s->cls == OUT_ABS ? 'A' : letters[s->cls];

    return s->bind == STB_LOCAL ? (char)(c - 'A' + 'a') : c;
}

struct placed {
    uint32_t addr, obj, sec;
};

static int by_addr(const void *a, const void *b)
{
    const struct placed *x = a, *y = b;

    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return x->sec < y->sec ? -1 : x->sec > y->sec;
}

static int write_sections(const struct link *l, FILE *f)
{
    size_t n = 0, k = 0;

    for (uint32_t i = 0; i < l->nin; i++)
        n += l->in[i].obj.nsections;
    struct placed *p = malloc((n ? n : 1) * sizeof *p);
    if (!p)
        return -1;
    for (uint32_t i = 0; i < l->nin; i++)
        for (uint32_t s = 0; s < l->in[i].obj.nsections; s++)
            if (l->in[i].cls[s] != OUT_NONE)
                p[k++] = (struct placed){l->in[i].addr[s], i, s};
    qsort(p, k, sizeof *p, by_addr);
    for (size_t j = 0; j < k; j++) {
        const struct link_input *in = &l->in[p[j].obj];
        const struct elf_section *s = &in->obj.sections[p[j].sec];
        fprintf(f, "section 0x%08x 0x%08x %-6s %s %s\n", p[j].addr, s->size,
                out_class_name[in->cls[p[j].sec]], s->name, in->path);
    }
    free(p);
    return 0;
}

/* One record per line, the first word naming its kind, so scripts can pick lines apart. */
int image_write_map(const struct link *l, const char *image_name, FILE *f)
{
    fprintf(f, "# lanai-ld map of %s\n", image_name);
    fprintf(f, "# entry ADDR | memory BUDGET STACK | output CLASS START END SIZE |\n"
               "# section ADDR SIZE CLASS NAME FILE | symbol ADDR SIZE TYPE NAME\n");
    fprintf(f, "entry   0x%08x %s%s\n", l->entry, l->opt.entry,
            l->trampoline ? " (via a jump at 0x00000000)" : "");
    fprintf(f, "memory  0x%08x 0x%08x\n", l->opt.budget, l->opt.stack);
    for (int c = 0; c < OUT_NCLASS; c++)
        fprintf(f, "output  %-6s 0x%08x 0x%08x %u\n", out_class_name[c], l->start[c], l->end[c],
                l->end[c] - l->start[c]);
    if (write_sections(l, f) != 0)
        return -1;
    for (uint32_t i = 0; i < l->nsyms; i++)
        fprintf(f, "symbol  0x%08x 0x%08x %c %s\n", l->syms[i].addr, l->syms[i].size,
                type_letter(&l->syms[i]), l->syms[i].name);
    return ferror(f) ? -1 : 0;
}

void image_print_sizes(const struct link *l, FILE *f)
{
    uint32_t size[OUT_NCLASS];

    for (int c = 0; c < OUT_NCLASS; c++)
        size[c] = l->end[c] - l->start[c];
    uint32_t used = l->end[OUT_BSS] + l->opt.stack;
    fprintf(f, "%8s %8s %8s %8s %8s %8s %8s %8s\n", "text", "rodata", "data", "bss", "stack",
            "total", "budget", "free");
    fprintf(f, "%8u %8u %8u %8u %8u %8u %8u %8u\n", size[OUT_TEXT], size[OUT_RODATA],
            size[OUT_DATA], size[OUT_BSS], l->opt.stack, used, l->opt.budget,
            l->opt.budget - used);
}
