/* parse.h: the recursive-descent parser for ESM. Several files may form one system; each
 * call adds one file's declarations to it. */
#ifndef ESM_PARSE_H
#define ESM_PARSE_H

#include "ast.h"

/* Parses one source text into sys (created on the first call when *sys is NULL).
 * Syntax errors are reported through diag and parsing resumes at the next declaration. */
void parse_source(System **sys, const char *file, const char *text);

#endif
