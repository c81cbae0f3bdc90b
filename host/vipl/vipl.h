/* vipl.h: the VI Provider Library interface of the Virtual Interface Architecture
 * Specification 1.0 (Compaq, Intel, Microsoft, 1997), chapter "VI Provider Library", with
 * the specification's names, types, constants and return codes, so that programs written
 * for M-VIA or cLAN compile unchanged against Verinic's VIPL (host/vipl/README.md says what
 * is provided and how it maps onto the emulated NIC).
 *
 * Return codes after VIP_NO_MATCH are extensions: VIP_NOT_REACHABLE and
 * VIP_ERROR_NOT_SUPPORTED as cLAN numbers them, then Verinic's VIP_PROTECTION_ERROR. */
#ifndef _VIPL_H
#define _VIPL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif

/* ---- generic types ---- */
typedef void *VIP_PVOID;
typedef int VIP_BOOLEAN;
typedef char VIP_CHAR;
typedef unsigned char VIP_UCHAR;
typedef unsigned short VIP_USHORT;
typedef unsigned long VIP_ULONG;
typedef uint64_t VIP_UINT64;
typedef uint32_t VIP_UINT32;
typedef uint16_t VIP_UINT16;
typedef uint8_t VIP_UINT8;
typedef VIP_PVOID VIP_QOS;            /* not defined by the specification */

#define VIP_TRUE  (1)
#define VIP_FALSE (0)

/* Timeouts are in milliseconds; VIP_INFINITE waits without limit. */
#define VIP_INFINITE ((VIP_ULONG)0xFFFFFFFFUL)

/* ---- handles ---- */
typedef VIP_PVOID VIP_NIC_HANDLE;
typedef VIP_PVOID VIP_VI_HANDLE;
typedef VIP_PVOID VIP_PROTECTION_HANDLE;
typedef VIP_PVOID VIP_CONN_HANDLE;
typedef VIP_PVOID VIP_CQ_HANDLE;
typedef VIP_UINT32 VIP_MEM_HANDLE;    /* used by the NIC hardware */

/* ---- network address: host address bytes followed by the discriminator bytes ---- */
typedef struct {
  VIP_UINT16 HostAddressLen;
  VIP_UINT16 DiscriminatorLen;
  VIP_UINT8 HostAddress[1];
} VIP_NET_ADDRESS;

/* ---- reliability levels (bit values) ---- */
typedef VIP_USHORT VIP_RELIABILITY_LEVEL;
#define VIP_SERVICE_UNRELIABLE         0x01
#define VIP_SERVICE_RELIABLE_DELIVERY  0x02
#define VIP_SERVICE_RELIABLE_RECEPTION 0x04

/* ---- NIC attributes (VipQueryNic) ---- */
typedef struct {
  VIP_CHAR Name[64];
  VIP_ULONG HardwareVersion;
  VIP_ULONG ProviderVersion;
  VIP_UINT16 NicAddressLen;
  const VIP_UINT8 *LocalNicAddress;
  VIP_BOOLEAN ThreadSafe;
  VIP_UINT16 MaxDiscriminatorLen;
  VIP_ULONG MaxRegisterBytes;
  VIP_ULONG MaxRegisterRegions;
  VIP_ULONG MaxRegisterBlockBytes;
  VIP_ULONG MaxVI;
  VIP_ULONG MaxDescriptorsPerQueue;
  VIP_ULONG MaxSegmentsPerDesc;
  VIP_ULONG MaxCQ;
  VIP_ULONG MaxCQEntries;
  VIP_ULONG MaxTransferSize;
  VIP_ULONG NativeMTU;
  VIP_ULONG MaxPtags;
  VIP_RELIABILITY_LEVEL ReliabilityLevelSupport;
  VIP_RELIABILITY_LEVEL RDMAReadSupport;
} VIP_NIC_ATTRIBUTES;

/* ---- descriptors ---- */
#define VIP_DESCRIPTOR_ALIGNMENT 64

