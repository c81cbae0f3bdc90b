/* libnic: the host driver of the emulated NIC. Opens a NIC by device name and maps its window,
 * checks the firmware's host interface (iface/hostif.h), makes host memory
 * DMA-able and registers it with a protection tag, creates VIs in the SRAM VI table, posts
 * descriptors through the two-level queue of E-UDP section 4.2 (L2: the SRAM ring, written by
 * PIO; L1: an overflow list in host memory, drained as the NIC completes), polls and waits for
 * completions. Every call returns 0 or -errno; a NIC whose process died is -EPIPE.
 * Thread-safe: one mutex per device. Design notes in host/libnic/README.md. */
#ifndef LIBNIC_H
#define LIBNIC_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostif.h"
#include "window.h"

#define NIC_MAX_MR      255   /* registrations per device and process (handle low byte; its
                                 key in the region table is id + 1, 1..255) */
#define NIC_MR_PIECES   8     /* shared segments one registration may span */
#define NIC_WQ_MAX      (1u << 20) /* descriptors one work queue may hold (L1 + L2 + done) */

enum lnic_q { NIC_SQ = 0, NIC_RQ = 1 };

/* One completion as the NIC reported it (or as libnic decided it without the NIC). */
struct lnic_cqe {
  void *cookie;           /* the poster's */
  uint32_t status;        /* enum hostif_status */
  uint32_t len;           /* done_len */
  uint32_t imm;           /* done_imm */
  uint16_t flags;         /* done_flags */
  uint16_t op;            /* enum hostif_op of the posted descriptor */
};

/* Called (with the device lock held) for every completion as it is reaped from the ring, in
 * queue order, so a caller can publish it at once (VIPL writes the VIA descriptor's CS). */
typedef void (*lnic_reap_fn)(void *ctx, const struct lnic_cqe *c);

struct lnic_rec {          /* one posted descriptor, host side */
  struct hostif_desc d;   /* what goes into the ring (unused when local) */
  void *cookie;
  uint32_t ring_seq;      /* ring slot sequence number, once pushed */
  uint32_t local_status;  /* non-zero: completes with this status without the NIC */
  struct lnic_cqe cqe;     /* filled when reaped */
};

/* A work queue: records [taken, reaped) are complete, [reaped, pushed) are in the SRAM ring
 * (L2), [pushed, posted) wait in host memory (L1). Free-running 32-bit counters. */
struct lnic_wq {
  struct lnic_rec *rec;    /* circular, cap a power of two */
  uint32_t cap;
  uint32_t taken, reaped, pushed, posted;
  uint32_t ring_prod, ring_reaped;   /* ring slots published, ring slots reaped */
  uint32_t ring_addr;     /* SRAM address of the struct hostif_ring */
  uint64_t l1_max;        /* the deepest the L1 list has been (statistics) */
};

struct lnic_dev;

struct lnic_vi {
  struct lnic_dev *dev;
  unsigned idx;           /* VI number in the table, 1..HOSTIF_NVI-1 */
  uint32_t gen;           /* the entry's generation when this VI was created in it */
  uint32_t ptag, reliability;
  struct lnic_wq q[2];
  lnic_reap_fn reap;
  void *reap_ctx;
};

/* A registration: one region per shared segment the range spans. */
struct lnic_mr {
  bool used;
  uint32_t ptag;
  uintptr_t addr;
  size_t len;
  unsigned npieces;
  int region[NIC_MR_PIECES];
  struct lnic_seg *seg[NIC_MR_PIECES];
};

