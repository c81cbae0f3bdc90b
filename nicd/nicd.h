/* nicd.h: the NIC daemon's shared state: the emulated NICs it hosts, their firmware, the
 * fabric joining them, and the parts that run them (loop.c: the firmware loop; lanai.c and
 * iss_board.c: the LANai image on the instruction-set simulator; cm.c: the connection
 * manager, cmparse.c its request parser; vitab.c: VI table writes; hosts.c: the name service
 * file; takeover.c: starting after a nicd that died; cluster.c: --udp's cluster file and the
 * nodes this nicd hosts; udpwake.c: the loop's wake-up by the UDP socket; peer.c: the
 * control connections to the other nicds of a cluster, CONNECT.md, peerparse.c their lines;
 * access.c: who may use the NICs, --mode and --group). */
#ifndef NICD_H
#define NICD_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../hw/memfab.h"
#include "../hw/nic.h"
#include "board_emu.h"
#include "fw.h"

#define NICD_MAX_NICS 16

struct iss;
struct iss_bus;
struct iss_image;

/* iss_board.c: the LANai card's register page on the emulated NIC (fw_board_regs.h). */
struct iss_board {
  struct nic *nic;
  struct iss *cpu;
  unsigned id;                  /* the card's processor this is (0, or 1 of two: --cpus 2) */
  unsigned cls;                 /* enum fwb_class written last */
  bool saw_event;               /* an EVENTS read found events (cleared by lanai_run) */
  bool events_read;             /* the firmware read EVENTS (cleared by lanai_run) */
  bool idle_yield;              /* it found none while idle and yielded (cleared likewise) */
  int32_t result;               /* of the last command */
  uint32_t send_dst, send_addr, send_len, recv_addr;
  uint32_t rg_hi, rg_lo, rg_len, rg_ptag, verdict;
  uint32_t peer_node, peer_from, peer_to;
  struct nic_recv_status recv_latch;   /* latched by a RECV_STATE read */
  uint16_t sum_latch[NIC_HDMA_CHANNELS]; /* latched by a channel's STATUS read */
  /* Timing mode (vtime.c): the processor's virtual time is t0 + (cycles - c0) / hz; each
   * register access first moves the NIC's hardware to it, and a host signal wakes the
   * host processes waiting for it at that time plus wake_ns; woke_ns is the earliest such
   * time in the current slice (NIC_NEVER if none), where the slice must end. */
  bool timed;
  uint64_t t0, c0, hz, wake_ns, woke_ns;
};
/* Timing mode: the processor's virtual time now. */
uint64_t iss_board_now(const struct iss_board *b);
/* Sets up b for nic and fills in the bus to give iss_new; b->cpu is set after it. */
void iss_board_init(struct iss_board *b, struct nic *nic, struct iss_bus *bus);

/* lanai.c: a NIC run by the LANai image on the instruction-set simulator. */
struct lanai_nic {
  struct nic *nic;
  struct iss *cpu;
  struct iss_board bd;
  uint64_t watchdog_ns, watch_from;
  bool watching, faulted;
  void *trace;                  /* FILE * of --lanai-trace */
  bool vt_busy;                 /* timing mode: handling events (else idle until one) */
  uint64_t vt_ns;               /* timing mode: the processor's virtual time */
};
/* Reset, image into SRAM at 0, release. 0, or -1 (out of memory, image larger than SRAM). */
int lanai_boot(struct lanai_nic *l, struct nic *nic, const struct iss_image *img,
               uint64_t watchdog_ns);
/* --cpus 2: the card's second processor over the same SRAM and image (booted by lanai_boot
 * into cpu0's NIC), released at the image's `_start1` (its map). 0, or -1 (no map, no such
 * symbol, out of memory). Only processor 0 publishes the window's processor block; a fault of
 * either faults the NIC. */
int lanai_boot_cpu1(struct lanai_nic *l, struct nic *nic, const char *image, uint64_t watchdog_ns);
void lanai_free(struct lanai_nic *l);
/* Writes a 32-bit word into the booted image's variable `symbol` (found in the image's .map),
 * before the processor runs: --coarse's fw_lanai_fine_mode. 0, or -1 (no map, no such word). */
