/* libnic unit tests against a NIC window created in this process (fakenic.c stands in for
 * the firmware): device names and the host interface check, registration of ordinary memory
 * (the in-place shared remap) and its refusals, the VI table claim and handing an entry to
 * another owner, the two-level queue (L2
 * ring full -> L1, drained in order as the NIC completes), waiting and a dead NIC; fork()
 * while another thread holds the device lock. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../hw/window_nic.h"
#include "fakenic.h"
#include "vtest.h"

VT_GLOBALS;

static void t_names(void) {
  char out[64];
  CHECK_EQ(lnic_window_name("nic0", out, sizeof out), 0);
  CHECK(strcmp(out, "/verinic-nic0") == 0);
  CHECK_EQ(lnic_window_name("nic12", out, sizeof out), 0);
  CHECK_EQ(lnic_window_name("nic", out, sizeof out), -EINVAL);
  CHECK_EQ(lnic_window_name("nicX", out, sizeof out), -EINVAL);
  CHECK_EQ(lnic_window_name("eth0", out, sizeof out), -EINVAL);
  CHECK_EQ(lnic_window_name(NULL, out, sizeof out), -EINVAL);
  struct lnic_dev *d = (void *)1;
  CHECK_EQ(lnic_open("nic999", &d), -ENODEV);
  CHECK(d == NULL);
  CHECK_EQ(lnic_open("bogus", &d), -EINVAL);
}

static void t_open_checks(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 1, false), 0);
  struct lnic_dev *d = NULL;
  CHECK_EQ(lnic_open(f.name, &d), -EAGAIN);   /* firmware not ready */
  volatile struct hostif_ctrl *c = (volatile void *)(f.w.sram + HOSTIF_BASE);
  c->magic = HOSTIF_MAGIC;
  c->version = 99;
  CHECK_EQ(lnic_open(f.name, &d), -EPROTO);
  c->version = HOSTIF_VERSION;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  CHECK(d && d->node == 1);
  CHECK_EQ(lnic_alive(d), 0);
  lnic_close(d);
  fake_destroy(&f);
}

/* A NIC still booting (running, host interface not yet published) is waited for, bounded. */
static void t_open_waits_for_boot(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 1, false), 0);
  volatile struct hostif_ctrl *c = (volatile void *)(f.w.sram + HOSTIF_BASE);
  pid_t pid = fork();
  if (pid == 0) {   /* the firmware, coming up 100 ms late (the window is MAP_SHARED) */
    usleep(100000);
    __atomic_store_n(&c->magic, HOSTIF_MAGIC, __ATOMIC_RELEASE);
    _exit(0);
  }
  struct lnic_dev *d = NULL;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  CHECK(d != NULL);
  lnic_close(d);
  waitpid(pid, NULL, 0);
  fake_destroy(&f);
}

/* Maps a registered region's segment by name, as the NIC does, and writes through it. */
static int nic_side_write(struct fakenic *f, int region, uint64_t addr, const char *s) {
  struct hw_region *g = &f->w.regions[region];
  int fd = shm_open(g->seg, O_RDWR, 0);
  if (fd < 0) return -1;
  size_t len = g->seg_off + g->len;
  uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return -1;
  memcpy(p + g->seg_off + (addr - g->host_base), s, strlen(s));
  munmap(p, len);
  return 0;
}

