/* fv_sovia.c: the SOVIA peers of the fault suite: a stream socket from NIC 1 (role 1, writes
 * `total` bytes of a pattern in seeded pieces) to NIC 0 (role 0, reads and checks every
 * byte, then answers one byte so the writer knows all arrived). Blocking calls throughout;
 * the peer's death must end them: a read returning end-of-file before the stream is whole, or
 * any call failing, is the error. A write returning only means buffered, so the writer
 * counts its bytes as done only once the reader's answer came. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "faults.h"
#include "sovia.h"

static uint8_t byte_at(uint64_t off) { return fs_pat(off >> 12, (uint32_t)(off & 4095)); }

static struct sockaddr_in server_addr(unsigned port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "10.78.0.1", &a.sin_addr);
  return a;
}

static void server(struct fshared *s) {
  int l = sovia_socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = server_addr(s->port);
  if (l < 0 || sovia_bind(l, (struct sockaddr *)&a, sizeof a) || sovia_listen(l, 4)) {
    fs_broken(s, 0, "listen: %s", strerror(errno));
    return;
  }
  fs_phase(s, 0, PH_CONNECT);
  /* A listener keeps listening until its client has tried (orchestration), then gives up. */
  struct pollfd p = {.fd = l, .events = POLLIN};
  int n;
  do n = sovia_poll(&p, 1, 500);
  while (n == 0 && atomic_load(&s->phase[1]) < PH_CONNECT);
  int c = n > 0 ? sovia_accept(l, NULL, NULL) : -1;
  sovia_close(l);
  if (c < 0) {
    fs_error(s, 0);
    return;
  }
  fs_phase(s, 0, PH_STREAM);
  uint8_t *b = malloc(65536);
  uint64_t off = 0;
  while (off < s->total) {
    ssize_t r = sovia_recv(c, b, 65536, 0);
    if (r <= 0) {
      fs_error(s, 0);
      break;
    }
    for (ssize_t k = 0; k < r; k++)
      if (b[k] != byte_at(off + (uint64_t)k)) {
        atomic_store(&s->bad, 1);
        fs_broken(s, 0, "byte %llu wrong", (unsigned long long)(off + (uint64_t)k));
        free(b);
        sovia_close(c);
        return;
      }
    off += (uint64_t)r;
    atomic_store(&s->recvd, off);
  }
  free(b);
  if (off == s->total) {
    fs_phase(s, 0, PH_CLOSE);
    if (sovia_send(c, "F", 1, 0) != 1) fs_error(s, 0);
  }
  sovia_close(c);
}

static void client(struct fshared *s) {
  while (atomic_load(&s->phase[0]) < PH_CONNECT) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  fs_phase(s, 1, PH_CONNECT);
  int c = sovia_socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = server_addr(s->port);
  if (c < 0 || sovia_connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
    fs_error(s, 1);
    if (c >= 0) sovia_close(c);
    return;
  }
  fs_phase(s, 1, PH_STREAM);
  uint8_t *b = malloc(65536);
  uint64_t off = 0;
  uint32_t st = s->seed | 1;
  while (off < s->total) {
    st ^= st << 13, st ^= st >> 17, st ^= st << 5;
    size_t n = 1 + st % 65536;
    if (n > s->total - off) n = (size_t)(s->total - off);
    for (size_t k = 0; k < n; k++) b[k] = byte_at(off + k);
    size_t done = 0;
    while (done < n) {
      ssize_t w = sovia_send(c, b + done, n - done, 0);
      if (w <= 0) {
        fs_error(s, 1);
        free(b);
        sovia_close(c);
        return;
      }
      done += (size_t)w;
    }
    off += n;
  }
  free(b);
  fs_phase(s, 1, PH_CLOSE);
  char f;
  if (sovia_recv(c, &f, 1, 0) == 1 && f == 'F') atomic_store(&s->sent_done, s->total);
  else fs_error(s, 1);
  sovia_close(c);
}

void fv_sovia_peer(int role, struct fshared *s) {
  setenv("SOVIA_NIC", fnicd_dev(role), 1);
  setenv("SOVIA_CONNECT_MS", "500", 1);
  if (role == 0) server(s);
  else client(s);
  int running = FR_RUNNING;
  atomic_compare_exchange_strong(&s->result[role], &running, FR_FINISHED);
  fs_phase(s, role, PH_DONE);
}
