/* The specification's optional calls Verinic does not provide: each says so with
 * VIP_ERROR_NOT_SUPPORTED (after checking its handle), rather than pretending. The
 * peer-to-peer connection model and system management information have no counterpart in
 * nicd. (The notification calls are in vipl_notify.c.) */
#include "vipl_internal.h"

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
