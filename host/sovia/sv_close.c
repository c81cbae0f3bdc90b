/* sv_close.c: closing. close() returns at once (Sockets semantics); the connection, now an
 * orphan, still has to send what is queued, then its FIN when a credit is free, and keep
 * taking (and acknowledging) packets until FIN and FINACK have crossed both ways (conn.esm).
 * Since no application call will come for it, the close thread does that (paper section 4.3);
 * it also fires the combining timer of connections whose application is busy elsewhere
 * (taking their completions first, so that data combined before the peer's WAKEUP came goes
 * once it is in). It sleeps on a condition variable until the next combining deadline (200 us
 * steps while an orphan or such data needs progress), is woken by sv_closer_kick (not for a
 * combining slot it will look at in time anyway), and exits after a second without work
 * (not at once: combining would start a thread per small send). At exit (and at _exit
 * through the shim), the process closes its sockets and finishes every close (at most
 * SOVIA_LINGER_MS, default 5000) as a kernel would after the last close; a timer kills the
 * process if that ever takes a second longer. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sv_int.h"

static pthread_cond_t kick;
static bool kick_ready, closer_stop;
/* While the close thread sleeps: when it wakes (0 while it runs or does not exist). Combining
 * slots opened since its last pass (comb_opened != comb_seen) keep it waking every
 * comb_period, so that a slot opened meanwhile is due no earlier than its next look and the
 * sender need not wake it: a wake-up per small send cost SOVIA_COMBINE's ping-pong two
 * context switches per message. */
static uint64_t closer_until, comb_period;
static unsigned comb_opened, comb_seen;

static bool work_left(void) {
  for (struct sv_conn *c = G.conns; c; c = c->next)
    if (sv_usable(c) && (c->orphan || c->comb >= 0 || (c->sq_len && !c->hello))) return true;
  return false;
}

#define ORPHAN_STEP_NS 200000ull
#define IDLE_EXIT_NS 1000000000ull

static void *closer_main(void *arg) {
  (void)arg;
  sv_lock();
  uint64_t idle_since = sv_now_ns();
  for (;;) {
    uint64_t now = sv_now_ns(), next = now + 100000000ull;
    for (struct sv_conn *c = G.conns, *nx; c; c = nx) {
      nx = c->next;
      if (!sv_usable(c)) continue;
      if (c->orphan) {
        sv_progress(c);     /* may free c */
        if (next > now + ORPHAN_STEP_NS) next = now + ORPHAN_STEP_NS;
      } else if (c->comb >= 0 && now >= c->comb_deadline) {
        sv_comb_flush(c);
        sv_progress(c);     /* the peer's WAKEUP or ACK may be waiting: then it goes now */
        if (c->sq_len && !c->hello && next > now + ORPHAN_STEP_NS) next = now + ORPHAN_STEP_NS;
      } else if (c->comb >= 0 && c->comb_deadline < next) {
        next = c->comb_deadline;
      } else if (c->comb < 0 && c->sq_len && !c->hello) {
        /* combined data flushed before the peer's WAKEUP: it goes once that is in, without
         * waiting for the application's next call */
        sv_progress(c);
        if (c->sq_len && !c->hello && next > now + ORPHAN_STEP_NS) next = now + ORPHAN_STEP_NS;
      }
    }
    sv_conn_reap();
    if (closer_stop) break;
    if (comb_opened != comb_seen) {   /* combining goes on: look again within a period */
      comb_seen = comb_opened;
      if (next > now + comb_period) next = now + comb_period;
      idle_since = now;
    }
    if (work_left()) idle_since = now;
    else if (now - idle_since >= IDLE_EXIT_NS) break;
    struct timespec ts = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
    closer_until = next;
    pthread_cond_timedwait(&kick, &G.mu, &ts);
    closer_until = 0;
  }
  closer_until = 0;
  G.closer_running = false;
  sv_unlock();
  return NULL;
}

/* The child of a fork: the condition variable may hold the parent's waiting close thread. */
void sv_closer_forked(void) {
  kick_ready = false;
  closer_until = 0;
  closer_stop = false;
  G.closer_running = false;
}

void sv_closer_kick(void) {
  if (!kick_ready) {        /* the condition variable waits on CLOCK_MONOTONIC, as sv_now_ns */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&kick, &ca);
    pthread_condattr_destroy(&ca);
    kick_ready = true;
  }
  if (G.closer_running) {
    pthread_cond_signal(&kick);
    return;
  }
  if (lnic_thread_start(&G.closer, true, closer_main, NULL) == 0) G.closer_running = true;
}

void sv_closer_comb(uint64_t deadline, uint64_t period_ns) {
  comb_opened++;
  comb_period = period_ns;
  if (G.closer_running && closer_until && closer_until <= deadline) return;   /* it looks by then */
  sv_closer_kick();
}

void sv_conn_close(struct sv_conn *c) {
  if (sv_rx_pending(c)) c->reset_wanted = true;   /* closed with data unread: TCP resets */
  c->app_closed = true;
  c->orphan = true;
  c->fin_wanted = true;
  sv_comb_flush(c);
  sv_progress(c);      /* may free c */
  if (work_left()) sv_closer_kick();
}

static bool all_closed(void *arg) {
  (void)arg;
  for (struct sv_conn *c = G.conns; c; c = c->next)
    if (c->orphan && sv_usable(c)) return false;
  return true;
}

/* A bound on the whole of it: a process can end from a signal handler that interrupted
 * code holding a lock SOVIA also needs (malloc's); it must still end. */
#define EXIT_SLACK_MS 1000

static bool end_bound(timer_t *t, uint64_t ms) {
  struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGKILL};
  struct itimerspec its = {.it_value = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L}};
  if (timer_create(CLOCK_MONOTONIC, &ev, t) != 0) return false;
  if (timer_settime(*t, 0, &its, NULL) == 0) return true;
  timer_delete(*t);
  return false;
}

void sovia_exit_finish(void) {
  static atomic_bool done;
  if (sovia_vfork_child() || atomic_exchange(&done, true)) return;   /* its parent's, not its */
  /* A process that never used SOVIA (any program the shim is preloaded into) has nothing to
   * finish, and takes no lock or timer on its way out. */
  if (!G.ready) return;
  /* The end from a signal handler that interrupted a SOVIA call of this thread: its state is
   * half-changed and its lock this thread's. Nothing is closed in order; nicd breaks the
   * connections once the process is gone, so the peers still learn of it. */
  if (sv_lock_mine()) return;
  const char *l = getenv("SOVIA_LINGER_MS");
  uint64_t ms = l && *l ? strtoull(l, NULL, 10) : 5000;
  timer_t bound;
  bool armed = end_bound(&bound, ms + EXIT_SLACK_MS);
  for (int fd = 0; fd < SV_MAXFD; fd++)
    if (G.socks[fd]) sovia_close(fd);
  sv_lock();
  if (G.ready) sv_wait(all_closed, NULL, sv_now_ns() + ms * 1000000ull);
  closer_stop = true;       /* the close thread must not run on into the rest of exit */
  if (G.closer_running) pthread_cond_signal(&kick);
  for (int i = 0; i < 1000 && G.closer_running; i++) {
    sv_unlock();
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
    sv_lock();
  }
  if (G.ready) {
    sv_conn_reap();
    sv_conn_pool_drain();
  }
  sv_unlock();
  if (armed) timer_delete(bound);
}

__attribute__((constructor)) static void sv_register_exit(void) { atexit(sovia_exit_finish); }
