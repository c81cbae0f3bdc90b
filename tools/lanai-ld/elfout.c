/* An ELF32 big-endian executable of the linked image (lanai-ld --elf), so llvm-objdump can
 * disassemble it with symbol names. Same bytes and addresses as the flat image. */
#include "image.h"

#include <stdlib.h>
#include <string.h>

#define EHDR_SIZE 52
#define PHDR_SIZE 32
#define SHDR_SIZE 40
#define SYM_SIZE 16

/* Output section indexes: 0 null, 1..4 text/rodata/data/bss, then symtab, strtab, shstrtab. */
enum { SEC_SYMTAB = 5, SEC_STRTAB, SEC_SHSTRTAB, SEC_COUNT };

static const char shstrtab[] = "\0.text\0.rodata\0.data\0.bss\0.symtab\0.strtab\0.shstrtab";
static const uint32_t shname[SEC_COUNT] = {0, 1, 7, 15, 21, 26, 34, 42};

struct buf {
    uint8_t *p;
    size_t len, cap;
    int oom;
};

static void grow(struct buf *b, size_t n)
{
    if (b->oom || b->len + n <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return;
    }
    b->p = p;
    b->cap = cap;
}

static void put(struct buf *b, const void *data, size_t n)
{
    grow(b, n);
    if (b->oom)
        return;
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void put32(struct buf *b, uint32_t v)
{
    uint8_t w[4];
    put_be32(w, v);
    put(b, w, 4);
}

static void put16(struct buf *b, uint16_t v)
{
    uint8_t w[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(b, w, 2);
}

static void pad4(struct buf *b)
{
    static const uint8_t zero[4];
    put(b, zero, (4 - b->len % 4) % 4);
}

static uint16_t out_shndx(int cls)
{
    return cls == OUT_ABS ? SHN_ABS : (uint16_t)(1 + cls);
}

/* Locals first, as ELF requires; the symtab's sh_info is the index of the first global. */
static uint32_t put_symbols(const struct link *l, struct buf *sym, struct buf *str)
{
    uint32_t first_global = 1;

    put(sym, (uint8_t[SYM_SIZE]){0}, SYM_SIZE);
    put(str, "", 1);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < l->nsyms; i++) {
            const struct out_symbol *s = &l->syms[i];
            if ((s->bind == STB_LOCAL) != (pass == 0))
                continue;
            put32(sym, (uint32_t)str->len);
            put32(sym, s->addr);
            put32(sym, s->size);
            uint8_t info[2] = {(uint8_t)(s->bind << 4 | (s->type & 0xF)), 0};
            put(sym, info, 2);
            put16(sym, out_shndx(s->cls));
            put(str, s->name, strlen(s->name) + 1);
            if (pass == 0)
                first_global++;
        }
    return first_global;
}

static void put_shdr(struct buf *b, uint32_t name, uint32_t type, uint32_t flags,
                     uint32_t addr, uint32_t off, uint32_t size, uint32_t link, uint32_t info,
                     uint32_t align, uint32_t entsize)
{
    const uint32_t f[10] = {name, type, flags, addr, off, size, link, info, align, entsize};
    for (int i = 0; i < 10; i++)
        put32(b, f[i]);
}

int image_write_elf(const struct link *l, FILE *f)
{
    static const uint32_t flags[OUT_NCLASS] = {
        SHF_ALLOC | SHF_EXECINSTR, SHF_ALLOC, SHF_ALLOC | SHF_WRITE, SHF_ALLOC | SHF_WRITE};
    struct buf out = {0}, sym = {0}, str = {0};
    uint32_t image_off = EHDR_SIZE + PHDR_SIZE;
    uint32_t first_global = put_symbols(l, &sym, &str);
    uint32_t sym_off = image_off + l->image_size;
    sym_off += (4 - sym_off % 4) % 4;
    uint32_t str_off = sym_off + (uint32_t)sym.len;
    uint32_t shstr_off = str_off + (uint32_t)str.len;
    uint32_t sh_off = shstr_off + (uint32_t)sizeof shstrtab;
    sh_off += (4 - sh_off % 4) % 4;

    static const uint8_t ident[16] = {0x7F, 'E', 'L', 'F', 1, 2, 1};
    put(&out, ident, 16);
    put16(&out, 2); /* ET_EXEC */
    put16(&out, EM_LANAI);
    put32(&out, 1);
    put32(&out, l->entry);
    put32(&out, EHDR_SIZE);
    put32(&out, sh_off);
    put32(&out, 0);
    const uint16_t half[6] = {EHDR_SIZE, PHDR_SIZE, 1, SHDR_SIZE, SEC_COUNT, SEC_SHSTRTAB};
    for (int i = 0; i < 6; i++)
        put16(&out, half[i]);

    /* One PT_LOAD: the file image, then bss as zero-filled memory. */
    const uint32_t phdr[8] = {1, image_off, 0, 0, l->image_size, l->end[OUT_BSS], 7, 4};
    for (int i = 0; i < 8; i++)
        put32(&out, phdr[i]);
    put(&out, l->image, l->image_size);
    pad4(&out);
    put(&out, sym.p, sym.len);
    put(&out, str.p, str.len);
    put(&out, shstrtab, sizeof shstrtab);
    pad4(&out);

    put_shdr(&out, 0, SHT_NULL, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int c = 0; c < OUT_NCLASS; c++)
        put_shdr(&out, shname[1 + c], c == OUT_BSS ? SHT_NOBITS : SHT_PROGBITS, flags[c],
                 l->start[c], image_off + (c == OUT_BSS ? l->image_size : l->start[c]),
                 l->end[c] - l->start[c], 0, 0, 4, 0);
    put_shdr(&out, shname[SEC_SYMTAB], SHT_SYMTAB, 0, 0, sym_off, (uint32_t)sym.len,
             SEC_STRTAB, first_global, 4, SYM_SIZE);
    put_shdr(&out, shname[SEC_STRTAB], SHT_STRTAB, 0, 0, str_off, (uint32_t)str.len, 0, 0, 1, 0);
    put_shdr(&out, shname[SEC_SHSTRTAB], SHT_STRTAB, 0, 0, shstr_off, sizeof shstrtab, 0, 0, 1,
             0);

    int rc = out.oom || sym.oom || str.oom ? -1 : 0;
    if (rc == 0 && fwrite(out.p, 1, out.len, f) != out.len)
        rc = -1;
    free(out.p);
    free(sym.p);
    free(str.p);
    return rc;
}
