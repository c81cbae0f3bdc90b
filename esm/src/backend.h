/* backend.h: the code generators. Each writes its files into outdir and returns 0, or reports
 * an error (naming the file) and returns -1. All output is deterministic. */
#ifndef ESM_BACKEND_H
#define ESM_BACKEND_H

#include "ast.h"

int gen_pml(System *sys, const char *outdir);   /* SYS.pml */
int gen_c(System *sys, const char *outdir);     /* SYS.h/.c, SYS_hal.h, SYS_M.h/.c */
int gen_dot(System *sys, const char *outdir);   /* SYS_M.dot */

/* esmc --trail MODEL.pml [SPIN-OUTPUT]: prints a Spin counterexample in ESM terms. */
int trail_main(int argc, char **argv);

#endif
