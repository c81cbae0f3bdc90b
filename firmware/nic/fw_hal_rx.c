/* fw_hal_rx.c: the receive side of the data path's HAL. recv_arm gives the receive engine the
 * buffer RECV chose; the engine's HEAD/RECV/BUFF events become fw_rx_progress, which snapshots
 * how much of the message is in SRAM (and whether it ended) for rx_bytes and rx_eom, parses
 * the header once it is there, and wakes RECV (recv_frag, coalescing like an ISR bit). Until
 * the 56-byte header has arrived rx_bytes reports nothing, so RDMA never starts before the
 * firmware knows where the data goes. A message that stops arriving is aborted after
 * FW_RX_STALL_NS (timer 0). rx_complete hands the finished buffer to fw_rq.c. */
#include "datapath_hal.h"
#include "fw_sram.h"

void datapath_hal_recv_arm(datapath_t *sys, uint8_t buf) {
  struct fw *fw = fw_of(sys);
  struct fw_rxi *ri = &fw->rxi[buf];
  *ri = (struct fw_rxi){0};
  fw->rx_cur = buf;
  if (fwb_recv_arm(fw->board, FW_RBUF_ADDR(buf), FW_MSGLEN) != 0) fw_count32(&fw->faults);
}

void fw_rx_progress(struct fw *fw) {
  if (fw->rx_cur < 0) return;
  struct fw_rxi *ri = &fw->rxi[fw->rx_cur];
  if (ri->eom) return;
  struct fwb_recv_status st;
  fwb_recv_status(fw->board, &st);
  if (st.state == FWB_RECV_IDLE) return;
  uint32_t bytes = st.len < FW_MSGLEN ? st.len : FW_MSGLEN;
  bool changed = bytes != ri->bytes;
  ri->bytes = bytes;
  if (st.frags) ri->src = st.src;
  if (!ri->hdr_seen && bytes >= FW_WIRE_HDR_LEN) {
    ri->hdr_seen = true;
    ri->hdr_ok = fw_wire_decode(fw->sram + FW_RBUF_ADDR(fw->rx_cur), &ri->hdr) &&
                 ri->hdr.len <= FW_MAX_PAYLOAD;
  }
  if (st.state == FWB_RECV_DONE) {
    ri->eom = true;
    changed = true;
    ri->complete_ok = (st.flags & FWB_RECV_EOM) && !(st.flags & FWB_RECV_TRUNC) && ri->hdr_ok &&
                      st.len == FW_WIRE_HDR_LEN + ri->hdr.len + FW_TRAILER;
  } else if (st.frags && !fw->rx_timer) {
    fw->rx_timer = true;
    ri->last_len = st.len;
    fwb_timer_set(fw->board, FW_TIMER_RX, FW_RX_STALL_NS);
  }
  if (changed && fw->dp.pending[datapath_EV_recv_frag] == 0)
    (void)datapath_raise(&fw->dp, datapath_EV_recv_frag);
}

/* Timer 0: a message in progress that has not grown since the last tick is given up. */
void fw_rx_tick(struct fw *fw) {
  fw->rx_timer = false;
  if (fw->rx_cur < 0) return;
  struct fw_rxi *ri = &fw->rxi[fw->rx_cur];
  struct fwb_recv_status st;
  fwb_recv_status(fw->board, &st);
  if (st.state != FWB_RECV_ARMED || st.frags == 0 || ri->eom) return;
  if (st.len == ri->last_len) {
    fwb_recv_abort(fw->board);
  } else {
    ri->last_len = st.len;
    fw->rx_timer = true;
    fwb_timer_set(fw->board, FW_TIMER_RX, FW_RX_STALL_NS);
    return;
  }
  fw_rx_progress(fw);
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
  fw_rx_finish(fw, buf);
  if (!datapath_raise(sys, datapath_EV_rx_completed)) fw_count32(&fw->faults);
}
