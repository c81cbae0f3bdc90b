/* fw_vm_run.c: the PANIC VM's activations. PANIC packets, host commands and local SENDs queue
 * an activation (program slot and generation, initial block or trigger, the message copied
 * into the queue's SRAM slot) and wake the dispatcher, the ESM machine VM (vm.esm), whose HAL
 * is here: vm_work (is one queued?), vm_may_dma (does its program hold DELIVER or GET?) and
 * vm_exec, which runs the handler at the head of the queue to AWAIT, STOP, a fault or the
 * instruction budget, counts how it ended, answers whoever waits for it, and raises the
 * machine's done event. An activation keeps its queue slot while it runs (a local SEND cannot
 * overwrite its message). A program whose activations are aborted FW_VM_MAX_ABORTS times in a
 * row is stopped (SPINE's policy for handlers that keep misbehaving). Freestanding. */
#include "fw_vm_run.h"

#include "datapath_hal.h"
#include "fw_sram.h"
#include "fw_vm_ctl.h"
#include "fw_vm_prog.h"
#include "fw_vm_svc.h"
#include "fw_vm_wire.h"

static void wake(struct fw *fw) {
  if (fw->dp.pending[datapath_EV_vm_wake] == 0 && !datapath_raise(&fw->dp, datapath_EV_vm_wake))
    fw_fault(fw, HOSTIF_FAULT_RAISE_VM_WAKE);
}

uint32_t fw_vm_run_queue(struct fw *fw, uint32_t id, bool start, uint32_t trigger, uint32_t msg,
                     uint32_t len, const struct fw_vm_act *reply) {
  struct fw_vm *v = &fw->vm;
  if (!v->on) return HOSTIF_PANIC_ENOENT;
  int slot = fw_vm_prog_find(fw, id);
  if (slot < 0) return HOSTIF_PANIC_ENOENT;
  const struct fw_vm_prog *pr = &v->prog[slot];
  if (start ? pr->p.state != VM_PS_LOADED : pr->p.state != VM_PS_WAITING) return HOSTIF_PANIC_ESTATE;
  if (len > FW_VM_SLOT) return HOSTIF_PANIC_EINVAL;
  if (v->q_tail - v->q_head >= FW_VM_NQ) return HOSTIF_PANIC_EBUSY;
  uint32_t i = v->q_tail % FW_VM_NQ;
  struct fw_vm_act *a = &v->q[i];
  *a = reply ? *reply : (struct fw_vm_act){0};
  a->start = start;
  a->slot = (uint8_t)slot;
  a->gen = pr->gen;
  a->trigger = trigger;
  a->len = len;
  uint8_t *dst = fw->sram + FW_VM_Q_ADDR(i);
  const uint8_t *src = fw->sram + msg;
  for (uint32_t k = 0; k < len; k++) dst[k] = src[k];
  v->q_tail++;
  wake(fw);
  return HOSTIF_PANIC_OK;
}

void fw_vm_run_answer(struct fw *fw, const struct fw_vm_act *a, uint32_t status, uint32_t result) {
  if (a->reply == FW_VM_REPLY_HOST) {
    if (fw->vm.cmd_wait) fw_vm_ctl_done(fw, status, result, 0);
  } else if (a->reply == FW_VM_REPLY_PEER) {
    struct fw_wire_panic k = {.peer = a->peer, .kind = FW_WIRE_PANIC_REPLY,
                              .reply = {.result = result, .status = status, .req = a->req}};
    if (!fw_vm_wire_tx(fw, &k, NULL))
      fw_count64v(&fw_ctr(fw)->panic.send_fail); /* the peer's command times out */
  }
}

bool datapath_hal_vm_work(datapath_t *sys) {
  struct fw_vm *v = &fw_of(sys)->vm;
  return v->q_head != v->q_tail;
}

