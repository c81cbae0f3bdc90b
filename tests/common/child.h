/* child.h: the end-to-end tests' helper processes: fork one that runs a function and exits
 * with its result, and reap it with a status check. */
#ifndef CHILD_H
#define CHILD_H

#include <sys/types.h>

/* Forks a child that exits with fn(to, from) through exit(), not _exit(), so that exit
 * hooks run (libnic's releases the child's VIs and memory). Its pid, or -1. */
pid_t run_child(int (*fn)(int to, int from), int to, int from);
/* Reaps p: 0 if it exited with status 0, else 1, printing "WHO: exit N" or "WHO: signal N"
 * on stderr. */
int wait_child(pid_t p, const char *who);

#endif
