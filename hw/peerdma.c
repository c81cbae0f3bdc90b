/* peerdma.c: the peer DMA engine (peerdma.h): a registry of the NICs of this process by node,
 * and the copy between two of their SRAMs. */
#include "peerdma.h"

#include <errno.h>
#include <string.h>

#include "nic_internal.h"
#include "window.h"

#define PEERDMA_MAX 64u

static struct nic *peers[PEERDMA_MAX];

void peerdma_attach(struct nic *nic) {
  for (unsigned i = 0; i < PEERDMA_MAX; i++)
    if (!peers[i]) {
      peers[i] = nic;
      return;
    }
}

void peerdma_detach(struct nic *nic) {
  for (unsigned i = 0; i < PEERDMA_MAX; i++)
    if (peers[i] == nic) peers[i] = NULL;
}

static struct nic *find(uint16_t node) {
  for (unsigned i = 0; i < PEERDMA_MAX; i++)
    if (peers[i] && nic_node(peers[i]) == node) return peers[i];
  return NULL;
}

int peerdma_copy(struct nic *src, uint16_t node, uint32_t from, uint32_t to, uint32_t len,
                 unsigned db) {
  struct nic *dst = find(node);
  if (!dst) return -ENODEV;
  const uint8_t *s = len >= 4 ? nic_sram_ptr(src, from, len) : NULL;
  uint8_t *d = len >= 4 && to % 4 == 0 ? nic_sram_ptr(dst, to, len) : NULL;
  if (!s || !d) return -ERANGE;
  uint32_t state;
  memcpy(&state, d, 4);
  if (state != 0) return -EBUSY;
  /* the slot's body first, its state word last: the target never sees half a packet */
  memcpy(d + 4, s + 4, len - 4);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  memcpy(d, s, 4);
  int rc = hwin_doorbell(nic_window(dst), db, 1);
  nic_doorbells_sync(dst);   /* the target's event now: its processor may be idle (timing mode) */
  return rc;
}
