/* Error reporting for lanai-ld: "lanai-ld: <file>: error: <message>" on stderr. */
#ifndef LANAI_LD_DIAG_H
#define LANAI_LD_DIAG_H

struct diag {
    int errors;     /* errors reported so far */
    int quiet;      /* count and format, but print nothing (used by the fuzzer) */
    char last[256]; /* the most recent message, without the prefix */
};

/* file may be NULL for errors that belong to no input file. */
void diag_error(struct diag *d, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
