/* bs_stats.c: the message sizes, iteration counts and order statistics of the
 * microbenchmarks (the clock and sorting: stats.c). */
#define _GNU_SOURCE
#include "bs.h"
#include "stats.h"

const uint32_t bs_sizes[BS_NSIZES] = {4,   8,    16,   32,   64,   128,   256,
                                      512, 1024, 2048, 4096, 8192, 16384, 32768};

static double at(const double *v, size_t n, double q) {
  size_t i = (size_t)(q * (double)(n - 1) + 0.5);
  return v[i < n ? i : n - 1];
}

struct bs_point bs_percentiles(double *v, size_t n) {
  struct bs_point p = {0, 0, 0};
  if (!n) return p;
  stats_sort(v, n);
  p.med = at(v, n, 0.5);
  p.lo = at(v, n, 0.1);
  p.hi = at(v, n, 0.9);
  return p;
}

struct bs_point bs_median_range(double *v, size_t n) {
  struct bs_point p = {0, 0, 0};
  if (!n) return p;
  stats_sort(v, n);
  p.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  p.lo = v[0];
  p.hi = v[n - 1];
  return p;
}

void bs_merge(struct bs_result *out, const struct bs_result *r, size_t n) {
  double v[3][64];
  size_t m = n < 64 ? n : 64;
  *out = r[0];
  for (size_t i = 1; i < m; i++) {
    out->ok = out->ok && r[i].ok;
    out->bytes_checked += r[i].bytes_checked;
  }
  for (unsigned k = 0; k < BS_NSIZES; k++) {
    for (size_t i = 0; i < m; i++) {
      v[0][i] = r[i].lat_us[k].med, v[1][i] = r[i].lat_us[k].lo, v[2][i] = r[i].lat_us[k].hi;
    }
    out->lat_us[k].med = bs_median_range(v[0], m).med;
    out->lat_us[k].lo = bs_median_range(v[1], m).med;
    out->lat_us[k].hi = bs_median_range(v[2], m).med;
    for (size_t i = 0; i < m; i++) {
      v[0][i] = r[i].bw_mbps[k].med, v[1][i] = r[i].bw_mbps[k].lo, v[2][i] = r[i].bw_mbps[k].hi;
    }
    out->bw_mbps[k].med = bs_median_range(v[0], m).med;
    out->bw_mbps[k].lo = bs_median_range(v[1], m).lo;
    out->bw_mbps[k].hi = bs_median_range(v[2], m).hi;
  }
}

unsigned bs_lat_iters(const struct bs_params *p, uint32_t size) {
  if (p->smoke) return p->lat_iters;
  return size <= 4096 ? p->lat_iters : size <= 16384 ? p->lat_iters / 2 : p->lat_iters / 4;
}
