#!/usr/bin/env bash
# tests/sovia_apps/apps.sh: unmodified Debian programs over SOVIA (issue 15). Each server runs
# under the LD_PRELOAD shim on NIC 0 and each client under the shim on NIC 1, every one in an
# empty network namespace (apps_lib.sh: plain processes where `unshare -n` is refused, said so),
# so nothing can quietly use the kernel's network. Each check asserts real data or behaviour
# (sha256 of files moved, values read back, counts reported by the programs' own output) and
# every step runs under `timeout`, so a hang is a failure. A program that is not installed is
# a failure too (scripts/deps.sh installs them).
#   tests/sovia_apps/apps.sh [NAME...]   (redis memcached nginx iperf3 python socat sockperf
#                                         lighttpd node busybox sshd; default all). Prints
#                                         "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
. tests/sovia_apps/apps_lib.sh
trap nicd_cleanup EXIT

for f in "$SO" build/bin/nicd; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
apps_init sovia-apps || { echo "0 passed, 1 failed"; exit 1; }
base=$(free_ports 14)
PY=/usr/bin/python3
sha() { sha256sum <"$1" | cut -d' ' -f1; }
need() { command -v "$1" >/dev/null 2>&1 || { bad "$2: $1 not installed (scripts/deps.sh)"; return 1; }; }
head -c $((3 * 1024 * 1024 + 17)) /dev/urandom >"$run/blob"
mkdir -p "$run/www" && cp "$run/blob" "$run/www/blob"
head -c 4096 /dev/urandom | base64 >"$run/www/index.html"

t_redis() {
  need redis-server redis && need redis-benchmark redis || return
  local port=$((base + 1)) v; SOVIA_PORTS=$port
  bg_sovia 0 timeout 60 redis-server --port $port --bind "0.0.0.0 ::" --protected-mode no \
    --save "" --appendonly no --logfile "$run/redis.log"
  local srv=$bg
  wait_sovia $port && ok "redis: redis-server listens over SOVIA" || bad "redis: listens over SOVIA"
  v=$(head -c 24 /dev/urandom | base64)
  [[ $(on_sovia 1 timeout 10 redis-cli -h 10.0.0.1 -p $port ping) == PONG ]] && ok "redis: PING" || bad "redis: PING"
  on_sovia 1 timeout 10 redis-cli -h 10.0.0.1 -p $port set key "$v" >/dev/null
  [[ $(on_sovia 1 timeout 10 redis-cli -h 10.0.0.1 -p $port get key) == "$v" ]] && ok "redis: SET then GET returns the value" || bad "redis: SET/GET"
  on_sovia 1 timeout 60 redis-benchmark -h 10.0.0.1 -p $port -n 2000 -P 1 -t ping,set,get --csv >"$run/rb.csv" 2>&1
  if [[ $(grep -cE '^"(PING_INLINE|PING_MBULK|SET|GET)","[1-9]' "$run/rb.csv") -eq 4 ]]; then
    ok "redis: redis-benchmark PING/SET/GET, its default 50 clients ($(awk -F'"' '/^"GET"/{print $4}' "$run/rb.csv") GET/s)"
  else bad "redis: redis-benchmark: $(tr '\n' ' ' <"$run/rb.csv" | head -c 300)"; fi
  local ks; ks=$(on_sovia 1 timeout 10 redis-cli -h 10.0.0.1 -p $port dbsize)
  [[ ${ks:-0} -ge 2 ]] && ok "redis: the benchmark's keys are there (DBSIZE $ks)" || bad "redis: DBSIZE $ks"
  on_sovia 1 timeout 10 redis-cli -h 10.0.0.1 -p $port shutdown nosave >/dev/null 2>&1
  if stop "$srv" CONT 10 && ((stop_rc == 0)); then ok "redis: SHUTDOWN: the server exits 0"
  else bad "redis: server exit after SHUTDOWN ($stop_rc): $(tail -c 300 "$run/redis.log")"; fi
}

