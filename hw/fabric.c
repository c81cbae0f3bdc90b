/* Shared fabric helpers. */
#include "fabric.h"

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
