/* spine_ep.c: IP endpoints (spine.h): an E-UDP datagram endpoint bound to SPINE_IP_PORT,
 * whose sends the firmware puts on the wire as IP messages (WIRE.md, "IP packets"). */
#include <errno.h>
#include <stdlib.h>

#include "spine.h"

struct spine_ep {
  struct lnic_dev *dev;
  struct eudp *u;
};

int spine_ep_open(struct lnic_dev *d, struct spine_ep **out) {
  if (!d || !out) return -EINVAL;
  struct spine_ep *e = calloc(1, sizeof *e);
  if (!e) return -ENOMEM;
  e->dev = d;
  int rc = eudp_open(d, SPINE_IP_PORT, 0, &e->u);
  if (rc) {
    free(e);
    return rc;
  }
  *out = e;
  return 0;
}

void spine_ep_close(struct spine_ep *e) {
  if (!e) return;
  eudp_close(e->u);
  free(e);
}

int spine_send(struct spine_ep *e, uint16_t node, const void *pkt, size_t len) {
  if (!e || (!pkt && len)) return -EINVAL;
  if (len < 20 || len > SPINE_IP_MAX) return -EMSGSIZE;
  return eudp_sendto(e->u, node, SPINE_IP_PORT, pkt, len);
}

ssize_t spine_recvfrom(struct spine_ep *e, void *buf, size_t cap, uint16_t *node,
                       int64_t timeout_ns) {
  if (!e) return -EINVAL;
  return eudp_recvfrom(e->u, buf, cap, NULL, node, NULL, timeout_ns);
}

ssize_t spine_recv(struct spine_ep *e, void *buf, size_t cap, int64_t timeout_ns) {
  return spine_recvfrom(e, buf, cap, NULL, timeout_ns);
}
