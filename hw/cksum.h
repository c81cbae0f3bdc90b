/* Internet checksum (RFC 1071): the 16-bit ones'-complement sum, computed incrementally over a
 * byte stream split at any offsets, as the host DMA engine does while it copies. */
#ifndef HW_CKSUM_H
#define HW_CKSUM_H

#include <stddef.h>
#include <stdint.h>

struct hw_csum {
  uint64_t sum;   /* sum of big-endian 16-bit words, folded as chunks are added */
  unsigned odd;   /* 1 when the stream so far has an odd number of bytes */
};

void hw_csum_init(struct hw_csum *c);
void hw_csum_update(struct hw_csum *c, const void *data, size_t len);
/* Continues the stream with a chunk of len bytes whose folded sum (hw_csum_sum_of) is
 * already known, as an engine that summed it while copying does. */
void hw_csum_append(struct hw_csum *c, uint16_t part, size_t len);
/* The folded ones'-complement sum (not complemented). */
uint16_t hw_csum_sum(const struct hw_csum *c);
/* The Internet checksum: the complement of the folded sum. */
uint16_t hw_csum_final(const struct hw_csum *c);

/* One-shot helpers. */
uint16_t hw_csum_sum_of(const void *data, size_t len);
uint16_t hw_inet_csum(const void *data, size_t len);
/* Copies len bytes from src to dst (not overlapping) and returns hw_csum_sum_of(dst, len),
 * summing the words as they are stored. */
uint16_t hw_csum_copy(void *restrict dst, const void *restrict src, size_t len);
/* The same, storing with non-temporal stores where it can (fenced before it returns): the
 * host DMA engine's writes into host memory, which leave no line in the writer's cache for
 * the host's reader to fetch from another core (a DMA write goes to memory and invalidates
 * the processors' copies). */
uint16_t hw_csum_copy_uncached(void *restrict dst, const void *restrict src, size_t len);
/* Ones'-complement addition of two folded sums (of streams of even length, or the second
 * starting at an even offset). */
uint16_t hw_csum_add(uint16_t a, uint16_t b);

#endif
