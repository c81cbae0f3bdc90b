/* The emulated Myrinet/LANai-style NIC as the firmware sees it: SRAM, the event register ISR
 * with its mask IMR, doorbells and mailboxes written by hosts, a clock and interval timers,
 * the host DMA engine (chained descriptors, Internet checksum while copying, host memory
 * protection), and the send and receive DMA engines on the link (SML / SMLT fragments).
 *
 * Time is emulated: engines complete at times computed from configured bandwidths and
 * latencies, and nothing happens until nic_advance moves the clock. A firmware loop is:
 *   for (;;) { nic_advance(nic, now); while ((ev = nic_events(nic))) handle one, clear it; }
 * The registers, mailboxes and SRAM live in a shared memory window (window.h) that host
 * processes map; nic_window gives it. One thread drives a NIC. */
#ifndef HW_NIC_H
#define HW_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "window_nic.h"

struct nic;

/* ---- ISR bits (LANai-style; a bit is cleared by writing it back with nic_isr_clear) ---- */
#define NIC_ISR_HOST_SIG  (1u << 0)  /* a host wrote a doorbell */
#define NIC_ISR_SEND      (1u << 1)  /* send DMA done (one SML or SMLT fragment on the wire) */
#define NIC_ISR_RECV      (1u << 2)  /* receive DMA done: end of message (maybe truncated) */
#define NIC_ISR_HEAD      (1u << 3)  /* first fragment of a message landed in the armed buffer */
#define NIC_ISR_BUFF      (1u << 4)  /* armed buffer full before the end of the message */
#define NIC_ISR_WAKE0     (1u << 5)  /* host DMA channel 0 .. 3 woke (WAKE descriptor or error) */
#define NIC_ISR_WAKE(ch)  (NIC_ISR_WAKE0 << (ch))
#define NIC_ISR_TIMER0    (1u << 9)  /* interval timer 0 .. 2 expired */
#define NIC_ISR_TIMER(t)  (NIC_ISR_TIMER0 << (t))
#define NIC_ISR_LINK_DOWN (1u << 12) /* the link went down */
#define NIC_ISR_MEMORY    (1u << 13) /* an engine met an SRAM address outside the SRAM */
#define NIC_ISR_HW_MASK   0x3fffu
#define NIC_ISR_SW_MASK   0xffff0000u /* bits the firmware raises itself (nic_isr_raise) */

#define NIC_HDMA_CHANNELS 4
#define NIC_TIMERS        3

/* ---- errors returned by calls (negative) ---- */
enum nic_err {
  NIC_OK = 0,
  NIC_EINVAL = -1,  /* bad argument */
  NIC_EBUSY = -2,   /* engine or channel busy */
  NIC_ERANGE = -3,  /* SRAM address range outside the SRAM */
  NIC_EALIGN = -4,  /* misaligned SRAM word access */
  NIC_ENOMEM = -5,
  NIC_ESYS = -6,    /* shared memory could not be set up */
};

/* ---- configuration ---- */
enum nic_timing {
  NIC_TIMING_MODEL, /* durations from bandwidths and latencies (deterministic tests, models) */
  NIC_TIMING_FAST   /* every transfer takes no emulated time: as fast as the host can copy */
};

/* Engines whose busy intervals nic_config.trace reports. */
enum nic_engine { NIC_ENG_HDMA, NIC_ENG_SEND, NIC_ENG_RECV, NIC_ENG_N };

/* Start from nic_config_default. */
struct nic_config {
  uint32_t sram_size;          /* bytes, multiple of 8; 0 means HW_SRAM_DEFAULT (4 MiB) */
  uint16_t node;               /* node id on the fabric */
  const char *shm_name;        /* window name for other processes ("/verinic-nic0"), or NULL
                                  for an anonymous window (memfd, inherited by children) */
  enum nic_timing timing;
  uint64_t hdma_bytes_per_s;   /* 0 means 528 MB/s (PCI 64-bit/66 MHz) */
  uint64_t hdma_latency_ns;    /* per descriptor (default 500) */
  uint64_t link_bytes_per_s;   /* 0 means 250 MB/s (Myrinet-2000, 2 Gb/s) */
  uint64_t send_latency_ns;    /* per fragment, before the first byte (default 100) */
  /* When set, called with each busy interval of an engine as it is known: a host DMA
   * descriptor or a sent fragment when it starts, a received fragment when it has arrived
   * (its time on the link). nicd --timing --trace. */
  void (*trace)(void *ctx, uint16_t node, enum nic_engine e, uint64_t start_ns, uint64_t end_ns);
  void *trace_ctx;
};

#define NIC_DEFAULT_HDMA_BPS      528000000ull
#define NIC_DEFAULT_HDMA_LAT_NS   500
#define NIC_DEFAULT_LINK_BPS      250000000ull
#define NIC_DEFAULT_SEND_LAT_NS   100
#define NIC_NEVER                 UINT64_MAX

