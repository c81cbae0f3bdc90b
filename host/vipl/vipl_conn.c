/* VIPL: the client/server connection model over nicd's connection manager. nicd pairs the
 * two VIs by writing both VI table entries; libnic then sees CONNECTED in its own entry. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vipl_ext.h"
#include "vipl_internal.h"

VIP_RETURN vipl_cm_error(const char *reply) {
  if (strncmp(reply, "ERR REJECTED", 12) == 0) return VIP_REJECT;
  if (strncmp(reply, "ERR STATE", 9) == 0) return VIP_INVALID_STATE;
  if (strncmp(reply, "ERR NOMATCH", 11) == 0) return VIP_NO_MATCH;
  if (strncmp(reply, "ERR NONIC", 9) == 0) return VIP_NO_MATCH;
  if (strncmp(reply, "ERR INVAL", 9) == 0) return VIP_INVALID_PARAMETER;
  return VIP_ERROR_RESOURCE;
}

VIP_RETURN VipConnectWait(VIP_NIC_HANDLE NicHandle, VIP_NET_ADDRESS *LocalAddr, VIP_ULONG Timeout,
                          VIP_NET_ADDRESS *RemoteAddr, VIP_VI_ATTRIBUTES *RemoteViAttribs,
                          VIP_CONN_HANDLE *ConnHandle) {
  struct vnic *n = vh_get(NicHandle, VH_NIC);
  unsigned node;
  if (!n || !LocalAddr || !RemoteAddr || !ConnHandle || vipl_addr_node(LocalAddr, &node) ||
      node != n->dev->node)
    return VIP_INVALID_PARAMETER;
  char disc[80], line[160], reply[256];
  vipl_addr_disc_hex(LocalAddr, disc, sizeof disc);
  int fd = vipl_cm_open();
  if (fd < 0) return VIP_ERROR_RESOURCE;
  snprintf(line, sizeof line, "WAIT %u %s\n", node, disc);
  int rc = vipl_cm_call(fd, line, reply, sizeof reply, vipl_timeout_ns(Timeout));
  unsigned id, rnode, rvi, rel;
  char rdisc[80];
  if (rc == 0 && sscanf(reply, "OK REQUEST %u %u %u %79s %u", &id, &rnode, &rvi, rdisc, &rel) != 5)
    rc = -EPROTO;
  if (rc) {
    close(fd);
    if (rc == -ETIMEDOUT) return VIP_TIMEOUT;
    return rc == -EPROTO ? vipl_cm_error(reply) : VIP_ERROR_RESOURCE;
  }
  struct vconn *c = calloc(1, sizeof *c);
  if (!c || vipl_addr_fill(RemoteAddr, rnode, rdisc) || !(c->handle = vh_new(VH_CONN, c))) {
    free(c);
    close(fd);
    return VIP_ERROR_RESOURCE;
  }
  c->nic = n;
  c->fd = fd;
  c->id = id;
  c->rnode = rnode;
  c->rvi = rvi;
  c->rel = rel;
  if (RemoteViAttribs) {
    memset(RemoteViAttribs, 0, sizeof *RemoteViAttribs);
    RemoteViAttribs->ReliabilityLevel = vipl_rel_from_hostif(rel);
    RemoteViAttribs->MaxTransferSize = HOSTIF_MAX_XFER;
  }
  *ConnHandle = c->handle;
  return VIP_SUCCESS;
}

static void conn_free(struct vconn *c) {
  vh_free(c->handle);
  close(c->fd);
  free(c);
}

VIP_RETURN VipConnectAccept(VIP_CONN_HANDLE ConnHandle, VIP_VI_HANDLE ViHandle) {
  struct vconn *c = vh_get(ConnHandle, VH_CONN);
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!c || !v || v->nic != c->nic) return VIP_INVALID_PARAMETER;
  if (lnic_vi_state(v->lv) != HOSTIF_VI_IDLE) return VIP_INVALID_STATE;
  if (v->lv->reliability != c->rel) return VIP_INVALID_RELIABILITY_LEVEL;
  lnic_lock(v->nic->dev);
  if (vipl_peer_pending(v)) {   /* a peer request has the VI */
    lnic_unlock(v->nic->dev);
    return VIP_INVALID_STATE;
  }
  lnic_vi_resync(v->lv);   /* a flushed earlier connection left the NIC's indices behind */
  lnic_unlock(v->nic->dev);
  char line[96], reply[256];
  snprintf(line, sizeof line, "ACCEPT %u %u %u\n", c->id, (unsigned)v->nic->dev->node, v->lv->idx);
  int rc = vipl_cm_call_now(c->fd, line, reply, sizeof reply, 10000000000ll);
  VIP_RETURN r = rc ? VIP_ERROR_RESOURCE
                    : strncmp(reply, "OK CONNECTED", 12) == 0 ? VIP_SUCCESS : vipl_cm_error(reply);
  conn_free(c);   /* nicd answers the requester either way */
  return r;
}

