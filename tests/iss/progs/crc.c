/* crc.c: a compute kernel for the ISS benchmark (make bench-lanai-iss): bitwise CRC-32 and
 * a byte-table CRC-32 over a 16 KiB buffer, several rounds; prints both CRCs. */
#include "io.h"

static uint8_t buf[16384];
static uint32_t table[256];

static uint32_t crc_bitwise(const uint8_t *p, uint32_t n, uint32_t c)
{
  while (n--) {
    c ^= *p++;
    for (int k = 0; k < 8; k++) c = c >> 1 ^ (0xedb88320u & (0u - (c & 1)));
  }
  return c;
}

static uint32_t crc_table(const uint8_t *p, uint32_t n, uint32_t c)
{
  while (n--) c = table[(c ^ *p++) & 0xff] ^ c >> 8;
  return c;
}

int main(void)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c >> 1 ^ (0xedb88320u & (0u - (c & 1)));
    table[i] = c;
  }
  uint32_t x = 12345;
  for (uint32_t i = 0; i < sizeof buf; i++) {
    x = x * 1103515245u + 12345u;
    buf[i] = (uint8_t)(x >> 16);
  }
  uint32_t a = 0xffffffffu, b = 0xffffffffu;
  for (int r = 0; r < 24; r++) {
    a = crc_bitwise(buf, sizeof buf, a);
    b = crc_table(buf, sizeof buf, b);
    buf[r] ^= (uint8_t)a;
  }
  io_line("crc-bitwise", ~a);
  io_line("crc-table", ~b);
  return 0;
}
