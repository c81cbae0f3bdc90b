/* bs_report.c: the results of bench_sovia as the paper shows them: latency tables like its
 * Tables 2/3 (median RTT/2, then the p10-p90 spread), a bandwidth table (the data of its
 * Figs. 7/8: median Mbps, then min-max), the targets, and in outdir the data files
 * (sovia_latency.dat, sovia_bandwidth.dat) and plots like Figs. 5 and 8 drawn by gnuplot
 * (sovia_latency.png/.svg, sovia_latency_small.png/.svg, sovia_bandwidth.png/.svg); without
 * gnuplot the plots are skipped with a message. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bs.h"
#include "summary.h"
#include "../tests/vipl/bench_floor.h"

static const struct bs_point *pt(const struct bs_series *s, bool lat, unsigned k) {
  return lat ? &s->r.lat_us[k] : &s->r.bw_mbps[k];
}

static bool shown(const struct bs_series *s, bool lat) {
  return s->r.ok && (s->what & (lat ? BS_LAT : BS_BW));
}

static const char *short_label(const char *l) { return strncmp(l, "SOVIA_", 6) ? l : l + 6; }

static void size_name(uint32_t sz, char *out, size_t cap) {
  if (sz >= 1024) snprintf(out, cap, "%uK", sz / 1024);
  else snprintf(out, cap, "%u", sz);
}

static void table(const struct bs_series *s, size_t n, bool lat, bool spread, unsigned nsizes) {
  printf("%8s", lat ? "size (B)" : "size (B)");
  for (size_t j = 0; j < n; j++)
    if (shown(&s[j], lat)) printf(" %15s", short_label(s[j].label));
  printf("\n");
  for (unsigned k = 0; k < nsizes; k++) {
    char sz[16];
    size_name(bs_sizes[k], sz, sizeof sz);
    printf("%8s", sz);
    for (size_t j = 0; j < n; j++) {
      if (!shown(&s[j], lat)) continue;
      const struct bs_point *p = pt(&s[j], lat, k);
      char cell[40];
      if (spread) snprintf(cell, sizeof cell, lat ? "%.1f-%.1f" : "%.0f-%.0f", p->lo, p->hi);
      else snprintf(cell, sizeof cell, lat ? "%.2f" : "%.1f", p->med);
      printf(" %15s", cell);
    }
    printf("\n");
  }
}

static const struct bs_series *find(const struct bs_series *s, size_t n, const char *label) {
  for (size_t j = 0; j < n; j++)
    if (!strcmp(s[j].label, label) && s[j].r.ok) return &s[j];
  return NULL;
}

static void targets(const struct bs_series *s, size_t n, unsigned nsizes) {
  const struct bs_series *v = find(s, n, "Native VIA"), *h = find(s, n, "SOVIA_HYBRID"),
                         *d = find(s, n, "SOVIA_DACKS"), *c = find(s, n, "SOVIA_COMBINE"),
                         *t = find(s, n, "TCP");
  printf("\nTargets (issue 5):\n");
  if (v && h) {
    double r = h->r.lat_us[0].med / v->r.lat_us[0].med;
    printf("  4-byte latency, SOVIA_HYBRID within 15%% of native VIPL (paper: 10.5 vs 8.3 us, "
           "x1.27): %.2f vs %.2f us, x%.2f: %s\n",
           h->r.lat_us[0].med, v->r.lat_us[0].med, r, r <= 1.15 ? "met" : "missed");
  }
  if (v && d) {
    double r = d->r.lat_us[0].med / v->r.lat_us[0].med;
    printf("  4-byte latency, SOVIA_DACKS (w=32: ACKs piggybacked) vs native VIPL: %.2f vs "
           "%.2f us, x%.2f: %s\n", d->r.lat_us[0].med, v->r.lat_us[0].med, r,
           r <= 1.15 ? "met" : "missed");
  }
  unsigned last = nsizes - 1;
  const struct bs_series *best = d;
  if (c && (!best || c->r.bw_mbps[last].med > best->r.bw_mbps[last].med)) best = c;
  if (v && best) {
    double r = best->r.bw_mbps[last].med / v->r.bw_mbps[last].med;
    printf("  32 KB bandwidth within 2%% of native VIPL (paper: 814 vs 815 Mbps): %s %.0f vs "
           "%.0f Mbps, %.1f%%: %s\n", best->label, best->r.bw_mbps[last].med,
           v->r.bw_mbps[last].med, 100 * r, r >= 0.98 ? "met" : "missed");
  }
  if (t && (h || d)) {
    const struct bs_series *x = h ? h : d;
    printf("  latency below kernel TCP over loopback: %s %.2f vs TCP %.2f us at 4 B: %s\n",
           x->label, x->r.lat_us[0].med, t->r.lat_us[0].med,
           x->r.lat_us[0].med < t->r.lat_us[0].med ? "met" : "missed");
  }
  if (!best) return;
  double mbs = best->r.bw_mbps[last].med / 8;   /* Mbps to MB/s */
  double cp = floor_memcpy_mbs(), polite = floor_stream_mbs(false), awake = floor_stream_mbs(true);
  printf("\nFloors in the same run: memcpy %.0f MB/s; 32 KiB messages copied five times through a "
         "3-process relay %.0f MB/s with the product's wait strategy, %.0f MB/s with every "
         "process spinning\n", cp, polite, awake);
  summary_header();
  if (v && d)
    summary_row("SOVIA_DACKS 4 B one-way, us", d->r.lat_us[0].med, "native VIPL", v->r.lat_us[0].med,
                1.10, false);
  summary_row("SOVIA 32 KB streaming, MB/s", mbs, "memcpy 32 KiB chunks", cp, 0.25, true);
  summary_row("SOVIA 32 KB streaming, MB/s", mbs, "5-copy relay, product wait", polite, 1.0, true);
}

