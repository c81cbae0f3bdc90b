#!/usr/bin/env bash
# tests/sovia_lib/preload.sh: the LD_PRELOAD shim (build/lib/libsovia_preload.so) with an
# unmodified netcat-openbsd. Starts nicd with two NICs (tests/common/nicd.sh: private run dir
# and window prefix, hosts file 10.0.0.1 -> node 0, 10.0.0.2 -> node 1); `nc -l` on NIC 0 (its port listed in
# SOVIA_PRELOAD_PORTS) receives a 5 MB random file from `nc -N 10.0.0.1` on NIC 1, compared
# with cmp; the listener must exist only on the fabric (no kernel socket on that port). Then
# a non-configured address/port (127.0.0.1) must still go over the kernel with the shim
# loaded. Every step under `timeout`; nicd is stopped in a trap (nicd_cleanup). Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
SO=$PWD/build/lib/libsovia_preload.so
. tests/common/nicd.sh
. tests/common/ports.sh
trap nicd_cleanup EXIT
pass=0; fail=0
ok()  { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

for f in "$SO" build/bin/nicd; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
command -v nc >/dev/null || { echo "nc missing"; echo "0 passed, 1 failed"; exit 1; }

nicd_start sovia-preload --fast; up=$?
sleep 0.1
if ((up == 0)); then ok "nicd started"; else bad "nicd started"; fi

# A port free in the kernel (the shim must not need it, but a kernel listener would hide a
# fall-through).
port=$(free_ports 2)
kport=$((port + 1))
head -c $((5 * 1024 * 1024)) /dev/urandom >"$run/in"

# 1. 5 MB over SOVIA: listener on NIC 0, client on NIC 1.
LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port SOVIA_NIC=${prefix}0 \
  timeout 60 nc -l -p "$port" >"$run/out" </dev/null 2>"$run/srv.err" &
srv=$!
# The listener registers in the run dir (sovia-<node>-<port>) once listen() went to SOVIA.
for _ in $(seq 100); do [[ -e $run/sovia-0-$port ]] && break; sleep 0.05; done
if [[ -e $run/sovia-0-$port ]]; then ok "nc -l listens over SOVIA"; else bad "nc -l listens over SOVIA"; fi
if ss -ltn 2>/dev/null | grep -q ":$port\b"; then bad "no kernel listener on $port"; else ok "no kernel listener on $port"; fi
t0=$(date +%s.%N)
LD_PRELOAD=$SO SOVIA_NIC=${prefix}1 timeout 60 nc -N 10.0.0.1 "$port" <"$run/in" 2>"$run/cli.err"
crc=$?
wait "$srv"; src=$?
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
if [[ $crc -eq 0 ]]; then ok "client nc exit 0"; else bad "client nc exit $crc: $(head -c 300 "$run/cli.err")"; fi
if [[ $src -eq 0 ]]; then ok "server nc exit 0"; else bad "server nc exit $src: $(head -c 300 "$run/srv.err")"; fi
if cmp -s "$run/in" "$run/out"; then ok "5 MB byte-identical over SOVIA (${secs}s)"
else bad "5 MB byte-identical over SOVIA ($(stat -c %s "$run/out") bytes arrived)"; fi

# 2. Not configured (127.0.0.1, port not in SOVIA_PRELOAD_PORTS): the kernel, both ends
#    under the shim.
echo "kernel path $$" >"$run/kin"
LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port SOVIA_NIC=${prefix}0 \
  timeout 30 nc -l -p "$kport" >"$run/kout" </dev/null 2>"$run/ksrv.err" &
ksrv=$!
for _ in $(seq 100); do ss -ltn 2>/dev/null | grep -q ":$kport\b" && break; sleep 0.05; done
if ss -ltn 2>/dev/null | grep -q ":$kport\b"; then ok "kernel listener on $kport"; else bad "kernel listener on $kport"; fi
LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port SOVIA_NIC=${prefix}1 \
  timeout 30 nc -N 127.0.0.1 "$kport" <"$run/kin" 2>"$run/kcli.err"
kcrc=$?
wait "$ksrv"; ksrc=$?
if [[ $kcrc -eq 0 && $ksrc -eq 0 ]] && cmp -s "$run/kin" "$run/kout"; then ok "127.0.0.1:$kport over the kernel"
else bad "127.0.0.1:$kport over the kernel (client $kcrc, server $ksrc)"; fi
[[ -e $run/sovia-0-$kport || -e $run/sovia-1-$kport ]] && bad "no SOVIA listener for $kport"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
