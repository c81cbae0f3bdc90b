/* main.c: nicd, the NIC daemon: hosts N emulated NICs (windows <prefix><N>, default
 * /verinic-nic<N>) joined by the in-memory fabric, or with --udp the NICs of its address in a
 * cluster file, joined to the other nicds' by the UDP fabric (cluster.c, peer.c), runs the firmware of each (loop.c), and
 * serves connection set-up on a unix socket (cm.c, protocol in CONNECT.md). The firmware is the
 * native build (the default) or, with --lanai IMAGE, the LANai image on an instruction-set
 * simulator per NIC (lanai.c). SIGTERM/SIGINT
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

#include "futex.h"
#include "fw_cpus.h"
#include "fw_init.h"
#include "../hw/cpus.h"
#include "../hw/lanai/iss.h"
#include "../hw/peerdma.h"
#include "../hw/profile.h"
#include "naming.h"
#include "nicd.h"
#include "../hw/udpfab.h"

#define DEFAULT_WATCHDOG_MS 500

volatile sig_atomic_t nicd_stop;

static void on_signal(int sig) {
  (void)sig;
  nicd_stop = 1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: nicd [options]\n"
          "Hosts emulated Verinic NICs joined by an in-memory fabric (or, with --udp, a\n"
          "machine's NICs of a cluster joined by UDP) and runs their firmware.\n"
          "  -n, --nics N        NICs to host, nodes 0..N-1 (default 2, at most %d)\n"
          "      --sram BYTES    SRAM per NIC (default and least the firmware needs: 4 MiB)\n"
          "      --fast          transfers take no emulated time (benchmarks); coarse-grained\n"
          "                      pipelining unless --fine (with no time to overlap, splitting\n"
          "                      a packet's DMA only multiplies the events)\n"
          "      --coarse        coarse-grained pipelining only (default with --fast; with\n"
          "                      --lanai, the image's fw_lanai_fine_mode is cleared at boot)\n"
          "      --fine          fine-grained pipelining too (default without --fast)\n"
          "      --lanai IMAGE   run the LANai firmware image (make firmware-lanai:\n"
          "                      build/lanai/firmware.img) on an instruction-set simulator\n"
          "                      per NIC (default: the native firmware, built into nicd)\n"
          "      --watchdog-ms MS  with --lanai: a NIC whose firmware does not poll its events\n"
          "                      for MS ms of processor time faults (default %d)\n"
          "      --timing PROFILE  with --lanai: virtual time, deterministic: every hardware\n"
          "                      action, the processor's cycles and the hosts' library calls\n"
          "                      take what the hardware profile says (hw/profiles/*.prof)\n"
          "      --trace FILE    with --timing: each engine's and processor's busy intervals\n"
          "                      (NODE ENGINE START_NS END_NS per line; scripts/timeline.sh)\n"
          "      --lanai-trace N with --lanai: every instruction of NIC N into DIR/lanaiN.trace\n"
          "      --cpus N        firmware processors per NIC, 1 or 2 (as the Tigon's: the send\n"
          "                      side on processor 0, the receive side on 1); default 1, or\n"
          "                      with --timing the profile's `processors`\n"
          "      --threads N     threads running the NICs, each a share of them (default\n"
          "                      $VERINIC_NICD_THREADS, else 1; at most the NICs; one with --udp\n"
          "                      or --timing; not with SPINE's peer DMA across threads)\n"
          "      --run DIR       run directory (default $VERINIC_RUN or /tmp/verinic-<uid>)\n"
          "      --socket PATH   connection manager socket (default DIR/nicd.sock)\n"
          "      --hosts PATH    name service file (default $VERINIC_HOSTS or DIR/hosts)\n"
          "      --prefix NAME   window name prefix (default /verinic-nic: /verinic-nic0, ...)\n"
          "      --mode MODE     permission bits of the windows and the socket (octal, default\n"
          "                      0600: nicd's user alone; 0666: every user; run directory to match)\n"
          "      --group GROUP   their group (a name or number; mode 0660 unless --mode)\n"
          "      --idle-ms MS    close a connection-manager client that sends nothing and\n"
          "                      waits for nothing for MS milliseconds (default 10000)\n"
          "      --udp           a cluster over UDP: the NICs are nodes of the cluster file, joined\n"
          "                      to the other nicds' by UDP datagrams (nicd/README.md)\n"
          "      --cluster FILE  the cluster file: the hosts file with addresses, NAME NODE\n"
          "                      HOST:PORT (default $VERINIC_HOSTS); also the name service's\n"
          "      --node N[,M..]  the nodes this nicd hosts (default: those whose address is\n"
          "                      one of this machine's); they share one HOST:PORT\n"
          "      --loss P --dup P --reorder P --corrupt P\n"
          "                      with --udp: inject faults into sent datagrams, each with\n"
          "                      probability P (0..1)\n"
          "      --seed N        the fault generator's seed (default 1): same seed, same faults\n"
          "  -v, --verbose       log connection manager errors\n"
          "  -h, --help          this text\n"
          "Protocol, name service and files: nicd/CONNECT.md.\n",
          NICD_MAX_NICS, DEFAULT_WATCHDOG_MS);
}

static struct nicd D;

/* --threads' default: $VERINIC_NICD_THREADS when it is a number from 1 to NICD_MAX_NICS, else
 * 1. More threads are for benchmarks: on two cores a second thread took the CPU the hosts
 * needed (small-message streaming lost more than large-message streaming gained), and SPINE's
 * peer DMA between NICs of different threads loses packets (nicd/README.md). */
