/* pdlc library interface: compile PDL, assemble PANIC VM assembly, disassemble modules.
 * Used by the pdlc command, the conformance runner and the fuzz targets. */
#ifndef PDLC_H
#define PDLC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "module.h"

/* Compiles src; diagnostics go to diag. Returns the error count; the module image is
 * appended to image only when it is 0. */
int pdlc_compile(const char *file, const char *src, size_t len, FILE *diag, struct buf *image);

/* pdlc_compile with flags: PDLC_NO_FUSE emits only the basic stack instructions, none of the
 * fused forms (FORMAT.md), which the fuzz target compares against and `pdlc --no-fuse` offers. */
#define PDLC_NO_FUSE 1u
int pdlc_compile_ex(const char *file, const char *src, size_t len, FILE *diag, struct buf *image,
                    unsigned flags);

/* Assembles PANIC VM assembly (see asm.c); same conventions as pdlc_compile. */
int pdlc_assemble(const char *file, const char *src, size_t len, FILE *diag, struct buf *image);

/* Prints header, trigger table and instructions of a module image. Returns 0 if it decoded. */
int pdlc_disasm(const uint8_t *img, size_t len, FILE *out);

#endif
