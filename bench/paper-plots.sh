#!/usr/bin/env bash
# bench/paper-plots.sh DIR: the plots of `make bench-paper` from the .dat files bench_paper
# wrote into DIR (one per profile): one-way latency (simulated, E-UDP's model fine- and
# coarse-grained, the I/O bus minimum) and bandwidth (simulated, model) against message size.
set -u
dir=${1:?usage: paper-plots.sh DIR}
if ! command -v gnuplot >/dev/null; then
  echo "bench-paper: gnuplot is not installed: no plots (the tables are in $dir/*.txt)"
  exit 0
fi
if [ -s "$dir/fig9.trace" ]; then   # the 10 messages: from the first send to the last arrival
  from=$(awk '$2 == "send" { print $3; exit }' "$dir/fig9.trace")
  to=$(awk '$2 == "recv" && $4 > m { m = $4 } END { print m }' "$dir/fig9.trace")
  scripts/timeline.sh "$dir/fig9.trace" "$dir/fig9.png" "${from:-0}" "${to:-0}" | gnuplot &&
    echo "bench-paper: $dir/fig9.png (E-UDP Fig. 9's time flow chart)"
fi
for dat in "$dir"/*.dat; do
  n=$(basename "$dat" .dat)
  gnuplot <<GP || exit 1
set terminal pngcairo size 1000,420
set output "$dir/$n.png"
set multiplot layout 1,2 title "$n: timing mode vs E-UDP's model"
set logscale x 2
set xlabel "message size (bytes)"
set key top left
set ylabel "one-way latency (us)"
plot "$dat" index 0 using 1:2 with linespoints title "simulated, fine-grained", \
     "" index 0 using 1:6 with linespoints title "simulated, coarse-grained", \
     "" index 0 using 1:3 with lines title "model, fine-grained", \
     "" index 0 using 1:4 with lines dashtype 2 title "model, coarse-grained", \
     "" index 0 using 1:5 with lines dashtype 3 title "I/O bus minimum"
set ylabel "bandwidth (Mb/s)"
plot "$dat" index 1 using 1:2 with linespoints title "simulated, fine-grained", \
     "" index 1 using 1:3 with lines title "model, fine-grained", \
     "" index 1 using 1:4 with linespoints title "simulated, coarse-grained", \
     "" index 1 using 1:5 with lines dashtype 2 title "model, coarse-grained"
unset multiplot
GP
  echo "bench-paper: $dir/$n.png"
done
