/* fv_panic.c: the PANIC peers of the fault suite. Role 0 (NIC 0) attaches segment 3, loads
 * and runs fsink.pdl on its NIC and takes the numbers the program appends to the segment,
 * checking each; role 1 (NIC 1) sends numbered messages to that program with remote
 * panic_send, each returning once the program's handler ran. PANIC has no connections: a
 * program on a NIC outlives the process that loaded it, so a sender whose receiver process
 * died rightly goes on, and a receiver learns of a dead sender only by waiting in vain (its
 * wait has a 500 ms limit, the error it reports). A dead nicd must end every call at once. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "faults.h"
#include "panic.h"

#define PROG_ID 7
#define SEG_ID  3
#define WAIT_NS 500000000ll

static char module[200];

int fv_panic_prepare(const char *tmpdir) {
  snprintf(module, sizeof module, "%s/fsink.pvm", tmpdir);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s -o %s tests/faults/fsink.pdl",
           getenv("PDLC") ? getenv("PDLC") : "build/bin/pdlc", module);
  return system(cmd) == 0 ? 0 : -1;
}

static void receiver(struct fshared *s) {
  struct panic_dev *p;
  struct panic_seg *sg = NULL;
  struct panic_res r;
  if (panic_open(fnicd_dev(0), &p) != 0) {
    fs_broken(s, 0, "panic_open failed");
    return;
  }
  uint16_t me = panic_node(p);
  panic_unload(p, me, PROG_ID, &r);   /* a program outlives a receiver killed before: replace it */
  if (panic_seg_create(p, SEG_ID, 4096, HOSTIF_PANIC_SEG_SYNC, &sg) != 0 ||
      panic_load_file(p, me, PROG_ID, module, &r) != 0 || panic_run(p, me, PROG_ID, &r) != 0) {
    fs_broken(s, 0, "PANIC set-up failed");
    if (sg) panic_seg_destroy(sg);
    panic_close(p);
    return;
  }
  fs_phase(s, 0, PH_CONNECT);
  fs_phase(s, 0, PH_STREAM);
  volatile uint32_t *w = panic_seg_base(sg);
  uint64_t seen = 0;
  while (seen < s->total) {
    panic_flag_clear(sg, 0);
    uint32_t count = __atomic_load_n(&w[15], __ATOMIC_ACQUIRE);
    if (count > s->total) {
      atomic_store(&s->bad, 1);
      fs_broken(s, 0, "count %u beyond the %llu sent", count, (unsigned long long)s->total);
      break;
    }
    for (; seen < count; seen++) {
      if (w[16 + seen] != seen) {
        atomic_store(&s->bad, 1);
        fs_broken(s, 0, "entry %llu holds %u", (unsigned long long)seen, w[16 + seen]);
        goto out;
      }
      atomic_store(&s->recvd, seen + 1);
    }
    if (seen == s->total) break;
    uint32_t v;
    if (panic_flag_wait(sg, 0, WAIT_NS, &v) != 0) {
      fs_error(s, 0);
      break;
    }
  }
  if (seen == s->total) {
    fs_phase(s, 0, PH_CLOSE);
    if (panic_unload(p, me, PROG_ID, &r) != 0) fs_error(s, 0);
  }
out:
  panic_seg_destroy(sg);
  panic_close(p);
}

static void sender(struct fshared *s) {
  while (atomic_load(&s->phase[0]) < PH_CONNECT && atomic_load(&s->result[0]) == FR_RUNNING) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  struct panic_dev *p;
  if (panic_open(fnicd_dev(1), &p) != 0) {
    fs_error(s, 1);
    return;
  }
  fs_phase(s, 1, PH_CONNECT);
  fs_phase(s, 1, PH_STREAM);
  struct panic_res r;
  for (uint32_t seq = 0; seq < s->total; seq++) {
    if (panic_send(p, 0, PROG_ID, 1, &seq, sizeof seq, &r) != 0) {
      fs_error(s, 1);
      break;
    }
    atomic_fetch_add(&s->sent_done, 1);
  }
  fs_phase(s, 1, PH_CLOSE);
  panic_close(p);
}

void fv_panic_peer(int role, struct fshared *s) {
  if (role == 0) receiver(s);
  else sender(s);
  int running = FR_RUNNING;
  atomic_compare_exchange_strong(&s->result[role], &running, FR_FINISHED);
  fs_phase(s, role, PH_DONE);
}
