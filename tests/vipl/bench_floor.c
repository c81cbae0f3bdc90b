/* bench_floor.c: the floors bench_vipl's figures are measured against in the same run. The
 * copy floor: memcpy of 32 KiB chunks over 16 MiB. The latency floor: a 3-process relay
 * ping-pong through one shared page, A -> relay -> B and back, the shape of host -> nicd ->
 * host with nothing else to do: once with the product's wait strategy (iface/wait.h's
 * defaults: hosts sleep on a futex at once, the relay spins WAIT_NICD_SPIN_NS first) and once
 * with every process spinning (the CPUs kept from halting). 4 bytes are copied at each hop.
 * The streaming floor: the shape of a SOVIA stream over one nicd, 32 KiB messages copied five
 * times (A's buffer -> a ring shared with the relay -> the relay's two buffers, as the two
 * NICs' SRAM -> a ring shared with B -> B's buffer), with the same two wait strategies and
 * nothing else: no descriptors, checksums or protocol. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../bench/stats.h"
#include "bench_floor.h"
#include "futex.h"
#include "wait.h"

#define FLOOR_ITERS 20000
#define FLOOR_WARM  200

/* One direction of a hop: a sequence word its reader waits on, whether it sleeps, the bytes. */
struct hop {
  _Atomic uint32_t seq, sleeping;
  uint8_t data[4];
  char pad[52];
};

struct relay {
  struct hop a2r, r2b, b2r, r2a;
  _Atomic uint32_t relay_seq, relay_sleeping; /* the relay's doorbell, like nicd's */
  _Atomic uint32_t stop;
};

/* Bumps a sequence word and wakes its sleeper, if one announced itself. */
static void bump(_Atomic uint32_t *seq, _Atomic uint32_t *sleeping) {
  atomic_fetch_add(seq, 1);
  if (atomic_load(sleeping)) futex_wake(seq);
}

static void post(struct hop *h, const uint8_t *d) {
  memcpy(h->data, d, sizeof h->data);
  bump(&h->seq, &h->sleeping);
}

static void ring_relay(struct relay *r) { bump(&r->relay_seq, &r->relay_sleeping); }

/* A host waits until *seq differs from seen: at once to sleep, or spinning (awake). */
static void seq_wait(_Atomic uint32_t *seq, _Atomic uint32_t *sleeping, uint32_t seen, bool awake) {
  for (unsigned i = 1; atomic_load(seq) == seen; i++) {
    if (awake) {
      wait_relax();
      if (i % 256 == 0) sched_yield(); /* three spinners share two CPUs */
      continue;
    }
    atomic_store(sleeping, 1);
    if (atomic_load(seq) == seen) futex_wait(seq, seen, 50000000);
    atomic_store(sleeping, 0);
  }
}

static void host_wait(struct hop *h, uint32_t seen, bool awake) {
  seq_wait(&h->seq, &h->sleeping, seen, awake);
}

/* The relay waits for its doorbell to move from db (or stop): spinning WAIT_NICD_SPIN_NS,
 * then asleep, as nicd does; awake, spinning only. */
static void doorbell_wait(_Atomic uint32_t *seq, _Atomic uint32_t *sleeping,
                          const _Atomic uint32_t *stop, uint32_t db, bool awake) {
  uint64_t t0 = futex_now_ns();
  for (unsigned i = 1; atomic_load(seq) == db && !atomic_load(stop); i++) {
    wait_relax();
    if (i % 256) continue;
    if (awake) {
      sched_yield();
    } else if (futex_now_ns() - t0 >= WAIT_NICD_SPIN_NS) {
      atomic_store(sleeping, 1);
      if (atomic_load(seq) == db) futex_wait(seq, db, 50000000);
      atomic_store(sleeping, 0);
      return;
    }
  }
}

/* Forks the relay (k = 0) and the far host (k = 1), each running fn(arg, k, awake). */
static void spawn(pid_t kids[2], void (*fn)(void *, int, bool), void *arg, bool awake) {
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    if (kids[k] == 0) {
      fn(arg, k, awake);
      _exit(0);
    }
  }
}

static void relay_loop(struct relay *r, bool awake) {
  uint32_t a = 0, b = 0;
  while (!atomic_load(&r->stop)) {
    uint32_t db = atomic_load(&r->relay_seq);
    bool moved = false;
    if (atomic_load(&r->a2r.seq) != a) a++, post(&r->r2b, r->a2r.data), moved = true;
    if (atomic_load(&r->b2r.seq) != b) b++, post(&r->r2a, r->b2r.data), moved = true;
    if (!moved) doorbell_wait(&r->relay_seq, &r->relay_sleeping, &r->stop, db, awake);
  }
}

static void echo_loop(struct relay *r, bool awake) {
  for (uint32_t seen = 0; seen < FLOOR_ITERS + FLOOR_WARM; seen++) {
    host_wait(&r->r2b, seen, awake);
    post(&r->b2r, r->r2b.data);
    ring_relay(r);
  }
}

static void relay_child(void *arg, int k, bool awake) {
  if (k == 0) relay_loop(arg, awake);
  else echo_loop(arg, awake);
}

