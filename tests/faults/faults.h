/* faults.h: the fault suite's shared parts. A restartable private nicd (fnicd_*: the same run
 * directory and window names every time, so a restart after SIGKILL is a real takeover of what
 * the dead nicd left), the record two peer processes keep in shared memory (so it survives
 * the one that is killed), and the peers of each library (fv_vipl.c, fv_sovia.c, fv_panic.c)
 * that stream numbered, patterned data and record what they delivered and when they saw an
 * error. */
#ifndef FAULTS_H
#define FAULTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- nicd ---- */
pid_t fnicd_start(void);        /* two NICs; waits until they serve; -1 on failure */
void fnicd_kill(pid_t p);       /* SIGKILL, reaped; nothing cleaned up (a restart must cope) */
void fnicd_stop(pid_t p);       /* SIGTERM and cleanup of the run directory */
const char *fnicd_dev(int i);   /* window name of NIC i */
const char *fnicd_run(void);    /* run directory (VERINIC_RUN) */
uint64_t fnow_ns(void);          /* CLOCK_MONOTONIC, comparable across processes */

/* ---- what the peers record ---- */
enum fphase { PH_START, PH_CONNECT, PH_STREAM, PH_CLOSE, PH_DONE };
enum fresult { FR_RUNNING, FR_FINISHED, FR_ERROR, FR_BROKEN };

struct fshared {
  _Atomic int phase[2];            /* per role: enum fphase */
  _Atomic int result[2];           /* enum fresult; FR_BROKEN: a failure the test rejects */
  _Atomic uint64_t err_ns[2];      /* when the role's call returned its first error */
  _Atomic uint64_t sent_done;      /* messages (bytes for SOVIA) the sender saw complete */
  _Atomic uint64_t recvd;          /* messages (bytes) the receiver took, checked */
  _Atomic int bad;                 /* duplicated, reordered or corrupted data seen */
  uint64_t total;                  /* messages (bytes) the sender will send */
  unsigned seed;
  unsigned port;                   /* SOVIA: this run's port */
  char why[2][160];                /* what went wrong, for FR_BROKEN */
};

/* Role 0 receives on NIC 0 (server), role 1 sends on NIC 1 (client). */
typedef void (*fpeer_fn)(int role, struct fshared *s);
void fv_vipl_peer(int role, struct fshared *s);
void fv_sovia_peer(int role, struct fshared *s);
void fv_panic_peer(int role, struct fshared *s);
/* fv_panic.c needs its program compiled once, before the peers fork. 0 or -1. */
int fv_panic_prepare(const char *tmpdir);

/* Helpers for the peers. */
void fs_phase(struct fshared *s, int role, enum fphase p);
void fs_error(struct fshared *s, int role);                       /* FR_ERROR, time noted */
void fs_broken(struct fshared *s, int role, const char *fmt, ...)  /* FR_BROKEN, reason */
    __attribute__((format(printf, 3, 4)));
uint8_t fs_pat(uint64_t seq, uint32_t i);                         /* payload byte i of msg seq */

#endif
