#!/usr/bin/env bash
# Every property of the two-processor models under Spin (what `make verify` prints for tigon,
# tigon_live and tigonstats): the data path's properties with the send side on processor 0
# and the receive side on processor 1, and the shared counter under its lock.
set -u
ESMC=${ESMC:-build/san/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
esm/tigon/models.sh "$ESMC" "$work/models" || { echo "0 passed, 1 failed"; exit 1; }
cp -r models/cache "$work/cache" 2>/dev/null || mkdir -p "$work/cache"
ESMC=$ESMC VERIFY_CACHE_DIR="$work/cache" models/verify.sh "$work"/models/tigon.pml \
  "$work"/models/tigon_live.pml "$work"/models/tigonstats.pml | tee "$work/out"
pass=$(grep -c '| PASS ' "$work/out"); fail=$(grep -c '| FAIL ' "$work/out")
[[ $pass -ge 26 ]] || { echo "expected at least 26 rows, got $pass"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