static void t_register_malloc(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 2, true), 0);
  struct lnic_dev *d;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  uint32_t tag = lnic_ptag_new();
  char *a = malloc(100), *b = malloc(100);
  strcpy(a, "hello");
  strcpy(b, "world");
  int ia = lnic_mem_register(d, a, 100, tag);
  int ib = lnic_mem_register(d, b, 100, tag);
  CHECK(ia >= 0 && ib >= 0 && ia != ib);
  CHECK(strcmp(a, "hello") == 0 && strcmp(b, "world") == 0);   /* contents survive the move */
  CHECK_EQ(lnic_mem_find(d, a + 10, 20, tag), ia);
  CHECK_EQ(lnic_mem_find(d, a + 10, 200, tag), -ENOENT);
  CHECK_EQ(lnic_mem_find(d, a, 10, tag + 1), -ENOENT);
  int reg = d->mr[ia].region[0];
  CHECK_EQ(f.w.regions[reg].state, HW_REGION_VALID);
  CHECK_EQ(f.w.regions[reg].ptag, tag);
  CHECK(f.w.regions[reg].host_base == (uintptr_t)a && f.w.regions[reg].len == 100);
  CHECK_EQ(nic_side_write(&f, reg, (uintptr_t)a, "HELLO"), 0);
  CHECK(strcmp(a, "HELLO") == 0);   /* what the NIC writes, the program sees */
  /* A large buffer, registered, written by the "NIC" at its end. */
  size_t big = 3u << 20;
  char *c = malloc(big);
  memset(c, 7, big);
  int ic = lnic_mem_register(d, c, big, tag);
  CHECK(ic >= 0);
  CHECK_EQ(nic_side_write(&f, d->mr[ic].region[0], (uintptr_t)c + big - 3, "xyz"), 0);
  CHECK(c[0] == 7 && c[big - 4] == 7 && c[big - 3] == 'x' && c[big - 1] == 'z');
  CHECK_EQ(lnic_mem_deregister(d, ic), 0);
  CHECK_EQ(lnic_mem_deregister(d, ic), -ENOENT);
  CHECK_EQ(lnic_mem_deregister(d, ia), 0);
  CHECK_EQ(f.w.regions[reg].state, HW_REGION_FREE);
  CHECK_EQ(lnic_mem_deregister(d, ib), 0);
  c[5] = 1;   /* still ordinary, usable memory after deregistration */
  free(c);
  free(a);
  free(b);
  lnic_close(d);
  fake_destroy(&f);
}

static void t_register_refusals(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 3, true), 0);
  struct lnic_dev *d;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  uint32_t tag = lnic_ptag_new();
  char onstack[64];
  CHECK_EQ(lnic_mem_register(d, onstack, sizeof onstack, tag), -EACCES);
  long pg = sysconf(_SC_PAGESIZE);
  char *hole = mmap(NULL, (size_t)pg * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(hole + pg, (size_t)pg);
  CHECK_EQ(lnic_mem_register(d, hole, (size_t)pg * 3, tag), -EINVAL);   /* a hole */
  CHECK_EQ(lnic_mem_register(d, hole + pg, 10, tag), -EINVAL);         /* unmapped */
  mprotect(hole, (size_t)pg, PROT_READ);
  CHECK_EQ(lnic_mem_register(d, hole, 10, tag), -EACCES);              /* read-only */
  munmap(hole, (size_t)pg * 3);
  CHECK_EQ(lnic_mem_register(d, NULL, 10, tag), -EINVAL);
  CHECK_EQ(lnic_mem_register(d, onstack, 0, tag), -EINVAL);
  CHECK_EQ(lnic_mem_register(d, onstack, 10, 0), -EINVAL);
  /* libnic's own DMA-able memory: registered without any remap; the table fills up. */
  char *m = lnic_alloc(1 << 16);
  CHECK(m != NULL);
  int n = 0, rc;
  while ((rc = lnic_mem_register(d, m + (n % 1000) * 16, 16, tag)) >= 0) n++;
  CHECK_EQ(rc, -ENOSPC);
  CHECK_EQ(n, NIC_MAX_MR);
  for (int i = 0; i < NIC_MAX_MR; i++) CHECK_EQ(lnic_mem_deregister(d, i), 0);
  m[0] = 1;
  lnic_free(m);
  lnic_close(d);
  fake_destroy(&f);
}

