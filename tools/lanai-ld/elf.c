/* ELF32 big-endian reader with full bounds checking (see elf.h). */
#include "elf.h"

#include <stdlib.h>
#include <string.h>

#define EHDR_SIZE 52
#define SHDR_SIZE 40
#define SYM_SIZE 16
#define RELA_SIZE 12
#define NO_SYMTAB UINT32_MAX

uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

struct reader {
    const char *path;
    const uint8_t *buf;
    size_t len;
    struct diag *d;
};

static int fits(const struct reader *r, uint64_t off, uint64_t size)
{
    return off <= r->len && size <= r->len - off;
}

/* A string table entry is valid if it starts inside the table and ends with a NUL inside. */
static const char *str_at(const struct elf_section *strtab, uint32_t off)
{
    if (!strtab->data || off >= strtab->size)
        return NULL;
    if (!memchr(strtab->data + off, '\0', strtab->size - off))
        return NULL;
    return (const char *)strtab->data + off;
}

static int check_header(struct reader *r, uint32_t *shoff, uint32_t *shnum, uint32_t *shstrndx)
{
    const uint8_t *h = r->buf;

    if (r->len < EHDR_SIZE || memcmp(h, "\177ELF", 4) != 0) {
        diag_error(r->d, r->path, "malformed ELF: not an ELF file");
        return -1;
    }
    if (h[4] != 1 || h[5] != 2 || h[6] != 1) {
        diag_error(r->d, r->path, "malformed ELF: not ELF32 big-endian version 1 "
                   "(class %u, data %u, version %u)", h[4], h[5], h[6]);
        return -1;
    }
    if (be16(h + 16) != 1) {
        diag_error(r->d, r->path, "not a relocatable object (e_type %u)", be16(h + 16));
        return -1;
    }
    if (be16(h + 18) != EM_LANAI) {
        diag_error(r->d, r->path, "not a LANai object (e_machine %u, want %u)", be16(h + 18),
                   EM_LANAI);
        return -1;
    }
    *shoff = be32(h + 32);
    *shnum = be16(h + 48);
    *shstrndx = be16(h + 50);
    if (*shnum == 0) {
        if (*shoff != 0) {
            diag_error(r->d, r->path, "malformed ELF: extended section numbering is not "
                       "supported");
            return -1;
        }
        return 0;
    }
    if (be16(h + 46) != SHDR_SIZE) {
        diag_error(r->d, r->path, "malformed ELF: section header size %u, want %u",
                   be16(h + 46), SHDR_SIZE);
        return -1;
    }
    if (!fits(r, *shoff, (uint64_t)*shnum * SHDR_SIZE)) {
        diag_error(r->d, r->path, "malformed ELF: section headers (offset %u, %u entries) "
                   "extend past the end of the file (%zu bytes)", *shoff, *shnum, r->len);
        return -1;
    }
    if (*shstrndx >= *shnum) {
        diag_error(r->d, r->path, "malformed ELF: section name table index %u out of range",
                   *shstrndx);
        return -1;
    }
    return 0;
}

static int read_sections(struct reader *r, struct elf_object *obj, uint32_t shoff,
                         uint32_t shstrndx)
{
    for (uint32_t i = 0; i < obj->nsections; i++) {
        const uint8_t *p = r->buf + shoff + (size_t)i * SHDR_SIZE;
        struct elf_section *s = &obj->sections[i];

        s->type = be32(p + 4);
        s->flags = be32(p + 8);
        s->offset = be32(p + 16);
        s->size = be32(p + 20);
        s->link = be32(p + 24);
        s->info = be32(p + 28);
        s->align = be32(p + 32);
        s->entsize = be32(p + 36);
        s->data = NULL;
        s->name = "";
        if (s->align == 0)
            s->align = 1;
        if ((s->align & (s->align - 1)) != 0) {
            diag_error(r->d, r->path, "malformed ELF: section %u alignment %u is not a power "
                       "of two", i, s->align);
            return -1;
        }
        if (s->type == SHT_NULL || s->type == SHT_NOBITS)
            continue;
        if (!fits(r, s->offset, s->size)) {
            diag_error(r->d, r->path, "malformed ELF: section %u (offset %u, size %u) extends "
                       "past the end of the file (%zu bytes)", i, s->offset, s->size, r->len);
            return -1;
        }
        s->data = r->buf + s->offset;
    }

    const struct elf_section *shstr = &obj->sections[shstrndx];
    if (shstr->type != SHT_STRTAB) {
        diag_error(r->d, r->path, "malformed ELF: section name table %u is not a string "
                   "table", shstrndx);
        return -1;
    }
    for (uint32_t i = 0; i < obj->nsections; i++) {
        uint32_t off = be32(r->buf + shoff + (size_t)i * SHDR_SIZE);
        const char *name = str_at(shstr, off);
        if (!name) {
            diag_error(r->d, r->path, "malformed ELF: section %u has a bad name offset %u", i,
                       off);
            return -1;
        }
        obj->sections[i].name = name;
    }
    return 0;
}

