/* suite.c: a compiler-construct sweep in the manner of LANAI-ISA.md 12.4: a 110-case switch
 * (jump table), small switches (compare trees), recursion, function pointers, varargs,
 * structs passed and returned by value, 8-argument calls, alloca, half-word and byte arrays
 * with sign and zero extension, every shift amount, all comparisons (32 and 64 bit),
 * popcount/clz/ctz, CRC-32 and an insertion sort through a comparison callback. Each part
 * prints an FNV hash; natively and on the ISS they must agree. */
#include <stdarg.h>

#include "io.h"

static uint32_t h;
static void mix(uint32_t v) { h = fnv(h, v); }
static void part(const char *name)
{
  io_line(name, h);
  h = FNV_INIT;
}

static volatile uint32_t opaque = 1; /* defeats constant folding */

static uint32_t big_switch(uint32_t x)
{
  switch (x) {
#define C(n) case n: return (n) * 2654435761u ^ (n >> 1);
  C(0) C(1) C(2) C(3) C(4) C(5) C(6) C(7) C(8) C(9) C(10) C(11) C(12) C(13) C(14) C(15)
  C(16) C(17) C(18) C(19) C(20) C(21) C(22) C(23) C(24) C(25) C(26) C(27) C(28) C(29) C(30)
  C(31) C(32) C(33) C(34) C(35) C(36) C(37) C(38) C(39) C(40) C(41) C(42) C(43) C(44) C(45)
  C(46) C(47) C(48) C(49) C(50) C(51) C(52) C(53) C(54) C(55) C(56) C(57) C(58) C(59) C(60)
  C(61) C(62) C(63) C(64) C(65) C(66) C(67) C(68) C(69) C(70) C(71) C(72) C(73) C(74) C(75)
  C(76) C(77) C(78) C(79) C(80) C(81) C(82) C(83) C(84) C(85) C(86) C(87) C(88) C(89) C(90)
  C(91) C(92) C(93) C(94) C(95) C(96) C(97) C(98) C(99) C(100) C(101) C(102) C(103) C(104)
  C(105) C(106) C(107) C(108) C(109)
#undef C
  default: return 0xdead;
  }
}

static int small_switch(int x)
{
  switch (x) {
  case -3: return 11;
  case 0: return 22;
  case 5: return 33;
  case 17: return 44;
  case 1000: return 55;
  default: return -1;
  }
}

static uint32_t ack(uint32_t m, uint32_t n)
{
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int sum_va(int n, ...)
{
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++) s = s * 3 + va_arg(ap, int);
  va_end(ap);
  return s;
}

struct pt { int32_t x, y; uint8_t tag; int16_t w; };
struct big { uint32_t a[7]; };

static struct pt pt_add(struct pt a, struct pt b)
{
  struct pt r = {a.x + b.x, a.y - b.y, (uint8_t)(a.tag ^ b.tag), (int16_t)(a.w * 3 - b.w)};
  return r;
}

static struct big big_twist(struct big b, int k)
{
  for (int i = 0; i < 7; i++) b.a[i] = b.a[i] * (uint32_t)(i + k) ^ b.a[(i + 1) % 7];
  return b;
}

