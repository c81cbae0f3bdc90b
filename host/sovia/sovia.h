/* sovia.h: SOVIA, Sockets Over VIA (Kim, Kim, Jung, ICS'01), over Verinic's VIPL. Stream
 * sockets with the BSD calls' signatures and errno conventions, prefixed sovia_. Addresses are
 * AF_INET sockaddr_in: the IPv4 address names a NIC node (hosts file / name service, see
 * host/sovia/README.md), the port a VIA discriminator. Tuning (window w, delayed-ACK threshold
 * t, copy threshold, small-message combining) by environment variables or by setsockopt at
 * level SOL_SOVIA. */
#ifndef SOVIA_H
#define SOVIA_H

#include <poll.h>
#include <signal.h>
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
/* What a kernel does for TCP at a process's end: every open socket closed, each close
 * finished (queued data sent, FINs crossed) within SOVIA_LINGER_MS (default 5000). Runs at
 * exit(); the shim calls it from _exit too. Nothing in a vfork child, nothing twice. */
void sovia_exit_finish(void);
/* Whether this is the child of a vfork (or of a clone without fork's handlers) before its
 * exec: it shares its parent's memory, so SOVIA's state is the parent's and the calls that
 * change it (close, dup2 onto a socket, sigaction, exit) must leave it to the kernel. */
int sovia_vfork_child(void);
int sovia_shutdown(int fd, int how);
int sovia_setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int sovia_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int sovia_getsockname(int fd, struct sockaddr *addr, socklen_t *len);
int sovia_getpeername(int fd, struct sockaddr *addr, socklen_t *len);
int sovia_fcntl(int fd, int cmd, ... /* int arg */);
/* poll over SOVIA sockets and ordinary descriptors together. */
int sovia_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
/* The same for a caller that holds signals while SOVIA works (the shim: an application's
 * handler must not run inside SOVIA, holding its lock): they are taken only while it sleeps,
 * under sleepmask, as a kernel poll takes them; any handled signal ends it with EINTR. */
int sovia_ppoll(struct pollfd *fds, nfds_t n, int timeout_ms, const sigset_t *sleepmask);
/* Readiness of SOVIA sockets for callers that sleep in the kernel (the shim's epoll): every
 * connection progresses once, then each fds[i].revents gets the poll bits of that socket
 * (POLLIN, POLLOUT, POLLERR, POLLHUP, POLLRDHUP; all of them, whatever .events asks; POLLNVAL
 * for a descriptor that is no SOVIA socket) and seq[i] a number that changes whenever its
 * readiness may have changed (edge-triggered waits). Returns how many have revents. A listening
 * socket's connection thread starts here or at accept() (README, "fork and exec"). */
int sovia_readiness(struct pollfd *fds, unsigned *seq, nfds_t n);
/* An eventfd that becomes readable when a SOVIA socket may have changed readiness, while at
 * least one caller is armed (sovia_notify_arm(1) before checking readiness and sleeping,
 * sovia_notify_arm(0) after). The caller reads it to reset it. -1 and errno on failure. */
int sovia_notify_fd(void);
void sovia_notify_arm(int on);
/* Bytes waiting to be read on a connected socket (FIONREAD), or -1 and errno. */
int sovia_nread(int fd);
/* SOVIA tells the shim when it closes one of its own descriptors (called with its lock held:
 * the hook must not call SOVIA). */
void sovia_set_fd_hook(void (*closed)(int fd));
/* The shim counts the signals the application handles: count(1) every one, count(0) those
 * whose handler does not ask for SA_RESTART. A blocking accept, recv or send that sees the
 * latter move returns EINTR, a poll either, as the kernel's would. */
void sovia_set_signal_probe(unsigned (*count)(int all));
/* A relay (the shim's: a process that took a connection over to serve it to others through a
 * kernel socket) names, in the connection's memory every process holding a copy shares, the
 * abstract unix socket where those get it; 0, or -1 and errno. sovia_get_door gives the name
 * ("" if none), sovia_held_elsewhere whether another live process still holds a copy. */
int sovia_set_door(int fd, const char *name);
int sovia_get_door(int fd, char *name, size_t cap);
int sovia_held_elsewhere(int fd);
/* The connection of fd becomes process pid's (its owner, and its VI's): a relay just forked,
 * before this process, which may end at once, lets go of it. 0, or -1 and errno. */
int sovia_give(int fd, int pid);
/* Sharing a connection between live processes on demand. A process that would use a
 * connection another live process owns asks for a relay (on = 1; on = 0 withdraws the
 * request); the owner, if relay_capable (the shim), then fails its calls on it with EXDEV
 * until it has relayed it, and says 0 or -1 with errno. */
int sovia_relay_request(int fd, int on);
void sovia_relay_capable(int on);
/* 1 if this process has opened its NIC for SOVIA (state a fork must hand on). */
int sovia_active(void);
/* 1 if fd is a SOVIA socket. */
int sovia_is_socket(int fd);
/* The socket at descriptor from moves to descriptor to, which the caller made a duplicate
 * of from (the shim, when the application closes SOVIA's own descriptor of a socket it has
 * duplicated); from is then the caller's to close. 0, or -1 with EBADF. */
int sovia_renumber(int from, int to);
/* Whether an IPv4 address (network order) is on the NIC fabric (maps to a node). */
int sovia_addr_on_fabric(unsigned long ip_be);

#ifdef __cplusplus
}
#endif
#endif