static void write_dat(const char *path, const struct bs_series *s, size_t n, bool lat,
                      unsigned nsizes) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
    return;
  }
  fprintf(f, "# %s: size, then median low high per series (%s)\n# size",
          lat ? "latency RTT/2 in us" : "bandwidth in Mbps",
          lat ? "low/high: p10/p90" : "low/high: min/max of the repetitions");
  for (size_t j = 0; j < n; j++)
    if (shown(&s[j], lat)) fprintf(f, " \"%s\" - -", s[j].label);
  fprintf(f, "\n");
  for (unsigned k = 0; k < nsizes; k++) {
    fprintf(f, "%u", bs_sizes[k]);
    for (size_t j = 0; j < n; j++)
      if (shown(&s[j], lat)) {
        const struct bs_point *p = pt(&s[j], lat, k);
        fprintf(f, " %.3f %.3f %.3f", p->med, p->lo, p->hi);
      }
    fprintf(f, "\n");
  }
  fclose(f);
}

/* One plot command over the series of a data file, with error bars for the spread. */
static void plot_cmd(FILE *g, const char *dat, const struct bs_series *s, size_t n, bool lat,
                     const char *every) {
  fprintf(g, "plot");
  unsigned col = 2;
  bool first = true;
  for (size_t j = 0; j < n; j++) {
    if (!shown(&s[j], lat)) continue;
    fprintf(g, "%s '%s' %s using 1:%u:%u:%u with yerrorlines title '%s'", first ? "" : ",",
            dat, every, col, col + 1, col + 2, s[j].label);
    first = false;
    col += 3;
  }
  fprintf(g, "\n");
}

static bool any_shown(const struct bs_series *s, size_t n, bool lat) {
  for (size_t j = 0; j < n; j++)
    if (shown(&s[j], lat)) return true;
  return false;
}

