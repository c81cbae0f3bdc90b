#!/usr/bin/env bash
# bench/bench_xfer.sh: file transfers like the SOVIA paper's Table 5 (its FTP over SOVIA, here
# an unmodified netcat-openbsd through the LD_PRELOAD shim) beside kernel TCP over loopback
# and a local copy, files in a RAM disk (/dev/shm) as in the paper. The paper's two file
# sizes (13,827,767 and 65,257,948 bytes) and 1 MB; each transfer repeated (median, min-max),
# every copy compared with cmp. Time: from starting the sending nc until the receiving nc has
# exited (connection set-up and close included, as a user would time it). Needs build/bin/nicd
# and build/lib/libsovia_preload.so (`make`), and nc; nicd is started by tests/common/nicd.sh.
#   bench/bench_xfer.sh [--smoke]   (--smoke: one 256 KB file, once; "N passed, N failed")
# XFER_REPS (default 3): repetitions; SOVIA_PRELOAD_SO and NICD: another build of the shim or of
# nicd (e.g. a kept copy of the previous one, to compare in the same session).
set -u
cd "$(dirname "$0")/.."
SO=${SOVIA_PRELOAD_SO:-$PWD/build/lib/libsovia_preload.so}
smoke=0; [[ ${1:-} == --smoke ]] && smoke=1
if ((smoke)); then sizes=(262144); reps=1; else sizes=(1048576 13827767 65257948); reps=${XFER_REPS:-3}; fi
pass=0; fail=0

for f in "$SO" build/bin/nicd; do
  [[ -e $f ]] || { echo "bench_xfer: missing $f (run make)"; echo "0 passed, 1 failed"; exit 1; }
done
command -v nc >/dev/null || { echo "bench_xfer: nc missing (apt-get install netcat-openbsd)"; echo "0 passed, 1 failed"; exit 1; }

shm=/dev/shm; [[ -d $shm && -w $shm ]] || shm=/tmp
data=$(mktemp -d "$shm/bench-xfer-XXXXXX")
. tests/common/nicd.sh
. tests/common/ports.sh
trap 'nicd_cleanup; rm -rf "$data"' EXIT
nicd_start bench-xfer --fast || { echo "bench_xfer: nicd did not start"; echo "0 passed, 1 failed"; exit 1; }

now() { date +%s.%N; }
port=$(free_ports 400)

# xfer MODE FILE: one transfer; prints seconds, or "fail".
xfer() {
  local mode=$1 in=$2 out=$data/out t0 t1 rc src
  rm -f "$out"
  port=$((port + 1))
  if [[ $mode == cp ]]; then
    t0=$(now); cp "$in" "$out"; t1=$(now)
  elif [[ $mode == sovia ]]; then
    LD_PRELOAD=$SO SOVIA_PRELOAD_PORTS=$port SOVIA_NIC=${prefix}0 timeout 300 nc -l -p "$port" >"$out" </dev/null 2>"$run/srv.err" &
    local srv=$!
    for _ in $(seq 200); do [[ -e $run/sovia-0-$port ]] && break; sleep 0.02; done
    t0=$(now)
    LD_PRELOAD=$SO SOVIA_NIC=${prefix}1 timeout 300 nc -N 10.0.0.1 "$port" <"$in" 2>"$run/cli.err"; rc=$?
    wait "$srv"; src=$?
    t1=$(now)
    ((rc == 0 && src == 0)) || { echo fail; return; }
  else
    timeout 300 nc -l -p "$port" >"$out" </dev/null 2>"$run/srv.err" &
    local srv=$!
    for _ in $(seq 200); do ss -ltn 2>/dev/null | grep -q ":$port\b" && break; sleep 0.02; done
    t0=$(now)
    timeout 300 nc -N 127.0.0.1 "$port" <"$in" 2>"$run/cli.err"; rc=$?
    wait "$srv"; src=$?
    t1=$(now)
    ((rc == 0 && src == 0)) || { echo fail; return; }
  fi
  cmp -s "$in" "$out" || { echo fail; return; }
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f\n", b-a}'
}

# cell BYTES TIMES...: "median Mbps (median s) [min-max Mbps]"
cell() {
  local bytes=$1; shift
  printf '%s\n' "$@" | sort -g | awk -v b="$bytes" '{t[NR]=$1} END{
    m = NR % 2 ? t[(NR+1)/2] : (t[NR/2] + t[NR/2+1]) / 2
    printf "%6.0f Mbps (%.3f s) [%.0f-%.0f]", 8*b/m/1e6, m, 8*b/t[NR]/1e6, 8*b/t[1]/1e6 }'
}

declare -A res
for sz in "${sizes[@]}"; do
  head -c "$sz" /dev/urandom >"$data/in-$sz"
  for mode in sovia tcp cp; do
    times=()
    for ((r = 0; r < reps; r++)); do
      t=$(xfer "$mode" "$data/in-$sz")
      if [[ $t == fail ]]; then
        fail=$((fail + 1)); echo "FAIL $mode transfer of $sz bytes: $(head -c 200 "$run/cli.err" "$run/srv.err" 2>/dev/null)"
      else
        pass=$((pass + 1)); times+=("$t")
      fi
    done
    if ((${#times[@]})); then res[$mode,$sz]=$(cell "$sz" "${times[@]}"); else res[$mode,$sz]="failed"; fi
  done
  rm -f "$data/in-$sz"
done

echo
echo "File transfers (cf. the paper's Table 5: FTP over SOVIA on cLAN, 736 and 552 Mbps), RAM disk"
echo "to RAM disk, median of $reps (min-max Mbps); nc = netcat-openbsd, unmodified"
printf '%-34s' "File size (bytes)"; for sz in "${sizes[@]}"; do printf '%-38s' "$sz"; done; echo
for mode in sovia tcp cp; do
  case $mode in
    sovia) label="SOVIA (nc through the shim)";;
    tcp)   label="kernel TCP over loopback (nc)";;
    cp)    label="local copy (cp, RAM disk)";;
  esac
  printf '%-34s' "$label"; for sz in "${sizes[@]}"; do printf '%-38s' "${res[$mode,$sz]}"; done; echo
done
((smoke)) && echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
