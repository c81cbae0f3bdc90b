/* The host DMA engine: both directions, chains, checksum while copying, emulated timing,
 * channel arbitration, and every refusal (protection, tag, access, SRAM, descriptor). */
#include <errno.h>
#include <string.h>

#include "hwtest.h"

#define PTAG 0x77

struct fix {
  struct nic *nic;
  struct hostmem mem;
  uint64_t host;   /* host address of the registered region (the first 64 KiB) */
  int region;
};

static int setup(void **state) {
  static struct fix f;
  memset(&f, 0, sizeof f);
  f.nic = t_nic(0, NIC_TIMING_MODEL);
  assert_int_equal(hostmem_create(&f.mem, 128 * 1024), 0);
  f.region = hwin_region_add(nic_window(f.nic), &f.mem, 0, 64 * 1024, PTAG,
                             HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, &f.host);
  assert_true(f.region >= 0);
  assert_true(f.host == (uint64_t)(uintptr_t)f.mem.base);
  *state = &f;
  return 0;
}

static int teardown(void **state) {
  struct fix *f = *state;
  nic_destroy(f->nic);
  hostmem_destroy(&f->mem);
  return 0;
}

static void e2l_single(void **state) {
  struct fix *f = *state;
  t_fill(f->mem.base, 1000, 1);
  t_desc(f->nic, 0x100, 0, NIC_HDMA_E2L | NIC_HDMA_TERMINAL | NIC_HDMA_WAKE, 1000, 0x1000,
         f->host, PTAG);
  assert_int_equal(nic_hdma_start(f->nic, 0, 0x100), NIC_OK);
  assert_int_equal(nic_hdma_start(f->nic, 0, 0x100), NIC_EBUSY);
  /* 500 ns set-up + 1000 B at 528 MB/s = 1893.9 -> 1894 ns */
  assert_true(nic_next_due(f->nic) == 2394);
  nic_advance(f->nic, 2393);
  assert_int_equal(nic_isr(f->nic) & NIC_ISR_WAKE(0), 0);
  assert_int_equal(t_desc_read(f->nic, 0x100).status, NIC_HDMA_PENDING);
  nic_advance(f->nic, 2394);
  assert_true(nic_events(f->nic) & NIC_ISR_WAKE(0));
  struct nic_hdma_desc d = t_desc_read(f->nic, 0x100);
  assert_int_equal(d.status, NIC_HDMA_DONE);
  assert_int_equal(d.csum, t_ref_sum(f->mem.base, 1000));
  assert_memory_equal(nic_sram_ptr(f->nic, 0x1000, 1000), f->mem.base, 1000);
  struct nic_hdma_chan_status st;
  nic_hdma_status(f->nic, 0, &st);
  assert_false(st.busy);
  assert_int_equal(st.error, NIC_HDMA_DONE);
  assert_int_equal(st.descs, 1);
  assert_int_equal(st.bytes, 1000);
  assert_int_equal(st.csum, (uint16_t)~t_ref_sum(f->mem.base, 1000));
  assert_int_equal(nic_counter(f->nic, HW_CTR_HDMA_BYTES), 1000);
  assert_int_equal(nic_counter(f->nic, HW_CTR_HDMA_BUSY_NS), 2394);
}

static void l2e_single(void **state) {
  struct fix *f = *state;
  uint8_t *src = nic_sram_ptr(f->nic, 0x2000, 777);
  t_fill(src, 777, 2);
  memset(f->mem.base, 0xee, 2000);
  t_desc(f->nic, 0x100, 0, NIC_HDMA_L2E | NIC_HDMA_TERMINAL | NIC_HDMA_WAKE, 777, 0x2000,
         f->host + 100, PTAG);
  nic_hdma_start(f->nic, 1, 0x100);
  t_run(f->nic, 10);
  assert_true(nic_isr(f->nic) & NIC_ISR_WAKE(1));
  assert_memory_equal(f->mem.base + 100, src, 777);
  assert_int_equal(f->mem.base[99], 0xee);
  assert_int_equal(f->mem.base[877], 0xee);
  assert_int_equal(t_desc_read(f->nic, 0x100).csum, t_ref_sum(src, 777));
}

