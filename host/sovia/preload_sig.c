/* preload_sig.c: signals for the shim. The kernel ends a blocking accept/recv/send (and any
 * poll) with EINTR when a handler without SA_RESTART runs; SOVIA's waits happen in user space,
 * so the shim puts its own handler in front of the application's, counts such signals, and
 * SOVIA's waits return EINTR when the count moves (sovia_set_signal_probe); poll and its kin
 * at any handled signal, SA_RESTART or not (the kernel never restarts them). Intercepted:
 * sigaction and signal (which asks for SA_RESTART, as glibc's does). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "preload.h"
#include "sovia.h"

PL_REAL(int, sigaction, int, const struct sigaction *, struct sigaction *)

static struct sigaction user[NSIG];   /* the application's, as it gave them */
static _Atomic unsigned interrupts, handled;
static atomic_bool any_handler;        /* the application ever gave a handler */

static unsigned count(int all) { return atomic_load(all ? &handled : &interrupts); }

bool pl_signals_handled(void) { return atomic_load_explicit(&any_handler, memory_order_relaxed); }
__attribute__((constructor)) static void sig_init(void) { sovia_set_signal_probe(count); }

static void front(int sig, siginfo_t *si, void *uc) {
  int e = errno;
  const struct sigaction *u = &user[sig];
  if (!(u->sa_flags & SA_RESTART)) atomic_fetch_add(&interrupts, 1);
  atomic_fetch_add(&handled, 1);
  errno = e;
  if (u->sa_flags & SA_SIGINFO) u->sa_sigaction(sig, si, uc);
  else if (u->sa_handler != SIG_IGN && u->sa_handler != SIG_DFL) u->sa_handler(sig);
}

static bool wraps(int sig, const struct sigaction *a) {
  return sig > 0 && sig < NSIG && sig != SIGSEGV && sig != SIGBUS && a &&
         !(a->sa_flags & SA_SIGINFO ? a->sa_sigaction == NULL
                                    : a->sa_handler == SIG_IGN || a->sa_handler == SIG_DFL);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (sovia_vfork_child()) return PL_CALL(sigaction)(sig, act, old);   /* the table is the parent's */
  struct sigaction prev_user = sig > 0 && sig < NSIG ? user[sig] : (struct sigaction){0};
  struct sigaction mine;
  const struct sigaction *give = act;
  if (wraps(sig, act)) {
    mine = *act;
    mine.sa_flags |= SA_SIGINFO;
    mine.sa_sigaction = front;
    give = &mine;
    atomic_store(&any_handler, true);
  }
  int r = PL_CALL(sigaction)(sig, give, old);
  if (r == 0 && sig > 0 && sig < NSIG) {
    if (old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction == front) *old = prev_user;
    if (act) user[sig] = *act;
  }
  return r;
}

sighandler_t signal(int sig, sighandler_t h) {
  struct sigaction a, o;
  memset(&a, 0, sizeof a);
  a.sa_handler = h;
  a.sa_flags = SA_RESTART;
  sigemptyset(&a.sa_mask);
  sigaddset(&a.sa_mask, sig);
  if (sigaction(sig, &a, &o) != 0) return SIG_ERR;
  return (o.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)o.sa_sigaction : o.sa_handler;
}
