/* A cluster of nicds over UDP on loopback (nicd --udp, no namespaces needed): nicd A hosts node
 * 0, nicd B nodes 1 and 2, each with its own run directory; node 3 has an address where no nicd
 * runs, node 4 one that never answers. Host programs on different nicds connect through the
 * nicd-to-nicd control protocol and move data over UDP datagrams: VIPL send/receive and RDMA
 * Write with every byte checked, over IPv4 and IPv6; per-peer counters; bad datagrams sent at a
 * nicd's port are dropped and counted and it keeps working; a connection to a node whose nicd
 * is not there fails quickly; a server that disconnects right after the client's last message
 * leaves that send DONE, not flushed; nicd A SIGKILLed under programs waiting on B gives them
 * errors within 2 s, and a restarted nicd A serves new connections; a cluster file with an
 * error is refused as file:line:col.
 * Fault-free (lossy.sh is the faulty network): CLUSTER_NICD_ARGS adds options to every nicd
 * (e.g. "--loss 0.01 --seed 7");
 * VERINIC_FIRMWARE=lanai runs the LANai image on them (tests/common/nicd_run.h). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../hw/link.h"
#include "../../hw/udpwire.h"
#include "../common/child.h"
#include "../vipl/vaddr.h"
#include "../vipl/vtest.h"
#include "vipl.h"

VT_GLOBALS;

#define NNICD 2
#define BATCH 16
#define ROUNDS 8
#define MSG 4000
#define SLOT 4096          /* a receive buffer per slot; messages are at most MSG */
#define RDMA_LEN (128 * 1024)

static struct {
  bool v6;
  char dir[64], file[128], prefix[40];
  uint16_t port[NNICD + 2];      /* then node 3's, where nobody listens, and node 4's tarpit */
  int tarpit[3];                 /* a listener that never accepts, its queue full: SYNs die */
  pid_t pid[NNICD];
  char run[NNICD][128], sock[NNICD][160];
} C;

static const char *const nodes_of[NNICD] = {"0", "1,2"};


static const char *loop_host(void) { return C.v6 ? "::1" : "127.0.0.1"; }

/* A port free for both UDP and TCP on the loopback address. */
static uint16_t free_port(void) {
  for (int tries = 0; tries < 50; tries++) {
    struct sockaddr_storage ss = {0};
    socklen_t len;
    if (C.v6) {
      struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_loopback;
      len = sizeof *a;
    } else {
      struct sockaddr_in *a = (struct sockaddr_in *)&ss;
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof *a;
    }
    int u = socket(ss.ss_family, SOCK_DGRAM, 0), t = socket(ss.ss_family, SOCK_STREAM, 0);
    uint16_t port = 0;
    if (u >= 0 && t >= 0 && bind(u, (struct sockaddr *)&ss, len) == 0 &&
        getsockname(u, (struct sockaddr *)&ss, &len) == 0 &&
        bind(t, (struct sockaddr *)&ss, len) == 0)
      port = ntohs(C.v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                        : ((struct sockaddr_in *)&ss)->sin_port);
    if (u >= 0) close(u);
    if (t >= 0) close(t);
    if (port) return port;
  }
  return 0;
}

/* A TCP port where connections are never answered (a host that drops SYNs): a listener with
 * a backlog of 0 that never accepts, its queue filled by connections of our own. */
static uint16_t tarpit(void) {
  uint16_t port = free_port();
  struct sockaddr_storage ss = {0};
  socklen_t len;
  if (C.v6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    *a = (struct sockaddr_in6){.sin6_family = AF_INET6, .sin6_port = htons(port),
                               .sin6_addr = in6addr_loopback};
    len = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    *a = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    len = sizeof *a;
  }
  C.tarpit[0] = socket(ss.ss_family, SOCK_STREAM, 0);
  if (!port || C.tarpit[0] < 0 || bind(C.tarpit[0], (struct sockaddr *)&ss, len) != 0 ||
      listen(C.tarpit[0], 0) != 0)
    return 0;
  for (int i = 1; i < 3; i++) {
    C.tarpit[i] = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (C.tarpit[i] < 0) return 0;
    connect(C.tarpit[i], (struct sockaddr *)&ss, len);   /* EINPROGRESS or done */
  }
  vt_sleep_ms(20);
  return port;
}

/* One request to nicd k's connection manager; 0 and the reply line, or -1. */
static int cm(int k, const char *line, char *out, size_t cap) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", C.sock[k]);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  size_t n = 0;
  int rc = -1;
  if (write(fd, line, strlen(line)) == (ssize_t)strlen(line)) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (n < cap - 1 && poll(&p, 1, 3000) > 0) {
      ssize_t r = read(fd, out + n, cap - 1 - n);
      if (r <= 0) break;
      n += (size_t)r;
      if (memchr(out, '\n', n)) {
        rc = 0;
        break;
      }
    }
  }
  out[n] = 0;
  close(fd);
  return rc;
}

/* The value of key=N in a FABRIC or PEER reply of nicd k, or -1. */
static long long counter(int k, const char *req, const char *key) {
  char out[1024], pat[64];
  if (cm(k, req, out, sizeof out) != 0 || strncmp(out, "OK", 2) != 0) return -1;
  snprintf(pat, sizeof pat, " %s=", key);
  const char *p = strstr(out, pat);
  return p ? atoll(p + strlen(pat)) : -1;
}

