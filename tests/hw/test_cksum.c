/* Internet checksum against RFC 1071 and IPv4 vectors and a byte-pair reference; CRC-32. */
#include <string.h>

#include "../../hw/cksum.h"
#include "../../hw/crc32.h"
#include "hwtest.h"

static void rfc1071_vector(void **state) {
  (void)state;
  const uint8_t v[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  assert_int_equal(hw_csum_sum_of(v, sizeof v), 0xddf2);
  assert_int_equal(hw_inet_csum(v, sizeof v), 0x220d);
}

static void ipv4_header_vector(void **state) {
  (void)state;
  uint8_t h[] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  assert_int_equal(hw_inet_csum(h, sizeof h), 0xb861);
  h[10] = 0xb8;
  h[11] = 0x61;
  assert_int_equal(hw_csum_sum_of(h, sizeof h), 0xffff); /* verifies to -0 */
}

static void empty_and_odd(void **state) {
  (void)state;
  assert_int_equal(hw_csum_sum_of("", 0), 0);
  assert_int_equal(hw_inet_csum("", 0), 0xffff);
  const uint8_t one[] = {0xab};
  assert_int_equal(hw_csum_sum_of(one, 1), 0xab00); /* padded with a zero byte */
  const uint8_t three[] = {0x01, 0x02, 0x03};
  assert_int_equal(hw_csum_sum_of(three, 3), 0x0102 + 0x0300);
}

static void matches_reference(void **state) {
  (void)state;
  static uint8_t buf[4099];
  for (uint32_t seed = 1; seed <= 20; seed++) {
    t_fill(buf, sizeof buf, seed);
    for (size_t off = 0; off < 8; off++)
      for (size_t len = 0; len + off <= sizeof buf; len += 1 + len / 3)
        assert_int_equal(hw_csum_sum_of(buf + off, len), t_ref_sum(buf + off, len));
  }
  memset(buf, 0xff, sizeof buf); /* all-ones: the fold carries the most */
  assert_int_equal(hw_csum_sum_of(buf, sizeof buf), t_ref_sum(buf, sizeof buf));
}

/* hw_csum_copy: the bytes copied and their sum, at every alignment and length, vector and not. */
static void copy_and_sum(void **state) {
  (void)state;
  static uint8_t src[4099], dst[4099 + 16];
  for (uint32_t seed = 1; seed <= 6; seed++) {
    t_fill(src, sizeof src, seed);
    for (size_t off = 0; off < 4; off++)
      for (size_t len = 0; len + off <= sizeof src; len += 1 + len / 5) {
        memset(dst, 0x5a, sizeof dst);
        assert_int_equal(hw_csum_copy(dst + 3 + off, src + off, len), t_ref_sum(src + off, len));
        assert_memory_equal(dst + 3 + off, src + off, len);
        assert_int_equal(dst[3 + off + len], 0x5a);   /* nothing past the end */
        assert_int_equal(dst[2 + off], 0x5a);
      }
  }
}

/* hw_csum_copy_uncached: the same, at every alignment of the destination (even heads stream,
 * odd ones keep the cache) and lengths around the vector threshold. */
static void copy_uncached_and_sum(void **state) {
  (void)state;
  static _Alignas(64) uint8_t src[8200], dst[8200 + 96];
  for (uint32_t seed = 1; seed <= 3; seed++) {
    t_fill(src, sizeof src, seed);
    for (size_t doff = 0; doff < 64; doff++)
      for (size_t len = 0; len + 8 <= sizeof src; len += len < 320 ? 1 : 1 + len / 3) {
        size_t soff = (doff * 7) % 8;
        memset(dst, 0x5a, sizeof dst);
        assert_int_equal(hw_csum_copy_uncached(dst + 16 + doff, src + soff, len),
                         t_ref_sum(src + soff, len));
        assert_memory_equal(dst + 16 + doff, src + soff, len);
        assert_int_equal(dst[16 + doff + len], 0x5a);
        assert_int_equal(dst[15 + doff], 0x5a);
      }
  }
}

static void streaming_any_split(void **state) {
  (void)state;
  uint8_t buf[257];
  t_fill(buf, sizeof buf, 7);
  uint16_t whole = hw_csum_sum_of(buf, sizeof buf);
  for (size_t a = 0; a <= sizeof buf; a += 3)
    for (size_t b = a; b <= sizeof buf; b += 7) {
      struct hw_csum c;
      hw_csum_init(&c);
      hw_csum_update(&c, buf, a);
      hw_csum_update(&c, buf + a, b - a);
      hw_csum_update(&c, buf + b, sizeof buf - b);
      assert_int_equal(hw_csum_sum(&c), whole);
      assert_int_equal(hw_csum_final(&c), (uint16_t)~whole);
    }
}

static void combine_even_parts(void **state) {
  (void)state;
  uint8_t buf[100];
  t_fill(buf, sizeof buf, 3);
  assert_int_equal(hw_csum_add(hw_csum_sum_of(buf, 40), hw_csum_sum_of(buf + 40, 60)),
                   hw_csum_sum_of(buf, 100));
}

/* What the host DMA engine does: each descriptor summed once, the chain's sum built from the
 * descriptors' sums, whatever their lengths (odd ones shift the next by a byte). */
static void append_known_sums(void **state) {
  (void)state;
  static uint8_t buf[4099];
  t_fill(buf, sizeof buf, 11);
  const size_t cuts[][3] = {{1, 2, 3}, {7, 100, 101}, {4096, 4097, 4098}, {0, 0, 4099}, {3, 3, 5}};
  for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
    struct hw_csum c;
    hw_csum_init(&c);
    size_t at = 0;
    for (size_t i = 0; i <= 3; i++) {
      size_t end = i < 3 ? cuts[k][i] : sizeof buf;
      hw_csum_append(&c, hw_csum_sum_of(buf + at, end - at), end - at);
      at = end;
    }
    assert_int_equal(hw_csum_sum(&c), t_ref_sum(buf, sizeof buf));
  }
}

