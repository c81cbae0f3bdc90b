/* profile.h: a hardware profile for nicd's timing mode (nicd --timing FILE): the costs of
 * every hardware action (host DMA, link, send DMA), of the NIC processor (its clock: the
 * firmware's cycles are those the LANai simulator counts), and of the host (library call, wake-up,
 * memcpy), read from a text file of `key = value unit` lines (hw/profiles/README.md lists
 * the keys and units; `#` starts a comment). Errors are `file:line:col: error: message`. */
#ifndef HW_PROFILE_H
#define HW_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct profile {
  char name[96];
  uint64_t nic_hz;            /* nic.clock: the NIC processor's clock */
  uint64_t hdma_bps;          /* hdma.bandwidth: bytes/s of the I/O bus for DMA */
  uint64_t hdma_setup_ns;     /* hdma.setup: per DMA transfer (descriptor) */
  uint64_t link_bps;          /* link.bandwidth: bytes/s on the wire */
  uint64_t link_latency_ns;   /* link.latency: first byte out to first byte in */
  uint64_t send_setup_ns;     /* send.setup: per fragment, before the first byte leaves */
  uint64_t host_call_ns;      /* host.call: a user-level library call (post, poll) */
  uint64_t host_wake_ns;      /* host.wake: from the NIC's signal to the host running */
  uint64_t host_copy_bps;     /* host.memcpy: bytes/s of a host memory copy */
  uint64_t processors;        /* processors: the NIC's firmware processors, 1 (default) or 2 */
};

#define PROFILE_ERR_LEN 256

/* Parses text[0..len) (not NUL-terminated) named `file` in messages. 0, or -1 with the first
 * error in err. Every key must appear exactly once, but `processors` (optional: 1). */
int profile_parse(const char *file, const char *text, size_t len, struct profile *p, char *err,
                  size_t cap);
/* Reads and parses a file. 0 or -1 with err. */
int profile_load(const char *path, struct profile *p, char *err, size_t cap);
/* Nanoseconds for `cycles` processor cycles at the profile's clock (rounded up). */
uint64_t profile_cycles_ns(const struct profile *p, uint64_t cycles);

#endif
