/* pn_dev.c: opening a NIC's PANIC control area, and running one command through its mailbox:
 * take the mailbox lock (an SRAM word hosts CAS with their pid; a dead owner's lock is taken
 * over), write the data and the command by programmed I/O, bump cmd.seq, ring doorbell
 * HOSTIF_DOORBELL_PANIC, then wait for done.seq (lnic_wait_word, on host signal
 * HOSTIF_SIG_PANIC) until the firmware answers, the deadline of the process's time passes
 * (-ETIMEDOUT) or the NIC dies (-EPIPE). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pn_int.h"

#define LOCK_WAIT_NS 5000000000ll     /* another process's command runs at most this long */

int panic_open(const char *devname, struct panic_dev **out) {
  struct panic_dev *p = calloc(1, sizeof *p);
  if (!p) return -ENOMEM;
  int rc = lnic_open(devname, &p->nic);
  if (rc) {
    free(p);
    return rc;
  }
  if (p->nic->win.sram_size < HOSTIF_PANIC_BASE + sizeof(struct hostif_panic)) {
    panic_close(p);
    return -ENOTSUP;
  }
  p->area = (volatile struct hostif_panic *)(void *)(p->nic->win.sram + HOSTIF_PANIC_BASE);
  if (p->area->magic != HOSTIF_PANIC_MAGIC) {
    panic_close(p);
    return -ENOTSUP;
  }
  pthread_mutex_init(&p->lock, NULL);
  p->timeout_ns = 5000000000ll;
  *out = p;
  return 0;
}

void panic_close(struct panic_dev *p) {
  if (!p) return;
  if (p->nic) lnic_close(p->nic);
  free(p);
}

uint16_t panic_node(const struct panic_dev *p) { return (uint16_t)p->area->node; }
void panic_set_timeout(struct panic_dev *p, int64_t ns) { p->timeout_ns = ns > 0 ? ns : 1; }

static _Atomic uint32_t *lock_word(struct panic_dev *p) {
  return (_Atomic uint32_t *)(void *)&p->area->lock;
}

static int mailbox_take(struct panic_dev *p) {
  uint32_t me = (uint32_t)getpid();
  uint64_t end = lnic_now_ns() + LOCK_WAIT_NS;
  for (;;) {
    uint32_t cur = 0;
    if (atomic_compare_exchange_strong(lock_word(p), &cur, me)) return 0;
    if (cur == me) return -EDEADLK; /* another thread of ours: the mutex prevents this */
    if (kill((pid_t)cur, 0) != 0 && errno == ESRCH &&
        atomic_compare_exchange_strong(lock_word(p), &cur, me))
      return 0; /* its owner died holding it */
    if (lnic_now_ns() > end) return -EBUSY;
    if (lnic_alive(p->nic) != 0) return -EPIPE;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
}

static void mailbox_give(struct panic_dev *p) { atomic_store(lock_word(p), 0); }

int pn_command(struct panic_dev *p, struct hostif_panic_cmd *cmd, const void *data, size_t len,
               struct panic_res *res, struct hostif_panic_prog *out_list, unsigned max) {
  struct panic_res dummy;
  if (!res) res = &dummy;
  memset(res, 0, sizeof *res);
  if (len > HOSTIF_PANIC_DATA_MAX) return -E2BIG;
  pthread_mutex_lock(&p->lock);
  int rc = mailbox_take(p);
  if (rc) {
    pthread_mutex_unlock(&p->lock);
    return rc;
  }
  lnic_vt_call(p->nic); /* under nicd --timing the command is posted at this process's time */
  if (len) memcpy((void *)p->area->data, data, len);
  uint32_t seq = p->area->cmd.seq + 1;
  if (seq == p->area->done.seq) seq++; /* never equal to an old answer */
  p->area->cmd.op = cmd->op;
  p->area->cmd.node = cmd->node;
  p->area->cmd.prog = cmd->prog;
  p->area->cmd.trigger = cmd->trigger;
  p->area->cmd.len = (uint32_t)len;
  for (int i = 0; i < 4; i++) p->area->cmd.arg[i] = cmd->arg[i];
  __atomic_store_n(&p->area->cmd.seq, seq, __ATOMIC_RELEASE);
  rc = hwin_doorbell(&p->nic->win, HOSTIF_DOORBELL_PANIC, seq);
  if (rc == 0)
    rc = lnic_wait_word(p->nic, HOSTIF_SIG_PANIC, &p->area->done.seq, seq, p->timeout_ns, 10000000);
  if (rc == 0) {
    res->status = p->area->done.status;
    res->result = p->area->done.result;
    res->detail = p->area->done.detail;
    if (out_list) {
      unsigned n = res->detail < max ? res->detail : max;
      for (unsigned i = 0; i < n; i++) memcpy(&out_list[i], (const void *)&p->area->done.list[i], sizeof *out_list);
    }
    rc = -panic_status_errno(res->status);
  }
  mailbox_give(p);
  pthread_mutex_unlock(&p->lock);
  return rc;
}

const char *panic_status_name(uint32_t s) {
  static const char *const n[] = {"pending", "ok", "invalid argument", "no such program",
                                  "program id in use", "no space", "rejected by the verifier",
                                  "program not in a state for this", "busy",
                                  "remote NIC did not answer", "node unreachable",
                                  "handler aborted"};
  return s < sizeof n / sizeof n[0] ? n[s] : "unknown status";
}

int panic_status_errno(uint32_t s) {
  switch (s) {
  case HOSTIF_PANIC_OK: return 0;
  case HOSTIF_PANIC_EINVAL: return EINVAL;
  case HOSTIF_PANIC_ENOENT: return ENOENT;
  case HOSTIF_PANIC_EEXIST: return EEXIST;
  case HOSTIF_PANIC_ENOSPC: return ENOSPC;
  case HOSTIF_PANIC_EREJECT: return EBADMSG;
  case HOSTIF_PANIC_ESTATE: return EALREADY;
  case HOSTIF_PANIC_EBUSY: return EAGAIN;
  case HOSTIF_PANIC_ETIMEDOUT: return ETIMEDOUT;
  case HOSTIF_PANIC_EUNREACH: return EHOSTUNREACH;
  case HOSTIF_PANIC_EABORT: return ECANCELED;
  default: return EPROTO;
  }
}
