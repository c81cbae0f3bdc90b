#!/usr/bin/env bash
# CI smoke run of every fuzz target (FUZZ_BINS, set by `make test`) for FUZZ_SMOKE_SECONDS each,
# one per core (tests/common/pool.sh, POOL_JOBS; a fuzzer is one process on one core).
# Longer campaigns: `make fuzz FUZZ_SECONDS=3600`.
set -u
. tests/common/pool.sh

# fuzz_case BIN: one target's smoke run; "ok" or "FAIL", then libFuzzer's last lines.
fuzz_case() {
  local out
  if out=$(tests/fuzz/run-fuzzer.sh "$1" "${FUZZ_SMOKE_SECONDS:-10}" 2>&1); then
    echo "ok   $(basename "$1")"
  else
    echo "FAIL $(basename "$1")"
  fi
  sed 's/^/    /' <<<"$out"
}

pool_init
for f in ${FUZZ_BINS:-}; do pool_run fuzz_case "$f"; done
pool_wait
echo "$pool_pass passed, $pool_fail failed"
[[ $pool_fail -eq 0 ]]
