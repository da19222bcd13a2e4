#!/bin/sh
# The benchmark's short form as a test: every case runs (a few seconds),
# no time is judged; it fails only if a case cannot run.
BENCH_QUICK=1
export BENCH_QUICK
exec sh "$(dirname "$0")/run.sh"