typedef union {
  VIP_UINT64 AddressBits;
  VIP_PVOID Address;
} VIP_PVOID64;

typedef struct {
  VIP_PVOID64 Next;
  VIP_MEM_HANDLE NextHandle;
  VIP_UINT16 SegCount;
  VIP_UINT16 Control;
  VIP_UINT32 Reserved;
  VIP_UINT32 ImmediateData;
  VIP_UINT32 Length;
  VIP_UINT32 Status;
} VIP_CONTROL_SEGMENT;

typedef struct {                      /* RDMA: the remote buffer */
  VIP_PVOID64 Data;
  VIP_MEM_HANDLE Handle;
  VIP_UINT32 Reserved;
} VIP_ADDRESS_SEGMENT;

typedef struct {                      /* a local buffer */
  VIP_PVOID64 Data;
  VIP_MEM_HANDLE Handle;
  VIP_UINT32 Length;
} VIP_DATA_SEGMENT;

typedef union {
  VIP_ADDRESS_SEGMENT Remote;
  VIP_DATA_SEGMENT Local;
} VIP_DESCRIPTOR_SEGMENT;

/* A descriptor: the control segment, then SegCount segments (an address segment first for
 * RDMA). Programs needing more than two allocate room for them after the structure. */
typedef struct _VIP_DESCRIPTOR {
  VIP_CONTROL_SEGMENT CS;
  VIP_DESCRIPTOR_SEGMENT DS[2];
} VIP_DESCRIPTOR;

/* CS.Control */
#define VIP_CONTROL_OP_SENDRECV  0x0000
#define VIP_CONTROL_OP_RDMAWRITE 0x0001
#define VIP_CONTROL_OP_RDMAREAD  0x0002
#define VIP_CONTROL_OP_RESERVED  0x0003
#define VIP_CONTROL_OP_MASK      0x0003
#define VIP_CONTROL_IMMEDIATE    0x0004
#define VIP_CONTROL_QFENCE       0x0008
#define VIP_CONTROL_RESERVED     0xFFF0

/* CS.Status */
#define VIP_STATUS_DONE                 0x00000001
#define VIP_STATUS_FORMAT_ERROR         0x00000002
#define VIP_STATUS_PROTECTION_ERROR     0x00000004
#define VIP_STATUS_LENGTH_ERROR         0x00000008
#define VIP_STATUS_PARTIAL_ERROR        0x00000010
#define VIP_STATUS_DESC_FLUSHED_ERROR   0x00000020
#define VIP_STATUS_TRANSPORT_ERROR      0x00000040
#define VIP_STATUS_RDMA_PROT_ERROR      0x00000080
#define VIP_STATUS_REMOTE_DESC_ERROR    0x00000100
#define VIP_STATUS_ERROR_MASK           0x000001FE
#define VIP_STATUS_OP_SEND              0x00000000
#define VIP_STATUS_OP_RECEIVE           0x00010000
#define VIP_STATUS_OP_RDMA_WRITE        0x00020000
#define VIP_STATUS_OP_REMOTE_RDMA_WRITE 0x00030000
#define VIP_STATUS_OP_RDMA_READ         0x00040000
#define VIP_STATUS_OP_MASK              0x00070000
#define VIP_STATUS_IMMEDIATE            0x00080000
#define VIP_STATUS_RESERVED             0xFFF0FE00

/* ---- VIs ---- */
typedef enum {
  VIP_STATE_IDLE,
  VIP_STATE_CONNECTED,
  VIP_STATE_CONNECT_PENDING,
  VIP_STATE_ERROR
} VIP_VI_STATE;

typedef struct {
  VIP_RELIABILITY_LEVEL ReliabilityLevel;
  VIP_ULONG MaxTransferSize;
  VIP_QOS QoS;
  VIP_PROTECTION_HANDLE Ptag;
  VIP_BOOLEAN EnableRdmaWrite;
  VIP_BOOLEAN EnableRdmaRead;
} VIP_VI_ATTRIBUTES;

