#!/usr/bin/env bash
# Prints the goal lines the benchmarks of one `make bench` collected (bench/summary.h).
f=${1:?usage: summary.sh FILE}
[ -s "$f" ] || { echo "bench: no goal lines collected in $f" >&2; exit 1; }
echo
echo "Summary: each figure beside its baseline measured in the same run, the ratio and the goal"
printf '%-34s %12s  %-26s %12s  %7s  %s\n' figure ours baseline value ratio goal
cat "$f"
echo "$(grep -c ' met$' "$f") met, $(grep -c ' MISSED$' "$f") missed"
