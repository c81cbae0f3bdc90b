/* The client side of nicd's connection manager (nicd/CONNECT.md): a unix stream
 * socket, one text line per request and per reply; a blocking request is given up by closing
 * the connection. Also the VIP_NET_ADDRESS encoding: the host address is the NIC's node id,
 * two bytes big-endian; the discriminator bytes follow it (hex on the wire to nicd). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "naming.h"
#include "vipl_internal.h"

int vipl_cm_open(void) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (naming_socket_path(sa.sun_path, sizeof sa.sun_path) != 0) return -ENAMETOOLONG;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

static int cm_call(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns);

/* In timing mode the process bounds nothing while nicd's connection manager has it. */
int vipl_cm_call(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns) {
  lnic_vt_outside(true);
  int rc = cm_call(fd, line, reply, cap, timeout_ns);
  lnic_vt_outside(false);
  return rc;
}

/* A request nicd answers at once (ACCEPT, REJECT): in timing mode the process still bounds
 * nicd at its time meanwhile, so that a peer the same answer releases (the requester of an
 * ACCEPT) cannot run ahead of it in real time; the virtual time both go on at is then this
 * process's, whichever of the two the scheduler runs first. */
int vipl_cm_call_now(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns) {
  lnic_vt_settle();
  return cm_call(fd, line, reply, cap, timeout_ns);
}

int vipl_cm_call_raw(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns) {
  return cm_call(fd, line, reply, cap, timeout_ns);
}

static int cm_call(int fd, const char *line, char *reply, size_t cap, int64_t timeout_ns) {
  size_t len = strlen(line), off = 0;
  while (off < len) {
    ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -EPIPE;
    off += (size_t)w;
  }
  uint64_t start = lnic_now_ns();
  size_t got = 0;
  for (;;) {
    int ms = -1;
    if (timeout_ns >= 0) {
      uint64_t waited = lnic_now_ns() - start;
      if (waited >= (uint64_t)timeout_ns) return -ETIMEDOUT;
      ms = (int)(((uint64_t)timeout_ns - waited + 999999) / 1000000);
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n = poll(&p, 1, ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    if (n == 0) continue;   /* the time check above ends it */
    /* Take what has come up to the newline, not beyond: a later reply stays for its call. */
    char buf[256];
    ssize_t r = recv(fd, buf, sizeof buf, MSG_PEEK);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -EPIPE;
    char *nl = memchr(buf, '\n', (size_t)r);
    size_t take = nl ? (size_t)(nl - buf) + 1 : (size_t)r;
    r = recv(fd, buf, take, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -EPIPE;
    for (ssize_t i = 0; i < r; i++) {
      if (buf[i] == '\n') {
        reply[got] = 0;
        return 0;
      }
      if (got + 1 < cap) reply[got++] = buf[i];
    }
  }
}

int vipl_addr_node(const VIP_NET_ADDRESS *a, unsigned *node) {
  if (!a || a->HostAddressLen != 2) return -EINVAL;
  *node = ((unsigned)a->HostAddress[0] << 8) | a->HostAddress[1];
  return 0;
}

void vipl_addr_disc_hex(const VIP_NET_ADDRESS *a, char *out, size_t cap) {
  unsigned n = a->DiscriminatorLen;
  if (n == 0 || n > 32 || 2 * (size_t)n + 1 > cap) {
    snprintf(out, cap, "-");
    return;
  }
  const uint8_t *d = a->HostAddress + a->HostAddressLen;
  for (unsigned i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void vipl_addr_set_host(VIP_NET_ADDRESS *a, unsigned node) {
  a->HostAddressLen = 2;
  a->HostAddress[0] = (uint8_t)(node >> 8);
  a->HostAddress[1] = (uint8_t)node;
}

int vipl_addr_fill(VIP_NET_ADDRESS *a, unsigned node, const char *hex) {
  a->HostAddressLen = 2;
  a->HostAddress[0] = (uint8_t)(node >> 8);
  a->HostAddress[1] = (uint8_t)node;
  uint8_t *d = a->HostAddress + 2;
  unsigned n = 0;
  if (hex && strcmp(hex, "-") != 0) {
    size_t l = strlen(hex);
    if (l % 2 || l > 64) return -EINVAL;
    for (size_t i = 0; i < l; i += 2) {
      unsigned b;
      if (sscanf(hex + i, "%2x", &b) != 1) return -EINVAL;
      d[n++] = (uint8_t)b;
    }
  }
  a->DiscriminatorLen = (uint16_t)n;
  return 0;
}
