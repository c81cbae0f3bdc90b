#!/usr/bin/env bash
# bench/bench_cluster.sh: `make bench-cluster`, the cluster's figures. Two hosts (network
# namespaces joined by a bridge, or loopback ports where namespaces are not allowed), one nicd
# each over UDP (scripts/cluster.sh), unmodified socat moving a file host2 -> host1:
#   1. goodput under injected loss (0, 0.1 %, 1 %, 5 %) over SOVIA (socat under the shim),
#      beside kernel TCP between the same two namespaces (socat without the shim; the kernel
#      here has no netem, so TCP runs on the lossless veth: the baseline is the network's own),
#      REPS rounds interleaved, medians and spread;
#   2. the faulty run: CLUSTER_MB (default 1024) MiB with 1 % loss, 0.5 % duplication, 1 %
#      reordering and 0.1 % corruption: sha256 identical, the connection never breaks, and
#      what the firmware and the fabric counted (retransmissions, faults injected, bad frames);
#   3. 20 % loss: completes or breaks with an error, never with wrong data (the bytes received
#      are a prefix of those sent).
# Environment: CLUSTER_MB (run 2), GOODPUT_MB (run 1, default 128), REPS (default 3),
# SEED (default 1).
set -u
cd "$(dirname "$0")/.."
MB=${CLUSTER_MB:-1024} GMB=${GOODPUT_MB:-128} REPS=${REPS:-3} SEED=${SEED:-1}
dir=$(mktemp -d /tmp/bench-cluster-XXXXXX)
tag=vbc$$
SO=$PWD/build/lib/libsovia_preload.so
C() { CLUSTER_DIR=$dir/c scripts/cluster.sh "$@"; }
finish() { C stop >/dev/null 2>&1; rm -rf "$dir"; }
trap finish EXIT
out=build/bench
mkdir -p "$out"
die() { echo "bench-cluster: $*" >&2; exit 1; }

head -c $(((GMB > MB ? GMB : MB) * 1024 * 1024)) /dev/urandom >"$dir/blob"
gblob=$dir/gblob
head -c $((GMB * 1024 * 1024)) "$dir/blob" >"$gblob"

start() {   # start FAULT-ARGS...: a fresh two-host cluster
  C stop >/dev/null 2>&1
  C start -n 2 --dir "$dir/c" --tag "$tag" -- --seed "$SEED" "$@" >"$dir/start.log" 2>&1 ||
    die "cluster start: $(cat "$dir/start.log")"
  mode=$(sed -n 's/^MODE=//p' "$dir/c/state")
}
addr1() { [[ $mode == netns ]] && echo 10.77.0.1 || echo 127.0.0.1; }

# xfer KIND FILE PORT: moves FILE host2 -> host1; prints "seconds status"; $dir/out holds what
# arrived. KIND sovia (the shim) or tcp (kernel TCP between the same hosts).
xfer() {
  local kind=$1 file=$2 port=$3 pre=() to
  [[ $kind == sovia ]] && pre=(env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port)
  to=$( [[ $kind == sovia ]] && echo 10.77.0.1 || addr1 )
  rm -f "$dir/out"
  C run 1 "${pre[@]}" timeout 600 socat -u TCP-LISTEN:$port,reuseaddr OPEN:"$dir/out",creat,trunc \
    2>"$dir/srv.err" &
  local srv=$! i
  for i in $(seq 200); do
    if [[ $kind == sovia ]]; then [[ -e $dir/c/host1/sovia-0-$port ]] && break
    else C run 1 ss -ltn 2>/dev/null | grep -q ":$port " && break; fi
    sleep 0.05
  done
  local t0 t1 st
  t0=$(date +%s.%N)
  C run 2 "${pre[@]}" timeout 600 socat -u FILE:"$file" TCP:$to:$port 2>"$dir/cli.err"
  st=$?
  wait $srv
  st=$((st | $?))
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v s="$st" 'BEGIN { printf "%.3f %d\n", b - a, s }'
}

med() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
  m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "%.1f (%.1f..%.1f)", m, v[1], v[NR] }'; }