struct lnic_dev {
  struct hwin win;
  pthread_mutex_t lock;
  char devname[32];
  uint16_t node;
  struct lnic_vi *vi[HOSTIF_NVI];
  unsigned vi_next;             /* the VI table entry this process took last (nic_vi.c) */
  struct lnic_mr mr[NIC_MAX_MR];
  bool dead;
  uint64_t last_alive_check;
  /* The L1 drainer thread (nic_drain.c), started when a queue first overflows into L1. */
  pthread_t drainer;
  pthread_cond_t drain_cond;
  bool drainer_running, drainer_stop, drainer_idle;
  uint64_t drains;              /* lnic_drain_all calls, the drainer's and the program's */
  /* by queue (enum lnic_q): bit i % 64 of word i / 64, VI i has records in L1 */
  uint64_t l1[2][HOSTIF_NVI / 64];
  int vt_slot;                  /* timing mode: this process's slot + 1 (0: none yet) */
};

/* ---- device ---- */
/* Opens "nic<N>" (window /verinic-nic<N>), or a window name starting with '/'. -ENODEV when
 * there is no such NIC, -EPROTO for a bad window, -EAGAIN if the firmware has not published
 * its host interface (magic) within LNIC_BOOT_WAIT_MS of a running NIC, -EPIPE if the NIC
 * stopped, -EPROTO for a host interface of another version. */
#define LNIC_BOOT_WAIT_MS 2000
int lnic_open(const char *devname, struct lnic_dev **out);
/* Adopts an already mapped window (tests that host the NIC themselves). */
int lnic_open_window(const struct hwin *w, const char *devname, struct lnic_dev **out);
void lnic_close(struct lnic_dev *d);
/* 0 while the NIC runs, -EPIPE once its process stopped or died (then sticky). */
int lnic_alive(struct lnic_dev *d);
/* Like lnic_alive, but the process check runs at most every 10 ms (for polling loops). */
bool lnic_is_dead(struct lnic_dev *d);
/* Maps a device name to its window name: "nic3" -> "/verinic-nic3". -EINVAL if malformed. */
int lnic_window_name(const char *devname, char *out, size_t outlen);
/* Pointers into the SRAM host interface. */
volatile struct hostif_vi *lnic_hostif_vi(struct lnic_dev *d, unsigned idx);
volatile struct hostif_counters *lnic_hostif_counters(struct lnic_dev *d);

/* ---- memory ---- */
/* DMA-able memory of its own (a shared segment), page aligned. lnic_free takes the pointer. */
void *lnic_alloc(size_t len);
void lnic_free(void *p);
/* Registers [addr, addr + len) of any memory (see README: pages of ordinary memory are moved
 * into shared segments in place). Returns the registration id (0..NIC_MAX_MR-1). -EINVAL for
 * a bad range or unmapped pages, -EACCES for pages that cannot be made shared (stack, shared
 * file mappings, not writable), -ENOSPC when the region table is full. */
int lnic_mem_register(struct lnic_dev *d, void *addr, size_t len, uint32_t ptag);
int lnic_mem_deregister(struct lnic_dev *d, int id);
/* Drops this process's record of registration id and nothing else: after a fork another
 * process shares the memory and deregisters it (its regions and segment stay as they are). */
int lnic_mem_forget(struct lnic_dev *d, int id);
/* Opens registration id to remote RDMA Writes or closes it (hostif.h: its regions' access
 * word gets HOSTIF_REGION_RDMA_WRITE, or loses it). Every registration's regions carry its key
 * (id + 1) from the start, so an RDMA Write naming it reaches only its own memory. */
int lnic_mem_set_rdma(struct lnic_dev *d, int id, bool remote_write);
/* The registration containing [addr, addr+len) with this ptag, or -ENOENT. */
int lnic_mem_find(struct lnic_dev *d, const void *addr, size_t len, uint32_t ptag);
/* A fresh protection tag, unique on this machine in practice (24 bits, never 0). */
uint32_t lnic_ptag_new(void);

