# tests/sovia_apps/apps_lib.sh: what the real-program suite (apps.sh) and its benchmark
# (bench/bench_apps.sh) share. Sourced from the top of the tree after tests/common/nicd.sh.
#   apps_init TAG        nicd with two NICs (nicd_start), the shim, and whether `unshare -n`
#                        works (else plain processes, said once on stdout)
#   on_sovia SIDE CMD... CMD under the shim on NIC SIDE (0: server, 1: client), in an empty
#                        network namespace: nothing can fall back to the kernel's network
#   on_kernel CMD...     CMD as it is (the kernel TCP baseline on loopback)
#   wait_sovia PORT [S]  until a SOVIA listener is registered on node 0 for PORT (S seconds)
#   wait_kernel PORT [S] until a kernel listener is on PORT
#   bg_sovia/bg_kernel   a server in the background (pid in $bg); stop PID SIG SECS ends it
#   ok/bad TEXT          count a check; report prints "N passed, N failed"
#   shim_prog TAG BIN    the start of a test of the shim's own programs: the shim, BIN and
#                        nicd are built (else a failure line and exit), then apps_init TAG
#   relays               the live relay processes (host/sovia/preload_relay.c; an ended one
#                        may stay a zombie where nothing reaps orphans), one pid a line
#   relays_left BEFORE   those not in BEFORE (an earlier `relays`) still live 5 s on
#   pair_run BIN PORT    `BIN server PORT` on NIC 0 and `BIN client 10.0.0.1 PORT` on NIC 1 (the
#                        shim's test programs), their checks added to ours, and that both
#                        exited 0 in time
SO=${SOVIA_PRELOAD_SO:-$PWD/build/lib/libsovia_preload.so}
pass=0; fail=0
ok()  { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
report() { echo "$pass passed, $fail failed"; [[ $fail -eq 0 ]]; }

shim_prog() {
  export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1
  local f
  for f in "$SO" "$2" build/bin/nicd; do
    [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
  done
  apps_init "$1" || { echo "0 passed, 1 failed"; exit 1; }
}

relays() { ps -eo stat=,pid=,comm= | awk '$3 == "sovia-relay" && $1 !~ /^Z/ {print $2}'; }
relays_left() {
  local i r
  for i in $(seq 50); do
    r=$(relays | grep -vxF -f <(printf '%s\n' "$1" | grep .) || true)
    [[ -z $r ]] && return 0
    sleep 0.1
  done
  echo $r
}

pair_run() {
  local bin=$1 port=$2 srv src crc f p x
  bg_sovia 0 env SOVIA_DEBUG="${SVDBG:-}" timeout 60 "$bin" server "$port" >"$run/srv.log" 2>&1
  srv=$bg
  wait_sovia "$port" || bad "server listens over SOVIA"
  on_sovia 1 timeout 60 "$bin" client 10.0.0.1 "$port" >"$run/cli.log" 2>&1; crc=$?
  wait "$srv"; src=$?
  for f in srv cli; do
    grep -E '^(ok|FAIL) ' "$run/$f.log"
    p=$(grep -Eo '^[0-9]+ passed' "$run/$f.log" | grep -Eo '^[0-9]+'); x=$(grep -Eo '[0-9]+ failed' "$run/$f.log" | grep -Eo '^[0-9]+')
    pass=$((pass + ${p:-0})); fail=$((fail + ${x:-1}))
    grep -vE '^(ok|FAIL) |passed' "$run/$f.log" | head -"${SVLINES:-5}" | sed 's/^/     /'
  done
  ((src == 0)) && ok "server exited 0 in time" || bad "server exit $src"
  ((crc == 0)) && ok "client exited 0" || bad "client exit $crc"
}

NETNS=(unshare -n)
apps_init() {
  nicd_start "$1" --fast || { echo "nicd did not start"; return 1; }
  if ! unshare -n true 2>/dev/null; then
    NETNS=()
    echo "note: unshare -n refused here: programs run as plain processes (a kernel fallback would not show)"
  fi
}

# SOVIA_PORTS: the ports that go over SOVIA (set by the caller before on_sovia).
on_sovia() {
  local side=$1; shift
  env LD_PRELOAD="$SO" SOVIA_PRELOAD_PORTS="${SOVIA_PORTS:-}" SOVIA_NIC="${prefix}$side" \
    "${NETNS[@]}" "$@"
}
on_kernel() { "$@"; }
# bg_sovia SIDE CMD... / bg_kernel CMD...: a server in the background, its pid (the command
# itself, through exec: signals reach it) in $bg.
bg_sovia() {
  local side=$1; shift
  ( exec env LD_PRELOAD="$SO" SOVIA_PRELOAD_PORTS="${SOVIA_PORTS:-}" SOVIA_NIC="${prefix}$side" \
      "${NETNS[@]}" "$@" ) &
  bg=$!
}
bg_kernel() { ( exec "$@" ) & bg=$!; }

# kill_tree PID: PID and every descendant, KILL (what a hung server leaves must not outlive
# the test).
kill_tree() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
  kill -KILL "$1" 2>/dev/null
}

wait_sovia() {
  local i n=$(( ${2:-10} * 20 ))
  for ((i = 0; i < n; i++)); do [[ -e $run/sovia-0-$1 ]] && return 0; sleep 0.05; done
  return 1
}
wait_kernel() {
  local i n=$(( ${2:-10} * 20 ))
  for ((i = 0; i < n; i++)); do ss -ltn 2>/dev/null | grep -q ":$1\b" && return 0; sleep 0.05; done
  return 1
}

# stop PID [SIG] [SECS]: signal a server and wait for it; 0 if it exited within SECS (its
# status in $stop_rc), else kills it and returns 1.
stop() {
  local pid=$1 sig=${2:-TERM} secs=${3:-10} i
  kill -"$sig" "$pid" 2>/dev/null
  for ((i = 0; i < secs * 20; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; stop_rc=$?; return 0; }
    sleep 0.05
  done
  kill_tree "$pid"; wait "$pid" 2>/dev/null; stop_rc=137
  return 1
}
