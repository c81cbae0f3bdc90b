/* sema.h: semantic analysis. Resolves every name, evaluates constant expressions in both worlds
 * (firmware and model), and checks the rules of esm/README.md. After it succeeds the tree is
 * fully annotated (see ast.h: sym, *_v, owner, id, index, target, env). */
#ifndef ESM_SEMA_H
#define ESM_SEMA_H

#include "ast.h"

/* Returns the number of errors reported (0: the system may be handed to the backends). */
int sema_check(System *sys, const char *default_name);

/* Helpers shared by the backends. */
Machine *find_machine(System *sys, const char *name);
int machine_count(System *sys, int env);           /* firmware (env 0) or environment (1) */
/* Machines with an `on acquire` of r, in machine id order; returns the count. */
int resource_users(System *sys, Resource *r, Machine **out, int max);

#endif