/* The program of the activation at the head of the queue, or NULL if it is gone. */
static struct fw_vm_prog *head_prog(struct fw_vm *v) {
  const struct fw_vm_act *a = &v->q[v->q_head % FW_VM_NQ];
  struct fw_vm_prog *pr = &v->prog[a->slot % FW_VM_NPROG];
  return pr->used && pr->gen == a->gen ? pr : NULL;
}

bool datapath_hal_vm_may_dma(datapath_t *sys) {
  struct fw_vm *v = &fw_of(sys)->vm;
  if (v->q_head == v->q_tail) return false;
  const struct fw_vm_prog *pr = head_prog(v);
  return pr != NULL && pr->may_dma;
}

/* Counts how an activation ended; the hostif status to answer with. */
static uint32_t judge(struct fw *fw, struct fw_vm_prog *pr, enum vm_result r) {
  volatile struct hostif_panic_counters *c = &fw_ctr(fw)->panic;
  switch (r) {
  case VM_R_AWAIT:
  case VM_R_STOP: pr->aborts_row = 0; return HOSTIF_PANIC_OK;
  case VM_R_NO_TRIGGER: fw_count64v(&c->rx_drop_no_trigger); return HOSTIF_PANIC_EINVAL;
  case VM_R_NOT_READY: fw_count64v(&c->rx_drop_no_prog); return HOSTIF_PANIC_ESTATE;
  case VM_R_BUDGET: fw_count64v(&c->abort_budget); break;
  case VM_R_FAULT_BOUNDS: fw_count64v(&c->abort_bounds); break;
  case VM_R_FAULT_DIV: fw_count64v(&c->abort_div); break;
  case VM_R_FAULT_SERVICE: fw_count64v(&c->abort_service); break;
  default: fw_count64v(&c->abort_internal); break;
  }
  if (++pr->aborts_row >= FW_VM_MAX_ABORTS && pr->p.state == VM_PS_WAITING) {
    pr->p.state = VM_PS_STOPPED;
    fw_count64v(&c->killed);
  }
  return HOSTIF_PANIC_EABORT;
}

void datapath_hal_vm_exec(datapath_t *sys, bool dma, datapath_event_t done) {
  struct fw *fw = fw_of(sys);
  struct fw_vm *v = &fw->vm;
  if (v->q_head != v->q_tail) {
    uint32_t i = v->q_head % FW_VM_NQ;
    struct fw_vm_act a = v->q[i];
    struct fw_vm_prog *pr = head_prog(v);
    if (pr == NULL) {
      fw_count64v(&fw_ctr(fw)->panic.rx_drop_no_prog);
      fw_vm_run_answer(fw, &a, HOSTIF_PANIC_ENOENT, VM_R_NOT_READY);
    } else {
      volatile struct hostif_panic_counters *c = &fw_ctr(fw)->panic;
      fwb_class(fw->board, FWB_CLASS_VM);
      v->dma_held = dma;
      v->dma_bytes = 0;
      v->cur_prog = pr->id;
      struct vm_msg m = {fw->sram + FW_VM_Q_ADDR(i), a.len};
      pr->p.last_steps = 0;
      enum vm_result r = a.start ? vm_start(&pr->p, fw_vm_svc_table(fw), FW_VM_BUDGET)
                                 : vm_dispatch(&pr->p, a.trigger, &m, fw_vm_svc_table(fw),
                                               FW_VM_BUDGET);
      v->dma_held = false;
      if (r != VM_R_NOT_READY && r != VM_R_NO_TRIGGER) {
        fw_count64v(&c->activations);
        if (dma) fw_count64v(&c->dma_activations);
        fw_ctr_add(&c->instructions, pr->p.last_steps);
        pr->activations++;
      }
      fw_vm_run_answer(fw, &a, judge(fw, pr, r), (uint32_t)r);
    }
    v->q_head++;
  } else {
    fw_fault(fw, HOSTIF_FAULT_VM_NO_WORK); /* the machine runs only when vm_work said so */
  }
  if (!datapath_raise(sys, done)) fw_fault(fw, HOSTIF_FAULT_RAISE_VM_DONE);
}
