#!/usr/bin/env bash
# Every property of the data-movement machines, checked by Spin (what `make verify` prints for
# datapath and datapath_vm); one case per row of the table. datapath_vm is the same system with
# the PANIC VM active (esm/machines/vmcheck/: its bounds and properties).
set -u
ESMC=${ESMC:-build/san/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/vm"
"$ESMC" --pml -o "$work" esm/machines/*.esm || { echo "0 passed, 1 failed"; exit 1; }
vm_src=$(ls esm/machines/*.esm | grep -v -e '/datapath_bounds.esm$' -e '/datapath_props.esm$')
"$ESMC" --pml -o "$work/vm" $vm_src esm/machines/vmcheck/*.esm || { echo "0 passed, 1 failed"; exit 1; }
mv "$work/vm/datapath.pml" "$work/vm/datapath_vm.pml"
# Passing runs of exactly these models (same text, options and tools) come from the committed
# cache (models/README.md), copied so that new rows stay out of the tree; a changed model is
# searched again.
cp -r models/cache "$work/cache" 2>/dev/null || mkdir -p "$work/cache"
ESMC=$ESMC VERIFY_CACHE_DIR="$work/cache" models/verify.sh "$work/datapath.pml" "$work/vm/datapath_vm.pml" | tee "$work/out"
pass=$(grep -c '| PASS ' "$work/out"); fail=$(grep -c '| FAIL ' "$work/out")
[[ $pass -ge 33 ]] || { echo "expected at least 33 rows, got $pass"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
