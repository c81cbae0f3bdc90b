/* The specification's optional calls Verinic does not provide: each says so with
 * VIP_ERROR_NOT_SUPPORTED (after checking its handle), rather than pretending. Notification
 * handlers need a provider thread; the peer-to-peer connection model and system management
 * information have no counterpart in nicd. */
#include "vipl_internal.h"

VIP_RETURN VipSendNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context,
                         void (*Handler)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_DESCRIPTOR *)) {
  (void)Context;
  if (!vh_get(ViHandle, VH_VI) || !Handler) return VIP_INVALID_PARAMETER;
  return VIP_ERROR_NOT_SUPPORTED;
}

VIP_RETURN VipRecvNotify(VIP_VI_HANDLE ViHandle, VIP_PVOID Context,
                         void (*Handler)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_DESCRIPTOR *)) {
  (void)Context;
  if (!vh_get(ViHandle, VH_VI) || !Handler) return VIP_INVALID_PARAMETER;
  return VIP_ERROR_NOT_SUPPORTED;
}

VIP_RETURN VipCQNotify(VIP_CQ_HANDLE CQHandle, VIP_PVOID Context,
                       void (*Handler)(VIP_PVOID, VIP_NIC_HANDLE, VIP_VI_HANDLE, VIP_BOOLEAN)) {
  (void)Context;
  if (!vh_get(CQHandle, VH_CQ) || !Handler) return VIP_INVALID_PARAMETER;
  return VIP_ERROR_NOT_SUPPORTED;
}

VIP_RETURN VipConnectPeerRequest(VIP_VI_HANDLE ViHandle, VIP_NET_ADDRESS *LocalAddr,
                                 VIP_NET_ADDRESS *RemoteAddr, VIP_ULONG Timeout) {
  (void)LocalAddr, (void)RemoteAddr, (void)Timeout;
  return vh_get(ViHandle, VH_VI) ? VIP_ERROR_NOT_SUPPORTED : VIP_INVALID_PARAMETER;
}

VIP_RETURN VipConnectPeerDone(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteViAttribs) {
  (void)RemoteViAttribs;
  return vh_get(ViHandle, VH_VI) ? VIP_ERROR_NOT_SUPPORTED : VIP_INVALID_PARAMETER;
}

VIP_RETURN VipConnectPeerWait(VIP_VI_HANDLE ViHandle, VIP_VI_ATTRIBUTES *RemoteViAttribs) {
  (void)RemoteViAttribs;
  return vh_get(ViHandle, VH_VI) ? VIP_ERROR_NOT_SUPPORTED : VIP_INVALID_PARAMETER;
}

VIP_RETURN VipQuerySystemManagementInfo(VIP_NIC_HANDLE NicHandle, VIP_ULONG InfoType,
                                        VIP_PVOID SysManInfo) {
  (void)InfoType, (void)SysManInfo;
  return vh_get(NicHandle, VH_NIC) ? VIP_ERROR_NOT_SUPPORTED : VIP_INVALID_PARAMETER;
}
