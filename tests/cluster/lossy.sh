#!/usr/bin/env bash
# Two nicds on loopback UDP with faults injected on every datagram they send (1 % loss, 0.5 %
# duplication, 1 % reordering, 0.1 % corruption; a fixed seed): Reliable Delivery retransmits,
# so a VIPL stream (every byte checked) and unmodified socat under the SOVIA shim (sha256) arrive
# intact and the connections never break; the firmware's counters show the retransmissions and
# the transport's the faults. Then 20 % loss: a transfer completes or fails with an error, never
# with wrong data (what arrived is a prefix of what was sent), and nothing hangs.
set -u
cd "$(dirname "$0")/../.."
dir=$(mktemp -d /tmp/cluster-lossy-XXXXXX)
tag=vcl$$
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
C() { CLUSTER_DIR=$dir/c scripts/cluster.sh "$@"; }
finish() { C stop >/dev/null 2>&1; rm -rf "$dir"; }
trap finish EXIT
SO=build/lib/libsovia_preload.so
. tests/common/ports.sh
base=$(free_ports 800)
FAULTS=(--loss 0.01 --dup 0.005 --reorder 0.01 --corrupt 0.001 --seed 11)

start() {   # three tries: another test may have taken a port since
  local try
  for try in 1 2 3; do
    C stop >/dev/null 2>&1
    if C start --loopback -n 2 --port $((base + RANDOM % 500)) --dir "$dir/c" --tag "$tag" -- "$@" \
        >"$dir/start.log" 2>&1; then return 0; fi
  done
  bad "cluster start: $(cat "$dir/start.log")"
  echo "$pass passed, $fail failed"
  exit 1
}
rtx() {   # rtx HOST: "resent timeouts duplicates ahead breaks" of the host's NIC (nicstat)
  C run "$1" build/bin/nicstat "/$tag-nic$(($1 - 1))" 2>/dev/null |
    sed -n 's/.*retransmission: resent \([0-9]*\), timeouts \([0-9]*\); dropped duplicate \([0-9]*\), ahead \([0-9]*\); transport breaks \([0-9]*\).*/\1 \2 \3 \4 \5/p'
}
# sovia PORT FILE SECONDS: socat host2 -> host1 under the shim; sets crc src
sovia() {
  C run 1 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$1 timeout "$3" \
    socat -u TCP-LISTEN:$1 OPEN:"$dir/out",creat,trunc 2>"$dir/so.srv" &
  local srv=$!
  for _ in $(seq 100); do [[ -e $dir/c/host1/sovia-0-$1 ]] && break; sleep 0.05; done
  C run 2 env LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$1 timeout "$3" \
    socat -u FILE:"$2" TCP:10.77.0.1:$1 2>"$dir/so.cli"
  crc=$?
  wait $srv
  src=$?
}

start "${FAULTS[@]}"
C run 1 timeout 60 build/bin/vipl_xfer serve "/$tag-nic0" 93 >"$dir/v.srv" 2>&1 &
srv=$!
sleep 0.2
C run 2 timeout 60 build/bin/vipl_xfer send "/$tag-nic1" host1 93 $((8 * 1024 * 1024 + 5)) >"$dir/v.cli" 2>&1
crc=$?
wait $srv
src=$?
if ((crc == 0 && src == 0)) && grep -q "received 8388613 bytes from node 1, every byte as sent" "$dir/v.srv"
then ok "VIPL over a faulty network: 8 MiB, every byte as sent"
else bad "VIPL over a faulty network: client $crc server $src: $(cat "$dir/v.cli" "$dir/v.srv")"; fi

head -c $((16 * 1024 * 1024)) /dev/urandom >"$dir/blob"
sovia $((base + 600)) "$dir/blob" 120
a=$(sha256sum <"$dir/blob" | cut -c1-64)
b=$(sha256sum <"$dir/out" 2>/dev/null | cut -c1-64)
if ((crc == 0 && src == 0)) && [[ $a == "$b" ]]
then ok "SOVIA over a faulty network: socat 16 MiB, sha256 equal, the connection never broke"
else bad "SOVIA over a faulty network: client $crc server $src, sha256 $a vs $b: $(cat "$dir/so.cli" "$dir/so.srv")"; fi

read -r rt to _ _ b2 <<<"$(rtx 2)"
read -r _ _ dup ahead b1 <<<"$(rtx 1)"
brk=$((${b1:-1} + ${b2:-1}))
inj=$(C run 2 build/bin/nicstat -f 2>/dev/null | grep -Eio 'loss[^0-9]*[0-9]+' | grep -Eo '[0-9]+$' | head -1)
if ((${rt:-0} > 0 && ${inj:-0} > 0 && brk == 0))
then ok "counted: $rt messages sent again after $to timeouts, ${dup:-0} duplicates and ${ahead:-0} ahead dropped, $inj datagrams lost on purpose, no connection broken"
else bad "counters: resent '${rt:-}' duplicates '${dup:-}' injected loss '${inj:-}' breaks '$brk'"; fi

start --loss 0.2 --seed 5
head -c $((2 * 1024 * 1024)) "$dir/blob" >"$dir/small"
t0=$(date +%s)
sovia $((base + 700)) "$dir/small" 60
secs=$(($(date +%s) - t0))
n=$(stat -c %s "$dir/out" 2>/dev/null || echo 0)
if ((crc == 124 || src == 124)); then bad "20 % loss: socat still running after 60 s"
elif cmp -s -n "$n" "$dir/small" "$dir/out"; then
  if ((crc == 0 && src == 0 && n == 2 * 1024 * 1024)); then ok "20 % loss: 2 MiB arrived intact in ${secs} s"
  else ok "20 % loss: broke with an error after ${secs} s, the $n bytes that arrived are a prefix of those sent"; fi
else bad "20 % loss: the $n bytes received differ from those sent (client $crc server $src)"; fi

echo "$pass passed, $fail failed"
((fail == 0))