int lanai_patch(struct lanai_nic *l, const char *image, const char *symbol, uint32_t value);
/* Every instruction executed from now on, disassembled into the file path. 0 or -1. */
int lanai_trace(struct lanai_nic *l, const char *path);
/* One slice (a pass of the loop); true if the firmware handled something or is still busy. */
bool lanai_run(struct lanai_nic *l, unsigned node);
/* Timing mode: runs the processor until it polls with nothing to do (true) or its time is
 * within a few cycles of limit_ns (false). Its time is l->bd.t0 + (cycles - l->bd.c0) at hz:
 * the origin is set when the processor starts handling events, so that how its run is cut
 * into slices changes nothing, not even the rounding. */
bool lanai_run_timed(struct lanai_nic *l, unsigned node, uint64_t limit_ns, uint64_t hz);

/* cluster.c: a nicd in a cluster over UDP (--udp): where every node is, which it hosts. */
struct cluster_peer {           /* another nicd: the nodes at one address */
  char host[256];
  uint16_t port;
};
struct cluster {
  unsigned nodes;               /* node ids 0..nodes-1 exist (the largest in the file + 1) */
  char host[256];               /* this nicd's address */
  uint16_t port;
  int *peer_of;                 /* [nodes]: index into peers, -1 for a local or unknown node */
  struct cluster_peer *peers;
  unsigned npeers;
};

struct nicd {
  unsigned n;                   /* NICs hosted here: nic[i] is node node[i] */
  uint16_t node[NICD_MAX_NICS];
  unsigned nodes;               /* node ids of the cluster are 0..nodes-1 (n without --udp) */
  bool udp;                     /* --udp: the fabric is hw/udpfab, clu says where nodes are */
  struct cluster clu;
  struct hw_regs *wake;         /* --udp: udpwake.c's page in the loop's wait set */
  struct fabric *fab;
  struct nic *nic[NICD_MAX_NICS];
  struct fw_board bd[NICD_MAX_NICS];
  struct fw fw[NICD_MAX_NICS];
  bool lanai;                   /* --lanai: the NICs run the LANai image (cpu[]) */
  bool timing;                  /* --timing: virtual time (vtime.c) */
  uint64_t nic_hz, wake_ns;     /* --timing: the profile's processor clock, host wake-up */
  void *vt_trace;               /* --trace: FILE * of the engines' busy intervals */
  struct lanai_nic cpu[NICD_MAX_NICS];
  unsigned cpus;                /* --cpus: firmware processors per NIC (1 or 2) */
  unsigned threads;             /* --threads: threads running the NICs (loop.c) */
  struct fw_board bd1[NICD_MAX_NICS];  /* --cpus 2, native: processor 1's view of each NIC */
  struct lanai_nic cpu1[NICD_MAX_NICS]; /* --cpus 2 --lanai: each NIC's second processor */
  uint64_t t0;
  int verbose;
  unsigned cm_idle_ms;     /* connection manager: a silent client is closed after this */
  char sock_path[256];
  char hosts_path[256];
};

extern volatile sig_atomic_t nicd_stop;

/* The index of node among the NICs hosted here, or -1. */
int nicd_local(const struct nicd *d, unsigned node);

struct naming_hosts;
struct udpfab_addr;
/* cluster.c. Fills d->clu and d->node/d->n from the parsed cluster file: the nodes in
 * want[0..nwant) (--node), else those whose address is one of this machine's. The fabric's
 * address list goes to *addrs (free it). 0, or -1 with err naming the fault. */
int cluster_setup(struct nicd *d, const struct naming_hosts *h, const uint16_t *want,
                  unsigned nwant, struct udpfab_addr **addrs, unsigned *naddrs, char *err,
                  size_t cap);
void cluster_free(struct cluster *c);

/* udpwake.c: a thread that watches the UDP socket while the loop sleeps and wakes it (a
 * register page of its own in the loop's wait set). */
struct hw_regs;
int udpwake_start(int fd, struct hw_regs **regs);
/* Takes a wake-up: true if the socket became readable since the last call. */
bool udpwake_take(struct hw_regs *regs);
void udpwake_stop(void);

/* loop.c: runs the firmware of every NIC until nicd_stop, on d->threads threads (each a
 * share of the NICs); sleeps on the NICs' doorbell futexes when nothing is due soon. */
void nicd_loop(struct nicd *d);

/* cpus2.c: --cpus 2 with the native firmware: NIC i gets its second processor (the routing of
 * firmware/nic/fw_cpus.h) after fw_init; a pass runs processor 0's then processor 1's. */
void nicd_cpus2_start(struct nicd *d, unsigned i);
bool nicd_cpus2_pass(struct nicd *d, unsigned i);

