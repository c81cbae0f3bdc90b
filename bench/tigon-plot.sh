#!/usr/bin/env bash
# bench/tigon-plot.sh DIR: the plot of `make bench-tigon` from DIR/fig10.dat (bench_paper
# tigon): bidirectional throughput on one and two firmware processors per payload size, and
# the two-processor speed-up beside the Tigon paper's Fig. 10.
set -u
dir=${1:?usage: tigon-plot.sh DIR}
dat=$dir/fig10.dat
if ! command -v gnuplot >/dev/null; then
  echo "bench-tigon: gnuplot is not installed: no plot (the table is in $dir/fig10.txt)"
  exit 0
fi
gnuplot <<GP || exit 1
set terminal pngcairo size 1000,420
set output "$dir/fig10.png"
set multiplot layout 1,2 title "Tigon Fig. 10 in timing mode: bidirectional throughput"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set key top left
set xlabel "payload (link frame)"
set ylabel "Mb/s, both ways"
set logscale y
plot "$dat" using 3:xtic(sprintf("%d B (%d B)", \$1, \$2)) title "1 processor", \
     "" using 4 title "2 processors"
unset logscale y
set ylabel "speed-up of 2 processors (%)"
set yrange [*:*]
plot "$dat" using 5:xtic(sprintf("%d B", \$1)) title "ours", "" using 6 title "paper (Fig. 10)"
unset multiplot
GP
echo "bench-tigon: $dir/fig10.png"