static void chain_with_odd_lengths(void **state) {
  struct fix *f = *state;
  t_fill(f->mem.base, 64, 3);
  /* Gather 3 + 5 + 8 bytes from scattered host places into one contiguous SRAM message. */
  uint32_t lens[] = {3, 5, 8}, hoff[] = {40, 7, 20}, soff = 0x3000;
  for (int i = 0; i < 3; i++) {
    uint16_t fl = NIC_HDMA_E2L | (i == 2 ? NIC_HDMA_TERMINAL | NIC_HDMA_WAKE : 0);
    t_desc(f->nic, 0x200 + 32 * i, 0x200 + 32 * (i + 1), fl, lens[i], soff, f->host + hoff[i],
           PTAG);
    soff += lens[i];
  }
  nic_hdma_start(f->nic, 2, 0x200);
  nic_advance(f->nic, 500 + 6); /* the first descriptor only (3 B take 6 ns) */
  assert_int_equal(t_desc_read(f->nic, 0x200).status, NIC_HDMA_DONE);
  assert_int_equal(t_desc_read(f->nic, 0x220).status, NIC_HDMA_PENDING);
  assert_int_equal(nic_isr(f->nic) & NIC_ISR_WAKE(2), 0); /* no WAKE flag on it */
  t_run(f->nic, 10);
  assert_true(nic_isr(f->nic) & NIC_ISR_WAKE(2));
  uint8_t want[16];
  memcpy(want, f->mem.base + 40, 3);
  memcpy(want + 3, f->mem.base + 7, 5);
  memcpy(want + 8, f->mem.base + 20, 8);
  assert_memory_equal(nic_sram_ptr(f->nic, 0x3000, 16), want, 16);
  struct nic_hdma_chan_status st;
  nic_hdma_status(f->nic, 2, &st);
  assert_int_equal(st.descs, 3);
  assert_int_equal(st.bytes, 16);
  assert_int_equal(st.sum, t_ref_sum(want, 16)); /* odd boundaries handled */
  assert_int_equal(st.cur, 0x240);
}

static void large_transfer(void **state) {
  struct fix *f = *state;
  t_fill(f->mem.base, 64 * 1024, 4);
  t_desc(f->nic, 0x100, 0, NIC_HDMA_E2L | NIC_HDMA_TERMINAL, 64 * 1024, 0x10000, f->host, PTAG);
  nic_hdma_start(f->nic, 0, 0x100);
  t_run(f->nic, 10);
  assert_int_equal(t_desc_read(f->nic, 0x100).status, NIC_HDMA_DONE);
  assert_int_equal(nic_isr(f->nic) & NIC_ISR_WAKE(0), 0); /* no WAKE asked */
  assert_memory_equal(nic_sram_ptr(f->nic, 0x10000, 64 * 1024), f->mem.base, 64 * 1024);
  assert_int_equal(t_desc_read(f->nic, 0x100).csum, t_ref_sum(f->mem.base, 64 * 1024));
  /* 64 KiB at 528 MB/s is 124.1 us */
  assert_true(nic_clock(f->nic) == 500 + 124122);
}

/* Starts one descriptor and runs it; returns its status. SRAM and host memory are checked
 * untouched by the caller. */
static uint32_t run_one(struct fix *f, unsigned ch, uint16_t flags, uint32_t len, uint32_t sram,
                        uint64_t host, uint32_t ptag) {
  nic_isr_clear(f->nic, ~0u);
  t_desc(f->nic, 0x100, 0, flags | NIC_HDMA_TERMINAL, len, sram, host, ptag);
  assert_int_equal(nic_hdma_start(f->nic, ch, 0x100), NIC_OK);
  t_run(f->nic, 10);
  struct nic_hdma_chan_status st;
  nic_hdma_status(f->nic, ch, &st);
  uint32_t s = t_desc_read(f->nic, 0x100).status;
  assert_int_equal(st.error, s);
  if (s != NIC_HDMA_DONE) {
    assert_true(nic_isr(f->nic) & NIC_ISR_WAKE(ch)); /* errors always wake */
    assert_int_equal(st.bytes, 0);
  }
  return s;
}