static pid_t start_nicd_with(int k, const char *more) {
  pid_t pid = fork();
  if (pid == 0) {
    char log[200];
    snprintf(log, sizeof log, "%s/nicd.log", C.run[k]);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    const char *argv[32] = {"nicd", "--udp", "--cluster", C.file, "--node", nodes_of[k],
                            "--run", C.run[k], "--prefix", C.prefix, "-v"};
    int n = 11;
    const char *fw = getenv("VERINIC_FIRMWARE"), *img = getenv("VERINIC_LANAI_IMAGE");
    if (fw && !strcmp(fw, "lanai")) {   /* as tests/common/nicd_run.c does */
      argv[n++] = "--lanai";
      argv[n++] = img && *img ? img : "build/lanai/firmware.img";
    }
    char extra[256];
    const char *e = more ? more : getenv("CLUSTER_NICD_ARGS");
    if (e) {
      snprintf(extra, sizeof extra, "%s", e);
      for (char *s = NULL, *t = strtok_r(extra, " ", &s); t && n < 30; t = strtok_r(NULL, " ", &s))
        argv[n++] = t;
    }
    argv[n] = NULL;
    const char *bin = getenv("NICD") ? getenv("NICD") : "build/bin/nicd";
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  char out[64];
  for (int i = 0; i < 500; i++) {
    if (cm(k, "PING\n", out, sizeof out) == 0 && !strncmp(out, "OK nicd", 7)) return pid;
    if (waitpid(pid, NULL, WNOHANG) == pid) break;
    vt_sleep_ms(10);
  }
  fprintf(stderr, "nicd %d did not come up (log %s/nicd.log)\n", k, C.run[k]);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

static pid_t start_nicd(int k) { return start_nicd_with(k, NULL); }

static void stop_nicd(int k, bool kill9) {
  if (C.pid[k] <= 0) return;
  kill(C.pid[k], kill9 ? SIGKILL : SIGTERM);
  waitpid(C.pid[k], NULL, 0);
  C.pid[k] = -1;
}

static bool cluster_start(bool v6) {
  memset(&C, 0, sizeof C);
  C.v6 = v6;
  snprintf(C.dir, sizeof C.dir, "/tmp/cluster-test-%d-%d", (int)getpid(), v6);
  snprintf(C.prefix, sizeof C.prefix, "/vc%d%s-nic", (int)getpid(), v6 ? "v6" : "");
  snprintf(C.file, sizeof C.file, "%s/cluster", C.dir);
  if (mkdir(C.dir, 0700) != 0) return false;
  for (int k = 0; k <= NNICD; k++)
    if (!(C.port[k] = free_port())) return false;
  if (!(C.port[NNICD + 1] = tarpit())) return false;
  FILE *f = fopen(C.file, "w");
  if (!f) return false;
  const char *l = v6 ? "[" : "", *r = v6 ? "]" : "", *h = loop_host();
  fprintf(f, "# the test cluster\nnic0 0 %s%s%s:%u\n10.0.0.1 0\nnic1 1 %s%s%s:%u\n10.0.0.2 1\n"
          "nic2 2 %s%s%s:%u\nnic3 3 %s%s%s:%u\nfar 4 %s%s%s:%u\n", l, h, r, C.port[0], l, h, r,
          C.port[1], l, h, r, C.port[1], l, h, r, C.port[2], l, h, r, C.port[3]);
  fclose(f);
  for (int k = 0; k < NNICD; k++) {
    snprintf(C.run[k], sizeof C.run[k], "%s/run%d", C.dir, k);
    snprintf(C.sock[k], sizeof C.sock[k], "%s/nicd.sock", C.run[k]);
    if (mkdir(C.run[k], 0700) != 0) return false;
  }
  setenv("VERINIC_HOSTS", C.file, 1);
  setenv("VERINIC_RUN", C.dir, 1);
  for (int k = 0; k < NNICD; k++)
    if ((C.pid[k] = start_nicd(k)) < 0) return false;
  return true;
}

static void cluster_stop(void) {
  for (int k = 0; k < NNICD; k++) stop_nicd(k, false);
  for (int i = 0; i < 3; i++)
    if (C.tarpit[i] > 0) close(C.tarpit[i]);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", C.dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", C.dir);
}

/* ---- host programs: a process uses the nicd hosting its node ---- */

static const char *dev(unsigned node) {
  static char name[64];
  snprintf(name, sizeof name, "%s%u", C.prefix, node);
  return name;
}

static void use_nicd_of(unsigned node) { setenv("VERINIC_SOCKET", C.sock[node == 0 ? 0 : 1], 1); }

struct ep {
  VIP_NIC_HANDLE nic;
  VIP_PROTECTION_HANDLE ptag;
  VIP_VI_HANDLE vi;
  uint8_t *buf;                 /* BATCH * SLOT, then RDMA_LEN */
  VIP_DESCRIPTOR *d;            /* BATCH */
  VIP_MEM_HANDLE bh, dh;
};

static int ep_open_rel(struct ep *e, unsigned node, unsigned rel) {
  use_nicd_of(node);
  if (VipOpenNic(dev(node), &e->nic) != VIP_SUCCESS || VipCreatePtag(e->nic, &e->ptag) != VIP_SUCCESS)
    return 1;
  VIP_VI_ATTRIBUTES va = {.ReliabilityLevel = rel, .Ptag = e->ptag,
                          .MaxTransferSize = RDMA_LEN, .EnableRdmaWrite = VIP_TRUE};
  if (VipCreateVi(e->nic, &va, NULL, NULL, &e->vi) != VIP_SUCCESS) return 2;
  e->buf = aligned_alloc(4096, BATCH * SLOT + RDMA_LEN);
  e->d = aligned_alloc(4096, 4096 * 4);
  if (!e->buf || !e->d) return 3;
  memset(e->buf, 0, BATCH * SLOT + RDMA_LEN);
  memset(e->d, 0, 4096 * 4);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = e->ptag, .EnableRdmaWrite = VIP_TRUE};
  if (VipRegisterMem(e->nic, e->buf, BATCH * SLOT + RDMA_LEN, &ma, &e->bh) != VIP_SUCCESS ||
      VipRegisterMem(e->nic, e->d, 4096 * 4, &ma, &e->dh) != VIP_SUCCESS)
    return 4;
  return 0;
}

static int ep_open(struct ep *e, unsigned node) {
  return ep_open_rel(e, node, VIP_SERVICE_RELIABLE_DELIVERY);
}

static uint8_t pat(unsigned msg, unsigned j) { return (uint8_t)(msg * 131u + j * 7u + (j >> 8)); }

