#!/usr/bin/env bash
# tests/eudp/apps.sh: unmodified programs' UDP over E-UDP (host/eudp/README.md). Each server
# runs under the LD_PRELOAD shim on NIC 0 and each client on NIC 1, every one in its own network
# namespace with only its loopback up (the shim's readiness tokens need it; nothing can reach
# the other side through the kernel), so every datagram between them crossed the NICs. Checks
# assert real data (sha256, echoed bytes, the programs' own reports) and every step runs under
# `timeout`. Prints "N passed, N failed".
#   tests/eudp/apps.sh [NAME...]   (python socat iperf3 sockperf fd dns; default all)
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
trap nicd_cleanup EXIT
SO=${SOVIA_PRELOAD_SO:-$PWD/build/lib/libsovia_preload.so}
pass=0; fail=0
ok()  { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
for f in "$SO" build/bin/nicd build/bin/nicstat; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
nicd_start eudp-apps --fast || { echo "nicd did not start"; echo "0 passed, 1 failed"; exit 1; }
base=$(free_ports 8)
NETNS=(unshare -n sh -c 'ip link set lo up && exec "$@"' sh)
unshare -n true 2>/dev/null || { NETNS=(); echo "note: unshare -n refused here: plain processes"; }
# on SIDE CMD...: CMD under the shim on NIC SIDE; UDP_PORTS / TCP_PORTS: what goes over the NIC
on() {
  local side=$1; shift
  env LD_PRELOAD="$SO" SOVIA_PRELOAD_UDP_PORTS="${UDP_PORTS:-}" SOVIA_PRELOAD_PORTS="${TCP_PORTS:-}" \
    SOVIA_NIC="${prefix}$side" "${NETNS[@]}" "$@"
}
# bgon SIDE CMD...: on, in the background, the command itself (signals reach it); pid in $bg
bgon() {
  local side=$1; shift
  ( exec env LD_PRELOAD="$SO" SOVIA_PRELOAD_UDP_PORTS="${UDP_PORTS:-}" SOVIA_PRELOAD_PORTS="${TCP_PORTS:-}" \
      SOVIA_NIC="${prefix}$side" "${NETNS[@]}" "$@" ) &
  bg=$!
}
need() { command -v "$1" >/dev/null 2>&1 || { bad "$1 not installed (scripts/deps.sh)"; return 1; }; }
sha() { sha256sum <"$1" | cut -d' ' -f1; }
# ctr SIDE NAME: a firmware drop counter of NIC SIDE (nicstat's "drops:" line)
ctr() { build/bin/nicstat "${prefix}$1" 2>/dev/null | sed -n "s/.*drops:.* $2 \([0-9]*\).*/\1/p" | head -1; }
# vis SIDE: VIs in use on NIC SIDE; wait_bound SIDE BEFORE: until more than BEFORE (a server
# bound its port: a datagram sent earlier would find nobody and be dropped, as UDP does)
vis() { build/bin/nicstat "${prefix}$1" 2>/dev/null | sed -n 's/.*VIs in use: \([0-9]*\).*/\1/p'; }
# settled SIDE: vis once it has not changed for 0.2 s (the VIs of a server just stopped are
# given back a little later, which would hide a new server's)
settled() {
  local a b i
  a=$(vis "$1")
  for ((i = 0; i < 25; i++)); do sleep 0.2; b=$(vis "$1"); [[ $a == "$b" ]] && break; a=$b; done
  echo "$a"
}
wait_bound() {
  local i
  for ((i = 0; i < 100; i++)); do (( $(vis "$1") > $2 )) && return 0; sleep 0.05; done
  return 1
}

# vs_echo NAME CLIENT...: dgram_check.py's server on NIC 0 (port $UDP_PORTS), CLIENT on NIC 1;
# the client's "ok"/"FAIL" lines are the checks, named NAME
vs_echo() {
  local name=$1; shift
  local v0; v0=$(settled 0)
  bgon 0 timeout 60 python3 tests/eudp/dgram_check.py server "$UDP_PORTS"
  local srv=$bg
  wait_bound 0 "$v0" || bad "$name: the server never bound its port"
  local out; out=$(on 1 timeout 60 "$@" 2>&1)
  local rc=$?
  while read -r line; do
    case $line in "ok   "*) ok "$name: ${line#ok   }" ;; "FAIL "*) bad "$name: ${line#FAIL }" ;; esac
  done <<<"$out"
  ((rc == 0)) || bad "$name client exit $rc: $(tail -c 300 <<<"$out")"
  wait $srv || bad "$name: python server exit $?"
}

