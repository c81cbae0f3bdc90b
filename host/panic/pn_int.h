/* pn_int.h: libpanic's internals shared by its files. */
#ifndef PN_INT_H
#define PN_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "libnic.h"
#include "panic.h"

struct panic_dev {
  struct lnic_dev *nic;
  volatile struct hostif_panic *area;   /* the PANIC control area in the mapped SRAM */
  pthread_mutex_t lock;                 /* one command at a time from this process */
  int64_t timeout_ns;
};

struct panic_seg {
  struct panic_dev *p;
  unsigned id;
  void *base;
  size_t len;
  int mr;
  uint32_t ptag;
  bool sync;                            /* it has the lock/flag block */
};

/* Runs one command through the mailbox: cmd fields (seq is set here), data copied into the
 * mailbox's data area first; the answer in *res (and done.list when out_list is non-NULL). */
int pn_command(struct panic_dev *p, struct hostif_panic_cmd *cmd, const void *data, size_t len,
               struct panic_res *res, struct hostif_panic_prog *out_list, unsigned max);

#endif