static VIP_RETURN post_recv(struct ep *e, unsigned i) {
  VIP_DESCRIPTOR *d = &e->d[i];
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->DS[0].Local.Data.Address = e->buf + (size_t)i * SLOT;
  d->DS[0].Local.Handle = e->bh;
  d->DS[0].Local.Length = MSG;
  return VipPostRecv(e->vi, d, e->dh);
}

/* What the server tells the client: where RDMA Writes may go. */
struct target { uint64_t addr; VIP_MEM_HANDLE mh; };

enum { S_SENDRECV, S_HOLD, S_PEER_EXITS, S_UNRELIABLE, S_BYE, S_PEER_MODEL };
#define NUNREL 30

/* Node 0 (nicd A): takes ROUNDS batches of BATCH messages and checks every byte, then lets
 * the client RDMA-write its region and checks that. S_HOLD: after connecting, waits for a
 * message that never comes (its nicd or the peer dies under it) and reports how it ended. */
static int server(int sc, int to, int from) {
  struct ep e;
  int rc = ep_open_rel(&e, 0, sc == S_UNRELIABLE ? VIP_SERVICE_UNRELIABLE : VIP_SERVICE_RELIABLE_DELIVERY);
  if (rc) return 10 + rc;
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 0, 0x700 + (unsigned)sc);
  for (unsigned i = 0; i < BATCH; i++)
    if (post_recv(&e, i) != VIP_SUCCESS) return 20;
  VIP_CONN_HANDLE c;
  VIP_VI_ATTRIBUTES rat;
  if (sc == S_PEER_MODEL) {   /* VipConnectPeerRequest on both sides, then as S_SENDRECV */
    vaddr_set((VIP_NET_ADDRESS *)ra, 1, 0x800 + (unsigned)sc);
    if (VipConnectPeerRequest(e.vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 10000) != VIP_SUCCESS ||
        VipConnectPeerWait(e.vi, &rat) != VIP_SUCCESS)
      return 21;
  } else if (VipConnectWait(e.nic, (VIP_NET_ADDRESS *)la, 10000, (VIP_NET_ADDRESS *)ra, &rat, &c) !=
                 VIP_SUCCESS || VipConnectAccept(c, e.vi) != VIP_SUCCESS) {
    return 22;
  }
  char k;
  if (sc == S_UNRELIABLE) {   /* takes what arrives; the parent checks the fabric's counters */
    if (write(to, "c", 1) != 1 || read(from, &k, 1) != 1) return 23;
    return 0;
  }
  if (sc == S_BYE) {   /* the client's one message, then a disconnect at once */
    VIP_DESCRIPTOR *got = NULL;
    if (VipRecvWait(e.vi, 5000, &got) != VIP_SUCCESS || got->CS.Status & VIP_STATUS_ERROR_MASK)
      return 23;
    VipDisconnect(e.vi);
    return 0;
  }
  if (sc == S_HOLD || sc == S_PEER_EXITS) {
    if (write(to, "c", 1) != 1) return 23;
    VIP_DESCRIPTOR *got = NULL;
    VIP_RETURN r = VipRecvWait(e.vi, 20000, &got);
    /* Ended by the peer's nicd going away: an error completion or an error return. */
    bool err = r != VIP_SUCCESS && r != VIP_TIMEOUT;
    err |= r == VIP_SUCCESS && got && (got->CS.Status & VIP_STATUS_ERROR_MASK);
    k = err ? 'e' : 't';
    if (sc == S_HOLD && write(to, &k, 1) != 1) return 24;   /* S_PEER_EXITS: nobody reads */
    if (!err) fprintf(stderr, "server: receive ended with rc %d, not an error\n", r);
    return err ? 0 : 25;
  }
  for (unsigned round = 0; round < ROUNDS; round++) {
    if (write(to, "r", 1) != 1) return 30;
    for (unsigned i = 0; i < BATCH; i++) {
      VIP_DESCRIPTOR *got = NULL;
      if (VipRecvWait(e.vi, 5000, &got) != VIP_SUCCESS || got != &e.d[i]) return 31;
      unsigned m = round * BATCH + i, len = MSG - m % 100;
      if (got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RECEIVE) || got->CS.Length != len) {
        fprintf(stderr, "server: message %u: status %#x length %u\n", m, got->CS.Status,
                got->CS.Length);
        return 32;
      }
      for (unsigned j = 0; j < len; j++)
        if (e.buf[(size_t)i * SLOT + j] != pat(m, j)) {
          fprintf(stderr, "server: message %u byte %u differs\n", m, j);
          return 33;
        }
      if (post_recv(&e, i) != VIP_SUCCESS) return 34;
    }
  }
  uint8_t *region = e.buf + BATCH * SLOT;
  memset(region, 0xee, RDMA_LEN);
  struct target t = {(uint64_t)(uintptr_t)region, e.bh};
  if (write(to, &t, sizeof t) != sizeof t) return 40;
  if (read(from, &k, 1) != 1) return 41;
  for (unsigned j = 0; j < RDMA_LEN; j++)
    if (region[j] != pat(9999, j)) {
      fprintf(stderr, "server: RDMA byte %u differs\n", j);
      return 42;
    }
  VipDisconnect(e.vi);
  return 0;
}

/* d: a send of the first len bytes of e's buffer. */
static void fill_send(struct ep *e, VIP_DESCRIPTOR *d, unsigned len) {
  memset(d, 0, sizeof *d);
  d->CS.Control = VIP_CONTROL_OP_SENDRECV;
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = e->buf;
  d->DS[0].Local.Handle = e->bh;
  d->DS[0].Local.Length = len;
}

