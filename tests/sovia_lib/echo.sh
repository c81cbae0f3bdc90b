#!/usr/bin/env bash
# tests/sovia_lib/echo.sh: an unmodified echo server and client (echo_server.c, echo_client.c:
# plain BSD sockets, poll, non-blocking connect; not linked with SOVIA) under the LD_PRELOAD
# shim. Starts nicd with two NICs (tests/common/nicd.sh: private run dir and window prefix,
# hosts file 10.0.0.1 -> node 0, 10.0.0.2 -> node 1). 1. The server on NIC 0 (its port in SOVIA_PRELOAD_PORTS)
# serves two clients on NIC 1 connecting to 10.0.0.1, one after the other and then two at
# once, each exchanging hundreds of messages of 1 B..64 KB, every byte compared; the port must
# have no kernel listener. 2. The same programs, shim loaded, on 127.0.0.1 and a port not
# configured: the kernel carries them (a kernel listener exists, no SOVIA registry entry).
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
SO=$PWD/build/lib/libsovia_preload.so
SRV=$PWD/build/tests/sovia_lib/echo_server
CLI=$PWD/build/tests/sovia_lib/echo_client
# The fixtures are sanitized; the shim is not and is preloaded before the ASan runtime.
export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1
. tests/common/nicd.sh
. tests/common/ports.sh
trap nicd_cleanup EXIT
pass=0; fail=0
ok()  { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

for f in "$SO" "$SRV" "$CLI" build/bin/nicd; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
if nicd_start sovia-echo --fast; then ok "nicd started"; else bad "nicd started"; fi

port=$(free_ports 2)
kport=$((port + 1))
client() {   # client LOG ADDRESS PORT: the client under the shim on NIC 1; its own checks count
  LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port SOVIA_NIC=${prefix}1 timeout 120 "$CLI" "$2" "$3" >"$1" 2>&1
  local rc=$? p f
  p=$(grep -Eo '^[0-9]+ passed' "$1" | grep -Eo '^[0-9]+'); f=$(grep -Eo '[0-9]+ failed' "$1" | grep -Eo '^[0-9]+')
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
  grep -E '^FAIL|echo_client' "$1" | sed 's/^/     /'
  [[ $rc -eq 0 ]] || bad "client exit $rc ($1)"
}

# 1. Over SOVIA: 4 clients in all (two in turn, then two at once).
LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port SOVIA_NIC=${prefix}0 \
  timeout 200 "$SRV" "$port" 4 >"$run/srv.log" 2>&1 &
srv=$!
for _ in $(seq 100); do [[ -e $run/sovia-0-$port ]] && break; sleep 0.05; done
if [[ -e $run/sovia-0-$port ]]; then ok "echo server listens over SOVIA"; else bad "echo server listens over SOVIA"; fi
if ss -ltn 2>/dev/null | grep -q ":$port\b"; then bad "no kernel listener on $port"; else ok "no kernel listener on $port"; fi
client "$run/c1.log" 10.0.0.1 "$port"
client "$run/c2.log" 10.0.0.1 "$port"
client "$run/c3.log" 10.0.0.1 "$port" & c3=$!
client "$run/c4.log" 10.0.0.1 "$port"
wait "$c3"
# (a client run in the background counts in its subshell: recount its log here)
p=$(grep -Eo '^[0-9]+ passed' "$run/c3.log" | grep -Eo '^[0-9]+'); f=$(grep -Eo '[0-9]+ failed' "$run/c3.log" | grep -Eo '^[0-9]+')
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
wait "$srv"; src=$?
if [[ $src -eq 0 ]]; then ok "echo server served 4 clients and exited 0"
else bad "echo server exit $src: $(tail -c 300 "$run/srv.log")"; fi

# 2. Not on the fabric: 127.0.0.1 and a port not configured go to the kernel.
LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port SOVIA_NIC=${prefix}0 \
  timeout 60 "$SRV" "$kport" 1 >"$run/ksrv.log" 2>&1 &
ksrv=$!
for _ in $(seq 100); do ss -ltn 2>/dev/null | grep -q ":$kport\b" && break; sleep 0.05; done
if ss -ltn 2>/dev/null | grep -q ":$kport\b"; then ok "kernel listener on $kport"; else bad "kernel listener on $kport"; fi
client "$run/k.log" 127.0.0.1 "$kport"
wait "$ksrv"; ksrc=$?
if [[ $ksrc -eq 0 ]]; then ok "kernel echo server exit 0"; else bad "kernel echo server exit $ksrc"; fi
if [[ -e $run/sovia-0-$kport || -e $run/sovia-1-$kport ]]; then bad "no SOVIA listener for $kport"
else ok "no SOVIA listener for $kport"; fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
