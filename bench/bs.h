/* bs.h: the SOVIA paper's microbenchmarks (Kim, Kim, Jung, ICS'01, Fig. 2), shared by the
 * files of bench/: ping-pong latency l(m) = RTT/2 and unidirectional bandwidth B(m) (n sends
 * of m bytes, ended by an ACK from the receiver), for SOVIA, native VIPL and kernel TCP. A
 * series is one transport in one configuration; each point is repeated so that a median and
 * a spread can be printed. */
#ifndef BS_H
#define BS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BS_NSIZES 14          /* 4 B .. 32 KB, powers of two */
#define BS_MAXMSG 32768u
extern const uint32_t bs_sizes[BS_NSIZES];

/* How much to measure. */
struct bs_params {
  bool smoke;                 /* tiny counts: the code runs, the numbers mean nothing */
  unsigned lat_iters;         /* ping-pongs per size (fewer above 4 KB) */
  unsigned bw_reps;           /* bandwidth repetitions per size */
  double bw_ms;               /* target length of one bandwidth repetition */
  unsigned nsizes;            /* the first nsizes of bs_sizes (default all) */
  unsigned rounds;            /* passes over every series (a loaded machine changes by the
                                 second: each series is sampled in each pass) */
};

/* One measured value: median and spread (latency: p10..p90 of the round trips; bandwidth:
 * min..max of the repetitions). 0 when not measured. */
struct bs_point { double med, lo, hi; };

struct bs_result {
  struct bs_point lat_us[BS_NSIZES];     /* RTT/2, microseconds */
  struct bs_point bw_mbps[BS_NSIZES];    /* 10^6 bits per second */
  uint64_t bytes_checked;                /* payload bytes compared with the pattern */
  int eff_w, eff_t;                      /* SOVIA: the window and threshold in use */
  int ok;                                /* 1 when every exchange completed and checked */
};

/* What a series measures. */
enum { BS_LAT = 1, BS_BW = 2 };

/* bs_stats.c (the clock, stats_now_us, is in stats.h) */
/* Median and p10/p90 of v[0..n) (sorted in place). */
struct bs_point bs_percentiles(double *v, size_t n);
/* Median and min/max. */
struct bs_point bs_median_range(double *v, size_t n);
/* The rounds of one series merged: latency median and p10/p90 as medians of the rounds';
 * bandwidth median of the rounds' medians, min and max over all. */
void bs_merge(struct bs_result *out, const struct bs_result *rounds, size_t n);
unsigned bs_lat_iters(const struct bs_params *p, uint32_t size);
/* Byte i of the test pattern of a message with sequence number seq. */
static inline uint8_t bs_pat(uint32_t seq, size_t i) { return (uint8_t)(seq * 131u + i * 7u + (i >> 8)); }

/* bs_stream.c: the benchmarks over a byte stream (SOVIA through sovia_*, or the kernel). */
struct bs_ops {
  ssize_t (*send)(int fd, const void *buf, size_t n, int flags);
  ssize_t (*recv)(int fd, void *buf, size_t n, int flags);
  /* Optional: around a bandwidth burst (TCP: Nagle during it, pushed out at its end, so that
   * the last segment does not wait for the receiver's delayed-ACK timer). */
  void (*burst)(int fd, bool end);
};
/* The client measures and fills *r; the server echoes and sinks. 0, or -1 on a failed call
 * or a corrupted byte. */
int bs_stream_client(const struct bs_ops *o, int fd, unsigned what, const struct bs_params *p,
                     struct bs_result *r);
int bs_stream_server(const struct bs_ops *o, int fd, unsigned what, const struct bs_params *p);

/* bs_vipl.c: the same over native VIPL (one VI, Reliable Delivery). node 0 serves, node 1
 * measures; dev0/dev1 are the NICs' device or window names. */
int bs_vipl_side(int node, const char *dev, unsigned what, const struct bs_params *p,
                 struct bs_result *r);

/* bs_report.c: tables like the paper's Tables 2/3, a bandwidth table, data files and
 * gnuplot plots like Figs. 5 and 8 in outdir. */
struct bs_series {
  const char *label;          /* e.g. SOVIA_HYBRID */
  const char *how;            /* how it is configured */
  unsigned what;              /* BS_LAT | BS_BW */
  struct bs_result r;
};
void bs_report(struct bs_series *s, size_t n, const struct bs_params *p, const char *outdir);

#endif
