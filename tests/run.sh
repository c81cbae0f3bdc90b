#!/usr/bin/env bash
# Runs every test command given on the command line and prints one closing line
# "N passed, N failed". A test program may report several cases: a line "N passed, N failed"
# of its own, or cmocka's "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)," summary, is
# added to the totals; otherwise the command counts as one case, judged by its exit status.
set -u
export CMOCKA_MESSAGE_OUTPUT=stdout
# Sanitizer reports must fail the test, and leaks are bugs too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# A directory per run, so that two runs at once do not share logs; `latest` points to the last.
logdir=${TEST_LOG_DIR:-build/test-logs/$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$logdir"
[[ -n ${TEST_LOG_DIR:-} ]] || ln -sfn "$(basename "$logdir")" build/test-logs/latest
total_pass=0; total_fail=0; failed_cmds=()

for t in "$@"; do
  # Suites in different directories may share a file name: name them by path.
  name=${t#build/}; name=${name#san/}
  log="$logdir/$(tr '/' '_' <<<"$name").log"
  start=$(date +%s.%N)
  # Each test gets a time limit: a hang is a failure, never a stuck CI.
  timeout --kill-after=10 "${TEST_TIMEOUT:-1800}" "$t" >"$log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  p=$(grep -Eo '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1 | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+')
  f=$(grep -Eo '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1 | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+')
  if [[ -z $p ]]; then
    p=$(grep -Eo '^\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n1)
    f=$(grep -Eo '^\[  FAILED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n1)
    [[ -n $p || -n $f ]] && { p=${p:-0}; f=${f:-0}; }
  fi
  if [[ -z $p ]]; then
    if [[ $rc -eq 0 ]]; then p=1; f=0; else p=0; f=1; fi
  elif [[ $rc -ne 0 && ${f:-0} -eq 0 ]]; then
    f=1   # the program said all passed but exited non-zero (crash, sanitizer, timeout)
  fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  if [[ $f -gt 0 ]]; then
    printf 'FAIL  %-44s %3d passed, %3d failed  (%ss, exit %d)\n' "$name" "$p" "$f" "$secs" "$rc"
    failed_cmds+=("$t")
    sed 's/^/    | /' "$log" | tail -n 40
  else
    printf 'ok    %-44s %3d passed  (%ss)\n' "$name" "$p" "$secs"
  fi
done

echo
[[ ${#failed_cmds[@]} -gt 0 ]] && printf 'failed: %s\n' "${failed_cmds[*]}"
echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