t_memcached() {
  need memcached memcached && need memccp memcached || return
  local port=$((base + 2)); SOVIA_PORTS=$port
  bg_sovia 0 timeout 60 memcached -u root -p $port -U 0 -l 0.0.0.0 -t 2 -I 8m -m 64
  local srv=$bg
  wait_sovia $port && ok "memcached: listens over SOVIA" || bad "memcached: listens over SOVIA"
  (cd "$run" && on_sovia 1 timeout 20 memccp --servers=10.0.0.1:$port blob) >"$run/mc.log" 2>&1
  on_sovia 1 timeout 20 memccat --servers=10.0.0.1:$port blob >"$run/mc.out" 2>>"$run/mc.log"
  head -c "$(stat -c %s "$run/blob")" "$run/mc.out" >"$run/mc.val"   # memccat adds a newline
  [[ -s $run/mc.out && $(sha "$run/mc.val") == $(sha "$run/blob") ]] && ok "memcached: 3 MB value stored (memccp) and read back (memccat), sha256" \
    || bad "memcached: value read back: $(head -c 300 "$run/mc.log")"
  printf 'set a 0 0 5\r\nhello\r\nincr n 1\r\nset n 0 0 1\r\n7\r\nincr n 35\r\nget a n\r\nquit\r\n' >"$run/mc.in"
  on_sovia 1 timeout 10 socat -t 5 - TCP:10.0.0.1:$port <"$run/mc.in" >"$run/mc.txt" 2>&1
  if grep -q '^42' "$run/mc.txt" && grep -q '^hello' "$run/mc.txt"; then ok "memcached: text protocol set/incr/get (socat client)"
  else bad "memcached: text protocol: $(tr '\r\n' '  ' <"$run/mc.txt" | head -c 200)"; fi
  stop "$srv" TERM 10 && ok "memcached: SIGTERM: exits" || bad "memcached: hangs in exit"
}

t_nginx() {
  need nginx nginx && need wrk nginx && need ab nginx || return
  local port=$((base + 3)); SOVIA_PORTS=$port
  mkdir -p "$run/nginx/logs"
  cat >"$run/nginx/nginx.conf" <<NGX
user root;
daemon off;
master_process on;
worker_processes 2;
env VERINIC_RUN;
pid $run/nginx/nginx.pid;
error_log $run/nginx/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  sendfile on;
  client_body_temp_path $run/nginx/tmp;
  server { listen $port; root $run/www; }
}
NGX
  bg_sovia 0 timeout 90 nginx -p "$run/nginx" -c "$run/nginx/nginx.conf" -e "$run/nginx/error.log"
  local srv=$bg
  wait_sovia $port && ok "nginx: master and 2 workers listen over SOVIA" || bad "nginx: listens over SOVIA"
  for i in 1 2 3; do
    on_sovia 1 timeout 20 curl -sS -o "$run/ng.out" "http://10.0.0.1:$port/blob" 2>"$run/ng.err"
    [[ -s $run/ng.out && $(sha "$run/ng.out") == $(sha "$run/blob") ]] || { bad "nginx: curl $i: $(head -c 200 "$run/ng.err")"; break; }
    ((i == 3)) && ok "nginx: 3 MB file by curl, 3 times (sha256; sendfile to a SOVIA socket)"
  done
  on_sovia 1 timeout 30 ab -q -n 300 -c 4 "http://10.0.0.1:$port/index.html" >"$run/ab.txt" 2>&1
  if grep -qE '^Complete requests: +300' "$run/ab.txt" && grep -qE '^Failed requests: +0' "$run/ab.txt"; then
    ok "nginx: ab 300 requests, 4 at once, none failed"
  else bad "nginx: ab: $(grep -E 'requests|apr_' "$run/ab.txt" | tr '\n' ' ' | head -c 300)"; fi
  on_sovia 1 timeout 30 wrk -t1 -c4 -d2s "http://10.0.0.1:$port/index.html" >"$run/wrk.txt" 2>&1
  if grep -qE '^ +[0-9]+ requests in' "$run/wrk.txt" && ! grep -q 'Socket errors' "$run/wrk.txt"; then
    ok "nginx: wrk 2 s, 4 connections, no socket errors ($(grep -Eo '^ +[0-9]+ requests' "$run/wrk.txt" | tr -d ' '))"
  else bad "nginx: wrk: $(tr '\n' ' ' <"$run/wrk.txt" | head -c 300)"; fi
  # More connections at once than a NIC had VIs before it had 256 (each end takes one).
  on_sovia 1 timeout 60 wrk -t2 -c200 -d3s "http://10.0.0.1:$port/index.html" >"$run/wrk.txt" 2>&1
  if grep -qE '^ +[0-9]+ requests in' "$run/wrk.txt" && ! grep -q 'Socket errors' "$run/wrk.txt"; then
    ok "nginx: wrk 3 s, 200 connections at once, no socket errors ($(grep -Eo '^ +[0-9]+ requests' "$run/wrk.txt" | tr -d ' '))"
  else bad "nginx: wrk -c 200: $(tr '\n' ' ' <"$run/wrk.txt" | head -c 300)"; fi
  if stop "$srv" QUIT 15; then ok "nginx: SIGQUIT: master and workers exit"
  else bad "nginx: graceful stop hangs: $(tail -c 300 "$run/nginx/error.log")"; fi
}