/* RTT/2 median in microseconds, or -1. */
static double relay_run(bool awake) {
  struct relay *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (r == MAP_FAILED) return -1;
  memset(r, 0, sizeof *r);
  pid_t kids[2];
  spawn(kids, relay_child, r, awake);
  double *s = malloc(sizeof(double) * FLOOR_ITERS);
  uint8_t msg[4] = {1, 2, 3, 4};
  for (uint32_t i = 0; i < FLOOR_ITERS + FLOOR_WARM; i++) {
    double t0 = stats_now_us();
    post(&r->a2r, msg);
    ring_relay(r);
    host_wait(&r->r2a, i, awake);
    if (i >= FLOOR_WARM) s[i - FLOOR_WARM] = (stats_now_us() - t0) / 2;
  }
  atomic_store(&r->stop, 1);
  ring_relay(r);
  for (int k = 0; k < 2; k++) waitpid(kids[k], NULL, 0);
  double med, p99;
  stats_med_p99(s, FLOOR_ITERS, &med, &p99);
  free(s);
  munmap(r, sizeof *r);
  return med;
}

double floor_memcpy_mbs(void) {
  const size_t total = 16u << 20, chunk = 32u << 10;
  uint8_t *src = malloc(total), *dst = malloc(total);
  if (!src || !dst) return -1;
  memset(src, 0x5a, total), memset(dst, 0, total);
  double best[5];
  for (int k = 0; k < 5; k++) {
    double t0 = stats_now_us();
    for (int rep = 0; rep < 8; rep++)
      for (size_t o = 0; o < total; o += chunk) memcpy(dst + o, src + o, chunk);
    best[k] = 8.0 * (double)total / (stats_now_us() - t0);
  }
  free(src), free(dst);
  double med, p99;
  stats_med_p99(best, 5, &med, &p99);
  return med;
}

double floor_relay_us(bool awake) { return relay_run(awake); }

/* --- the streaming floor ---------------------------------------------------------------- */

#define STREAM_MSG   (32u << 10)
#define STREAM_SLOTS 32u
#define STREAM_MSGS  4096u            /* 128 MiB per run */
#define STREAM_RUNS  5

/* One ring: put counts messages its writer stored, got those its reader copied out. */
struct sring {
  _Atomic uint32_t put, got, put_sleeping, got_sleeping;
  char pad[48];
  _Alignas(64) uint8_t slot[STREAM_SLOTS][STREAM_MSG];
};

struct stream {
  struct sring ab, rb;                  /* A -> relay, relay -> B */
  _Atomic uint32_t relay_seq, relay_sleeping, stop;
};

/* The relay: a message moves when A has put one and B's ring has a free slot; otherwise it
 * waits on its doorbell (spinning first, or always when awake), as relay_loop. */
static void stream_relay(struct stream *s, bool awake) {
  static uint8_t sram_a[STREAM_MSG], sram_b[STREAM_MSG];
  uint32_t taken = 0, given = 0;
  while (!atomic_load(&s->stop)) {
    uint32_t db = atomic_load(&s->relay_seq);
    if (atomic_load(&s->ab.put) != taken && given - atomic_load(&s->rb.got) < STREAM_SLOTS) {
      memcpy(sram_a, s->ab.slot[taken % STREAM_SLOTS], STREAM_MSG);
      taken++;
      bump(&s->ab.got, &s->ab.got_sleeping);
      memcpy(sram_b, sram_a, STREAM_MSG);
      memcpy(s->rb.slot[given % STREAM_SLOTS], sram_b, STREAM_MSG);
      given++;
      bump(&s->rb.put, &s->rb.put_sleeping);
      continue;
    }
    doorbell_wait(&s->relay_seq, &s->relay_sleeping, &s->stop, db, awake);
  }
}

static void stream_reader(struct stream *s, bool awake) {
  uint8_t *mine = malloc(STREAM_MSG);
  for (uint32_t got = 0; mine && got < STREAM_MSGS; got++) {
    seq_wait(&s->rb.put, &s->rb.put_sleeping, got, awake);
    memcpy(mine, s->rb.slot[got % STREAM_SLOTS], STREAM_MSG);
    atomic_fetch_add(&s->rb.got, 1);
    bump(&s->relay_seq, &s->relay_sleeping);
  }
  free(mine);
}

static void stream_child(void *arg, int k, bool awake) {
  if (k == 0) stream_relay(arg, awake);
  else stream_reader(arg, awake);
}

/* MB/s of one run, from A's first copy to B's last; -1 on failure. */
static double stream_once(bool awake) {
  struct stream *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) return -1;
  uint8_t *mine = malloc(STREAM_MSG);
  if (!mine) {
    munmap(s, sizeof *s);
    return -1;
  }
  memset(s, 0, sizeof *s);
  memset(mine, 0x5a, STREAM_MSG);
  pid_t kids[2];
  spawn(kids, stream_child, s, awake);
  double t0 = stats_now_us();
  for (uint32_t put = 0; put < STREAM_MSGS; put++) {
    uint32_t got;
    while (put - (got = atomic_load(&s->ab.got)) >= STREAM_SLOTS)
      seq_wait(&s->ab.got, &s->ab.got_sleeping, got, awake);
    memcpy(s->ab.slot[put % STREAM_SLOTS], mine, STREAM_MSG);
    atomic_fetch_add(&s->ab.put, 1);
    bump(&s->relay_seq, &s->relay_sleeping);
  }
  waitpid(kids[1], NULL, 0);
  double us = stats_now_us() - t0;
  atomic_store(&s->stop, 1);
  bump(&s->relay_seq, &s->relay_sleeping);
  waitpid(kids[0], NULL, 0);
  free(mine);
  munmap(s, sizeof *s);
  return (double)STREAM_MSGS * STREAM_MSG / us;
}

double floor_stream_mbs(bool awake) {
  double v[STREAM_RUNS], med, p99;
  for (int k = 0; k < STREAM_RUNS; k++)
    if ((v[k] = stream_once(awake)) < 0) return -1;
  stats_med_p99(v, STREAM_RUNS, &med, &p99);
  return med;
}
