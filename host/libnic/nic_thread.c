/* nic_thread.c: the host libraries' own threads (libnic's drainer, VIPL's notification and
 * peer-connection threads, SOVIA's helpers and its shim's) start with every asynchronous
 * signal blocked. The kernel gives a signal sent to the process to any thread that does not
 * block it, so an application's handler would otherwise run on a library thread, beside the
 * application's own code: PostgreSQL's postmaster blocks signals except around select() and
 * forks in its SIGCHLD handler, which then ran twice at once and crashed. */
#define _GNU_SOURCE
#include <signal.h>

#include "libnic.h"

void lnic_async_signals(sigset_t *set) {
  sigfillset(set);
  /* raised by the faulting instruction itself: blocked, the kernel would kill the process
   * before a sanitizer's handler could say where */
  static const int sync_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
  for (unsigned i = 0; i < sizeof sync_sigs / sizeof sync_sigs[0]; i++) sigdelset(set, sync_sigs[i]);
}

int lnic_thread_start(pthread_t *t, bool detached, void *(*fn)(void *), void *arg) {
  sigset_t held, old;
  lnic_async_signals(&held);
  pthread_sigmask(SIG_BLOCK, &held, &old);   /* the new thread inherits the creator's mask */
  pthread_attr_t at;
  int rc = pthread_attr_init(&at);
  if (rc == 0) {
    if (detached) pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    rc = pthread_create(t, &at, fn, arg);
    pthread_attr_destroy(&at);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}