/* ---- VIs ---- */
/* Claims a free VI in the SRAM table (or one whose owner process died). -ENOSPC if none. */
int lnic_vi_create(struct lnic_dev *d, uint32_t ptag, uint32_t reliability, struct lnic_vi **out);
/* -EBUSY while the VI is connected or work is outstanding (unless force). */
int lnic_vi_destroy(struct lnic_vi *v, bool force);
uint32_t lnic_vi_state(struct lnic_vi *v);
/* Lock held: completes with HOSTIF_ST_FLUSHED what is posted on an IDLE VI that is not a
 * datagram VI, which the NIC leaves alone (a connection request that failed, its receives
 * posted first), so that the VI may be destroyed. -EBUSY in any other state, or for a
 * datagram VI (the NIC fills an idle one's receives). */
int lnic_vi_flush_idle(struct lnic_vi *v);
/* Makes process pid the VI's owner, the process whose end nicd takes for the VI's (it reaps
 * the VI and breaks its connection): for a VI that fork() shares, when another process than
 * its creator takes it over. -EPIPE when the entry is no longer this VI (freed, reaped, made
 * again) or its owner has died (nicd reaps it), -ESRCH when pid is not alive. */
int lnic_vi_set_owner(struct lnic_vi *v, uint32_t pid);

/* ---- work queues (call with the device lock held: lnic_lock/lnic_unlock) ---- */
void lnic_lock(struct lnic_dev *d);
void lnic_unlock(struct lnic_dev *d);
/* Queues a descriptor (nseg, segments, op, flags, imm, rdma fields filled by the caller);
 * it goes straight into the ring if there is room, else into L1. local_status != 0 completes
 * it in order with that status without involving the NIC (descriptors libnic refuses).
 * Rings the doorbell. -ENOSPC when the queue holds NIC_WQ_MAX, -EPIPE if the NIC is dead. */
int lnic_post(struct lnic_vi *v, enum lnic_q q, const struct hostif_desc *d, void *cookie,
             uint32_t local_status);
/* Reaps completed ring slots (calling the reap hook) and moves L1 into freed slots. Returns
 * how many completed. */
int lnic_progress(struct lnic_vi *v, enum lnic_q q);
/* Moves L1 descriptors of every VI of the device into the ring slots the NIC has freed (any
 * libnic call may be the one that notices): E-UDP's self-clocking drain. Returns the mask of
 * queues (their HOSTIF_SIG_SQ / HOSTIF_SIG_RQ bits) that still hold L1 descriptors, which a
 * waiter should also wait on. */
uint32_t lnic_drain_all(struct lnic_dev *d);
/* Lock held: a queue has descriptors in L1; make sure the drainer thread is on it. */
void lnic_drainer_kick(struct lnic_dev *d);
/* Without the lock: stops the drainer thread (lnic_close does it). */
void lnic_drainer_stop(struct lnic_dev *d);
/* Takes the oldest completion: 0, -EAGAIN if none (yet). */
int lnic_take(struct lnic_vi *v, enum lnic_q q, struct lnic_cqe *out);
/* Completed and not yet taken / outstanding (not complete) counts. */
uint32_t lnic_wq_ready(const struct lnic_vi *v, enum lnic_q q);
uint32_t lnic_wq_outstanding(const struct lnic_vi *v, enum lnic_q q);
uint32_t lnic_wq_l1_len(const struct lnic_vi *v, enum lnic_q q);
/* Marks every outstanding descriptor of a queue complete with status (the NIC is gone, or
 * the VI is being torn down). */
void lnic_wq_flush(struct lnic_vi *v, enum lnic_q q, uint32_t status);

/* Rings the VI's doorbell with its current producer indices (the NIC rereads its rings). */
void lnic_vi_kick(struct lnic_vi *v);
/* Whether the NIC still settles a VI whose peer left: nicd handed it what the peer's NIC
 * delivered (hostif.h, sq.rel_seq) and the NIC has not taken it yet, or the NIC holds sends
 * it took from the ring and has not completed (those the peer received complete DONE, the
 * others DISCONNECTED): they must not be flushed first. */
