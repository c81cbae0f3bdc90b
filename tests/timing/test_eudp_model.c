/* test_eudp_model.c: E-UDP's analytic model (eudp_model.c) on the E-UDP test bed profile with
 * a given firmware cost, against values worked out by hand from the equations in
 * eudp_model.h; and the paper's numbers it prints beside the simulation. */
#include <math.h>
#include <stdio.h>

#include "../check.h"
#include "eudp_model.h"

#define NEAR(a, b) (fabs((a) - (b)) < 0.01)

int main(void) {
  struct profile p;
  char err[PROFILE_ERR_LEN];
  CHECK(profile_load("hw/profiles/eudp-lanai9-pci32.prof", &p, err, sizeof err) == 0, "%s", err);
  /* 16000 and 14000 cycles per message, 5 and 4.5 cycles per byte, at 133 MHz. */
  struct eudp_fw fw = {.tx_cycles = 16000, .tx_per_byte = 5, .rx_cycles = 14000, .rx_per_byte = 4.5};
  struct eudp_params m;
  eudp_params_from(&m, &p, &fw);
  /* host 0.3 + 1.3, firmware 120.30 + 105.26, two DMA set-ups 2, send 0.2, link 0.5 */
  CHECK(NEAR(eudp_model_overhead_us(&m), 229.864), "overhead %f", eudp_model_overhead_us(&m));
  /* coarse: + 32768 B x (7.944 + 37.594 + 6.25 + 33.835 + 7.944) ns */
  CHECK(NEAR(eudp_latency_us(&m, 32768, false), 3295.879), "coarse %f", eudp_latency_us(&m, 32768, false));
  /* fine: + 32768 x 37.594 (the slowest layer) + 1024 x (the others' 55.973) ns */
  CHECK(NEAR(eudp_latency_us(&m, 32768, true), 1519.060), "fine %f", eudp_latency_us(&m, 32768, true));
  CHECK(NEAR(eudp_latency_us(&m, 4, true), 230.238), "fine 4 B %f", eudp_latency_us(&m, 4, true));
  /* the sending firmware is the bottleneck: 120.30 + 32768 x 0.037594 us per packet */
  CHECK(NEAR(eudp_bandwidth_mbps(&m, 32768), 193.868), "bandwidth %f", eudp_bandwidth_mbps(&m, 32768));
  const struct eudp_paper *pp = eudp_paper_for("hw/profiles/eudp-lanai9-pci32.prof");
  CHECK(pp && pp->peak_mbps == 951, "E-UDP's peak");
  CHECK(eudp_paper_for("x/unknown.prof") == NULL, "unknown profile");
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
