/* sv_addr.c: SOVIA addressing. An IPv4 address maps to a NIC node by the Verinic hosts file
 * / name service: the dotted quad is looked up as a host name (a line "10.0.0.2 1" puts
 * 10.0.0.2 on node 1); 127.0.0.0/8 and 0.0.0.0 mean this process's own node. A port is the
 * VIA discriminator "SV" + port (4 bytes). The reverse map (getsockname/accept) gives the
 * first dotted-quad name of the node in the hosts file, else 127.0.0.1. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stddef.h>

#include "naming.h"
#include "sv_int.h"

uint8_t *sv_addr_bytes(VIP_NET_ADDRESS *a) {
  return (uint8_t *)a + offsetof(VIP_NET_ADDRESS, HostAddress);
}

void sv_run_path(const char *file, char *out, size_t cap) { naming_run_path(file, out, cap); }

int sv_addr_node(const struct sockaddr_in *a, unsigned *node) {
  uint32_t ip = ntohl(a->sin_addr.s_addr);
  if (ip == 0 || (ip >> 24) == 127) {
    *node = G.node;
    return 0;
  }
  char name[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a->sin_addr, name, sizeof name);
  struct { VIP_NET_ADDRESS a; uint8_t more[8]; } na;
  if (VipNSGetHostByName(G.nic, name, &na.a, 0) != VIP_SUCCESS) return -EHOSTUNREACH;
  const uint8_t *h = sv_addr_bytes(&na.a);
  *node = ((unsigned)h[0] << 8) | h[1];
  return 0;
}

bool sv_node_elsewhere(unsigned node) {
  char path[300], err[NAMING_ERR_LEN];
  struct naming_hosts h;
  if (node == G.node || naming_hosts_path(path, sizeof path) ||
      naming_hosts_load(path, &h, err, sizeof err))
    return false;
  const struct naming_entry *them = naming_addr(&h, node), *us = naming_addr(&h, G.node);
  bool far = them && us && (them->port != us->port || strcmp(them->host, us->host) != 0);
  naming_hosts_free(&h);
  return far;
}

void sv_addr_of_node(unsigned node, unsigned port, struct sockaddr_in *out) {
  memset(out, 0, sizeof *out);
  out->sin_family = AF_INET;
  out->sin_port = htons((uint16_t)port);
  out->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  char path[300], err[NAMING_ERR_LEN];
  struct naming_hosts h;
  if (naming_hosts_path(path, sizeof path) || naming_hosts_load(path, &h, err, sizeof err)) return;
  struct in_addr ia;
  for (unsigned i = 0; i < h.n; i++)
    if (h.e[i].node == node && inet_pton(AF_INET, h.e[i].name, &ia) == 1) {
      out->sin_addr = ia;
      break;
    }
  naming_hosts_free(&h);
}

void sv_disc(unsigned node, unsigned port, VIP_NET_ADDRESS *a) {
  a->HostAddressLen = 2;
  a->DiscriminatorLen = 4;
  uint8_t *p = sv_addr_bytes(a);
  p[0] = (uint8_t)(node >> 8);
  p[1] = (uint8_t)node;
  p[2] = 'S';
  p[3] = 'V';
  p[4] = (uint8_t)(port >> 8);
  p[5] = (uint8_t)port;
}

int sovia_addr_on_fabric(unsigned long ip_be) {
  sv_lock();
  int ok = sv_init() == 0;
  if (ok) {
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = (in_addr_t)ip_be;
    unsigned node;
    ok = sv_addr_node(&a, &node) == 0;
  }
  sv_unlock();
  return ok;
}
