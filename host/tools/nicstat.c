/* nicstat: prints a NIC's counters from its window, without disturbing it: the hardware's
 * (doorbells, host signals, host DMA descriptors/bytes/errors/busy time, link frames, bytes,
 * drops, busy time, receive truncations) and the firmware's struct hostif_counters (messages
 * and bytes each way, drops by reason, protection and format errors, Reliable Delivery's
 * acknowledgements and retransmissions, events dispatched by
 * type, DMA busy time, the PANIC VM's packets, activations and aborts by reason), and for a NIC
 * whose firmware is the LANai image on nicd's simulator its processor: pc, fault, and
 * instructions and cycles by event class.
 * With -f, the fabric of the nicd that $VERINIC_SOCKET (or the run directory) names instead:
 * the transport's counters (for a cluster over UDP: datagrams, drops by verdict, injected
 * faults) and the traffic with each node of the cluster (nicd's FABRIC and PEER requests,
 * nicd/CONNECT.md).
 * Usage: nicstat [-i MS [-c N]] [-f | nic0 ...] (default nic0). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/un.h>

#include "libnic.h"
#include "naming.h"
#include "spine_if.h"

static const char *const hw_names[HW_CTR_N] = {
  "doorbells", "host_signals", "timer_fires",
  "hdma_descs", "hdma_bytes", "hdma_errors", "hdma_busy_ns",
  "send_frames", "send_bytes", "send_drops", "send_busy_ns",
  "recv_frames", "recv_bytes", "recv_msgs", "recv_truncated",
};


static void show_cpu(const struct hw_cpu *c, bool faulted) {
  printf("  processor: LANai (instruction-set simulator), pc 0x%08x, %" PRIu64 " instructions, %"
         PRIu64 " cycles\n", c->pc, c->insns, c->cycles);
  if (faulted)
    printf("    FAULTED: %s at pc 0x%08x word 0x%08x (address 0x%08x)\n",
           hw_cpu_fault_name(c->fault), c->pc, c->fault_word, c->fault_addr);
  printf("    %-14s %14s %14s\n", "event class", "instructions", "cycles");
  for (unsigned k = 0; k < HW_CPU_NCLASS; k++)
    if (c->class_insns[k])
      printf("    %-14s %14" PRIu64 " %14" PRIu64 "\n", hw_cpu_class_name(k), c->class_insns[k],
             c->class_cycles[k]);
}

/* SPINE's IP router on this NIC (iface/spine_if.h), if the firmware has one. */
static void show_router(const struct hwin *w) {
  const volatile struct spine_ctl *s = (const volatile void *)(w->sram + SPINE_BASE);
  if (w->sram_size < HOSTIF_BUF_BASE || s->magic != SPINE_MAGIC) return;
  struct spine_counters k;
  memcpy(&k, (const void *)&s->ctr, sizeof k);
  printf("  IP router: %s, table generation %u\n",
         s->bank == SPINE_BANK_NONE ? "no table (IP packets go to this host)" : "routing",
         (unsigned)s->gen);
  printf("    packets %" PRIu64 ": forwarded %" PRIu64 ", sent on for another port %" PRIu64
         ", to this host %" PRIu64 "; peer DMA out %" PRIu64 ", in %" PRIu64 "\n",
         k.rx_ip, k.forwarded, k.transit, k.to_host, k.peer_out, k.peer_in);
  printf("    dropped: no route %" PRIu64 ", TTL expired %" PRIu64 ", bad header %" PRIu64
         ", bad checksum %" PRIu64 ", damaged %" PRIu64 ", busy %" PRIu64 "\n",
         k.no_route, k.ttl_expired, k.bad_header, k.bad_csum, k.damaged, k.busy);
  printf("    table updates %" PRIu64 " (%" PRIu64 " waited for packets routed by the old one)\n",
         k.updates, k.drain_waits);
}