/* REJECT or PASS: the request's answer; the handle is freed. */
static VIP_RETURN conn_answer(VIP_CONN_HANDLE ConnHandle, const char *verb) {
  struct vconn *c = vh_get(ConnHandle, VH_CONN);
  if (!c) return VIP_INVALID_PARAMETER;
  char line[64], reply[256];
  snprintf(line, sizeof line, "%s %u\n", verb, c->id);
  int rc = vipl_cm_call_now(c->fd, line, reply, sizeof reply, 10000000000ll);
  conn_free(c);
  return rc ? VIP_ERROR_RESOURCE : strncmp(reply, "OK", 2) == 0 ? VIP_SUCCESS : vipl_cm_error(reply);
}

VIP_RETURN VipConnectReject(VIP_CONN_HANDLE ConnHandle) { return conn_answer(ConnHandle, "REJECT"); }

VIP_RETURN VipxConnectPass(VIP_CONN_HANDLE ConnHandle) { return conn_answer(ConnHandle, "PASS"); }

VIP_RETURN VipConnectRequest(VIP_VI_HANDLE ViHandle, VIP_NET_ADDRESS *LocalAddr,
                             VIP_NET_ADDRESS *RemoteAddr, VIP_ULONG Timeout,
                             VIP_VI_ATTRIBUTES *RemoteViAttribs) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  unsigned rnode;
  if (!v || !RemoteAddr || vipl_addr_node(RemoteAddr, &rnode)) return VIP_INVALID_PARAMETER;
  if (lnic_vi_state(v->lv) != HOSTIF_VI_IDLE) return VIP_INVALID_STATE;
  char rdisc[80], mydisc[80], line[256], reply[256];
  vipl_addr_disc_hex(RemoteAddr, rdisc, sizeof rdisc);
  if (LocalAddr) vipl_addr_disc_hex(LocalAddr, mydisc, sizeof mydisc);
  else snprintf(mydisc, sizeof mydisc, "-");
  lnic_lock(v->nic->dev);
  if (vipl_peer_pending(v)) {
    lnic_unlock(v->nic->dev);
    return VIP_INVALID_STATE;
  }
  lnic_vi_resync(v->lv);
  lnic_unlock(v->nic->dev);
  int fd = vipl_cm_open();
  if (fd < 0) return VIP_ERROR_RESOURCE;
  snprintf(line, sizeof line, "CONNECT %u %u %u %s %s\n", (unsigned)v->nic->dev->node,
           v->lv->idx, rnode, rdisc, mydisc);
  v->pending_connect = true;
  int rc = vipl_cm_call(fd, line, reply, sizeof reply, vipl_timeout_ns(Timeout));
  close(fd);
  v->pending_connect = false;
  if (rc == -ETIMEDOUT) return VIP_TIMEOUT;
  if (rc) return VIP_ERROR_RESOURCE;
  unsigned pn, pvi;
  if (sscanf(reply, "OK CONNECTED %u %u", &pn, &pvi) != 2) return vipl_cm_error(reply);
  if (RemoteViAttribs) {
    memset(RemoteViAttribs, 0, sizeof *RemoteViAttribs);
    RemoteViAttribs->ReliabilityLevel = v->attrs.ReliabilityLevel;
    RemoteViAttribs->MaxTransferSize = HOSTIF_MAX_XFER;
  }
  return VIP_SUCCESS;
}

VIP_RETURN VipxFlushIdleVi(VIP_VI_HANDLE ViHandle) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v) return VIP_INVALID_PARAMETER;
  lnic_lock(v->nic->dev);
  int rc = lnic_vi_flush_idle(v->lv);
  lnic_unlock(v->nic->dev);
  return rc ? VIP_INVALID_STATE : VIP_SUCCESS;
}

VIP_RETURN VipDisconnect(VIP_VI_HANDLE ViHandle) {
  struct vvi *v = vh_get(ViHandle, VH_VI);
  if (!v) return VIP_INVALID_PARAMETER;
  uint32_t st = lnic_vi_state(v->lv);
  if (st != HOSTIF_VI_CONNECTED && st != HOSTIF_VI_ERROR) return VIP_INVALID_STATE;
  int fd = vipl_cm_open();
  if (fd < 0) return VIP_ERROR_RESOURCE;
  char line[64], reply[256];
  snprintf(line, sizeof line, "DISCONNECT %u %u\n", (unsigned)v->nic->dev->node, v->lv->idx);
  int rc = vipl_cm_call(fd, line, reply, sizeof reply, 10000000000ll);
  close(fd);
  if (rc) return VIP_ERROR_RESOURCE;
  if (strncmp(reply, "OK", 2) != 0) return vipl_cm_error(reply);
  /* Whatever the NIC has not completed by now is flushed (VIP_STATUS_DESC_FLUSHED_ERROR). */
  lnic_lock(v->nic->dev);
  lnic_wq_flush(v->lv, NIC_SQ, HOSTIF_ST_FLUSHED);
  lnic_wq_flush(v->lv, NIC_RQ, HOSTIF_ST_FLUSHED);
  v->conn_lost = false;   /* a later connection's break is reported again */
  lnic_unlock(v->nic->dev);
  return VIP_SUCCESS;
}
