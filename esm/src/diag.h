/* diag.h: compiler diagnostics as `file:line:col: error: message`, followed by the source
 * line and a caret under the column. Errors are counted, not fatal, so one run reports many. */
#ifndef ESM_DIAG_H
#define ESM_DIAG_H

#include "util.h"

/* Registers a source text so diagnostics can quote its lines. */
void diag_add_source(const char *file, const char *text);
void error_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warning_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_at(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int diag_error_count(void);
void diag_reset(void);
/* When set, diagnostics go nowhere (the fuzzer uses this); they are still counted. */
void diag_set_quiet(int quiet);

#endif
