/* main.c: nicd, the NIC daemon: hosts N emulated NICs (windows <prefix><N>, default
 * /verinic-nic<N>) joined by the in-memory fabric, runs the firmware of each (loop.c), and
 * serves connection set-up on a unix socket (cm.c, protocol in CONNECT.md). SIGTERM/SIGINT
 * stop it cleanly: every window is marked stopped (hosts waiting on it get -EPIPE) and
 * removed, with the socket and the pid file. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../hw/futex.h"
#include "nicd.h"

volatile sig_atomic_t nicd_stop;

static void on_signal(int sig) {
  (void)sig;
  nicd_stop = 1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: nicd [options]\n"
          "Hosts emulated Verinic NICs joined by an in-memory fabric and runs their firmware.\n"
          "  -n, --nics N        NICs to host, nodes 0..N-1 (default 2, at most %d)\n"
          "      --sram BYTES    SRAM per NIC (default 2 MiB; the firmware needs 2 MiB)\n"
          "      --fast          transfers take no emulated time (benchmarks)\n"
          "      --coarse        coarse-grained pipelining only (default: fine-grained)\n"
          "      --run DIR       run directory (default $VERINIC_RUN or /tmp/verinic-<uid>)\n"
          "      --socket PATH   connection manager socket (default DIR/nicd.sock)\n"
          "      --hosts PATH    name service file (default $VERINIC_HOSTS or DIR/hosts)\n"
          "      --prefix NAME   window name prefix (default /verinic-nic: /verinic-nic0, ...)\n"
          "  -v, --verbose       log connection manager errors\n"
          "  -h, --help          this text\n"
          "Protocol, name service and files: firmware/nicd/CONNECT.md.\n",
          NICD_MAX_NICS);
}

static struct nicd D;

int main(int argc, char **argv) {
  unsigned n = 2;
  uint32_t sram = 0;
  bool fast = false, coarse = false;
  const char *run = getenv("VERINIC_RUN"), *sock = NULL, *hosts = getenv("VERINIC_HOSTS");
  const char *prefix = "/verinic-nic";
  static const struct option opts[] = {
      {"nics", required_argument, 0, 'n'}, {"sram", required_argument, 0, 's'},
      {"fast", no_argument, 0, 'f'},       {"coarse", no_argument, 0, 'c'},
      {"run", required_argument, 0, 'r'},  {"socket", required_argument, 0, 'S'},
      {"hosts", required_argument, 0, 'H'}, {"prefix", required_argument, 0, 'p'},
      {"verbose", no_argument, 0, 'v'},    {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  int o;
  while ((o = getopt_long(argc, argv, "n:vh", opts, NULL)) != -1) {
    switch (o) {
    case 'n': n = (unsigned)strtoul(optarg, NULL, 10); break;
    case 's': sram = (uint32_t)strtoul(optarg, NULL, 0); break;
    case 'f': fast = true; break;
    case 'c': coarse = true; break;
    case 'r': run = optarg; break;
    case 'S': sock = optarg; break;
    case 'H': hosts = optarg; break;
    case 'p': prefix = optarg; break;
    case 'v': D.verbose = 1; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (n < 1 || n > NICD_MAX_NICS || optind != argc) {
    usage(stderr);
    return 2;
  }
  char rundir[200];
  if (run) snprintf(rundir, sizeof rundir, "%s", run);
  else snprintf(rundir, sizeof rundir, "/tmp/verinic-%u", (unsigned)getuid());
  if (mkdir(rundir, 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, "nicd: %s: %s\n", rundir, strerror(errno));
    return 1;
  }
  snprintf(D.sock_path, sizeof D.sock_path, "%s", sock ? sock : "");
  if (!sock) snprintf(D.sock_path, sizeof D.sock_path, "%s/nicd.sock", rundir);
  if (hosts) snprintf(D.hosts_path, sizeof D.hosts_path, "%s", hosts);
  else snprintf(D.hosts_path, sizeof D.hosts_path, "%s/hosts", rundir);

  struct memfab_config mc = {.nodes = n, .latency_ns = fast ? 0 : MEMFAB_DEFAULT_LATENCY_NS};
  D.fab = memfab_create(&mc);
  D.n = n;
  if (!D.fab) return 1;
  for (unsigned i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%u", prefix, i);
    struct nic_config c;
    nic_config_default(&c);
    c.node = (uint16_t)i;
    c.shm_name = name;
    c.sram_size = sram;
    c.timing = fast ? NIC_TIMING_FAST : NIC_TIMING_MODEL;
    int err = 0;
    D.nic[i] = nic_create(&c, &err);
    if (!D.nic[i]) {
      fprintf(stderr, "nicd: cannot create NIC %u (%s): error %d\n", i, name, err);
      return 1;
    }
    nic_attach(D.nic[i], D.fab);
    D.bd[i].nic = D.nic[i];
    struct fw_config fc = {.fine_mode = !coarse};
    if (fw_init(&D.fw[i], &D.bd[i], &fc) != 0) {
      fprintf(stderr, "nicd: NIC %u: SRAM too small for the firmware\n", i);
      return 1;
    }
  }
  if (hosts_write_default(D.hosts_path, n) != 0)
    fprintf(stderr, "nicd: cannot write %s: %s\n", D.hosts_path, strerror(errno));
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  int rc = cm_start(&D);
  if (rc != 0) {
    fprintf(stderr, "nicd: socket %s: %s\n", D.sock_path, strerror(-rc));
    return 1;
  }
  char pidf[256];
  snprintf(pidf, sizeof pidf, "%s/nicd.pid", rundir);
  FILE *pf = fopen(pidf, "w");
  if (pf) {
    fprintf(pf, "%d\n", (int)getpid());
    fclose(pf);
  }
  printf("nicd: %u NICs (%s0..%u), socket %s, hosts %s\n", n, prefix, n - 1, D.sock_path,
         D.hosts_path);
  fflush(stdout);
  D.t0 = hw_mono_ns();
  nicd_loop(&D);
  cm_stop();
  for (unsigned i = 0; i < n; i++) nic_destroy(D.nic[i]);
  fabric_close(D.fab);
  unlink(pidf);
  return 0;
}
