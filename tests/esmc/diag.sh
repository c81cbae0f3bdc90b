#!/usr/bin/env bash
# Diagnostics tests: every tests/esmc/diag/*.esm holds one class of error and `# expect:` lines
# giving the diagnostics esmc must print (LINE:COL: error: message prefix, or a whole line
# starting with "esmc:"). esmc must exit 1, print each expected diagnostic at that position,
# and quote the source line with a caret under the column.
set -u
ESMC=${ESMC:-build/san/bin/esmc}
pass=0; fail=0
for f in tests/esmc/diag/*.esm; do
  err=$("$ESMC" --check "$f" 2>&1 >/dev/null); rc=$?
  ok=1; why=""
  if [[ $rc -ne 1 ]]; then ok=0; why="exit status $rc, expected 1"; fi
  while IFS= read -r exp; do
    if [[ $exp == esmc:* ]]; then want=$exp; else want="$f:$exp"; fi
    line=$(grep -nF -- "$want" <<<"$err" | head -n1 | cut -d: -f1)
    if [[ -z $line ]]; then ok=0; why="missing: $want"; break; fi
    if [[ $exp != esmc:* ]]; then
      col=$(cut -d: -f2 <<<"$exp")
      caret=$(sed -n "$((line + 2))p" <<<"$err")
      # The caret sits under the column: two spaces of indent, then col-1 spaces (or tabs).
      if [[ ${#caret} -ne $((col + 2)) || ${caret: -1} != "^" ]]; then
        ok=0; why="caret not under column $col: '$caret'"; break
      fi
    fi
  done < <(sed -n 's/^# expect: //p' "$f")
  if [[ $ok -eq 1 ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $f: $why"; sed 's/^/    /' <<<"$err" | head -n 12
  fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
