#!/usr/bin/env bash
# tests/sovia_apps/shim_end.sh: a process's end under the shim, as its peers see it
# (shim_end.py; server on NIC 0, client on NIC 1, each in an empty network namespace). As with
# TCP, what a process sent reaches its peer whole, then end of file, however it ends:
#   1. send 3 MB, then os._exit (closed first, non-blocking sends, or left open): 3 rounds each;
#   2. a vfork child that _exits (subprocess.run of a missing program) between two halves of a
#      send: the parent's connection goes on;
#   3. a daemon: listen, fork, the parent ends (exit or _exit): the child's listener stays
#      listed and serves 3 connections;
#   4. socketserver.ForkingTCPServer (each child ends with os._exit): 4 clients get 3 MB each;
#   5. a prefork server whose workers exit after 5 connections each and are replaced (Apache's
#      MaxConnectionsPerChild): 300 connections, 8 at a time, all answered (a request the
#      leaving worker had taken goes to the others);
#   6. the parent of a prefork server SIGKILLed, its workers alive: a worker lists the port
#      again (within a second) and 100 more connections are answered, as a kernel listener
#      lives while any process holds it;
#   7. a connection closed with data unread, or with SO_LINGER {1, 0}: the peer's next recv
#      fails with ECONNRESET (after what was sent before the close) and its sends fail within
#      3 s, as TCP's reset makes them (they used to succeed, the data dropped);
#   8. nginx with its default configuration (daemon on: the master forks, its parent exits):
#      serves a 3 MB file to curl 3 times and quits (-s quit).
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
. tests/sovia_apps/apps_lib.sh
trap 'kill_tree ${ngx:-0} 2>/dev/null; nicd_cleanup' EXIT
END=$PWD/tests/sovia_apps/shim_end.py
PY=/usr/bin/python3
for f in "$SO" build/bin/nicd; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
apps_init shim-end || { echo "0 passed, 1 failed"; exit 1; }
base=$(free_ports 14)
head -c $((3 * 1024 * 1024 + 5)) /dev/urandom >"$run/blob"
want="EOF $(stat -c %s "$run/blob") $(sha256sum <"$run/blob" | cut -d' ' -f1)"
# serve PORT ARGS...: shim_end.py ARGS as the server, in the background (pid in $bg), listening
serve() {
  local port=$1; shift
  SOVIA_PORTS=$port bg_sovia 0 timeout 60 $PY "$END" "$@"
  SOVIA_PORTS=$port wait_sovia "$port"
}
get() { SOVIA_PORTS=$1 on_sovia 1 timeout 30 $PY "$END" get 10.0.0.1 "$1" 2>&1 | tail -1; }

