/* Symbol resolution: one table of global names across all inputs (strong beats weak,
 * definitions beat commons, two strong definitions are an error), linker-defined symbols,
 * and the value of any symbol an input's relocation names. */
#include "link.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

struct gsym *gtable_find(const struct gtable *t, const char *name)
{
    if (t->cap == 0)
        return NULL;
    for (uint32_t i = hash(name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (!t->slots[i].name)
            return NULL;
        if (strcmp(t->slots[i].name, name) == 0)
            return &t->slots[i];
    }
}

static int gtable_grow(struct gtable *t)
{
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    struct gsym *slots = calloc(cap, sizeof *slots);

    if (!slots)
        return -1;
    for (uint32_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].name)
            continue;
        uint32_t k = hash(t->slots[i].name) & (cap - 1);
        while (slots[k].name)
            k = (k + 1) & (cap - 1);
        slots[k] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* Finds name or adds it as G_UNDEF. NULL when out of memory. */
static struct gsym *gtable_insert(struct gtable *t, const char *name)
{
    struct gsym *g = gtable_find(t, name);

    if (g)
        return g;
    if ((t->count + 1) * 2 > t->cap && gtable_grow(t) != 0)
        return NULL;
    uint32_t i = hash(name) & (t->cap - 1);
    while (t->slots[i].name)
        i = (i + 1) & (t->cap - 1);
    g = &t->slots[i];
    memset(g, 0, sizeof *g);
    g->name = name;
    g->state = G_UNDEF;
    t->count++;
    return g;
}

static const char *obj_path(const struct link *l, uint32_t obj)
{
    return l->in[obj].path;
}

/* Merges one global (or weak) symbol table entry of input obj into the table. */
static int merge(struct link *l, uint32_t obj, uint32_t idx)
{
    const struct elf_symbol *s = &l->in[obj].obj.symbols[idx];
    struct gsym *g = gtable_insert(&l->globals, s->name);

    if (!g) {
        diag_error(l->diag, NULL, "out of memory");
        return -1;
    }
    if (s->shndx == SHN_UNDEF) {
        if (g->state == G_UNDEF && g->obj == 0 && g->sym == 0) {
            g->obj = obj;
            g->sym = idx;
        }
        return 0;
    }
    if (s->shndx == SHN_COMMON) {
        uint32_t align = s->value ? s->value : 1;
        if ((align & (align - 1)) != 0 || align > 4096) {
            diag_error(l->diag, obj_path(l, obj), "malformed ELF: common symbol '%s' has "
                       "alignment %u", s->name, s->value);
            return -1;
        }
        if (g->state == G_DEFINED)
            return 0;
        if (g->state != G_COMMON) {
            g->state = G_COMMON;
            g->obj = obj;
            g->sym = idx;
            g->size = g->align = 0;
        }
        if (s->size > g->size)
            g->size = s->size;
        if (align > g->align)
            g->align = align;
        return 0;
    }
    int weak = s->bind == STB_WEAK;
    if (g->state == G_DEFINED) {
        if (weak)
            return 0;
        diag_error(l->diag, obj_path(l, obj), "duplicate symbol '%s' (also defined in %s)",
                   s->name, obj_path(l, g->obj));
        return -1;
    }
    /* A weak definition loses to a strong one and to a common; the first weak wins. */
    if (weak && (g->state == G_WEAK || g->state == G_COMMON))
        return 0;
    g->state = weak ? G_WEAK : G_DEFINED;
    g->obj = obj;
    g->sym = idx;
    return 0;
}

int symbols_collect(struct link *l)
{
    int rc = 0;

    for (uint32_t i = 0; i < l->nin; i++) {
        const struct elf_object *o = &l->in[i].obj;
        for (uint32_t k = 1; k < o->nsymbols; k++) {
            if (o->symbols[k].bind == STB_LOCAL || o->symbols[k].name[0] == '\0')
                continue;
            if (merge(l, i, k) != 0)
                rc = -1;
        }
    }
    return rc;
}

/* Linker-provided symbols: only where no input defines the name (like PROVIDE in GNU ld). */
void symbols_define_linker(struct link *l)
{
    const struct {
        const char *name;
        uint32_t value;
    } provided[] = {
        {"__rodata_start", l->start[OUT_RODATA]},
        {"__data_start", l->start[OUT_DATA]},
        {"__data_end", l->end[OUT_DATA]},
        {"__bss_start", l->start[OUT_BSS]},
        {"__bss_end", l->end[OUT_BSS]},
        {"_end", l->end[OUT_BSS]},
        {"__stack_limit", l->opt.budget - l->opt.stack},
        {"__stack_top", l->opt.budget},
    };

    for (size_t i = 0; i < sizeof provided / sizeof provided[0]; i++) {
        struct gsym *g = gtable_insert(&l->globals, provided[i].name);
        if (!g) {
            diag_error(l->diag, NULL, "out of memory");
            return;
        }
        if (g->state == G_UNDEF || g->state == G_LINKER) {
            g->state = G_LINKER;
            g->addr = provided[i].value;
        }
    }
}

const char *symbols_display_name(const struct link_input *in, uint32_t sym)
{
    const struct elf_symbol *s = &in->obj.symbols[sym];

    if (s->type == STT_SECTION && s->shndx != SHN_UNDEF && s->shndx < in->obj.nsections)
        return in->obj.sections[s->shndx].name;
    return s->name[0] ? s->name : "<unnamed>";
}

/* The value of a symbol defined in input obj (a local, or the winning global). */
static int defined_value(struct link *l, uint32_t obj, uint32_t idx, uint32_t *value)
{
    const struct link_input *in = &l->in[obj];
    const struct elf_symbol *s = &in->obj.symbols[idx];

    if (s->shndx == SHN_UNDEF) {
        /* Only the null symbol (index 0) and its kin get here: they stand for 0. */
        *value = 0;
        return 0;
    }
    if (s->shndx == SHN_ABS) {
        *value = s->value;
        return 0;
    }
    if (s->shndx == SHN_COMMON) {
        diag_error(l->diag, in->path, "malformed ELF: local common symbol '%s'", s->name);
        return -1;
    }
    if (in->cls[s->shndx] == OUT_NONE) {
        diag_error(l->diag, in->path, "symbol '%s' is defined in section '%s', which is not "
                   "part of the image", symbols_display_name(in, idx),
                   in->obj.sections[s->shndx].name);
        return -1;
    }
    *value = in->addr[s->shndx] + s->value;
    return 0;
}

int symbols_value(struct link *l, uint32_t obj, uint32_t idx, uint32_t *value)
{
    const struct elf_symbol *s = &l->in[obj].obj.symbols[idx];

    if (s->bind == STB_LOCAL || s->name[0] == '\0')
        return defined_value(l, obj, idx, value);
    struct gsym *g = gtable_find(&l->globals, s->name);
    if (!g) { /* cannot happen after symbols_collect; keep the fuzzer honest anyway */
        diag_error(l->diag, l->in[obj].path, "internal error: symbol '%s' not collected",
                   s->name);
        return -1;
    }
    switch (g->state) {
    case G_WEAK:
    case G_DEFINED:
        return defined_value(l, g->obj, g->sym, value);
    case G_COMMON:
    case G_LINKER:
        *value = g->addr;
        return 0;
    case G_UNDEF:
        break;
    }
    if (s->bind == STB_WEAK) {
        *value = 0;
        return 0;
    }
    if (!g->reported) {
        g->reported = 1;
        diag_error(l->diag, l->in[obj].path, "undefined symbol '%s'", s->name);
    }
    return -1;
}

static int is_listed(const struct link *l, uint32_t obj, uint32_t idx, struct gsym **common)
{
    const struct elf_symbol *s = &l->in[obj].obj.symbols[idx];

    *common = NULL;
    if (s->type == STT_SECTION || s->type == STT_FILE || s->name[0] == '\0' ||
        strncmp(s->name, ".L", 2) == 0 || s->shndx == SHN_UNDEF)
        return 0;
    if (s->bind != STB_LOCAL) {
        struct gsym *g = gtable_find(&l->globals, s->name);
        if (!g || g->obj != obj || g->sym != idx)
            return 0;
        if (g->state == G_COMMON)
            *common = g;
        else if (g->state != G_DEFINED && g->state != G_WEAK)
            return 0;
    }
    if (s->shndx == SHN_COMMON)
        return *common != NULL;
    return s->shndx == SHN_ABS || l->in[obj].cls[s->shndx] != OUT_NONE;
}

static int by_address(const void *a, const void *b)
{
    const struct out_symbol *x = a, *y = b;

    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void add_out(struct link *l, const char *name, uint32_t addr, uint32_t size,
                    uint8_t bind, uint8_t type, int cls)
{
    struct out_symbol *o = &l->syms[l->nsyms];

    o->name = name;
    o->addr = addr;
    o->size = size;
    o->bind = bind;
    o->type = type;
    o->cls = cls;
    o->order = l->nsyms++;
}

int symbols_list(struct link *l)
{
    size_t n = l->globals.count;

    for (uint32_t i = 0; i < l->nin; i++)
        n += l->in[i].obj.nsymbols;
    l->syms = calloc(n ? n : 1, sizeof *l->syms);
    if (!l->syms) {
        diag_error(l->diag, NULL, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < l->nin; i++) {
        const struct link_input *in = &l->in[i];
        for (uint32_t k = 1; k < in->obj.nsymbols; k++) {
            const struct elf_symbol *s = &in->obj.symbols[k];
            struct gsym *common;
            if (!is_listed(l, i, k, &common))
                continue;
            if (common)
                add_out(l, s->name, common->addr, common->size, s->bind, STT_OBJECT, OUT_BSS);
            else if (s->shndx == SHN_ABS)
                add_out(l, s->name, s->value, s->size, s->bind, s->type, OUT_ABS);
            else
                add_out(l, s->name, in->addr[s->shndx] + s->value, s->size, s->bind, s->type,
                        in->cls[s->shndx]);
        }
    }
    for (uint32_t i = 0; i < l->globals.cap; i++) {
        const struct gsym *g = &l->globals.slots[i];
        if (g->name && g->state == G_LINKER)
            add_out(l, g->name, g->addr, 0, STB_GLOBAL, STT_NOTYPE, OUT_ABS);
    }
    qsort(l->syms, l->nsyms, sizeof *l->syms, by_address);
    return 0;
}