t_python() {
  UDP_PORTS=$((base + 1))
  vs_echo python python3 tests/eudp/dgram_check.py client 10.0.0.1 "$UDP_PORTS"
}

t_socat() {
  need socat || return
  local port=$((base + 2)) i; UDP_PORTS=$port
  head -c 60000 /dev/urandom >"$run/blob"
  for i in 0 1; do   # NIC 0 receives, then NIC 1
    rm -f "$run/got$i"
    local v0; v0=$(settled $i)
    bgon $i timeout 20 socat -u UDP-RECV:$port OPEN:"$run/got$i",creat,trunc
    local srv=$bg
    wait_bound $i "$v0" || bad "socat: UDP-RECV never bound on NIC $i"
    on $((1 - i)) timeout 10 socat -u -b 4000 OPEN:"$run/blob" UDP-SENDTO:10.0.0.$((i + 1)):$port
    local n
    for n in $(seq 50); do [[ $(stat -c %s "$run/got$i" 2>/dev/null) == 60000 ]] && break; sleep 0.1; done
    kill $srv 2>/dev/null; wait $srv 2>/dev/null
    [[ -s $run/got$i && $(sha "$run/got$i") == $(sha "$run/blob") ]] &&
      ok "socat: 60000 B in 4000 B datagrams to NIC $i (UDP-SENDTO -> UDP-RECV), sha256" ||
      bad "socat: to NIC $i: $(stat -c %s "$run/got$i" 2>/dev/null) B"
  done
  # request and answer: UDP-LISTEN connects to its first peer and answers through a command
  local v0; v0=$(settled 0)
  bgon 0 timeout 20 socat -d -d UDP-LISTEN:$port SYSTEM:"stdbuf -o0 tr a-z A-Z" 2>"$run/sl.err"
  local srv=$bg
  wait_bound 0 "$v0" || bad "socat: UDP-LISTEN never bound"
  local ans; ans=$(echo "hello e-udp" | on 1 timeout 5 socat -t 2 - UDP:10.0.0.1:$port)
  kill $srv 2>/dev/null; wait $srv 2>/dev/null
  [[ $ans == "HELLO E-UDP" ]] && ok "socat: UDP-LISTEN answers through SYSTEM (connected sockets both ends)" ||
    bad "socat: UDP-LISTEN answer '$ans': $(tail -c 600 "$run/sl.err")"
}

t_iperf3() {
  need iperf3 || return
  local port=$((base + 3)); UDP_PORTS=$port; TCP_PORTS=$port   # the control connection: SOVIA
  local d0; d0=$(ctr 0 no_desc)
  bgon 0 timeout 40 iperf3 -s -1 -p $port >"$run/ip.srv" 2>&1
  local srv=$bg
  sleep 1
  on 1 timeout 30 iperf3 -u -c 10.0.0.1 -p $port -t 2 -b 20M -l 1400 -J >"$run/ip.json" 2>"$run/ip.err"
  wait $srv
  TCP_PORTS=
  local r; r=$(python3 - "$run/ip.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["end"]["sum"]
print(s["packets"], s["lost_packets"], "%.1f" % (s["bits_per_second"] / 1e6))
PY
)
  local pk lost mbps; read -r pk lost mbps <<<"$r"
  local d1; d1=$(ctr 0 no_desc)
  if [[ -n ${pk:-} && $pk -gt 1000 ]]; then
    ok "iperf3 -u: 2 s at 20 Mbit/s, 1400 B: $pk datagrams, $lost lost, $mbps Mbit/s received"
    if [[ -n $d0 && -n $d1 ]]; then
      (( lost <= d1 - d0 )) && ok "iperf3 -u: every datagram lost is one the receiving NIC counted ($lost lost, $((d1 - d0)) dropped with no buffer)" ||
        bad "iperf3 -u: $lost lost, NIC counted $((d1 - d0))"
    else bad "iperf3 -u: nicstat counters unreadable"; fi
  else bad "iperf3 -u: $(head -c 300 "$run/ip.err") $(head -c 300 "$run/ip.json")"; fi
}

