/* eudp_model.h: E-UDP's analytic performance model (papers/eudp-udp-offload-fine-grained-
 * pipelining.txt, section 4.4), computed from a hardware profile and the firmware's measured
 * per-packet and per-byte costs, and the paper's published numbers for each configuration.
 *
 * A message of s bytes crosses layers i, each with a per-packet overhead o_i and a per-byte
 * time t_i: the sending host's post, the sending I/O bus (host DMA), the sending NIC's
 * firmware, the link, the receiving NIC's firmware, the receiving I/O bus, the receiving
 * host's wake-up. The equations themselves did not
 * survive the paper's text extraction; they are rebuilt from its prose:
 *   coarse-grained latency   sum o_i + s * sum t_i                  (each layer waits for all)
 *   fine-grained latency     sum o_i + s * max t_i + theta * (sum t_i - max t_i)
 *                            (a layer starts after theta bytes of the one above; the slowest
 *                            per-byte layer sets the pace)
 *   bandwidth (both)         s / max_r (o_r + t_r * s) over the resources r a packet holds
 *                            (the paper: "Equation (4) is the same with Equation (2)") */
#ifndef EUDP_MODEL_H
#define EUDP_MODEL_H

#include <stdbool.h>

#include "../../hw/profile.h"

struct eudp_params {
  double host_send_us, host_recv_us; /* the post; the wake-up and the reaping call */
  double host_us;                    /* their sum */
  double fw_tx_us, fw_rx_us;         /* NIC firmware per message: sending, receiving NIC */
  double dma_setup_us, send_setup_us, link_lat_us;
  double bus_ns, link_ns;            /* per byte: I/O bus, link */
  double fw_tx_ns, fw_rx_ns;         /* per byte: the sending and the receiving firmware */
  double theta;                      /* bytes before the next layer starts (fine-grained) */
};

/* The firmware's measured cost: processor cycles per message and per byte beyond it, on the
 * sending and on the receiving NIC. */
struct eudp_fw { double tx_cycles, tx_per_byte, rx_cycles, rx_per_byte; };
/* The model's parameters from a profile and the firmware's cost; theta is the firmware's host
 * DMA chunk (datapath.esm's CHUNK, 1024 bytes). */
void eudp_params_from(struct eudp_params *m, const struct profile *p, const struct eudp_fw *fw);
/* Sum of the per-packet overheads, us. */
double eudp_model_overhead_us(const struct eudp_params *m);
double eudp_latency_us(const struct eudp_params *m, double bytes, bool fine);
double eudp_bandwidth_mbps(const struct eudp_params *m, double bytes);

/* What the paper reports for a configuration (NULL: none). */
struct eudp_paper {
  const char *fig_lat, *fig_bw;      /* which figures */
  double peak_mbps;                  /* a published bandwidth, or 0 */
  double small_lat_us;               /* a published small-message one-way latency, or 0 */
  const char *note;                  /* the paper's words where it gives no number */
};
const struct eudp_paper *eudp_paper_for(const char *profile_path);

#endif
