#!/usr/bin/env bash
# tests/sovia_apps/shim_sem.sh: shim_sem (a plain BSD-sockets program, see shim_sem.c) under
# the shim, server on NIC 0 and client on NIC 1 in empty network namespaces; both must exit 0
# in time (the server exits with a thread blocked in recv); then `shim_sem exitsig` 20 times
# (exit() from a signal handler that interrupts the shim); then three connects to a listener
# stopped by SIGSTOP, each timing out, must give their VIs back while the client lives (its
# receives were posted before the request). Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
. tests/sovia_apps/apps_lib.sh
trap nicd_cleanup EXIT
BIN=$PWD/build/tests/sovia_apps/shim_sem
shim_prog shim-sem "$BIN"
port=$(free_ports 3); SOVIA_PORTS=$port
pair_run "$BIN" $port
# exit() from a SIGALRM handler that interrupts the shim's accept, at 20 moments
SOVIA_PORTS=$((port + 1)) hung=0
for i in $(seq 20); do
  on_sovia 0 timeout 10 "$BIN" exitsig $((port + 1)) $((500 * i)) >>"$run/exitsig.log" 2>&1 || hung=$((hung + 1))
done
((hung == 0)) && ok "exit() from a signal handler inside the shim's calls: 20 of 20 ended" ||
  bad "exit() from a signal handler inside the shim's calls: $hung of 20 hung or failed"
# connects that time out, then the client's VIs in use on NIC 1 while it still runs
SOVIA_PORTS=$((port + 2))
bg_sovia 0 timeout 30 python3 -c "import socket, time
s = socket.socket(); s.bind(('0.0.0.0', $((port + 2)))); s.listen(); time.sleep(30)"
lsn=$bg
wait_sovia $((port + 2)) || bad "a listener that never accepts: listens over SOVIA"
for p in $lsn $(pgrep -P "$lsn"); do kill -STOP "$p"; done   # the listener, and python under timeout
SOVIA_CONNECT_MS=300 on_sovia 1 timeout 20 python3 -c "import socket, sys, time
for i in range(3):
    s = socket.socket()
    try:
        s.connect(('10.0.0.1', $((port + 2)))); print('CONNECTED')
    except OSError as e:
        print('ERR', e.errno)
    s.close()
print('DONE', flush=True)
time.sleep(20)" >"$run/to.log" 2>&1 &
cli=$!
for _ in $(seq 200); do grep -q DONE "$run/to.log" && break; sleep 0.05; done
sleep 0.2
vis=$(build/bin/nicstat "${prefix}1" | awk '/VIs in use:/ {print $4; exit}')
if [[ $(grep -c '^ERR' "$run/to.log") == 3 && $vis == 0 ]]; then
  ok "3 connects timed out ($(grep -m1 '^ERR' "$run/to.log")), and gave their VIs back (0 in use)"
else bad "connects that time out: $(tr '\n' ' ' <"$run/to.log" | head -c 200); VIs in use on NIC 1: $vis"; fi
kill -KILL "$cli" "$lsn" 2>/dev/null
report
