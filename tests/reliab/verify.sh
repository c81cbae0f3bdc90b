#!/usr/bin/env bash
# Every property of the Reliable Delivery machines (esm/reliab), checked by Spin in both models:
# reliab (a network that loses, duplicates, reorders and damages frames) and reliab_seqwrap
# (sequence numbers that wrap). One case per row of the table.
set -u
cd "$(dirname "$0")/../.."
ESMC=${ESMC:-build/bin/esmc}
work=$(mktemp -d "${TMPDIR:-/tmp}/reliab-verify.XXXXXX"); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/a" "$work/b"
src="esm/reliab/reliab.esm esm/reliab/sender.esm esm/reliab/receiver.esm esm/reliab/channel.esm"
"$ESMC" --pml -o "$work/a" $src esm/reliab/bounds.esm esm/reliab/props.esm &&
  "$ESMC" --pml -o "$work/b" $src esm/reliab/seqwrap/*.esm ||
  { echo "0 passed, 1 failed"; exit 1; }
mv "$work/b/reliab.pml" "$work/b/reliab_seqwrap.pml"
# Passing runs of exactly these models (same text, options and tools) come from the committed
# cache (models/README.md), copied so that new rows stay out of the tree; a changed model is
# searched again.
cp -r models/cache "$work/cache" 2>/dev/null || mkdir -p "$work/cache"
ESMC=$ESMC VERIFY_CACHE_DIR="$work/cache" models/verify.sh "$work/a/reliab.pml" "$work/b/reliab_seqwrap.pml" | tee "$work/out"
pass=$(grep -c '| PASS ' "$work/out"); fail=$(grep -c '| FAIL ' "$work/out")
[[ $pass -ge 16 ]] || { echo "expected at least 16 rows, got $pass"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