/* Node 1 (nicd B): the other side. */
static int client(int sc, int to, int from) {
  struct ep e;
  int rc = ep_open_rel(&e, 1, sc == S_UNRELIABLE ? VIP_SERVICE_UNRELIABLE : VIP_SERVICE_RELIABLE_DELIVERY);
  if (rc) return 10 + rc;
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 1, 0x800 + (unsigned)sc);
  vaddr_set((VIP_NET_ADDRESS *)ra, 0, 0x700 + (unsigned)sc);
  VIP_VI_ATTRIBUTES rat;
  VIP_RETURN r = sc != S_PEER_MODEL
                     ? VipConnectRequest(e.vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 10000, &rat)
                     : VipConnectPeerRequest(e.vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 10000);
  if (r == VIP_SUCCESS && sc == S_PEER_MODEL) r = VipConnectPeerWait(e.vi, &rat);
  if (r != VIP_SUCCESS) {
    fprintf(stderr, "client: VipConnectRequest: %d\n", r);
    return 20;
  }
  char k;
  VIP_DESCRIPTOR *d = &e.d[0];
  if (sc == S_UNRELIABLE) {   /* NUNREL messages of 1000 bytes, one frame each */
    if (read(from, &k, 1) != 1) return 21;
    for (unsigned m = 0; m < NUNREL; m++) {
      fill_send(&e, d, 1000);
      VIP_DESCRIPTOR *got = NULL;
      if (VipPostSend(e.vi, d, e.dh) != VIP_SUCCESS || VipSendWait(e.vi, 5000, &got) != VIP_SUCCESS)
        return 22;
    }
    vt_sleep_ms(100);   /* the last datagrams reach nicd A before the server goes */
    return write(to, "d", 1) == 1 ? 0 : 23;
  }
  if (sc == S_BYE) {   /* the server had it: the send completes DONE, not flushed */
    fill_send(&e, d, 4);
    VIP_DESCRIPTOR *got = NULL;
    if (VipPostSend(e.vi, d, e.dh) != VIP_SUCCESS) return 21;
    r = VipSendWait(e.vi, 5000, &got);
    if (r != VIP_SUCCESS || got->CS.Status != VIP_STATUS_DONE) {
      fprintf(stderr, "client: the last send before the server's disconnect: rc %d status %#x\n",
              r, got ? got->CS.Status : 0);
      return 22;
    }
    return 0;
  }
  if (sc == S_PEER_EXITS) {   /* connected: the process ends without a word */
    if (read(from, &k, 1) != 1) return 21;
    _exit(0);
  }
  if (sc == S_HOLD) {
    /* The parent kills nicd A once we wait; our receive must end with an error, not hang
     * (the parent times it). */
    if (post_recv(&e, 0) != VIP_SUCCESS) return 22;
    if (write(to, "w", 1) != 1) return 21;
    VIP_DESCRIPTOR *got = NULL;
    r = VipRecvWait(e.vi, 10000, &got);
    bool err = r != VIP_SUCCESS && r != VIP_TIMEOUT;
    err |= r == VIP_SUCCESS && got && (got->CS.Status & VIP_STATUS_ERROR_MASK);
    fprintf(stderr, "client: peer's nicd killed: receive ended with rc %d status %#x\n", r,
            got ? got->CS.Status : 0);
    return err ? 0 : 23;
  }
  for (unsigned round = 0; round < ROUNDS; round++) {
    if (read(from, &k, 1) != 1) return 30;
    for (unsigned i = 0; i < BATCH; i++) {
      unsigned m = round * BATCH + i, len = MSG - m % 100;
      for (unsigned j = 0; j < len; j++) e.buf[j] = pat(m, j);
      fill_send(&e, d, len);
      VIP_DESCRIPTOR *got = NULL;
      if (VipPostSend(e.vi, d, e.dh) != VIP_SUCCESS) return 31;
      if (VipSendWait(e.vi, 5000, &got) != VIP_SUCCESS || got != d ||
          got->CS.Status != VIP_STATUS_DONE)
        return 32;
    }
  }
  struct target t;
  if (read(from, &t, sizeof t) != sizeof t) return 40;
  uint8_t *src = e.buf + BATCH * SLOT;
  for (unsigned j = 0; j < RDMA_LEN; j++) src[j] = pat(9999, j);
  memset(d, 0, sizeof *d);
  d->CS.Control = VIP_CONTROL_OP_RDMAWRITE;
  d->CS.SegCount = 2;
  d->CS.Length = RDMA_LEN;
  d->DS[0].Remote.Data.AddressBits = t.addr;
  d->DS[0].Remote.Handle = t.mh;
  d->DS[1].Local.Data.Address = src;
  d->DS[1].Local.Handle = e.bh;
  d->DS[1].Local.Length = RDMA_LEN;
  VIP_DESCRIPTOR *got = NULL;
  if (VipPostSend(e.vi, d, e.dh) != VIP_SUCCESS) return 41;
  VIP_RETURN w = VipSendWait(e.vi, 5000, &got);
  if (w != VIP_SUCCESS || got->CS.Status != (VIP_STATUS_DONE | VIP_STATUS_OP_RDMA_WRITE)) {
    fprintf(stderr, "client: RDMA Write: rc %d status %#x\n", w, got ? got->CS.Status : 0);
    return 42;
  }
  if (write(to, "d", 1) != 1) return 43;
  return 0;
}

/* ---- cases ---- */

