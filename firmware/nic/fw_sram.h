/* fw_sram.h: SRAM access for the firmware. Hosts write the VI table and the rings by
 * programmed I/O while the firmware runs, so fields they write are read through volatile
 * word loads, snapshots are taken once and then trusted only as copies, and completions are
 * published with a release fence before the status word (hostif.h: "status last").
 * Shared fields are little-endian (fw_le.h): the word accessors and the typed struct copies
 * convert, the byte copies (fw_sram_in/out) do not. */
#ifndef FW_SRAM_H
#define FW_SRAM_H

#include <stddef.h>
#include <stdint.h>

#include "fw.h"
#include "fw_le.h"
#include "ring.h"

/* ACSL: the accessors below reach SRAM through pointer casts, outside WP's typed memory model.
 * Their bodies are trusted (no proof module lists them) and their contracts name the SRAM
 * bytes they read or write; fw_sram_complete and fw_sram_desc_in are built on them. fw_sram_ok: the
 * memory part of fw_ok (fw.h), all that the SRAM-only helpers of fw_sq.c need. */
/*@ predicate fw_sram_ok(struct fw *fw) =
      \valid(fw) && \valid(fw->sram + (0 .. FW_SRAM_END - 1)) &&
      \separated(fw, fw->sram + (0 .. FW_SRAM_END - 1));
*/

/*@ requires \valid_read(fw) && addr + 4 <= FW_SRAM_END && \valid_read(fw->sram + (addr .. addr + 3));
    assigns \nothing; */
static inline uint32_t fw_sram_rd32(struct fw *fw, uint32_t addr) {
  return FW_LE32(*(volatile uint32_t *)(void *)(fw->sram + addr));
}
/*@ requires \valid_read(fw) && addr + 4 <= FW_SRAM_END && \valid(fw->sram + (addr .. addr + 3));
    assigns fw->sram[addr .. addr + 3]; */
static inline void fw_sram_wr32(struct fw *fw, uint32_t addr, uint32_t v) {
  *(volatile uint32_t *)(void *)(fw->sram + addr) = FW_LE32(v);
}
/*@ requires \valid_read(fw) && addr + 2 <= FW_SRAM_END && \valid_read(fw->sram + (addr .. addr + 1));
    assigns \nothing; */
static inline uint16_t fw_sram_rd16(struct fw *fw, uint32_t addr) {
  return FW_LE16(*(volatile uint16_t *)(void *)(fw->sram + addr));
}
/*@ requires \valid_read(fw) && addr + 2 <= FW_SRAM_END && \valid(fw->sram + (addr .. addr + 1));
    assigns fw->sram[addr .. addr + 1]; */
static inline void fw_sram_wr16(struct fw *fw, uint32_t addr, uint16_t v) {
  *(volatile uint16_t *)(void *)(fw->sram + addr) = (uint16_t)FW_LE16(v);
}
/* On the LANai (one in-order core; the PCI bridge orders its own accesses) a compiler barrier
 * is enough, and its backend has no fence instruction; natively, real fences. */
