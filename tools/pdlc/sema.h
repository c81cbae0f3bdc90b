/* Semantic checks for PDL: names, indexing, constant bounds, triggers; assigns data layout. */
#ifndef PDL_SEMA_H
#define PDL_SEMA_H

#include "ast.h"

void sema_check(struct program *prog, struct diag *d);

#endif
