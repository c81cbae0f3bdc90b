/* child.c: forking and reaping the tests' helper processes (child.h). */
#define _GNU_SOURCE
#include "child.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t run_child(int (*fn)(int to, int from), int to, int from) {
  pid_t p = fork();
  if (p == 0) exit(fn(to, from));
  return p;
}

int wait_child(pid_t p, const char *who) {
  int st = 0;
  if (p <= 0 || waitpid(p, &st, 0) != p) {
    fprintf(stderr, "%s: no such child\n", who);
    return 1;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  fprintf(stderr, "%s: %s %d\n", who, WIFEXITED(st) ? "exit" : "signal",
          WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  return 1;
}
