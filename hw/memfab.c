/* In-memory fabric: frames are encoded (or copied) into per-link FIFO queues stamped with their
 * arrival time; poll checks them with hw_link_parse and hands out the good ones.
 * Each link is a single-producer single-consumer queue: a sentinel node whose `next` is the
 * first frame; the producer appends after its tail, the consumer pops by making the first
 * frame the new sentinel. So the NICs of one fabric may run on different threads as long as
 * each node is driven by one thread: a node sends (produces) and polls (consumes) from it. */
#include "memfab.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

struct pkt {
  _Atomic(struct pkt *) next;
  uint64_t arrival;
  size_t len, cap;
  bool pooled;                   /* one of memfab.sentinels: freed with the fabric, not alone */
  uint8_t bytes[];
};

/* Frames the consumer is done with go back to the link's producer through a small ring, so
 * a stream allocates nothing per frame (with a NIC per thread, malloc in one thread and free
 * in the other cost 6% of a stream, with the heap trimming's TLB shootdowns). */
#define SPARES 8

struct link {
  struct pkt *head;              /* consumer's: the sentinel; head->next is the oldest frame */
  atomic_uint popped;            /* consumer's: frames taken off */
  atomic_uint spare_in;          /* consumer's: spares given back */
  _Alignas(64) struct pkt *tail; /* producer's: the newest frame (the sentinel when empty) */
  uint64_t last_arrival;
  atomic_uint pushed;            /* producer's: frames queued, raised before one is published
                                    (so pushed - popped, the depth, never goes below 0) */
  atomic_uint spare_out;         /* producer's: spares taken */
  struct pkt *spare[SPARES];
};

struct memfab {
  struct fabric f;
  uint64_t latency;
  unsigned queue_depth;
  memfab_fault_fn fault;
  void *fault_ctx;
  memfab_arrival_fn arrival;
  void *arrival_ctx;
  memfab_deliver_fn deliver;
  void *deliver_ctx;
  bool *up;                      /* per node */
  struct link *links;            /* [dst * nodes + src] */
  unsigned char *sentinels;      /* each link's first sentinel, allocated together */
  struct fabric_counters *cnt;   /* per node, written by that node's thread only */
};

static struct memfab *M(struct fabric *f) { return (struct memfab *)f; }

static struct link *lnk(struct memfab *m, unsigned src, unsigned dst) {
  return &m->links[(size_t)dst * m->f.nodes + src];
}

static struct pkt *oldest(struct link *l) {
  return atomic_load_explicit(&l->head->next, memory_order_acquire);
}

/* The consumer's side: a frame it is done with becomes a spare, or is freed. */
static void release(struct link *l, struct pkt *p) {
  if (p->pooled) return;
  unsigned in = atomic_load_explicit(&l->spare_in, memory_order_relaxed);
  if (in - atomic_load_explicit(&l->spare_out, memory_order_acquire) == SPARES) {
    free(p);
    return;
  }
  l->spare[in % SPARES] = p;
  atomic_store_explicit(&l->spare_in, in + 1, memory_order_release);
}

/* The producer's side: a spare of at least len bytes, or a new packet. */
static struct pkt *pkt_get(struct link *l, size_t len) {
  unsigned out = atomic_load_explicit(&l->spare_out, memory_order_relaxed);
  if (atomic_load_explicit(&l->spare_in, memory_order_acquire) != out) {
    struct pkt *p = l->spare[out % SPARES];
    atomic_store_explicit(&l->spare_out, out + 1, memory_order_release);
    if (p->cap >= len) return p;
    free(p);
  }
  struct pkt *p = malloc(sizeof *p + (len ? len : 1));
  if (p) p->cap = len, p->pooled = false;
  return p;
}

