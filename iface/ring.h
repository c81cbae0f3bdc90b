/* ring.h: the index arithmetic of the work queue rings of hostif.h, shared by the host
 * producer (host/libnic/nic_queue.c) and the firmware consumer (firmware/nic/fw_sq.c, fw_rq.c).
 * Indices are free-running 32-bit counters (prod, cons, done; the host's reaped); index i lives
 * in slot i % HOSTIF_RING. Counters wrap at 2^32, a multiple of HOSTIF_RING, so slots stay
 * consistent across the wrap; the wrap is written out so that no unsigned arithmetic overflows.
 * Proved by the `ring` module of proofs/modules.conf: in particular, a producer that asks
 * ring_may_produce(prod, tail) before writing slot ring_slot(prod) never overwrites any entry
 * of [tail, prod), hence no unconsumed one (tail <= done <= cons <= prod). Freestanding. */
#ifndef VERINIC_RING_H
#define VERINIC_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "hostif.h"

_Static_assert((HOSTIF_RING & (HOSTIF_RING - 1u)) == 0 && HOSTIF_RING <= 0x8000u,
               "ring slots are a power of two");

/*@ // Entries from tail up to head, counting modulo 2^32.
    logic integer ring_dist(integer head, integer tail) =
      (head - tail + 4294967296) % 4294967296;
    // Index arithmetic modulo 2^32.
    logic integer ring_add(integer i, integer k) = (i + k) % 4294967296;
    logic integer ring_slot_of(integer i) = i % 32;
*/

/* Number of entries in [tail, head): head - tail modulo 2^32. */
/*@ assigns \nothing;
    ensures \result == ring_dist(head, tail);
    ensures ring_add(tail, \result) == head; */
static inline uint32_t ring_count(uint32_t head, uint32_t tail) {
  return head >= tail ? head - tail : head + (UINT32_MAX - tail) + 1u;
}

/* The index after i (free-running: wraps to 0). */
/*@ assigns \nothing;
    ensures \result == ring_add(i, 1); */
static inline uint32_t ring_next(uint32_t i) { return i == UINT32_MAX ? 0u : i + 1u; }

/* The index before i. */
/*@ assigns \nothing;
    ensures ring_add(\result, 1) == i; */
static inline uint32_t ring_prev(uint32_t i) { return i == 0u ? UINT32_MAX : i - 1u; }

/* The ring slot of index i. */
/*@ assigns \nothing;
    ensures \result == ring_slot_of(i) && \result < HOSTIF_RING; */
static inline uint32_t ring_slot(uint32_t i) { return i % HOSTIF_RING; }

/* Whether [tail, head) holds an entry: a consumer at tail may take one. */
/*@ assigns \nothing;
    ensures \result <==> ring_dist(head, tail) != 0; */
static inline bool ring_nonempty(uint32_t head, uint32_t tail) { return head != tail; }

/* Whether a producer at prod may write slot ring_slot(prod) while the entries [tail, prod)
 * are still in use: true exactly when fewer than HOSTIF_RING are, and then the slot it
 * writes is none of theirs. */
/*@ assigns \nothing;
    ensures \result <==> ring_dist(prod, tail) < HOSTIF_RING;
    ensures \result ==> \forall integer k; 0 <= k < ring_dist(prod, tail) ==>
              ring_slot_of(ring_add(tail, k)) != ring_slot_of(prod); */
static inline bool ring_may_produce(uint32_t prod, uint32_t tail) {
  return ring_count(prod, tail) < HOSTIF_RING;
}

#endif
