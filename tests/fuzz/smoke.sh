#!/usr/bin/env bash
# CI smoke run of every fuzz target (FUZZ_BINS, set by `make test`) for FUZZ_SMOKE_SECONDS each.
# Longer campaigns: `make fuzz FUZZ_SECONDS=3600`.
set -u
pass=0; fail=0
for f in ${FUZZ_BINS:-}; do
  if tests/fuzz/run-fuzzer.sh "$f" "${FUZZ_SMOKE_SECONDS:-10}"; then pass=$((pass+1)); else fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
