/* Big-endian (network order) loads and stores: link frames and the LANai simulator (the
 * firmware's wire codec, freestanding and proved, has its own in fw_wire.c). */
#ifndef HW_BE_H
#define HW_BE_H

#include <stdint.h>

static inline uint16_t hw_ld16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t hw_ld32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t hw_ld64(const uint8_t *p) {
  return (uint64_t)hw_ld32(p) << 32 | hw_ld32(p + 4);
}
static inline void hw_st16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static inline void hw_st32(uint8_t *p, uint32_t v) {
  hw_st16(p, (uint16_t)(v >> 16));
  hw_st16(p + 2, (uint16_t)v);
}
static inline void hw_st64(uint8_t *p, uint64_t v) {
  hw_st32(p, (uint32_t)(v >> 32));
  hw_st32(p + 4, (uint32_t)v);
}

#endif
