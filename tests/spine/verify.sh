#!/usr/bin/env bash
# Every property of the router's model (esm/spine), checked by Spin. One case per row.
set -u
cd "$(dirname "$0")/../.."
ESMC=${ESMC:-build/bin/esmc}
work=$(mktemp -d "${TMPDIR:-/tmp}/spine-verify.XXXXXX"); trap 'rm -rf "$work"' EXIT
"$ESMC" --pml -o "$work" esm/spine/spine.esm esm/spine/env.esm esm/spine/props.esm ||
  { echo "0 passed, 1 failed"; exit 1; }
cp -r models/cache "$work/cache" 2>/dev/null || mkdir -p "$work/cache"
ESMC=$ESMC VERIFY_CACHE_DIR="$work/cache" models/verify.sh "$work/spine.pml" | tee "$work/out"
pass=$(grep -c '| PASS ' "$work/out"); fail=$(grep -c '| FAIL ' "$work/out")
[[ $pass -ge 7 ]] || { echo "expected at least 7 rows, got $pass"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
