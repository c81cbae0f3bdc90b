/* preload_exit.c: a process's end through _exit/_Exit. The kernel still sends what a TCP
 * socket holds when its process ends without exit()'s handlers (python's os._exit, the
 * children of forking servers, a handler's _exit); SOVIA's queued data and closes live in
 * the process, so the shim finishes them here first, as exit() does (sovia_exit_finish). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"
#include "sovia.h"

static _Noreturn void end(int status) {
  sovia_exit_finish();
  for (;;) syscall(SYS_exit_group, status);
}

void _exit(int status) { end(status); }
void _Exit(int status) { end(status); }
