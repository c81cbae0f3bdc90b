/* rawhost.h: a host program's side of hostif.h without libnic, for the firmware and nicd
 * tests: VI entries, descriptors written by programmed I/O into a NIC window's SRAM,
 * doorbells, completions read back. Works on any mapping of a window (struct hwin). */
#ifndef TESTS_NIC_RAWHOST_H
#define TESTS_NIC_RAWHOST_H

#include <stdbool.h>
#include <stdint.h>

#include "window.h"
#include "hostif.h"

struct hostif_vi *rh_vi(struct hwin *w, unsigned vi);
/* Creates VI vi (rings zeroed, state IDLE). */
void rh_vi_create(struct hwin *w, unsigned vi, uint32_t ptag, uint32_t reliability);
/* Connects two VIs the way nicd does (remote fields and the connection's stamp, then
 * CONNECTED); rh_vi_pair with stamp 0. */
void rh_vi_pair(struct hwin *a, unsigned via, uint16_t node_a, struct hwin *b, unsigned vib,
                uint16_t node_b);
void rh_vi_pair_stamp(struct hwin *a, unsigned via, uint16_t node_a, struct hwin *b,
                      unsigned vib, uint16_t node_b, uint32_t stamp);
/* A descriptor with one segment per (addr, len) pair. */
struct hostif_desc rh_desc(uint16_t op, uint32_t ptag, unsigned nseg, const uint64_t *addr,
                           const uint32_t *len);
/* Posts d on the send (sq = true) or receive queue; returns its index. Rings the doorbell. */
uint32_t rh_post(struct hwin *w, unsigned vi, bool sq, const struct hostif_desc *d);
/* Completions so far (ring done) and the completion of index i. */
uint32_t rh_done(struct hwin *w, unsigned vi, bool sq);
struct hostif_desc rh_slot(struct hwin *w, unsigned vi, bool sq, uint32_t i);
volatile struct hostif_counters *rh_counters(struct hwin *w);
bool rh_ready(struct hwin *w);  /* the firmware published HOSTIF_MAGIC */

#endif
