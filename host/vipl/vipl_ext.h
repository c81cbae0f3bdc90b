/* vipl_ext.h: Verinic's additions to VIPL, beyond the VIA 1.0 specification. A VIA program
 * needs none of them; SOVIA uses them where fork() shares a VI's memory between processes,
 * to tell a NIC it may not open from one that is not there, and to wait for messages only. */
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

/* Makes process Pid the VI's owner: nicd reaps a VI when its owner ends (the peer's calls then
 * fail), so a process that takes over a VI another one created and shares with it after a
 * fork names itself (or, letting it go, the process that keeps it). VIP_INVALID_STATE when the
 * VI is gone from the NIC (its owner died and nicd reaped it: its connection is lost),
 * VIP_INVALID_PARAMETER for a bad handle or a Pid not alive. */
VIP_RETURN VipxSetViOwner(VIP_VI_HANDLE ViHandle, VIP_ULONG Pid);

/* Gives a request VipConnectWait returned back to the connection manager instead of accepting
 * or rejecting it (the handle is freed): the next VipConnectWait on the same address, in any
 * process, gets it, and its requester goes on waiting. For a process that stops serving an
 * address others still serve (SOVIA's copy of a listener closed after a fork).
 * VIP_NO_MATCH if the request is gone (its requester gave up). */
VIP_RETURN VipxConnectPass(VIP_CONN_HANDLE ConnHandle);

/* Completes with VIP_STATUS_DESC_FLUSHED_ERROR the descriptors posted on an idle VI, so that
 * VipDestroyVi may take it: for a connection request that failed or timed out after its
 * receives were posted, which VipDisconnect refuses (the VI is not connected) and which
 * VipDestroyVi refuses while they are outstanding. VIP_INVALID_STATE for a VI that is not
 * idle, or a datagram VI (E-UDP: the NIC fills an idle one's receives). */
VIP_RETURN VipxFlushIdleVi(VIP_VI_HANDLE ViHandle);

/* VipCQWait with flags. VIPX_CQ_RECV_ONLY: sleep only until a member receive queue signals,
 * so that a send completion alone does not wake it (one already there when it looks is still
 * reported): for a caller that waits for a message and reaps its sends by polling, as native
 * VIA programs pair VipRecvWait with VipSendDone (a wake-up per send completion cost SOVIA's
 * ping-pong a second sleep per message). VIPX_CQ_ONCE: VIP_TIMEOUT before Timeout when a
 * sleep ends without a completion for it: a signal interrupted it, or another thread waiting
 * on the same signal took it. A caller that keeps its own state (SOVIA: one thread's progress
 * may have served another's socket) then looks at it at once, and can sleep in slices longer
 * than the clock tick: a 1 ms slice re-armed the CPU's timer at every sleep and cost SOVIA's
 * ping-pong about 6 us per message on this VM (host/sovia/README.md, "Latency"). */
#define VIPX_CQ_RECV_ONLY 1u
#define VIPX_CQ_ONCE      2u
VIP_RETURN VipxCQWaitEx(VIP_CQ_HANDLE CQHandle, VIP_ULONG Timeout, VIP_ULONG Flags,
                        VIP_VI_HANDLE *ViHandle, VIP_BOOLEAN *RecvQueue);

#endif