t_iperf3() {
  need iperf3 iperf3 || return
  local port=$((base + 4)) dir; SOVIA_PORTS=$port
  for dir in "" -R; do
    bg_sovia 0 timeout 30 iperf3 -s -1 -p $port >"$run/ip-s.txt" 2>&1
    local srv=$bg
    wait_sovia $port || { bad "iperf3${dir:+ $dir}: server listens over SOVIA ([::], dual stack)"; kill $srv; continue; }
    on_sovia 1 timeout 30 iperf3 -c 10.0.0.1 -p $port -t 2 $dir -J >"$run/ip.json" 2>"$run/ip.err"
    local bps
    bps=$($PY -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]))' "$run/ip.json" 2>/dev/null)
    if [[ ${bps:-0} -gt 0 ]]; then ok "iperf3${dir:+ $dir}: $(awk -v b="$bps" 'BEGIN{printf "%.2f", b/1e9}') Gbit/s received, server on [::]"
    else bad "iperf3${dir:+ $dir}: $(head -c 300 "$run/ip.err") $(grep -o '"error":.*' "$run/ip.json" | head -c 200)"; fi
    stop "$srv" TERM 5 >/dev/null || bad "iperf3${dir:+ $dir}: server still running after its one test"
  done
}

t_python() {
  [[ -x $PY ]] || { bad "python: $PY not installed"; return; }
  local port=$((base + 5)); SOVIA_PORTS=$port
  bg_sovia 0 timeout 60 $PY -m http.server $port --directory "$run/www" >"$run/py.log" 2>&1
  local srv=$bg
  wait_sovia $port && ok "python: http.server listens over SOVIA ([::], dual stack)" || bad "python: listens over SOVIA"
  on_sovia 1 timeout 20 curl -sS -o "$run/py.out" "http://10.0.0.1:$port/blob" 2>"$run/py.err"
  [[ -s $run/py.out && $(sha "$run/py.out") == $(sha "$run/blob") ]] && ok "python: 3 MB file by curl (sha256)" \
    || bad "python: curl: $(head -c 300 "$run/py.err")"
  grep -q '"GET /blob HTTP/1.1" 200' "$run/py.log" && ok "python: the server logged the v4-mapped peer's GET" \
    || bad "python: server log: $(tail -c 200 "$run/py.log")"
  stop "$srv" INT 10 && ok "python: SIGINT: exits" || bad "python: hangs in exit"
}

