/* pn_display.c: reading the DISPLAY ring of the PANIC control area: the firmware puts
 * (program, value) entries at display_head, the one reading host takes them from
 * display_tail; a full ring makes the firmware count a drop (display_drops), never block. */
#include <errno.h>

#include "pn_int.h"

int panic_display_read(struct panic_dev *p, struct hostif_panic_display *out, unsigned max) {
  volatile struct hostif_panic *a = p->area;
  uint32_t head = __atomic_load_n(&a->display_head, __ATOMIC_ACQUIRE);
  uint32_t tail = a->display_tail;
  if (head - tail > HOSTIF_PANIC_DISPLAY) tail = head - HOSTIF_PANIC_DISPLAY; /* corrupt tail */
  unsigned n = 0;
  while (tail != head && n < max) {
    const volatile struct hostif_panic_display *e = &a->display[tail % HOSTIF_PANIC_DISPLAY];
    out[n].prog = e->prog;
    out[n].value = e->value;
    n++;
    tail++;
  }
  __atomic_store_n(&a->display_tail, tail, __ATOMIC_RELEASE);
  return (int)n;
}

static bool displayed(void *arg) {
  volatile struct hostif_panic *a = arg;
  return __atomic_load_n(&a->display_head, __ATOMIC_ACQUIRE) != a->display_tail;
}

/* The firmware raises no signal for DISPLAY: looked at every 1 ms of the process's time. */
int panic_display_wait(struct panic_dev *p, int64_t timeout_ns) {
  return lnic_wait_until(p->nic, HOSTIF_SIG_PANIC, timeout_ns, 1000000, displayed,
                         (void *)p->area);
}

uint32_t panic_display_drops(struct panic_dev *p) { return p->area->display_drops; }