/* ---- memory ---- */
typedef struct _VIP_MEM_ATTRIBUTES {
  VIP_PROTECTION_HANDLE Ptag;
  VIP_BOOLEAN EnableRdmaWrite;
  VIP_BOOLEAN EnableRdmaRead;
} VIP_MEM_ATTRIBUTES;

/* ---- asynchronous errors ---- */
typedef enum _VIP_ERROR_CODE {
  VIP_ERROR_POST_DESC,
  VIP_ERROR_CONN_LOST,
  VIP_ERROR_RECVQ_EMPTY,
  VIP_ERROR_VI_OVERRUN,
  VIP_ERROR_RDMAW_PROT,
  VIP_ERROR_RDMAW_DATA,
  VIP_ERROR_RDMAW_ABORT,
  VIP_ERROR_RDMAR_PROT,
  VIP_ERROR_COMP_PROT,
  VIP_ERROR_RDMA_TRANSPORT,
  VIP_ERROR_CATASTROPHIC
} VIP_ERROR_CODE;

typedef enum _VIP_RESOURCE_CODE {
  VIP_RESOURCE_NIC,
  VIP_RESOURCE_VI,
  VIP_RESOURCE_CQ,
  VIP_RESOURCE_DESCRIPTOR
} VIP_RESOURCE_CODE;

typedef struct _VIP_ERROR_DESCRIPTOR {
  VIP_NIC_HANDLE NicHandle;
  VIP_VI_HANDLE ViHandle;
  VIP_CQ_HANDLE CQHandle;
  VIP_DESCRIPTOR *DescriptorPtr;
  VIP_ULONG OpCode;
  VIP_RESOURCE_CODE ResourceCode;
  VIP_ERROR_CODE ErrorCode;
} VIP_ERROR_DESCRIPTOR;

/* ---- return codes ---- */
typedef enum {
  VIP_SUCCESS,
  VIP_NOT_DONE,
  VIP_INVALID_PARAMETER,
  VIP_ERROR_RESOURCE,
  VIP_TIMEOUT,
  VIP_REJECT,
  VIP_INVALID_RELIABILITY_LEVEL,
  VIP_INVALID_MTU,
  VIP_INVALID_QOS,
  VIP_INVALID_PTAG,
  VIP_INVALID_RDMAREAD,
  VIP_DESCRIPTOR_ERROR,
  VIP_INVALID_STATE,
  VIP_ERROR_NAMESERVICE,
  VIP_NO_MATCH,
  VIP_NOT_REACHABLE,        /* extension (cLAN numbering) */
  VIP_ERROR_NOT_SUPPORTED,  /* extension (cLAN numbering): an optional call not provided */
  VIP_PROTECTION_ERROR      /* Verinic: memory the NIC cannot be given access to */
} VIP_RETURN;

/* ---- system management ---- */
#define VIP_SMI_AUTODISCOVERY ((VIP_ULONG)1)

typedef struct {
  VIP_ULONG NumberOfHops;
  VIP_NET_ADDRESS **ADAddrArray;
  VIP_ULONG NumAdAddrs;
} VIP_AUTODISCOVERY_LIST;

/* ---- functions ---- */
VIP_RETURN VipOpenNic(IN const VIP_CHAR *DeviceName, OUT VIP_NIC_HANDLE *NicHandle);
VIP_RETURN VipCloseNic(IN VIP_NIC_HANDLE NicHandle);
VIP_RETURN VipQueryNic(IN VIP_NIC_HANDLE NicHandle, OUT VIP_NIC_ATTRIBUTES *NicAttribs);

VIP_RETURN VipCreatePtag(IN VIP_NIC_HANDLE NicHandle, OUT VIP_PROTECTION_HANDLE *Ptag);
VIP_RETURN VipDestroyPtag(IN VIP_NIC_HANDLE NicHandle, IN VIP_PROTECTION_HANDLE Ptag);

VIP_RETURN VipRegisterMem(IN VIP_NIC_HANDLE NicHandle, IN VIP_PVOID VirtualAddress,
                          IN VIP_ULONG Length, IN VIP_MEM_ATTRIBUTES *MemAttribs,
                          OUT VIP_MEM_HANDLE *MemoryHandle);