#ifdef __lanai__
/*@ assigns \nothing; */
static inline void fw_sram_acquire(void) { __asm__ volatile("" ::: "memory"); }
/*@ assigns \nothing; */
static inline void fw_sram_release(void) { __asm__ volatile("" ::: "memory"); }
#else
/*@ assigns \nothing; */
static inline void fw_sram_acquire(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
/*@ assigns \nothing; */
static inline void fw_sram_release(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
#endif

/* A word that may alias anything: the copies below move structs of any member types. */
typedef uint32_t __attribute__((may_alias)) fw_sram_word_t;

/*@ requires \valid_read(fw) && addr + 4 <= FW_SRAM_END && \valid_read(fw->sram + (addr .. addr + 3));
    assigns \nothing; */
static inline uint32_t fw_sram_rd_raw(struct fw *fw, uint32_t addr) {
  return *(volatile fw_sram_word_t *)(void *)(fw->sram + addr);
}
/*@ requires \valid_read(fw) && addr + 4 <= FW_SRAM_END && \valid(fw->sram + (addr .. addr + 3));
    assigns fw->sram[addr .. addr + 3]; */
static inline void fw_sram_wr_raw(struct fw *fw, uint32_t addr, uint32_t v) {
  *(volatile fw_sram_word_t *)(void *)(fw->sram + addr) = v;
}

/* Copies len bytes (a multiple of 4, both ends aligned) out of SRAM word by word, bytes kept
 * in order (no byte-order conversion: for byte data, and under the typed copies below). */
/*@ requires \valid_read(fw) && addr + len <= FW_SRAM_END;
    requires \valid_read(fw->sram + (addr .. addr + len - 1));
    requires \valid((uint8_t *)dst + (0 .. len - 1));
    assigns ((uint8_t *)dst)[0 .. len - 1]; */
static inline void fw_sram_in(struct fw *fw, void *dst, uint32_t addr, uint32_t len) {
  fw_sram_word_t *d = dst;
  for (uint32_t i = 0; i < len / 4; i++) d[i] = fw_sram_rd_raw(fw, addr + 4 * i);
}
/*@ requires \valid_read(fw) && addr + len <= FW_SRAM_END && \valid(fw->sram + (addr .. addr + len - 1));
    requires \valid_read((const uint8_t *)src + (0 .. len - 1));
    assigns fw->sram[addr .. addr + len - 1]; */
static inline void fw_sram_out(struct fw *fw, uint32_t addr, const void *src, uint32_t len) {
  const fw_sram_word_t *s = src;
  for (uint32_t i = 0; i < len / 4; i++) fw_sram_wr_raw(fw, addr + 4 * i, s[i]);
}
/*@ requires \valid_read(fw) && addr + len <= FW_SRAM_END && \valid(fw->sram + (addr .. addr + len - 1));
    assigns fw->sram[addr .. addr + len - 1]; */
static inline void fw_sram_zero(struct fw *fw, uint32_t addr, uint32_t len) {
  for (uint32_t i = 0; i < len / 4; i++) fw_sram_wr_raw(fw, addr + 4 * i, 0);
}

/* Typed copies of the structs shared through SRAM: the bytes, then each field in the CPU's
 * order (fw_le.h). One per struct; every caller goes through them. */
/* A snapshot of the host's part of a descriptor (the fields before status). */
/*@ requires \valid_read(fw) && addr + sizeof(struct hostif_desc) <= FW_SRAM_END;
    requires \valid_read(fw->sram + (addr .. addr + sizeof(struct hostif_desc) - 1));
    requires \valid(d);
    assigns *d; */
static inline void fw_sram_desc_in(struct fw *fw, struct hostif_desc *d, uint32_t addr) {
  fw_sram_in(fw, d, addr, (uint32_t)offsetof(struct hostif_desc, status));
  fw_le_desc(d);
}
/*@ requires \valid_read(fw) && addr + sizeof(struct fwb_hdma_desc) <= FW_SRAM_END;
    requires \valid(fw->sram + (addr .. addr + sizeof(struct fwb_hdma_desc) - 1));
    requires \valid_read(d);
    assigns fw->sram[addr .. addr + sizeof(struct fwb_hdma_desc) - 1]; */
static inline void fw_sram_hdma_desc_out(struct fw *fw, uint32_t addr, const struct fwb_hdma_desc *d) {
  struct fwb_hdma_desc le = *d;
  fw_le_hdma_desc(&le);
  fw_sram_out(fw, addr, &le, sizeof le);
}
/*@ requires \valid_read(fw) && addr + sizeof(struct hostif_panic_cmd) <= FW_SRAM_END;
    requires \valid_read(fw->sram + (addr .. addr + sizeof(struct hostif_panic_cmd) - 1));
    requires \valid(c);
    assigns *c; */
static inline void fw_sram_panic_cmd_in(struct fw *fw, struct hostif_panic_cmd *c, uint32_t addr) {
  fw_sram_in(fw, c, addr, sizeof *c);
  fw_le_panic_cmd(c);
}
/*@ requires \valid_read(fw) && addr + sizeof(struct hostif_panic_seg) <= FW_SRAM_END;
    requires \valid_read(fw->sram + (addr .. addr + sizeof(struct hostif_panic_seg) - 1));
    requires \valid(s);
    assigns *s; */
static inline void fw_sram_panic_seg_in(struct fw *fw, struct hostif_panic_seg *s, uint32_t addr) {
  fw_sram_in(fw, s, addr, sizeof *s);
  fw_le_panic_seg(s);
}
/*@ requires \valid_read(fw) && addr + sizeof(struct hostif_panic_route) <= FW_SRAM_END;
    requires \valid_read(fw->sram + (addr .. addr + sizeof(struct hostif_panic_route) - 1));
    requires \valid(r);
    assigns *r; */
static inline void fw_sram_panic_route_in(struct fw *fw, struct hostif_panic_route *r, uint32_t addr) {
  fw_sram_in(fw, r, addr, sizeof *r);
  fw_le_panic_route(r);
}
/*@ requires \valid_read(fw) && addr + sizeof(struct hostif_panic_route) <= FW_SRAM_END;
    requires \valid(fw->sram + (addr .. addr + sizeof(struct hostif_panic_route) - 1));
    requires \valid_read(r);
    assigns fw->sram[addr .. addr + sizeof(struct hostif_panic_route) - 1]; */
static inline void fw_sram_panic_route_out(struct fw *fw, uint32_t addr,
                                      const struct hostif_panic_route *r) {
  struct hostif_panic_route le = *r;
  fw_le_panic_route(&le);
  fw_sram_out(fw, addr, &le, sizeof le);
}
/*@ requires \valid_read(fw) && addr + sizeof(struct hostif_panic_prog) <= FW_SRAM_END;
    requires \valid(fw->sram + (addr .. addr + sizeof(struct hostif_panic_prog) - 1));
    requires \valid_read(p);
    assigns fw->sram[addr .. addr + sizeof(struct hostif_panic_prog) - 1]; */
static inline void fw_sram_panic_prog_out(struct fw *fw, uint32_t addr,
                                     const struct hostif_panic_prog *p) {
  struct hostif_panic_prog le = *p;
  fw_le_panic_prog(&le);
  fw_sram_out(fw, addr, &le, sizeof le);
}

/* Addresses inside the VI table. */
/*@ // The end of the SRAM entry of a VI (struct hostif_vi: state, rings, slots).
    logic integer fw_sram_vi_end(integer vi) = HOSTIF_VI_ADDR(vi) + sizeof(struct hostif_vi); */
#define FW_VI_FIELD(vi, field) (HOSTIF_VI_ADDR(vi) + (uint32_t)offsetof(struct hostif_vi, field))
#define FW_RING_ADDR(vi, q) (HOSTIF_VI_ADDR(vi) + (uint32_t)offsetof(struct hostif_vi, q))
#define FW_RING_PROD(vi, q) (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, prod))
#define FW_RING_CONS(vi, q) (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, cons))
#define FW_RING_DONE(vi, q) (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, done))
#define FW_RING_REL_SEQ(vi, q) (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, rel_seq))
#define FW_SLOT_ADDR(vi, q, i) \
  (FW_RING_ADDR(vi, q) + (uint32_t)offsetof(struct hostif_ring, slot) + \
   ring_slot((uint32_t)(i)) * (uint32_t)sizeof(struct hostif_desc))

/* Writes a completion into a ring slot: the results, then (after a release fence) status. */
/*@ requires \valid_read(fw) && slot_addr + sizeof(struct hostif_desc) <= FW_SRAM_END;
    requires \valid(fw->sram + (slot_addr .. slot_addr + sizeof(struct hostif_desc) - 1));
    assigns fw->sram[slot_addr .. slot_addr + sizeof(struct hostif_desc) - 1]; */
static inline void fw_sram_complete(struct fw *fw, uint32_t slot_addr, uint32_t status,
                                    uint32_t len, uint32_t imm, uint16_t flags) {
  fw_sram_wr32(fw, slot_addr + offsetof(struct hostif_desc, done_len), len);
  fw_sram_wr32(fw, slot_addr + offsetof(struct hostif_desc, done_imm), imm);
  fw_sram_wr16(fw, slot_addr + offsetof(struct hostif_desc, done_flags), flags);
  fw_sram_release();
  fw_sram_wr32(fw, slot_addr + offsetof(struct hostif_desc, status), status);
}

#endif
