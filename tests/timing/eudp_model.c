/* eudp_model.c: E-UDP's analytic model (eudp_model.h) and the paper's numbers. */
#include "eudp_model.h"

#include <string.h>

#define EUDP_CHUNK 1024.0   /* esm/machines/datapath.esm: CHUNK */

void eudp_params_from(struct eudp_params *m, const struct profile *p, const struct eudp_fw *fw) {
  double hz = (double)p->nic_hz;
  memset(m, 0, sizeof *m);
  m->host_send_us = p->host_call_ns / 1e3;
  m->host_recv_us = (p->host_wake_ns + p->host_call_ns) / 1e3;
  m->host_us = m->host_send_us + m->host_recv_us;
  m->fw_tx_us = fw->tx_cycles / hz * 1e6;
  m->fw_rx_us = fw->rx_cycles / hz * 1e6;
  m->dma_setup_us = p->hdma_setup_ns / 1e3;
  m->send_setup_us = p->send_setup_ns / 1e3;
  m->link_lat_us = p->link_latency_ns / 1e3;
  m->bus_ns = 1e9 / (double)p->hdma_bps;
  m->link_ns = 1e9 / (double)p->link_bps;
  m->fw_tx_ns = fw->tx_per_byte > 0 ? fw->tx_per_byte / hz * 1e9 : 0;
  m->fw_rx_ns = fw->rx_per_byte > 0 ? fw->rx_per_byte / hz * 1e9 : 0;
  m->theta = EUDP_CHUNK;
}

double eudp_model_overhead_us(const struct eudp_params *m) {
  return m->host_us + m->fw_tx_us + m->fw_rx_us + 2 * m->dma_setup_us + m->send_setup_us +
         m->link_lat_us;
}

double eudp_latency_us(const struct eudp_params *m, double s, bool fine) {
  /* The per-byte layers in order: sending bus and firmware, link, receiving firmware, bus. */
  const double t[] = {m->bus_ns, m->fw_tx_ns, m->link_ns, m->fw_rx_ns, m->bus_ns};
  double sum = 0, max = 0;
  for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
    sum += t[i];
    if (t[i] > max) max = t[i];
  }
  double th = s < m->theta ? s : m->theta;
  double bytes_ns = fine ? s * max + th * (sum - max) : s * sum;
  return eudp_model_overhead_us(m) + bytes_ns / 1e3;
}

double eudp_bandwidth_mbps(const struct eudp_params *m, double s) {
  /* What one packet holds each resource for, us: each host, each I/O bus, each NIC's
   * processor, the link. */
  const double r[] = {
      m->host_send_us,
      m->host_recv_us,
      m->dma_setup_us + s * m->bus_ns / 1e3,
      m->fw_tx_us + s * m->fw_tx_ns / 1e3,
      m->fw_rx_us + s * m->fw_rx_ns / 1e3,
      m->send_setup_us + s * m->link_ns / 1e3,
  };
  double max = 0;
  for (unsigned i = 0; i < sizeof r / sizeof r[0]; i++)
    if (r[i] > max) max = r[i];
  return s * 8 / max;   /* bits per us = Mb/s */
}

static const struct {
  const char *profile;
  struct eudp_paper paper;
} papers[] = {
    {"eudp-lanai9-pci32.prof",
     {", the test bed", ", the test bed", 951, 0,
      "E-UDP's large-message latency is 'almost even with the theoretical minimum' (the bus "
      "minimum column); peak 951 Mb/s = 94% of the PCI bus's 1007 Mb/s; the model is within "
      "5% of the measurements (Fig. 12)"}},
    {"eudp-2g-pci64-66.prof",
     {", Fig. 13a", ", Fig. 13b", 0, 0,
      "Fig. 13 (model only, no numbers in the text): fine-grained latency grows at the link's "
      "rate (the DMA hidden behind the link), far below coarse-grained; both reach 'a near "
      "physical bandwidth' (2000 Mb/s)"}},
    {"eudp-10g-pci64-133.prof",
     {", Fig. 14a", ", Fig. 14b", 0, 0,
      "Fig. 14 (model only): 'even fine-grained pipelining cannot fully utilize the network "
      "link': the LANai 9's per-packet processing dominates"}},
    {"pci64b-lanai9-myrinet2000.prof",
     {"; GM 1.6.4 on PCI64B: 8.5 us", "; GM 1.6.4: 240 MB/s", 1920, 8.5,
      "GM 1.6.4 on a PCI64B card: 240 MB/s (1920 Mb/s) one way, 8.5 us "
      "(notes/myrinet-and-tigon-facts.md)"}},
};

const struct eudp_paper *eudp_paper_for(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  for (unsigned i = 0; i < sizeof papers / sizeof papers[0]; i++)
    if (strcmp(base, papers[i].profile) == 0) return &papers[i].paper;
  return NULL;
}
