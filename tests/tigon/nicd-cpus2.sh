#!/usr/bin/env bash
# tests/tigon/nicd-cpus2.sh: the firmware on two processors per NIC in nicd (nicd --cpus 2,
# firmware/nic/fw_cpus.c): VIPL streams both ways at once and a SOVIA stream, every byte
# checked by the tools; nicstat shows what each processor handled (the send side's events on
# processor 0, the receive side's on processor 1); bad --cpus values are refused.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. tests/common/nicd.sh
. tests/common/ports.sh
trap nicd_cleanup EXIT
pass=0; fail=0
ok()  { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { if "${@:2}"; then ok "$1"; else bad "$1"; fi; }

for v in 0 3 x; do
  check "--cpus $v refused" bash -c "! build/bin/nicd --cpus $v -n 1 --run /nonexistent >/dev/null 2>&1"
done

check "nicd --cpus 2 started" nicd_start nicd-cpus2 --cpus 2
# (its banner follows the socket nicd_start waits for)
says2() { for _ in $(seq 50); do grep -q "on 2 processors" "$run/nicd.log" && return 0; sleep 0.05; done; return 1; }
check "nicd says two processors" says2

# VIPL: node 0 -> node 1 and node 1 -> node 0 at once, 6 MiB each (+ an odd tail).
bytes=$((6 * 1024 * 1024 + 13))
timeout 60 build/bin/vipl_xfer serve "${prefix}1" 71 >"$run/v1.srv" 2>&1 & s1=$!
timeout 60 build/bin/vipl_xfer serve "${prefix}0" 72 >"$run/v0.srv" 2>&1 & s0=$!
sleep 0.3
timeout 60 build/bin/vipl_xfer send "${prefix}0" nic1 71 $bytes >"$run/v0.cli" 2>&1 & c0=$!
timeout 60 build/bin/vipl_xfer send "${prefix}1" nic0 72 $bytes >"$run/v1.cli" 2>&1 & c1=$!
rc=0
for p in $c0 $c1 $s1 $s0; do wait $p || rc=1; done
check "VIPL both ways at once, every byte as sent" test $rc -eq 0
[[ $rc -eq 0 ]] || tail -n 3 "$run"/v*.srv "$run"/v*.cli

# SOVIA: a 4 MiB stream node 1 -> node 0.
port=$(free_ports 1)
SOVIA_NIC=${prefix}0 timeout 60 build/bin/sovia_xfer serve $port >"$run/s.srv" 2>&1 & ss=$!
for _ in $(seq 100); do [[ -e $run/sovia-0-$port ]] && break; sleep 0.05; done
SOVIA_NIC=${prefix}1 timeout 60 build/bin/sovia_xfer send 10.0.0.1 $port $((4 * 1024 * 1024)) \
  >"$run/s.cli" 2>&1
crc=$?
wait $ss; src=$?
check "SOVIA stream, every byte as sent" test $crc -eq 0 -a $src -eq 0
[[ $crc -eq 0 && $src -eq 0 ]] || tail -n 3 "$run/s.srv" "$run/s.cli"

# Both processors of each NIC handled events.
for n in 0 1; do
  build/bin/nicstat "${prefix}$n" >"$run/stat$n" 2>&1
  for p in 0 1; do
    ev=$(sed -n "s/^ *processor $p: hardware events \([0-9]*\),.*/\1/p" "$run/stat$n")
    check "NIC $n processor $p handled events (${ev:-none})" test "${ev:-0}" -gt 0
  done
done

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