t_sockperf() {
  need sockperf || return
  local port=$((base + 4)); UDP_PORTS=$port
  local v0; v0=$(settled 0)
  bgon 0 timeout 40 sockperf server -i 10.0.0.1 -p $port >"$run/sp.srv" 2>&1
  local srv=$bg
  wait_bound 0 "$v0" || bad "sockperf: the server never bound"
  on 1 timeout 20 sockperf ping-pong -i 10.0.0.1 -p $port -t 2 -m 64 --data-integrity >"$run/sp.pp" 2>&1
  local lat; lat=$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' "$run/sp.pp")
  if [[ -n $lat ]] && ! grep -qi "data integrity.*fail\|integrity error" "$run/sp.pp"; then
    ok "sockperf ping-pong --data-integrity, 64 B: median $lat usec"
  else bad "sockperf ping-pong: $(tail -c 300 "$run/sp.pp")"; fi
  on 1 timeout 20 sockperf throughput -i 10.0.0.1 -p $port -t 2 -m 1400 >"$run/sp.tp" 2>&1
  local rate; rate=$(sed -n 's/.*Message Rate is \([0-9]*\).*/\1/p' "$run/sp.tp")
  [[ -n $rate && $rate -gt 0 ]] && ok "sockperf throughput, 1400 B: $rate msg/s sent" ||
    bad "sockperf throughput: $(tail -c 300 "$run/sp.tp")"
  kill $srv 2>/dev/null; wait $srv 2>/dev/null
}

# A C program's dup/dup2/F_DUPFD and sendmmsg/recvmmsg on a datagram socket (tests/eudp/dgram_fd.c)
t_fd() {
  UDP_PORTS=$((base + 6))
  vs_echo fd build/tests/eudp/dgram_fd 10.0.0.1 "$UDP_PORTS"
}

# A DNS query by an unmodified resolver client against dnsmasq, both under the shim: the answer
# checked. dnsmasq answers example.test itself (--address) and asks nobody else.
t_dns() {
  need dnsmasq || return
  local port=$((base + 5)) client i; UDP_PORTS=$port
  bgon 0 timeout 30 dnsmasq --keep-in-foreground --no-resolv --no-hosts --no-daemon \
    --port=$port --listen-address=10.0.0.1 --bind-interfaces --address=/example.test/10.9.8.7 \
    --pid-file= --user="$(id -un)" --log-facility="$run/dns.log" 2>"$run/dns.err"
  local srv=$bg
  # dnsmasq logs "started" once its sockets are bound
  for ((i = 0; i < 100; i++)); do grep -qs started "$run/dns.log" && break; sleep 0.05; done
  grep -qs started "$run/dns.log" || bad "dns: dnsmasq did not start: $(tail -c 300 "$run/dns.err")"
  for client in drill dig; do
    command -v $client >/dev/null 2>&1 || { bad "dns: $client not installed (scripts/deps.sh)"; continue; }
    local ans
    if [[ $client == drill ]]; then
      ans=$(on 1 timeout 10 drill -p $port @10.0.0.1 www.example.test A 2>&1)
    else
      ans=$(on 1 timeout 10 dig +tries=1 +time=3 -p $port @10.0.0.1 www.example.test A 2>&1)
    fi
    grep -qE "^www\.example\.test\.[[:space:]]+[0-9]+[[:space:]]+IN[[:space:]]+A[[:space:]]+10\.9\.8\.7" <<<"$ans" &&
      ok "dns: $client www.example.test A against dnsmasq: 10.9.8.7" ||
      bad "dns: $client: $(tail -c 400 <<<"$ans")"
  done
  kill $srv 2>/dev/null; wait $srv 2>/dev/null
}

dbg() { build/bin/nicstat "${prefix}0" | grep -E "drops|VIs"; build/bin/nicstat "${prefix}1" | grep -E "drops|VIs"; echo "ctr: $(ctr 0 no_desc)"; }
names=("$@"); ((${#names[@]})) || names=(python socat iperf3 sockperf fd dns)
for n in "${names[@]}"; do "t_$n"; [[ -n ${DBG:-} ]] && dbg; done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