static void t_vi_table(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 4, true), 0);
  struct lnic_dev *d;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  struct lnic_vi *v[HOSTIF_NVI];
  for (unsigned i = 1; i < HOSTIF_NVI; i++) {
    CHECK_EQ(lnic_vi_create(d, 77, HOSTIF_RELIABLE_DELIVERY, &v[i]), 0);
    CHECK(v[i] && v[i]->idx >= 1);
  }
  struct lnic_vi *x;
  CHECK_EQ(lnic_vi_create(d, 77, 0, &x), -ENOSPC);
  CHECK_EQ(lnic_vi_create(d, 77, 9, &x), -EINVAL);
  volatile struct hostif_vi *e = lnic_hostif_vi(d, v[3]->idx);
  CHECK_EQ(e->state, HOSTIF_VI_IDLE);
  CHECK_EQ(e->ptag, 77);
  CHECK_EQ(e->owner_pid, (uint32_t)getpid());
  CHECK_EQ(e->reliability, HOSTIF_RELIABLE_DELIVERY);
  unsigned idx = v[3]->idx;
  CHECK_EQ(lnic_vi_destroy(v[3], false), 0);
  CHECK_EQ(e->state, HOSTIF_VI_FREE);
  CHECK_EQ(lnic_vi_create(d, 78, 0, &x), 0);
  CHECK_EQ(x->idx, idx);
  v[3] = x;
  /* An entry whose owner died is taken back. */
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, NULL, 0);
  unsigned stale = v[5]->idx;
  e = lnic_hostif_vi(d, stale);
  d->vi[stale] = NULL;   /* forget it here, as if another process had owned it */
  free(v[5]->q[0].rec), free(v[5]->q[1].rec), free(v[5]);
  e->owner_pid = (uint32_t)child;
  CHECK_EQ(lnic_vi_create(d, 79, 0, &x), 0);
  CHECK_EQ(x->idx, stale);
  /* ...but not while it still names a peer: nicd breaks the peer, then frees the entry. */
  d->vi[stale] = NULL;
  free(x->q[0].rec), free(x->q[1].rec), free(x);
  e->owner_pid = (uint32_t)child;
  e->state = HOSTIF_VI_CONNECTED;
  CHECK_EQ(lnic_vi_create(d, 80, 0, &x), -ENOSPC);
  e->state = HOSTIF_VI_ERROR;
  CHECK_EQ(lnic_vi_create(d, 80, 0, &x), -ENOSPC);
  CHECK_EQ(e->owner_pid, (uint32_t)child);
  e->state = HOSTIF_VI_FREE;   /* what nicd's reaping leaves */
  CHECK_EQ(lnic_vi_create(d, 80, 0, &x), 0);
  CHECK_EQ(x->idx, stale);
  v[5] = x;
  /* Handing a VI to another owner (a VI fork() shares): a live process, never a dead one; an
   * entry whose owner died (nicd reaps it) or that is no longer this VI is refused. */
  pid_t live = fork();
  if (live == 0) {
    pause();
    _exit(0);
  }
  struct lnic_vi *o = v[4];
  e = lnic_hostif_vi(d, o->idx);
  CHECK_EQ(lnic_vi_set_owner(o, (uint32_t)live), 0);
  CHECK_EQ(e->owner_pid, (uint32_t)live);
  CHECK_EQ(lnic_vi_set_owner(o, (uint32_t)getpid()), 0);
  CHECK_EQ(e->owner_pid, (uint32_t)getpid());
  CHECK_EQ(lnic_vi_set_owner(o, (uint32_t)child), -ESRCH);   /* child has ended */
  e->owner_pid = (uint32_t)child;
  CHECK_EQ(lnic_vi_set_owner(o, (uint32_t)live), -EPIPE);
  e->owner_pid = (uint32_t)getpid();
  e->generation++;
  CHECK_EQ(lnic_vi_set_owner(o, (uint32_t)live), -EPIPE);
  e->generation--;
  e->state = HOSTIF_VI_FREE;
  CHECK_EQ(lnic_vi_set_owner(o, (uint32_t)live), -EPIPE);
  e->state = HOSTIF_VI_IDLE;
  CHECK_EQ(e->owner_pid, (uint32_t)getpid());
  kill(live, SIGKILL);
  waitpid(live, NULL, 0);
  fake_connect(&f, v[1]->idx, v[2]->idx);
  CHECK_EQ(lnic_vi_destroy(v[1], false), -EBUSY);   /* connected */
  lnic_close(d);   /* destroys the rest */
  fake_destroy(&f);
}

struct seen { unsigned n; uintptr_t last; bool order_ok; };
/* Whether the L1 bits of queue q are VI vi's alone, or none. */
static bool l1_only(const struct lnic_dev *d, enum lnic_q q, unsigned vi) {
  for (unsigned k = 0; k < HOSTIF_NVI / 64; k++)
    if (d->l1[q][k] != (k == vi / 64 ? (uint64_t)1 << vi % 64 : 0)) return false;
  return true;
}
static bool l1_none(const struct lnic_dev *d, enum lnic_q q) {
  for (unsigned k = 0; k < HOSTIF_NVI / 64; k++)
    if (d->l1[q][k]) return false;
  return true;
}

static void count_hook(void *ctx, const struct lnic_cqe *c) {
  struct seen *s = ctx;
  if ((uintptr_t)c->cookie != s->last + 1) s->order_ok = false;
  s->last = (uintptr_t)c->cookie;
  s->n++;
}

