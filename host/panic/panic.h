/* libpanic: host control of the PANIC VM on a Verinic NIC (PANIC section 3.3; the firmware's
 * side is firmware/vm/CONTROL.md and the PANIC control area of hostif.h). Load, unload and run
 * programs and send messages to their triggers, on the local NIC or a remote one (node);
 * list programs; read DISPLAY output; shared memory segments a program DELIVERs into and GETs
 * from, named by id, with PANIC's lock/flag synchronisation. Every call returns 0, or -errno:
 * for a command the firmware refused, the errno that matches its status (panic_status_errno),
 * with the status and details in *res. Thread-safe per device (the mailbox is locked). */
#ifndef PANIC_H
#define PANIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostif.h"

struct panic_dev;
struct panic_seg;

struct panic_res {
  uint32_t status;      /* enum hostif_panic_status */
  uint32_t result;      /* RUN/SEND: enum vm_result; EREJECT: enum vm_err */
  uint32_t detail;      /* EREJECT: byte offset in the image; LIST: entries */
};

/* ---- device ---- */
/* Opens "nic<N>" (or a window name starting with '/'). -ENODEV, -EAGAIN (firmware not up),
 * -ENOTSUP (the firmware has no PANIC VM: not enough SRAM). */
int panic_open(const char *devname, struct panic_dev **out);
void panic_close(struct panic_dev *p);
uint16_t panic_node(const struct panic_dev *p);   /* the local NIC's node */
/* Host-side deadline of one command (default 5 s; a remote one ends by the firmware's
 * HOSTIF_PANIC_REMOTE_MS anyway). */
void panic_set_timeout(struct panic_dev *p, int64_t ns);

/* ---- commands (node: the NIC to run it on; panic_node(p) for the local one) ---- */
int panic_load(struct panic_dev *p, uint16_t node, uint32_t id, const void *img, size_t len,
               struct panic_res *res);
/* Reads FILE.pvm and loads it; -EFBIG for a file larger than any module. */
int panic_load_file(struct panic_dev *p, uint16_t node, uint32_t id, const char *path,
                    struct panic_res *res);
int panic_unload(struct panic_dev *p, uint16_t node, uint32_t id, struct panic_res *res);
/* Runs the initial block; returns when it has ended (res->result: AWAIT, STOP or the abort). */
int panic_run(struct panic_dev *p, uint16_t node, uint32_t id, struct panic_res *res);
/* Sends a message (at most HOSTIF_PANIC_MSG_MAX bytes) to a trigger; returns when the handler
 * has ended. */
int panic_send(struct panic_dev *p, uint16_t node, uint32_t id, uint32_t trigger,
               const void *msg, size_t len, struct panic_res *res);
/* Up to max programs into out; *n = how many there are. */
int panic_list(struct panic_dev *p, uint16_t node, struct hostif_panic_prog *out, unsigned max,
               unsigned *n, struct panic_res *res);
/* Routes PANIC address addr (PDL's AT a:b:...) to node (local NIC's table), or removes it. */
int panic_route(struct panic_dev *p, uint64_t addr, uint16_t node, bool remove,
                struct panic_res *res);

/* ---- DISPLAY output (one reader per NIC) ---- */
/* Takes up to max values in the order the programs displayed them; how many (>= 0). */
int panic_display_read(struct panic_dev *p, struct hostif_panic_display *out, unsigned max);
/* Waits until DISPLAY values are there to read (0), timeout_ns passes (-ETIMEDOUT) or the NIC
 * goes away (-EPIPE). The timeout is in the NIC's virtual time under nicd --timing. */
int panic_display_wait(struct panic_dev *p, int64_t timeout_ns);
/* Values the firmware dropped because the ring was full. */
uint32_t panic_display_drops(struct panic_dev *p);

/* ---- shared memory segments ---- */
/* Allocates len bytes of DMA-able memory, registers it and attaches it as segment id
 * (0..HOSTIF_PANIC_NSEG-1) for programs to DELIVER into and GET from. -EEXIST if a live
 * process holds the id. flags HOSTIF_PANIC_SEG_SYNC: the first HOSTIF_PANIC_SYNC bytes are
 * the lock/flag block (len must be at least that). */
int panic_seg_create(struct panic_dev *p, unsigned id, size_t len, uint32_t flags,
                     struct panic_seg **out);
void panic_seg_destroy(struct panic_seg *s);
void *panic_seg_base(struct panic_seg *s);
size_t panic_seg_len(struct panic_seg *s);
/* PANIC's synchronisation: the host sets locks and clears flags; the NIC clears locks (a
 * program DELIVERs 0 into lock word i) and sets flags (DELIVERs a non-zero word into flag i). */
int panic_lock_set(struct panic_seg *s, unsigned i);
bool panic_lock_held(struct panic_seg *s, unsigned i);
/* Waits until the NIC has set flag i (or timeout_ns); the flag's value in *value. -ETIMEDOUT. */
int panic_flag_wait(struct panic_seg *s, unsigned i, int64_t timeout_ns, uint32_t *value);
int panic_flag_clear(struct panic_seg *s, unsigned i);

/* ---- names ---- */
const char *panic_status_name(uint32_t status);
int panic_status_errno(uint32_t status);   /* 0 for OK */
const char *panic_vm_result_name(uint32_t r);
const char *panic_vm_err_name(uint32_t e);

#endif
