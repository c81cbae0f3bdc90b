/* udpwake.c: nicd's loop sleeps on futexes (iface/wait.h), which a UDP socket cannot wake. A
 * thread polls the socket instead and, when a datagram is there, raises db_pending of a
 * register page of its own that the loop waits on with the NICs' windows, then waits until
 * the loop took it (udpwake_take, after which the loop drains the socket) before it polls
 * again: one wake-up per batch of datagrams, no spinning on a socket the loop has not read. */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "futex.h"
#include "nicd.h"
#include "wait.h"
#include "window.h"

static struct hw_regs *R;
static int Fd = -1;
static pthread_t thr;
static bool running;

static void *watch(void *arg) {
  (void)arg;
  while (!nicd_stop) {
    if (atomic_load(&R->db_pending)) {   /* the loop has not taken the last one yet */
      futex_wait(&R->db_pending, 1, 100000000);
      continue;
    }
    struct pollfd p = {.fd = Fd, .events = POLLIN};
    if (poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
      atomic_store(&R->db_pending, 1);
      wait_wake_nic(R);
    }
  }
  return NULL;
}

int udpwake_start(int fd, struct hw_regs **regs) {
  R = calloc(1, sizeof *R);
  if (!R) return -1;
  Fd = fd;
  sigset_t s, old;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  pthread_sigmask(SIG_BLOCK, &s, &old);
  int rc = pthread_create(&thr, NULL, watch, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc) {
    free(R);
    R = NULL;
    return -1;
  }
  running = true;
  *regs = R;
  return 0;
}

bool udpwake_take(struct hw_regs *regs) {
  if (!atomic_load_explicit(&regs->db_pending, memory_order_relaxed)) return false;
  atomic_store(&regs->db_pending, 0);
  futex_wake(&regs->db_pending);
  return true;
}

void udpwake_stop(void) {
  if (!running) return;
  pthread_join(thr, NULL);
  free(R);
  R = NULL;
  running = false;
}