echo "Cluster over UDP: socat host2 -> host1, $GMB MiB per run, $REPS rounds interleaved"
declare -A rate
. tests/common/ports.sh
port=$(free_ports $((REPS * 8 + 2)))
for r in $(seq "$REPS"); do
  for loss in 0 0.001 0.01 0.05; do
    start --loss "$loss"
    port=$((port + 1))
    read -r s st <<<"$(xfer sovia "$gblob" $port)"
    if ((st == 0)) && cmp -s "$gblob" "$dir/out"; then
      rate[sovia,$loss]+="$(awk -v s="$s" -v m="$GMB" 'BEGIN { printf "%.3f", m * 1.048576 / s }') "
    else rate[sovia,$loss]+="fail "; fi
  done
  port=$((port + 1))
  read -r s st <<<"$(xfer tcp "$gblob" $port)"
  ((st == 0)) && cmp -s "$gblob" "$dir/out" &&
    rate[tcp]+="$(awk -v s="$s" -v m="$GMB" 'BEGIN { printf "%.3f", m * 1.048576 / s }') "
done
printf '\n%-10s | %-28s | %-28s | %s\n' "loss" "SOVIA over UDP, MB/s" "kernel TCP, MB/s" "ratio"
tcpm=$(tr ' ' '\n' <<<"${rate[tcp]:-}" | grep -v '^$' | med)
for loss in 0 0.001 0.01 0.05; do
  v=${rate[sovia,$loss]:-}
  fails=$(grep -o fail <<<"$v" | wc -l)
  m=$(tr ' ' '\n' <<<"$v" | grep -v '^$\|fail' | med)
  ratio=$(awk -v a="${m%% *}" -v b="${tcpm%% *}" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "-" }')
  printf '%-10s | %-28s | %-28s | %s%s\n' "$(awk -v l="$loss" 'BEGIN { printf "%g %%", l * 100 }')" "$m" "$tcpm" "$ratio" \
    "$( ((fails)) && echo "  ($fails runs failed)")"
done

echo
echo "Faulty network: $MB MiB, 1 % loss, 0.5 % duplication, 1 % reordering, 0.1 % corruption"
start --loss 0.01 --dup 0.005 --reorder 0.01 --corrupt 0.001
port=$((port + 1))
head -c $((MB * 1024 * 1024)) "$dir/blob" >"$dir/big"
read -r s st <<<"$(xfer sovia "$dir/big" $port)"
a=$(sha256sum <"$dir/big" | cut -c1-64)
b=$(sha256sum <"$dir/out" | cut -c1-64)
printf 'exit %d, %.1f s, %.1f MB/s\nsent     %s\nreceived %s  %s\n' "$st" "$s" \
  "$(awk -v s="$s" -v m="$MB" 'BEGIN { print m * 1.048576 / s }')" "$a" "$b" \
  "$([[ $a == "$b" ]] && echo identical || echo DIFFERENT)"
for h in 2 1; do
  echo "host$h's NIC:$(C run $h build/bin/nicstat "/$tag-nic$((h - 1))" 2>/dev/null | grep 'retransmission:')"
  echo "host$h's nicd:$(C run $h build/bin/nicstat -f 2>/dev/null | grep -E 'faults injected|dropped:')"
done
faulty_ok=0; ((st == 0)) && [[ $a == "$b" ]] && faulty_ok=1

echo
echo "20 % loss: 16 MiB; it completes slowly or breaks with an error, never with wrong data"
start --loss 0.2
port=$((port + 1))
head -c $((16 * 1024 * 1024)) "$dir/blob" >"$dir/small"
read -r s st <<<"$(xfer sovia "$dir/small" $port)"
n=$(stat -c %s "$dir/out" 2>/dev/null || echo 0)
if cmp -s -n "$n" "$dir/small" "$dir/out"; then prefix=yes; else prefix=NO; fi
printf 'exit %d after %.1f s; %d of %d bytes arrived, a prefix of those sent: %s\n' "$st" "$s" "$n" \
  $((16 * 1024 * 1024)) "$prefix"
[[ $st != 0 ]] && echo "errors: $(cat "$dir/cli.err" "$dir/srv.err" | tr '\n' ' ' | head -c 300)"
[[ $prefix == yes && $faulty_ok == 1 ]] || exit 1
