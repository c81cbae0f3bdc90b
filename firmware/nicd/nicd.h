/* nicd.h: the NIC daemon's shared state: the emulated NICs it hosts, their firmware, the
 * fabric joining them, and the parts that run them (loop.c: the firmware loop; cm.c: the
 * connection manager; vitab.c: VI table writes; hosts.c: the name service file). */
#ifndef NICD_H
#define NICD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../hw/memfab.h"
#include "../../hw/nic.h"
#include "board_emu.h"
#include "fw.h"

#define NICD_MAX_NICS 16

struct nicd {
  unsigned n;
  struct fabric *fab;
  struct nic *nic[NICD_MAX_NICS];
  struct fw_board bd[NICD_MAX_NICS];
  struct fw fw[NICD_MAX_NICS];
  uint64_t t0;
  int verbose;
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

/* hosts.c */
int hosts_write_default(const char *path, unsigned nnics);
int hosts_resolve(const char *path, const char *name);

#endif