/* The oldest frame, which becomes the link's sentinel: its bytes stay valid until the next pop. */
static struct pkt *pop(struct link *l) {
  struct pkt *p = oldest(l), *old = l->head;
  l->head = p;
  atomic_store_explicit(&l->popped, atomic_load_explicit(&l->popped, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  release(l, old);
  return p;
}

static void drop_queue(struct memfab *m, unsigned dst, enum fab_drop why) {
  for (unsigned s = 0; s < m->f.nodes; s++) {
    struct link *l = lnk(m, s, dst);
    while (oldest(l)) {
      pop(l);
      m->cnt[dst].drops[why]++;
    }
  }
}

/* The link a frame from src to dst joins, or NULL with the refusal in *rc (counted). */
static struct link *admit(struct memfab *m, uint16_t src, uint16_t dst, int *rc) {
  struct fabric_counters *c = &m->cnt[src];
  *rc = dst >= m->f.nodes ? -EHOSTUNREACH : !m->up[src] || !m->up[dst] ? -ENETDOWN : 0;
  if (*rc) {
    c->drops[*rc == -ENETDOWN ? FAB_DROP_LINK_DOWN : FAB_DROP_NO_ROUTE]++;
    return NULL;
  }
  struct link *l = lnk(m, src, dst);
  unsigned depth = atomic_load_explicit(&l->pushed, memory_order_relaxed) -
                   atomic_load_explicit(&l->popped, memory_order_relaxed);
  if (depth >= m->queue_depth) {
    c->drops[FAB_DROP_QUEUE_FULL]++;
    *rc = -ENOBUFS;
    return NULL;
  }
  return l;
}

/* The frames sent on the fabric before the one just counted: the index a fault hook gets. A
 * hook is set only while one thread runs the fabric (memfab.h), so the sum is exact; without
 * one nothing counts fabric-wide, as an atomic both threads of a stream raise per frame would
 * cost them each a cache-line transfer. */
static uint64_t sent_before(const struct memfab *m) {
  uint64_t n = 0;
  for (unsigned s = 0; s < m->f.nodes; s++) n += m->cnt[s].tx_packets;
  return n - 1;
}

/* Queues p (len bytes filled in) on l: the fault hook first when hooked, then the link's
 * FIFO at now plus the latency. */
static int publish(struct memfab *m, struct link *l, struct pkt *p, uint16_t src, uint16_t dst,
                   size_t len, uint64_t now, bool hooked) {
  struct fabric_counters *c = &m->cnt[src];
  p->len = len;
  if (hooked) {
    c->tx_packets++;
    c->tx_bytes += len;
    if (m->fault && m->fault(m->fault_ctx, src, dst, sent_before(m), p->bytes, &p->len) ==
                        MEMFAB_DROP) {
      free(p);
      c->drops[FAB_DROP_INJECTED]++;
      return 0; /* lost in the network: the sender cannot tell */
    }
    if (p->len > len) p->len = len; /* a hook may shorten a frame, never lengthen it */
  }
  uint64_t a = now + m->latency;
  if (a < l->last_arrival) a = l->last_arrival; /* FIFO per link */
  p->arrival = l->last_arrival = a;
  atomic_init(&p->next, NULL);
  atomic_store_explicit(&l->pushed, atomic_load_explicit(&l->pushed, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  atomic_store_explicit(&l->tail->next, p, memory_order_release);
  l->tail = p;
  if (m->arrival) m->arrival(m->arrival_ctx, dst);
  return 0;
}

/* A packet of len bytes for l, or NULL (counted against src). */
static struct pkt *alloc_pkt(struct memfab *m, struct link *l, uint16_t src, size_t len) {
  struct pkt *p = pkt_get(l, len);
  if (!p) m->cnt[src].drops[FAB_DROP_QUEUE_FULL]++;
  return p;
}

static int enqueue(struct memfab *m, uint16_t src, uint16_t dst, const uint8_t *bytes, size_t len,
                   uint64_t now, bool hooked) {
  int rc;
  struct link *l = admit(m, src, dst, &rc);
  struct pkt *p = l ? alloc_pkt(m, l, src, len) : NULL;
  if (!p) return l ? -ENOMEM : rc;
  memcpy(p->bytes, bytes, len);
  return publish(m, l, p, src, dst, len, now, hooked);
}

static int mf_send(struct fabric *f, uint16_t src, uint16_t dst, const uint8_t *frame, size_t len,
                   uint64_t now) {
  struct memfab *m = M(f);
  if (src >= f->nodes) return -EINVAL;
  return enqueue(m, src, dst, frame, len, now, true);
}

/* Cut-through (memfab_deliver_fn): a frame that would arrive at once on an empty link, with
 * no fault hook to pass, offered to its receiver; counted as sent and received when taken. */
static bool cut_through(struct memfab *m, struct link *l, const struct hw_link_hdr *h,
                        const void *payload, uint64_t now) {
  if (!m->deliver || m->fault || m->latency || now < l->last_arrival ||
      atomic_load_explicit(&l->pushed, memory_order_relaxed) !=
          atomic_load_explicit(&l->popped, memory_order_acquire))   /* frames queued before it */
    return false;
  if (!m->deliver(m->deliver_ctx, h, payload)) return false;
  size_t len = (size_t)h->len + HW_LINK_OVERHEAD;
  m->cnt[h->src].tx_packets++;
  m->cnt[h->src].tx_bytes += len;
  m->cnt[h->dst].rx_packets++;
  m->cnt[h->dst].rx_bytes += len;
  l->last_arrival = now;
  return true;
}

/* The frame is encoded straight into its packet: between the sender's SRAM and the queue
 * there is no copy but the link's own. */
static int mf_send_link(struct fabric *f, const struct hw_link_hdr *h, const void *payload,
                        uint64_t now) {
  struct memfab *m = M(f);
  if (h->src >= f->nodes) return -EINVAL;
  if (h->len > HW_LINK_MAX_PAYLOAD || (h->flags & ~HW_LINK_FLAGS)) {
    m->cnt[h->src].drops[FAB_DROP_MALFORMED]++;
    return -EINVAL;
  }
  int rc;
  size_t len = (size_t)h->len + HW_LINK_OVERHEAD;
  struct link *l = admit(m, h->src, h->dst, &rc);
  if (l && cut_through(m, l, h, payload, now)) return 0;
  struct pkt *p = l ? alloc_pkt(m, l, h->src, len) : NULL;
  if (!p) return l ? -ENOMEM : rc;
  hw_link_encode(p->bytes, p->cap, h, payload);
  return publish(m, l, p, h->src, h->dst, len, now, true);
}

/* The link whose oldest frame poll would take next (its arrival in *first), or NULL. */
static struct link *pick(struct memfab *m, uint16_t node, int from, unsigned *src,
                         uint64_t *first) {
  struct link *best = NULL;
  for (unsigned s = 0; s < m->f.nodes; s++) {
    if (from >= 0 && (unsigned)from != s) continue;
    struct pkt *p = oldest(lnk(m, s, node));
    if (p && (!best || p->arrival < *first)) {
      best = lnk(m, s, node);
      *first = p->arrival;
      *src = s;
    }
  }
  return best;
}

static int mf_poll_copy(struct fabric *f, uint16_t node, int from, uint64_t now,
                        struct fabric_rx *rx, void *dst, size_t cap) {
  struct memfab *m = M(f);
  if (node >= f->nodes) return -EINVAL;
  if (!m->up[node]) return 0;
  for (;;) {
    unsigned src = 0;
    uint64_t first;
    struct link *l = pick(m, node, from, &src, &first);
    if (!l || first > now) return 0;
    struct pkt *p = pop(l);
    struct hw_link_hdr h;
    const uint8_t *payload;
    enum hw_link_err e = hw_link_parse_copy(p->bytes, p->len, &h, &payload, dst, cap);
    if (e == HW_LINK_OK && (h.src != src || h.dst != node)) e = HW_LINK_EMAGIC;
    if (e != HW_LINK_OK) {
      enum fab_drop why = e == HW_LINK_ECRC ? FAB_DROP_CRC
                        : e == HW_LINK_ELEN ? FAB_DROP_LENGTH
                                            : FAB_DROP_MALFORMED;
      m->cnt[node].drops[why]++;
      continue;
    }
    m->cnt[node].rx_packets++;
    m->cnt[node].rx_bytes += p->len;
    rx->src = h.src;
    rx->flags = h.flags;
    rx->frame = h.frame;
    rx->payload = payload;
    rx->len = h.len;
    rx->arrival_ns = p->arrival;
    return 1;
  }
}

static int mf_poll(struct fabric *f, uint16_t node, int from, uint64_t now, struct fabric_rx *rx) {
  return mf_poll_copy(f, node, from, now, rx, NULL, 0);
}

static uint64_t mf_next_due(struct fabric *f, uint16_t node, int from) {
  struct memfab *m = M(f);
  unsigned src;
  uint64_t first;
  if (node >= f->nodes || !m->up[node]) return FAB_NEVER;
  return pick(m, node, from, &src, &first) ? first : FAB_NEVER;
}

static bool mf_link_up(struct fabric *f, uint16_t node) {
  return node < f->nodes && M(f)->up[node];
}

static void mf_counters(struct fabric *f, int node, struct fabric_counters *out) {
  struct memfab *m = M(f);
  memset(out, 0, sizeof *out);
  for (unsigned n = 0; n < f->nodes; n++) {
    if (node >= 0 && (unsigned)node != n) continue;
    const struct fabric_counters *c = &m->cnt[n];
    out->tx_packets += c->tx_packets;
    out->tx_bytes += c->tx_bytes;
    out->rx_packets += c->rx_packets;
    out->rx_bytes += c->rx_bytes;
    for (int d = 0; d < FAB_DROP_N; d++) out->drops[d] += c->drops[d];
  }
}

static void mf_close(struct fabric *f) {
  struct memfab *m = M(f);
  for (size_t i = 0; i < (size_t)f->nodes * f->nodes; i++) {
    struct link *l = &m->links[i];
    while (oldest(l)) pop(l);
    if (!l->head->pooled) free(l->head);
    for (unsigned k = l->spare_out; k != l->spare_in; k++) free(l->spare[k % SPARES]);
  }
  free(m->up);
  free(m->links);
  free(m->sentinels);
  free(m->cnt);
  free(m);
}

static const struct fabric_ops memfab_ops = {
    .name = "memory",
    .send = mf_send,
    .send_link = mf_send_link,
    .poll = mf_poll,
    .poll_copy = mf_poll_copy,
    .next_due = mf_next_due,
    .link_up = mf_link_up,
    .counters = mf_counters,
    .close = mf_close,
};

struct fabric *memfab_create(const struct memfab_config *cfg) {
  if (!cfg || cfg->nodes == 0 || cfg->nodes > 1024) return NULL;
  struct memfab *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  unsigned n = cfg->nodes;
  m->f.ops = &memfab_ops;
  m->f.nodes = n;
  m->latency = cfg->latency_ns;
  m->queue_depth = cfg->queue_depth ? cfg->queue_depth : 4096;
  m->up = calloc(n, sizeof *m->up);
  m->links = aligned_alloc(_Alignof(struct link), (size_t)n * n * sizeof *m->links);
  m->sentinels = calloc((size_t)n * n, sizeof(struct pkt));   /* a multiple of its alignment */
  m->cnt = calloc(n, sizeof *m->cnt);
  if (!m->up || !m->links || !m->sentinels || !m->cnt) {
    free(m->up);
    free(m->links);
    free(m->sentinels);
    free(m->cnt);
    free(m);
    return NULL;
  }
  for (unsigned i = 0; i < n; i++) m->up[i] = true;
  for (size_t i = 0; i < (size_t)n * n; i++) {
    struct pkt *sentinel = (struct pkt *)(m->sentinels + i * sizeof(struct pkt));
    atomic_init(&sentinel->next, NULL);
    sentinel->pooled = true;
    struct link *l = &m->links[i];
    l->head = l->tail = sentinel;
    atomic_init(&l->pushed, 0);
    atomic_init(&l->popped, 0);
    atomic_init(&l->spare_in, 0);
    atomic_init(&l->spare_out, 0);
    l->last_arrival = 0;
  }
  return &m->f;
}

void memfab_set_deliver(struct fabric *f, memfab_deliver_fn fn, void *ctx) {
  M(f)->deliver = fn;
  M(f)->deliver_ctx = ctx;
}

void memfab_set_arrival(struct fabric *f, memfab_arrival_fn fn, void *ctx) {
  M(f)->arrival = fn;
  M(f)->arrival_ctx = ctx;
}

void memfab_set_fault(struct fabric *f, memfab_fault_fn fn, void *ctx) {
  M(f)->fault = fn;
  M(f)->fault_ctx = ctx;
}

int memfab_set_link(struct fabric *f, uint16_t node, bool up) {
  struct memfab *m = M(f);
  if (node >= f->nodes) return -EINVAL;
  if (m->up[node] && !up) drop_queue(m, node, FAB_DROP_LINK_DOWN);
  m->up[node] = up;
  return 0;
}

int memfab_inject(struct fabric *f, uint16_t src, uint16_t dst, const uint8_t *bytes, size_t len,
                  uint64_t now) {
  if (src >= f->nodes) return -EINVAL;
  return enqueue(M(f), src, dst, bytes, len, now, false);
}
