/* fw_hal_rx.c: the receive side of the data path's HAL. recv_arm gives the receive engine the
 * buffer RECV chose; the engine's HEAD/RECV/BUFF events become fw_hal_rx_progress, which snapshots
 * how much of the message is in SRAM (and whether it ended) for rx_bytes and rx_eom, parses
 * the header once it is there, and wakes RECV (recv_frag, coalescing like an ISR bit). Until
 * the 56-byte header has arrived rx_bytes reports nothing, so RDMA never starts before the
 * firmware knows where the data goes. A message that stops arriving is aborted after
 * FW_RX_STALL_NS (timer 0). rx_complete hands the finished buffer to fw_rq.c. */
#include "fw_hal_rx.h"

#include "datapath_hal.h"
#include "fw_rq.h"

void datapath_hal_recv_arm(datapath_t *sys, uint8_t buf) {
  struct fw *fw = fw_of(sys);
  struct fw_rxi *ri = &fw->rxi[buf];
  *ri = (struct fw_rxi){0};
  fw->rx_cur = buf;
  if (fwb_recv_arm(fw->board, FW_RBUF_ADDR(buf), FW_MSGLEN) != 0) fw_fault(fw, HOSTIF_FAULT_RECV_ARM);
}

/* The header of the message in a receive buffer has arrived: parse and check it. */
/*@ requires \valid(ri) && \valid_read(msg + (0 .. FW_WIRE_HDR_LEN - 1));
    requires \separated(ri, msg + (0 .. FW_WIRE_HDR_LEN - 1));
    assigns ri->hdr, ri->hdr_seen, ri->hdr_ok, ri->tail;
    ensures ri->tail <= FW_WIRE_UDP_LEN; */
static void hdr_take(struct fw_rxi *ri, const uint8_t *msg) {
  ri->hdr_seen = true;
  ri->hdr_ok = fw_wire_decode(msg, &ri->hdr);
  /* the tail is known from the header as sent, before classification makes dst_vi the VI */
  ri->tail = ri->hdr_ok ? (uint8_t)fw_wire_tail_len(&ri->hdr) : 0;
  ri->hdr_ok = ri->hdr_ok && ri->hdr.len <= FW_MAX_PAYLOAD - ri->tail;
}

/* Records what the receive engine reports of the current buffer in its fw_rxi: how much has
 * arrived, the header once it is there, the verdict once the message has ended, and the
 * length the stall timer compares (arm). true if RECV should hear of it. Only that record
 * changes; the asserts restate fw_ok piece by piece and step by step, which keeps each proof
 * goal small. */
/*@ requires fw_ok(fw) && 0 <= fw->rx_cur < FW_NRBUF;
    requires \valid_read(st) && \separated(st, fw);
    assigns fw->rxi[fw->rx_cur];
    ensures fw_ok(fw); */
static bool rx_note(struct fw *fw, const struct fwb_recv_status *st, bool arm) {
  struct fw_rxi *ri = &fw->rxi[fw->rx_cur];
  uint32_t bytes = st->len < FW_MSGLEN ? st->len : FW_MSGLEN;
  bool changed = bytes != ri->bytes;
  ri->bytes = bytes;
  if (st->frags) ri->src = st->src;
  //@ assert datapath_inv(&fw->dp);
  if (!ri->hdr_seen && bytes >= FW_WIRE_HDR_LEN)
    hdr_take(ri, fw->sram + FW_RBUF_ADDR(fw->rx_cur));
  //@ assert datapath_inv(&fw->dp);
  if (st->state == FWB_RECV_DONE) {
    ri->eom = true;
    changed = true;
    /* The length test subtracts, so that no header length can wrap it. */
    ri->complete_ok = (st->flags & FWB_RECV_EOM) && !(st->flags & FWB_RECV_TRUNC) &&
                      ri->hdr_ok && st->len >= FW_WIRE_HDR_LEN + FW_TRAILER + ri->tail &&
                      st->len - (FW_WIRE_HDR_LEN + FW_TRAILER + ri->tail) == ri->hdr.len;
  }
  //@ assert datapath_inv(&fw->dp);
  if (arm) ri->last_len = st->len;
  //@ assert datapath_inv(&fw->dp);
  //@ assert FW_BOUNDS(fw);
  return changed;
}

void fw_hal_rx_progress(struct fw *fw) {
  if (fw->rx_cur < 0) return;
  if (fw->rxi[fw->rx_cur].eom) return;
  struct fwb_recv_status st;
  fwb_recv_status(fw->board, &st);
  if (st.state == FWB_RECV_IDLE) return;
  /* Fragments are arriving: the stall timer watches them (fw_hal_rx_tick). */
  bool arm = st.state != FWB_RECV_DONE && st.frags && !fw->rx_timer;
  bool changed = rx_note(fw, &st, arm);
  if (arm) {
    fw->rx_timer = true;
    fwb_timer_set(fw->board, FW_TIMER_RX, FW_RX_STALL_NS);
  }
  if (changed && fw->dp.pending[datapath_EV_recv_frag] == 0)
    (void)datapath_raise(&fw->dp, datapath_EV_recv_frag);
}

/* Timer 0: a message in progress that has not grown since the last tick is given up. */
void fw_hal_rx_tick(struct fw *fw) {
  fw->rx_timer = false;
  //@ assert fw_ok(fw);
  if (fw->rx_cur < 0) return;
  struct fw_rxi *ri = &fw->rxi[fw->rx_cur];
  struct fwb_recv_status st;
  fwb_recv_status(fw->board, &st);
  if (st.state != FWB_RECV_ARMED || st.frags == 0 || ri->eom) return;
  if (st.len != ri->last_len) {
    ri->last_len = st.len;
    fw->rx_timer = true;
    fwb_timer_set(fw->board, FW_TIMER_RX, FW_RX_STALL_NS);
    //@ assert fw_ok(fw);
    return;
  }
  fwb_recv_abort(fw->board);
  fw_hal_rx_progress(fw);
}

int32_t datapath_hal_rx_bytes(datapath_t *sys) {
  struct fw *fw = fw_of(sys);
  if (fw->rx_cur < 0) return 0;
  const struct fw_rxi *ri = &fw->rxi[fw->rx_cur];
  return ri->hdr_seen || ri->eom ? (int32_t)ri->bytes : 0;
}

bool datapath_hal_rx_eom(datapath_t *sys) {
  struct fw *fw = fw_of(sys);
  return fw->rx_cur >= 0 && fw->rxi[fw->rx_cur].eom;
}

void datapath_hal_rx_complete(datapath_t *sys, uint8_t buf, uint16_t len) {
  (void)len;
  struct fw *fw = fw_of(sys);
  fw_rq_finish(fw, buf);
  if (!datapath_raise(sys, datapath_EV_rx_completed)) fw_fault(fw, HOSTIF_FAULT_RAISE_RX_COMPLETED);
}