static void plots(const struct bs_series *s, size_t n, const char *outdir, const char *lat_dat,
                  const char *bw_dat) {
  char gp[512];
  snprintf(gp, sizeof gp, "%s/sovia_plots.gp", outdir);
  FILE *g = fopen(gp, "w");
  if (!g) return;
  fprintf(g, "# gnuplot script written by bench_sovia: plots like Figs. 5 and 8 of the SOVIA "
             "paper\nset grid\nset key top left\nset logscale x 2\nset xtics ('4' 4, '16' 16, "
             "'64' 64, '256' 256, '1K' 1024, '4K' 4096, '16K' 16384, '32K' 32768)\n");
  const char *terms[2][2] = {{"pngcairo size 960,640 noenhanced", "png"},
                             {"svg size 960,640 noenhanced", "svg"}};
  /* a run limited by --lat, --bw or --only may leave a plot without series: it is left out */
  bool lat = any_shown(s, n, true), bw = any_shown(s, n, false);
  for (int t = 0; t < 2; t++) {
    fprintf(g, "set terminal %s\n", terms[t][0]);
    if (lat) {
      fprintf(g, "set output '%s/sovia_latency.%s'\nset title 'Ping-pong latency (RTT/2)'\n"
                 "set xlabel 'message size'\nset ylabel 'microseconds'\nset logscale y 10\n",
              outdir, terms[t][1]);
      plot_cmd(g, lat_dat, s, n, true, "");
      fprintf(g, "set output '%s/sovia_latency_small.%s'\nset title 'Ping-pong latency, small "
                 "messages (cf. Fig. 5)'\nunset logscale y\nset yrange [0:*]\n",
              outdir, terms[t][1]);
      plot_cmd(g, lat_dat, s, n, true, "every ::0::8");
    }
    if (bw) {
      fprintf(g, "set output '%s/sovia_bandwidth.%s'\nset title 'Unidirectional bandwidth "
                 "(cf. Fig. 8; log scale: TCP over loopback is a memory copy)'\n"
                 "set xlabel 'message size'\nset ylabel 'Mbps'\n"
                 "set logscale y 10\nset yrange [*:*]\nset key top left\n",
              outdir, terms[t][1]);
      plot_cmd(g, bw_dat, s, n, false, "");
    }
    fprintf(g, "unset output\nunset logscale y\nset autoscale y\n");
  }
  fclose(g);
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    printf("\nPlots skipped: gnuplot is not installed (apt-get install gnuplot-nox); the data "
           "and the script are in %s/ (gnuplot %s).\n", outdir, gp);
    return;
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>&1", gp);
  if (system(cmd) == 0)
    printf("\nPlots in %s/:%s%s (and .svg)\n", outdir,
           lat ? " sovia_latency.png, sovia_latency_small.png" : "", bw ? " sovia_bandwidth.png" : "");
  else
    printf("\nPlots: gnuplot failed on %s\n", gp);
}

static void mkdirs(const char *dir) {
  char p[512];
  snprintf(p, sizeof p, "%s", dir);
  for (char *c = p + 1; *c; c++)
    if (*c == '/') {
      *c = 0;
      mkdir(p, 0755);
      *c = '/';
    }
  mkdir(p, 0755);
}

void bs_report(struct bs_series *s, size_t n, const struct bs_params *p, const char *outdir) {
  const char *timing = getenv("VERINIC_TIMING");
  char mode[300] = "nicd --fast";
  if (timing && *timing)   /* the VIA and SOVIA series in virtual time; TCP stays real */
    snprintf(mode, sizeof mode, "nicd --timing %s (virtual time; TCP in real time)", timing);
  printf("\nSOVIA microbenchmarks (paper Fig. 2) over %s, beside native VIPL and "
         "kernel TCP over loopback%s\n", mode, p->smoke ? " [SMOKE: tiny counts, numbers mean "
                                                          "nothing]" : "");
  for (size_t j = 0; j < n; j++) {
    printf("  %-15s %s", s[j].label, s[j].how);
    if (s[j].r.eff_w) printf(" (in use: w=%d t=%d)", s[j].r.eff_w, s[j].r.eff_t);
    printf("%s\n", s[j].r.ok ? "" : "  [FAILED]");
  }
  printf("\nPing-pong latency, RTT/2 in microseconds: median of the %u rounds' medians of %u "
         "round trips per size (cf. the paper's Tables 2 and 3)\n", p->rounds, p->lat_iters);
  table(s, n, true, false, p->nsizes);
  printf("\nSpread: p10-p90 (medians of the rounds')\n");
  table(s, n, true, true, p->nsizes);
  printf("\nUnidirectional bandwidth, Mbps (10^6 bit/s): median over %u rounds of %u "
         "repetitions of ~%.0f ms, each ended by an ACK (cf. Figs. 7 and 8)\n", p->rounds,
         p->bw_reps, p->bw_ms);
  table(s, n, false, false, p->nsizes);
  printf("\nSpread: min-max of all repetitions\n");
  table(s, n, false, true, p->nsizes);
  if (!p->smoke && p->nsizes == BS_NSIZES) targets(s, n, p->nsizes);
  mkdirs(outdir);
  char lat[512], bw[512];
  snprintf(lat, sizeof lat, "%s/sovia_latency.dat", outdir);
  snprintf(bw, sizeof bw, "%s/sovia_bandwidth.dat", outdir);
  write_dat(lat, s, n, true, p->nsizes);
  write_dat(bw, s, n, false, p->nsizes);
  plots(s, n, outdir, lat, bw);
}