/* vtime.c: the firmware loop of timing mode (--timing): a discrete-event simulation in
 * virtual time of the NICs, their processors and the host processes (window.h, struct
 * hw_vt), until nicd_stop. */
void nicd_timing_loop(struct nicd *d);
/* A host signal raised at virtual time t: the host processes waiting for one of the bits run
 * again at t + wake_ns. true if one did. */
bool vt_signal(struct hw_regs *r, uint32_t bits, uint64_t t, uint64_t wake_ns);
/* --trace: nic_config.trace of every NIC (ctx: the struct nicd). */
void vt_trace_engine(void *ctx, uint16_t node, enum nic_engine e, uint64_t start, uint64_t end);

/* cm.c: the connection manager (CONNECT.md). Starts its thread; 0 or -errno. */
int cm_start(struct nicd *d);
void cm_stop(void);

/* cm.c, for peer.c: requests and answers arriving from other nicds (CONNECT.md, "Between
 * nicds"). `conn` names the control connection (peer.c's slot), `gen` its generation. */
void cm_remote_request(int conn, uint32_t gen, unsigned rid, unsigned node, unsigned vi,
                      unsigned rnode, const char *rdisc, const char *mydisc, unsigned rel);
void cm_remote_withdraw(int conn, uint32_t gen, unsigned rid);
/* The acceptor's side wrote its VI: pair ours (0) or refuse (-1: requester gone or VI busy). */
int cm_remote_accepted(int conn, uint32_t gen, unsigned id, unsigned rnode, unsigned rvi,
                       uint32_t stamp);
/* The acceptor's nicd answered a request of ours without pairing: `line` goes to the
 * requester (ERR REJECTED, ERR NONIC...). */
void cm_remote_answer(int conn, uint32_t gen, unsigned id, const char *line);
/* The requester's side finished (ok) or refused the pairing our ACCEPT offered. */
void cm_remote_done(int conn, uint32_t gen, unsigned rid, bool ok);
/* A control connection is gone: everything that went through it fails. */
void cm_remote_lost(int conn, uint32_t gen, const char *why);

/* peer.c: the control connections to the other nicds (TCP to their UDP address and port).
 * Runs in the connection manager's thread. */
int peer_start(struct nicd *d, char *err, size_t cap);
void peer_stop(void);
/* Adds its descriptors to p (at most max) and lowers *timeout_ms to its next deadline. */
int peer_pollfds(struct pollfd *p, int max, int *timeout_ms);
void peer_serve(const struct pollfd *p, int n);
/* Forwards a CONNECT for remote node rnode: 0 with the connection in *conn and *gen, or -1
 * with why (the peer nicd is unreachable). */
int peer_send_connect(unsigned rnode, unsigned id, unsigned node, unsigned vi, const char *rdisc,
                      const char *mydisc, unsigned rel, int *conn, uint32_t *gen, char *why,
                      size_t cap);
