/* Shared fabric helpers. */
#include "fabric.h"

#include <string.h>

int fabric_poll_copy(struct fabric *f, uint16_t node, int from, uint64_t now, struct fabric_rx *rx,
                     void *dst, size_t cap) {
  if (f->ops->poll_copy) return f->ops->poll_copy(f, node, from, now, rx, dst, cap);
  int r = f->ops->poll(f, node, from, now, rx);
  if (r == 1 && cap) memcpy(dst, rx->payload, rx->len < cap ? rx->len : cap);
  return r;
}

const char *fabric_drop_name(enum fab_drop d) {
  switch (d) {
  case FAB_DROP_INJECTED: return "injected";
  case FAB_DROP_NO_ROUTE: return "no-route";
  case FAB_DROP_LINK_DOWN: return "link-down";
  case FAB_DROP_QUEUE_FULL: return "queue-full";
  case FAB_DROP_MALFORMED: return "malformed";
  case FAB_DROP_LENGTH: return "length";
  case FAB_DROP_CRC: return "crc";
  case FAB_DROP_LATE: return "late";
  case FAB_DROP_N: break;
  }
  return "?";
}
