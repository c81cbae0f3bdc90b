/* test_lpm: the router's forwarding table (host/spine/spine_lpm.c builds it, firmware/nic/
 * fw_lpm.c checks and looks it up) against a brute-force longest-prefix match on random
 * route sets, with routes added and deleted; 1,000 random routes must fit in 20 KB (the size
 * is printed); damaged tables fail their check with the right reason; and the IPv4 header
 * checks and TTL decrement (fw_ipv4.c) against a checksum computed afresh. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "fw_ipv4.h"
#include "fw_lpm.h"
#include "fw_wire.h"
#include "ippkt.h"
#include "spine_lpm.h"

static uint8_t T[SPINE_BANK_SIZE];

static uint32_t rnd(void) { return (uint32_t)random() << 16 ^ (uint32_t)random(); }
static uint32_t mask(unsigned len) { return len ? ~0u << (32 - len) : 0; }

/* The reference: the longest (latest of equal) route covering a. */
static bool ref(const struct spine_route *r, size_t n, uint32_t a, uint32_t *hop) {
  long b = -1;
  for (size_t i = 0; i < n; i++)
    if (((a ^ r[i].prefix) & mask(r[i].len)) == 0 && (b < 0 || r[i].len >= r[b].len)) b = (long)i;
  if (b >= 0) *hop = r[b].hop;
  return b >= 0;
}

static struct spine_route random_route(unsigned maxhop) {
  struct spine_route x;
  x.len = (uint8_t)(random() % 4 == 0 ? random() % 33 : 8 + random() % 25);
  x.prefix = rnd() & mask(x.len);
  uint32_t node = (uint32_t)random() % maxhop;
  x.hop = SPINE_HOP(node, node % 4, 0);   /* at most maxhop distinct hops */
  return x;
}

/* Compares the table with the reference at every route's ends and neighbours, and at random. */
static int compare(const struct spine_route *r, size_t n) {
  int bad = 0;
  for (size_t i = 0; i < 3 * n + 2000; i++) {
    uint32_t a;
    if (i < 3 * n) {
      uint32_t lo = r[i / 3].prefix, hi = lo | ~mask(r[i / 3].len);
      a = i % 3 == 0 ? lo : i % 3 == 1 ? hi : hi + 1;
    } else {
      a = rnd();
    }
    uint32_t h1 = 0, h2 = 0;
    bool f1 = fw_lpm_lookup(T, a, &h1), f2 = ref(r, n, a, &h2);
    if (f1 != f2 || (f1 && h1 != h2)) bad++;
  }
  return bad;
}

/* Builds unique-prefix route sets, checks, compares; then deletes and adds and compares again. */
static void t_random_tables(void) {
  static struct spine_route r[1200];
  for (int round = 0; round < 20; round++) {
    size_t n = round == 0 ? 0 : (size_t)(random() % 1000 + 1);
    for (size_t i = 0; i < n; i++) r[i] = random_route(round % 2 ? 64 : 5);
    long sz = spine_lpm_build(r, n, (uint32_t)round, T, sizeof T);
    CHECK(sz > 0, "round %d: build %ld", round, sz);
    if (sz <= 0) continue;
    CHECK(fw_lpm_check(T, (uint32_t)sz) == FW_LPM_OK, "round %d: check", round);
    CHECK(fw_lpm_gen(T) == (uint32_t)round, "generation");
    int bad = compare(r, n);
    CHECK(bad == 0, "round %d: %d lookups differ", round, bad);
    /* delete a third, add some, rebuild */
    for (size_t i = 0, k = n / 3; i < k; i++) {
      size_t j = (size_t)random() % n;
      n--;
      r[j] = r[n];
    }
    for (int k = 0; k < 50; k++) r[n++] = random_route(64);
    CHECK(spine_lpm_build(r, n, 0, T, sizeof T) > 0 && compare(r, n) == 0, "round %d after edits", round);
  }
}

static void t_size(void) {
  static struct spine_route r[1000];
  for (size_t i = 0; i < 1000; i++) r[i] = random_route(64);
  long sz = spine_lpm_build(r, 1000, 1, T, sizeof T);
  printf("1000 random routes: table %ld bytes (%u intervals; bank %u bytes)\n", sz,
         (unsigned)(T[4] | T[5] << 8), SPINE_BANK_SIZE);
  CHECK(sz > 0 && sz < 20 * 1024, "1000 routes in %ld bytes", sz);
  CHECK(compare(r, 1000) == 0, "1000 routes look up right");
}