# 1.
for how in close_exit nb_exit open_exit; do
  bad_rounds=()
  for r in 1 2 3; do
    port=$((base + r))
    serve $port exit $port "$run/blob" $how || bad_rounds+=("$r: no listener")
    got=$(get $port)
    [[ $got == "$want" ]] || bad_rounds+=("$r: $got")
    stop "$bg" TERM 10
  done
  ((${#bad_rounds[@]} == 0)) && ok "3 MB sent, then os._exit ($how): read whole, then end of file, 3 of 3" ||
    bad "os._exit ($how): ${bad_rounds[*]}"
done
# 2.
port=$((base + 4))
serve $port spawn $port "$run/blob" || bad "spawn: no listener"
got=$(get $port)
[[ $got == "$want" ]] && ok "a vfork child that _exits mid-send leaves the parent's connection alone" ||
  bad "vfork child's _exit: $got"
stop "$bg" TERM 10
# 3.
for how in exit _exit; do
  port=$((base + 5)); [[ $how == exit ]] || port=$((base + 6))
  SOVIA_PORTS=$port on_sovia 0 timeout 30 $PY "$END" daemon $port 3 $how
  n=0 out=
  for i in 0 1 2; do
    got=$(get $port)
    [[ $got == "EOF 7 $(printf 'hello %d' $i | sha256sum | cut -d' ' -f1)" ]] && n=$((n + 1)) || out="$out [$i: $got]"
  done
  ((n == 3)) && ok "a daemon's listener after its parent's $how: 3 connections served" ||
    bad "a daemon's listener after its parent's $how: $n of 3$out"
  pkill -f "$END daemon $port" 2>/dev/null
done
# 4.
port=$((base + 7))
serve $port forking $port "$run/blob" 4 || bad "forking server: no listener"
n=0 out=
for i in 1 2 3 4; do got=$(get $port); [[ $got == "$want" ]] && n=$((n + 1)) || out="$out [$got]"; done
((n == 4)) && ok "socketserver.ForkingTCPServer: 4 clients read 3 MB whole" || bad "ForkingTCPServer: $n of 4$out"
for _ in $(seq 200); do kill -0 "$bg" 2>/dev/null || break; sleep 0.05; done
stop "$bg" TERM 1
((stop_rc == 0)) && ok "ForkingTCPServer: exits 0 by itself after its 4 requests (children reaped)" ||
  bad "ForkingTCPServer exit: $stop_rc"
# 5.
port=$((base + 9))
serve $port prefork $port 3 5 || bad "prefork server: no listener"
got=$(SOVIA_PORTS=$port on_sovia 1 timeout 120 $PY "$END" burst 10.0.0.1 $port 300 8 2>&1 | tail -1)
[[ $got == "ANSWERED 300 " ]] && ok "a prefork server recycling its workers every 5 connections: 300 of 300 answered" ||
  bad "prefork server recycling its workers: $got"
kill_tree "$bg"
# 6.
port=$((base + 10))
serve $port prefork $port 3 1000 || bad "prefork server (kill): no listener"
got=$(SOVIA_PORTS=$port on_sovia 1 timeout 60 $PY "$END" burst 10.0.0.1 $port 20 4 2>&1 | tail -1)
par=$(pgrep -P "$bg" -f "shim_end.py prefork")
kill -KILL ${par:-0} 2>/dev/null
sleep 1.5
got2=$(SOVIA_PORTS=$port on_sovia 1 timeout 60 $PY "$END" burst 10.0.0.1 $port 100 4 2>&1 | tail -1)
[[ $got == "ANSWERED 20 " && $got2 == "ANSWERED 100 " && -n $par ]] &&
  ok "a prefork server's parent SIGKILLed: its workers list the port again and answer 100 of 100" ||
  bad "prefork parent killed (${par:-not found}): before: $got; after: $got2"
pkill -KILL -f "$END prefork $port" 2>/dev/null
kill_tree "$bg"
# 7.
port=$((base + 11))
serve $port unread $port || bad "unread: no listener"
got=$(SOVIA_PORTS=$port on_sovia 1 timeout 30 $PY "$END" pushy 10.0.0.1 $port 2>&1 | tr '\n' ' ')
[[ $got =~ ^RECV\ ECONNRESET\ SEND\ (ECONNRESET|EPIPE) ]] &&
  ok "closed with data unread: the peer's recv gets ECONNRESET and its sends fail ($got)" ||
  bad "closed with data unread: $got"
stop "$bg" TERM 5
port=$((base + 12))
serve $port linger0 $port || bad "linger0: no listener"
got=$(get $port)
[[ $got =~ ^ERR\ ECONNRESET ]] && ok "SO_LINGER {1, 0}: the peer's read ends with ECONNRESET ($got)" ||
  bad "SO_LINGER {1, 0}: $got"
stop "$bg" TERM 5
# 8.
if command -v nginx >/dev/null && command -v curl >/dev/null; then
  port=$((base + 8))
  mkdir -p "$run/ngx/logs" "$run/www" && cp "$run/blob" "$run/www/blob"
  cat >"$run/ngx/nginx.conf" <<NGX
user root;
worker_processes 2;
env VERINIC_RUN;
pid $run/ngx/nginx.pid;
error_log $run/ngx/error.log warn;
events { worker_connections 64; }
http { access_log off; client_body_temp_path $run/ngx/tmp; server { listen $port; root $run/www; } }
NGX
  SOVIA_PORTS=$port on_sovia 0 timeout 10 nginx -p "$run/ngx" -c "$run/ngx/nginx.conf" -e "$run/ngx/error.log"
  for _ in $(seq 100); do [[ -s $run/ngx/nginx.pid ]] && break; sleep 0.05; done
  ngx=$(cat "$run/ngx/nginx.pid" 2>/dev/null)
  n=0
  for i in 1 2 3; do
    rm -f "$run/ngx.out"
    SOVIA_PORTS=$port on_sovia 1 timeout 20 curl -sS -o "$run/ngx.out" "http://10.0.0.1:$port/blob" 2>"$run/ngx.err"
    [[ -s $run/ngx.out && $(sha256sum <"$run/ngx.out" | cut -d' ' -f1) == "${want##* }" ]] && n=$((n + 1))
  done
  ((n == 3)) && ok "nginx as a daemon (its default): a 3 MB file by curl, 3 of 3" ||
    bad "nginx as a daemon: $n of 3: $(head -c 200 "$run/ngx.err") $(tail -c 300 "$run/ngx/error.log")"
  SOVIA_PORTS=$port on_sovia 0 timeout 10 nginx -p "$run/ngx" -c "$run/ngx/nginx.conf" -e "$run/ngx/error.log" -s quit
  for _ in $(seq 100); do kill -0 "${ngx:-0}" 2>/dev/null || break; sleep 0.05; done
  kill -0 "${ngx:-0}" 2>/dev/null && bad "nginx as a daemon: still running 5 s after -s quit" || ok "nginx as a daemon: quits"
else
  bad "nginx or curl not installed (scripts/deps.sh)"
fi
report
