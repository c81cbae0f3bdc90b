/* preload_udp.h: the shim's datagram sockets over E-UDP (preload_udp.c, host/eudp/README.md).
 * socket(AF_INET or AF_INET6, SOCK_DGRAM) makes a kernel socket and marks it a UDP candidate;
 * bind (a port in $SOVIA_PRELOAD_UDP_PORTS, or a fabric address), connect or a first sendto (a
 * fabric address, or a port in the list on a loopback/any address) turn it into an E-UDP
 * socket. The other calls of preload*.c hand E-UDP descriptors here. */
#ifndef PRELOAD_UDP_H
#define PRELOAD_UDP_H

#include <stdbool.h>
#include <sys/socket.h>

bool pl_udp(int fd);                         /* an E-UDP socket */
bool pl_udp_cand(int fd);                    /* a UDP candidate */
void pl_udp_mark(int fd);                    /* socket() made a UDP socket: a candidate */
/* bind/connect of a candidate or an E-UDP socket: *done false when it stays the kernel's (the
 * caller calls the kernel), else the result (0, or -1 and errno). */
int pl_udp_bind(int fd, const struct sockaddr *a, socklen_t len, bool *done);
int pl_udp_connect(int fd, const struct sockaddr *a, socklen_t len, bool *done);
int pl_udp_close(int fd);
int pl_udp_dup(int oldfd, int newfd);        /* newfd (the kernel's dup of oldfd) names it too */
int pl_udp_name(int fd, struct sockaddr *a, socklen_t *len, bool peer);
/* The data calls. sendmsg of a candidate: *done false when it stays the kernel's. */
ssize_t pl_udp_sendmsg(int fd, const struct msghdr *m, int flags, bool *done);
ssize_t pl_udp_recvmsg(int fd, struct msghdr *m, int flags);

#endif
