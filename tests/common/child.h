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
/* Plays one scenario of a two-process test: forks server(sc, to, from) and client(sc, to, from)
 * joined by two pipes (each child keeps only its own ends, so a peer that exits is seen as end
 * of file and a failing scenario ends instead of hanging), and reaps both: rc[0] and rc[1] are
 * wait_child's results for the server and the client. */
void run_pair(int (*server)(int sc, int to, int from), int (*client)(int sc, int to, int from),
              int sc, int rc[2]);

#endif
