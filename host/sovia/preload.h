/* preload.h: what the LD_PRELOAD shim's files share (preload.c: the descriptor table,
 * addressing and the socket calls; preload_io.c: the data calls; preload_wait.c: poll, select
 * and epoll). The application's descriptor of a SOVIA socket maps to SOVIA's own descriptor;
 * every call on any other descriptor goes to the next definition (libc). */
#ifndef PRELOAD_H
#define PRELOAD_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define PMAXFD 4096
#define NOPT   8

enum { K_KERNEL = 0, K_CAND, K_SOVIA };

struct pl_epoll;

struct pfd {
  unsigned char kind;
  unsigned char nopt;
  bool v6;                                    /* an AF_INET6 socket: names are v4-mapped */
  int sfd;                                    /* SOVIA descriptor (K_SOVIA) */
  struct { int level, name, val; } opt[NOPT]; /* options set while a candidate, replayed */
  struct pl_epoll *ep;                        /* an epoll set with SOVIA members */
};
extern struct pfd pl_tab[PMAXFD];

/* The next definition of a call: static ret (*real_name)(...), loaded on first use. */
#define PL_REAL(ret, name, ...)                                                           \
  static ret (*real_##name)(__VA_ARGS__);                                                 \
  static void load_##name(void) {                                                         \
    if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name);                   \
  }
#define PL_CALL(name) (load_##name(), real_##name)

struct pfd *pl_sov(int fd);                  /* NULL unless fd is a SOVIA socket */
void pl_mark(int fd, int kind);
/* An unsupported use: errno err, and one line on stderr naming the call (once per call and
 * process). Returns -1. */
int pl_unsupported(const char *call, const char *what, int err);
/* IPv4 name of a SOVIA socket as the application's family wants it (v4-mapped for v6). */
void pl_name_out(const struct pfd *p, const struct sockaddr *in, struct sockaddr *out,
                 socklen_t *len);
/* The ports listed in environment variable var (decimal numbers, any separators) as a bitmap of
 * PL_PORT_BYTES bytes, and whether a port is in one; whether an address (network order) is
 * this machine's (0.0.0.0 or 127/8). Shared by the stream (preload.c) and datagram
 * (preload_udp.c) sides. */
#define PL_PORT_BYTES (65536 / 8)
void pl_ports_parse(const char *var, uint8_t *bits);
bool pl_port_in(const uint8_t *bits, unsigned port);
bool pl_ip_local(uint32_t ip_be);
/* An address the fabric takes as IPv4 (AF_INET, or AF_INET6 ::, ::1 and ::ffff:a.b.c.d), as a
 * sockaddr_in in *out; false for any other. */
bool pl_to_v4(const struct sockaddr *a, socklen_t len, struct sockaddr_in *out);
/* Whether the application ever gave a signal handler of its own (preload_sig.c). */
bool pl_signals_handled(void);
/* A descriptor standing for a relayed connection (preload_relay.c): its names (0, or -1 and
 * errno; 1 if fd is no such descriptor), and whether an option of level is one of TCP/IP's,
 * which the unix socket under it does not have. pl_relay_rights relays the SOVIA sockets a
 * message passes (SCM_RIGHTS) before it goes. */
int pl_relay_name(int fd, struct sockaddr *addr, socklen_t *len, bool peer);
bool pl_relay_ip_level(int fd, int level);
void pl_relay_rights(const struct msghdr *m);
/* Relays every connected SOVIA socket; for exec, those the new program gets on its stdin,
 * stdout or stderr (as inetd-style servers hand a connection on: one a child merely
 * inherited, its parent still using it, stays the parent's); nothing in a vfork child. */
void pl_relay_all(bool exec);
/* fd names a connection a relay took over while this process held a copy (its calls fail
 * with EBADF): whether fd, and every descriptor naming the same socket, now hold a stream of
 * the relay's (then the call is the kernel's). */
bool pl_relay_adopt(int fd);
/* fd's connection, which another process asked to share (its calls fail with EXDEV), goes to
 * a relay now: whether fd is a kernel socket after it. */
bool pl_relay_now(int fd);
void pl_epoll_forget(int fd);                /* fd closes: out of every epoll set */
void pl_epoll_free(int epfd);                /* an epoll descriptor closes */
void pl_epoll_to_kernel(int fd);             /* fd became a kernel socket: into the kernel sets */

#endif
