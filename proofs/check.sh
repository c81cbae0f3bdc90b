#!/usr/bin/env bash
# `make test` entry (tests/run.sh takes one word per test): every proof module, with a summary line.
exec "$(dirname "$0")/run.sh" --summary
