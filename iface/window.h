/* The host-visible window of one NIC: a shared memory object holding the register page,
 * the host memory region table and the SRAM, which nicd creates and host processes map.
 * Layout in WINDOW.md; this header is its C form and what every process that maps a window
 * does with it. The names are the device's (hw_regs, HW_*): the window is the emulated NIC's
 * register page and memory as a host sees them. The NIC's own side (creating the window,
 * host signals, faults, stopping) is hw/window_nic.h. */
#ifndef IFACE_WINDOW_H
#define IFACE_WINDOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostmem.h"

#define HW_WIN_MAGIC      0x43494e56u /* "VNIC" in little-endian memory */
#define HW_WIN_VERSION    1
#define HW_DOORBELLS      32
#define HW_REGIONS        256
#define HW_REGIONS_OFF    0x1000u
#define HW_SRAM_OFF       0x10000u
#define HW_SRAM_DEFAULT   (4u << 20)
#define HW_SRAM_MIN       0x1000u
#define HW_SRAM_MAX       (64u << 20)

/* regs.state */
#define HW_NIC_RUNNING 1u
#define HW_NIC_STOPPED 2u
#define HW_NIC_FAULTED 3u   /* its processor stopped in a fault (cpu.fault): hosts get -EPIPE */

/* cpu.kind: what runs the NIC's firmware. */
#define HW_CPU_NATIVE 0u    /* the firmware built for the host, called by nicd */
#define HW_CPU_LANAI  1u    /* the LANai image on the instruction-set simulator (hw/lanai) */
#define HW_CPU_NCLASS 8u    /* event classes the ISS charges instructions and cycles to */

/* The name column of an X-macro table of (id, name) pairs. */
#define HW_NAME_OF(id, name) name,

/* cpu.class_insns/class_cycles: the event classes a processor's work is charged to, in the
 * firmware's order (fw_board.h's FWB_CLASS_*, checked where both meet: board_emu.c), and the
 * names nicstat and the benchmarks print. */
#define HW_CPU_CLASSES(X)                                                                     \
  X(IDLE, "idle")                                                                             \
  X(DOORBELL, "doorbell")                                                                     \
  X(HDMA, "host DMA done")                                                                    \
  X(RECV, "receive")                                                                          \
  X(SEND, "send done")                                                                        \
  X(TIMER, "timer")                                                                           \
  X(VM, "VM activation")                                                                      \
  X(OTHER, "other")
#define HW_CPU_CLASS_ID(id, name) HW_CPU_CLASS_##id,
enum hw_cpu_class { HW_CPU_CLASSES(HW_CPU_CLASS_ID) HW_CPU_CLASS_N };
_Static_assert(HW_CPU_CLASS_N == HW_CPU_NCLASS, "one name per event class");
static inline const char *hw_cpu_class_name(unsigned k) {
  static const char *const names[] = {HW_CPU_CLASSES(HW_NAME_OF)};
  return k < HW_CPU_CLASS_N ? names[k] : "?";
}

/* Counters the NIC keeps in the register page for host tools. */
enum hw_ctr {
  HW_CTR_DOORBELLS, HW_CTR_HOST_SIGNALS, HW_CTR_TIMER_FIRES,
  HW_CTR_HDMA_DESCS, HW_CTR_HDMA_BYTES, HW_CTR_HDMA_ERRORS, HW_CTR_HDMA_BUSY_NS,
  HW_CTR_SEND_FRAMES, HW_CTR_SEND_BYTES, HW_CTR_SEND_DROPS, HW_CTR_SEND_BUSY_NS,
  HW_CTR_RECV_FRAMES, HW_CTR_RECV_BYTES, HW_CTR_RECV_MSGS, HW_CTR_RECV_TRUNC,
  HW_CTR_N
};

/* cpu.fault: why the NIC's processor stopped, and the name nicstat and nicd print. The LANai
 * instruction-set simulator reports these codes (enum iss_fault, hw/lanai/iss.h). */
#define HW_CPU_FAULTS(X)                                                                      \
  X(NONE, "no fault")                                                                         \
  X(UNDEFINED, "undefined instruction")                                                       \
  X(MISALIGNED, "misaligned access")                                                          \
  X(BUS, "bus error")                                                                         \
  X(RUNAWAY, "runaway firmware")                                                              \
  X(HALTED, "halted")