static void crc32_vectors(void **state) {
  (void)state;
  assert_int_equal(hw_crc32(0, "123456789", 9), 0xcbf43926u);
  assert_int_equal(hw_crc32(0, "", 0), 0);
  assert_int_equal(hw_crc32(0, "a", 1), 0xe8b7be43u);
  uint32_t c = hw_crc32(0, "1234", 4);
  assert_int_equal(hw_crc32(c, "56789", 5), 0xcbf43926u);
}

/* The sliced CRC against the bitwise definition, every length and alignment up to 64 bytes
 * and in split calls. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  while (n--) {
    c ^= *p++;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

static void crc32_matches_bitwise(void **state) {
  (void)state;
  uint8_t buf[80];
  t_fill(buf, sizeof buf, 7);
  for (size_t off = 0; off < 8; off++)
    for (size_t n = 0; n + off <= 72; n++) {
      assert_int_equal(hw_crc32(0, buf + off, n), crc_bitwise(buf + off, n));
      size_t cut = n / 3;
      assert_int_equal(hw_crc32(hw_crc32(0, buf + off, cut), buf + off + cut, n - cut),
                       crc_bitwise(buf + off, n));
    }
}

/* Long buffers (the folded path takes whole 16-byte blocks from 64 bytes on, the wide one from
 * 256): every length to 1200 at four alignments, and split calls, against the bitwise
 * definition. */
static void crc32_long_matches_bitwise(void **state) {
  (void)state;
  static uint8_t buf[5000];
  t_fill(buf, sizeof buf, 11);
  for (size_t off = 0; off < 4; off++)
    for (size_t n = 0; n + off <= 1200; n++) {
      uint32_t want = crc_bitwise(buf + off, n);
      assert_int_equal(hw_crc32(0, buf + off, n), want);
      size_t cut = (n * 7) / 11;
      assert_int_equal(hw_crc32(hw_crc32(0, buf + off, cut), buf + off + cut, n - cut), want);
    }
  assert_int_equal(hw_crc32(0, buf + 3, 4990), crc_bitwise(buf + 3, 4990));
}

/* The fused copy gives the same CRC and copies exactly len bytes (the byte after the copy is
 * untouched), every length to 1200 and odd alignments of either side, and in split calls. */
static void crc32_copy_matches(void **state) {
  (void)state;
  static uint8_t buf[5000], out[5000];
  t_fill(buf, sizeof buf, 13);
  for (size_t off = 0; off < 3; off++)
    for (size_t n = 0; n + off <= 1200; n++) {
      memset(out, 0xa5, n + 8);
      uint32_t want = crc_bitwise(buf + off, n);
      assert_int_equal(hw_crc32_copy(0, out + 2 * off + 1, buf + off, n), want);
      assert_memory_equal(out + 2 * off + 1, buf + off, n);
      assert_int_equal(out[2 * off + 1 + n], 0xa5);
      size_t cut = (n * 5) / 9;
      memset(out, 0, n + 8);
      uint32_t c = hw_crc32_copy(0, out, buf + off, cut);
      assert_int_equal(hw_crc32_copy(c, out + cut, buf + off + cut, n - cut), want);
      assert_memory_equal(out, buf + off, n);
    }
  assert_int_equal(hw_crc32_copy(0, out, buf + 1, 4990), crc_bitwise(buf + 1, 4990));
  assert_memory_equal(out, buf + 1, 4990);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rfc1071_vector),      cmocka_unit_test(ipv4_header_vector),
      cmocka_unit_test(empty_and_odd),       cmocka_unit_test(matches_reference),
      cmocka_unit_test(streaming_any_split), cmocka_unit_test(combine_even_parts),
      cmocka_unit_test(append_known_sums),   cmocka_unit_test(copy_and_sum),
      cmocka_unit_test(copy_uncached_and_sum),
      cmocka_unit_test(crc32_vectors),       cmocka_unit_test(crc32_matches_bitwise),
      cmocka_unit_test(crc32_long_matches_bitwise), cmocka_unit_test(crc32_copy_matches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