static int32_t eight(int32_t a, int32_t b, int32_t c, int32_t d, int32_t e, int32_t f,
                     int32_t g, int32_t i)
{
  return a - b * 2 + c * 3 - d * 4 + e * 5 - f * 6 + g * 7 - i * 8;
}

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
  uint32_t c = 0xffffffffu;
  while (n--) {
    c ^= *p++;
    for (int k = 0; k < 8; k++) c = c >> 1 ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

static int cmp_up(int32_t a, int32_t b) { return a < b ? -1 : a > b; }
static int cmp_down(int32_t a, int32_t b) { return cmp_up(b, a); }

static void isort(int32_t *v, int n, int (*cmp)(int32_t, int32_t))
{
  for (int i = 1; i < n; i++) {
    int32_t x = v[i];
    int j = i - 1;
    while (j >= 0 && cmp(v[j], x) > 0) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

static uint32_t alloca_sum(uint32_t n)
{
  uint8_t *p = __builtin_alloca(n);
  for (uint32_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 37);
  uint32_t s = 0;
  for (uint32_t i = 0; i < n; i++) s = s * 31 + p[i];
  return s;
}

static const uint32_t vals[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x10000,
                                0x7fffffff, 0x80000000u, 0x80000001u, 0xfffffffeu,
                                0xffffffffu, 0x12345678u, 0xcafef00du};
#define NV (sizeof vals / sizeof vals[0])

int main(void)
{
  h = FNV_INIT;
  for (uint32_t i = 0; i < 120; i++) mix(big_switch(i * opaque));
  for (int i = -5; i < 1010; i += 1) mix((uint32_t)small_switch(i * (int)opaque));
  part("switch");

  mix(ack(2, 3));
  mix(ack(3, 3));
  mix(fib(18));
  part("recursion");

  mix((uint32_t)sum_va(0));
  mix((uint32_t)sum_va(3, 1, -2, 3));
  mix((uint32_t)sum_va(8, 1, 2, 3, 4, 5, 6, 7, -8));
  mix((uint32_t)eight(1, -2, 3, -4, 5, -6, 7, (int32_t)opaque));
  part("calls");

  struct pt a = {3, -4, 0x5a, -7}, b = {100, 50, 0xa5, 300};
  for (int i = 0; i < 10; i++) {
    a = pt_add(a, b);
    mix((uint32_t)a.x);
    mix((uint32_t)a.y);
    mix(a.tag);
    mix((uint32_t)(int32_t)a.w);
  }
  struct big g = {{1, 2, 3, 4, 5, 6, 7}};
  for (int k = 0; k < 5; k++) {
    g = big_twist(g, k);
    for (int i = 0; i < 7; i++) mix(g.a[i]);
  }
  part("structs");

  static int16_t hs[64];
  static uint16_t hu[64];
  static int8_t bs[64];
  static uint8_t bu[64];
  for (int i = 0; i < 64; i++) {
    hs[i] = (int16_t)(i * 1237 - 30000);
    hu[i] = (uint16_t)(i * 4099);
    bs[i] = (int8_t)(i * 7 - 100);
    bu[i] = (uint8_t)(i * 13);
  }
  for (int i = 0; i < 64; i++) {
    mix((uint32_t)(int32_t)hs[i]);
    mix(hu[i]);
    mix((uint32_t)(int32_t)bs[63 - i]);
    mix(bu[(i * 5) & 63]);
  }
  part("narrow");

  for (uint32_t i = 0; i < NV; i++)
    for (uint32_t s = 0; s < 32; s++) {
      uint32_t sh = s * opaque;
      mix(vals[i] << sh);
      mix(vals[i] >> sh);
      mix((uint32_t)((int32_t)vals[i] >> sh));
    }
  for (uint32_t i = 0; i < NV; i++) {
    mix((uint32_t)__builtin_popcount(vals[i]));
    mix(vals[i] ? (uint32_t)__builtin_clz(vals[i]) : 32);
    mix(vals[i] ? (uint32_t)__builtin_ctz(vals[i]) : 32);
  }
  part("bits");

  for (uint32_t i = 0; i < NV; i++)
    for (uint32_t j = 0; j < NV; j++) {
      uint32_t x = vals[i], y = vals[j] * opaque;
      int32_t sx = (int32_t)x, sy = (int32_t)y;
      mix((uint32_t)(x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 |
          (x != y) << 5 | (sx < sy) << 6 | (sx <= sy) << 7 | (sx > sy) << 8 | (sx >= sy) << 9);
      uint64_t X = (uint64_t)x << 32 | y, Y = (uint64_t)y << 32 | x;
      int64_t SX = (int64_t)X, SY = (int64_t)Y;
      mix((uint32_t)(X < Y) | (X > Y) << 1 | (SX < SY) << 2 | (SX >= SY) << 3);
      mix(x + y);
      mix(x - y);
      mix((uint32_t)(X + Y));
      mix((uint32_t)((X - Y) >> 32));
      mix(sx < sy ? x : y);
    }
  part("compare");

  static uint8_t msg[300];
  for (int i = 0; i < 300; i++) msg[i] = (uint8_t)(i * i + 7);
  mix(crc32(msg, 300));
  mix(crc32(msg + 1, 17));
  int32_t v[40];
  for (int i = 0; i < 40; i++) v[i] = (int32_t)(vals[i % NV] ^ (uint32_t)(i * 7919));
  isort(v, 40, cmp_up);
  for (int i = 0; i < 40; i++) mix((uint32_t)v[i]);
  isort(v, 40, cmp_down);
  for (int i = 0; i < 40; i++) mix((uint32_t)v[i]);
  mix(alloca_sum(13 * opaque));
  mix(alloca_sum(200 * opaque));
  part("algo");
  io_puts("done\n");
  return 0;
}