#define HW_CPU_FAULT_ID(id, name) HW_CPU_FAULT_##id,
enum hw_cpu_fault { HW_CPU_FAULTS(HW_CPU_FAULT_ID) HW_CPU_FAULT_N };
static inline const char *hw_cpu_fault_name(uint32_t fault) {
  static const char *const names[] = {HW_CPU_FAULTS(HW_NAME_OF)};
  return fault < HW_CPU_FAULT_N ? names[fault] : "unknown fault";
}

/* The NIC's processor, as a debugger would see it; written by the NIC after each slice it runs
 * (all zero but kind for a native firmware). */
struct hw_cpu {
  uint32_t kind;                /* HW_CPU_NATIVE / HW_CPU_LANAI */
  uint32_t fault;               /* HW_CPU_FAULT_NONE, or why the processor stopped */
  uint32_t pc;                  /* next instruction, or the faulting one */
  uint32_t fault_word, fault_addr;
  uint32_t rsvd[3];
  uint64_t insns, cycles;
  uint64_t class_insns[HW_CPU_NCLASS], class_cycles[HW_CPU_NCLASS];
};

/* Timing mode (nicd --timing, WINDOW.md "Timing mode"): the hosts of a window are logical
 * processes of a discrete-event simulation. Each host process holds a slot: RUNNING at its
 * virtual time t_ns (nicd never passes it), WAITING for signal bits `mask` (bounds nothing;
 * nicd makes it RUNNING at the signal's time plus the wake-up cost), or OUTSIDE (blocked in
 * something nicd does not see, such as the connection manager: bounds nothing). */
#define HW_VT_SLOTS   8
#define HW_VT_FREE    0u
#define HW_VT_RUNNING 1u
#define HW_VT_WAITING 2u
#define HW_VT_OUTSIDE 3u
struct hw_vt_slot {
  _Atomic int32_t pid;          /* the owner; 0: free (claimed by compare-and-swap) */
  _Atomic uint32_t state;       /* HW_VT_* */
  _Atomic uint32_t mask;        /* WAITING: the host_irq bits it waits for */
  uint32_t rsvd;
  _Atomic uint64_t t_ns;        /* RUNNING: the host's virtual time */
  _Atomic uint64_t until_ns;    /* WAITING: its timeout in virtual time (UINT64_MAX: none) */
};
struct hw_vt {
  _Atomic uint32_t on;          /* 1: nicd runs in timing mode, written once before hosts map */
  _Atomic uint32_t booted;      /* 1: the NICs booted (done_ns published once); hosts start */
  _Atomic uint64_t done_ns;     /* nicd finished everything up to this virtual time */
  uint64_t call_ns, wake_ns;    /* the profile's host costs: a library call, a wake-up */
  uint64_t copy_bps;            /* host memcpy bytes/s */
  struct hw_vt_slot slot[HW_VT_SLOTS];
};

/* The register page, at window offset 0. Fields a process other than the NIC's writes, or
 * reads while the NIC writes, are atomics. */
struct hw_regs {
  /* 0x000: identification, written once by the NIC before anyone maps the window */
  uint32_t magic, version;
  uint32_t sram_off, sram_size;
  uint64_t win_size;
  uint32_t regions_off, nregions;
  uint32_t node;
  int32_t nic_pid;
  _Atomic uint32_t state;       /* HW_NIC_RUNNING / HW_NIC_STOPPED */
  uint32_t rsvd0;
  _Atomic uint64_t clock_ns;    /* the NIC's emulated clock, also a heartbeat */
  uint8_t pad0[0x40 - 0x38];
  /* 0x040: the event registers (the firmware's; hosts may read them) */
  _Atomic uint32_t isr, imr;
  uint8_t pad1[0x80 - 0x48];
  /* 0x080: host -> NIC */
  _Atomic uint32_t db_pending;  /* bit i: doorbell i written since the firmware last took it */
  _Atomic uint32_t nic_seq;     /* futex word the NIC sleeps on; hosts bump it */
  _Atomic uint32_t nic_sleeping;
  uint8_t pad2[0xc0 - 0x8c];
  /* 0x0c0: NIC -> host */
  _Atomic uint32_t host_irq;    /* signal bits raised by the firmware, taken by hosts */
  _Atomic uint32_t host_seq;    /* futex word hosts sleep on */
  _Atomic uint32_t host_waiters;
  _Atomic uint32_t host_wait_bits; /* bits some sleeping host waits for (wakers clear them) */
  uint8_t pad3[0x100 - 0xd0];
  /* 0x100: mailboxes, the values written with the doorbells */
  _Atomic uint32_t mailbox[HW_DOORBELLS];
  uint8_t pad4[0x200 - 0x180];
  /* 0x200: counters */
  _Atomic uint64_t ctr[HW_CTR_N];
  uint8_t pad5[0x300 - 0x200 - 8 * HW_CTR_N];
  /* 0x300: the processor */
  struct hw_cpu cpu;
  uint8_t pad6[0x400 - 0x300 - sizeof(struct hw_cpu)];
  /* 0x400: timing mode */
  struct hw_vt vt;
};

