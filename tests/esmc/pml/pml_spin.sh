#!/usr/bin/env bash
# Spin on small ESM systems through models/verify.sh, as `make verify` runs it. The system
# spin/share.esm (two firmware machines sharing a resource, a hardware action served by an
# environment machine, a queue, a free hardware condition, every property kind) must pass;
# seeded bugs, made by editing a copy of it, must fail on the right check, with a counterexample
# that names ESM machines, states and source lines. Limits that cut a search short must fail.
set -u
cd "$(dirname "$0")/../../.." || exit 2
ESMC=${ESMC:-build/san/bin/esmc}
case $ESMC in /*) ;; *) ESMC=$PWD/$ESMC ;; esac
export ESMC
# Small searches: compile pan.c fast, keep its tables small.
export VERIFY_CFLAGS=${VERIFY_CFLAGS:--O0} VERIFY_HASH=${VERIFY_HASH:-18}
export VERIFY_DEPTH=${VERIFY_DEPTH:-100000}
src=tests/esmc/pml/spin/share.esm
pass=0; fail=0
work=$(mktemp -d "${TMPDIR:-/tmp}/pml-spin.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! command -v spin >/dev/null; then
  echo "spin is not installed"; echo "0 passed, 1 failed"; exit 1
fi

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# check NAME COND...: one case per condition; prints the verify output once if any fails.
declare -A shown
expect() {
  local name=$1 what=$2; shift 2
  if "$@"; then ok "$name: $what"
  else
    bad "$name: $what"
    if [[ -z ${shown[$name]:-} && -f $work/$name.out ]]; then
      shown[$name]=1; sed 's/^/    | /' "$work/$name.out" | head -n 60
    fi
  fi
}
has() { grep -qE -- "$2" "$work/$1.out"; }
row_is() { grep -qE "^$1 +\| ${2//+/\\+} +\| [a-z]+ +\| $3 " "$work/$4.out"; }

# mutate NAME SED-SCRIPT: writes $work/NAME.esm (system NAME), a copy of share.esm with the
# edit applied; the edit must change something.
mutate() {
  local name=$1 script=$2
  sed -e "s/^system share;/system $name;/" -e "$script" "$src" >"$work/$name.esm"
  if [[ $(sed "s/^system share;/system $name;/" "$src" | cmp -s - "$work/$name.esm" &&
          echo same) == same ]]; then
    bad "$name: the mutation did not apply"; return 1
  fi
}

# verify NAME [ENV=VAL...]: esmc --pml then models/verify.sh; the exit status in $work/NAME.rc.
verify() {
  local name=$1 esm; shift
  esm=$work/$name.esm
  [[ -f $esm ]] || esm=$src
  if ! "$ESMC" --pml -o "$work/out" "$esm" >"$work/$name.out" 2>&1; then
    echo 99 >"$work/$name.rc"; return
  fi
  env "$@" models/verify.sh "$work/out/$name.pml" >>"$work/$name.out" 2>&1
  echo $? >"$work/$name.rc"
}
rc_is() { [[ $(cat "$work/$2.rc") == "$1" ]]; }
line_of() { grep -nF -- "$2" "$work/$1.esm" | head -n1 | cut -d: -f1; }

# 1. The correct system passes every check.
verify share
expect share "verify exits 0" rc_is 0 share
for p in deadlock+checks exclusive owner contended all_done served; do
  expect share "$p passes" row_is share "$p" PASS share
done
expect share "summary line" has share "verify: all 6 checks passed"

# 2. B forgets to release the bus (it parks in a rest state holding it): A waits forever.
mutate norelease 's/on b_done \/ release bus; uses += 1 -> Idle;/on b_done \/ uses += 1 -> Done; }\n  rest state Done {/' &&
{
  verify norelease
  l=$(line_of norelease "on b_done / uses += 1 -> Done;")
  expect norelease "verify exits 1" rc_is 1 norelease
  expect norelease "deadlock check fails" row_is norelease deadlock+checks FAIL norelease
  expect norelease "trail says A is stuck" has norelease "DEADLOCK: no machine can move, and A is stuck"
  expect norelease "trail shows B keeping the bus" has norelease \
    "step [0-9]+: B: Busy --b_done--> Done +\(.*norelease.esm:$l\)"
  expect norelease "final state names the holder" has norelease "resource bus: held by B"
  expect norelease "final state names A's state" has norelease "^  A +in Want"
}

# 3. The host's `!full(jobs)` guard removed: a push overflows the queue.
mutate noguard 's/when \[posted < N \&\& !full(jobs)\]/when [posted < N]/' &&
{
  verify noguard
  l=$(line_of noguard "when [posted < N]")
  expect noguard "deadlock+checks fails" row_is noguard deadlock+checks FAIL noguard
  expect noguard "names the failed check and line" has noguard \
    "assertion failed: .*noguard.esm:$l: push onto full queue jobs"
  expect noguard "trail shows the host posting" has noguard \
    "step [0-9]+: Host: Posting --when \[posted < N\]--> Posting +\(.*noguard.esm:$l\)"
  expect noguard "safety property reports the check, not itself" has noguard \
    "exclusive \(always\): FAIL: a run-time check fails first"
}

# 4. B's `uses < N` guard removed: B issues one transfer too many and Dev's assert fails.
mutate noassert 's/when \[uses < N \&\& dev_ok\]/when [dev_ok]/' &&
{
  verify noassert
  l=$(line_of noassert "assert n < N")
  expect noassert "deadlock+checks fails" row_is noassert deadlock+checks FAIL noassert
  expect noassert "names the ESM assert" has noassert "assertion failed: .*noassert.esm:$l: assert n < N"
  expect noassert "trail shows Dev taking the request" has noassert \
    "step [0-9]+: Dev: Ready --xfer\(n, done\)--> Working +\(.*noassert.esm:$l\)"
  expect noassert "trail shows B's unguarded step" has noassert "B: Idle --when \[dev_ok\]--> Want"
}

# 5. Dev forgets to raise the completion event: a machine waits in Busy forever.
mutate noraise 's/when \/ raise done -> Ready;/when -> Ready;/' &&
{
  verify noraise
  expect noraise "deadlock check fails" row_is noraise deadlock+checks FAIL noraise
  expect noraise "trail names the stuck machine" has noraise \
    "DEADLOCK: no machine can move, and (A|B) is stuck in a state that is not rest"
  expect noraise "final state shows it in Busy" has noraise "^  (A|B) +in Busy"
  expect noraise "trail shows the silent completion" has noraise "step [0-9]+: Dev: Working --when--> Ready"
}

# 6. The host may idle forever: no deadlock, but all_done fails under weak fairness.
mutate idle '/posted += 1; raise job -> Posting;/a\    when -> Posting;' &&
{
  verify idle
  expect idle "deadlock+checks still passes" row_is idle deadlock+checks PASS idle
  expect idle "eventually all_done fails" row_is idle all_done FAIL idle
  expect idle "leadsto served still passes" row_is idle served PASS idle
  expect idle "trail marks the cycle" has idle "<<<<<START OF CYCLE>>>>>"
  expect idle "the cycle is the host idling" has idle "step [0-9]+: Host: Posting --when--> Posting"
}

# 7. An unreachable `reachable` fails (no witness), and the reason says so.
mutate unreach '$a\reachable  both_busy: A in Busy \&\& B in Busy;' &&
{
  verify unreach
  expect unreach "both_busy fails" row_is unreach both_busy FAIL unreach
  expect unreach "reason: unreachable" has unreach "both_busy \(reachable\): FAIL: unreachable"
  expect unreach "contended still passes" row_is unreach contended PASS unreach
}

# 8. A safety property that does not hold: its own counterexample, ending where it breaks.
mutate badprop 's/^always     exclusive: !(A in Busy \&\& B in Busy);/always     exclusive: !(A in Busy \&\& B in Want);/' &&
{
  verify badprop
  expect badprop "exclusive fails" row_is badprop exclusive FAIL badprop
  expect badprop "deadlock+checks passes" row_is badprop deadlock+checks PASS badprop
  expect badprop "trail ends in the property" has badprop "^property violated"
  expect badprop "final state shows both machines" has badprop "^  A +in Busy"
  expect badprop "final state shows B waiting" has badprop "^  B +in Want"
}

# 9. A search cut short by the depth bound or the memory limit fails loudly.
verify share VERIFY_DEPTH=8
expect depth "verify exits 1" rc_is 1 share
expect depth "rows fail as incomplete" has share "FAIL: incomplete search: search depth bound"
for p in deadlock+checks exclusive all_done served; do
  expect depth "$p fails" row_is share "$p" FAIL share
done
verify share VERIFY_MEMLIM=1 VERIFY_HASH=22
expect memlim "verify exits 1" rc_is 1 share
expect memlim "rows fail on memory" has share "FAIL: incomplete search: memory limit"

# 10. esmc --trail survives junk, and reads standard input.
"$ESMC" --pml -o "$work/out" "$src" >/dev/null 2>&1
pml=$work/out/share.pml
head -c 65536 /dev/urandom >"$work/junk.bin"
printf '%s\n' "  1:	proc  0 (A:1) x.pml:99999999999999999999 (state 1)	[x]" \
  "  2:	proc 1 (B:1) $pml:-4 (state" "proc  (state " "spin: :, Error: assertion violated" \
  "spin: x.pml:, Error: assertion violated" "		queue 1 (hw_xfer: [1" "		 = 3" "#processes: 9" \
  "		A_st = 77" "		pend[0] = 1" "		own_bus = 200" >"$work/junk.txt"
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "x"; print "" }' >"$work/long.txt"
: >"$work/empty.txt"
for f in junk.bin junk.txt long.txt empty.txt; do
  "$ESMC" --trail "$pml" "$work/$f" >"$work/trail.out" 2>&1
  rc=$?
  expect trail "junk input $f handled (exit $rc)" test "$rc" -eq 0
done
"$ESMC" --trail "$pml" <"$work/junk.txt" >"$work/trail.out" 2>&1
expect trail "reads stdin" grep -q "A            in state #77" "$work/trail.out"
"$ESMC" --trail "$work/junk.bin" "$work/junk.txt" >/dev/null 2>&1
expect trail "rejects a non-esmc model with exit 2" test $? -eq 2
"$ESMC" --trail "$work/nonexistent.pml" >/dev/null 2>&1
expect trail "missing model: exit 2" test $? -eq 2

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
