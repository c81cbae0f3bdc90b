/* CRC-32, eight bytes at a time (slicing-by-8, Intel's algorithm): eight 256-entry tables built
 * once on first use. The link CRC is computed on every frame sent and received, so on the
 * emulated path it costs as much as the copies; the byte-at-a-time nibble table it replaces
 * ran at a tenth of this speed. Big-endian hosts take the bytewise loop only. */
#include "crc32.h"

#include <pthread.h>
#include <string.h>

static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    tab[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int s = 1; s < 8; s++) tab[s][i] = (tab[s - 1][i] >> 8) ^ tab[0][tab[s - 1][i] & 0xff];
}

uint32_t hw_crc32(uint32_t crc, const void *data, size_t len) {
  const uint8_t *p = data;
  pthread_once(&tab_once, tab_init);
  crc = ~crc;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (len && ((uintptr_t)p & 7)) {
    crc = (crc >> 8) ^ tab[0][(crc ^ *p++) & 0xff];
    len--;
  }
  while (len >= 8) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^
          tab[4][lo >> 24] ^ tab[3][hi & 0xff] ^ tab[2][(hi >> 8) & 0xff] ^
          tab[1][(hi >> 16) & 0xff] ^ tab[0][hi >> 24];
    p += 8;
    len -= 8;
  }
#endif
  while (len--) crc = (crc >> 8) ^ tab[0][(crc ^ *p++) & 0xff];
  return ~crc;
}
