#!/usr/bin/env bash
# tests/faults/shim_kill.sh: unmodified programs under the SOVIA shim (socat, and python3's
# socket module through shim_peer.py), server on NIC 0 and client on NIC 1, each in an empty
# network namespace, when nicd or the peer process is SIGKILLed. Only a FIN is end of file:
#   1. socat receiving an endless stream, nicd killed once 1 MiB has arrived: the server reports
#      an error and exits non-zero within 5 s, having written a true prefix of the stream (never
#      a clean EOF), and so does the client.
#   2. socat waiting for a connection (select), nicd killed: it exits non-zero within 3 s.
#   3. a listener in select, poll, epoll and epoll edge-triggered (non-blocking, as event loops
#      have it), nicd killed: the wait reports it readable (POLLERR/EPOLLERR where the call has
#      it) within 1.5 s, accept fails with ENETDOWN, and a second wait reports nothing more
#      (a level-triggered loop that ignored the error would spin).
#   4. a receiver reading with recv, read, recvmsg, non-blocking recv after select, poll, epoll
#      and epoll edge-triggered, and recv after its own shutdown(SHUT_WR), its sending peer
#      killed: ECONNRESET, never EOF, within 1.5 s; and with nicd killed instead: ENETDOWN.
#   5. socat fork sending an endless stream (its connections made by the parent, served by
#      children): the serving child killed, the client's read fails (ECONNRESET) within 5 s and
#      the parent serves the next connection; the parent killed, its child's stream goes on.
#   6. socat fork and its clients all SIGKILLed: their memory regions are removed within 3 s.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/sovia_apps/apps_lib.sh
. tests/common/ports.sh
PEER=$PWD/tests/faults/shim_peer.py
trap 'stop_nicd; rm -rf "${run:-}"' EXIT

for f in "$SO" build/bin/nicd; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
command -v socat >/dev/null || { bad "socat not installed (scripts/deps.sh)"; report; exit 1; }

stop_nicd() { [[ -n ${nicd:-} ]] && { kill -KILL "$nicd" 2>/dev/null; wait "$nicd" 2>/dev/null; }; nicd=; }
# A nicd of its own for each case (a killed one leaves its run directory to remove).
fresh() {
  stop_nicd
  [[ -n ${run:-} ]] && rm -rf "$run"
  apps_init shim-kill || { bad "nicd did not start"; return 1; }
  port=$(free_ports 1); SOVIA_PORTS=$port
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}'; }
# wait_exit PID SECS: 0 once PID exited (status in $wrc), 1 (and killed) after SECS.
wait_exit() {
  local i
  for ((i = 0; i < $2 * 20; i++)); do
    kill -0 "$1" 2>/dev/null || { wait "$1"; wrc=$?; return 0; }
    sleep 0.05
  done
  kill_tree "$1"; wait "$1" 2>/dev/null; wrc=137
  return 1
}
kill_nicd() { kill -KILL "$nicd"; wait "$nicd" 2>/dev/null; nicd=; }
# streaming: until NIC 0 has received 1 MiB more than before (at most 10 s), so that a kill
# comes mid-stream however long the programs take to start on a loaded machine.
rx_bytes() { VERINIC_RUN=$run build/bin/nicstat "${prefix}0" 2>/dev/null | awk '$1 == "recv_bytes" {print $2; exit}'; }
streaming() {
  local i b0=$(rx_bytes)
  for ((i = 0; i < 200; i++)); do
    (( $(rx_bytes) > ${b0:-0} + (1 << 20) )) && return 0
    sleep 0.05
  done
}

# 1. socat mid-transfer, nicd killed. The client sends a stream with no end (a 16 MiB random
# block, over and over, through a FIFO), so however fast the NICs are, nicd dies mid-stream.
fresh && {
  head -c $((16 << 20)) /dev/urandom >"$run/big"
  mkfifo "$run/src"
  ( while cat "$run/big"; do :; done ) >"$run/src" 2>/dev/null &
  feed=$!
  bg_sovia 0 timeout 60 socat -u TCP-LISTEN:$port OPEN:"$run/out",creat,trunc 2>"$run/srv.err"
  srv=$bg
  wait_sovia $port || bad "socat: listens over SOVIA"
  bg_sovia 1 timeout 60 socat -u OPEN:"$run/src" TCP:10.0.0.1:$port 2>"$run/cli.err"
  cli=$bg
  for ((i = 0; i < 200; i++)); do
    (($(stat -c %s "$run/out" 2>/dev/null || echo 0) >= 1 << 20)) && break
    sleep 0.05
  done
  t=$(now); kill_nicd
  if wait_exit "$srv" 5; then
    n=$(stat -c %s "$run/out")
    if ((wrc != 0)) && ((n > 0)) && cmp -s -n "$n" "$run/out" <(while cat "$run/big"; do :; done 2>/dev/null); then
      ok "socat, nicd killed mid-transfer: the server fails (exit $wrc, $(tail -1 "$run/srv.err" | grep -o 'E .*' | head -c 60)) in $(since "$t") s, $n bytes, a true prefix"
    else bad "socat, nicd killed mid-transfer: server exit $wrc with $n bytes (an endless stream taken for a whole one, or not its prefix): $(tail -2 "$run/srv.err")"; fi
  else bad "socat, nicd killed mid-transfer: the server still runs after 5 s"; fi
  wait_exit "$cli" 5 && ((wrc != 0)) && ok "socat, nicd killed mid-transfer: the client fails (exit $wrc)" \
    || bad "socat, nicd killed mid-transfer: client exit $wrc"
  kill "$feed" 2>/dev/null; wait "$feed" 2>/dev/null
}

