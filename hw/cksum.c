/* Internet checksum. A chunk is summed in the host's byte order, eight bytes per load into a
 * 64-bit accumulator (two 32-bit halves per load: since 2^16 = 1 (mod 0xffff), any word size
 * gives the RFC 1071 sum once folded), then byte-swapped into network order on a
 * little-endian host (RFC 1071, "byte order independence"). Where the processor has AVX2, the
 * same 32-bit halves are added four 64-bit lanes at a time (64 bytes per step). Chunks are
 * joined by adding their folded sums, the later one byte-swapped when the stream so far has
 * odd length. hw_csum_copy sums the words as it stores them, so a DMA engine copies and sums
 * in one pass over the bytes; hw_csum_copy_uncached stores them past the caches. */
#include "cksum.h"

#include <stdbool.h>
#include <string.h>

#define VECTOR_MIN 256   /* bytes: shorter chunks are summed word by word */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The sum of the 32-bit halves of n bytes (a multiple of 64), in 64-bit lanes. */
__attribute__((target("avx2"))) static uint64_t halves_avx2(const uint8_t *p, size_t n) {
  const __m256i low = _mm256_set1_epi64x(0xffffffff);
  __m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
  for (size_t i = 0; i < n; i += 64) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(p + i));
    __m256i y = _mm256_loadu_si256((const __m256i *)(p + i + 32));
    a = _mm256_add_epi64(a, _mm256_add_epi64(_mm256_and_si256(x, low), _mm256_srli_epi64(x, 32)));
    b = _mm256_add_epi64(b, _mm256_add_epi64(_mm256_and_si256(y, low), _mm256_srli_epi64(y, 32)));
  }
  uint64_t l[4];
  _mm256_storeu_si256((__m256i *)l, _mm256_add_epi64(a, b));
  return l[0] + l[1] + l[2] + l[3];
}

/* halves_avx2 of the bytes p[0..n) as they are copied to d; with `past`, d is 32-byte
 * aligned and the stores are non-temporal, fenced before the return. */
__attribute__((target("avx2"))) static uint64_t copy_halves_avx2(uint8_t *d, const uint8_t *p,
                                                                 size_t n, bool past) {
  const __m256i low = _mm256_set1_epi64x(0xffffffff);
  __m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
  for (size_t i = 0; i < n; i += 64) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(p + i));
    __m256i y = _mm256_loadu_si256((const __m256i *)(p + i + 32));
    if (past) {
      _mm256_stream_si256((__m256i *)(d + i), x);
      _mm256_stream_si256((__m256i *)(d + i + 32), y);
    } else {
      _mm256_storeu_si256((__m256i *)(d + i), x);
      _mm256_storeu_si256((__m256i *)(d + i + 32), y);
    }
    a = _mm256_add_epi64(a, _mm256_add_epi64(_mm256_and_si256(x, low), _mm256_srli_epi64(x, 32)));
    b = _mm256_add_epi64(b, _mm256_add_epi64(_mm256_and_si256(y, low), _mm256_srli_epi64(y, 32)));
  }
  if (past) _mm_sfence();   /* the stores are seen before whatever the engine writes next */
  uint64_t l[4];
  _mm256_storeu_si256((__m256i *)l, _mm256_add_epi64(a, b));
  return l[0] + l[1] + l[2] + l[3];
}

static bool have_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

/* Bytes of p[0..n) summed by the vector unit into *acc (a multiple of 64, or 0); copied to d
 * on the way when d is not NULL, past the caches when `past` (d then 32-byte aligned). */
static size_t vector_part(uint64_t *acc, uint8_t *d, const uint8_t *p, size_t n, bool past) {
  if (n < VECTOR_MIN || !have_avx2()) return 0;
  size_t m = n & ~(size_t)63;
  *acc += d ? copy_halves_avx2(d, p, m, past) : halves_avx2(p, m);
  return m;
}
#else
static size_t vector_part(uint64_t *acc, uint8_t *d, const uint8_t *p, size_t n, bool past) {
  (void)acc, (void)d, (void)p, (void)n, (void)past;
  return 0;
}
#endif