void nic_config_default(struct nic_config *c);
/* NULL with *err set on failure (err may be NULL). */
struct nic *nic_create(const struct nic_config *c, int *err);
void nic_destroy(struct nic *nic);
struct hwin *nic_window(struct nic *nic);
uint16_t nic_node(const struct nic *nic);

/* Joins the NIC to a fabric as its node (nic_config.node). */
int nic_attach(struct nic *nic, struct fabric *f);

/* ---- time ---- */
uint64_t nic_clock(const struct nic *nic);
/* Runs every engine, timer and arrival due up to now_ns (in time order), then sets the clock
 * to now_ns. The clock never goes back: with now_ns behind it, what is due by the clock runs. */
void nic_advance(struct nic *nic, uint64_t now_ns);
/* Time of the next thing nic_advance would process, or NIC_NEVER. */
uint64_t nic_next_due(struct nic *nic);
/* Advances to nic_next_due if there is one: true if it did. */
bool nic_step(struct nic *nic);
/* Advances several NICs sharing a fabric together up to now_ns, always the one with the
 * earliest due event first, so a frame is never seen after its arrival time. */
void nic_advance_all(struct nic **nics, size_t n, uint64_t now_ns);
/* A daemon driving NICs in real time sleeps between events with iface/wait.h's
 * wait_doorbell on their windows (nic_window). */

/* ---- SRAM (bounds-checked; words in host byte order, aligned) ---- */
uint32_t nic_sram_size(const struct nic *nic);
int nic_sram_read(const struct nic *nic, uint32_t addr, void *dst, size_t len);
int nic_sram_write(struct nic *nic, uint32_t addr, const void *src, size_t len);
int nic_sram_read32(const struct nic *nic, uint32_t addr, uint32_t *v);
int nic_sram_write32(struct nic *nic, uint32_t addr, uint32_t v);
/* Direct pointer to [addr, addr + len), or NULL when out of range. */
void *nic_sram_ptr(struct nic *nic, uint32_t addr, size_t len);

/* ---- events ---- */
uint32_t nic_isr(const struct nic *nic);
uint32_t nic_imr(const struct nic *nic);
void nic_imr_set(struct nic *nic, uint32_t mask);
/* ISR & IMR: the events the firmware dispatcher should handle. */
uint32_t nic_events(const struct nic *nic);
/* Write-one-to-clear. */
void nic_isr_clear(struct nic *nic, uint32_t bits);
/* Raises firmware event bits (only NIC_ISR_SW_MASK bits; others are ignored). */
void nic_isr_raise(struct nic *nic, uint32_t bits);

/* ---- doorbells / mailboxes ---- */
/* Takes the set of doorbells written since the last call (bit i: doorbell i). */
uint32_t nic_doorbells_take(struct nic *nic);
uint32_t nic_mailbox(const struct nic *nic, unsigned i);
/* Raises signal bits to host processes waiting in wait_signal (iface/wait.h). */
void nic_signal_host(struct nic *nic, uint32_t bits);

/* ---- timers ---- */
/* One-shot: NIC_ISR_TIMER(t) is set delay_ns from now. Re-arming replaces the deadline. */
int nic_timer_set(struct nic *nic, unsigned t, uint64_t delay_ns);
int nic_timer_cancel(struct nic *nic, unsigned t);
bool nic_timer_armed(const struct nic *nic, unsigned t);

/* ---- host DMA engine ---- */
#define NIC_HDMA_E2L      0x0001u /* host -> SRAM ("external to LANai") */
#define NIC_HDMA_L2E      0x0002u /* SRAM -> host */
#define NIC_HDMA_TERMINAL 0x0004u /* last descriptor of the chain */
#define NIC_HDMA_WAKE     0x0008u /* set NIC_ISR_WAKE(channel) when this descriptor completes */
#define NIC_HDMA_FLAGS    0x000fu

/* Descriptor status, written back by the engine. */
enum nic_hdma_status {
  NIC_HDMA_PENDING = 0,
  NIC_HDMA_DONE = 1,
  NIC_HDMA_EPROT,   /* host range not inside one registered region: nothing moved */
  NIC_HDMA_EPTAG,   /* the region's protection tag differs: nothing moved */
  NIC_HDMA_EACCESS, /* the region does not allow this direction: nothing moved */
  NIC_HDMA_ESRAM,   /* SRAM range outside the SRAM: nothing moved */
  NIC_HDMA_EDESC,   /* descriptor malformed, outside SRAM, or chain too long */
  NIC_HDMA_EMAP,    /* the host segment could not be mapped: nothing moved */
};

/* A host DMA descriptor in SRAM: 32 bytes, 4-byte aligned, fields in host byte order. The
 * engine writes csum and status back into it. */
