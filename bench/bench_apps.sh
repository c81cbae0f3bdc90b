#!/usr/bin/env bash
# bench/bench_apps.sh (`make bench-apps`): unmodified programs' own figures over SOVIA beside
# the same programs over kernel TCP on loopback, in one run: redis-benchmark requests/s (PING,
# SET, GET; its default 50 clients: each of its tests opens new connections while the last ones
# close, which a NIC's 63 VIs serve because SOVIA waits for the closing ones'), sockperf TCP
# ping-pong latency percentiles (64 B), iperf3 Gbit/s (both directions, one stream), wrk
# requests/s and MB/s against nginx (2 workers, a 4 KB page, 8 connections), and ab's
# requests/s against the same nginx with a new connection for each request (50 at once, and
# one at a time: connection set-up and tear-down, and its latency). SOVIA: server under the shim on NIC 0, client on NIC 1,
# each in an empty network namespace (tests/sovia_apps/apps_lib.sh); kernel: both as they
# are, on 127.0.0.1.
# The two run interleaved, APPS_REPS times (default 3): median and min-max. Table on stdout,
# data and plot (ratio SOVIA / kernel per figure) in build/bench/apps.{dat,png,svg}.
#   bench/bench_apps.sh [--smoke]   (--smoke: one short round of each; "N passed, N failed")
set -u
cd "$(dirname "$0")/.."
. tests/common/nicd.sh
. tests/common/ports.sh
. tests/sovia_apps/apps_lib.sh
smoke=0; [[ ${1:-} == --smoke ]] && smoke=1
reps=${APPS_REPS:-3}; secs=5; rn=20000; abn=5000
((smoke)) && { reps=1; secs=1; rn=1000; abn=500; }
out=build/bench; mkdir -p "$out"
trap nicd_cleanup EXIT
for f in "$SO" build/bin/nicd; do
  [[ -e $f ]] || { echo "bench_apps: missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
apps_init bench-apps || { echo "0 passed, 1 failed"; exit 1; }
port=$(free_ports $((reps * 40 + 2)))
declare -A val        # val[metric,mode] = "v1 v2 ..."
add() { val[$1,$2]="${val[$1,$2]:-} $3"; }
mkdir -p "$run/www"; head -c 3072 /dev/urandom | base64 -w 0 >"$run/www/index.html"

# Each runner: MODE (sovia|kernel); starts its server, measures, stops it; adds figures.
server() {   # server MODE CMD...: background server (pid in $bg), waits until it listens
  local mode=$1; shift
  port=$((port + 1)); SOVIA_PORTS=$port
  local cmd=("${@//@PORT@/$port}")
  if [[ $mode == sovia ]]; then bg_sovia 0 "${cmd[@]}" >>"$run/servers.log" 2>&1; wait_sovia $port 10
  else bg_kernel "${cmd[@]}" >>"$run/servers.log" 2>&1; wait_kernel $port 10; fi
}
client() {   # client MODE CMD...
  local mode=$1; shift
  if [[ $mode == sovia ]]; then on_sovia 1 "$@"; else on_kernel "$@"; fi
}
host() { [[ $1 == sovia ]] && echo 10.0.0.1 || echo 127.0.0.1; }

run_redis() {
  local m=$1 h; h=$(host "$m")
  server "$m" timeout 120 redis-server --port @PORT@ --bind 0.0.0.0 --protected-mode no --save "" --appendonly no --logfile /dev/null
  local srv=$bg
  client "$m" timeout 120 redis-benchmark -h "$h" -p $port -n $rn -c 50 -t ping,set,get --csv >"$run/rb" 2>/dev/null
  local t
  for t in PING_MBULK SET GET; do
    local v; v=$(awk -F'"' -v t="$t" '$2 == t {print $4}' "$run/rb")
    [[ -n $v ]] && add "redis $t req/s" "$m" "$v"
  done
  stop "$srv" TERM 10 >/dev/null
}

run_sockperf() {
  local m=$1 h; h=$(host "$m")
  server "$m" timeout 120 sockperf server --tcp -i 0.0.0.0 -p @PORT@
  local srv=$bg
  client "$m" timeout 120 sockperf ping-pong --tcp -i "$h" -p $port -t $secs -m 64 >"$run/sp" 2>&1
  local p
  for p in 50 99 99.9; do
    local v; v=$(awk -v p="$p" '/---> percentile/ && $4 + 0 == p + 0 {print $6}' "$run/sp")
    [[ -n $v ]] && add "sockperf p$p us" "$m" "$v"
  done
  stop "$srv" INT 10 >/dev/null
}

run_iperf3() {
  local m=$1 h dir; h=$(host "$m")
  for dir in "" -R; do
    server "$m" timeout 120 iperf3 -s -1 -p @PORT@
    local srv=$bg
    client "$m" timeout 120 iperf3 -c "$h" -p $port -t $secs $dir -J >"$run/ip" 2>/dev/null
    local v; v=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]/1e9)' "$run/ip" 2>/dev/null)
    [[ -n $v ]] && add "iperf3${dir:+ $dir} Gbit/s" "$m" "$v"
    stop "$srv" TERM 10 >/dev/null
  done
}