static uint16_t fold(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)s;
}

static uint16_t swap16(uint16_t v) { return (uint16_t)(v << 8 | v >> 8); }

/* The folded sum of a chunk that starts at an even offset, in the host's order of 16-bit
 * words; with d, the chunk is copied there first (by the vector unit as it sums). Each 1 GiB
 * block is folded, so the accumulator cannot overflow. */
static uint16_t sum_host_order(uint8_t *d, const uint8_t *p, size_t len, bool past) {
  uint64_t total = 0;
  while (len) {
    size_t n = len < (1u << 30) ? len : (1u << 30);
    uint64_t a = 0, b = 0;
    size_t i = vector_part(&a, d, p, n, past);   /* 1 GiB of halves: below 2^63 */
    for (; i + 16 <= n; i += 16) {   /* copied word by word: the words stored are the summed */
      uint64_t w0, w1;
      memcpy(&w0, p + i, 8);
      memcpy(&w1, p + i + 8, 8);
      if (d) memcpy(d + i, &w0, 8), memcpy(d + i + 8, &w1, 8);
      a += (w0 & 0xffffffffu) + (w0 >> 32);
      b += (w1 & 0xffffffffu) + (w1 >> 32);
    }
    if (n - i) { /* the tail, zero-padded: each byte stays at its place within the word */
      uint8_t t[16] = {0};
      memcpy(t, p + i, n - i);
      if (d) memcpy(d + i, t, n - i);
      uint64_t w0, w1;
      memcpy(&w0, t, 8);
      memcpy(&w1, t + 8, 8);
      a += (w0 & 0xffffffffu) + (w0 >> 32);
      b += (w1 & 0xffffffffu) + (w1 >> 32);
    }
    total += fold(a) + fold(b);
    p += n;
    d = d ? d + n : NULL;
    len -= n;
  }
  return fold(total);
}

/* The folded sum of a chunk at an even offset, in network order (copied to d, unless NULL). */
static uint16_t sum_chunk(void *d, const void *data, size_t len, bool past) {
  uint16_t s = sum_host_order(d, data, len, past);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return s;
#else
  return swap16(s);
#endif
}

void hw_csum_init(struct hw_csum *c) {
  c->sum = 0;
  c->odd = 0;
}

void hw_csum_append(struct hw_csum *c, uint16_t part, size_t len) {
  c->sum = fold(c->sum + (c->odd ? swap16(part) : part));
  c->odd ^= (unsigned)(len & 1);
}

void hw_csum_update(struct hw_csum *c, const void *data, size_t len) {
  if (len) hw_csum_append(c, sum_chunk(NULL, data, len, false), len);
}

uint16_t hw_csum_sum(const struct hw_csum *c) { return fold(c->sum); }

uint16_t hw_csum_final(const struct hw_csum *c) { return (uint16_t)~fold(c->sum); }

uint16_t hw_csum_sum_of(const void *data, size_t len) { return sum_chunk(NULL, data, len, false); }

uint16_t hw_csum_copy(void *dst, const void *src, size_t len) {
  return sum_chunk(dst, src, len, false);
}

/* The bytes up to dst's next 32-byte boundary are stored as usual; past it, the vector unit
 * streams. An odd head would split the 16-bit words, so such a copy keeps the cache. */
uint16_t hw_csum_copy_uncached(void *dst, const void *src, size_t len) {
  size_t head = (32 - ((uintptr_t)dst & 31)) & 31;
  if (head % 2 || len < head + VECTOR_MIN) return sum_chunk(dst, src, len, false);
  uint16_t a = sum_chunk(dst, src, head, false);
  return hw_csum_add(a, sum_chunk((uint8_t *)dst + head, (const uint8_t *)src + head, len - head,
                                  true));
}

uint16_t hw_inet_csum(const void *data, size_t len) { return (uint16_t)~hw_csum_sum_of(data, len); }

uint16_t hw_csum_add(uint16_t a, uint16_t b) { return fold((uint32_t)a + b); }
