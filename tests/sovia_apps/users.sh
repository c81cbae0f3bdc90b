#!/usr/bin/env bash
# tests/sovia_apps/users.sh: programs of other users over the NICs (nicd --mode, --group,
# nicd/access.c). A server that drops root or runs as its own user (PostgreSQL as postgres,
# memcached -u memcache, nginx's workers as www-data) serves clients running as nobody, each
# under the shim in an empty network namespace; without the mode a process of another user is
# refused with EACCES at once (never ENETDOWN, never a hang); --group lets that group's users
# in and no one else; a bad --mode or --group stops nicd at start, named. A PostgreSQL backend
# SIGKILLed mid-result ends its psql at once, and the restarted server serves. Needs root.
#   tests/sovia_apps/users.sh        Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
. tests/sovia_apps/apps_lib.sh
pgdir=
trap 'kill_tree ${pg:-0} 2>/dev/null; nicd_cleanup; [[ -n $pgdir ]] && rm -rf "$pgdir"' EXIT

if [[ $(id -u) -ne 0 ]]; then echo "needs root (it runs programs as other users)"; echo "0 passed, 1 failed"; exit 1; fi
for f in "$SO" build/bin/nicd; do
  [[ -e $f ]] || { echo "missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
unshare -n true 2>/dev/null || NETNS=()
PY=/usr/bin/python3
base=$(free_ports 8)
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
POSTGRES=(setpriv --reuid=postgres --regid=postgres --init-groups)

# The shim from a place every user can read (the tree may sit in root's home).
shimdir=$(mktemp -d /tmp/verinic-shim-XXXXXX) && chmod 755 "$shimdir" && cp "$SO" "$shimdir/" &&
  SO=$shimdir/$(basename "$SO") && chmod 644 "$SO"
trap 'kill_tree ${pg:-0} 2>/dev/null; nicd_cleanup; rm -rf "$shimdir" ${pgdir:+"$pgdir"}' EXIT

# as_user SIDE PORT USER-ARGS... -- CMD...: CMD under the shim on NIC SIDE as another user.
as_user() {
  local side=$1 port=$2; shift 2
  local who=()
  while [[ $1 != -- ]]; do who+=("$1"); shift; done
  shift
  env LD_PRELOAD="$SO" SOVIA_PRELOAD_PORTS="$port" SOVIA_NIC="${prefix}$side" VERINIC_RUN="$run" \
    "${NETNS[@]}" "${who[@]}" "$@"
}
# A listener in python: prints "listening" or the errno's name, then waits for one client.
PYLISTEN='import socket,sys,errno
s=socket.socket()
try:
    s.bind(("0.0.0.0",int(sys.argv[1]))); s.listen(4)
except OSError as e:
    print(errno.errorcode.get(e.errno,e.errno)); sys.exit(0)
print("listening", flush=True)
s.settimeout(10); c,_=s.accept(); c.sendall(c.recv(100).upper()); c.close()'
PYTALK='import socket,sys
c=socket.create_connection(("10.0.0.1",int(sys.argv[1])),timeout=10); c.sendall(b"hello"); print(c.recv(100).decode())'

mode_of() { stat -c %a "$1" 2>/dev/null; }
group_of() { stat -c %G "$1" 2>/dev/null; }

# --- nicd --mode 0666: every user ---
if nicd_start users --fast --mode 0666; then
  w=/dev/shm/${prefix#/}0
  [[ $(mode_of "$w") == 666 && $(mode_of "$run/nicd.sock") == 666 && $(mode_of "$run") == 777 ]] &&
    ok "--mode 0666: windows and socket 0666, run directory 0777" ||
    bad "--mode 0666: window $(mode_of "$w"), socket $(mode_of "$run/nicd.sock"), run directory $(mode_of "$run")"

  # PostgreSQL runs as postgres (it refuses root) and forks a backend per connection.
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [[ -x $PGBIN/postgres ]] && command -v psql >/dev/null; then
    pgdir=$(mktemp -d /tmp/verinic-pg-XXXXXX) && chown postgres "$pgdir" && chmod 700 "$pgdir"
    if runuser -u postgres -- "$PGBIN/initdb" -D "$pgdir/data" -A trust >"$run/initdb.log" 2>&1; then
      echo "host all all 0.0.0.0/0 trust" >>"$pgdir/data/pg_hba.conf"
      port=$((base + 1))
      ( exec env LD_PRELOAD="$SO" SOVIA_PRELOAD_PORTS=$port SOVIA_NIC="${prefix}0" VERINIC_RUN="$run" \
          "${NETNS[@]}" "${POSTGRES[@]}" "$PGBIN/postgres" -D "$pgdir/data" -p $port \
          -c listen_addresses='*' -k "$pgdir" ) >"$run/pg.log" 2>&1 &
      pg=$!
      if wait_sovia $port 20; then ok "postgres: listens over SOVIA as user postgres"
      else bad "postgres: listens over SOVIA: $(tail -c 400 "$run/pg.log")"; fi
      psql_nobody() {
        as_user 1 $port "${NOBODY[@]}" -- timeout 30 psql -X -A -t -h 10.0.0.1 -p $port -U postgres \
          -d postgres -c "$1" 2>>"$run/psql.err"
      }
      for _ in $(seq 40); do   # it listens before it accepts queries ("starting up")
        [[ $(psql_nobody "select 1;" 2>/dev/null) == 1 ]] && break
        sleep 0.25
      done
      # A backend SIGKILLed mid-result: psql hears of it at once (the postmaster's next VI
      # must not take the dead backend's before nicd has told psql: host/libnic/nic_vi.c).
      psql_nobody "\\copy (select repeat('x', 1000) from generate_series(1,5000000)) to '/dev/null'" &
      pq=$!
      be=
      for _ in $(seq 100); do
        be=$(pgrep -u postgres -f "postgres: postgres postgres .*COPY" | head -1)
        [[ -n $be ]] && break
        sleep 0.1
      done
      sleep 0.5
      t0=$(date +%s%N)
      [[ -n $be ]] && kill -9 "$be"
      wait $pq
      rc=$? ms=$((($(date +%s%N) - t0) / 1000000))
      ((rc == 2 && ms < 5000)) && [[ -n $be ]] &&
        ok "postgres: its backend killed mid-result, psql ends in $ms ms (the server's loss)" ||
        bad "postgres: backend '$be' killed mid-result: psql rc $rc after $ms ms: $(tail -c 200 "$run/psql.err")"
      for _ in $(seq 40); do   # the postmaster restarts after a crashed backend
        v=$(psql_nobody "select sum(g) from generate_series(1,100000) g;") && [[ $v == 5000050000 ]] && break
        sleep 0.25
      done
      [[ $v == 5000050000 ]] && ok "postgres: after its crash restart, a query from psql as nobody (sum = $v)" ||
        bad "postgres: query as nobody after the crash restart: '$v' $(tail -c 300 "$run/psql.err")"
      psql_nobody "create table t (k int primary key, v text);" >/dev/null
      psql_nobody "insert into t select g, md5(g::text) from generate_series(1,5000) g;" >/dev/null
      v=$(psql_nobody "select count(*), md5(string_agg(v, ',' order by k)) from t;")
      want=$($PY -c 'import hashlib as h; m=lambda b: h.md5(b).hexdigest()
print(m(",".join(m(str(i).encode()) for i in range(1, 5001)).encode()))')
      [[ $v == "5000|$want" ]] && ok "postgres: 5000 rows written by one connection, read back whole by another" ||
        bad "postgres: rows read back: '$v' (want 5000|$want)"
      n=$(psql_nobody "select repeat('x', 1000) from generate_series(1,5000);" | wc -l)
      [[ $n -eq 5000 ]] && ok "postgres: a 5 MB result (5000 rows of 1000 bytes)" || bad "postgres: 5 MB result: $n rows"
      if stop $pg INT 15 && ((stop_rc == 0)); then ok "postgres: fast shutdown, exit 0"
      else bad "postgres: shutdown ($stop_rc): $(tail -c 300 "$run/pg.log")"; fi
    else bad "postgres: initdb: $(tail -c 300 "$run/initdb.log")"; fi
  else bad "postgres: not installed (scripts/deps.sh)"; fi

  # memcached opens its socket as root, then becomes memcache.
  if command -v memcached >/dev/null && command -v memccp >/dev/null && id memcache >/dev/null 2>&1; then
    port=$((base + 2))
    head -c $((1024 * 1024 + 3)) /dev/urandom >"$run/val" && chmod 644 "$run/val"
    ( exec env LD_PRELOAD="$SO" SOVIA_PRELOAD_PORTS=$port SOVIA_NIC="${prefix}0" VERINIC_RUN="$run" \
        "${NETNS[@]}" timeout 60 memcached -u memcache -p $port -U 0 -l 0.0.0.0 -I 4m ) >"$run/mc.log" 2>&1 &
    mc=$!
    wait_sovia $port && ok "memcached -u memcache: listens over SOVIA" || bad "memcached -u memcache: listens"
    (cd "$run" && as_user 1 $port "${NOBODY[@]}" -- timeout 20 memccp --servers=10.0.0.1:$port val) >>"$run/mc.log" 2>&1
    as_user 1 $port "${NOBODY[@]}" -- timeout 20 memccat --servers=10.0.0.1:$port val 2>>"$run/mc.log" |
      head -c "$(stat -c %s "$run/val")" >"$run/val.out"
    cmp -s "$run/val" "$run/val.out" && ok "memcached -u memcache: 1 MB value stored and read back as nobody" ||
      bad "memcached: value read back ($(stat -c %s "$run/val.out") bytes): $(tail -c 300 "$run/mc.log")"
    stop $mc TERM 10
  else bad "memcached: not installed or no user memcache (scripts/deps.sh)"; fi
  # nginx's master (root) listens, its workers run as www-data and accept.
  if command -v nginx >/dev/null && id www-data >/dev/null 2>&1; then
    port=$((base + 5)) ng=$run/nginx
    mkdir -p "$ng/www" && head -c $((3 * 1024 * 1024 + 5)) /dev/urandom >"$ng/www/blob" && chmod -R a+rX "$ng"
    cat >"$ng/nginx.conf" <<NGX
user www-data;
daemon off;
master_process on;
worker_processes 2;
env VERINIC_RUN;
pid $ng/nginx.pid;
error_log $ng/error.log warn;
events { worker_connections 64; }
http { access_log off; sendfile on; client_body_temp_path $ng/tmp; server { listen $port; root $ng/www; } }
NGX
    ( exec env LD_PRELOAD="$SO" SOVIA_PRELOAD_PORTS=$port SOVIA_NIC="${prefix}0" VERINIC_RUN="$run" \
        "${NETNS[@]}" timeout 60 nginx -p "$ng" -c "$ng/nginx.conf" -e "$ng/error.log" ) &
    ngx=$!
    wait_sovia $port && ok "nginx, workers as www-data: listens over SOVIA" || bad "nginx (www-data): listens"
    good=0
    for _ in 1 2 3; do
      as_user 1 $port "${NOBODY[@]}" -- timeout 20 curl -sS "http://10.0.0.1:$port/blob" >"$ng/got" 2>>"$ng/curl.err"
      cmp -s "$ng/got" "$ng/www/blob" && good=$((good + 1))
    done
    ((good == 3)) && ok "nginx (www-data): a 3 MB file to curl as nobody, 3 of 3 whole" ||
      bad "nginx (www-data): $good of 3 whole: $(tail -c 300 "$ng/curl.err") $(tail -c 300 "$ng/error.log")"
    stop $ngx TERM 10
  else bad "nginx: not installed or no user www-data (scripts/deps.sh)"; fi
  nicd_cleanup; nicd=; run=
else bad "--mode 0666: nicd did not start"; fi

# --- the default: nicd's user alone ---
if nicd_start users --fast; then
  port=$((base + 3))
  [[ $(mode_of "/dev/shm/${prefix#/}0") == 600 ]] && ok "default: windows 0600" || bad "default: window mode $(mode_of "/dev/shm/${prefix#/}0")"
  chmod 755 "$run"   # let nobody reach the socket's directory: the window alone must refuse it
  v=$(as_user 0 $port "${NOBODY[@]}" -- timeout 10 $PY -c "$PYLISTEN" $port 2>&1 | head -1)
  [[ $v == EACCES ]] && ok "default: another user's bind() is refused with EACCES" ||
    bad "default: another user's bind(): '$v'"
  nicd_cleanup; nicd=; run=
else bad "default: nicd did not start"; fi

# --- --group postgres: that group's users, no one else ---
if nicd_start users --fast --group postgres; then
  w=/dev/shm/${prefix#/}0
  [[ $(mode_of "$w") == 660 && $(group_of "$w") == postgres && $(mode_of "$run") == 2770 ]] &&
    ok "--group postgres: windows 0660 of group postgres, run directory 2770" ||
    bad "--group: window $(mode_of "$w") $(group_of "$w"), run directory $(mode_of "$run")"
  port=$((base + 4))
  as_user 0 $port "${POSTGRES[@]}" -- timeout 15 $PY -c "$PYLISTEN" $port >"$run/l.out" 2>&1 &
  lpid=$!
  for _ in $(seq 100); do [[ -s $run/l.out ]] && break; sleep 0.05; done
  v=$(as_user 1 $port "${POSTGRES[@]}" -- timeout 10 $PY -c "$PYTALK" $port 2>&1 | tail -1)
  wait $lpid
  [[ $(head -1 "$run/l.out") == listening && $v == HELLO ]] &&
    ok "--group postgres: a member listens and another connects (answer $v)" ||
    bad "--group: listener '$(head -1 "$run/l.out")', client '$v'"
  v=$(as_user 1 $((port + 1)) "${NOBODY[@]}" -- timeout 10 $PY -c "$PYLISTEN" $((port + 1)) 2>&1 | head -1)
  [[ $v == EACCES ]] && ok "--group postgres: nobody is refused with EACCES" || bad "--group: nobody got '$v'"
  nicd_cleanup; nicd=; run=
else bad "--group postgres: nicd did not start"; fi

# --- bad values stop nicd at start, named ---
for a in "--mode 0400" "--mode 9x" "--group no-such-group-verinic"; do
  # shellcheck disable=SC2086
  out=$(timeout 10 build/bin/nicd -n 1 --run /tmp/verinic-users-bad-$$ --prefix /vu-bad-$$- $a 2>&1)
  rc=$?
  [[ $rc -eq 2 && $out == *"${a%% *}"* ]] && ok "nicd $a: exit 2, '$out'" || bad "nicd $a: rc $rc '$out'"
done
rm -rf /tmp/verinic-users-bad-$$

report
