#!/usr/bin/env bash
# bench/bench_apps_smoke.sh: `make test`'s short run of bench/bench_apps.sh (one 1-second round
# of each figure; passes when every figure was measured on both sides), so that the benchmark
# cannot rot.
exec "$(dirname "$0")/bench_apps.sh" --smoke
