/* Code generation: checked AST to a PANIC VM module. */
#ifndef PDL_CODEGEN_H
#define PDL_CODEGEN_H

#include <stdbool.h>

#include "ast.h"
#include "module.h"

/* fuse: use the VM's fused instructions where the source has their shape (codegen.c). */
void codegen(const struct program *prog, struct diag *d, struct module *m, bool fuse);

#endif
