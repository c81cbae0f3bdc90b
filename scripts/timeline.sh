#!/usr/bin/env bash
# scripts/timeline.sh TRACE OUT.png [FROM_NS TO_NS]: a gnuplot script (on stdout) drawing the
# busy intervals nicd --timing --trace wrote (NODE ENGINE START_NS END_NS per line) as a
# time-line, one row per processor (two with nicd --cpus 2) and engine of each NIC, like E-UDP's Fig. 9 (its time flow
# chart). Pipe it into gnuplot: scripts/timeline.sh trace t.png 0 2000000 | gnuplot
set -eu
trace=${1:?usage: timeline.sh TRACE OUT.png [FROM_NS TO_NS]}
out=${2:?usage: timeline.sh TRACE OUT.png [FROM_NS TO_NS]}
from=${3:-0}
to=${4:-$(awk 'BEGIN { m = 0 } $4 > m { m = $4 } END { print m }' "$trace")}
awk -v from="$from" -v to="$to" -v out="$out" '
  { if (!(($1, $2) in row)) { row[$1, $2] = 1; keys[n++] = $1 " " $2 }
    if ($4 >= from && $3 <= to) lines[m++] = $0 }
  END {
    # rows: node by node, the processors first (cpu1: the second of nicd --cpus 2), then the
    # engines in the data path order
    split("cpu cpu1 hdma send recv", order, " ")
    y = 0
    for (node = 0; node < 64; node++)
      for (e = 1; e <= 5; e++)
        if ((node, order[e]) in row) { at[node, order[e]] = y; label[y] = "NIC " node " " order[e]; y++ }
    print "set terminal pngcairo size 1200," (120 + 40 * y)
    print "set output \"" out "\""
    print "set title \"Busy intervals in virtual time (nicd --timing --trace)\""
    print "set xlabel \"virtual time (us)\""
    printf "set ytics ("
    for (i = 0; i < y; i++) printf "%s\"%s\" %d", i ? ", " : "", label[i], i
    print ")"
    print "set yrange [-0.5:" y - 0.5 "]"
    print "set xrange [" from / 1000 ":" to / 1000 "]"
    print "set style fill solid 0.8"
    print "unset key"
    print "$busy << EOD"
    for (i = 0; i < m; i++) {
      split(lines[i], f, " ")
      s = f[3] < from ? from : f[3]; t = f[4] > to ? to : f[4]
      printf "%.3f %d %.3f %.3f %d\n", (s + t) / 2000, at[f[1], f[2]], (t - s) / 2000, 0.35, at[f[1], f[2]] % 4
    }
    print "EOD"
    print "plot $busy using 1:2:3:4:5 with boxxyerrorbars lc variable"
  }' "$trace"
