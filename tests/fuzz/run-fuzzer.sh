#!/usr/bin/env bash
# Runs one libFuzzer binary for a number of seconds over its seed corpus and a scratch corpus.
# Exit status is libFuzzer's: non-zero when it found a crash, leak or sanitizer report.
set -u
bin=$1; secs=${2:-10}
name=$(basename "$bin")
seeds=tests/fuzz/corpus/$name
work=build/fuzz-corpus/$name
mkdir -p "$work" "$seeds" build/fuzz-artifacts
"$bin" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=build/fuzz-artifacts/"$name"- "$work" "$seeds" 2>&1 | tail -n 5
rc=${PIPESTATUS[0]}
echo "fuzz $name: ${secs}s, exit $rc"
exit "$rc"
