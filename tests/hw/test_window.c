/* Two real processes over the shared memory window: a host process maps the NIC's window
 * (inherited descriptor or by name), registers its own shared host memory, writes a command
 * into SRAM and rings a doorbell; the NIC in the parent sees HOST_SIG, DMAs the data in and
 * back out, is refused outside the registered region, and signals the host. Also: a stopped
 * or killed NIC is an error for a waiting host, not a hang. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "futex.h"
#include "hwtest.h"
#include "wait.h"

#define PTAG   5
#define LEN    4000
#define BACK   16384      /* where the NIC writes the data back, inside the region */
#define REGION 32768      /* registered bytes of the 64 KiB segment */
#define CMD    0x40       /* SRAM address of the host's command */

struct cmd {
  uint64_t host;
  uint32_t len, ptag;
  uint16_t sum;
};

/* The host process. Returns an exit status: 0 when everything checked out. */
static int host_main(int fd, const char *name) {
  struct hwin w;
  if ((name ? hwin_open(&w, name) : hwin_open_fd(&w, fd)) != 0) return 10;
  struct hostmem m;
  if (hostmem_create(&m, 65536) != 0) return 11;
  memset(m.base, 0x33, m.len);
  t_fill(m.base, LEN, 21);
  struct cmd c = {.len = LEN, .ptag = PTAG, .sum = t_ref_sum(m.base, LEN)};
  if (hwin_region_add(&w, &m, 0, REGION, PTAG, HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, &c.host) < 0)
    return 12;
  if (hwin_sram_write(&w, CMD, &c, sizeof c) != 0) return 13;
  if (hwin_doorbell(&w, 0, CMD) != 0) return 14;
  uint32_t got = 0;
  int rc = wait_signal(w.regs, 1, 20000000000ll, 0, NULL, NULL, &got);
  if (rc != 0 || got != 1) return 15;
  if (memcmp(m.base + BACK, m.base, LEN) != 0) return 16;
  for (size_t i = REGION; i < m.len; i++)
    if (m.base[i] != 0x33) return 17; /* the refused DMA touched nothing */
  hostmem_destroy(&m);
  hwin_close(&w);
  return 0;
}

static uint32_t dma(struct nic *nic, uint16_t dir, uint32_t sram, uint64_t host, uint32_t len,
                    uint32_t ptag) {
  t_desc(nic, 0x100, 0, dir | NIC_HDMA_TERMINAL | NIC_HDMA_WAKE, len, sram, host, ptag);
  nic_isr_clear(nic, NIC_ISR_WAKE(0));
  assert_int_equal(nic_hdma_start(nic, 0, 0x100), NIC_OK);
  t_run(nic, 10);
  assert_true(nic_isr(nic) & NIC_ISR_WAKE(0));
  return t_desc_read(nic, 0x100).status;
}

