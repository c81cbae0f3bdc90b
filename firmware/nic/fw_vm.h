/* fw_vm.h: the PANIC VM inside the NIC firmware: its sizes, its SRAM and its state in struct fw.
 * The VM itself (loader, verifier, interpreter) is firmware/vm; the dispatcher is the ESM
 * machine VM (esm/machines/vm.esm, generated into gen/datapath). The host's side of the
 * contract is the PANIC control area of hostif.h (firmware/vm/CONTROL.md). Each part has its
 * header, fw_vm_X.h for fw_vm_X.c (README.md, "Files"). Freestanding C11. */
#ifndef FW_VM_H
#define FW_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_vm_mem.h"
#include "hostif.h"
#include "vm.h"

#define FW_VM_BUDGET     20000u       /* instructions per activation (SPINE's watchdog) */
#define FW_VM_MAX_ABORTS 16u          /* aborted activations in a row before a program is stopped */
#define FW_VM_DMA_MAX    (64u * 1024u) /* bytes DELIVER and GET may move per activation */
#define FW_VM_DMA_NS     1000000ull   /* one DMA that takes longer (board time) fails */
#define FW_VM_NQ         8u           /* activations queued (a power of two) */
#define FW_CH_VM         2u           /* the VM's host DMA channel */
#define FW_TIMER_VM      2u           /* deadline of a command forwarded to a peer */

/* ---- SRAM above the data path's (FW_SRAM_END, fw.h) ---- */
#define FW_VM_SLOT       4096u        /* one queued message */
#define FW_VM_BASE       ((FW_SRAM_END + 4095u) & ~4095u)
#define FW_VM_Q_ADDR(i)  (FW_VM_BASE + (uint32_t)(i) * FW_VM_SLOT)
#define FW_VM_CHAIN      (FW_VM_Q_ADDR(FW_VM_NQ))            /* one host DMA descriptor */
#define FW_VM_LIST       (FW_VM_CHAIN + 64u)                  /* a LIST answer for a peer */
#define FW_VM_RIMG       (FW_VM_CHAIN + 1024u)                /* a module arriving from a peer */
#define FW_VM_PMEM       ((FW_VM_RIMG + HOSTIF_PANIC_DATA_MAX + 4095u) & ~4095u)
#define FW_VM_PMEM_MIN   4096u        /* less program memory than this: the VM is off */

/* ---- programs (fw_vm_prog.c) ---- */
struct fw_vm_prog {
  bool used;
  bool may_dma;                       /* its code holds DELIVER or GET */
  uint32_t id;                        /* PDL's program number */
  uint32_t gen;                       /* bumped at every load: queued work names it */
  uint32_t aborts_row;                /* aborted activations since the last clean one */
  uint32_t activations;
  struct vm_program p;
};

/* Who waits for an activation's result. */
enum fw_vm_reply { FW_VM_NOREPLY, FW_VM_REPLY_HOST, FW_VM_REPLY_PEER };

/* ---- the activation queue (fw_vm_run.c) ---- */
struct fw_vm_act {
  uint8_t start;                      /* run the initial block (else a trigger) */
  uint8_t slot;
  uint8_t reply;                      /* enum fw_vm_reply */
  uint16_t peer;                      /* FW_VM_REPLY_PEER: the asking node */
  uint32_t gen, trigger, len, req;    /* req: the peer's request number */
};

/* ---- a command forwarded to a peer, or a module arriving from one (fw_vm_ctl.c) ---- */
struct fw_vm_remote {
  bool busy;                          /* the mailbox's command waits for a peer */
  uint16_t node;
  uint32_t req;                       /* its request number */
  uint32_t op, prog, trigger;
  uint32_t len, sent;                 /* data bytes (module or message), sent so far */
  bool unsent;                        /* packets of it are still to be sent */
  uint64_t deadline;                  /* board time by which the answer must be in */
};

struct fw_vm_rimg {                   /* a LOAD arriving from a peer in pieces */
  bool active;
  uint16_t node;
  uint32_t req, len, got;
};

struct fw_vm_send {                   /* a program's SEND, as the VM passed it */
  const uint8_t *data;
  uint32_t len, trig, prog, hi, lo;
  uint16_t node;                      /* where the address routes to */
};

struct fw_vm {
  bool on;                            /* enough SRAM: the VM serves */
  struct fw_vm_mem mem;
  struct fw_vm_prog prog[FW_VM_NPROG];
  uint32_t next_gen;
  struct fw_vm_act q[FW_VM_NQ];
  uint32_t q_head, q_tail;            /* taken / put (free-running) */
  /* the activation running now */
  bool dma_held;                      /* it holds the host DMA engine */
  uint32_t dma_bytes;                 /* moved by it so far */
  uint32_t cur_prog;                  /* its program id (DISPLAY entries name it) */
  /* the host mailbox */
  uint32_t cmd_seen;                  /* cmd.seq of the last command taken */
  bool cmd_wait;                      /* it waits for an activation's result */
  struct fw_vm_remote remote;
  uint32_t next_req;
  struct fw_vm_rimg rimg;
  struct vm_services svc;
  struct fw_vm_send send;
};

#endif
