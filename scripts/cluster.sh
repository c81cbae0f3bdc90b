#!/usr/bin/env bash
# A Verinic cluster in one command: N hosts, one nicd per host (nicd --udp), its NIC's frames
# carried between hosts as UDP datagrams, connection set-up between the nicds over their
# control connections (nicd/CONNECT.md, "Between nicds"). Each host is a Linux network
# namespace (vnc-hI, address 10.77.0.I, or fd77::I with --ipv6) with a veth pair to a bridge;
# where namespaces are not allowed (or with --loopback) the hosts are plain ports on
# 127.0.0.1 (::1). Host I runs node I-1.
#
#   scripts/cluster.sh [demo] [options] [-- NICD-OPTIONS]  start and run the demo across hosts:
#                                      a VIPL transfer, a SOVIA transfer (socat under the
#                                      LD_PRELOAD shim, sha256 compared), a PANIC ping
#   scripts/cluster.sh start [options] [-- NICD-OPTIONS]   start only
#   scripts/cluster.sh run I CMD...    run CMD as a program of host I (its namespace, its nicd)
#   scripts/cluster.sh restart I       start host I's nicd again (after it died or was killed)
#   scripts/cluster.sh stop            stop every nicd, remove the namespaces and the bridge
#
# Options: -n HOSTS (default 3), --loopback, --ipv6, --port P (UDP and control port: every
# namespace's, or P+I for host I on loopback; default 7400), --dir DIR (default $CLUSTER_DIR or
# /tmp/verinic-cluster; run and restart take it from $CLUSTER_DIR only), --tag T
# (namespace/bridge names, default vnc; window names /T-nicN). NICD-OPTIONS go to every nicd,
# e.g. -- --loss 0.01 --dup 0.005 --seed 7 (fault injection; the firmware retransmits);
# $NICD names another nicd binary. Programs of host I see VERINIC_SOCKET (its nicd),
# VERINIC_HOSTS (the cluster file) and VERINIC_RUN, host I's own run directory, as on
# separate machines.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${CLUSTER_DIR:-/tmp/verinic-cluster}
N=3 MODE='' V6=0 TAG=vnc PORT=7400
NICD_ARGS=()
cmd=demo
case ${1:-} in demo|start|stop|run|restart) cmd=$1; shift ;; esac

if [[ $cmd == run ]]; then
  [[ $# -ge 2 ]] || { echo "usage: scripts/cluster.sh run HOST CMD..." >&2; exit 2; }
  host=$1; shift
  # shellcheck source=/dev/null
  . "$DIR/state"
  [[ $host -ge 1 && $host -le $N ]] || { echo "cluster.sh: no host $host (1..$N)" >&2; exit 2; }
  ns=()
  [[ $MODE == netns ]] && ns=(ip netns exec "$TAG-h$host")
  exec env VERINIC_RUN="$DIR/host$host" VERINIC_SOCKET="$DIR/host$host/nicd.sock" \
    VERINIC_HOSTS="$DIR/cluster" SOVIA_NIC="/$TAG-nic$((host - 1))" "${ns[@]}" "$@"
fi

# Starts host I's nicd (in its namespace, or on its loopback port) in the background.
start_nicd() {
  local i=$1 ns=() pick=()
  mkdir -p "$DIR/host$i"
  if [[ $MODE == netns ]]; then ns=(ip netns exec "$TAG-h$i")   # nicd finds its node by address
  else pick=(--node $((i - 1))); fi
  "${ns[@]}" "${NICD:-build/bin/nicd}" --udp --cluster "$DIR/cluster" "${pick[@]}" --run "$DIR/host$i" \
    --prefix "/$TAG-nic" "${NICD_ARGS[@]}" >>"$DIR/host$i/nicd.log" 2>&1 &
}

if [[ $cmd == restart ]]; then
  [[ $# -ge 1 ]] || { echo "usage: scripts/cluster.sh restart HOST" >&2; exit 2; }
  host=$1
  # shellcheck source=/dev/null
  . "$DIR/state"
  read -r -a NICD_ARGS <<<"${NICD_ARGS_SAVED:-}"
  pid=$(cat "$DIR/host$host/nicd.pid" 2>/dev/null || true)
  for _ in $(seq 20); do [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then echo "cluster.sh: host$host's nicd runs (pid $pid)" >&2; exit 1; fi
  rm -f "$DIR/host$host/nicd.sock"
  start_nicd "$host"
  for _ in $(seq 100); do [[ -S $DIR/host$host/nicd.sock ]] && break; sleep 0.05; done
  [[ -S $DIR/host$host/nicd.sock ]] || { echo "cluster.sh: host$host's nicd did not start" >&2; tail -5 "$DIR/host$host/nicd.log" >&2; exit 1; }
  echo "host$host: nicd restarted, pid $(cat "$DIR/host$host/nicd.pid")"
  exit 0
fi

while [[ $# -gt 0 ]]; do
  case $1 in
    -n) N=$2; shift 2 ;;
    --loopback) MODE=loopback; shift ;;
    --ipv6) V6=1; shift ;;
    --port) PORT=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --tag) TAG=$2; shift 2 ;;
    --) shift; NICD_ARGS=("$@"); break ;;
    *) echo "cluster.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

