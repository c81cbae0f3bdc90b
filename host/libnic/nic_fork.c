/* fork() with libnic's threads: a process's open NICs, and the device locks taken across a
 * fork. Another thread (the L1 drainer, a SOVIA connection thread) may hold a device's lock
 * at the instant a thread forks; the child would inherit it locked by a thread it does not
 * have, and its first call would wait forever (a socat fork child hung in SOVIA's fork handler
 * this way). So the forking thread takes every device lock before fork() and both processes
 * release them after; the child also forgets the drainer thread, which it does not have.
 * The handlers are registered before any library that calls libnic under a lock of its own
 * (SOVIA's, registered by a plain constructor): prepare handlers run in the reverse order, so
 * SOVIA's lock is taken before the devices', the order of every call into libnic. */
#include <pthread.h>

#include "nic_internal.h"

#define MAX_DEVS 16

static pthread_mutex_t devs_mu = PTHREAD_MUTEX_INITIALIZER;
static struct lnic_dev *devs[MAX_DEVS];

void lnic_fork_track(struct lnic_dev *d) {
  pthread_mutex_lock(&devs_mu);
  for (int i = 0; i < MAX_DEVS; i++)
    if (!devs[i]) {
      devs[i] = d;
      break;
    }
  pthread_mutex_unlock(&devs_mu);
}

void lnic_fork_untrack(struct lnic_dev *d) {
  pthread_mutex_lock(&devs_mu);
  for (int i = 0; i < MAX_DEVS; i++)
    if (devs[i] == d) devs[i] = NULL;
  pthread_mutex_unlock(&devs_mu);
}

/* Raw mutex calls: lnic_lock would charge timing mode's virtual time for a fork. */
static void prepare(void) {
  pthread_mutex_lock(&devs_mu);
  for (int i = 0; i < MAX_DEVS; i++)
    if (devs[i]) pthread_mutex_lock(&devs[i]->lock);
}

static void parent(void) {
  for (int i = MAX_DEVS - 1; i >= 0; i--)
    if (devs[i]) pthread_mutex_unlock(&devs[i]->lock);
  pthread_mutex_unlock(&devs_mu);
}

static void child(void) {
  for (int i = MAX_DEVS - 1; i >= 0; i--) {
    struct lnic_dev *d = devs[i];
    if (!d) continue;
    d->drainer_running = d->drainer_idle = false;   /* the thread stayed in the parent */
    pthread_cond_init(&d->drain_cond, NULL);          /* its waiter with it */
    pthread_mutex_unlock(&d->lock);
  }
  pthread_mutex_unlock(&devs_mu);
}

__attribute__((constructor(101))) static void fork_register(void) {
  pthread_atfork(prepare, parent, child);
}
