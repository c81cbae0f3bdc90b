/* cm.c: the connection manager: a thread serving the line protocol of CONNECT.md on a unix
 * socket. Pending connection requests wait in a table until a WAIT on their (node,
 * discriminator) takes them; ACCEPT pairs the two VIs in the VI tables (vitab.c) and answers
 * both sides; a client that closes its connection withdraws what it was waiting for. Every
 * 100 ms it also reaps VIs whose owner process died (vitab_reap). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../hw/futex.h"
#include "nicd.h"

#define MAXCLI 64
#define MAXREQ 64
#define LINE   256

struct client {
  int fd;
  char buf[LINE];
  size_t len;
  bool waiting;            /* a WAIT is outstanding */
  unsigned wnode;
  char wdisc[68];
};

struct req {
  bool used, taken;
  int id;
  int from;                /* requesting client */
  int taker;               /* the waiting client it was offered to, while taken */
  unsigned node, vi, rnode;
  char rdisc[68], mydisc[68];
};

static struct nicd *D;
static int lfd = -1;
static struct client cli[MAXCLI];
static struct req reqs[MAXREQ];
static int next_id = 1;
static pthread_t thr;

static void reply(int c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(int c, const char *fmt, ...) {
  char out[LINE + 64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, sizeof out - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof out - 2) n = (int)sizeof out - 2;
  out[n++] = '\n';
  if (cli[c].fd >= 0 && send(cli[c].fd, out, (size_t)n, MSG_NOSIGNAL) < 0 && D->verbose)
    fprintf(stderr, "nicd: reply: %s\n", strerror(errno));
}

static bool disc_ok(const char *s) {
  if (!strcmp(s, "-")) return true;
  size_t n = strlen(s);
  if (n == 0 || n > 64) return false;
  for (size_t i = 0; i < n; i++)
    if (!strchr("0123456789abcdefABCDEF", s[i])) return false;
  return true;
}

static void offer(int c, struct req *r) {
  r->taken = true;
  r->taker = c;
  cli[c].waiting = false;
  reply(c, "OK REQUEST %d %u %u %s %u", r->id, r->node, r->vi, r->mydisc,
        vitab_vi(D, r->node, r->vi)->reliability);
}

/* Offers an untaken request to a client waiting for it, if there is one. */
static void reoffer(struct req *r) {
  for (int k = 0; k < MAXCLI; k++)
    if (cli[k].fd >= 0 && cli[k].waiting && cli[k].wnode == r->rnode &&
        !strcmp(cli[k].wdisc, r->rdisc)) {
      offer(k, r);
      return;
    }
}

static struct req *find_req(int id) {
  for (int i = 0; i < MAXREQ; i++)
    if (reqs[i].used && reqs[i].id == id) return &reqs[i];
  return NULL;
}

static void do_stats(int c, unsigned node) {
  const volatile struct hostif_counters *k =
      nic_sram_ptr(D->nic[node], HOSTIF_COUNTERS_ADDR, sizeof(struct hostif_counters));
  reply(c,
        "OK tx_msgs=%llu tx_bytes=%llu rx_msgs=%llu rx_bytes=%llu drop_no_vi=%llu "
        "drop_no_desc=%llu drop_malformed=%llu drop_checksum=%llu truncated=%llu "
        "protection=%llu format=%llu",
        (unsigned long long)k->tx_msgs, (unsigned long long)k->tx_bytes,
        (unsigned long long)k->rx_msgs, (unsigned long long)k->rx_bytes,
        (unsigned long long)k->rx_drop_no_vi, (unsigned long long)k->rx_drop_no_desc,
        (unsigned long long)k->rx_drop_malformed, (unsigned long long)k->rx_drop_checksum,
        (unsigned long long)k->rx_truncated, (unsigned long long)k->protection_errors,
        (unsigned long long)k->format_errors);
}

static void handle_line(int c, char *line) {
  char verb[16] = "", a[80] = "", b[80] = "", e[80] = "", f[80] = "", g[80] = "";
  int n = sscanf(line, "%15s %79s %79s %79s %79s %79s", verb, a, b, e, f, g);
  unsigned ua = (unsigned)strtoul(a, NULL, 10), ub = (unsigned)strtoul(b, NULL, 10);
  if (!strcmp(verb, "PING")) {
    reply(c, "OK nicd %u", D->n);
  } else if (!strcmp(verb, "RESOLVE") && n == 2) {
    int node = hosts_resolve(D->hosts_path, a);
    if (node < 0) reply(c, "ERR NOMATCH no such host");
    else reply(c, "OK %d", node);
  } else if (!strcmp(verb, "STATS") && n == 2) {
    if (ua >= D->n) reply(c, "ERR NONIC no such NIC");
    else do_stats(c, ua);
  } else if (!strcmp(verb, "WAIT") && n == 3) {
    if (ua >= D->n) { reply(c, "ERR NONIC no such NIC"); return; }
    if (!disc_ok(b)) { reply(c, "ERR INVAL bad discriminator"); return; }
    if (cli[c].waiting) { reply(c, "ERR BUSY a WAIT is outstanding"); return; }
    cli[c].waiting = true;
    cli[c].wnode = ua;
    snprintf(cli[c].wdisc, sizeof cli[c].wdisc, "%s", b);
    for (int i = 0; i < MAXREQ; i++)
      if (reqs[i].used && !reqs[i].taken && reqs[i].rnode == ua && !strcmp(reqs[i].rdisc, b)) {
        offer(c, &reqs[i]);
        return;
      }
  } else if (!strcmp(verb, "CONNECT") && n == 6) {
    unsigned rnode = (unsigned)strtoul(e, NULL, 10);
    struct hostif_vi *v = vitab_vi(D, ua, ub);
    if (ua >= D->n || rnode >= D->n) { reply(c, "ERR NONIC no such NIC"); return; }
    if (!v || __atomic_load_n(&v->state, __ATOMIC_ACQUIRE) != HOSTIF_VI_IDLE) {
      reply(c, "ERR STATE the VI is not idle");
      return;
    }
    if (!disc_ok(f) || !disc_ok(g)) { reply(c, "ERR INVAL bad discriminator"); return; }
    struct req *r = NULL;
    for (int i = 0; i < MAXREQ && !r; i++)
      if (!reqs[i].used) r = &reqs[i];
    if (!r) { reply(c, "ERR BUSY too many pending requests"); return; }
    *r = (struct req){.used = true, .id = next_id++, .from = c, .node = ua, .vi = ub, .rnode = rnode};
    snprintf(r->rdisc, sizeof r->rdisc, "%s", f);
    snprintf(r->mydisc, sizeof r->mydisc, "%s", g);
    reoffer(r);
  } else if (!strcmp(verb, "ACCEPT") && n == 4) {
    struct req *r = find_req((int)strtol(a, NULL, 10));
    unsigned vi = (unsigned)strtoul(e, NULL, 10);
    if (!r || !r->taken) { reply(c, "ERR NOMATCH no such request"); return; }
    if (vitab_pair(D, ub, vi, r->node, r->vi) != 0) {
      reply(c, "ERR STATE VIs not idle or reliability differs");
      reply(r->from, "ERR REJECTED the peer VI could not be connected");
    } else {
      reply(c, "OK CONNECTED %u %u", r->node, r->vi);
      reply(r->from, "OK CONNECTED %u %u", ub, vi);
    }
    r->used = false;
  } else if (!strcmp(verb, "REJECT") && n == 2) {
    struct req *r = find_req((int)strtol(a, NULL, 10));
    if (!r) { reply(c, "ERR NOMATCH no such request"); return; }
    reply(r->from, "ERR REJECTED rejected by the peer");
    reply(c, "OK");
    r->used = false;
  } else if (!strcmp(verb, "DISCONNECT") && n == 3) {
    if (!vitab_vi(D, ua, ub)) { reply(c, "ERR INVAL no such VI"); return; }
    vitab_disconnect(D, ua, ub);
    reply(c, "OK");
  } else {
    reply(c, "ERR INVAL unknown or malformed request");
  }
}

/* A client went away: its own requests die; a request it was offered but had not yet accepted
 * or rejected (its VipConnectWait timed out at that moment) goes back to waiting, so the
 * requester is answered by someone else or by its own timeout, never left hanging. */
static void drop_client(int c) {
  close(cli[c].fd);
  cli[c].fd = -1;
  cli[c].waiting = false;
  for (int i = 0; i < MAXREQ; i++) {
    if (!reqs[i].used)
      continue;
    if (reqs[i].from == c) {
      reqs[i].used = false;
    } else if (reqs[i].taken && reqs[i].taker == c) {
      reqs[i].taken = false;
      reoffer(&reqs[i]);
    }
  }
}

static void client_input(int c) {
  ssize_t n = recv(cli[c].fd, cli[c].buf + cli[c].len, sizeof cli[c].buf - 1 - cli[c].len, 0);
  if (n <= 0) {
    drop_client(c);
    return;
  }
  cli[c].len += (size_t)n;
  char *nl;
  while (cli[c].fd >= 0 && (nl = memchr(cli[c].buf, '\n', cli[c].len))) {
    *nl = 0;
    handle_line(c, cli[c].buf);
    size_t used = (size_t)(nl + 1 - cli[c].buf);
    memmove(cli[c].buf, nl + 1, cli[c].len - used);
    cli[c].len -= used;
  }
  if (cli[c].fd >= 0 && cli[c].len == sizeof cli[c].buf - 1) {
    reply(c, "ERR INVAL line too long");
    drop_client(c);
  }
}

static void *cm_main(void *arg) {
  (void)arg;
  uint64_t last_reap = 0;
  while (!nicd_stop) {
    struct pollfd p[MAXCLI + 1];
    int map[MAXCLI + 1], np = 0;
    p[np].fd = lfd;
    p[np].events = POLLIN;
    map[np++] = -1;
    for (int c = 0; c < MAXCLI; c++)
      if (cli[c].fd >= 0) {
        p[np].fd = cli[c].fd;
        p[np].events = POLLIN;
        map[np++] = c;
      }
    int r = poll(p, (nfds_t)np, 100);
    if (r > 0) {
      for (int i = 1; i < np; i++)
        if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) client_input(map[i]);
      if (p[0].revents & POLLIN) {
        int fd = accept(lfd, NULL, NULL);
        int c = 0;
        while (c < MAXCLI && cli[c].fd >= 0) c++;
        if (fd >= 0 && c < MAXCLI) cli[c] = (struct client){.fd = fd};
        else if (fd >= 0) close(fd);
      }
    }
    uint64_t now = hw_mono_ns();
    if (now - last_reap > 100000000ull) {
      vitab_reap(D);
      segs_reap();
      last_reap = now;
    }
  }
  return NULL;
}

int cm_start(struct nicd *d) {
  D = d;
  for (int c = 0; c < MAXCLI; c++) cli[c].fd = -1;
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  if (strlen(d->sock_path) >= sizeof a.sun_path) return -ENAMETOOLONG;
  strcpy(a.sun_path, d->sock_path);
  lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0) return -errno;
  unlink(d->sock_path);
  if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 64) != 0) {
    int e = -errno;
    close(lfd);
    return e;
  }
  /* The firmware loop (main thread) takes SIGTERM/SIGINT, not this one. */
  sigset_t s, old;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  pthread_sigmask(SIG_BLOCK, &s, &old);
  int rc = pthread_create(&thr, NULL, cm_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return -rc;
}

void cm_stop(void) {
  pthread_join(thr, NULL);
  for (int c = 0; c < MAXCLI; c++)
    if (cli[c].fd >= 0) close(cli[c].fd);
  close(lfd);
  unlink(D->sock_path);
}
