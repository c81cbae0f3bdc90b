/* fw_init.c: firmware boot for one NIC: checks the SRAM is large enough for the host
 * interface (hostif.h) and the packet buffers, clears the VI table and counters, initialises
 * the data path machines, unmasks the events the dispatcher handles, and publishes the
 * control block (magic last: hosts wait for it). Freestanding. */
#include "fw_init.h"

#include "fw_reliab.h"
#include "fw_sram.h"
#include "fw_vm_prog.h"

/* The host interface as the hosts may first read it: zero, but for the descriptor slots, which
 * a host fills before it publishes them (it zeroes its rings when it makes a VI: libnic's
 * nic_vi.c). Leaving the slots, 2 of the 2.2 MiB, keeps a LANai's boot short. */
static void host_interface_zero(struct fw *fw) {
  const uint32_t head = (uint32_t)offsetof(struct hostif_vi, sq.slot);
  const uint32_t rq = (uint32_t)offsetof(struct hostif_vi, rq);
  const uint32_t rq_head = (uint32_t)offsetof(struct hostif_ring, slot);
  fw_sram_zero(fw, HOSTIF_BASE, HOSTIF_VI_ADDR(0) - HOSTIF_BASE);
  for (unsigned vi = 0; vi < HOSTIF_NVI; vi++) {
    fw_sram_zero(fw, HOSTIF_VI_ADDR(vi), head);
    fw_sram_zero(fw, HOSTIF_VI_ADDR(vi) + rq, rq_head);
  }
  fw_sram_zero(fw, HOSTIF_COUNTERS_ADDR, HOSTIF_BUF_BASE - HOSTIF_COUNTERS_ADDR);
}

int fw_init(struct fw *fw, struct fw_board *board, const struct fw_config *cfg) {
  uint8_t *z = (uint8_t *)fw;
  for (size_t i = 0; i < sizeof *fw; i++) z[i] = 0;
  fw->board = board;
  fw->cfg = *cfg;
  fw->sram = fwb_sram(board);
  fw->node = fwb_node(board);
  fw->rx_cur = -1;
  if (fwb_sram_size(board) < FW_SRAM_END) return -1;
  host_interface_zero(fw);
  datapath_init(&fw->dp);
  fw->dp.user = fw;
  fw_reliab_init(fw);
  fwb_imr_set(board, FW_ISR_UNMASKED);
  fw_vm_prog_init(fw); /* the PANIC VM, if the SRAM has room for its program memory */
  fw_spine_init(fw);   /* SPINE's router: its control block */
  uint32_t ctrl = HOSTIF_BASE;
  fw_sram_wr32(fw, ctrl + offsetof(struct hostif_ctrl, version), HOSTIF_VERSION);
  fw_sram_wr32(fw, ctrl + offsetof(struct hostif_ctrl, nvi), HOSTIF_NVI);
  fw_sram_wr32(fw, ctrl + offsetof(struct hostif_ctrl, vi_off), HOSTIF_VI_ADDR(0));
  fw_sram_wr32(fw, ctrl + offsetof(struct hostif_ctrl, counters_off), HOSTIF_COUNTERS_ADDR);
  fw_sram_release();
  fw_sram_wr32(fw, ctrl + offsetof(struct hostif_ctrl, magic), HOSTIF_MAGIC);
  return 0;
}
