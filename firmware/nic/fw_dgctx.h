/* fw_dgctx.h: a datagram VI's reassembly contexts (fw_dgctx.c). Freestanding. */
#ifndef FW_DGCTX_H
#define FW_DGCTX_H

#include "fw.h"
#include "fw_vi.h"

/* Classifies a datagram message for datagram VI vi (fw_rq.c found it by port): a first
 * message takes a context and a receive descriptor, a later one must continue its datagram's
 * context. Sets ri's verdict, drop reason, context and host pieces. */
void fw_dgctx_classify(struct fw *fw, struct fw_rxi *ri, unsigned vi, const struct fw_vi_view *w);
/* The message in receive buffer buf was dropped: its datagram is given up, the descriptor
 * kept for the next datagram. */
void fw_dgctx_abandon(struct fw *fw, unsigned buf);
/* The message in receive buffer buf was delivered: its datagram continues, or completes. */
void fw_dgctx_deliver(struct fw *fw, unsigned buf);
/* The VI's receive queue starts again at its done index: every context free. */
void fw_dgctx_reset(struct fw *fw, unsigned vi);

#endif
