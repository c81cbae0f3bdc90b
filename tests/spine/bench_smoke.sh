#!/bin/sh
# bench_spine with tiny counts on a sanitized build (make test), so that the benchmark cannot rot.
cd "$(dirname "$0")/../.." && exec build/san/tests/spine/bench_spine --rounds 1 --count 100 --lat 10
