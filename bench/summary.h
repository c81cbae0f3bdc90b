/* summary.h: one line per goal of the benchmarks (issue-level speed goals): the figure, ours,
 * its baseline measured in the same run, the ratio and the goal, met or missed. Each line is
 * printed and appended to $VERINIC_BENCH_SUMMARY when set (`make bench` prints the collected
 * table at the end, bench/summary.sh). */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stdbool.h>

/* ratio = ours / base; met when ratio >= goal (at_least) or ratio <= goal (otherwise). */
void summary_row(const char *figure, double ours, const char *base_name, double base, double goal,
                 bool at_least);
/* The table's header, printed once before the rows of one program. */
void summary_header(void);

#endif