/* Region table entry state */
#define HW_REGION_FREE  0u
#define HW_REGION_BUSY  1u  /* a host is filling it in */
#define HW_REGION_VALID 2u

/* Region access: which directions the NIC may move data. */
#define HW_ACC_NIC_READ  1u /* host -> SRAM (E2L) */
#define HW_ACC_NIC_WRITE 2u /* SRAM -> host (L2E) */
/* An access word's bits 0..7 are access bits a region must all allow; bits 8 and up, when
 * not zero, a key the region's access word must carry in the same bits (the host driver's
 * registration key: hostif.h, HOSTIF_REGION_KEY_SHIFT). */
#define HW_ACC_DIR_MASK  0xffu
#define HW_ACC_KEY_SHIFT 8

/* One registered host memory region, 64 bytes, at HW_REGIONS_OFF + 64 * id. */
struct hw_region {
  _Atomic uint32_t state;
  _Atomic uint32_t gen;         /* bumped on every change, so the NIC notices re-use */
  uint32_t ptag, access;
  uint64_t host_base, len;      /* host virtual addresses [host_base, host_base + len) */
  uint64_t seg_off;             /* where host_base lies in the segment */
  char seg[HOSTMEM_NAME_LEN];    /* the segment's shm name */
};

/* A mapping of a window, in the NIC's process or a host's. */
struct hwin {
  uint8_t *base;
  size_t size;
  struct hw_regs *regs;
  struct hw_region *regions;
  uint8_t *sram;
  uint32_t sram_size;
  int fd;
  char name[64];
};

/* The size of the window (whole pages) of an SRAM of sram_size bytes. */
size_t hwin_size(uint32_t sram_size);
/* Points w's views (regs, regions, sram) into a mapping of a window at base, size bytes. */
void hwin_views(struct hwin *w, uint8_t *base, size_t size);
/* Maps an existing window by name or from an inherited descriptor, after checking its layout
 * against the object's size. 0 or -errno (-EPROTO for a bad layout). The NIC creates the
 * window and stops it (hwin_create, hwin_destroy: hw/window_nic.h). */
int hwin_open(struct hwin *w, const char *name);
int hwin_open_fd(struct hwin *w, int fd);
/* Unmaps. */
void hwin_close(struct hwin *w);

/* Host side. */
int hwin_doorbell(struct hwin *w, unsigned i, uint32_t value);
/* Waiting for signal bits (and for doorbells, NIC side) is wait.h's. */
bool hwin_nic_alive(struct hwin *w);
/* Registers [off, off + len) of segment m with a protection tag and access bits: the NIC may
 * then DMA there. Returns the region id (>= 0) and its host address, or -errno. */
int hwin_region_add(struct hwin *w, const struct hostmem *m, size_t off, size_t len,
                    uint32_t ptag, uint32_t access, uint64_t *host_addr);
int hwin_region_remove(struct hwin *w, int id);
/* Programmed I/O into the SRAM, bounds-checked. 0 or -ERANGE. */
int hwin_sram_write(struct hwin *w, uint32_t addr, const void *src, size_t len);
int hwin_sram_read(struct hwin *w, uint32_t addr, void *dst, size_t len);

#endif