static void protection(void **state) {
  struct fix *f = *state;
  memset(nic_sram_ptr(f->nic, 0x4000, 4096), 0x5a, 4096);
  memset(f->mem.base, 0x11, 128 * 1024);
  uint64_t end = f->host + 64 * 1024;
  /* Inside the segment but past the registered region, straddling its end, far away. */
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x4000, end, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x4000, end - 8, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_L2E, 16, 0x4000, end, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_L2E, 16, 0x4000, 0x1000, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_L2E, 16, 0x4000, UINT64_MAX - 4, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x4000, f->host - 1, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 1, NIC_HDMA_L2E, 16, 0x4000, f->host, PTAG + 1), NIC_HDMA_EPTAG);
  /* The exact last bytes of the region are fine. */
  assert_int_equal(run_one(f, 1, NIC_HDMA_E2L, 8, 0x5000, end - 8, PTAG), NIC_HDMA_DONE);
  for (int i = 0; i < 4096; i++) assert_int_equal(*(uint8_t *)nic_sram_ptr(f->nic, 0x4000 + i, 1), 0x5a);
  for (int i = 0; i < 128 * 1024; i++) assert_int_equal(f->mem.base[i], 0x11);
  assert_int_equal(nic_counter(f->nic, HW_CTR_HDMA_ERRORS), 7);
  /* A read-only region refuses L2E; a removed region refuses everything. */
  uint64_t ro;
  int id = hwin_region_add(nic_window(f->nic), &f->mem, 96 * 1024, 4096, PTAG, HW_ACC_NIC_READ, &ro);
  assert_true(id >= 0);
  assert_int_equal(run_one(f, 0, NIC_HDMA_L2E, 16, 0x4000, ro, PTAG), NIC_HDMA_EACCESS);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x6000, ro, PTAG), NIC_HDMA_DONE);
  assert_int_equal(hwin_region_remove(nic_window(f->nic), id), 0);
  assert_int_equal(hwin_region_remove(nic_window(f->nic), id), -ENOENT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x6000, ro, PTAG), NIC_HDMA_EPROT);
  /* The engine tries the last translation's region first: a region added after, perhaps in
   * the same slot, translates its own range only, and the first region still translates. */
  uint64_t other;
  int id2 = hwin_region_add(nic_window(f->nic), &f->mem, 100 * 1024, 4096, PTAG, HW_ACC_NIC_READ,
                            &other);
  assert_true(id2 >= 0);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x6000, other, PTAG), NIC_HDMA_DONE);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x6000, ro, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x6000, other + 4090, PTAG), NIC_HDMA_EPROT);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, 0x6000, f->host, PTAG), NIC_HDMA_DONE);
  assert_int_equal(run_one(f, 0, NIC_HDMA_L2E, 16, 0x4000, other, PTAG), NIC_HDMA_EACCESS);
  assert_int_equal(hwin_region_remove(nic_window(f->nic), id2), 0);
  for (int i = 0; i < 128 * 1024; i++) assert_int_equal(f->mem.base[i], 0x11);
  assert_int_equal(nic_isr(f->nic) & NIC_ISR_MEMORY, 0);
}

static void region_table_rules(void **state) {
  struct fix *f = *state;
  struct hwin *w = nic_window(f->nic);
  uint64_t a;
  assert_int_equal(hwin_region_add(w, &f->mem, 0, 0, 1, HW_ACC_NIC_READ, &a), -EINVAL);
  assert_int_equal(hwin_region_add(w, &f->mem, 1, f->mem.len, 1, HW_ACC_NIC_READ, &a), -EINVAL);
  assert_int_equal(hwin_region_add(w, &f->mem, 0, 16, 1, 0, &a), -EINVAL);
  assert_int_equal(hwin_region_add(w, &f->mem, 0, 16, 1, 8, &a), -EINVAL);
  int n = 1; /* the fixture's region */
  while (hwin_region_add(w, &f->mem, 0, 16, 1, HW_ACC_NIC_READ, &a) >= 0) n++;
  assert_int_equal(n, HW_REGIONS);
  assert_int_equal(hwin_region_add(w, &f->mem, 0, 16, 1, HW_ACC_NIC_READ, &a), -ENOSPC);
  assert_int_equal(hwin_region_remove(w, -1), -EINVAL);
  assert_int_equal(hwin_region_remove(w, HW_REGIONS), -EINVAL);
}

static void sram_and_descriptor_errors(void **state) {
  struct fix *f = *state;
  uint32_t size = nic_sram_size(f->nic);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L, 16, size - 8, f->host, PTAG), NIC_HDMA_ESRAM);
  assert_true(nic_isr(f->nic) & NIC_ISR_MEMORY);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L | NIC_HDMA_L2E, 16, 0, f->host, PTAG), NIC_HDMA_EDESC);
  assert_int_equal(run_one(f, 0, 0, 16, 0, f->host, PTAG), NIC_HDMA_EDESC);
  assert_int_equal(run_one(f, 0, NIC_HDMA_E2L | 0x100, 16, 0, f->host, PTAG), NIC_HDMA_EDESC);
  /* Descriptor outside the SRAM or misaligned: refused at start, reported like the rest. */
  struct nic_hdma_chan_status st;
  nic_isr_clear(f->nic, ~0u);
  assert_int_equal(nic_hdma_start(f->nic, 3, size - 16), NIC_OK);
  nic_hdma_status(f->nic, 3, &st);
  assert_int_equal(st.error, NIC_HDMA_EDESC);
  assert_false(st.busy);
  assert_true(nic_isr(f->nic) & (NIC_ISR_WAKE(3) | NIC_ISR_MEMORY));
  assert_int_equal(nic_hdma_start(f->nic, 3, 0x102), NIC_OK);
  nic_hdma_status(f->nic, 3, &st);
  assert_int_equal(st.error, NIC_HDMA_EDESC);
  assert_int_equal(nic_hdma_start(f->nic, NIC_HDMA_CHANNELS, 0x100), NIC_EINVAL);
  assert_int_equal(nic_hdma_status(f->nic, NIC_HDMA_CHANNELS, &st), NIC_EINVAL);
  /* A next pointer leading out of the SRAM stops the chain after the good descriptor. */
  t_desc(f->nic, 0x100, size, NIC_HDMA_E2L, 4, 0x7000, f->host, PTAG);
  nic_hdma_start(f->nic, 0, 0x100);
  t_run(f->nic, 10);
  nic_hdma_status(f->nic, 0, &st);
  assert_int_equal(st.error, NIC_HDMA_EDESC);
  assert_int_equal(st.descs, 1);
  assert_int_equal(t_desc_read(f->nic, 0x100).status, NIC_HDMA_DONE);
  assert_string_equal(nic_hdma_status_name(NIC_HDMA_EPTAG), "protection tag mismatch");
}

