/* sovia.h: SOVIA, Sockets Over VIA (Kim, Kim, Jung, ICS'01), over Verinic's VIPL. Stream
 * sockets with the BSD calls' signatures and errno conventions, prefixed sovia_. Addresses are
 * AF_INET sockaddr_in: the IPv4 address names a NIC node (hosts file / name service, see
 * host/sovia/README.md), the port a VIA discriminator. Tuning (window w, delayed-ACK threshold
 * t, copy threshold, small-message combining) by environment variables or by setsockopt at
 * level SOL_SOVIA. */
#ifndef SOVIA_H
#define SOVIA_H

#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SOL_SOVIA 0x5356            /* setsockopt level of the options below (int values) */
#define SOVIA_SO_W              1   /* window w, DATA messages (before connect/listen only) */
#define SOVIA_SO_T              2   /* delayed-ACK threshold t, 1 <= t <= max(w-1, 1) (before) */
#define SOVIA_SO_COPY_THRESHOLD 3   /* bytes: sends up to this are copied, larger registered */
#define SOVIA_SO_COMBINE        4   /* 0/1: small-message combining (TCP_NODELAY turns it off) */
#define SOVIA_SO_COMBINE_US     5   /* combining timer, microseconds */
#define SOVIA_SO_INFLIGHT_MAX   6   /* read only: the most DATA packets ever unacknowledged */

int sovia_socket(int domain, int type, int protocol);
int sovia_bind(int fd, const struct sockaddr *addr, socklen_t len);
int sovia_listen(int fd, int backlog);
int sovia_accept(int fd, struct sockaddr *addr, socklen_t *len);
int sovia_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int sovia_connect(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t sovia_send(int fd, const void *buf, size_t n, int flags);
ssize_t sovia_recv(int fd, void *buf, size_t n, int flags);
ssize_t sovia_read(int fd, void *buf, size_t n);
ssize_t sovia_write(int fd, const void *buf, size_t n);
int sovia_close(int fd);
int sovia_shutdown(int fd, int how);
int sovia_setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int sovia_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int sovia_getsockname(int fd, struct sockaddr *addr, socklen_t *len);
int sovia_getpeername(int fd, struct sockaddr *addr, socklen_t *len);
int sovia_fcntl(int fd, int cmd, ... /* int arg */);
/* poll over SOVIA sockets and ordinary descriptors together. */
int sovia_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
/* 1 if fd is a SOVIA socket. */
int sovia_is_socket(int fd);
/* Whether an IPv4 address (network order) is on the NIC fabric (maps to a node). */
int sovia_addr_on_fabric(unsigned long ip_be);

#ifdef __cplusplus
}
#endif
#endif
