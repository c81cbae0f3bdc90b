/* Writers for the linker's outputs: the flat SRAM image, the map file, the size table,
 * and (for disassembly and debugging) an ELF executable of the same image. */
#ifndef LANAI_LD_IMAGE_H
#define LANAI_LD_IMAGE_H

#include <stdio.h>

#include "link.h"

int image_write_flat(const struct link *l, FILE *f);
int image_write_map(const struct link *l, const char *image_name, FILE *f);
void image_print_sizes(const struct link *l, FILE *f);
int image_write_elf(const struct link *l, FILE *f);

#endif