VIP_RETURN VipDeregisterMem(IN VIP_NIC_HANDLE NicHandle, IN VIP_PVOID VirtualAddress,
                            IN VIP_MEM_HANDLE MemoryHandle);
VIP_RETURN VipQueryMem(IN VIP_NIC_HANDLE NicHandle, IN VIP_PVOID Address,
                       IN VIP_MEM_HANDLE MemHandle, OUT VIP_MEM_ATTRIBUTES *MemAttribs);
VIP_RETURN VipSetMemAttributes(IN VIP_NIC_HANDLE NicHandle, IN VIP_PVOID Address,
                               IN VIP_MEM_HANDLE MemHandle, IN VIP_MEM_ATTRIBUTES *MemAttribs);

VIP_RETURN VipCreateVi(IN VIP_NIC_HANDLE NicHandle, IN VIP_VI_ATTRIBUTES *ViAttribs,
                       IN VIP_CQ_HANDLE SendCQHandle, IN VIP_CQ_HANDLE RecvCQHandle,
                       OUT VIP_VI_HANDLE *ViHandle);
VIP_RETURN VipDestroyVi(IN VIP_VI_HANDLE ViHandle);
VIP_RETURN VipQueryVi(IN VIP_VI_HANDLE ViHandle, OUT VIP_VI_STATE *State,
                      OUT VIP_VI_ATTRIBUTES *ViAttribs, OUT VIP_BOOLEAN *ViSendQEmpty,
                      OUT VIP_BOOLEAN *ViRecvQEmpty);
VIP_RETURN VipSetViAttributes(IN VIP_VI_HANDLE ViHandle, IN VIP_VI_ATTRIBUTES *ViAttribs);

VIP_RETURN VipPostSend(IN VIP_VI_HANDLE ViHandle, IN VIP_DESCRIPTOR *DescriptorPtr,
                       IN VIP_MEM_HANDLE MemoryHandle);
VIP_RETURN VipSendDone(IN VIP_VI_HANDLE ViHandle, OUT VIP_DESCRIPTOR **DescriptorPtr);
VIP_RETURN VipSendWait(IN VIP_VI_HANDLE ViHandle, IN VIP_ULONG Timeout,
                       OUT VIP_DESCRIPTOR **DescriptorPtr);
VIP_RETURN VipPostRecv(IN VIP_VI_HANDLE ViHandle, IN VIP_DESCRIPTOR *DescriptorPtr,
                       IN VIP_MEM_HANDLE MemoryHandle);
VIP_RETURN VipRecvDone(IN VIP_VI_HANDLE ViHandle, OUT VIP_DESCRIPTOR **DescriptorPtr);
VIP_RETURN VipRecvWait(IN VIP_VI_HANDLE ViHandle, IN VIP_ULONG Timeout,
                       OUT VIP_DESCRIPTOR **DescriptorPtr);

VIP_RETURN VipSendNotify(IN VIP_VI_HANDLE ViHandle, IN VIP_PVOID Context,
                         IN void (*Handler)(IN VIP_PVOID Context, IN VIP_NIC_HANDLE NicHandle,
                                            IN VIP_VI_HANDLE ViHandle,
                                            IN VIP_DESCRIPTOR *DescriptorPtr));
VIP_RETURN VipRecvNotify(IN VIP_VI_HANDLE ViHandle, IN VIP_PVOID Context,
                         IN void (*Handler)(IN VIP_PVOID Context, IN VIP_NIC_HANDLE NicHandle,
                                            IN VIP_VI_HANDLE ViHandle,
                                            IN VIP_DESCRIPTOR *DescriptorPtr));

VIP_RETURN VipCreateCQ(IN VIP_NIC_HANDLE NicHandle, IN VIP_ULONG EntryCount,
                       OUT VIP_CQ_HANDLE *CQHandle);
