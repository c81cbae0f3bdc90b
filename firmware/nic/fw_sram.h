/* fw_sram.h: SRAM access for the firmware. Hosts write the VI table and the rings by
 * programmed I/O while the firmware runs, so fields they write are read through volatile
 * word loads, snapshots are taken once and then trusted only as copies, and completions are
 * published with a release fence before the status word (hostif.h: "status last"). */
#ifndef FW_SRAM_H
#define FW_SRAM_H

#include <stddef.h>
#include <stdint.h>

#include "fw.h"
#include "ring.h"

static inline uint32_t fw_rd32(struct fw *fw, uint32_t addr) {
  return *(volatile uint32_t *)(void *)(fw->sram + addr);
}
static inline void fw_wr32(struct fw *fw, uint32_t addr, uint32_t v) {
  *(volatile uint32_t *)(void *)(fw->sram + addr) = v;
}
static inline uint16_t fw_rd16(struct fw *fw, uint32_t addr) {
  return *(volatile uint16_t *)(void *)(fw->sram + addr);
}
static inline void fw_wr16(struct fw *fw, uint32_t addr, uint16_t v) {
  *(volatile uint16_t *)(void *)(fw->sram + addr) = v;
}
/* On the LANai (one in-order core; the PCI bridge orders its own accesses) a compiler barrier
 * is enough, and its backend has no fence instruction; natively, real fences. */
#ifdef __lanai__
static inline void fw_acquire(void) { __asm__ volatile("" ::: "memory"); }
static inline void fw_release(void) { __asm__ volatile("" ::: "memory"); }
#else
static inline void fw_acquire(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void fw_release(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
#endif

/* A word that may alias anything: the copies below move structs of any member types. */
typedef uint32_t __attribute__((may_alias)) fw_word_t;

/* Copies len bytes (a multiple of 4, both ends aligned) out of SRAM word by word. */
static inline void fw_sram_in(struct fw *fw, void *dst, uint32_t addr, uint32_t len) {
  fw_word_t *d = dst;
  for (uint32_t i = 0; i < len / 4; i++) d[i] = fw_rd32(fw, addr + 4 * i);
}
static inline void fw_sram_out(struct fw *fw, uint32_t addr, const void *src, uint32_t len) {
  const fw_word_t *s = src;
  for (uint32_t i = 0; i < len / 4; i++) fw_wr32(fw, addr + 4 * i, s[i]);
}
static inline void fw_sram_zero(struct fw *fw, uint32_t addr, uint32_t len) {
  for (uint32_t i = 0; i < len / 4; i++) fw_wr32(fw, addr + 4 * i, 0);
}

/* Addresses inside the VI table. */
#define FW_VI_FIELD(vi, field) (HOSTIF_VI_ADDR(vi) + (uint32_t)offsetof(struct hostif_vi, field))
#define FW_RING_ADDR(vi, q) (HOSTIF_VI_ADDR(vi) + (uint32_t)offsetof(struct hostif_vi, q))
#define FW_RING_PROD(vi, q) (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, prod))
#define FW_RING_CONS(vi, q) (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, cons))
#define FW_RING_DONE(vi, q) (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, done))
#define FW_SLOT_ADDR(vi, q, i) \
  (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, slot) + \
   ring_slot((uint32_t)(i)) * (uint32_t)sizeof(struct hostif_desc))

/* Writes a completion into a ring slot: the results, then (after a release fence) status. */
static inline void fw_complete_slot(struct fw *fw, uint32_t slot_addr, uint32_t status,
                                    uint32_t len, uint32_t imm, uint16_t flags) {
  fw_wr32(fw, slot_addr + offsetof(struct hostif_desc, done_len), len);
  fw_wr32(fw, slot_addr + offsetof(struct hostif_desc, done_imm), imm);
  fw_wr16(fw, slot_addr + offsetof(struct hostif_desc, done_flags), flags);
  fw_release();
  fw_wr32(fw, slot_addr + offsetof(struct hostif_desc, status), status);
}

#endif
