#!/usr/bin/env bash
# Verification of the unmutated SOVIA models (esm/sovia): the generated endpoint B files must be
# endpoint A with A and B swapped, and models/verify.sh must pass every check of both systems
# (deadlock and run-time checks, every always/eventually/leadsto/reachable property).
# Prints "N passed, N failed" last and exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/../.."
ESMC=${ESMC:-build/bin/esmc}
work=$(mktemp -d "${TMPDIR:-/tmp}/sovia-verify.XXXXXX"); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [[ -f ${2:-} ]] && sed 's/^/    | /' "$2" | head -n 80; }

for pair in conn_a.esm:conn_b.esm win_a.esm:win_b.esm; do
  a=esm/sovia/${pair%%:*}; b=esm/sovia/${pair##*:}
  if python3 tests/sovia/mkpeer.py --check "$a" "$b" 2>"$work/mkpeer.out"; then
    ok "$b is $a with A and B swapped"
  else
    bad "$b is out of date: run tests/sovia/mkpeer.py $a > $b" "$work/mkpeer.out"
  fi
done

for sys in "conn:conn.esm conn_a.esm conn_b.esm" "window:window.esm win_a.esm win_b.esm"; do
  model=${sys%%:*}; files=""
  for f in ${sys#*:}; do files="$files esm/sovia/$f"; done
  mkdir -p "$work/$model"
  if ! "$ESMC" --pml -o "$work/$model" $files >"$work/$model.esmc" 2>&1; then
    bad "$model: esmc" "$work/$model.esmc"; continue
  fi
  ESMC=$ESMC models/verify.sh "$work/$model"/*.pml >"$work/$model.out" 2>&1
  rc=$?
  sed -n '1,/^$/p' "$work/$model.out"
  if [[ $rc -eq 0 ]] && ! grep -q '| FAIL' "$work/$model.out"; then
    ok "$model: every check passes"
  else
    bad "$model: verification fails" "$work/$model.out"
  fi
done

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
