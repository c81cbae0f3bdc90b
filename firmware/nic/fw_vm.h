/* fw_vm.h: the PANIC VM inside the NIC firmware: its state in struct fw and the interfaces
 * between its parts. The VM itself (loader, verifier, interpreter) is firmware/vm; the
 * dispatcher is the ESM machine VM (esm/machines/vm.esm, generated into gen/datapath). The
 * host's side of the contract is the PANIC control area of hostif.h (firmware/vm/CONTROL.md).
 * Freestanding C11.
 *
 *   fw_vm_mem.c    program memory in SRAM: a small allocator (ACSL contracts)
 *   fw_vm_prog.c   the program table: load, unload, list, look-up by id
 *   fw_vm_run.c    the activation queue and the VM machine's HAL (vm_work, vm_may_dma, vm_exec)
 *   fw_vm_svc.c    the NIC services a program uses: SEND, DELIVER/GET, CLOCK, DISPLAY
 *   fw_vm_wire.c   PANIC packets: received ones demultiplexed, data and control ones sent
 *   fw_vm_ctl.c    the host command mailbox, and commands forwarded to or from a peer NIC */
#ifndef FW_VM_H
#define FW_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "hostif.h"
#include "vm.h"

#define FW_VM_NPROG      HOSTIF_PANIC_NPROG
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

/* ---- program memory (fw_vm_mem.c) ---- */
struct fw_vm_mem {
  uint32_t size;                      /* bytes of program memory */
  bool used[FW_VM_NPROG];
  uint32_t off[FW_VM_NPROG], len[FW_VM_NPROG];   /* block of slot i, when used */
};

/*@ predicate mem_inside(struct fw_vm_mem *m) =
      \forall integer i; 0 <= i < FW_VM_NPROG && m->used[i] ==>
        0 < m->len[i] && m->off[i] + m->len[i] <= m->size;
    predicate mem_disjoint(struct fw_vm_mem *m) =
      \forall integer i, j; 0 <= i < FW_VM_NPROG && 0 <= j < FW_VM_NPROG && i != j &&
        m->used[i] && m->used[j] ==>
        m->off[i] + m->len[i] <= m->off[j] || m->off[j] + m->len[j] <= m->off[i];
    predicate mem_ok(struct fw_vm_mem *m) = \valid(m) && mem_inside(m) && mem_disjoint(m);
*/

/*@ requires \valid(m);
    assigns *m;
    ensures mem_ok(m) && m->size == size;
    ensures \forall integer i; 0 <= i < FW_VM_NPROG ==> !m->used[i]; */
void fw_vm_mem_init(struct fw_vm_mem *m, uint32_t size);

/* Gives slot a block of len bytes (rounded up to 4) that overlaps no other: its offset, or -1
 * (slot out of range or already holding a block, len 0 or too big, no gap large enough). */
/*@ requires mem_ok(m);
    assigns m->used[0 .. FW_VM_NPROG - 1], m->off[0 .. FW_VM_NPROG - 1],
            m->len[0 .. FW_VM_NPROG - 1];
    ensures mem_ok(m);
    ensures \result >= 0 ==> slot < FW_VM_NPROG && !\old(m->used[slot]) && m->used[slot] &&
                             m->off[slot] == \result && m->len[slot] >= len;
    ensures \result >= 0 ==> \forall integer i; 0 <= i < FW_VM_NPROG && i != slot ==>
                             m->used[i] == \old(m->used[i]) && m->off[i] == \old(m->off[i]) &&
                             m->len[i] == \old(m->len[i]);
    ensures \result < 0 ==> \forall integer i; 0 <= i < FW_VM_NPROG ==>
                             m->used[i] == \old(m->used[i]) && m->off[i] == \old(m->off[i]) &&
                             m->len[i] == \old(m->len[i]); */
int32_t fw_vm_mem_alloc(struct fw_vm_mem *m, uint32_t slot, uint32_t len);

/* Frees slot's block: the bytes it held (what fw_vm_mem_alloc gave it), 0 if it held none. */
/*@ requires mem_ok(m);
    assigns m->used[0 .. FW_VM_NPROG - 1];
    ensures mem_ok(m);
    ensures slot < FW_VM_NPROG && \old(m->used[slot]) ==> \result == \old(m->len[slot]) &&
                                                          !m->used[slot];
    ensures !(slot < FW_VM_NPROG && \old(m->used[slot])) ==> \result == 0;
    ensures \forall integer i; 0 <= i < FW_VM_NPROG && i != slot ==>
              m->used[i] == \old(m->used[i]); */
uint32_t fw_vm_mem_free(struct fw_vm_mem *m, uint32_t slot);

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

struct fw;
struct fw_rxi;
struct fw_wire_hdr;
struct fw_wire_panic;

/* fw_vm_prog.c */
void fw_vm_init(struct fw *fw);
int fw_vm_find(struct fw *fw, uint32_t id);          /* slot of program id, or -1 */
/* Loads the image at SRAM address img (len bytes) as program id: a hostif_panic_status;
 * *err and *off tell why the verifier rejected it. */
uint32_t fw_vm_load(struct fw *fw, uint32_t id, uint32_t img, uint32_t len, uint32_t *err,
                    uint32_t *off);
uint32_t fw_vm_unload(struct fw *fw, uint32_t id);
/* Fills done.list; the number of programs. */
uint32_t fw_vm_list(struct fw *fw, uint32_t list_addr);

/* fw_vm_run.c */
/* Queues an activation of program id (start: its initial block; else trigger with the message
 * at SRAM address msg, len bytes): a hostif_panic_status (ENOENT, ESTATE, EBUSY, OK). */
uint32_t fw_vm_queue(struct fw *fw, uint32_t id, bool start, uint32_t trigger, uint32_t msg,
                     uint32_t len, const struct fw_vm_act *reply);
/* The activation has ended: its answer (hostif status and vm_result) goes to whoever waits. */
void fw_vm_answer(struct fw *fw, const struct fw_vm_act *a, uint32_t status, uint32_t result);

/* fw_vm_svc.c */
const struct vm_services *fw_vm_services(struct fw *fw);
/* PANIC address (hi:lo) -> node: false if there is no route. */
bool fw_vm_route(struct fw *fw, uint32_t hi, uint32_t lo, uint16_t *node);

/* fw_vm_wire.c */
/* Classifies a received PANIC packet (fw_rq.c calls it for type PANIC). */
void fw_vm_classify(struct fw *fw, struct fw_rxi *ri);
/* A received PANIC packet is complete in receive buffer buf (fw_rq.c). */
void fw_vm_rx(struct fw *fw, unsigned buf);
/* Sends PANIC packet k (fw_wire.h's view) with its k->len bytes of payload (copied now):
 * false if the send queue is full. */
bool fw_vm_tx(struct fw *fw, const struct fw_wire_panic *k, const uint8_t *payload);

/* The program's SEND in fw->vm.send (routed): over the wire, or for this node straight into
 * the activation queue. false (counted) if the send queue is full. */
bool fw_vm_send_msg(struct fw *fw);

/* fw_vm_ctl.c (its event handlers fw_vm_doorbell, fw_vm_tick, fw_vm_pump: fw.h) */
/* A control request or reply from a peer (its PANIC view, payload in SRAM). */
void fw_vm_ctl_request(struct fw *fw, const struct fw_wire_panic *k, uint32_t payload);
void fw_vm_ctl_reply(struct fw *fw, const struct fw_wire_panic *k, uint32_t payload);
/* Completes the mailbox's command. */
void fw_vm_cmd_done(struct fw *fw, uint32_t status, uint32_t result, uint32_t detail);

#endif