stop_cluster() {
  [[ -f $DIR/state ]] || { rm -rf "$DIR"; return 0; }
  # shellcheck source=/dev/null
  . "$DIR/state"
  local i pid
  for ((i = 1; i <= N; i++)); do
    pid=$(cat "$DIR/host$i/nicd.pid" 2>/dev/null || true)
    [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
  done
  for ((i = 1; i <= N; i++)); do
    pid=$(cat "$DIR/host$i/nicd.pid" 2>/dev/null || true)
    for _ in $(seq 50); do [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  done
  if [[ $MODE == netns ]]; then
    for ((i = 1; i <= N; i++)); do ip netns del "$TAG-h$i" 2>/dev/null || true; done
    ip link del "$TAG-br" 2>/dev/null || true
  fi
  rm -rf "$DIR"
}

if [[ $cmd == stop ]]; then
  stop_cluster
  echo "cluster stopped"
  exit 0
fi

[[ -f $DIR/state ]] && stop_cluster
[[ -x build/bin/nicd && -x build/bin/vipl_xfer && -x build/bin/sovia_xfer ]] || make -s -j2

# Namespaces if allowed (root, and the kernel lets us), else loopback ports.
if [[ -z $MODE ]]; then
  MODE=loopback
  if ip netns add "$TAG-probe" 2>/dev/null; then
    ip netns del "$TAG-probe"
    MODE=netns
  else
    echo "note: network namespaces are not allowed here: hosts are ports on the loopback address"
  fi
fi
mkdir -p "$DIR"
chmod 700 "$DIR"
addr() {   # host I's address as the cluster file writes it, and as a bare address
  local i=$1
  if [[ $MODE == netns ]]; then
    if ((V6)); then echo "[fd77::$i]:$PORT fd77::$i"; else echo "10.77.0.$i:$PORT 10.77.0.$i"; fi
  else
    if ((V6)); then echo "[::1]:$((PORT + i)) ::1"; else echo "127.0.0.1:$((PORT + i)) 127.0.0.1"; fi
  fi
}
{
  echo "# the cluster: NAME NODE HOST:PORT (iface/README.md); host I runs node I-1"
  for ((i = 1; i <= N; i++)); do
    read -r a _ <<<"$(addr $i)"
    echo "host$i $((i - 1)) $a"
    echo "10.77.0.$i $((i - 1))"   # SOVIA's IPv4 address of the node (a name)
  done
} >"$DIR/cluster"
printf 'N=%d\nMODE=%s\nTAG=%s\nNICD_ARGS_SAVED="%s"\n' "$N" "$MODE" "$TAG" "${NICD_ARGS[*]}" >"$DIR/state"

if [[ $MODE == netns ]]; then
  ip link add "$TAG-br" type bridge
  ip link set "$TAG-br" up
  for ((i = 1; i <= N; i++)); do
    ip netns add "$TAG-h$i"
    ip link add "$TAG-h$i" type veth peer name "$TAG-p$i"
    ip link set "$TAG-h$i" netns "$TAG-h$i"
    ip link set "$TAG-p$i" master "$TAG-br" up
    ip -n "$TAG-h$i" link set lo up
    ip -n "$TAG-h$i" link set "$TAG-h$i" up
    if ((V6)); then ip -n "$TAG-h$i" addr add "fd77::$i/64" dev "$TAG-h$i" nodad
    else ip -n "$TAG-h$i" addr add "10.77.0.$i/24" dev "$TAG-h$i"; fi
  done
fi

for ((i = 1; i <= N; i++)); do start_nicd "$i"; done
for ((i = 1; i <= N; i++)); do
  for _ in $(seq 100); do [[ -S $DIR/host$i/nicd.sock ]] && break; sleep 0.05; done
  if [[ ! -S $DIR/host$i/nicd.sock ]]; then
    echo "cluster.sh: nicd of host$i did not start:" >&2
    cat "$DIR/host$i/nicd.log" >&2
    stop_cluster
    exit 1
  fi
  read -r a _ <<<"$(addr $i)"
  echo "host$i: node $((i - 1)) at $a, nicd pid $(cat "$DIR/host$i/nicd.pid"), window /$TAG-nic$((i - 1))"
done
echo "cluster up ($MODE, $N hosts): scripts/cluster.sh run I CMD runs CMD on host I; scripts/cluster.sh stop"
[[ $cmd == start ]] && exit 0

on() { local h=$1; shift; CLUSTER_DIR=$DIR scripts/cluster.sh run "$h" "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
last=$N

step "VIPL: host$last sends 32 MiB to host1 over one Reliable Delivery connection"
on 1 build/bin/vipl_xfer serve "/$TAG-nic0" 77 &
srv=$!
sleep 0.3
on "$last" build/bin/vipl_xfer send "/$TAG-nic$((last - 1))" host1 77 $((32 * 1024 * 1024))
wait $srv

step "SOVIA: unmodified socat under the LD_PRELOAD shim, host$last -> host1 (10.77.0.1:5000)"
SO=build/lib/libsovia_preload.so
[[ -f $SO ]] || make -s "$SO"
head -c $((16 * 1024 * 1024)) /dev/urandom >"$DIR/blob"
on 1 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=5000 timeout 60 \
  socat -u TCP-LISTEN:5000 OPEN:"$DIR/blob.out",creat,trunc &
srv=$!
for _ in $(seq 100); do [[ -e $DIR/host1/sovia-0-5000 ]] && break; sleep 0.05; done
t0=$(date +%s.%N)
on "$last" env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=5000 timeout 60 socat -u FILE:"$DIR/blob" TCP:10.77.0.1:5000
wait $srv
t1=$(date +%s.%N)
a=$(sha256sum <"$DIR/blob" | cut -c1-64) b=$(sha256sum <"$DIR/blob.out" | cut -c1-64)
echo "sent     sha256 $a"
echo "received sha256 $b  ($(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", 16.777216 / (b - a)}') MB/s)"
[[ $a == "$b" ]] || { echo "cluster.sh: SOVIA: the file differs" >&2; exit 1; }

step "PANIC: ping (the paper's Fig. 2) on node 0 (host1), echo on node 1 (host2), 100 round trips"
build/bin/pdlc -o "$DIR/ping.pvm" tests/pdl/examples/ping.pdl
build/bin/pdlc -o "$DIR/echo.pvm" tests/panic/echo.pdl
P=(build/bin/panicctl -d "/$TAG-nic0")
on 1 "${P[@]}" --node 1 load "$DIR/echo.pvm" 415
on 1 "${P[@]}" --node 1 run 415
on 1 "${P[@]}" route 0:0:0:96:221:127:255:140 1
on 1 "${P[@]}" load "$DIR/ping.pvm" 1
on 1 "${P[@]}" run 1
: >"$DIR/display"
for _ in $(seq 100); do
  on 1 "${P[@]}" display >>"$DIR/display"
  [[ $(wc -l <"$DIR/display") -ge 200 ]] && break
  sleep 0.05
done
awk '{ v[NR] = $2 } END {
  n = 0; s = 0; for (i = 1; i + 1 <= NR; i += 2) { d = v[i + 1] - v[i]; s += d; n++ }
  if (n == 0) { print "no round trips"; exit 1 }
  printf "%d round trips, mean %.1f us each (PANIC CLOCK: the NIC clock, ns)\n", n, s / n / 1000
}' "$DIR/display"
[[ $(wc -l <"$DIR/display") -ge 200 ]] || { echo "cluster.sh: PANIC: the ping did not finish" >&2; exit 1; }
on 1 "${P[@]}" --node 1 unload 415
on 1 "${P[@]}" unload 1

step "nicstat -f on host1: the UDP fabric, traffic per node"
on 1 build/bin/nicstat -f
echo
echo "the cluster is still up: scripts/cluster.sh stop"
