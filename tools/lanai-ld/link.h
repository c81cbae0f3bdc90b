/* The linker's shared state: input objects, the global symbol table and the placed image.
 * link_run does the whole job; the phases live in symbols.c, layout.c and relocate.c. */
#ifndef LANAI_LD_LINK_H
#define LANAI_LD_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "elf.h"

/* Memory map (see firmware/lanai/README.md): the image and the stack live in
 * [0, budget); [budget, 4 MiB) is left to the host interface and packet buffers. */
#define LANAI_SRAM_SIZE 0x00400000u
#define LANAI_DEFAULT_BUDGET 0x00100000u
#define LANAI_DEFAULT_STACK 0x00004000u
#define LANAI_ADDR_LIMIT 0x02000000u /* BR targets are 25-bit: code must stay below 32 MiB */

enum out_class { OUT_TEXT, OUT_RODATA, OUT_DATA, OUT_BSS, OUT_NCLASS };
#define OUT_NONE (-1) /* a section that is not part of the image */
#define OUT_ABS (-2)  /* a symbol with an absolute value */

extern const char *const out_class_name[OUT_NCLASS];

struct link_options {
    uint32_t budget; /* bytes of SRAM for image + stack, from address 0 */
    uint32_t stack;  /* bytes reserved for the stack just below the budget */
    const char *entry;
};

struct link_input {
    char *path;
    uint8_t *buf;
    size_t len;
    struct elf_object obj;
    int8_t *cls;      /* output class of each section, or OUT_NONE */
    uint32_t *addr;   /* address of each placed section */
};

enum gstate { G_UNDEF, G_WEAK, G_DEFINED, G_COMMON, G_LINKER };

/* One global name. For G_WEAK/G_DEFINED (obj, sym) is the winning definition; for
 * G_COMMON the first common declaration; for G_UNDEF the first reference. */
struct gsym {
    const char *name;
    enum gstate state;
    uint32_t obj, sym;
    uint32_t size, align; /* G_COMMON */
    uint32_t addr;        /* G_COMMON after layout, G_LINKER */
    int reported;         /* "undefined symbol" already said */
};

struct gtable {
    struct gsym *slots;
    uint32_t cap, count;
};

struct out_symbol {
    const char *name;
    uint32_t addr, size;
    uint8_t bind, type;
    int cls; /* enum out_class, or OUT_ABS */
    uint32_t order;
};

struct link {
    struct link_options opt;
    struct diag *diag;
    struct link_input *in;
    uint32_t nin, capin;
    struct gtable globals;
    uint32_t start[OUT_NCLASS], end[OUT_NCLASS]; /* [start, end) of each output class */
    uint32_t entry;
    int trampoline;       /* a "bt entry; nop" pair occupies addresses 0..7 */
    uint8_t *image;       /* the bytes of [0, image_size): text, rodata and data */
    uint32_t image_size;
    struct out_symbol *syms; /* defined symbols, sorted by address */
    uint32_t nsyms;
};

void link_init(struct link *l, const struct link_options *opt, struct diag *d);
/* Copies buf and parses it; returns 0 or -1 (error reported). */
int link_add(struct link *l, const char *path, const uint8_t *buf, size_t len);
int link_run(struct link *l);
void link_free(struct link *l);

/* symbols.c */
struct gsym *gtable_find(const struct gtable *t, const char *name);
int symbols_collect(struct link *l);
void symbols_define_linker(struct link *l);
int symbols_value(struct link *l, uint32_t obj, uint32_t sym, uint32_t *value);
const char *symbols_display_name(const struct link_input *in, uint32_t sym);
int symbols_list(struct link *l);

/* layout.c */
int layout_sections(struct link *l);
int layout_image(struct link *l);

/* relocate.c */
int relocate_all(struct link *l);

#endif
