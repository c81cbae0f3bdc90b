/* vipl_ext.h: Verinic's additions to VIPL, beyond the VIA 1.0 specification. A VIA program
 * needs none of them; SOVIA uses them where fork() shares a VI's memory between processes,
 * and to tell a NIC it may not open from one that is not there. */
#ifndef VIPL_EXT_H
#define VIPL_EXT_H

#include "vipl.h"

/* Ends this process's registration of memory another process shares after a fork and will
 * deregister itself: the handle is freed here, the NIC's view of the memory is left alone
 * (VipDeregisterMem would take it from the other process too). */
VIP_RETURN VipxForgetMem(VIP_NIC_HANDLE NicHandle, VIP_PVOID VirtualAddress,
                         VIP_MEM_HANDLE MemoryHandle);

/* Why the calling thread's last VipOpenNic failed, as an errno value: EACCES when the NIC's
 * window leaves this process's user out (nicd --mode, --group), ENODEV for no such NIC, ... 0
 * after a success. VipOpenNic itself returns what the specification lists. */
int VipxOpenNicErrno(void);

#endif