bool lnic_vi_peer_settling(struct lnic_vi *v);
/* Before a VI is connected again: takes what the NIC completed, then points the NIC's ring
 * indices at the first slot the host has not reaped, so slots a flush gave back are skipped
 * (the NIC adopts them while it has nothing of the VI in progress). Lock held; VI not
 * CONNECTED. */
void lnic_vi_resync(struct lnic_vi *v);

/* ---- threads (nic_thread.c) ---- */
/* Every thread of the host libraries starts here: with the asynchronous signals blocked, so
 * that the application's handlers run on its own threads only. rc as pthread_create's. */
int lnic_thread_start(pthread_t *t, bool detached, void *(*fn)(void *), void *arg);
/* The signals a library holds from the application: all but those a faulting instruction
 * raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS). */
void lnic_async_signals(sigset_t *set);

/* ---- waiting (without the lock) ---- */
/* Waits for the NIC to signal one of the VIs in vi_mask (bit i = VI i), at most timeout_ns
 * (< 0: no limit; slices are the caller's business). 0 when signalled, -ETIMEDOUT, -EPIPE. */
int lnic_wait(struct lnic_dev *d, uint32_t vi_mask, int64_t timeout_ns);
/* The same, but returning after one sleep that brought none of its bits (iface/wait.h,
 * wait_signal_once): -EINTR for a signal, -EAGAIN for bits another waiter took. */
int lnic_wait_once(struct lnic_dev *d, uint32_t vi_mask, int64_t timeout_ns);
/* Wakes this NIC's host threads asleep on one of bits (lnic_wait_once returns -EAGAIN to
 * them, or 0 if a signal came too) without raising a signal: a sleeper whose set of bits is
 * out of date (a queue joined the CQ it waits on) looks again (iface/wait.h,
 * wait_poke_hosts). */
void lnic_wake(struct lnic_dev *d, uint32_t bits);
uint64_t lnic_now_ns(void);
/* Waits until ready(arg) (0), timeout_ns of the process's time (lnic_vt_now_ns: virtual under
 * nicd --timing) pass (-ETIMEDOUT) or the NIC goes away (-EPIPE), sleeping on mask's signal
 * bits at most step_ns at a time. For state the firmware writes into its SRAM (mailbox answers,
 * DISPLAY, flags); the caller synchronised with its last call (lnic_vt_call). */
int lnic_wait_until(struct lnic_dev *d, uint32_t mask, int64_t timeout_ns, int64_t step_ns,
                    bool (*ready)(void *), void *arg);
/* lnic_wait_until the firmware has written want into *word (a mailbox's done.seq). */
int lnic_wait_word(struct lnic_dev *d, uint32_t mask, const volatile uint32_t *word, uint32_t want,
                   int64_t timeout_ns, int64_t step_ns);

/* ---- timing mode (nic_vt.c; nicd --timing) ---- */
/* In timing mode waits end at virtual times (lnic_wait's timeout too), every lnic_lock costs
 * the profile's host.call and waits until nicd has caught up with this process. */
bool lnic_vt_on(const struct lnic_dev *d);
/* This process's virtual time once it used a NIC in timing mode, else CLOCK_MONOTONIC (ns):
 * what benchmarks read as their clock. */
uint64_t lnic_vt_now_ns(void);
/* Charges a library call and synchronises (lnic_lock does it). */
void lnic_vt_call(struct lnic_dev *d);
/* Charges a host memcpy of `bytes` at the profile's host.memcpy. */
void lnic_vt_copy(size_t bytes);
/* Lets the NICs run a while (what is in flight lands) before a connection manager call: this
 * process stays RUNNING at its time, for a call nicd answers at once. */
void lnic_vt_settle(void);
/* Around a blocking call nicd does not take part in (the connection manager): while on, this
 * process bounds nothing (on settles first). */
void lnic_vt_outside(bool on);
/* lnic_wait in timing mode. */
int lnic_vt_wait(struct lnic_dev *d, uint32_t mask, int64_t timeout_ns);

#endif
