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

/* The firmware raises no signal for DISPLAY, so this sleeps in steps of at most 1 ms; under
 * nicd --timing those steps are the process's virtual time, which lets the NICs run. */
int panic_display_wait(struct panic_dev *p, int64_t timeout_ns) {
  bool vt = lnic_vt_on(p->nic);
  uint64_t now = vt ? lnic_vt_now_ns() : lnic_now_ns();
  uint64_t end = now + (uint64_t)(timeout_ns > 0 ? timeout_ns : 0);
  for (;;) {
    if (__atomic_load_n(&p->area->display_head, __ATOMIC_ACQUIRE) != p->area->display_tail)
      return 0;
    now = vt ? lnic_vt_now_ns() : lnic_now_ns();
    if (now >= end) return -ETIMEDOUT;
    int64_t left = (int64_t)(end - now);
    if (lnic_wait(p->nic, HOSTIF_SIG_PANIC, left < 1000000 ? left : 1000000) == -EPIPE)
      return -EPIPE;
  }
}

uint32_t panic_display_drops(struct panic_dev *p) { return p->area->display_drops; }