t_socat() {
  need socat socat || return
  local port=$((base + 6)) i; SOVIA_PORTS=$port
  bg_sovia 0 timeout 30 socat -u TCP-LISTEN:$port OPEN:"$run/so.out",creat,trunc
  local srv=$bg
  wait_sovia $port || bad "socat: listens over SOVIA"
  on_sovia 1 timeout 30 socat -u FILE:"$run/blob" TCP:10.0.0.1:$port 2>"$run/so.err"
  if stop "$srv" CONT 20 && ((stop_rc == 0)); then ok "socat: one connection: both exit 0 (no hang in exit)"
  else bad "socat: server exit ($stop_rc) $(head -c 200 "$run/so.err")"; fi
  [[ $(sha "$run/so.out") == $(sha "$run/blob") ]] && ok "socat: 3 MB file (sha256)" || bad "socat: file differs"
  port=$((base + 7)); SOVIA_PORTS=$port
  bg_sovia 0 timeout 60 socat TCP-LISTEN:$port,fork SYSTEM:'tr a-z A-Z' 2>"$run/sof.err"
  srv=$bg
  wait_sovia $port || bad "socat fork: listens over SOVIA"
  local good=0
  for i in 1 2 3 4 5; do
    [[ $(echo "hello $i" | on_sovia 1 timeout 10 socat -t 5 - TCP:10.0.0.1:$port) == "HELLO $i" ]] && good=$((good + 1))
  done
  ((good == 5)) && ok "socat fork: 5 connections in turn, each served by its child" || bad "socat fork: $good of 5 answered: $(head -c 300 "$run/sof.err")"
  good=0
  # 8 at once, more than socat's listen backlog (5): the rest wait, as for a kernel socket
  for i in 1 2 3 4 5 6 7 8; do
    (echo "par $i" | on_sovia 1 timeout 10 socat -t 5 - TCP:10.0.0.1:$port >"$run/sof.$i" 2>"$run/sofc.$i"
     echo "exit $? at $SECONDS s of the script" >>"$run/sofc.$i") &
  done
  wait $(jobs -p | grep -v "^$srv$" | grep -v "^$nicd$") 2>/dev/null
  local why=
  for i in 1 2 3 4 5 6 7 8; do
    if [[ $(cat "$run/sof.$i") == "PAR $i" ]]; then good=$((good + 1))
    else why+=" [client $i: '$(head -c 40 "$run/sof.$i")' $(tail -c 200 "$run/sofc.$i" | tr '\n' ' ')]"; fi
  done
  if ((good == 8)); then ok "socat fork: 8 connections at once, beyond its backlog of 5"
  else
    bad "socat fork: $good of 8 at once:$why server: $(tail -c 300 "$run/sof.err" | tr '\n' ' ')"
    build/bin/nicstat "${prefix}0" "${prefix}1" 2>&1 | grep -E "drops|reliable|retransmission|VIs in use" | sed 's/^/    /'
  fi
  # More connections handed to children than a process has registration records (libnic's
  # NIC_MAX_MR, 255): the parent forgets each one's record (VipxForgetMem)
  local r n=0
  why=
  for r in $(seq 1 40); do
    for i in 1 2 3 4 5 6 7 8; do
      (echo "many $i" | on_sovia 1 timeout 10 socat -t 5 - TCP:10.0.0.1:$port >"$run/sof.$i" 2>"$run/sofc.$i"
       echo "exit $? at $SECONDS s of the script" >>"$run/sofc.$i") &
    done
    wait $(jobs -p | grep -v "^$srv$" | grep -v "^$nicd$") 2>/dev/null
    for i in 1 2 3 4 5 6 7 8; do
      if [[ $(cat "$run/sof.$i") == "MANY $i" ]]; then n=$((n + 1))
      else why+=" [round $r client $i: '$(head -c 40 "$run/sof.$i")' $(tail -c 200 "$run/sofc.$i" | tr '\n' ' ')]"; fi
    done
  done
  ((n == 320)) && ok "socat fork: 320 more connections, 8 at a time (more than 255 registration records)" \
    || bad "socat fork: $n of 320 connections answered:${why:0:600} server: $(grep -v claims "$run/sof.err" | tail -c 300 | tr '\n' ' ')"
  stop "$srv" TERM 10 && ok "socat fork: SIGTERM: the parent exits" || bad "socat fork: parent hangs"
}

t_sockperf() {
  need sockperf sockperf || return
  local port=$((base + 8)); SOVIA_PORTS=$port
  bg_sovia 0 timeout 60 sockperf server --tcp -i 0.0.0.0 -p $port >"$run/sp-s.txt" 2>&1
  local srv=$bg
  wait_sovia $port && ok "sockperf: server listens over SOVIA" || bad "sockperf: listens"
  on_sovia 1 timeout 30 sockperf ping-pong --tcp -i 10.0.0.1 -p $port -t 2 -m 64 >"$run/sp.txt" 2>&1
  if grep -qE 'Summary: Latency is [0-9.]+ usec' "$run/sp.txt" && grep -qE 'ReceivedMessages=[1-9]' "$run/sp.txt"; then
    ok "sockperf: ping-pong 2 s: $(grep -Eo 'Latency is [0-9.]+ usec' "$run/sp.txt")"
  else bad "sockperf: ping-pong: $(tail -c 300 "$run/sp.txt")"; fi
  on_sovia 1 timeout 30 sockperf throughput --tcp -i 10.0.0.1 -p $port -t 2 -m 1400 >"$run/spt.txt" 2>&1
  grep -qE 'Summary: BandWidth is [0-9.]+ MBps' "$run/spt.txt" && ok "sockperf: throughput 2 s: $(grep -Eo 'BandWidth is [0-9.]+ MBps' "$run/spt.txt")" \
    || bad "sockperf: throughput: $(tail -c 300 "$run/spt.txt")"
  stop "$srv" INT 10 && ok "sockperf: server exits on SIGINT" || bad "sockperf: server hangs"
}

