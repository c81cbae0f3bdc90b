/* Inputs and the order of the link phases: collect symbols, place sections, check the
 * budget, build the image, resolve and relocate, list the symbols for the map. */
#include "link.h"

#include <stdlib.h>
#include <string.h>

const char *const out_class_name[OUT_NCLASS] = {"text", "rodata", "data", "bss"};

void link_init(struct link *l, const struct link_options *opt, struct diag *d)
{
    memset(l, 0, sizeof *l);
    l->opt = *opt;
    l->diag = d;
}

int link_add(struct link *l, const char *path, const uint8_t *buf, size_t len)
{
    if (l->nin == l->capin) {
        uint32_t cap = l->capin ? l->capin * 2 : 8;
        struct link_input *in = realloc(l->in, cap * sizeof *in);
        if (!in) {
            diag_error(l->diag, path, "out of memory");
            return -1;
        }
        l->in = in;
        l->capin = cap;
    }
    struct link_input *in = &l->in[l->nin];
    memset(in, 0, sizeof *in);
    in->path = malloc(strlen(path) + 1);
    in->buf = malloc(len ? len : 1);
    if (!in->path || !in->buf) {
        free(in->path);
        free(in->buf);
        diag_error(l->diag, path, "out of memory");
        return -1;
    }
    strcpy(in->path, path);
    if (len)
        memcpy(in->buf, buf, len);
    in->len = len;
    if (elf_read(&in->obj, in->path, in->buf, len, l->diag) != 0) {
        free(in->path);
        free(in->buf);
        return -1;
    }
    uint32_t n = in->obj.nsections ? in->obj.nsections : 1;
    in->cls = calloc(n, sizeof *in->cls);
    in->addr = calloc(n, sizeof *in->addr);
    if (!in->cls || !in->addr) {
        elf_free(&in->obj);
        free(in->cls);
        free(in->addr);
        free(in->path);
        free(in->buf);
        diag_error(l->diag, path, "out of memory");
        return -1;
    }
    memset(in->cls, OUT_NONE, n);
    l->nin++;
    return 0;
}

int link_run(struct link *l)
{
    if (l->opt.stack > l->opt.budget || l->opt.budget > LANAI_ADDR_LIMIT) {
        diag_error(l->diag, NULL, "bad memory options: stack %u, budget %u", l->opt.stack,
                   l->opt.budget);
        return -1;
    }
    if (l->nin == 0) {
        diag_error(l->diag, NULL, "no input files");
        return -1;
    }
    if (symbols_collect(l) != 0 || layout_sections(l) != 0)
        return -1;
    symbols_define_linker(l);
    if (l->diag->errors != 0 || layout_image(l) != 0 || relocate_all(l) != 0)
        return -1;
    return symbols_list(l);
}

void link_free(struct link *l)
{
    for (uint32_t i = 0; i < l->nin; i++) {
        elf_free(&l->in[i].obj);
        free(l->in[i].cls);
        free(l->in[i].addr);
        free(l->in[i].path);
        free(l->in[i].buf);
    }
    free(l->in);
    free(l->globals.slots);
    free(l->image);
    free(l->syms);
    memset(l, 0, sizeof *l);
}
