#!/bin/sh
# Sets up and runs every test: dependencies, build, make check.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh "$@"
make -j"$(nproc)" check || { cat test-suite.log 2>/dev/null | tail -n 200; exit 1; }
