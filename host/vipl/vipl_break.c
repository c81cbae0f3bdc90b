/* vipl_break.c: a VI that has left CONNECTED completes everything posted to it. A connection
 * breaks in three ways the firmware does not all see: its own NACK (it flushes its receive
 * ring itself), nicd setting the VI to ERROR because the peer called VipDisconnect or died
 * (the NIC is not told), and nicd itself dying (no firmware runs at all). Descriptors also
 * wait in libnic's L1 list, which only the host holds. So the host library flushes: every
 * VIPL call that looks at a VI (posting, polling, waiting, CQs) first checks its state, and
 * a VI in ERROR has its outstanding descriptors completed with VIP_STATUS_DESC_FLUSHED_ERROR
 * after the completions the NIC already wrote are taken (so nothing the NIC delivered is
 * reported as flushed). When the peer left, nicd also hands the NIC the peer's last delivered
 * message, which the NIC takes as an acknowledgement: the flush waits (at most SETTLE_NS) for
 * the NIC to take it and to complete every send it took from the ring, so that a send the peer
 * received completes DONE, not flushed. Waiters
 * sleep in slices of at most 5 ms and nicd signals the VI when it breaks it, so a blocked call
 * returns within milliseconds of the state change.
 * The first time a VI is seen broken, the error callback (VipErrorCallback) hears of it as VIA
 * reports a lost connection: VIP_ERROR_CONN_LOST on the VI (sends the firmware gave up on after
 * Reliable Delivery's retry limit complete VIP_STATUS_TRANSPORT_ERROR). */
#include "vipl_internal.h"

/* How long a broken VI's flush waits for the NIC to complete the sends its peer received
 * (nicd handed it the peer's last delivered message: hostif.h, rel_seq); a NIC that does not
 * take it by then is not running, and the flush goes on. */
#define SETTLE_NS 250000000u   /* the LANai image on a loaded machine took more than 50 ms */

bool vipl_vi_broken(struct vvi *v) {
  if (lnic_vi_state(v->lv) != HOSTIF_VI_ERROR) return false;
  if (!v->conn_lost) {
    v->conn_lost = true;
    v->broken_ns = lnic_now_ns();
    if (v->nic->err_handler) {
      VIP_ERROR_DESCRIPTOR ed = {.NicHandle = v->nic->handle, .ViHandle = v->handle,
                                 .ResourceCode = VIP_RESOURCE_VI,
                                 .ErrorCode = VIP_ERROR_CONN_LOST};
      v->nic->err_handler(v->nic->err_ctx, &ed);
    }
  }
  if (lnic_wq_outstanding(v->lv, NIC_SQ) || lnic_wq_outstanding(v->lv, NIC_RQ)) {
    lnic_progress(v->lv, NIC_SQ);
    lnic_progress(v->lv, NIC_RQ);
    if (lnic_vi_peer_settling(v->lv) && lnic_now_ns() - v->broken_ns < SETTLE_NS) {
      lnic_vi_kick(v->lv);   /* the NIC completes what the peer received, then its waiters look */
      return true;
    }
    lnic_wq_flush(v->lv, NIC_SQ, HOSTIF_ST_FLUSHED);
    lnic_wq_flush(v->lv, NIC_RQ, HOSTIF_ST_FLUSHED);
    lnic_vi_kick(v->lv);   /* the NIC retires the flushed send slots at once */
  }
  return true;
}
