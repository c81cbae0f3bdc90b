/* The receive DMA engine: frames from the link append to the armed buffer until one marked
 * end of message (SMLT). While a message is in progress only its sender's frames are taken,
 * as a Myrinet worm holds the path; others wait in the fabric. A frame is moved into SRAM in the
 * pass that checks its CRC (fabric_poll_copy); one that fails leaves bytes past the message's
 * end, which nothing reads. A frame the fabric delivers cut-through (nic_recv_direct) is
 * moved from the sender's SRAM at its send. Bytes beyond the buffer are discarded and the
 * message flagged truncated. */
#include <string.h>

#include "link.h"
#include "nic_internal.h"

int nic_recv_arm(struct nic *nic, uint32_t sram, uint32_t cap) {
  if (nic->recv.st.state == NIC_RECV_ARMED) return NIC_EBUSY;
  if (!nic_sram_ok(nic, sram, cap)) return NIC_ERANGE;
  nic->recv.base = sram;
  nic->recv.cap = cap;
  memset(&nic->recv.st, 0, sizeof nic->recv.st);
  nic->recv.st.state = NIC_RECV_ARMED;
  return NIC_OK;
}

void nic_recv_status(const struct nic *nic, struct nic_recv_status *st) { *st = nic->recv.st; }

int nic_recv_abort(struct nic *nic) {
  if (nic->recv.st.state != NIC_RECV_ARMED) return NIC_EINVAL;
  nic->recv.st.state = NIC_RECV_DONE;
  nic->recv.lock = FAB_ANY;
  return NIC_OK;
}

uint64_t nic_recv_due(struct nic *nic) {
  if (nic->recv.st.state != NIC_RECV_ARMED || !nic->fab) return NIC_NEVER;
  return fabric_next_due(nic->fab, nic->cfg.node, nic->recv.lock);
}

/* A frame of len bytes from src taken into the armed buffer, n of them stored. */
static void took(struct nic *nic, uint16_t src, uint8_t flags, uint32_t len, uint32_t n) {
  struct nic_recv_status *st = &nic->recv.st;
  if (st->frags == 0) {
    st->src = src;
    nic->recv.lock = src;
    nic_isr_set(nic, NIC_ISR_HEAD);
  }
  st->len += n;
  if (n < len && !(st->flags & NIC_RECV_TRUNC)) {
    st->flags |= NIC_RECV_TRUNC;
    nic_isr_set(nic, NIC_ISR_BUFF);
    nic_ctr_add(nic, HW_CTR_RECV_TRUNC, 1);
  }
  st->msg_len = len > UINT32_MAX - st->msg_len ? UINT32_MAX : st->msg_len + len;
  st->frags++;
  nic_ctr_add(nic, HW_CTR_RECV_FRAMES, 1);
  nic_ctr_add(nic, HW_CTR_RECV_BYTES, n);
  if (nic->cfg.trace) {
    uint64_t on_link = nic_xfer_ns(nic, nic->cfg.link_bytes_per_s, 0, len);
    nic_trace(nic, NIC_ENG_RECV, nic->now > on_link ? nic->now - on_link : 0, nic->now);
  }
  if (flags & HW_LINK_EOM) {
    st->flags |= NIC_RECV_EOM;
    st->state = NIC_RECV_DONE;
    nic->recv.lock = FAB_ANY;
    nic_ctr_add(nic, HW_CTR_RECV_MSGS, 1);
    nic_isr_set(nic, NIC_ISR_RECV);
  }
}

static uint32_t room(const struct nic *nic) { return nic->recv.cap - nic->recv.st.len; }

void nic_recv_fire(struct nic *nic) {
  struct fabric_rx rx;
  uint32_t left = room(nic);
  if (fabric_poll_copy(nic->fab, nic->cfg.node, nic->recv.lock, nic->now, &rx,
                       nic->sram + nic->recv.base + nic->recv.st.len, left) != 1)
    return;
  took(nic, rx.src, rx.flags, rx.len, rx.len < left ? rx.len : left);
}

bool nic_recv_direct(struct nic *nic, const struct hw_link_hdr *h, const void *payload) {
  if (nic->recv.st.state != NIC_RECV_ARMED || !nic->fab) return false;
  if (nic->recv.lock != FAB_ANY ? nic->recv.lock != h->src
                                : fabric_next_due(nic->fab, nic->cfg.node, FAB_ANY) != FAB_NEVER)
    return false;   /* another sender's message holds the engine, or frames wait before it */
  uint32_t left = room(nic), n = h->len < left ? h->len : left;
  if (n) memcpy(nic->sram + nic->recv.base + nic->recv.st.len, payload, n);
  took(nic, h->src, h->flags, h->len, n);
  return true;
}
