#!/usr/bin/env bash
# Mutation tests of the SOVIA models (esm/sovia): each seeded bug of tests/sovia/mutate.py,
# applied to a copy of the specs, must make Spin fail on the property that names that bug (the
# copy keeps only that property, so Spin checks it alone; a failure of a run-time check or an
# incomplete search does not count). First, the unmutated models must pass every check.
#   tests/sovia/mutations.sh [MUTANT...]      (default: all of them)
# Prints "N passed, N failed" last and exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/../.."
ESMC=${ESMC:-build/bin/esmc}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
. tests/common/pool.sh
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [[ -f ${2:-} ]] && sed 's/^/    | /' "$2" | head -n 60; }

# build MODEL DIR: esmc over the copy in DIR; prints the .pml path.
build() {
  local files
  case $1 in
    conn) files="conn.esm conn_a.esm conn_b.esm" ;;
    window) files="window.esm win_a.esm win_b.esm" ;;
  esac
  (cd "$2" && "$OLDPWD/$ESMC" --pml -o . $files) >"$2/esmc.out" 2>&1 || return 1
  ls "$2"/*.pml
}

# The baseline is tests/sovia/verify.sh; `make test` runs that as a test of its own and sets
# SOVIA_BASELINE=0 here, so it does not run twice.
if [[ $# -eq 0 && ${SOVIA_BASELINE:-1} != 0 ]]; then
  if tests/sovia/verify.sh >"$work/baseline.out" 2>&1; then
    ok "baseline: the unmutated models pass every check"
  else
    bad "baseline: the unmutated models fail" "$work/baseline.out"
  fi
fi

# mutant NAME MODEL PROP: one seeded bug, verified; prints "ok" or "FAIL" (run by pool.sh).
mutant() {
  local name=$1 model=$2 prop=$3 dir=$work/$1 pml
  if ! python3 tests/sovia/mutate.py "$name" esm/sovia "$dir" >"$work/$name.mut" 2>&1; then
    bad "$name: the mutation does not apply" "$work/$name.mut"; return
  fi
  if ! pml=$(build "$model" "$dir"); then
    bad "$name: esmc rejects the mutant" "$dir/esmc.out"; return
  fi
  ESMC=$ESMC models/verify.sh --only "$prop" "$pml" >"$dir/verify.out" 2>&1
  if grep -Eq "^=== [a-z_]+ / $prop \([a-z]+\): FAIL: violated ===" "$dir/verify.out"; then
    ok "$name: caught by $prop"
  else
    bad "$name: $prop does not fail (or fails for another reason)" "$dir/verify.out"
  fi
}

pool_init
while read -r name model prop; do
  if [[ $# -gt 0 && " $* " != *" $name "* ]]; then continue; fi
  pool_run mutant "$name" "$model" "$prop"
done < <(python3 tests/sovia/mutate.py --list)
pool_wait
pass=$((pass + pool_pass)); fail=$((fail + pool_fail))

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
