/* The specification's optional calls Verinic does not provide: each says so with
 * VIP_ERROR_NOT_SUPPORTED (after checking its handle), rather than pretending. System
 * management information has no counterpart in nicd. (The notification calls are in
 * vipl_notify.c, the peer-to-peer connection model in vipl_peer.c.) */
#include "vipl_internal.h"

VIP_RETURN VipQuerySystemManagementInfo(VIP_NIC_HANDLE NicHandle, VIP_ULONG InfoType,
                                        VIP_PVOID SysManInfo) {
  (void)InfoType, (void)SysManInfo;
  return vh_get(NicHandle, VH_NIC) ? VIP_ERROR_NOT_SUPPORTED : VIP_INVALID_PARAMETER;
}