VIP_RETURN VipDestroyCQ(IN VIP_CQ_HANDLE CQHandle);
VIP_RETURN VipResizeCQ(IN VIP_CQ_HANDLE CQHandle, IN VIP_ULONG EntryCount);
VIP_RETURN VipCQDone(IN VIP_CQ_HANDLE CQHandle, OUT VIP_VI_HANDLE *ViHandle,
                     OUT VIP_BOOLEAN *RecvQueue);
VIP_RETURN VipCQWait(IN VIP_CQ_HANDLE CQHandle, IN VIP_ULONG Timeout,
                     OUT VIP_VI_HANDLE *ViHandle, OUT VIP_BOOLEAN *RecvQueue);
VIP_RETURN VipCQNotify(IN VIP_CQ_HANDLE CQHandle, IN VIP_PVOID Context,
                       IN void (*Handler)(IN VIP_PVOID Context, IN VIP_NIC_HANDLE NicHandle,
                                          IN VIP_VI_HANDLE ViHandle, IN VIP_BOOLEAN RecvQueue));

VIP_RETURN VipConnectWait(IN VIP_NIC_HANDLE NicHandle, IN VIP_NET_ADDRESS *LocalAddr,
                          IN VIP_ULONG Timeout, OUT VIP_NET_ADDRESS *RemoteAddr,
                          OUT VIP_VI_ATTRIBUTES *RemoteViAttribs,
                          OUT VIP_CONN_HANDLE *ConnHandle);
VIP_RETURN VipConnectAccept(IN VIP_CONN_HANDLE ConnHandle, IN VIP_VI_HANDLE ViHandle);
VIP_RETURN VipConnectReject(IN VIP_CONN_HANDLE ConnHandle);
VIP_RETURN VipConnectRequest(IN VIP_VI_HANDLE ViHandle, IN VIP_NET_ADDRESS *LocalAddr,
                             IN VIP_NET_ADDRESS *RemoteAddr, IN VIP_ULONG Timeout,
                             OUT VIP_VI_ATTRIBUTES *RemoteViAttribs);
VIP_RETURN VipDisconnect(IN VIP_VI_HANDLE ViHandle);
VIP_RETURN VipConnectPeerRequest(IN VIP_VI_HANDLE ViHandle, IN VIP_NET_ADDRESS *LocalAddr,
                                 IN VIP_NET_ADDRESS *RemoteAddr, IN VIP_ULONG Timeout);
VIP_RETURN VipConnectPeerDone(IN VIP_VI_HANDLE ViHandle, OUT VIP_VI_ATTRIBUTES *RemoteViAttribs);
VIP_RETURN VipConnectPeerWait(IN VIP_VI_HANDLE ViHandle, OUT VIP_VI_ATTRIBUTES *RemoteViAttribs);

VIP_RETURN VipQuerySystemManagementInfo(IN VIP_NIC_HANDLE NicHandle, IN VIP_ULONG InfoType,
                                        OUT VIP_PVOID SysManInfo);
VIP_RETURN VipErrorCallback(IN VIP_NIC_HANDLE NicHandle, IN VIP_PVOID Context,
                            IN void (*Handler)(IN VIP_PVOID Context,
                                               IN VIP_ERROR_DESCRIPTOR *ErrorDesc));

VIP_RETURN VipNSInit(IN VIP_NIC_HANDLE NicHandle, IN VIP_PVOID NSInitInfo);
VIP_RETURN VipNSGetHostByName(IN VIP_NIC_HANDLE NicHandle, IN VIP_CHAR *Name,
                              OUT VIP_NET_ADDRESS *Address, IN VIP_ULONG NameIndex);
VIP_RETURN VipNSGetHostByAddr(IN VIP_NIC_HANDLE NicHandle, IN VIP_NET_ADDRESS *Address,
                              OUT VIP_CHAR *Name, IN OUT VIP_ULONG *NameLen);
VIP_RETURN VipNSShutdown(IN VIP_NIC_HANDLE NicHandle);

#ifdef __cplusplus
}
#endif

#endif
