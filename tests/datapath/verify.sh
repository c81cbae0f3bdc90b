#!/usr/bin/env bash
# Every property of the data-movement machines, checked by Spin (what `make verify` prints for
# datapath); one case per row of the table.
set -u
ESMC=${ESMC:-build/san/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$ESMC" --pml -o "$work" esm/machines/*.esm || { echo "0 passed, 1 failed"; exit 1; }
ESMC=$ESMC models/verify.sh "$work/datapath.pml" | tee "$work/out"
pass=$(grep -c '| PASS ' "$work/out"); fail=$(grep -c '| FAIL ' "$work/out")
[[ $pass -ge 20 ]] || { echo "expected at least 20 rows, got $pass"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
