/* summary.c: the benchmarks' goal lines (summary.h). */
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>

#define ROW "%-34s %12.2f  %-26s %12.2f  %7.3f  %s %-6.2f %s\n"

void summary_header(void) {
  printf("\n%-34s %12s  %-26s %12s  %7s  %s\n", "figure", "ours", "baseline", "value", "ratio",
         "goal");
}

void summary_row(const char *figure, double ours, const char *base_name, double base, double goal,
                 bool at_least) {
  double ratio = base > 0 ? ours / base : 0;
  bool met = base > 0 && ours > 0 && (at_least ? ratio >= goal : ratio <= goal);
  const char *rel = at_least ? ">=" : "<=", *verdict = met ? "met" : "MISSED";
  printf(ROW, figure, ours, base_name, base, ratio, rel, goal, verdict);
  const char *path = getenv("VERINIC_BENCH_SUMMARY");
  FILE *f = path && *path ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, ROW, figure, ours, base_name, base, ratio, rel, goal, verdict);
    fclose(f);
  }
}