t_lighttpd() {
  need lighttpd lighttpd || return
  local port=$((base + 9)); SOVIA_PORTS=$port
  cat >"$run/lighttpd.conf" <<LTC
server.document-root = "$run/www"
server.port = $port
server.bind = "0.0.0.0"
server.errorlog = "$run/lighttpd.err"
server.modules = ()
LTC
  bg_sovia 0 timeout 60 lighttpd -D -f "$run/lighttpd.conf"
  local srv=$bg
  wait_sovia $port && ok "lighttpd: listens over SOVIA (its default event handler: epoll)" || bad "lighttpd: listens"
  on_sovia 1 timeout 20 curl -sS -o "$run/lt.out" "http://10.0.0.1:$port/blob" 2>"$run/lt.err"
  [[ -s $run/lt.out && $(sha "$run/lt.out") == $(sha "$run/blob") ]] && ok "lighttpd: 3 MB file by curl (sha256)" \
    || bad "lighttpd: curl: $(head -c 300 "$run/lt.err") $(tail -c 200 "$run/lighttpd.err")"
  stop "$srv" TERM 10 && ok "lighttpd: SIGTERM: exits" || bad "lighttpd: hangs in exit"
}

# node: libuv closes descriptors with syscall(SYS_close) (past close()), and starts a thread
# with a 32 KiB stack (the shim's thread-local storage must leave room).
t_node() {
  need node nodejs || return
  local port=$((base + 10)) i pids= good=0; SOVIA_PORTS=$port
  bg_sovia 0 timeout 60 node tests/sovia_apps/node_http.js $port "$run/www" >"$run/node.log" 2>&1
  local srv=$bg
  wait_sovia $port && ok "node: http server listens over SOVIA" || bad "node: listens: $(head -c 300 "$run/node.log")"
  grep -q pthread_create "$run/node.log" && bad "node: a thread of its own failed: $(head -c 200 "$run/node.log")"
  for i in 1 2 3 4; do
    on_sovia 1 timeout 20 curl -sS -o "$run/nd$i.out" "http://10.0.0.1:$port/blob" 2>>"$run/nd.err"
  done
  for i in 5 6 7 8; do
    on_sovia 1 timeout 20 curl -sS -o "$run/nd$i.out" "http://10.0.0.1:$port/blob" 2>>"$run/nd.err" &
    pids="$pids $!"
  done
  wait $pids
  for i in 1 2 3 4 5 6 7 8; do [[ $(sha "$run/nd$i.out") == $(sha "$run/blob") ]] && good=$((good + 1)); done
  ((good == 8)) && ok "node: 3 MB file by curl 4 times one after another and 4 at once (sha256)" ||
    bad "node: $good of 8 whole: $(tail -c 300 "$run/nd.err")"
  v=$(on_sovia 1 timeout 20 curl -sS --data-binary @"$run/blob" "http://10.0.0.1:$port/up" 2>>"$run/nd.err")
  [[ $v == $(stat -c %s "$run/blob") ]] && ok "node: a 3 MB POST body counted whole ($v)" || bad "node: POST: '$v'"
  stop "$srv" TERM 10 && ok "node: SIGTERM: exits" || bad "node: hangs in exit"
}