static void serve_one(struct nic *nic, pid_t child) {
  /* Wait for the doorbell: poll, then sleep on the futex; bounded overall. */
  uint64_t deadline = futex_now_ns() + 20000000000ull;
  for (;;) {
    nic_advance(nic, nic_clock(nic) + 1);
    if (nic_events(nic) & NIC_ISR_HOST_SIG) break;
    int st;
    if (waitpid(child, &st, WNOHANG) == child) fail_msg("host exited early: %d", WEXITSTATUS(st));
    assert_true(futex_now_ns() < deadline);
    t_doorbell_wait(nic, 100000000);
  }
  assert_int_equal(nic_doorbells_take(nic), 1);
  nic_isr_clear(nic, NIC_ISR_HOST_SIG);
  uint32_t at = nic_mailbox(nic, 0);
  assert_int_equal(at, CMD);
  struct cmd c;
  assert_int_equal(nic_sram_read(nic, at, &c, sizeof c), NIC_OK);
  assert_int_equal(c.len, LEN);
  /* In: host -> SRAM, with the checksum computed on the way. */
  assert_int_equal(dma(nic, NIC_HDMA_E2L, 0x1000, c.host, c.len, c.ptag), NIC_HDMA_DONE);
  assert_int_equal(t_desc_read(nic, 0x100).csum, c.sum);
  uint8_t want[LEN];
  t_fill(want, LEN, 21);
  assert_memory_equal(nic_sram_ptr(nic, 0x1000, LEN), want, LEN);
  /* Out: SRAM -> host, inside the region; then outside it, and with a wrong tag. */
  assert_int_equal(dma(nic, NIC_HDMA_L2E, 0x1000, c.host + BACK, c.len, c.ptag), NIC_HDMA_DONE);
  assert_int_equal(dma(nic, NIC_HDMA_L2E, 0x1000, c.host + REGION, 100, c.ptag), NIC_HDMA_EPROT);
  assert_int_equal(dma(nic, NIC_HDMA_L2E, 0x1000, c.host + REGION - 50, 100, c.ptag),
                   NIC_HDMA_EPROT);
  assert_int_equal(dma(nic, NIC_HDMA_L2E, 0x1000, c.host, 100, c.ptag + 1), NIC_HDMA_EPTAG);
  nic_signal_host(nic, 1);
  int st;
  assert_int_equal(waitpid(child, &st, 0), child);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

static void two_processes_inherited_fd(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  int fd = nic_window(nic)->fd;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(host_main(fd, NULL));
  serve_one(nic, pid);
  nic_destroy(nic);
}

static void two_processes_by_name(void **state) {
  (void)state;
  char name[64];
  snprintf(name, sizeof name, "/verinic-t2p-%d", (int)getpid());
  struct nic_config cfg;
  nic_config_default(&cfg);
  cfg.shm_name = name;
  cfg.sram_size = 256 * 1024;
  struct nic *nic = nic_create(&cfg, NULL);
  assert_non_null(nic);
  nic_imr_set(nic, ~0u);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(host_main(-1, name));
  serve_one(nic, pid);
  nic_destroy(nic);
}

static void stopped_nic_is_an_error(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_MODEL);
  int fd = nic_window(nic)->fd;
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    struct hwin w;
    if (hwin_open_fd(&w, fd) != 0) _exit(10);
    if (write(ready[1], "r", 1) != 1) _exit(11);
    uint32_t got;
    int rc = wait_signal(w.regs, 1, -1, 0, NULL, NULL, &got); /* no time limit: only the stop can end it */
    hwin_close(&w);
    _exit(rc == -EPIPE ? 0 : 12);
  }
  char r;
  assert_int_equal(read(ready[0], &r, 1), 1);
  nic_destroy(nic); /* marks the window stopped and wakes the waiter */
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  close(ready[0]);
  close(ready[1]);
}

static void killed_nic_is_an_error(void **state) {
  (void)state;
  char name[64];
  snprintf(name, sizeof name, "/verinic-kill-%d", (int)getpid());
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) { /* the NIC process ("nicd"), killed without any clean-up */
    struct nic_config cfg;
    nic_config_default(&cfg);
    cfg.shm_name = name;
    cfg.sram_size = 64 * 1024;
    struct nic *nic = nic_create(&cfg, NULL);
    if (!nic || write(ready[1], "r", 1) != 1) _exit(10);
    for (;;) t_doorbell_wait(nic, -1);
  }
  char r;
  assert_int_equal(read(ready[0], &r, 1), 1);
  struct hwin w;
  assert_int_equal(hwin_open(&w, name), 0);
  assert_true(hwin_nic_alive(&w));
  kill(pid, SIGKILL);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  uint32_t got;
  assert_int_equal(wait_signal(w.regs, 1, -1, 0, NULL, NULL, &got), -EPIPE);
  hwin_close(&w);
  shm_unlink(name);
  close(ready[0]);
  close(ready[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_processes_inherited_fd),
      cmocka_unit_test(two_processes_by_name),
      cmocka_unit_test(stopped_nic_is_an_error),
      cmocka_unit_test(killed_nic_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