struct nic_hdma_desc {
  uint32_t next;    /* SRAM address of the next descriptor, unless TERMINAL */
  uint16_t flags;   /* exactly one of E2L / L2E, plus TERMINAL, WAKE */
  uint16_t csum;    /* written back: ones'-complement sum of the bytes moved (not complemented) */
  uint32_t len;
  uint32_t sram;    /* SRAM ("LANai") address */
  uint32_t host_hi, host_lo;  /* host address */
  uint32_t ptag;    /* must equal the protection tag of the region */
  uint32_t status;  /* written back: enum nic_hdma_status */
};
_Static_assert(sizeof(struct nic_hdma_desc) == 32, "descriptor is 32 bytes");

#define NIC_HDMA_MAX_CHAIN 65536

struct nic_hdma_chan_status {
  bool busy;
  enum nic_hdma_status error;  /* NIC_HDMA_DONE after a clean chain, else the first error */
  uint32_t cur;                /* SRAM address of the descriptor in progress or last done */
  uint32_t descs;              /* descriptors completed in this chain */
  uint64_t bytes;              /* bytes moved in this chain */
  uint16_t sum;                /* ones'-complement sum over the chain's bytes, in order */
  uint16_t csum;               /* its Internet checksum (~sum) */
};

/* Starts the chain at SRAM address desc on a channel. NIC_EBUSY if the channel is busy.
 * Channels share the one engine: descriptors of active channels are served round-robin. */
int nic_hdma_start(struct nic *nic, unsigned ch, uint32_t desc);
int nic_hdma_status(const struct nic *nic, unsigned ch, struct nic_hdma_chan_status *st);

/* ---- send DMA engine (SRAM -> link) ---- */
#define NIC_SEND_SML  0x1u /* end of buffer: the message continues in the next fragment */
#define NIC_SEND_SMLT 0x2u /* end of message */

/* Sends len bytes at SRAM address sram to node dst as one fragment; NIC_ISR_SEND when it has
 * left. Until a fragment with SMLT, every fragment must go to the same dst (the route stays
 * open). NIC_EBUSY while a fragment is in flight. */
int nic_send_start(struct nic *nic, uint16_t dst, uint32_t sram, uint32_t len, unsigned flags);
bool nic_send_busy(const struct nic *nic);

/* ---- receive DMA engine (link -> SRAM) ---- */
#define NIC_RECV_EOM   0x1u /* the message ended (SMLT seen) */
#define NIC_RECV_TRUNC 0x2u /* the message was longer than the buffer: the rest was discarded */

enum nic_recv_state { NIC_RECV_IDLE, NIC_RECV_ARMED, NIC_RECV_DONE };

struct nic_recv_status {
  enum nic_recv_state state;
  uint32_t len;      /* bytes stored in the buffer (grows while a message arrives) */
  uint32_t msg_len;  /* bytes of the message seen on the link, truncated or not */
  uint32_t frags;    /* fragments of this message so far */
  uint16_t src;      /* sender node (valid once len or frags > 0) */
  unsigned flags;    /* NIC_RECV_EOM, NIC_RECV_TRUNC */
};

/* Arms the receive engine with a buffer: the next message from the link lands there. Frames
 * wait in the fabric while no buffer is armed (link back-pressure). NIC_EBUSY if armed. */
int nic_recv_arm(struct nic *nic, uint32_t sram, uint32_t cap);
void nic_recv_status(const struct nic *nic, struct nic_recv_status *st);
/* Gives up on the message in progress (e.g. its sender died before SMLT): the engine goes to
 * DONE with what arrived, without EOM, and the next frames start a new message. */
int nic_recv_abort(struct nic *nic);
/* Cut-through delivery (memfab_set_deliver): takes the frame h, payload at the sender, as if
 * it had arrived now and been polled, when the engine is armed and would take it next (its
 * message's sender, or no message in progress and nothing waiting in the fabric). True when
 * taken; false leaves it to be queued. Called by the thread that drives this NIC. */
bool nic_recv_direct(struct nic *nic, const struct hw_link_hdr *h, const void *payload);

/* ---- counters ---- */
uint64_t nic_counter(const struct nic *nic, enum hw_ctr c);

const char *nic_hdma_status_name(enum nic_hdma_status s);

/* ---- host memory protection ---- */
/* The host DMA engine's check (hw/iommu.c) on its own, for firmware that asks first: is
 * [host, host + len) inside one registered region with this tag allowing access
 * (HW_ACC_NIC_READ / _WRITE)? NIC_HDMA_DONE, or EPROT, EPTAG, EACCESS as a descriptor would
 * complete. */
enum nic_hdma_status nic_region_check(struct nic *nic, uint64_t host, uint32_t len, uint32_t ptag,
                                      uint32_t access);

#endif