/* One line on a live connection (dropped silently if the connection is gone). */
void peer_send(int conn, uint32_t gen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The connection a local VI's remote pairing went through (for DISCONNECT and owner death),
 * and the sweep when a connection dies: every local VI paired through it goes ERROR. */
void peer_bind_vi(unsigned lnode, unsigned vi, int conn, uint32_t gen);
void peer_vi_broken(unsigned lnode, unsigned vi, unsigned rnode, unsigned rvi, uint32_t got);
/* Per-connection state for nicstat (FABRIC): live connections to peers. */
unsigned peer_live(void);
/* Control connections refused: from an address that is no peer's host. */
uint64_t peer_refused(void);

/* peerparse.c: one line of the control protocol between nicds, split in place. */
enum peer_verb { PEER_BAD, PEER_HB, PEER_HELLO, PEER_CONN, PEER_WDRAW, PEER_ACC, PEER_REJ,
                 PEER_FAIL, PEER_DONE, PEER_DISC, PEER_NVERBS };
struct peer_msg {
  enum peer_verb verb;
  unsigned n[5];          /* the numbers, in order */
  const char *s[2];       /* the strings, in order, into the line */
};
enum peer_verb peer_parse(char *line, struct peer_msg *m);

/* lineparse.c: a line of either text protocol, split in place and matched against shapes (a
 * verb, then 'n' for a number or 's' for a string per field): the shape's v with the numbers
 * and strings stored in order, or bad. */
struct line_shape { const char *verb; int v; const char *args; };
int line_parse(char *line, const struct line_shape *shapes, size_t nshapes, int bad,
               unsigned *nums, const char **strs);

/* cmparse.c: one request line of the connection manager (CONNECT.md), split in place. */
enum cm_verb { CM_BAD, CM_PING, CM_RESOLVE, CM_STATS, CM_WAIT, CM_CONNECT, CM_ACCEPT, CM_REJECT,
               CM_PASS, CM_DISCONNECT, CM_FABRIC, CM_PEER, CM_NVERBS };
struct cm_req {
  enum cm_verb verb;
  unsigned n[3];          /* the numbers, in order */
  const char *s[2];       /* the strings (name, discriminators), in order, into the line */
};
enum cm_verb cm_parse(char *line, struct cm_req *r);

/* vitab.c: VI table entries as nicd writes them. */
/* A process that is gone: no such process, or one that exited and is not reaped yet (a
 * zombie): it can never use a VI or a time slot again. */
bool vitab_owner_gone(pid_t pid);
struct hostif_vi *vitab_vi(struct nicd *d, unsigned node, unsigned vi);
/* Where connection stamps start: at random, so that a nicd taking over NICs (or restarted
 * beside peers) does not repeat the stamps of connections still in their VI tables; at 1 when
 * deterministic (timing mode, whose figures must repeat exactly: the stamp goes into every
 * header and its checksum, and random stamps made them differ between runs). */
void vitab_stamp_seed(bool deterministic);
/* A connection stamp (hostif_vi.conn) not given out lately: never 0. */
uint32_t vitab_new_stamp(void);
/* Pairs local (node, vi) with remote (rnode, rvi) of another nicd under the connection's
 * stamp: the VI must be IDLE with reliability rel. 0 or -1. */
int vitab_pair_half(struct nicd *d, unsigned node, unsigned vi, unsigned rnode, unsigned rvi,
                    unsigned rel, uint32_t stamp);
/* Undoes vitab_pair_half: back to IDLE if still paired with (rnode, rvi). */
void vitab_unpair(struct nicd *d, unsigned node, unsigned vi, unsigned rnode, unsigned rvi);
/* Pairs (na, va) and (nb, vb): both must be IDLE with the same reliability. 0 or -1. */
int vitab_pair(struct nicd *d, unsigned na, unsigned va, unsigned nb, unsigned vb);
/* The peer (fnode, fvi) of local (node, vi) is gone: if still CONNECTED to it, the VI goes
 * ERROR, its host signalled, after taking got (the peer's last delivered message,
 * HOSTIF_REL_SEQ_VALID | seq, or 0) as the last acknowledgement of its sends. */
void vitab_peer_gone(struct nicd *d, unsigned node, unsigned vi, unsigned fnode, unsigned fvi,
                     uint32_t got);
/* The local VI goes IDLE, its peer (if it points back) ERROR. */
void vitab_disconnect(struct nicd *d, unsigned node, unsigned vi);
/* VIs whose owner process is gone: FREE, and their peers ERROR. */
void vitab_reap(struct nicd *d);

/* segreap.c: unlink host memory segments of processes that died; remove the NICs' memory
 * regions of such segments that no process maps any more (returns how many; `now` in ns, it
 * looks at /proc at most once a second). */
void segs_reap(void);
unsigned regions_reap(struct nicd *d, uint64_t now);

/* takeover.c: a window or run directory left by a nicd that died is taken over (0); one a
 * running nicd serves is refused (-EBUSY, why names its pid). */
int takeover_window(const char *name, char *why, size_t cap);
int takeover_rundir(const char *pidfile, char *why, size_t cap);
/* nic_create's error codes in words. */
const char *nicd_nic_error(int nic_err);

/* access.c: the mode and group of the windows, the socket, the run directory and the hosts
 * file nicd writes (--mode, --group). Without either nothing is changed (0 from each call);
 * the calls return 0 or -errno. */
struct nicd_access {
  mode_t mode;   /* windows and socket; 0600 unless given */
  gid_t gid;     /* (gid_t)-1: nicd's own */
  bool given;
};
/* mode: octal text or NULL; group: a name or number, or NULL. 0, or -1 and why. */
int access_parse(struct nicd_access *a, const char *mode, const char *group, char *why,
                 size_t cap);
int access_rundir(const struct nicd_access *a, const char *dir);
int access_file(const struct nicd_access *a, const char *path);
int access_socket(const struct nicd_access *a, const char *path);
int access_window(const struct nicd_access *a, const char *name);

/* hosts.c */
int hosts_write_default(const char *path, unsigned nnics);
int hosts_resolve(const char *path, const char *name);

#endif
