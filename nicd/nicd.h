/* nicd.h: the NIC daemon's shared state: the emulated NICs it hosts, their firmware, the
 * fabric joining them, and the parts that run them (loop.c: the firmware loop; lanai.c and
 * iss_board.c: the LANai image on the instruction-set simulator; cm.c: the connection
 * manager, cmparse.c its request parser; vitab.c: VI table writes; hosts.c: the name service
 * file; takeover.c: starting after a nicd that died). */
#ifndef NICD_H
#define NICD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../hw/memfab.h"
#include "../hw/nic.h"
#include "board_emu.h"
#include "fw.h"

#define NICD_MAX_NICS 16

struct iss;
struct iss_bus;
struct iss_image;

/* iss_board.c: the LANai card's register page on the emulated NIC (fw_board_regs.h). */
struct iss_board {
  struct nic *nic;
  struct iss *cpu;
  unsigned cls;                 /* enum fwb_class written last */
  bool saw_event;               /* an EVENTS read found events (cleared by lanai_run) */
  bool events_read;             /* the firmware read EVENTS (cleared by lanai_run) */
  int32_t result;               /* of the last command */
  uint32_t send_dst, send_addr, send_len, recv_addr;
  uint32_t rg_hi, rg_lo, rg_len, rg_ptag, verdict;
  struct nic_recv_status recv_latch;   /* latched by a RECV_STATE read */
  uint16_t sum_latch[NIC_HDMA_CHANNELS]; /* latched by a channel's STATUS read */
};
/* Sets up b for nic and fills in the bus to give iss_new; b->cpu is set after it. */
void iss_board_init(struct iss_board *b, struct nic *nic, struct iss_bus *bus);

/* lanai.c: a NIC run by the LANai image on the instruction-set simulator. */
struct lanai_nic {
  struct nic *nic;
  struct iss *cpu;
  struct iss_board bd;
  uint64_t watchdog_ns, watch_from;
  bool watching, faulted;
  void *trace;                  /* FILE * of --lanai-trace */
};
/* Reset, image into SRAM at 0, release. 0, or -1 (out of memory, image larger than SRAM). */
int lanai_boot(struct lanai_nic *l, struct nic *nic, const struct iss_image *img,
               uint64_t watchdog_ns);
void lanai_free(struct lanai_nic *l);
/* Every instruction executed from now on, disassembled into the file path. 0 or -1. */
int lanai_trace(struct lanai_nic *l, const char *path);
/* One slice (a pass of the loop); true if the firmware handled something or is still busy. */
bool lanai_run(struct lanai_nic *l, unsigned node);

struct nicd {
  unsigned n;
  struct fabric *fab;
  struct nic *nic[NICD_MAX_NICS];
  struct fw_board bd[NICD_MAX_NICS];
  struct fw fw[NICD_MAX_NICS];
  bool lanai;                   /* --lanai: the NICs run the LANai image (cpu[]) */
  struct lanai_nic cpu[NICD_MAX_NICS];
  uint64_t t0;
  int verbose;
  unsigned cm_idle_ms;     /* connection manager: a silent client is closed after this */
  char sock_path[256];
  char hosts_path[256];
};

extern volatile sig_atomic_t nicd_stop;

/* loop.c: runs the firmware of every NIC until nicd_stop; sleeps on the NICs' doorbell
 * futexes when nothing is due soon. */
void nicd_loop(struct nicd *d);

/* cm.c: the connection manager (CONNECT.md). Starts its thread; 0 or -errno. */
int cm_start(struct nicd *d);
void cm_stop(void);

/* cmparse.c: one request line of the connection manager (CONNECT.md), split in place. */
enum cm_verb { CM_BAD, CM_PING, CM_RESOLVE, CM_STATS, CM_WAIT, CM_CONNECT, CM_ACCEPT, CM_REJECT,
               CM_DISCONNECT };
struct cm_req {
  enum cm_verb verb;
  unsigned n[3];          /* the numbers, in order */
  const char *s[2];       /* the strings (name, discriminators), in order, into the line */
};
enum cm_verb cm_parse(char *line, struct cm_req *r);

/* vitab.c: VI table entries as nicd writes them. */
struct hostif_vi *vitab_vi(struct nicd *d, unsigned node, unsigned vi);
/* Pairs (na, va) and (nb, vb): both must be IDLE with the same reliability. 0 or -1. */
int vitab_pair(struct nicd *d, unsigned na, unsigned va, unsigned nb, unsigned vb);
/* The local VI goes IDLE, its peer (if it points back) ERROR. */
void vitab_disconnect(struct nicd *d, unsigned node, unsigned vi);
/* VIs whose owner process is gone: FREE, and their peers ERROR. */
void vitab_reap(struct nicd *d);

/* segreap.c: unlink host memory segments of processes that died. */
void segs_reap(void);

/* takeover.c: a window or run directory left by a nicd that died is taken over (0); one a
 * running nicd serves is refused (-EBUSY, why names its pid). */
int takeover_window(const char *name, char *why, size_t cap);
int takeover_rundir(const char *pidfile, char *why, size_t cap);
/* nic_create's error codes in words. */
const char *nicd_nic_error(int nic_err);

/* hosts.c */
int hosts_write_default(const char *path, unsigned nnics);
int hosts_resolve(const char *path, const char *name);

#endif