# 2. socat waiting for a connection, nicd killed.
fresh && {
  bg_sovia 0 timeout 60 socat -u TCP-LISTEN:$port OPEN:"$run/out",creat,trunc 2>"$run/srv.err"
  srv=$bg
  wait_sovia $port || bad "socat: listens over SOVIA"
  sleep 0.5
  t=$(now); kill_nicd
  if wait_exit "$srv" 3 && ((wrc != 0)); then
    ok "socat listening, nicd killed: exits $wrc in $(since "$t") s ($(tail -1 "$run/srv.err" | grep -o 'E .*' | head -c 60))"
  else bad "socat listening, nicd killed: exit $wrc (137: still waiting after 3 s)"; fi
}

# 3. a listener in each kind of wait, nicd killed.
for mode in select poll epoll epollet; do
  fresh || continue
  bg_sovia 0 timeout 30 python3 "$PEER" listen $port $mode >"$run/l.out" 2>&1
  srv=$bg
  wait_sovia $port || bad "listener ($mode): listens over SOVIA"
  sleep 0.3
  t=$(now); kill_nicd
  until grep -q '^ACCEPT' "$run/l.out" || awk -v e="$(since "$t")" 'BEGIN{exit !(e > 3)}'; do
    sleep 0.02
  done
  el=$(since "$t")
  wait_exit "$srv" 3
  want=readable; [[ $mode == poll ]] && want=POLLERR; [[ $mode == epoll* ]] && want=EPOLLERR
  if grep -q "^READY .*$want" "$run/l.out" && grep -q '^ACCEPT ERR ENETDOWN' "$run/l.out" &&
     grep -q '^AFTER quiet' "$run/l.out" && awk -v e="$el" 'BEGIN{exit !(e < 1.5)}'; then
    ok "listener in $mode, nicd killed: $(grep READY "$run/l.out" | cut -d' ' -f2), accept ENETDOWN, in $el s, then quiet"
  else bad "listener in $mode, nicd killed ($el s): $(tr '\n' ' ' <"$run/l.out" | head -c 200)"; fi
done

# 4. a receiver in each way of reading, its peer (then nicd) killed.
for victim in peer nicd; do
  for mode in recv read recvmsg select poll epoll epollet half; do
    fresh || continue
    bg_sovia 0 timeout 30 python3 "$PEER" recv $port $mode >"$run/r.out" 2>&1
    srv=$bg
    wait_sovia $port || bad "receiver ($mode): listens over SOVIA"
    bg_sovia 1 timeout 30 python3 "$PEER" send 10.0.0.1 $port >/dev/null 2>&1
    cli=$bg
    streaming
    t=$(now)
    if [[ $victim == peer ]]; then kill_tree "$cli"; want=ECONNRESET; else kill_nicd; want=ENETDOWN; fi
    wait_exit "$srv" 3
    el=$(since "$t")
    [[ $victim == nicd ]] && kill_tree "$cli"
    wait "$cli" 2>/dev/null
    if grep -q "^ERR $want [1-9]" "$run/r.out" && awk -v e="$el" 'BEGIN{exit !(e < 1.5)}'; then
      ok "$mode, $victim killed mid-stream: $(cut -d' ' -f1-2 "$run/r.out") after $(cut -d' ' -f3 "$run/r.out") bytes, in $el s"
    else bad "$mode, $victim killed mid-stream ($el s): $(tr '\n' ' ' <"$run/r.out" | head -c 200) (want $want)"; fi
  done
done

