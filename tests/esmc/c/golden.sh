#!/usr/bin/env bash
# Golden tests of esmc's C and dot backends: for each tests/esmc/c/golden/NAME.esm, the output of
# `esmc --c --dot` must equal tests/esmc/c/golden/NAME.expected/ byte for byte, a second run
# must be identical to the first (determinism), and every .dot must pass `dot -Tsvg`.
# Regenerate the expected files after an intended change with:
#   tests/esmc/c/golden.sh --update      (then review the diff before committing)
set -u
cd "$(dirname "$0")/../../.."
ESMC=${ESMC:-build/san/bin/esmc}
out=build/test/esmc-c/golden
update=0; [[ ${1:-} == --update ]] && update=1
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for src in tests/esmc/c/golden/*.esm; do
  name=$(basename "$src" .esm)
  exp=tests/esmc/c/golden/$name.expected
  rm -rf "$out/$name" "$out/$name.again"; mkdir -p "$out/$name" "$out/$name.again"
  if ! "$ESMC" --c --dot -o "$out/$name" "$src"; then bad "$name: esmc failed"; continue; fi
  "$ESMC" --c --dot -o "$out/$name.again" "$src" >/dev/null 2>&1
  if diff -r "$out/$name" "$out/$name.again" >/dev/null; then ok; else bad "$name: output differs between two runs"; fi
  if [[ $update == 1 ]]; then
    rm -rf "$exp"; cp -r "$out/$name" "$exp"; echo "updated $exp"
  fi
  if diff -ru "$exp" "$out/$name"; then ok; else bad "$name: output differs from $exp"; fi
  for d in "$out/$name"/*.dot; do
    if dot -Tsvg "$d" -o "${d%.dot}.svg" 2>"$d.err" && [[ ! -s $d.err ]]; then ok
    else bad "$name: dot -Tsvg $(basename "$d"): $(cat "$d.err")"; fi
  done
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
