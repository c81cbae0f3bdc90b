/* svtest.h: helpers shared by the SOVIA library tests (svtest.c). svt_setup starts a private
 * nicd with two NICs (run directory, window prefix, hosts file 10.77.0.1 -> node 0,
 * 10.77.0.2 -> node 1); run_pair runs a server on NIC 0 and a client on NIC 1 as processes
 * (each under alarm); streams follow a pattern (pat) that the receiver checks. */
#ifndef SVTEST_H
#define SVTEST_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int svt_setup(const char *tag);       /* 0 when nicd is up */
void svt_teardown(void);
double now_s(void);
void use_nic(int n);                  /* SOVIA_NIC for this process */
struct sockaddr_in addr_of(const char *ip, unsigned port);
int listen_on(unsigned port);         /* on 10.77.0.1 (NIC 0), backlog 16 */
int connect_to(unsigned port);        /* to 10.77.0.1, retried while refused */
uint8_t pat(uint64_t i, unsigned seed);   /* byte i of stream seed */
int write_all(int s, const uint8_t *b, size_t n);
/* n bytes of stream seed in writes of piece (varied if 0); 0 or -1. */
int send_stream(int s, uint64_t n, unsigned seed, size_t piece);
/* exactly n bytes with random partial reads: 0 if they match, then end-of-file if asked. */
int recv_stream(int s, uint64_t n, unsigned seed, bool eof_expected);
/* server() on NIC 0 and client() on NIC 1 as processes: true if both exit 0 within secs. */
bool run_pair(int (*server)(void *), int (*client)(void *), void *arg, int secs);

#endif