static void t_two_level_queue(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 5, true), 0);
  struct lnic_dev *d;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  uint32_t tag = 0x4242;
  struct lnic_vi *a, *b;
  CHECK_EQ(lnic_vi_create(d, tag, 0, &a), 0);
  CHECK_EQ(lnic_vi_create(d, tag, 0, &b), 0);
  fake_connect(&f, a->idx, b->idx);
  struct seen s = {.order_ok = true};
  a->reap = count_hook;
  a->reap_ctx = &s;
  char *buf = lnic_alloc(4096);
  CHECK(lnic_mem_register(d, buf, 4096, tag) >= 0);
  enum { N = 100 };
  uint32_t db0 = (uint32_t)atomic_load(&f.w.regs->ctr[HW_CTR_DOORBELLS]);
  (void)db0;
  lnic_lock(d);
  for (uintptr_t i = 1; i <= N; i++) {
    struct hostif_desc h = {.op = HOSTIF_OP_SEND, .nseg = 1, .length = 8,
                            .seg = {{(uintptr_t)buf, 8, tag}}};
    /* Every tenth is refused locally: it must still complete in its place. */
    CHECK_EQ(lnic_post(a, NIC_SQ, &h, (void *)i, i % 10 == 0 ? HOSTIF_ST_FORMAT : 0), 0);
  }
  volatile struct hostif_vi *e = lnic_hostif_vi(d, a->idx);
  CHECK_EQ(e->sq.prod, HOSTIF_RING);                 /* L2 full */
  CHECK_EQ(lnic_wq_l1_len(a, NIC_SQ), N - HOSTIF_RING - 3);  /* 3 locals were passed over */
  CHECK(atomic_load(&f.w.regs->db_pending) & (1u << a->idx));  /* doorbell rung for the VI */
  CHECK_EQ(lnic_wq_outstanding(a, NIC_SQ), N);
  CHECK(l1_only(d, NIC_SQ, a->idx) && l1_none(d, NIC_RQ));   /* drain_all's bits */
  CHECK_EQ(lnic_drain_all(d), HOSTIF_SIG_SQ(a->idx));
  lnic_unlock(d);
  /* The NIC completes 10 (no receives posted at b: sends wait -> post them). */
  for (unsigned i = 0; i < N; i++) {
    struct hostif_desc r = {.op = HOSTIF_OP_RECV, .nseg = 1, .length = 64,
                            .seg = {{(uintptr_t)buf + 1024, 64, tag}}};
    lnic_lock(d);
    CHECK_EQ(lnic_post(b, NIC_RQ, &r, NULL, 0), 0);
    lnic_unlock(d);
  }
  fake_step(&f, 10);
  lnic_lock(d);
  lnic_progress(a, NIC_SQ);
  CHECK(s.n >= 10);
  CHECK_EQ(e->sq.prod, HOSTIF_RING + 10);           /* ten more moved from L1 */
  lnic_unlock(d);
  unsigned rounds = 0;
  while (s.n < N && rounds++ < 1000) {
    fake_step(&f, 7);
    lnic_lock(d);
    lnic_progress(a, NIC_SQ);
    lnic_progress(b, NIC_RQ);
    lnic_unlock(d);
  }
  CHECK_EQ(s.n, N);
  CHECK(s.order_ok);
  CHECK_EQ(lnic_wq_l1_len(a, NIC_SQ), 0);
  CHECK(l1_none(d, NIC_SQ));
  CHECK(a->q[NIC_SQ].l1_max >= N - HOSTIF_RING - 3);
  lnic_lock(d);
  struct lnic_cqe c;
  for (uintptr_t i = 1; i <= N; i++) {
    CHECK_EQ(lnic_take(a, NIC_SQ, &c), 0);
    CHECK((uintptr_t)c.cookie == i);
    CHECK_EQ(c.status, i % 10 == 0 ? HOSTIF_ST_FORMAT : HOSTIF_ST_DONE);
    if (i % 10) CHECK_EQ(c.len, 8);
  }
  CHECK_EQ(lnic_take(a, NIC_SQ, &c), -EAGAIN);
  CHECK_EQ(lnic_wq_ready(b, NIC_RQ), N - N / 10);
  lnic_unlock(d);
  /* A VI destroyed by force with records in L1 leaves no bit behind for drain_all to follow. */
  struct lnic_vi *c3;
  CHECK_EQ(lnic_vi_create(d, tag, 0, &c3), 0);
  unsigned c3_idx = c3->idx;
  lnic_lock(d);
  for (unsigned i = 0; i < HOSTIF_RING + 5; i++) {
    struct hostif_desc h = {.op = HOSTIF_OP_SEND, .nseg = 1, .length = 8,
                            .seg = {{(uintptr_t)buf, 8, tag}}};
    CHECK_EQ(lnic_post(c3, NIC_SQ, &h, NULL, 0), 0);
  }
  CHECK(l1_only(d, NIC_SQ, c3_idx));
  lnic_unlock(d);
  CHECK_EQ(lnic_vi_destroy(c3, true), 0);
  lnic_lock(d);
  CHECK(l1_none(d, NIC_SQ));
  CHECK_EQ(lnic_drain_all(d), 0);
  lnic_unlock(d);
  lnic_close(d);
  lnic_free(buf);
  fake_destroy(&f);
}

