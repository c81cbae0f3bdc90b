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

void run_pair(int (*server)(int sc, int to, int from), int (*client)(int sc, int to, int from),
              int sc, int rc[2]) {
  int s2c[2], c2s[2];   /* server to client, client to server */
  if (pipe(s2c) != 0 || pipe(c2s) != 0) {
    rc[0] = rc[1] = 1;
    return;
  }
  pid_t s = fork();
  if (s == 0) {
    close(c2s[1]), close(s2c[0]);
    exit(server(sc, s2c[1], c2s[0]));
  }
  pid_t c = fork();
  if (c == 0) {
    close(s2c[1]), close(c2s[0]);
    exit(client(sc, c2s[1], s2c[0]));
  }
  close(s2c[0]), close(s2c[1]), close(c2s[0]), close(c2s[1]);
  rc[0] = wait_child(s, "server");
  rc[1] = wait_child(c, "client");
}