static void endless_chain_is_cut(void **state) {
  struct fix *f = *state;
  /* A descriptor pointing at itself, never TERMINAL. */
  t_desc(f->nic, 0x100, 0x100, NIC_HDMA_E2L, 0, 0, 0, PTAG);
  nic_hdma_start(f->nic, 0, 0x100);
  unsigned steps = t_run(f->nic, 2 * NIC_HDMA_MAX_CHAIN);
  assert_true(steps <= NIC_HDMA_MAX_CHAIN);
  struct nic_hdma_chan_status st;
  nic_hdma_status(f->nic, 0, &st);
  assert_false(st.busy);
  assert_int_equal(st.error, NIC_HDMA_EDESC);
  assert_int_equal(st.descs, NIC_HDMA_MAX_CHAIN);
}

static void channels_share_the_engine(void **state) {
  struct fix *f = *state;
  /* Two 2-descriptor chains on channels 0 and 1: the engine alternates between them. */
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 2; i++) {
      uint32_t at = 0x400 + 0x100 * c + 32 * i;
      t_desc(f->nic, at, at + 32, NIC_HDMA_E2L | (i ? NIC_HDMA_TERMINAL | NIC_HDMA_WAKE : 0), 528,
             0x8000 + 0x1000 * c + 528 * i, f->host, PTAG);
    }
  nic_hdma_start(f->nic, 0, 0x400);
  nic_hdma_start(f->nic, 1, 0x500);
  /* Each descriptor: 500 + 1000 ns. */
  uint32_t order[4][2] = {{0x400, 1500}, {0x500, 3000}, {0x420, 4500}, {0x520, 6000}};
  for (int k = 0; k < 4; k++) {
    assert_true(nic_step(f->nic));
    assert_true(nic_clock(f->nic) == order[k][1]);
    assert_int_equal(t_desc_read(f->nic, order[k][0]).status, NIC_HDMA_DONE);
    for (int j = k + 1; j < 4; j++)
      assert_int_equal(t_desc_read(f->nic, order[j][0]).status, NIC_HDMA_PENDING);
  }
  assert_int_equal(nic_isr(f->nic) & (NIC_ISR_WAKE(0) | NIC_ISR_WAKE(1)),
                   NIC_ISR_WAKE(0) | NIC_ISR_WAKE(1));
}

static void fast_mode(void **state) {
  (void)state;
  struct nic *nic = t_nic(0, NIC_TIMING_FAST);
  struct hostmem m;
  assert_int_equal(hostmem_create(&m, 1 << 20), 0);
  uint64_t host;
  assert_true(hwin_region_add(nic_window(nic), &m, 0, 1 << 20, 1, HW_ACC_NIC_READ, &host) >= 0);
  t_fill(m.base, 1 << 20, 6);
  t_desc(nic, 0x100, 0, NIC_HDMA_E2L | NIC_HDMA_TERMINAL | NIC_HDMA_WAKE, 1 << 20, 0x100000, host, 1);
  nic_hdma_start(nic, 0, 0x100);
  assert_true(nic_next_due(nic) == 0);
  nic_advance(nic, 0);
  assert_true(nic_isr(nic) & NIC_ISR_WAKE(0));
  assert_true(nic_clock(nic) == 0);
  assert_memory_equal(nic_sram_ptr(nic, 0x100000, 1 << 20), m.base, 1 << 20);
  assert_int_equal(t_desc_read(nic, 0x100).csum, t_ref_sum(m.base, 1 << 20));
  nic_destroy(nic);
  hostmem_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(e2l_single, setup, teardown),
      cmocka_unit_test_setup_teardown(l2e_single, setup, teardown),
      cmocka_unit_test_setup_teardown(chain_with_odd_lengths, setup, teardown),
      cmocka_unit_test_setup_teardown(large_transfer, setup, teardown),
      cmocka_unit_test_setup_teardown(protection, setup, teardown),
      cmocka_unit_test_setup_teardown(region_table_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(sram_and_descriptor_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(endless_chain_is_cut, setup, teardown),
      cmocka_unit_test_setup_teardown(channels_share_the_engine, setup, teardown),
      cmocka_unit_test(fast_mode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
