#!/usr/bin/env bash
# A cluster of three nicds on loopback UDP (scripts/cluster.sh --loopback: no namespaces
# needed, each nicd its own run directory and node), and host programs across them: a VIPL
# stream (every byte checked), unmodified socat under the SOVIA shim (sha256 compared), the
# PANIC ping of the paper's Fig. 2 between nodes of different nicds, and nicstat -f's per-node
# counters. Fault-free; CLUSTER_NICD_ARGS="--loss P --seed N ..." is passed to every nicd;
# VERINIC_FIRMWARE=lanai runs the LANai image on them.
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$(mktemp -d /tmp/cluster-sh-XXXXXX)
tag=vct$$
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
C() { CLUSTER_DIR=$dir/c scripts/cluster.sh "$@"; }
finish() {
  C stop >/dev/null 2>&1
  rm -rf "$dir"
}
trap finish EXIT
read -r -a extra <<<"${CLUSTER_NICD_ARGS:-}"
[[ ${VERINIC_FIRMWARE:-native} == lanai ]] && extra+=(--lanai "${VERINIC_LANAI_IMAGE:-build/lanai/firmware.img}")
# base..base+3: the nicds' UDP ports; base+4, base+5: the SOVIA listeners below.
. tests/common/ports.sh
base=$(free_ports 6)

if C start --loopback -n 3 --port "$base" --dir "$dir/c" --tag "$tag" -- "${extra[@]}" >"$dir/start.log" 2>&1; then
  ok "three nicds up on loopback UDP"
else
  bad "cluster start: $(cat "$dir/start.log")"
  echo "$pass passed, $fail failed"
  exit 1
fi

# VIPL: host3 (node 2) streams to host1 (node 0).
C run 1 timeout 30 build/bin/vipl_xfer serve "/$tag-nic0" 91 >"$dir/v.srv" 2>&1 &
srv=$!
sleep 0.2
C run 3 timeout 30 build/bin/vipl_xfer send "/$tag-nic2" host1 91 $((8 * 1024 * 1024 + 17)) >"$dir/v.cli" 2>&1
crc=$?
wait $srv
src=$?
if ((crc == 0 && src == 0)) && grep -q "received 8388625 bytes from node 2, every byte as sent" "$dir/v.srv"
then ok "VIPL: 8 MiB from node 2 (nicd 3) to node 0 (nicd 1), every byte checked"
else bad "VIPL: client $crc server $src: $(cat "$dir/v.cli" "$dir/v.srv")"; fi

# SOVIA: socat, unmodified, under the LD_PRELOAD shim; host2 (node 1) -> host1 (node 0).
SO=build/lib/libsovia_preload.so
port=$((base + 4))
head -c $((4 * 1024 * 1024)) /dev/urandom >"$dir/blob"
C run 1 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port timeout 30 \
  socat -u TCP-LISTEN:$port OPEN:"$dir/blob.out",creat,trunc 2>"$dir/so.srv" &
srv=$!
for _ in $(seq 100); do [[ -e $dir/c/host1/sovia-0-$port ]] && break; sleep 0.05; done
C run 2 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port timeout 30 \
  socat -u FILE:"$dir/blob" TCP:10.77.0.1:$port 2>"$dir/so.cli"
crc=$?
wait $srv
src=$?
a=$(sha256sum <"$dir/blob" | cut -c1-64)
b=$(sha256sum <"$dir/blob.out" 2>/dev/null | cut -c1-64)
if ((crc == 0 && src == 0)) && [[ $a == "$b" ]]; then ok "SOVIA: socat 4 MiB node 1 -> node 0 across nicds (sha256 equal)"
else bad "SOVIA: socat client $crc server $src, sha256 $a vs $b: $(cat "$dir/so.cli" "$dir/so.srv")"; fi

# SOVIA: each host has its own run directory (its own listener registry), so a connect() to
# a port nobody listens on at another machine is asked through the nicds and times out.
t0=$(date +%s%N)
C run 2 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$((port + 1)) SOVIA_CONNECT_MS=1000 timeout 10 \
  socat -u /dev/null TCP:10.77.0.1:$((port + 1)) 2>"$dir/nol.cli"
crc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if ((crc != 0 && crc != 124 && ms < 5000)) && grep -qi "timed out" "$dir/nol.cli"
then ok "SOVIA: connect() to a port nobody listens on at another host: ETIMEDOUT after $ms ms"
else bad "SOVIA: connect() to nobody across hosts: exit $crc after $ms ms: $(cat "$dir/nol.cli")"; fi

# PANIC: ping on node 0 (nicd 1), echo loaded and run remotely on node 1 (nicd 2).
build/bin/pdlc -o "$dir/ping.pvm" tests/pdl/examples/ping.pdl &&
  build/bin/pdlc -o "$dir/echo.pvm" tests/panic/echo.pdl || bad "pdlc"
P=(timeout 10 build/bin/panicctl -d "/$tag-nic0")
if C run 1 "${P[@]}" --node 1 load "$dir/echo.pvm" 415 >/dev/null && C run 1 "${P[@]}" --node 1 run 415 >/dev/null &&
   C run 1 "${P[@]}" route 0:0:0:96:221:127:255:140 1 && C run 1 "${P[@]}" load "$dir/ping.pvm" 1 >/dev/null &&
   C run 1 "${P[@]}" run 1 >/dev/null; then ok "PANIC: echo loaded and run on node 1 from node 0's host"
