#!/usr/bin/env bash
# bench/bench_cluster_smoke.sh: `make test`'s short run of bench/bench_cluster.sh (one round of
# 4 MiB per loss rate, an 8 MiB faulty run), so that the benchmark cannot rot. It passes when
# every figure was measured, the faulty run arrived intact and the 20 % run kept its prefix.
out=$(CLUSTER_MB=8 GOODPUT_MB=4 REPS=1 "$(dirname "$0")/bench_cluster.sh" 2>&1)
rc=$?
echo "$out"
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
check "bench_cluster.sh exits 0" '((rc == 0))'
check "goodput measured at every loss rate and for kernel TCP" \
  '(( $(grep -cE "^[0-9.]+ % +\| [0-9.]+ \(" <<<"$out") == 4 )) && ! grep -q "| - " <<<"$out"'
check "the faulty run arrived identical" 'grep -q "identical$" <<<"$out"'
echo "$pass passed, $fail failed"
((fail == 0))
