/* Error reporting for lanai-ld. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

/* A broken object can produce one error per relocation; the first few tell the story. */
#define DIAG_MAX_PRINTED 50

void diag_error(struct diag *d, const char *file, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(d->last, sizeof d->last, fmt, ap);
    va_end(ap);
    d->errors++;
    if (d->quiet || d->errors > DIAG_MAX_PRINTED)
        return;
    if (file)
        fprintf(stderr, "lanai-ld: %s: error: %s\n", file, d->last);
    else
        fprintf(stderr, "lanai-ld: error: %s\n", d->last);
    if (d->errors == DIAG_MAX_PRINTED)
        fprintf(stderr, "lanai-ld: error: too many errors, not printing the rest\n");
}
