/* VIPL name service: the hosts file (iface/naming.h; format in iface/README.md), first match
 * wins ($VERINIC_HOSTS, else $VERINIC_RUN/hosts). A malformed file is VIP_ERROR_NAMESERVICE.
 * A name missing from the file is asked of nicd (RESOLVE) before giving up. NameIndex picks
 * among several lines for one name. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "naming.h"
#include "vipl_internal.h"

VIP_RETURN VipNSInit(VIP_NIC_HANDLE NicHandle, VIP_PVOID NSInitInfo) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n) return VIP_INVALID_PARAMETER;
  if (NSInitInfo) snprintf(n->hosts_path, sizeof n->hosts_path, "%s", (const char *)NSInitInfo);
  else if (naming_hosts_path(n->hosts_path, sizeof n->hosts_path) != 0) return VIP_INVALID_PARAMETER;
  n->ns_ready = true;
  return VIP_SUCCESS;
}

VIP_RETURN VipNSShutdown(VIP_NIC_HANDLE NicHandle) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n) return VIP_INVALID_PARAMETER;
  if (!n->ns_ready) return VIP_ERROR_NAMESERVICE;
  n->ns_ready = false;
  return VIP_SUCCESS;
}

/* Calls fn on every entry of the file until it returns non-zero: 0, or -EINVAL (malformed)
 * or -errno (unreadable). */
static int hosts_scan(const char *path, int (*fn)(void *, const char *, unsigned), void *ctx) {
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  int rc = naming_hosts_load(path, &h, err, sizeof err);
  for (unsigned i = 0; rc == 0 && i < h.n; i++)
    if (fn(ctx, h.e[i].name, h.e[i].node)) break;
  naming_hosts_free(&h);
  return rc;
}

struct by_name { const char *name; unsigned index, node; bool found; };
static int match_name(void *ctx, const char *name, unsigned node) {
  struct by_name *b = ctx;
  if (strcmp(name, b->name) != 0) return 0;
  if (b->index--) return 0;
  b->node = node;
  b->found = true;
  return 1;
}

VIP_RETURN VipNSGetHostByName(VIP_NIC_HANDLE NicHandle, VIP_CHAR *Name, VIP_NET_ADDRESS *Address,
                              VIP_ULONG NameIndex) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  if (!n || !Name || !Address || !*Name || strlen(Name) > 200) return VIP_INVALID_PARAMETER;
  if (!n->ns_ready) return VIP_ERROR_NAMESERVICE;
  struct by_name b = {.name = Name, .index = (unsigned)NameIndex};
  if (hosts_scan(n->hosts_path, match_name, &b) == -EINVAL) return VIP_ERROR_NAMESERVICE;
  if (!b.found && NameIndex == 0 && !strpbrk(Name, " \n")) {
    int fd = vipl_cm_open();
    if (fd >= 0) {
      char line[256], reply[256];
      snprintf(line, sizeof line, "RESOLVE %s\n", Name);
      if (vipl_cm_call(fd, line, reply, sizeof reply, 5000000000ll) == 0 &&
          sscanf(reply, "OK %u", &b.node) == 1 && b.node <= 0xffff)
        b.found = true;
      close(fd);
    }
  }
  if (!b.found) return VIP_NO_MATCH;
  vipl_addr_set_host(Address, b.node);   /* the discriminator is the caller's (VIA 1.0) */
  return VIP_SUCCESS;
}

struct by_node { unsigned node; char name[256]; bool found; };
static int match_node(void *ctx, const char *name, unsigned node) {
  struct by_node *b = ctx;
  if (node != b->node) return 0;
  snprintf(b->name, sizeof b->name, "%s", name);
  b->found = true;
  return 1;
}

VIP_RETURN VipNSGetHostByAddr(VIP_NIC_HANDLE NicHandle, VIP_NET_ADDRESS *Address, VIP_CHAR *Name,
                              VIP_ULONG *NameLen) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  struct by_node b = {0};
  if (!n || !Name || !NameLen || vipl_addr_node(Address, &b.node)) return VIP_INVALID_PARAMETER;
  if (!n->ns_ready) return VIP_ERROR_NAMESERVICE;
  if (hosts_scan(n->hosts_path, match_node, &b) == -EINVAL) return VIP_ERROR_NAMESERVICE;
  if (!b.found) return VIP_NO_MATCH;
  size_t need = strlen(b.name) + 1;
  if (*NameLen < need) {
    *NameLen = need;
    return VIP_ERROR_RESOURCE;
  }
  memcpy(Name, b.name, need);
  *NameLen = need;
  return VIP_SUCCESS;
}