/* Firmware faults by name (hostif.h's HOSTIF_FAULTS), and the latest one. */
static void print_faults(const struct hostif_counters *k) {
  static const char *const name[] = {
#define FAULT_NAME(id, what) #id,
      HOSTIF_FAULTS(FAULT_NAME)
#undef FAULT_NAME
  };
  static const char *const what[] = {
#define FAULT_WHAT(id, w) w,
      HOSTIF_FAULTS(FAULT_WHAT)
#undef FAULT_WHAT
  };
  for (unsigned i = 1; i < HOSTIF_FAULT_N; i++)
    if (k->faults[i]) printf("      %-20s %" PRIu64 "  %s\n", name[i], k->faults[i], what[i]);
  if (k->last_fault > 0 && k->last_fault < HOSTIF_FAULT_N) {
    printf("      latest: %s", name[k->last_fault]);
    if (k->last_fault >= HOSTIF_FAULT_DP_ASSERT && k->last_fault_where[0])
      printf(" at %.*s", (int)sizeof k->last_fault_where, k->last_fault_where);
    printf("\n");
  }
}

static void show(const char *dev) {
  char wname[64];
  struct hwin w;
  if (lnic_window_name(dev, wname, sizeof wname) != 0) {
    fprintf(stderr, "nicstat: %s: not a NIC name (nic<N>)\n", dev);
    return;
  }
  int rc = hwin_open(&w, wname);
  if (rc) {
    fprintf(stderr, "nicstat: %s: %s\n", dev, rc == -ENOENT ? "no such NIC (is nicd running?)" : strerror(-rc));
    return;
  }
  struct hw_regs *r = w.regs;
  bool faulted = atomic_load(&r->state) == HW_NIC_FAULTED;
  printf("%s: node %u, %s, clock %.6f s, SRAM %u KiB\n", dev, r->node,
         hwin_nic_alive(&w) ? "running" : faulted ? "FAULTED" : "STOPPED",
         (double)atomic_load(&r->clock_ns) / 1e9, w.sram_size >> 10);
  if (r->cpu.kind == HW_CPU_LANAI) show_cpu(&r->cpu, faulted);
  printf("  hardware:\n");
  for (int i = 0; i < HW_CTR_N; i++)
    printf("    %-18s %" PRIu64 "\n", hw_names[i], (uint64_t)atomic_load(&r->ctr[i]));
  unsigned regions = 0;
  for (int i = 0; i < HW_REGIONS; i++)
    regions += atomic_load(&w.regions[i].state) != HW_REGION_FREE;
  printf("    memory regions in use: %u of %u\n", regions, HW_REGIONS);
  const volatile struct hostif_ctrl *c = (const volatile void *)(w.sram + HOSTIF_BASE);
  if (w.sram_size < HOSTIF_BUF_BASE || c->magic != HOSTIF_MAGIC) {
    printf("  firmware: no host interface (firmware not running)\n");
  } else {
    struct hostif_counters k;
    memcpy(&k, (const void *)(w.sram + HOSTIF_COUNTERS_ADDR), sizeof k);
    printf("  firmware:\n");
    printf("    %-18s %" PRIu64 "\n    %-18s %" PRIu64 "\n    %-18s %" PRIu64 "\n    %-18s %" PRIu64 "\n",
           "tx_msgs", k.tx_msgs, "tx_bytes", k.tx_bytes, "rx_msgs", k.rx_msgs, "rx_bytes", k.rx_bytes);
    printf("    drops: no_vi %" PRIu64 ", no_desc %" PRIu64 ", malformed %" PRIu64
           ", checksum %" PRIu64 "; truncated %" PRIu64 "\n",
           k.rx_drop_no_vi, k.rx_drop_no_desc, k.rx_drop_malformed, k.rx_drop_checksum,
           k.rx_truncated);
    printf("    errors: protection %" PRIu64 ", format %" PRIu64 "\n", k.protection_errors,
           k.format_errors);
    printf("    busy: hdma %" PRIu64 " ns, send %" PRIu64 " ns\n", k.hdma_busy_ns, k.send_busy_ns);
    printf("    reliable: acks sent %" PRIu64 ", received %" PRIu64 "; nacks sent %" PRIu64
           ", received %" PRIu64 "; connections broken %" PRIu64 "\n",
           k.tx_acks, k.rx_acks, k.tx_nacks, k.rx_nacks, k.conn_broken);
    printf("    retransmission: resent %" PRIu64 ", timeouts %" PRIu64 "; dropped duplicate %"
           PRIu64 ", ahead %" PRIu64 "; transport breaks %" PRIu64 "\n",
           k.retransmits, k.rto_expired, k.rx_drop_dup, k.rx_drop_ooo, k.transport_breaks);
    printf("    faults %" PRIu64 ", unknown doorbells %" PRIu64 "\n", k.fw_faults, k.bad_doorbells);
    print_faults(&k);
    static const char *const isr_names[14] = {"host_sig", "send",  "recv",   "head",   "buff",
                                              "wake0",    "wake1", "wake2",  "wake3",  "timer0",
                                              "timer1",   "timer2", "link_down", "memory"};
    printf("    hardware events handled:");
    int seen = 0;
    for (int i = 0; i < 14; i++)
      if (k.isr[i]) printf("%s %s=%" PRIu64, seen++ ? "," : "", isr_names[i], k.isr[i]);
    printf("%s\n", seen ? "" : " none");
    printf("    events dispatched:");
    int any = 0;
    for (int i = 0; i < 32; i++)
      if (k.events[i]) printf("%s #%d=%" PRIu64, any++ ? "," : "", i, k.events[i]);
    printf("%s\n", any ? "" : " none");
    if (k.cpu_passes[0] || k.cpu_passes[1])   /* the firmware on two processors */
      for (int p = 0; p < 2; p++)
        printf("    processor %d: hardware events %" PRIu64 ", transitions %" PRIu64
               ", passes %" PRIu64 "\n", p, k.cpu_isr[p], k.cpu_steps[p], k.cpu_passes[p]);
    unsigned vis = 0;
    for (unsigned i = 1; i < HOSTIF_NVI; i++) {
      const volatile struct hostif_vi *v = (const volatile void *)(w.sram + HOSTIF_VI_ADDR(i));
      if (v->state != HOSTIF_VI_FREE) vis++;
    }
    printf("    VIs in use: %u of %u\n", vis, HOSTIF_NVI - 1);
    const struct hostif_panic_counters *q = &k.panic;   /* the PANIC VM */
    printf("  PANIC VM:\n");
    printf("    packets: rx %" PRIu64 ", tx %" PRIu64 "; dropped: no program %" PRIu64
           ", no trigger %" PRIu64 ", queue full %" PRIu64 ", bad %" PRIu64 "\n",
           q->rx_pkts, q->tx_pkts, q->rx_drop_no_prog, q->rx_drop_no_trigger, q->rx_drop_full,
           q->rx_drop_bad);
    printf("    activations %" PRIu64 " (%" PRIu64 " holding the host DMA engine), instructions %"
           PRIu64 ", DMA bytes %" PRIu64 "\n", q->activations, q->dma_activations,
           q->instructions, q->dma_bytes);
    printf("    aborted: budget %" PRIu64 ", bounds %" PRIu64 ", div %" PRIu64 ", service %" PRIu64
           ", internal %" PRIu64 "; programs stopped %" PRIu64 "\n", q->abort_budget,
           q->abort_bounds, q->abort_div, q->abort_service, q->abort_internal, q->killed);
    printf("    send failures %" PRIu64 ", display drops %" PRIu64 "\n", q->send_fail,
           q->display_drops);
    printf("    commands %" PRIu64 " (%" PRIu64 " forwarded, %" PRIu64 " timed out), served for peers %"
           PRIu64 "\n", q->ctl_cmds, q->ctl_remote, q->ctl_timeouts, q->ctl_served);
    show_router(&w);
  }
  hwin_close(&w);
}