static unsigned default_threads(void) {
  const char *e = getenv("VERINIC_NICD_THREADS");
  char *end;
  long v = e && *e ? strtol(e, &end, 10) : 0;
  return e && *e && *end == 0 && v >= 1 && v <= NICD_MAX_NICS ? (unsigned)v : 1;
}

/* --udp's cluster: where the nodes are (the parsed file and the fabric's address list are
 * needed until the fabric is created, D.clu as long as nicd runs). */
static struct naming_hosts clh;
static struct udpfab_addr *addrs;
static void free_cluster(void) {
  free(addrs);
  addrs = NULL;
  naming_hosts_free(&clh);
  cluster_free(&D.clu);
}

/* A whole decimal (or 0x hex) number in [lo, hi], or -1 with a message naming the option. */
static long long number_arg(const char *opt, const char *s, long long lo, long long hi) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 0);
  if (errno || end == s || *end || v < lo || v > hi) {
    fprintf(stderr, "nicd: %s: '%s' is not a number from %lld to %lld\n", opt, s, lo, hi);
    return -1;
  }
  return v;
}

int main(int argc, char **argv) {
  unsigned n = 2;
  uint32_t sram = 0;
  bool fast = false, coarse = false, fine = false;
  const char *run = getenv("VERINIC_RUN"), *sock = NULL, *hosts = getenv("VERINIC_HOSTS");
  const char *prefix = "/verinic-nic", *image = NULL;
  long watchdog_ms = DEFAULT_WATCHDOG_MS, trace_nic = -1;
  static const struct option opts[] = {
      {"nics", required_argument, 0, 'n'}, {"sram", required_argument, 0, 's'},
      {"fast", no_argument, 0, 'f'},       {"coarse", no_argument, 0, 'c'},
      {"fine", no_argument, 0, '7'},
      {"run", required_argument, 0, 'r'},  {"socket", required_argument, 0, 'S'},
      {"hosts", required_argument, 0, 'H'}, {"prefix", required_argument, 0, 'p'}, {"idle-ms", required_argument, 0, 'i'},
      {"verbose", no_argument, 0, 'v'},    {"help", no_argument, 0, 'h'},
      {"lanai", required_argument, 0, 'L'}, {"watchdog-ms", required_argument, 0, 'W'},
      {"lanai-trace", required_argument, 0, 'T'},
      {"udp", no_argument, 0, 'U'},         {"cluster", required_argument, 0, 'C'},
      {"node", required_argument, 0, 'N'},  {"loss", required_argument, 0, '1'},
      {"dup", required_argument, 0, '2'},   {"reorder", required_argument, 0, '3'},
      {"corrupt", required_argument, 0, '4'}, {"seed", required_argument, 0, '5'},
      {"timing", required_argument, 0, 't'}, {"trace", required_argument, 0, 'x'},
      {"cpus", required_argument, 0, 'P'}, {"mode", required_argument, 0, 'm'},
      {"group", required_argument, 0, 'g'}, {"threads", required_argument, 0, '6'},
      {0, 0, 0, 0}};
  const char *cluster_file = NULL, *profile_file = NULL, *trace_file = NULL;
  const char *mode = NULL, *group = NULL;
  bool n_given = false, faults_given = false;
  unsigned threads = 0;   /* --threads; 0: $VERINIC_NICD_THREADS or 1 */
  uint16_t want[NICD_MAX_NICS];
  unsigned nwant = 0;
  struct udpfault_cfg faults = {.seed = 1};
  int o;
  D.cm_idle_ms = 10000;
  while ((o = getopt_long(argc, argv, "n:vh", opts, NULL)) != -1) {
    switch (o) {
    case 'n': {
      long long v = number_arg("-n", optarg, 1, NICD_MAX_NICS);
      if (v < 0) return 2;
      n = (unsigned)v;
      n_given = true;
      break;
    }
    case 'U': D.udp = true; break;
    case 'C': cluster_file = optarg; break;
    case 'N':
      for (char *save = NULL, *t = strtok_r(optarg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long long v = number_arg("--node", t, 0, NAMING_NODE_MAX);
        if (v < 0) return 2;
        if (nwant == NICD_MAX_NICS) {
          fprintf(stderr, "nicd: --node: at most %d nodes\n", NICD_MAX_NICS);
          return 2;
        }
        want[nwant++] = (uint16_t)v;
      }
      break;
    case '1': case '2': case '3': case '4': {
      char *end;
      double p = strtod(optarg, &end);
      if (end == optarg || *end || !(p >= 0 && p <= 1)) {
        fprintf(stderr, "nicd: --%s: '%s' is not a probability from 0 to 1\n",
                o == '1' ? "loss" : o == '2' ? "dup" : o == '3' ? "reorder" : "corrupt", optarg);
        return 2;
      }
      *(o == '1' ? &faults.loss : o == '2' ? &faults.dup : o == '3' ? &faults.reorder
                                                                    : &faults.corrupt) = p;
      faults_given = true;
      break;
    }
    case '5': {
      long long v = number_arg("--seed", optarg, 0, INT64_MAX);
      if (v < 0) return 2;
      faults.seed = (uint64_t)v;
      break;
    }
    case 's': {
      long long v = number_arg("--sram", optarg, 0, UINT32_MAX);
      if (v < 0) return 2;
      sram = (uint32_t)v;
      break;
    }
    case 'f': fast = true; break;
    case 'c': coarse = true; break;
    case '7': fine = true; break;
    case 'r': run = optarg; break;
    case 'S': sock = optarg; break;
    case 'H': hosts = optarg; break;
    case 'p': prefix = optarg; break;
    case 'm': mode = optarg; break;
    case 'g': group = optarg; break;
    case 'i': {
      long long v = number_arg("--idle-ms", optarg, 1, 3600000);
      if (v < 0) return 2;
      D.cm_idle_ms = (unsigned)v;
      break;
    }
    case 'v': D.verbose = 1; break;
    case 'L': image = optarg; break;
    case 't': profile_file = optarg; break;
    case 'x': trace_file = optarg; break;
    case 'P': {
      long long v = number_arg("--cpus", optarg, 1, 2);
      if (v < 0) return 2;
      D.cpus = (unsigned)v;
      break;
    }
    case '6': {
      long long v = number_arg("--threads", optarg, 1, NICD_MAX_NICS);
      if (v < 0) return 2;
      threads = (unsigned)v;
      break;
    }
    case 'W': watchdog_ms = strtol(optarg, NULL, 10); break;
    case 'T': trace_nic = strtol(optarg, NULL, 10); break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc) {
    fprintf(stderr, "nicd: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return 2;
  }
  const char *misuse = watchdog_ms <= 0                 ? "--watchdog-ms: not a positive number"
                       : !image && trace_nic >= 0       ? "--lanai-trace: needs --lanai"
                       : trace_nic >= (long)n           ? "--lanai-trace: no such NIC"
                       : D.udp && n_given                ? "-n: with --udp the cluster file says which NICs"
                       : !D.udp && (cluster_file || nwant) ? "--cluster/--node: need --udp"
                       : !D.udp && faults_given          ? "--loss/--dup/--reorder/--corrupt: need --udp"
                       : profile_file && !image          ? "--timing: needs --lanai (the firmware's time is its cycles)"
                       : profile_file && (fast || D.udp) ? "--timing: not with --fast or --udp"
                       : trace_file && !profile_file     ? "--trace: needs --timing"
                       : threads > 1 && (D.udp || profile_file) ? "--threads: one with --udp or --timing"
                       : coarse && fine                  ? "--coarse and --fine: choose one"
                                                        : NULL;
  if (misuse) {
    fprintf(stderr, "nicd: %s\n", misuse);
    return 2;
  }
  struct profile prof;
  if (profile_file) {
    char err[PROFILE_ERR_LEN];
    if (profile_load(profile_file, &prof, err, sizeof err) != 0) {
      fprintf(stderr, "nicd: %s\n", err);
      return 2;
    }
    D.timing = true;
    if (!D.cpus) D.cpus = (unsigned)prof.processors;   /* --cpus overrides the profile */
    D.nic_hz = prof.nic_hz;
    D.wake_ns = prof.host_wake_ns;
    if (trace_file && !(D.vt_trace = fopen(trace_file, "w"))) {
      fprintf(stderr, "nicd: %s: %s\n", trace_file, strerror(errno));
      return 1;
    }
  }
  if (!D.cpus) D.cpus = 1;
  vitab_stamp_seed(D.timing);
  bool coarse_asked = coarse;
  if (fast && !fine) coarse = true;
  D.threads = D.udp || D.timing ? 1 : threads ? threads : default_threads();
  struct iss_image img = {0};
  if (image) {
    char err[256];
    if (iss_image_read(image, sram ? sram : HW_SRAM_DEFAULT, &img, err, sizeof err) != 0) {
      fprintf(stderr, "nicd: %s\n", err);
      return 1;
    }
    D.lanai = true;
  }
  struct nicd_access acc;
  char acc_why[160];
  if (access_parse(&acc, mode, group, acc_why, sizeof acc_why) != 0) {
    fprintf(stderr, "nicd: %s\n", acc_why);
    return 2;
  }
  char rundir[200];
  if (run) snprintf(rundir, sizeof rundir, "%s", run);
  else naming_run_path(NULL, rundir, sizeof rundir);
  if (mkdir(rundir, 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, "nicd: cannot create run directory %s: %s\n", rundir, strerror(errno));
    return 1;
  }
  int arc = access_rundir(&acc, rundir);
  if (arc != 0) {
    fprintf(stderr, "nicd: --mode/--group: run directory %s: %s\n", rundir, strerror(-arc));
    return 1;
  }
  snprintf(D.sock_path, sizeof D.sock_path, "%s", sock ? sock : "");
  if (!sock) snprintf(D.sock_path, sizeof D.sock_path, "%s/nicd.sock", rundir);
  if (hosts) snprintf(D.hosts_path, sizeof D.hosts_path, "%s", hosts);
  else snprintf(D.hosts_path, sizeof D.hosts_path, "%s/hosts", rundir);

  unsigned naddrs = 0;
  if (D.udp) {
    if (!cluster_file) cluster_file = getenv(NAMING_HOSTS_ENV);
    if (!cluster_file || !*cluster_file) {
      fprintf(stderr, "nicd: --udp needs a cluster file: --cluster FILE or $%s\n", NAMING_HOSTS_ENV);
      return 2;
    }
    char err[NAMING_ERR_LEN + 64];
    if (naming_hosts_load(cluster_file, &clh, err, sizeof err) != 0) {
      fprintf(stderr, "nicd: %s\n", err);
      return 1;
    }
    int rc = cluster_setup(&D, &clh, want, nwant, &addrs, &naddrs, err, sizeof err);
    atexit(free_cluster);   /* whichever way main ends */
    if (rc != 0) {
      fprintf(stderr, "nicd: %s: %s\n", cluster_file, err);
      return 1;
    }
    n = D.n;
    if (!hosts) snprintf(D.hosts_path, sizeof D.hosts_path, "%s", cluster_file);
  } else {
    for (unsigned i = 0; i < n; i++) D.node[i] = (uint16_t)i;
  }

  char pidf[256], why[320];
  snprintf(pidf, sizeof pidf, "%s/nicd.pid", rundir);
  if (takeover_rundir(pidf, why, sizeof why) != 0) {
    fprintf(stderr, "nicd: %s\n", why);
    return 1;
  }
  D.n = n;
  if (D.udp) {
    char err[UDPFAB_ERR_LEN];
    struct udpfab_config uc = {.nodes = D.clu.nodes, .addrs = addrs, .naddrs = naddrs,
                               .local = D.node, .nlocal = n, .faults = faults,
                               .caller_flushes = true};   /* loop.c flushes before waiting */
    D.nodes = D.clu.nodes;
    D.fab = udpfab_create(&uc, err, sizeof err);
    if (!D.fab) {
      fprintf(stderr, "nicd: %s: %s\n", cluster_file, err);
      return 1;
    }
    const char *fail = peer_start(&D, err, sizeof err) != 0           ? err
                       : udpwake_start(udpfab_fd(D.fab), &D.wake) != 0 ? "cannot start the UDP receiver thread"
                                                                        : NULL;
    if (fail) {
      fprintf(stderr, "nicd: %s\n", fail);
      peer_stop();
      fabric_close(D.fab);
      return 1;
    }
  } else {
    struct memfab_config mc = {.nodes = n, .latency_ns = fast ? 0 : MEMFAB_DEFAULT_LATENCY_NS};
    if (D.timing) mc.latency_ns = prof.link_latency_ns;
    D.fab = memfab_create(&mc);
    D.nodes = n;
  }
  if (!D.fab) {
    fprintf(stderr, "nicd: cannot create the fabric: out of memory\n");
    return 1;
  }
  for (unsigned i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%u", prefix, (unsigned)D.node[i]);
    struct nic_config c;
    nic_config_default(&c);
    c.node = D.node[i];
    c.shm_name = name;
    c.sram_size = sram;
    c.timing = fast ? NIC_TIMING_FAST : NIC_TIMING_MODEL;
    if (D.timing) {
      c.hdma_bytes_per_s = prof.hdma_bps;
      c.hdma_latency_ns = prof.hdma_setup_ns;
      c.link_bytes_per_s = prof.link_bps;
      c.send_latency_ns = prof.send_setup_ns;
      if (D.vt_trace) c.trace = vt_trace_engine, c.trace_ctx = &D;
    }
    int err = 0;
    if (takeover_window(name, why, sizeof why) != 0) {
      fprintf(stderr, "nicd: cannot create NIC %u: %s\n", i, why);
      return 1;
    }
    D.nic[i] = nic_create(&c, &err);
    if (!D.nic[i]) {
      int e = errno;
      fprintf(stderr, "nicd: cannot create NIC %u (%s): %s (%s)\n", i, name, nicd_nic_error(err),
              strerror(e));
      return 1;
    }
    if ((arc = access_window(&acc, name)) != 0) {
      fprintf(stderr, "nicd: --mode/--group: NIC %u (%s): %s\n", i, name, strerror(-arc));
      return 1;
    }
    nic_attach(D.nic[i], D.fab);
    peerdma_attach(D.nic[i]);   /* SPINE's router: its NICs reach each other's SRAM */
    if (D.timing) {   /* before any host maps the window */
      struct hw_vt *vt = &nic_window(D.nic[i])->regs->vt;
      vt->call_ns = prof.host_call_ns;
      vt->wake_ns = prof.host_wake_ns;
      vt->copy_bps = prof.host_copy_bps;
      atomic_store(&vt->on, 1);
    }
    D.bd[i].nic = D.nic[i];
    struct fw_config fc = {.fine_mode = !coarse};
    if (D.lanai) {
      if (D.cpus == 2) nic_cpus_set(D.nic[i], 2, FW_CPU1_ISR);   /* before the image runs */
      if (lanai_boot(&D.cpu[i], D.nic[i], &img, (uint64_t)watchdog_ms * 1000000ull) != 0) {
        fprintf(stderr, "nicd: NIC %u: cannot boot %s (out of memory, or larger than SRAM)\n",
                i, image);
        return 1;
      }
      if (D.cpus == 2 &&
          lanai_boot_cpu1(&D.cpu1[i], D.nic[i], image, (uint64_t)watchdog_ms * 1000000ull) != 0) {
        fprintf(stderr, "nicd: NIC %u: --cpus 2: no _start1 in %s's map (or out of memory)\n",
                i, image);
        return 1;
      }
      /* --fast's coarse mode is a preference: an image without the switch keeps its mode */
      if (coarse && lanai_patch(&D.cpu[i], image, "fw_lanai_fine_mode", 0) != 0 && coarse_asked) {
        fprintf(stderr, "nicd: --coarse: %s has no fw_lanai_fine_mode in its map\n", image);
        return 1;
      }
      if ((long)i == trace_nic) {
        char path[300];
        snprintf(path, sizeof path, "%s/lanai%u.trace", rundir, i);
        if (lanai_trace(&D.cpu[i], path) != 0) {
          fprintf(stderr, "nicd: %s: %s\n", path, strerror(errno));
          return 1;
        }
        printf("nicd: NIC %u: tracing its instructions into %s\n", i, path);
      }
    } else if (fw_init(&D.fw[i], &D.bd[i], &fc) != 0) {
      fprintf(stderr, "nicd: NIC %u: SRAM too small for the firmware\n", i);
      return 1;
    } else if (D.cpus == 2) {
      nicd_cpus2_start(&D, i);
    }
  }
  if (!D.udp && hosts_write_default(D.hosts_path, n) != 0)
    fprintf(stderr, "nicd: cannot write %s: %s\n", D.hosts_path, strerror(errno));
  else if (!D.udp && !hosts && (arc = access_file(&acc, D.hosts_path)) != 0)
    fprintf(stderr, "nicd: --mode/--group: %s: %s\n", D.hosts_path, strerror(-arc));
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  int rc = cm_start(&D);
  if (rc != 0) {
    fprintf(stderr, "nicd: cannot serve connection set-up on socket %s: %s\n", D.sock_path, strerror(-rc));
    return 1;
  }
  if ((arc = access_socket(&acc, D.sock_path)) != 0) {
    fprintf(stderr, "nicd: --mode/--group: socket %s: %s\n", D.sock_path, strerror(-arc));
    return 1;
  }
  FILE *pf = fopen(pidf, "w");
  if (pf) {
    fprintf(pf, "%d\n", (int)getpid());
    fclose(pf);
  }
  if (D.udp) {
    char list[NICD_MAX_NICS * 7] = "";
    for (unsigned i = 0; i < n; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u", i ? "," : "",
               (unsigned)D.node[i]);
    printf("nicd: %u NICs (nodes %s, windows %s<node>), UDP %s%s%s:%u, %u peer nicds, "
           "socket %s, cluster %s, firmware %s\n", n, list, prefix,
           strchr(D.clu.host, ':') ? "[" : "", D.clu.host, strchr(D.clu.host, ':') ? "]" : "",
           (unsigned)udpfab_port(D.fab), D.clu.npeers, D.sock_path, D.hosts_path,
           image ? image : "native");
  } else {
    unsigned threads_used = D.threads < n ? D.threads : n;
    printf("nicd: %u NICs (%s0..%u), socket %s, hosts %s, firmware %s%s%s%s", n, prefix, n - 1,
           D.sock_path, D.hosts_path, image ? image : "native",
           D.cpus == 2 ? " on 2 processors" : "",
           D.timing ? ", timing mode: " : "", D.timing ? prof.name : "");
    if (threads_used > 1) printf(", %u threads", threads_used);
    printf("\n");
    if (threads_used > 1)
      fprintf(stderr, "nicd: note: with --threads, SPINE's peer DMA between NICs of different "
                      "threads is not supported (nicd/README.md)\n");
  }
  fflush(stdout);
  D.t0 = futex_now_ns();
  if (D.timing) nicd_timing_loop(&D);
  else nicd_loop(&D);
  cm_stop();
  udpwake_stop();
  for (unsigned i = 0; i < n; i++) {
    if (D.lanai) lanai_free(&D.cpu[i]);
    peerdma_detach(D.nic[i]);
    if (D.lanai && D.cpus == 2) lanai_free(&D.cpu1[i]);
    nic_destroy(D.nic[i]);
  }
  iss_image_free(&img);
  fabric_close(D.fab);
  unlink(pidf);
  return 0;
}
