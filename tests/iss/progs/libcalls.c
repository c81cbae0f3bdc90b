/* libcalls.c: the LANai runtime's libcalls over many operands (edge values and a
 * pseudo-random sweep): 32- and 64-bit multiply, divide and remainder, signed and unsigned,
 * 64-bit shifts, and memcpy/memmove/memset/memcmp over every small offset and length. Built
 * natively the same operators use the host's instructions and libc; the outputs must match. */
#include "io.h"
#ifdef __lanai__
#include "rt.h"
#else
#include <string.h>
#endif

static uint32_t rng = 0x9e3779b9u;
static uint32_t next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static const uint32_t edges[] = {0, 1, 2, 3, 5, 7, 10, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000,
                                 0xffff, 0x10000, 0x7fffffff, 0x80000000u, 0x80000001u,
                                 0xfffffffeu, 0xffffffffu, 0x12345678u, 0xdeadbeefu};
#define NEDGE (sizeof edges / sizeof edges[0])

static uint32_t operand(unsigned i)
{
  if (i < NEDGE) return edges[i];
  uint32_t v = next();
  return v >> (next() & 31);
}

static uint64_t operand64(unsigned i)
{
  if (i < NEDGE) return (uint64_t)edges[i] << (i & 1 ? 32 : 0) | edges[NEDGE - 1 - i];
  uint64_t v = (uint64_t)next() << 32;
  v |= next();
  return v >> (next() & 63);
}

#define N 40

static void ops32(void)
{
  uint32_t hm = FNV_INIT, hd = FNV_INIT, hu = FNV_INIT;
  for (unsigned i = 0; i < N; i++)
    for (unsigned j = 0; j < N; j++) {
      uint32_t a = operand(i), b = operand(j);
      int32_t sa = (int32_t)a, sb = (int32_t)b;
      hm = fnv(hm, a * b);
      hm = fnv(hm, (a >> (j & 31)) * (b | 1));
      if (b != 0) {
        hu = fnv(hu, a / b);
        hu = fnv(hu, a % b);
      }
      if (sb != 0 && !(sa == INT32_MIN && sb == -1)) {
        hd = fnv(hd, (uint32_t)(sa / sb));
        hd = fnv(hd, (uint32_t)(sa % sb));
      }
    }
  io_line("mul32", hm);
  io_line("div32", hd);
  io_line("udiv32", hu);
}

static void ops64(void)
{
  uint32_t hm = FNV_INIT, hd = FNV_INIT, hu = FNV_INIT, hs = FNV_INIT;
  for (unsigned i = 0; i < N; i++)
    for (unsigned j = 0; j < N; j++) {
      uint64_t a = operand64(i), b = operand64(j);
      int64_t sa = (int64_t)a, sb = (int64_t)b;
      uint64_t p = a * b;
      hm = fnv(fnv(hm, (uint32_t)p), (uint32_t)(p >> 32));
      if (b != 0) {
        uint64_t q = a / b, r = a % b;
        hu = fnv(fnv(fnv(fnv(hu, (uint32_t)q), (uint32_t)(q >> 32)), (uint32_t)r),
                 (uint32_t)(r >> 32));
      }
      if (sb != 0 && !(sa == INT64_MIN && sb == -1)) {
        int64_t q = sa / sb, r = sa % sb;
        hd = fnv(fnv(fnv(fnv(hd, (uint32_t)q), (uint32_t)((uint64_t)q >> 32)), (uint32_t)r),
                 (uint32_t)((uint64_t)r >> 32));
      }
      unsigned n = (unsigned)(b & 63);
      uint64_t l = a << n, rl = a >> n;
      int64_t ra = sa >> n;
      hs = fnv(fnv(hs, (uint32_t)l), (uint32_t)(l >> 32));
      hs = fnv(fnv(hs, (uint32_t)rl), (uint32_t)(rl >> 32));
      hs = fnv(fnv(hs, (uint32_t)ra), (uint32_t)((uint64_t)ra >> 32));
    }
  io_line("mul64", hm);
  io_line("div64", hd);
  io_line("udiv64", hu);
  io_line("shift64", hs);
}

static uint8_t buf[256], ref[256];

static uint32_t hash_buf(uint32_t h)
{
  uint32_t x = 0;
  for (unsigned i = 0; i < sizeof buf; i++) x = (x << 5 | x >> 27) ^ buf[i];
  return fnv(h, x);
}

static void reset(void)
{
  for (unsigned i = 0; i < sizeof buf; i++) buf[i] = ref[i] = (uint8_t)(i * 7 + 3);
}

static void mem(void)
{
  uint32_t hc = FNV_INIT, hv = FNV_INIT, hs = FNV_INIT, hk = FNV_INIT;
  for (unsigned d = 0; d < 8; d++)
    for (unsigned s = 0; s < 8; s++)
      for (unsigned n = 0; n < 70; n += 3) {
        reset();
        memcpy(buf + 80 + d, ref + s, n);
        hc = hash_buf(hc);
        reset();
        memmove(buf + d + 4, buf + s, n);
        memmove(buf + 90 + s, buf + 90 + d + 4, n);
        hv = hash_buf(hv);
        reset();
        memset(buf + d + s, (int)(n * 13), n);
        hs = hash_buf(hs);
        reset();
        buf[s + n / 2] ^= (uint8_t)(d ? d : 0x80);
        int c = memcmp(buf + s, ref + s, n);
        hk = fnv(hk, (uint32_t)(c < 0 ? -1 : c > 0));
      }
  io_line("memcpy", hc);
  io_line("memmove", hv);
  io_line("memset", hs);
  io_line("memcmp", hk);
}

int main(void)
{
  ops32();
  ops64();
  mem();
  io_puts("done\n");
  return 0;
}