/* One request line to nicd's connection manager; the reply without its newline, or -1. */
static int nicd_ask(const char *req, char *out, size_t cap) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  if (naming_socket_path(a.sun_path, sizeof a.sun_path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
    fprintf(stderr, "nicstat: nicd at %s: %s\n", a.sun_path, strerror(errno));
    close(fd);
    return -1;
  }
  size_t n = 0;
  char *nl = NULL;
  while (n < cap - 1 && !nl) {
    ssize_t r = read(fd, out + n, cap - 1 - n);
    if (r <= 0) break;
    n += (size_t)r;
    out[n] = 0;
    nl = strchr(out, '\n');
  }
  close(fd);
  if (!nl) return -1;
  *nl = 0;
  return 0;
}

/* The number after " key=" in a reply, or 0. */
static unsigned long long field(const char *reply, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, " %s=", key);
  const char *p = strstr(reply, pat);
  return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

static int show_fabric(void) {
  char r[1024];
  if (nicd_ask("FABRIC\n", r, sizeof r) != 0) return 1;
  if (strncmp(r, "OK udp", 6) != 0) {
    printf("fabric: %s\n", strncmp(r, "OK ", 3) == 0 ? r + 3 : r);
    return strncmp(r, "OK ", 3) == 0 ? 0 : 1;
  }
  unsigned nodes = (unsigned)field(r, "nodes");
  printf("fabric: UDP, port %llu, %u nodes, %llu control connections to other nicds\n",
         field(r, "port"), nodes, field(r, "control"));
  printf("  datagrams sent %llu in %llu batches (%llu refused by the kernel), received %llu in "
         "%llu batches\n", field(r, "tx_datagrams"), field(r, "tx_batches"), field(r, "tx_errors"),
         field(r, "rx_datagrams"), field(r, "rx_batches"));
  printf("  received and dropped:");
  for (const char *p = strstr(r, " bad_"); p; p = strstr(p + 1, " bad_")) {
    const char *eq = strchr(p, '=');
    if (eq) printf(" %.*s %llu", (int)(eq - p - 5), p + 5, strtoull(eq + 1, NULL, 10));
  }
  printf("\n  faults injected: loss %llu, dup %llu, reorder %llu, corrupt %llu\n",
         field(r, "inj_loss"), field(r, "inj_dup"), field(r, "inj_reorder"),
         field(r, "inj_corrupt"));
  printf("  %6s %-6s %12s %14s %12s %14s %8s\n", "node", "at", "tx_frames", "tx_bytes",
         "rx_frames", "rx_bytes", "rx_bad");
  for (unsigned n = 0; n < nodes; n++) {
    char q[32], at[16] = "";
    snprintf(q, sizeof q, "PEER %u\n", n);
    if (nicd_ask(q, r, sizeof r) != 0 || strncmp(r, "OK", 2) != 0) continue;
    const char *a = strstr(r, " at=");
    if (a) sscanf(a + 4, "%15s", at);
    if (!strcmp(at, "none") && !field(r, "rx_bad")) continue;
    printf("  %6u %-6s %12llu %14llu %12llu %14llu %8llu\n", n, at, field(r, "tx_frames"),
           field(r, "tx_bytes"), field(r, "rx_frames"), field(r, "rx_bytes"), field(r, "rx_bad"));
  }
  return 0;
}

int main(int argc, char **argv) {
  long interval = 0, count = 1;
  int opt;
  bool fabric = false;
  while ((opt = getopt(argc, argv, "i:c:fh")) != -1) {
    if (opt == 'f') fabric = true;
    else if (opt == 'i') interval = strtol(optarg, NULL, 10), count = count == 1 ? -1 : count;
    else if (opt == 'c') count = strtol(optarg, NULL, 10);
    else {
      fprintf(stderr, "usage: nicstat [-i MS [-c N]] [-f | nic0 ...]\n"
                      "  -f  the fabric of nicd ($VERINIC_SOCKET): transport counters, traffic "
                      "per node\n");
      return opt == 'h' ? 0 : 2;
    }
  }
  for (long n = 0; count < 0 || n < count; n++) {
    if (fabric && show_fabric() != 0) return 1;
    if (fabric) goto next;
    if (optind == argc) show("nic0");
    for (int i = optind; i < argc; i++) show(argv[i]);
  next:
    if (interval <= 0 || (count >= 0 && n + 1 == count)) break;
    struct timespec ts = {interval / 1000, (interval % 1000) * 1000000};
    nanosleep(&ts, NULL);
  }
  return 0;
}