static int read_symbols(struct reader *r, struct elf_object *obj, uint32_t symtab)
{
    const struct elf_section *s = &obj->sections[symtab];

    if (s->entsize != SYM_SIZE || s->size % SYM_SIZE != 0) {
        diag_error(r->d, r->path, "malformed ELF: symbol table entry size %u / size %u",
                   s->entsize, s->size);
        return -1;
    }
    if (s->link >= obj->nsections || obj->sections[s->link].type != SHT_STRTAB) {
        diag_error(r->d, r->path, "malformed ELF: symbol table links to section %u, not a "
                   "string table", s->link);
        return -1;
    }
    const struct elf_section *strtab = &obj->sections[s->link];

    obj->nsymbols = s->size / SYM_SIZE;
    obj->symbols = calloc(obj->nsymbols ? obj->nsymbols : 1, sizeof *obj->symbols);
    if (!obj->symbols) {
        diag_error(r->d, r->path, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < obj->nsymbols; i++) {
        const uint8_t *p = s->data + (size_t)i * SYM_SIZE;
        struct elf_symbol *sym = &obj->symbols[i];
        uint32_t name = be32(p);

        sym->value = be32(p + 4);
        sym->size = be32(p + 8);
        sym->bind = p[12] >> 4;
        sym->type = p[12] & 0xF;
        sym->shndx = be16(p + 14);
        sym->name = str_at(strtab, name);
        if (!sym->name) {
            diag_error(r->d, r->path, "malformed ELF: symbol %u has a bad name offset %u", i,
                       name);
            return -1;
        }
        if (sym->shndx == SHN_XINDEX) {
            diag_error(r->d, r->path, "malformed ELF: symbol '%s' uses extended section "
                       "indexes (not supported)", sym->name);
            return -1;
        }
        if (sym->shndx != SHN_UNDEF && sym->shndx < SHN_LORESERVE &&
            sym->shndx >= obj->nsections) {
            diag_error(r->d, r->path, "malformed ELF: symbol '%s' refers to section %u of %u",
                       sym->name, sym->shndx, obj->nsections);
            return -1;
        }
        if (sym->shndx >= SHN_LORESERVE && sym->shndx != SHN_ABS && sym->shndx != SHN_COMMON) {
            diag_error(r->d, r->path, "malformed ELF: symbol '%s' has unsupported special "
                       "section index 0x%x", sym->name, sym->shndx);
            return -1;
        }
    }
    return 0;
}

static int check_relocations(struct reader *r, const struct elf_object *obj, uint32_t symtab)
{
    for (uint32_t i = 0; i < obj->nsections; i++) {
        const struct elf_section *s = &obj->sections[i];

        if (s->type != SHT_RELA && s->type != SHT_REL)
            continue;
        if (s->info >= obj->nsections) {
            diag_error(r->d, r->path, "malformed ELF: relocation section '%s' applies to "
                       "section %u of %u", s->name, s->info, obj->nsections);
            return -1;
        }
        if (!(obj->sections[s->info].flags & SHF_ALLOC))
            continue; /* debug info and the like: not part of the image */
        if (s->type == SHT_REL) {
            diag_error(r->d, r->path, "relocation section '%s' is SHT_REL; LANai objects use "
                       "SHT_RELA only", s->name);
            return -1;
        }
        if (s->entsize != RELA_SIZE || s->size % RELA_SIZE != 0) {
            diag_error(r->d, r->path, "malformed ELF: relocation section '%s' entry size %u / "
                       "size %u", s->name, s->entsize, s->size);
            return -1;
        }
        if (s->size != 0 && (symtab == NO_SYMTAB || s->link != symtab)) {
            diag_error(r->d, r->path, "malformed ELF: relocation section '%s' does not link "
                       "to the symbol table", s->name);
            return -1;
        }
        for (uint32_t k = 0; k < elf_rela_count(s); k++) {
            struct elf_rela rel = elf_rela_get(s, k);
            if (rel.sym >= obj->nsymbols) {
                diag_error(r->d, r->path, "malformed ELF: relocation %u in '%s' uses symbol "
                           "%u of %u", k, s->name, rel.sym, obj->nsymbols);
                return -1;
            }
        }
    }
    return 0;
}

int elf_read(struct elf_object *obj, const char *path, const uint8_t *buf, size_t len,
             struct diag *d)
{
    struct reader r = {path, buf, len, d};
    uint32_t shoff, shnum = 0, shstrndx, symtab = NO_SYMTAB;

    memset(obj, 0, sizeof *obj);
    obj->path = path;
    if (check_header(&r, &shoff, &shnum, &shstrndx) != 0)
        return -1;
    if (shnum == 0)
        return 0;
    obj->nsections = shnum;
    obj->sections = calloc(shnum, sizeof *obj->sections);
    if (!obj->sections) {
        diag_error(d, path, "out of memory");
        return -1;
    }
    if (read_sections(&r, obj, shoff, shstrndx) != 0)
        goto fail;
    for (uint32_t i = 0; i < shnum; i++) {
        if (obj->sections[i].type == SHT_SYMTAB_SHNDX) {
            diag_error(d, path, "malformed ELF: extended symbol section indexes are not "
                       "supported");
            goto fail;
        }
        if (obj->sections[i].type != SHT_SYMTAB)
            continue;
        if (symtab != NO_SYMTAB) {
            diag_error(d, path, "malformed ELF: more than one symbol table");
            goto fail;
        }
        symtab = i;
    }
    if (symtab != NO_SYMTAB && read_symbols(&r, obj, symtab) != 0)
        goto fail;
    if (check_relocations(&r, obj, symtab) != 0)
        goto fail;
    return 0;
fail:
    elf_free(obj);
    return -1;
}

void elf_free(struct elf_object *obj)
{
    free(obj->sections);
    free(obj->symbols);
    obj->sections = NULL;
    obj->symbols = NULL;
    obj->nsections = obj->nsymbols = 0;
}

uint32_t elf_rela_count(const struct elf_section *s)
{
    return s->size / RELA_SIZE;
}

struct elf_rela elf_rela_get(const struct elf_section *s, uint32_t i)
{
    const uint8_t *p = s->data + (size_t)i * RELA_SIZE;
    uint32_t info = be32(p + 4);
    struct elf_rela rel = {be32(p), info >> 8, info & 0xFF, (int32_t)be32(p + 8)};
    return rel;
}