# busybox: httpd's child puts the connection on its stdin and stdout (dup2); wget reads and
# writes it through a stdio stream (fdopen).
t_busybox() {
  need busybox busybox || return
  local port=$((base + 11)); SOVIA_PORTS=$port
  bg_sovia 0 timeout 60 busybox httpd -f -p $port -h "$run/www"
  local srv=$bg
  wait_sovia $port && ok "busybox httpd: listens over SOVIA" || bad "busybox httpd: listens"
  on_sovia 1 timeout 20 curl -sS -o "$run/bb.out" "http://10.0.0.1:$port/blob" 2>"$run/bb.err"
  [[ -s $run/bb.out && $(sha "$run/bb.out") == $(sha "$run/blob") ]] && ok "busybox httpd: 3 MB file by curl (sha256)" \
    || bad "busybox httpd: curl: $(head -c 300 "$run/bb.err")"
  on_sovia 1 timeout 20 busybox wget -q -O "$run/bbw.out" "http://10.0.0.1:$port/blob" 2>"$run/bbw.err"
  [[ -s $run/bbw.out && $(sha "$run/bbw.out") == $(sha "$run/blob") ]] && ok "busybox wget: 3 MB file (sha256)" \
    || bad "busybox wget: $(head -c 300 "$run/bbw.err")"
  stop "$srv" TERM 10 && ok "busybox httpd: SIGTERM: exits" || bad "busybox httpd: hangs in exit"
}

# sshd re-execs itself for each connection, the connection on its stdin and stdout (a relay,
# host/sovia/preload_exec.c), and its unprivileged child serves it from a chroot.
t_sshd() {
  need /usr/sbin/sshd openssh-server && need ssh openssh-client || return
  if [[ $(id -u) -ne 0 ]]; then echo "note: sshd needs root (its privilege separation): skipped"; return; fi
  local port=$((base + 12)) d="$run/ssh" before left; SOVIA_PORTS=$port
  before=$(relays)
  mkdir -p "$d" /run/sshd && chmod 700 "$d"
  ssh-keygen -q -t ed25519 -N '' -f "$d/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$d/userkey"
  cp "$d/userkey.pub" "$d/authorized_keys"
  printf 'Port %s\nListenAddress 0.0.0.0\nHostKey %s\nAuthorizedKeysFile %s\nPermitRootLogin yes\nStrictModes no\nPasswordAuthentication no\nUsePAM no\nPidFile %s\n' \
    $port "$d/hostkey" "$d/authorized_keys" "$d/sshd.pid" >"$d/sshd_config"
  bg_sovia 0 timeout 90 /usr/sbin/sshd -D -e -f "$d/sshd_config" 2>"$d/sshd.log"
  local srv=$bg
  wait_sovia $port && ok "sshd: listens over SOVIA" || bad "sshd: listens: $(tail -c 300 "$d/sshd.log")"
  local o=(-i "$d/userkey" -p $port -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR)
  on_sovia 1 timeout 30 ssh "${o[@]}" root@10.0.0.1 "cat > $d/up" <"$run/blob" 2>"$d/c1.err"
  [[ -s $d/up && $(sha "$d/up") == $(sha "$run/blob") ]] && ok "ssh: 3 MB uploaded (sha256)" \
    || bad "ssh: upload: $(head -c 200 "$d/c1.err") $(tail -c 200 "$d/sshd.log")"
  on_sovia 1 timeout 30 ssh "${o[@]}" root@10.0.0.1 "cat $run/blob" >"$d/down" 2>"$d/c2.err"
  [[ -s $d/down && $(sha "$d/down") == $(sha "$run/blob") ]] && ok "ssh: 3 MB downloaded (sha256)" \
    || bad "ssh: download: $(head -c 200 "$d/c2.err")"
  local v
  v=$(on_sovia 1 timeout 30 ssh "${o[@]}" root@10.0.0.1 'echo $SSH_CONNECTION' 2>"$d/c3.err")
  [[ $v == "10.0.0.2 "*" 10.0.0.1 $port" ]] && ok "ssh: the session names the connection: $v" \
    || bad "ssh: SSH_CONNECTION '$v' $(head -c 200 "$d/c3.err")"
  stop "$srv" TERM 10 && ok "sshd: SIGTERM: exits" || bad "sshd: hangs in exit"
  left=$(relays_left "$before")
  [[ -z $left ]] && ok "sshd: each session's relay ended with it" || bad "sshd: relays left: $left"
}

names=("$@")
((${#names[@]})) || names=(redis memcached nginx iperf3 python socat sockperf lighttpd node busybox sshd)
for n in "${names[@]}"; do
  t0=$(date +%s)
  "t_$n"
  echo "     ($n: $(($(date +%s) - t0)) s)"
done
report
