/* Code generation: checked AST to a PANIC VM module. */
#ifndef PDL_CODEGEN_H
#define PDL_CODEGEN_H

#include "ast.h"
#include "module.h"

void codegen(const struct program *prog, struct diag *d, struct module *m);

#endif