else bad "PANIC: remote load/run"; fi
: >"$dir/display"
for _ in $(seq 100); do
  C run 1 "${P[@]}" display >>"$dir/display"
  [[ $(wc -l <"$dir/display") -ge 200 ]] && break
  sleep 0.05
done
# The values are the NIC's clock as signed 32-bit words: a reply comes after its request modulo 2^32.
paired=$(awk '{ v[NR] = $2; p[NR] = $1; l[NR] = $0 } END { ok = NR == 200; bad = ""
  for (i = 1; i + 1 <= NR; i += 2) {
    d = v[i + 1] - v[i]; if (d < 0) d += 4294967296
    if (p[i] == 1 && d > 0 && d < 2147483648) continue
    if (ok || bad == "") bad = " (lines " i "-" i + 1 ": \"" l[i] "\" \"" l[i + 1] "\")"; ok = 0
  }
  print ok ? "yes" : "no" bad }' "$dir/display")
if [[ $paired == yes ]]; then ok "PANIC: 100 ping round trips across nicds (each reply after its request)"
else bad "PANIC: display gave $(wc -l <"$dir/display") values, paired: $paired"; fi
C run 1 "${P[@]}" --node 1 list >"$dir/list" 2>&1
if grep -Eq '^415 +echo +waiting +[0-9]+ +101 ' "$dir/list"; then ok "PANIC: the remote echo ran 101 activations"
else bad "PANIC: remote list: $(cat "$dir/list")"; fi

# nicstat -f on host1: traffic per node and no drops.
C run 1 build/bin/nicstat -f >"$dir/stat" 2>&1
if awk '$1 == 2 && $2 == "remote" && $5 > 2000 && $7 == 0 { f = 1 } END { exit !f }' "$dir/stat" &&
   awk '$1 == 1 && $2 == "remote" && $5 > 100 { f = 1 } END { exit !f }' "$dir/stat" &&
   grep -q "crc 0 addr 0" "$dir/stat"
then ok "nicstat -f: frames from node 1 and node 2 counted per peer, no drops"
else bad "nicstat -f: $(cat "$dir/stat")"; fi

# nicd of host1 SIGKILLed in the middle of a VIPL stream and of a SOVIA transfer into it: the
# senders on hosts 3 and 2 end with an error within 2 s, nothing hangs; restarted, it serves.
ms() { date +%s%3N; }
C run 1 timeout 30 build/bin/vipl_xfer serve "/$tag-nic0" 93 >"$dir/k.srv" 2>&1 &
ksrv=$!
sleep 0.2
C run 3 timeout 30 build/bin/vipl_xfer send "/$tag-nic2" host1 93 $((4 * 1024 * 1024 * 1024)) \
  >"$dir/k.cli" 2>&1 &
kcli=$!
port2=$((port + 1))
C run 1 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port2 timeout 30 \
  socat -u TCP-LISTEN:$port2 OPEN:/dev/null 2>"$dir/k.so.srv" &
ksosrv=$!
for _ in $(seq 100); do [[ -e $dir/c/host1/sovia-0-$port2 ]] && break; sleep 0.05; done
C run 2 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port2 timeout 30 \
  socat -u FILE:/dev/zero TCP:10.77.0.1:$port2 2>"$dir/k.so.cli" &
ksocli=$!
sleep 0.7
t0=$(ms)
kill -KILL "$(cat "$dir/c/host1/nicd.pid")"
wait $kcli; vrc=$?; t1=$(ms)
wait $ksocli; src=$?; t2=$(ms)
wait $ksrv $ksosrv 2>/dev/null
if ((vrc != 0 && vrc != 124 && t1 - t0 <= 2000)); then ok "VIPL sender: an error $((t1 - t0)) ms after its peer's nicd was killed mid-stream"
else bad "VIPL sender: exit $vrc after $((t1 - t0)) ms: $(cat "$dir/k.cli")"; fi
if ((src != 0 && src != 124 && t2 - t0 <= 2000)); then ok "socat sender: an error $((t2 - t0)) ms after its peer's nicd was killed mid-transfer"
else bad "socat sender: exit $src after $((t2 - t0)) ms: $(cat "$dir/k.so.cli")"; fi
if C restart 1 >"$dir/restart.log" 2>&1; then
  C run 1 timeout 30 build/bin/vipl_xfer serve "/$tag-nic0" 95 >"$dir/r.srv" 2>&1 &
  srv=$!
  sleep 0.2
  C run 2 timeout 30 build/bin/vipl_xfer send "/$tag-nic1" host1 95 $((1024 * 1024)) >"$dir/r.cli" 2>&1
  crc=$?
  wait $srv
  if ((crc == 0 && $? == 0)); then ok "restarted nicd of host1 serves a new connection"
  else bad "after the restart: $(cat "$dir/r.cli" "$dir/r.srv")"; fi
else
  bad "restart: $(cat "$dir/restart.log")"
fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