static void t_limits(void) {
  static struct spine_route r[70];
  for (size_t i = 0; i < 70; i++) r[i] = (struct spine_route){(uint32_t)i << 24, 8, SPINE_HOP(i, 0, 0)};
  CHECK(spine_lpm_build(r, 64, 0, T, sizeof T) > 0, "64 next hops fit");
  CHECK(spine_lpm_build(r, 65, 0, T, sizeof T) == -ENOSPC, "65 next hops do not");
  r[0].len = 33;
  CHECK(spine_lpm_build(r, 1, 0, T, sizeof T) == -EINVAL, "length 33");
  CHECK(spine_lpm_build(r + 1, 3, 0, T, 100) == -ENOSPC, "a bank too small");
  /* the default route and a /32 */
  struct spine_route d[2] = {{0, 0, SPINE_HOP(7, 1, 0)}, {0x0a000001u, 32, SPINE_HOP(0, 0, SPINE_HOP_LOCAL)}};
  CHECK(spine_lpm_build(d, 2, 0, T, sizeof T) > 0, "default route");
  uint32_t h = 0;
  CHECK(fw_lpm_lookup(T, 0xdeadbeefu, &h) && h == d[0].hop, "default route found");
  CHECK(fw_lpm_lookup(T, 0x0a000001u, &h) && h == d[1].hop, "/32 found");
  CHECK(fw_lpm_lookup(T, 0x0a000002u, &h) && h == d[0].hop, "next to the /32");
}

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static void t_damaged_tables(void) {
  struct spine_route r[3] = {{0x0a000000u, 8, SPINE_HOP(1, 0, 0)}, {0x0a010000u, 16, SPINE_HOP(2, 1, 0)},
                             {0xc0a80000u, 16, SPINE_HOP(3, 1, 0)}};
  long sz = spine_lpm_build(r, 3, 0, T, sizeof T);
  static uint8_t g[SPINE_BANK_SIZE];
  memcpy(g, T, sizeof g);
  uint32_t n = T[4] | T[5] << 8;
  CHECK(fw_lpm_check(T, (uint32_t)sz - 1) == FW_LPM_E_SIZE, "short");
  CHECK(fw_lpm_check(T, 100) == FW_LPM_E_SIZE, "shorter than the head");
  T[0] ^= 1;
  CHECK(fw_lpm_check(T, sizeof T) == FW_LPM_E_MAGIC, "magic");
  memcpy(T, g, sizeof T);
  T[8] = 65;
  CHECK(fw_lpm_check(T, sizeof T) == FW_LPM_E_COUNT, "nhop");
  memcpy(T, g, sizeof T);
  put16(T + SPINE_LPM_IDX + 2 * 10, T[SPINE_LPM_IDX + 2 * 11]);
  CHECK(fw_lpm_check(T, sizeof T) == FW_LPM_E_INDEX, "an empty /8");
  memcpy(T, g, sizeof T);
  T[SPINE_LPM_START + 4 * (T[SPINE_LPM_IDX + 24] | T[SPINE_LPM_IDX + 25] << 8)] = 1;  /* /8 12 from 12.0.0.1 */
  CHECK(fw_lpm_check(T, sizeof T) == FW_LPM_E_ORDER, "a /8 not at its start");
  memcpy(T, g, sizeof T);
  T[SPINE_LPM_START + 4 * n + 5] = 3;  /* hop 3 of 3 */
  CHECK(fw_lpm_check(T, sizeof T) == FW_LPM_E_HOP, "a hop beyond nhop");
}

static void t_ipv4(void) {
  uint8_t p[64];
  ippkt_make(p, 64, IP4(10, 0, 0, 1), 0x0a030001u, 64, 0);
  CHECK(fw_ipv4_check(p, 64) == FW_IPV4_OK, "good header");
  CHECK(fw_ipv4_dst(p) == 0x0a030001u, "destination");
  CHECK(fw_ipv4_check(p, 19) == FW_IPV4_BAD, "short");
  CHECK(fw_ipv4_check(p, 63) == FW_IPV4_BAD, "total length beyond the packet");
  for (unsigned ttl = 2; ttl < 256; ttl++) {
    ippkt_make(p, 64, IP4(10, 0, 0, 1), rnd(), (uint8_t)ttl, ttl);
    fw_ipv4_ttl_dec(p);
    if (p[8] != ttl - 1 || fw_wire_csum(p, 20) != 0xffffu) CHECK(0, "ttl %u: checksum after decrement", ttl);
  }
  CHECK(1, "TTL decrements keep the checksum");
  ippkt_make(p, 64, IP4(10, 0, 0, 1), 1, 1, 0);
  CHECK(fw_ipv4_check(p, 64) == FW_IPV4_TTL, "TTL 1");
  ippkt_make(p, 64, IP4(10, 0, 0, 1), 1, 0, 0);
  CHECK(fw_ipv4_check(p, 64) == FW_IPV4_TTL, "TTL 0");
  ippkt_make(p, 64, IP4(10, 0, 0, 1), 1, 9, 0);
  p[12] ^= 0x40;
  CHECK(fw_ipv4_check(p, 64) == FW_IPV4_CSUM, "checksum");
  ippkt_make(p, 64, IP4(10, 0, 0, 1), 1, 9, 0);
  p[0] = 0x65;
  CHECK(fw_ipv4_check(p, 64) == FW_IPV4_BAD, "version 6");
  p[0] = 0x44;
  CHECK(fw_ipv4_check(p, 64) == FW_IPV4_BAD, "IHL 4");
  p[0] = 0x4f;
  CHECK(fw_ipv4_check(p, 40) == FW_IPV4_BAD, "IHL beyond the packet");
}

int main(void) {
  srandom(21);
  t_random_tables();
  t_size();
  t_limits();
  t_damaged_tables();
  t_ipv4();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
