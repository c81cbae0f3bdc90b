/* fw_lpm.h: the router's forwarding table (iface/spine_if.h): the check a table must pass
 * before the firmware uses it, and the longest-prefix lookup. Both read the table as bytes
 * (little-endian fields), so they run unchanged on the LANai, in nicd and in the fuzz target
 * fuzz_lpm. Freestanding. */
#ifndef FW_LPM_H
#define FW_LPM_H

#include <stdbool.h>
#include <stdint.h>

#include "spine_if.h"

/* Why a table fails its check (0: it passes). */
enum fw_lpm_err {
  FW_LPM_OK = 0,
  FW_LPM_E_SIZE,      /* shorter than its header, or than its n intervals */
  FW_LPM_E_MAGIC,
  FW_LPM_E_COUNT,     /* n outside 256..SPINE_LPM_MAXN, or nhop > SPINE_LPM_NHOP */
  FW_LPM_E_INDEX,     /* idx[0] != 0, idx[256] != n, or a /8 without intervals */
  FW_LPM_E_ORDER,     /* a /8 not starting at its first interval, or starts not increasing
                         inside a /8 */
  FW_LPM_E_HOP,       /* an interval's hop beyond nhop (other than SPINE_LPM_NONE) */
};

/* Checks the table t of cap bytes. After it passes, fw_lpm_lookup reads only inside
 * SPINE_LPM_SIZE(n) <= cap bytes and ends in at most 1 + log2(n) steps. */
enum fw_lpm_err fw_lpm_check(const uint8_t *t, uint32_t cap);
/* The hop entry (SPINE_HOP) of the longest prefix covering addr; false: no route. t must have
 * passed fw_lpm_check. */
bool fw_lpm_lookup(const uint8_t *t, uint32_t addr, uint32_t *hop);
/* The table's generation (its head's gen). */
uint32_t fw_lpm_gen(const uint8_t *t);

#endif
