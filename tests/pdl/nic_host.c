/* Recording NIC services for tests: see nic_host.h. */
#include "nic_host.h"

#include <string.h>

void nic_host_init(struct nic_host *h, FILE *trace) {
  memset(h, 0, sizeof *h);
  h->trace = trace;
  h->clock = 1000;
}

static void hex(FILE *f, const uint8_t *p, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
}

static int failing(struct nic_host *h) {
  int f = h->fail_next;
  h->fail_next = 0;
  return f;
}

static int in_host(uint32_t seg, uint32_t off, uint32_t len) {
  return seg < HOST_SEGMENTS && off <= HOST_SEG_SIZE && len <= HOST_SEG_SIZE - off;
}

static int h_send(void *ctx, const uint8_t *d, uint32_t len, uint32_t trig, uint32_t prog,
                  uint64_t addr) {
  struct nic_host *h = ctx;
  if (h->trace) {
    fprintf(h->trace, "send trigger=%u program=%u addr=%016llx len=%u data=", trig, prog,
            (unsigned long long)addr, len);
    hex(h->trace, d, len);
    fputc('\n', h->trace);
  }
  return failing(h) ? -1 : 0;
}

static void h_await(void *ctx) {
  struct nic_host *h = ctx;
  if (h->trace) fputs("await\n", h->trace);
}

static int h_deliver(void *ctx, const uint8_t *d, uint32_t len, uint32_t seg, uint32_t off) {
  struct nic_host *h = ctx;
  if (h->trace) {
    fprintf(h->trace, "deliver segment=%u offset=%u len=%u data=", seg, off, len);
    hex(h->trace, d, len);
    fputc('\n', h->trace);
  }
  if (failing(h) || !in_host(seg, off, len)) return -1;
  memcpy(h->mem[seg] + off, d, len);
  return 0;
}

static int h_get(void *ctx, uint8_t *d, uint32_t len, uint32_t seg, uint32_t off) {
  struct nic_host *h = ctx;
  if (h->trace) fprintf(h->trace, "get segment=%u offset=%u len=%u\n", seg, off, len);
  if (failing(h) || !in_host(seg, off, len)) return -1;
  memcpy(d, h->mem[seg] + off, len);
  return 0;
}

static uint32_t h_clock(void *ctx) {
  struct nic_host *h = ctx;
  uint32_t t = h->clock;
  h->clock += 10;
  return t;
}

static void h_display(void *ctx, int32_t v) {
  struct nic_host *h = ctx;
  if (h->trace) fprintf(h->trace, "display %d\n", v);
}

void nic_host_services(struct nic_host *h, struct vm_services *s) {
  s->ctx = h;
  s->send = h_send;
  s->await = h_await;
  s->deliver = h_deliver;
  s->get = h_get;
  s->clock = h_clock;
  s->display = h_display;
}