# 5. socat fork sending an endless stream: its connections are made by the parent's connection
# thread and served by a child. The child killed mid-stream: the client fails (never a hang, nor
# a clean end) within 5 s, and the parent serves the next connection. The parent killed while a
# child serves: that child's stream goes on, and ends with an error when the child is killed.
# kids PID: its children, oldest first; socat_child PID: the newest child of the socat that
# PID (timeout) runs
kids() { ps -o pid= --ppid "$1" --sort=start_time | tr -d ' '; }
socat_child() { kids "$(kids "$1" | head -1)" | tail -1; }
grows() { local a b; a=$(stat -c %s "$1"); sleep "$2"; b=$(stat -c %s "$1"); ((b > a)); }
fresh && {
  bg_sovia 0 timeout 60 socat TCP-LISTEN:$port,fork,reuseaddr SYSTEM:'cat /dev/zero' 2>"$run/srv.err"
  srv=$bg
  wait_sovia $port || bad "socat fork: listens over SOVIA"
  parent=$(kids "$srv" | head -1)
  for round in child parent; do
    rm -f "$run/out"
    bg_sovia 1 timeout 60 socat -d -u TCP:10.0.0.1:$port OPEN:"$run/out",creat 2>"$run/cli.err"
    cli=$bg
    for ((i = 0; i < 200; i++)); do
      (($(stat -c %s "$run/out" 2>/dev/null || echo 0) >= 4 << 20)) && break
      sleep 0.05
    done
    child=$(socat_child "$srv")
    if [[ $round == parent ]]; then
      kill -KILL "$parent"; wait "$srv" 2>/dev/null   # timeout ends with it
      sleep 0.5                                        # nicd looks at owners every 100 ms
      if grows "$run/out" 0.3; then ok "socat fork, the parent killed: its child's stream goes on"
      else bad "socat fork, the parent killed: its child's stream stopped ($(tail -1 "$run/cli.err"))"; fi
    fi
    t=$(now); kill -KILL "$child"
    # socat -u takes a reset for a warning (W) and exits 0: the message tells it from an EOF
    if wait_exit "$cli" 5 && grep -q 'W read.*Connection reset by peer' "$run/cli.err"; then
      ok "socat fork, the serving child killed ($round round): the client's read fails (ECONNRESET) in $(since "$t") s, after $(stat -c %s "$run/out") bytes"
    else bad "socat fork, the serving child killed ($round round): client exit $wrc (137: still blocked after 5 s): $(tail -2 "$run/cli.err" | tr '\n' ' ')"; fi
    if [[ $round == child ]]; then
      n=$(on_sovia 1 timeout 10 socat -u TCP:10.0.0.1:$port - 2>/dev/null | head -c 1048576 | wc -c)
      if kill -0 "$parent" 2>/dev/null && ((n == 1048576)); then ok "socat fork, a child killed: the parent serves the next connection"
      else bad "socat fork, a child killed: the next connection got $n bytes (parent $(kill -0 "$parent" 2>/dev/null && echo alive || echo gone))"; fi
    fi
  done
  kill_tree "$srv"; wait "$srv" 2>/dev/null
}

# 6. what killed programs had registered: socat fork serving four streaming clients, every
# process of both sides SIGKILLed; nicd removes their memory regions as a driver releases what
# a dead process pinned (nicd/segreap.c), so both NICs are back to the regions in use before
# within 3 s (a NIC has 256, which a few killed servers used up before).
regions() { VERINIC_RUN=$run build/bin/nicstat "${prefix}$1" 2>/dev/null | awk '/memory regions in use:/ {print $5; exit}'; }
back_to() { # back_to NIC COUNT SECS: the NIC's regions in use fall to COUNT within SECS
  local i
  for ((i = 0; i < $3 * 20; i++)); do (( $(regions "$1") <= $2 )) && return 0; sleep 0.05; done
  return 1
}
fresh && {
  r0=$(regions 0) r1=$(regions 1)
  bg_sovia 0 timeout 60 socat TCP-LISTEN:$port,fork,reuseaddr SYSTEM:'cat >/dev/null' 2>/dev/null
  srv=$bg
  wait_sovia $port || bad "socat fork (regions): listens over SOVIA"
  clis=()
  for i in 1 2 3 4; do
    bg_sovia 1 timeout 60 socat -u /dev/zero TCP:10.0.0.1:$port 2>/dev/null
    clis+=("$bg")
  done
  streaming
  u0=$(regions 0) u1=$(regions 1)
  t=$(now)
  for p in "$srv" "${clis[@]}"; do kill_tree "$p"; done
  for p in "$srv" "${clis[@]}"; do wait "$p" 2>/dev/null; done
  if ((u0 > r0 && u1 > r1)) && back_to 0 "$r0" 3 && back_to 1 "$r1" 3; then
    ok "programs SIGKILLed: their memory regions removed in $(since "$t") s (NIC 0: $r0 -> $u0 -> $(regions 0), NIC 1: $r1 -> $u1 -> $(regions 1))"
  else bad "programs SIGKILLed: regions in use NIC 0 $r0 -> $u0 -> $(regions 0), NIC 1 $r1 -> $u1 -> $(regions 1) after $(since "$t") s"; fi
}
report
