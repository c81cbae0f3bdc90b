#!/usr/bin/env bash
# bench/smoke.sh: `make test`'s run of the benchmarks with tiny counts, so that their code
# cannot rot: the sanitized bench_sovia --smoke (every series connects, exchanges checked
# messages, the report and plots are written to a scratch directory) and bench_xfer.sh
# --smoke. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
out=$(mktemp -d /tmp/bench-smoke-XXXXXX)
trap 'rm -rf "$out"' EXIT
pass=0; fail=0
count() {   # the "N passed, N failed" line of a log
  local p f
  p=$(grep -Eo '^[0-9]+ passed' "$1" | tail -n1 | grep -Eo '^[0-9]+')
  f=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n1 | grep -Eo '[0-9]+ failed' | grep -Eo '^[0-9]+')
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
}
timeout 300 build/san/bench/bench_sovia --smoke --out "$out" >"$out/sovia.log" 2>&1
rc=$?; count "$out/sovia.log"; ((rc)) && { fail=$((fail + 1)); tail -n 30 "$out/sovia.log"; }
grep -E '^(ok|FAIL) ' "$out/sovia.log"
timeout 300 bench/bench_xfer.sh --smoke >"$out/xfer.log" 2>&1
rc=$?; count "$out/xfer.log"; ((rc)) && { fail=$((fail + 1)); tail -n 30 "$out/xfer.log"; }
grep -E '^FAIL' "$out/xfer.log"
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