static void t_vipl_send_recv_rdma(void) {
  long long rx0 = counter(0, "PEER 1\n", "rx_frames");
  int rc[2];
  run_pair(server, client, S_SENDRECV, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
  /* The traffic crossed the UDP fabric and is in the per-peer counters of both nicds. */
  CHECK(counter(0, "PEER 1\n", "rx_frames") > rx0 + ROUNDS * BATCH);
  CHECK(counter(0, "PEER 1\n", "rx_bytes") >= (long long)RDMA_LEN);
  CHECK(counter(1, "PEER 0\n", "tx_frames") > ROUNDS * BATCH);
  CHECK(counter(0, "FABRIC\n", "control") >= 1);
  CHECK_EQ(counter(0, "FABRIC\n", "bad_crc"), 0);
}

/* The peer-to-peer model across nicds: node 0 accepts, node 1 requests (tests/vipl). */
static void t_vipl_peer_model(void) {
  int rc[2];
  run_pair(server, client, S_PEER_MODEL, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

static void t_ipv6_loopback(void) {
  cluster_stop();
  CHECK(cluster_start(true));
  char out[1024];
  CHECK(cm(0, "FABRIC\n", out, sizeof out) == 0 && strstr(out, "OK udp"));
  int rc[2];
  run_pair(server, client, S_SENDRECV, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
  CHECK(counter(1, "PEER 0\n", "rx_frames") > 0);
  cluster_stop();
  CHECK(cluster_start(false));
}

static void t_resolve_remote_names(void) {
  char out[128];
  CHECK(cm(0, "RESOLVE nic2\n", out, sizeof out) == 0 && !strcmp(out, "OK 2\n"));
  CHECK(cm(1, "RESOLVE 10.0.0.1\n", out, sizeof out) == 0 && !strcmp(out, "OK 0\n"));
  CHECK(cm(1, "PING\n", out, sizeof out) == 0 && !strcmp(out, "OK nicd 2\n"));
}

/* A datagram of n bytes from a socket of our own to nicd A's port. */
static void send_dgram(const uint8_t *b, size_t n) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(C.port[0]),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  CHECK(fd >= 0 && sendto(fd, b, n, 0, (struct sockaddr *)&a, sizeof a) == (ssize_t)n);
  if (fd >= 0) close(fd);
}

static size_t good_dgram(uint8_t *out, uint16_t src, uint16_t dst) {
  uint8_t payload[40];
  memset(payload, 0x5a, sizeof payload);
  struct hw_link_hdr h = {.dst = dst, .src = src, .flags = HW_LINK_EOM, .len = sizeof payload};
  size_t fl = hw_link_encode(out + UDPWIRE_HDR_LEN, 256, &h, payload);
  udpwire_put(out, &(struct udpwire_hdr){.src = src, .dst = dst, .len = (uint32_t)fl});
  return UDPWIRE_HDR_LEN + fl;
}

static void t_bad_datagrams_dropped_and_counted(void) {
  static const char *const keys[] = {"bad_short", "bad_version", "bad_wrong_node", "bad_crc",
                                     "bad_addr"};
  long long before[5];
  for (int i = 0; i < 5; i++) before[i] = counter(0, "FABRIC\n", keys[i]);
  uint8_t b[512];
  send_dgram((const uint8_t *)"x", 1);                     /* short */
  size_t n = good_dgram(b, 1, 0);
  b[2] = 9;                                                /* wrong version */
  send_dgram(b, n);
  n = good_dgram(b, 1, 2);                                 /* node 2 is not nicd A's */
  send_dgram(b, n);
  n = good_dgram(b, 1, 0);
  b[n - 1] ^= 0xff;                                        /* bad CRC */
  send_dgram(b, n);
  n = good_dgram(b, 1, 0);                                 /* well formed, but node 1 is not */
  send_dgram(b, n);                                        /* at our socket's address */
  for (int i = 0; i < 100; i++) {
    if (counter(0, "FABRIC\n", "bad_addr") > before[4]) break;
    vt_sleep_ms(10);
  }
  for (int i = 0; i < 5; i++) {
    long long after = counter(0, "FABRIC\n", keys[i]);
    if (after != before[i] + 1) fprintf(stderr, "%s: %lld -> %lld\n", keys[i], before[i], after);
    CHECK_EQ(after, before[i] + 1);
  }
  CHECK(counter(0, "PEER 1\n", "rx_bad") >= 4);
  int rc[2];   /* and nicd A still works */
  run_pair(server, client, S_SENDRECV, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

/* Sum of the firmware's receive drops of node 0 (STATS). */
static long long fw_drops(void) {
  static const char *const keys[] = {"drop_no_vi", "drop_no_desc", "drop_malformed",
                                     "drop_checksum"};
  long long sum = 0;
  for (int i = 0; i < 4; i++) {
    long long v = counter(0, "STATS 0\n", keys[i]);
    if (v < 0) return -1;
    sum += v;
  }
  return sum;
}

/* Datagrams that pass the transport's checks but carry forged messages (random headers,
 * sequence numbers, VIs), sent from node 3's address (where no nicd runs, so this test can
 * speak for it): the firmware of node 0 drops and counts each, and the node keeps working. */
static void t_forged_messages_dropped_by_firmware(void) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(C.port[2]),
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(C.port[0]),
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&me, sizeof me) == 0);
  long long before = fw_drops(), bad0 = counter(0, "FABRIC\n", "bad_addr");
  CHECK(before >= 0);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  enum { N = 40 };
  for (int m = 0; m < N; m++) {
    uint8_t payload[256], b[512];
    uint32_t len = 1 + (uint32_t)(m * 37) % 200;
    for (uint32_t j = 0; j < len; j++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      payload[j] = (uint8_t)x;
    }
    struct hw_link_hdr h = {.dst = 0, .src = 3, .flags = HW_LINK_EOM, .len = len, .frame = (uint32_t)m};
    size_t fl = hw_link_encode(b + UDPWIRE_HDR_LEN, sizeof b - UDPWIRE_HDR_LEN, &h, payload);
    udpwire_put(b, &(struct udpwire_hdr){.src = 3, .dst = 0, .len = (uint32_t)fl});
    CHECK(sendto(fd, b, UDPWIRE_HDR_LEN + fl, 0, (struct sockaddr *)&to, sizeof to) ==
          (ssize_t)(UDPWIRE_HDR_LEN + fl));
  }
  long long after = before;
  for (int i = 0; i < 200 && after < before + N; i++) {
    vt_sleep_ms(10);
    after = fw_drops();
  }
  fprintf(stderr, "%d forged messages: firmware drops %lld -> %lld\n", N, before, after);
  CHECK_EQ(after, before + N);
  CHECK_EQ(counter(0, "FABRIC\n", "bad_addr"), bad0);   /* the transport took them */
  CHECK(counter(0, "PEER 3\n", "rx_frames") >= N);
  if (fd >= 0) close(fd);
  int rc[2];
  run_pair(server, client, S_SENDRECV, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

static int connect_to_node(int sc) {
  struct ep e;
  int rc = ep_open(&e, 1);
  if (rc) return 10 + rc;
  uint8_t la[64], ra[64];
  vaddr_set((VIP_NET_ADDRESS *)la, 1, 0x900);
  vaddr_set((VIP_NET_ADDRESS *)ra, (unsigned)sc, 0x901);
  VIP_VI_ATTRIBUTES rat;
  uint64_t t0 = vt_now_ms();
  VIP_RETURN r = VipConnectRequest(e.vi, (VIP_NET_ADDRESS *)la, (VIP_NET_ADDRESS *)ra, 10000, &rat);
  uint64_t took = vt_now_ms() - t0;
  fprintf(stderr, "connect to node %d: rc %d after %llu ms\n", sc, r, (unsigned long long)took);
  /* nicd answers ERR UNREACH (VIPL: VIP_ERROR_RESOURCE), not a timeout. */
  return r == VIP_ERROR_RESOURCE && took < 2000 ? 0 : 1;
}
static int connect_to_closed_port(int to, int from) { (void)to, (void)from; return connect_to_node(3); }
static int connect_to_black_hole(int to, int from) { (void)to, (void)from; return connect_to_node(4); }

static void t_unreachable_peer_fails_fast(void) {
  pid_t p = run_child(connect_to_closed_port, -1, -1);   /* refused at once */
  CHECK_EQ(wait_child(p, "connect to node 3"), 0);
  /* A host that does not answer (its SYNs are dropped): the dial gives up after 1 s. */
  p = run_child(connect_to_black_hole, -1, -1);
  CHECK_EQ(wait_child(p, "connect to node 4"), 0);
}

static void t_peer_nicd_killed_then_restarted(void) {
  int rc[2];
  pid_t s = -1, c = -1;
  int a[2], b[2];
  CHECK(pipe(a) == 0 && pipe(b) == 0);
  s = fork();
  if (s == 0) {
    close(a[0]), close(b[1]);
    exit(server(S_HOLD, a[1], b[0]));
  }
  int c2s[2], s2c[2];
  CHECK(pipe(c2s) == 0 && pipe(s2c) == 0);
  c = fork();
  if (c == 0) {
    close(s2c[1]), close(c2s[0]);
    exit(client(S_HOLD, c2s[1], s2c[0]));
  }
  close(a[1]), close(b[0]), close(s2c[0]), close(c2s[1]);
  char k = 0;
  CHECK(read(a[0], &k, 1) == 1 && k == 'c');   /* connected */
  CHECK(read(c2s[0], &k, 1) == 1 && k == 'w');  /* the client waits for a message */
  vt_sleep_ms(50);
  uint64_t t0 = vt_now_ms();
  stop_nicd(0, true);                           /* SIGKILL nicd A under the server */
  rc[1] = wait_child(c, "client on nicd B");
  uint64_t took = vt_now_ms() - t0;
  fprintf(stderr, "nicd A killed: the client on nicd B had its error after %llu ms\n",
          (unsigned long long)took);
  CHECK(took <= 2000);
  kill(s, SIGKILL);   /* the server's NIC is gone with its nicd: it may be stuck in libnic */
  waitpid(s, NULL, 0);
  close(a[0]), close(b[1]), close(s2c[1]), close(c2s[0]);
  CHECK_EQ(rc[1], 0);
  /* Restarted, nicd A takes over its windows and serves new connections across. */
  CHECK((C.pid[0] = start_nicd(0)) > 0);
  run_pair(server, client, S_SENDRECV, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

/* A process on nicd B dies: nicd B reaps its VI and tells nicd A, whose VI goes ERROR, so the
 * server's receive ends with an error. */
static void t_owner_death_crosses_nicds(void) {
  int rc[2];
  run_pair(server, client, S_PEER_EXITS, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

/* A server that disconnects as soon as it has the client's last message: the client's send
 * completes DONE, never flushed, though the disconnect (on the control connection) may
 * overtake the acknowledgement (a datagram). The DISC line carries what the server's NIC
 * delivered (CONNECT.md). */
static void t_disconnect_after_last_message(void) {
  int flushed = 0;
  for (int i = 0; i < 20; i++) {
    int rc[2];
    run_pair(server, client, S_BYE, rc);
    CHECK_EQ(rc[0], 0);
    flushed += rc[1] != 0;
  }
  CHECK_EQ(flushed, 0);
}

/* nicd A stops answering without closing anything (SIGSTOP: a hung or cut-off host): its
 * heartbeats stop, and nicd B fails the connection within 2 s. */
static void t_silent_peer_nicd_detected(void) {
  int a[2], c2s[2], s2c[2];
  CHECK(pipe(a) == 0 && pipe(c2s) == 0 && pipe(s2c) == 0);
  pid_t s = fork();
  if (s == 0) {
    close(a[0]);
    int never[2];
    if (pipe(never) != 0) exit(99);
    exit(server(S_HOLD, a[1], never[0]));
  }
  pid_t c = fork();
  if (c == 0) {
    close(s2c[1]), close(c2s[0]);
    exit(client(S_HOLD, c2s[1], s2c[0]));
  }
  close(a[1]), close(s2c[0]), close(c2s[1]);
  char k = 0;
  CHECK(read(a[0], &k, 1) == 1 && k == 'c');
  CHECK(read(c2s[0], &k, 1) == 1 && k == 'w');
  uint64_t t0 = vt_now_ms();
  kill(C.pid[0], SIGSTOP);
  int rcc = wait_child(c, "client on nicd B");
  uint64_t took = vt_now_ms() - t0;
  fprintf(stderr, "nicd A stopped: the client on nicd B had its error after %llu ms\n",
          (unsigned long long)took);
  CHECK_EQ(rcc, 0);
  CHECK(took <= 2000);
  kill(C.pid[0], SIGCONT);
  /* Woken, nicd A finds its control connection closed: the server's VI goes ERROR too. */
  CHECK(read(a[0], &k, 1) == 1 && k == 'e');
  CHECK_EQ(wait_child(s, "server on nicd A"), 0);
  close(a[0]), close(s2c[1]), close(c2s[0]);
  int rc[2];   /* and new connections work */
  run_pair(server, client, S_SENDRECV, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

/* The UDP transport's fault injection, counted on both sides and the same for the same seed:
 * nicd B restarted with every fault at 20% sends NUNREL single-frame Unreliable messages to
 * node 0 (no acknowledgements: its datagrams are exactly those frames). Run twice. */
static void t_fault_injection_counted_and_seeded(void) {
  static const char *const inj[] = {"inj_loss", "inj_dup", "inj_corrupt", "inj_reorder", "tx_datagrams"};
  static const char *const bad[] = {"bad_short", "bad_version", "bad_header_crc", "bad_length",
                                    "bad_wrong_node", "bad_frame", "bad_frame_length", "bad_crc",
                                    "bad_addr"};
  const int nbad = (int)(sizeof bad / sizeof bad[0]);
  long long got[2][6];
  for (int run = 0; run < 2; run++) {
    stop_nicd(1, false);
    C.pid[1] = start_nicd_with(1, "--loss 0.2 --dup 0.2 --reorder 0.2 --corrupt 0.2 --seed 42");
    CHECK(C.pid[1] > 0);
    long long rx0 = counter(0, "FABRIC\n", "rx_datagrams"), bad0 = 0, bad1 = 0;
    for (int i = 0; i < nbad; i++) bad0 += counter(0, "FABRIC\n", bad[i]);
    int rc[2];
    run_pair(server, client, S_UNRELIABLE, rc);
    CHECK_EQ(rc[0], 0);
    CHECK_EQ(rc[1], 0);
    for (int i = 0; i < 5; i++) got[run][i] = counter(1, "FABRIC\n", inj[i]);
    got[run][5] = counter(1, "PEER 0\n", "tx_frames");
    for (int i = 0; i < nbad; i++) bad1 += counter(0, "FABRIC\n", bad[i]);
    long long rx = counter(0, "FABRIC\n", "rx_datagrams") - rx0;
    fprintf(stderr, "seed 42: %lld frames, %lld datagrams sent, lost %lld, duplicated %lld, "
            "damaged %lld, reordered %lld; nicd A received %lld, dropped %lld\n", got[run][5],
            got[run][4], got[run][0], got[run][1], got[run][2], got[run][3], rx, bad1 - bad0);
    /* Reordering needs a second datagram in the same batch (udpfault.h): not required. */
    for (int i = 0; i < 3; i++) CHECK(got[run][i] > 0);
    CHECK(got[run][5] >= NUNREL);
    CHECK_EQ(got[run][4], got[run][5] - got[run][0] + got[run][1]);
    /* Every datagram sent arrived (loopback); every damaged one was dropped and counted. */
    CHECK_EQ(rx, got[run][4]);
    CHECK(bad1 - bad0 >= got[run][2] && bad1 - bad0 <= 2 * got[run][2]);
  }
  /* The same seed, the same faults; a held-back datagram is counted as reordered only when
   * another overtakes it before the batch leaves, which depends on timing. */
  for (int i = 0; i < 6; i++)
    if (i != 3) CHECK_EQ(got[0][i], got[1][i]);
  stop_nicd(1, false);
  CHECK((C.pid[1] = start_nicd(1)) > 0);
}

/* A TCP connection to nicd A's control port from source address src; sends text; true if
 * nicd closed it within 2 s. */
static bool control_closes(const char *src, const char *text) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in me = {.sin_family = AF_INET}, to = {.sin_family = AF_INET,
                                                        .sin_port = htons(C.port[0])};
  inet_pton(AF_INET, src, &me.sin_addr);
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof me) != 0 ||
      connect(fd, (struct sockaddr *)&to, sizeof to) != 0) {
    if (fd >= 0) close(fd);
    return false;
  }
  bool closed = false;
  if (write(fd, text, strlen(text)) == (ssize_t)strlen(text)) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char b[256];
    uint64_t t0 = vt_now_ms();
    while (!closed && vt_now_ms() - t0 < 2000 && poll(&p, 1, 2000) > 0) {
      ssize_t r = read(fd, b, sizeof b);   /* heartbeats may come first */
      closed = r == 0 || (r < 0 && errno == ECONNRESET);
      if (r < 0 && !closed) break;
    }
  }
  close(fd);
  return closed;
}

/* The nicd-to-nicd control port takes peers' hosts only, and a peer that speaks nonsense is
 * cut off; the connection manager names a node nobody hosts. nicd keeps working. */
static void t_control_port_misuse(void) {
  long long refused = counter(0, "FABRIC\n", "control_refused");
  CHECK(control_closes("127.0.0.2", "HELLO 1\n"));              /* no peer's host */
  CHECK_EQ(counter(0, "FABRIC\n", "control_refused"), refused + 1);
  CHECK(control_closes("127.0.0.1", "HELLO 1\nNONSENSE 1 2\n"));
  CHECK(control_closes("127.0.0.1", "HELLO 2\n"));              /* another version */
  CHECK(control_closes("127.0.0.1", "HELLO 3\nACC 1 2 3 4\n"));  /* ACC without its stamp */
  CHECK(control_closes("127.0.0.1", "CONN 1 2\n"));             /* wrong shape */
  char line[700], out[256];
  memset(line, 'x', sizeof line - 2);
  line[sizeof line - 2] = '\n', line[sizeof line - 1] = 0;
  CHECK(control_closes("127.0.0.1", line));                       /* a line too long */
  CHECK(cm(1, "CONNECT 1 1 9 ab -\n", out, sizeof out) == 0 && !strncmp(out, "ERR NONIC", 9));
  CHECK(cm(0, "PEER 9\n", out, sizeof out) == 0 && !strncmp(out, "ERR NONIC", 9));
  int rc[2];
  run_pair(server, client, S_SENDRECV, rc);
  CHECK_EQ(rc[0], 0);
  CHECK_EQ(rc[1], 0);
}

static int run_nicd_with(const char *text, const char *node, char *out, size_t cap) {
  char path[200];
  snprintf(path, sizeof path, "%s/bad", C.dir);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  fclose(f);
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 2), dup2(p[1], 1);
    char run[200];
    snprintf(run, sizeof run, "%s/badrun", C.dir);
    const char *bin = getenv("NICD") ? getenv("NICD") : "build/bin/nicd";
    if (node)
      execl(bin, "nicd", "--udp", "--cluster", path, "--node", node, "--run", run, "--prefix",
            "/vcbad-nic", (char *)NULL);
    else
      execl(bin, "nicd", "--udp", "--cluster", path, "--run", run, "--prefix", "/vcbad-nic",
            (char *)NULL);
    _exit(127);
  }
  close(p[1]);
  size_t n = 0;
  ssize_t r;
  while (n < cap - 1 && (r = read(p[0], out + n, cap - 1 - n)) > 0) n += (size_t)r;
  out[n] = 0;
  close(p[0]);
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void t_bad_cluster_file_refused(void) {
  char out[1024], want[300];
  CHECK_EQ(run_nicd_with("nic0 0 127.0.0.1:7000\nnic1 1 127.0.0.1:\n", NULL, out, sizeof out), 1);
  snprintf(want, sizeof want, "nicd: %s/bad:2:", C.dir);
  CHECK(strstr(out, want) && strstr(out, ": error: "));
  if (!strstr(out, want)) fprintf(stderr, "got: %s", out);
  /* No node of the file at an address of this machine. */
  CHECK_EQ(run_nicd_with("far 0 192.0.2.1:7000\n", NULL, out, sizeof out), 1);
  CHECK(strstr(out, "no node of the cluster file has an address of this machine") != NULL);
  /* A host name that does not resolve. */
  CHECK_EQ(run_nicd_with("a 0 127.0.0.1:7000\nb 1 no-such-host.invalid:7000\n", NULL, out, sizeof out), 1);
  CHECK(strstr(out, "no-such-host.invalid") != NULL);
  /* The port taken (nicd A's): the bind fails, named. */
  char text[128];
  snprintf(text, sizeof text, "a 0 127.0.0.1:%u\n", C.port[0]);
  CHECK_EQ(run_nicd_with(text, NULL, out, sizeof out), 1);
  CHECK(strstr(out, "bind") && strstr(out, "Address already in use"));
  /* --node naming a node the file gives no address, or nodes at two addresses. */
  CHECK_EQ(run_nicd_with("a 0 127.0.0.1:7000\nb 1\n", "1", out, sizeof out), 1);
  CHECK(strstr(out, "--node 1: the cluster file gives no address for node 1") != NULL);
  CHECK_EQ(run_nicd_with("a 0 127.0.0.1:7000\nb 1 127.0.0.1:7001\n", "0,1", out, sizeof out), 1);
  CHECK(strstr(out, "one nicd hosts nodes of one address") != NULL);
  if (strstr(out, "one nicd") == NULL) fprintf(stderr, "got: %s", out);
}

/* Without --node a nicd hosts the nodes at an address of its machine: node 1 of this file
 * (127.0.0.1), not node 0 (TEST-NET, elsewhere). Its connection manager says so. */
static void t_nodes_found_by_address(void) {
  char path[100], run[100], out[256];
  snprintf(path, sizeof path, "%s/auto", C.dir);
  snprintf(run, sizeof run, "%s/autorun", C.dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fprintf(f, "far 0 192.0.2.1:7400\nhere 1 127.0.0.1:%u\n", free_port());
  fclose(f);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    execl(getenv("NICD") ? getenv("NICD") : "build/bin/nicd", "nicd", "--udp", "--cluster", path,
          "--run", run, "--prefix", "/vcauto-nic", (char *)NULL);
    _exit(127);
  }
  char saved[160];
  snprintf(saved, sizeof saved, "%s", C.sock[0]);
  snprintf(C.sock[0], sizeof C.sock[0], "%s/nicd.sock", run);
  bool up = false;
  for (int i = 0; i < 300 && !up; i++) {
    up = cm(0, "PING\n", out, sizeof out) == 0;
    if (!up) vt_sleep_ms(10);
  }
  CHECK(up && !strcmp(out, "OK nicd 1\n"));
  CHECK(cm(0, "PEER 1\n", out, sizeof out) == 0 && strstr(out, " at=local "));
  CHECK(cm(0, "PEER 0\n", out, sizeof out) == 0 && strstr(out, " at=remote "));
  CHECK(cm(0, "STATS 1\n", out, sizeof out) == 0 && !strncmp(out, "OK tx_msgs=", 11));
  CHECK(cm(0, "STATS 0\n", out, sizeof out) == 0 && !strncmp(out, "ERR NONIC", 9));
  snprintf(C.sock[0], sizeof C.sock[0], "%s", saved);
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);   /* and it stops cleanly */
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  bool up = cluster_start(false);
  CHECK(up);
  if (!up) {
    cluster_stop();
    return vt_summary();
  }
  RUN(t_resolve_remote_names);
  RUN(t_vipl_send_recv_rdma);
  RUN(t_vipl_peer_model);
  RUN(t_bad_datagrams_dropped_and_counted);
  RUN(t_forged_messages_dropped_by_firmware);
  RUN(t_unreachable_peer_fails_fast);
  RUN(t_fault_injection_counted_and_seeded);
  RUN(t_control_port_misuse);
  RUN(t_owner_death_crosses_nicds);
  RUN(t_disconnect_after_last_message);
  RUN(t_silent_peer_nicd_detected);
  RUN(t_peer_nicd_killed_then_restarted);
  RUN(t_bad_cluster_file_refused);
  RUN(t_nodes_found_by_address);
  RUN(t_ipv6_loopback);
  cluster_stop();
  return vt_summary();
}
