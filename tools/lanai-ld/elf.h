/* Reader for ELF32 big-endian relocatable LANai objects. Every offset, size and index in
 * the file is checked against the buffer before use; after elf_read succeeds, callers can
 * index sections, symbols and relocations without further bounds checks. */
#ifndef LANAI_LD_ELF_H
#define LANAI_LD_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define EM_LANAI 244

enum {
    SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4,
    SHT_NOTE = 7, SHT_NOBITS = 8, SHT_REL = 9, SHT_INIT_ARRAY = 14, SHT_FINI_ARRAY = 15,
    SHT_PREINIT_ARRAY = 16, SHT_SYMTAB_SHNDX = 18,
};
enum { SHF_WRITE = 0x1, SHF_ALLOC = 0x2, SHF_EXECINSTR = 0x4, SHF_TLS = 0x400 };
enum { SHN_UNDEF = 0, SHN_LORESERVE = 0xFF00, SHN_ABS = 0xFFF1, SHN_COMMON = 0xFFF2,
       SHN_XINDEX = 0xFFFF };
enum { STB_LOCAL = 0, STB_GLOBAL = 1, STB_WEAK = 2 };
enum { STT_NOTYPE = 0, STT_OBJECT = 1, STT_FUNC = 2, STT_SECTION = 3, STT_FILE = 4 };

struct elf_section {
    const char *name;
    uint32_t type, flags, offset, size, link, info, align, entsize;
    const uint8_t *data; /* the section's bytes in the file; NULL for SHT_NOBITS/SHT_NULL */
};

struct elf_symbol {
    const char *name;
    uint32_t value, size;
    uint8_t bind, type;
    uint16_t shndx;
};

struct elf_rela {
    uint32_t offset, sym, type;
    int32_t addend;
};

struct elf_object {
    const char *path;
    uint32_t nsections;
    struct elf_section *sections;
    uint32_t nsymbols;
    struct elf_symbol *symbols;
};

/* Parses buf (which must outlive obj: names point into it). Returns 0, or -1 after
 * reporting "malformed" errors through d. */
int elf_read(struct elf_object *obj, const char *path, const uint8_t *buf, size_t len,
             struct diag *d);
void elf_free(struct elf_object *obj);

uint32_t elf_rela_count(const struct elf_section *s);
struct elf_rela elf_rela_get(const struct elf_section *s, uint32_t i);

uint32_t be32(const uint8_t *p);
void put_be32(uint8_t *p, uint32_t v);

#endif
