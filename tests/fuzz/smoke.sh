#!/usr/bin/env bash
# CI smoke run of every fuzz target (FUZZ_BINS, set by `make test`) for FUZZ_SMOKE_SECONDS each,
# FUZZ_SMOKE_JOBS at once (default: the machine's cores; a fuzzer is one process on one core).
# Longer campaigns: `make fuzz FUZZ_SECONDS=3600`.
set -u
njobs=${FUZZ_SMOKE_JOBS:-$(nproc)}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
bins=(${FUZZ_BINS:-})
for ((i = 0; i < ${#bins[@]}; i++)); do
  while (($(jobs -rp | wc -l) >= njobs)); do wait -n; done
  ( tests/fuzz/run-fuzzer.sh "${bins[i]}" "${FUZZ_SMOKE_SECONDS:-10}" >"$out/$i.log" 2>&1
    echo $? >"$out/$i.rc" ) &
done
wait
pass=0; fail=0
for ((i = 0; i < ${#bins[@]}; i++)); do
  cat "$out/$i.log"
  if [[ $(cat "$out/$i.rc" 2>/dev/null) == 0 ]]; then pass=$((pass+1)); else fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
