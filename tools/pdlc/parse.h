/* PDL recursive-descent parser: source text to AST, with error recovery at statements. */
#ifndef PDL_PARSE_H
#define PDL_PARSE_H

#include "ast.h"

/* Returns the program, never NULL; it is only complete when *syntax_errors is 0 (other
 * errors, such as a bad address byte, leave a usable tree for semantic checks). */
struct program *parse_program(struct diag *d, struct arena *a, int *syntax_errors);

#endif