run_wrk() {
  local m=$1 h; h=$(host "$m")
  port=$((port + 1)); SOVIA_PORTS=$port
  mkdir -p "$run/ngx-$m"
  cat >"$run/ngx-$m/nginx.conf" <<NGX
user root; daemon off; master_process on; worker_processes 2; env VERINIC_RUN;
pid $run/ngx-$m/nginx.pid; error_log $run/ngx-$m/error.log warn;
events { worker_connections 128; }
http { access_log off; server { listen $port; root $run/www; } }
NGX
  port=$((port - 1))
  server "$m" timeout 120 nginx -p "$run/ngx-$m" -c "$run/ngx-$m/nginx.conf" -e "$run/ngx-$m/error.log"
  local srv=$bg
  client "$m" timeout 120 wrk -t1 -c8 -d${secs}s "http://$h:$port/index.html" >"$run/wrk" 2>&1
  local v
  v=$(awk '/^Requests\/sec:/ {print $2}' "$run/wrk"); [[ -n $v ]] && add "wrk req/s" "$m" "$v"
  v=$(awk '/^Transfer\/sec:/ {x=$2; if (x ~ /KB$/) {sub(/KB/,"",x); x/=1024} else if (x ~ /GB$/) {sub(/GB/,"",x); x*=1024} else sub(/MB/,"",x); print x}' "$run/wrk")
  [[ -n $v ]] && add "wrk MB/s" "$m" "$v"
  client "$m" timeout 120 ab -q -s 10 -n $abn -c 50 "http://$h:$port/index.html" >"$run/ab" 2>&1
  v=$(awk '/^Requests per second:/ {print $4}' "$run/ab")
  [[ -n $v ]] && grep -q '^Failed requests: *0$' "$run/ab" && add "ab req/s (conn each)" "$m" "$v"
  client "$m" timeout 120 ab -q -s 10 -n $((abn / 5)) -c 1 "http://$h:$port/index.html" >"$run/ab1" 2>&1
  v=$(awk '/^Requests per second:/ {print $4}' "$run/ab1")
  [[ -n $v ]] && grep -q '^Failed requests: *0$' "$run/ab1" && add "ab -c 1 req/s" "$m" "$v"
  stop "$srv" QUIT 15 >/dev/null
}

metrics=("redis PING_MBULK req/s" "redis SET req/s" "redis GET req/s" "sockperf p50 us" "sockperf p99 us" "sockperf p99.9 us"
         "iperf3 Gbit/s" "iperf3 -R Gbit/s" "wrk req/s" "wrk MB/s" "ab req/s (conn each)"
         "ab -c 1 req/s")
for ((r = 0; r < reps; r++)); do
  for prog in redis sockperf iperf3 wrk; do
    for m in sovia kernel; do "run_$prog" "$m"; done
  done
done

stat3() {   # median min max of the numbers given
  (($#)) || { echo "- - -"; return; }
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{ if (!NR) {print "- - -"; exit}
    m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; print m, v[1], v[NR] }'
}
echo
echo "Unmodified programs over SOVIA (shim, NIC 0 -> NIC 1, nicd --fast) beside kernel TCP on"
echo "loopback, same run, median of $reps [min-max]; sockperf in microseconds (lower is better)"
printf '%-22s %-30s %-30s %s\n' "figure" "SOVIA" "kernel TCP (loopback)" "SOVIA/kernel"
: >"$out/apps.dat"
missing=0; i=0
for k in "${metrics[@]}"; do
  read -r sm smin smax <<<"$(stat3 ${val[$k,sovia]:-})"
  read -r km kmin kmax <<<"$(stat3 ${val[$k,kernel]:-})"
  [[ $sm == - || $km == - ]] && missing=$((missing + 1))
  ratio=$(awk -v a="$sm" -v b="$km" 'BEGIN{ if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a/b }')
  printf '%-22s %-30s %-30s %s\n' "$k" "$(printf '%.4g [%.4g-%.4g]' "$sm" "$smin" "$smax" 2>/dev/null || echo -)" \
    "$(printf '%.4g [%.4g-%.4g]' "$km" "$kmin" "$kmax" 2>/dev/null || echo -)" "$ratio"
  [[ $ratio != - ]] && printf '%d "%s" %s\n' "$i" "$k" "$ratio" >>"$out/apps.dat"
  i=$((i + 1))
done
if command -v gnuplot >/dev/null && [[ -s $out/apps.dat ]]; then
  for t in png svg; do
    gnuplot <<GP 2>/dev/null
set terminal $t size 900,420
set output "$out/apps.$t"
set title "Unmodified programs: SOVIA / kernel TCP on loopback (1 = same; sockperf: latency, lower is better)"
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set grid ytics
plot "$out/apps.dat" using 1:3:xtic(2) with boxes notitle, 1 with lines dt 2 notitle
GP
  done
  echo "plot: $out/apps.png, $out/apps.svg; data: $out/apps.dat"
else
  echo "plot skipped (gnuplot missing or no data)"
fi
if ((smoke)); then
  pass=$(( ${#metrics[@]} - missing )); fail=$missing; report
else
  ((missing == 0))
fi
