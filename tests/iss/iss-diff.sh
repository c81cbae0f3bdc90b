#!/usr/bin/env bash
# Differential execution: every test program gives the same output built natively and built
# for LANai and run on the ISS (build/san/bin/lanai-run, so the ISS runs under ASan+UBSan).
# Among them the data-path harness over the generated machines (progs/datapath.c).
set -u
cd "$(dirname "$0")/../.."
B=build
run=$B/san/bin/lanai-run
pass=0; fail=0
for native in "$B"/tests/iss/*.native; do
  name=$(basename "$native" .native)
  img=$B/tests/iss/$name.img
  want=$("$native") || { echo "FAIL $name: native run failed"; fail=$((fail+1)); continue; }
  got=$("$run" --stats "$img" 2>"$B/tests/iss/$name.stats"); rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "FAIL $name: lanai-run exit $rc: $(tail -1 "$B/tests/iss/$name.stats")"; fail=$((fail+1))
  elif [[ "$got" != "$want" ]]; then
    echo "FAIL $name: output differs"; diff <(echo "$want") <(echo "$got") | head -20
    fail=$((fail+1))
  elif [[ -z "$got" ]]; then
    echo "FAIL $name: no output"; fail=$((fail+1))
  else
    echo "ok   $name ($(wc -l <<<"$got") lines; $(tail -1 "$B/tests/iss/$name.stats" | cut -d' ' -f1-4))"
    pass=$((pass+1))
  fi
done
# The freestanding data-path harness (progs/datapath.c) also prints, line for line, what the
# hosted harness (tests/datapath) prints for the same seeds: its printf shim loses nothing.
if [[ -x $B/tests/iss/datapath.native ]]; then
  hosted=$B/san/tests/datapath/harness
  want=$("$B/tests/iss/datapath.native"); seeds=$(tail -1 <<<"$want" | cut -d' ' -f1)
  if [[ ! -x $hosted ]]; then
    echo "FAIL datapath-hosted: $hosted not built"; fail=$((fail+1))
  elif ! got=$("$hosted" "$seeds"); then
    echo "FAIL datapath-hosted: $hosted $seeds failed"; fail=$((fail+1))
  elif [[ "$got" != "$want" ]]; then
    echo "FAIL datapath-hosted: output differs"; diff <(echo "$got") <(echo "$want") | head -20
    fail=$((fail+1))
  else
    echo "ok   datapath-hosted ($seeds seeds, same as $hosted)"; pass=$((pass+1))
  fi
fi
echo "$pass passed, $fail failed"
[[ $fail -eq 0 && $pass -gt 0 ]]
