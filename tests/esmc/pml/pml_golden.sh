#!/usr/bin/env bash
# Golden test of the PROMELA backend: `esmc --pml` on each tests/esmc/pml/golden/*.esm (and the
# Spin test system spin/share.esm) must reproduce golden/NAME.pml byte for byte, twice (output
# is deterministic), and Spin must accept it (spin -a).
#
# After an intended change to the backend, regenerate the goldens from the repository root with
#   tests/esmc/pml/pml_golden.sh --update
# and review the diff like code.
set -u
cd "$(dirname "$0")/../../.." || exit 2
ESMC=${ESMC:-build/san/bin/esmc}
dir=tests/esmc/pml/golden
update=0
[[ ${1:-} == --update ]] && update=1
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pml-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT

for src in "$dir"/*.esm tests/esmc/pml/spin/share.esm; do
  name=$(basename "$src" .esm)
  rm -rf "$work/a" "$work/b"
  if ! "$ESMC" --pml -o "$work/a" "$src" >"$work/err" 2>&1; then
    bad "$name: esmc failed"; cat "$work/err"; continue
  fi
  out=$(ls "$work/a"/*.pml 2>/dev/null | head -n1)
  if [[ -z $out ]]; then bad "$name: no .pml written"; continue; fi
  if [[ $update -eq 1 ]]; then
    cp "$out" "$dir/$name.pml"; echo "updated $dir/$name.pml"; continue
  fi
  if cmp -s "$out" "$dir/$name.pml"; then
    ok "$name: matches golden"
  else
    bad "$name: differs from $dir/$name.pml (regenerate with tests/esmc/pml/pml_golden.sh --update)"
    diff -u "$dir/$name.pml" "$out" | head -n 40
  fi
  "$ESMC" --pml -o "$work/b" "$src" >/dev/null 2>&1
  if cmp -s "$out" "$work/b/$(basename "$out")"; then ok "$name: deterministic"
  else bad "$name: two runs differ"; fi
  if command -v spin >/dev/null; then
    if (cd "$work/a" && spin -a "$(basename "$out")" >spin.out 2>&1); then ok "$name: spin -a accepts it"
    else bad "$name: spin -a rejects it"; cat "$work/a/spin.out"; fi
  fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
