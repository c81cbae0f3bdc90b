/* The send DMA engine: one fragment (SML) or message end (SMLT) at a time from SRAM onto the
 * link as a link frame. The bytes are read from SRAM when the fragment completes, so firmware
 * that reuses the buffer before NIC_ISR_SEND sends what it wrote. */
#include "link.h"
#include "nic_internal.h"

int nic_send_start(struct nic *nic, uint16_t dst, uint32_t sram, uint32_t len, unsigned flags) {
  if (nic->send.busy) return NIC_EBUSY;
  if (flags != NIC_SEND_SML && flags != NIC_SEND_SMLT) return NIC_EINVAL;
  if (len > HW_LINK_MAX_PAYLOAD) return NIC_EINVAL;
  if (nic->send.open_dst >= 0 && nic->send.open_dst != dst) return NIC_EINVAL;
  if (!nic_sram_ok(nic, sram, len)) return NIC_ERANGE;
  nic->send.busy = true;
  nic->send.dst = dst;
  nic->send.sram = sram;
  nic->send.len = len;
  nic->send.flags = flags;
  nic->send.open_dst = flags == NIC_SEND_SML ? dst : -1;
  uint64_t dur = nic_xfer_ns(nic, nic->cfg.link_bytes_per_s, nic->cfg.send_latency_ns, len);
  nic->send.due = nic->now + dur;
  nic_ctr_add(nic, HW_CTR_SEND_BUSY_NS, dur);
  nic_trace(nic, NIC_ENG_SEND, nic->now, nic->send.due);
  return NIC_OK;
}

bool nic_send_busy(const struct nic *nic) { return nic->send.busy; }

uint64_t nic_send_due(const struct nic *nic) { return nic->send.busy ? nic->send.due : NIC_NEVER; }

void nic_send_fire(struct nic *nic) {
  struct hw_link_hdr h = {
      .dst = nic->send.dst,
      .src = nic->cfg.node,
      .flags = nic->send.flags == NIC_SEND_SMLT ? HW_LINK_EOM : 0,
      .len = nic->send.len,
      .frame = nic->send.frame++,
  };
  nic->send.busy = false;
  if (nic->fab && fabric_send_link(nic->fab, &h, nic->sram + nic->send.sram, nic->now) == 0) {
    nic_ctr_add(nic, HW_CTR_SEND_FRAMES, 1);
    nic_ctr_add(nic, HW_CTR_SEND_BYTES, h.len);
  } else {
    nic_ctr_add(nic, HW_CTR_SEND_DROPS, 1); /* the link loses it; the engine still finishes */
  }
  nic_isr_set(nic, NIC_ISR_SEND);
}