static void t_wait_and_death(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 6, true), 0);
  struct lnic_dev *d;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  uint64_t t0 = lnic_now_ns();
  CHECK_EQ(lnic_wait(d, 2, 30000000), -ETIMEDOUT);
  CHECK(lnic_now_ns() - t0 >= 30000000);
  hwin_signal_host(&f.w, 2);
  CHECK_EQ(lnic_wait(d, 2, 1000000000), 0);
  fake_destroy(&f);   /* the owner stops the NIC */
  CHECK_EQ(lnic_wait(d, 2, -1), -EPIPE);
  CHECK_EQ(lnic_alive(d), -EPIPE);
  struct lnic_vi *v;
  CHECK_EQ(lnic_vi_create(d, 1, 0, &v), -EPIPE);
  lnic_close(d);
  /* A NIC process killed outright: a waiter without a time limit is told, not hung. */
  int p[2];
  CHECK_EQ(pipe(p), 0);
  pid_t nicp = fork();
  if (nicp == 0) {
    struct fakenic g;
    if (fake_create(&g, 7, true) != 0) _exit(1);
    if (write(p[1], g.name, sizeof g.name) != (ssize_t)sizeof g.name) _exit(1);
    pause();
    _exit(0);
  }
  char name[64];
  CHECK_EQ(read(p[0], name, sizeof name), (ssize_t)sizeof name);
  CHECK_EQ(lnic_open(name, &d), 0);
  shm_unlink(name);
  kill(nicp, SIGKILL);
  waitpid(nicp, NULL, 0);
  t0 = lnic_now_ns();
  CHECK_EQ(lnic_wait(d, 2, -1), -EPIPE);
  CHECK(lnic_now_ns() - t0 < 2000000000ull);
  lnic_close(d);
  close(p[0]), close(p[1]);
}

/* fork() while another thread takes and drops the device lock all the time (as the L1
 * drainer does): every child can lock the device at once (nic_fork.c), none hangs. */
static volatile bool hammer_stop;
static void *hammer(void *arg) {
  struct lnic_dev *d = arg;
  while (!hammer_stop) {
    lnic_lock(d);
    for (volatile int i = 0; i < 200; i++) {
    }
    lnic_unlock(d);
  }
  return NULL;
}

static void t_fork_with_lock_held(void) {
  struct fakenic f;
  CHECK_EQ(fake_create(&f, 1, true), 0);
  struct lnic_dev *d = NULL;
  CHECK_EQ(lnic_open(f.name, &d), 0);
  pthread_t t;
  hammer_stop = false;
  CHECK_EQ(pthread_create(&t, NULL, hammer, d), 0);
  int hung = 0, done = 0;
  for (int i = 0; i < 200; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      alarm(2);   /* a child that cannot lock dies of SIGALRM */
      lnic_lock(d);
      lnic_unlock(d);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) done++;
    else hung++;
  }
  hammer_stop = true;
  pthread_join(t, NULL);
  CHECK(hung == 0 && done == 200);
  if (hung) printf("  %d of 200 children could not lock the device after fork()\n", hung);
  lnic_close(d);
  fake_destroy(&f);
}

int main(void) {
  RUN(t_names);
  RUN(t_open_checks);
  RUN(t_open_waits_for_boot);
  RUN(t_register_malloc);
  RUN(t_register_refusals);
  RUN(t_vi_table);
  RUN(t_two_level_queue);
  RUN(t_wait_and_death);
  RUN(t_fork_with_lock_held);
  return vt_summary();
}
