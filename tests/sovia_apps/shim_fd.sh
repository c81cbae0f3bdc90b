#!/usr/bin/env bash
# tests/sovia_apps/shim_fd.sh: shim_fd (duplicates, a stdio stream, a connection handed to an
# exec'd program; see shim_fd.c) under the shim, server on NIC 0 and client on NIC 1 in empty
# network namespaces; then no relay process may outlive its connection. Prints "N passed,
# N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
. tests/sovia_apps/apps_lib.sh
trap nicd_cleanup EXIT
BIN=$PWD/build/tests/sovia_apps/shim_fd
export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1
for f in "$SO" "$BIN" build/bin/nicd; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
apps_init shim-fd || { echo "0 passed, 1 failed"; exit 1; }
port=$(free_ports 1); SOVIA_PORTS=$port
bg_sovia 0 env SOVIA_DEBUG=${SVDBG:-} timeout 60 "$BIN" server $port >"$run/srv.log" 2>&1
srv=$bg
wait_sovia $port || bad "server listens over SOVIA"
on_sovia 1 timeout 60 "$BIN" client 10.0.0.1 $port >"$run/cli.log" 2>&1; crc=$?
wait "$srv"; src=$?; [[ -n ${SVDBG:-} ]] && cp "$run/srv.log" /tmp/srv.log
for f in srv cli; do
  grep -E '^(ok|FAIL) ' "$run/$f.log"
  p=$(grep -Eo '^[0-9]+ passed' "$run/$f.log" | grep -Eo '^[0-9]+'); x=$(grep -Eo '[0-9]+ failed' "$run/$f.log" | grep -Eo '^[0-9]+')
  pass=$((pass + ${p:-0})); fail=$((fail + ${x:-1}))
  grep -vE '^(ok|FAIL) |passed' "$run/$f.log" | head -5 | sed 's/^/     /'
done
((src == 0)) && ok "server exited 0 in time" || bad "server exit $src"
((crc == 0)) && ok "client exited 0" || bad "client exit $crc"
for i in $(seq 50); do pgrep -x sovia-relay >/dev/null || break; sleep 0.1; done
pgrep -x sovia-relay >/dev/null && bad "a relay outlived its connection: $(pgrep -ax sovia-relay)" ||
  ok "the relay ended with its connection"
report
