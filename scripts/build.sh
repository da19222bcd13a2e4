#!/bin/sh
# Configures and builds in the source tree (extra configure arguments pass
# through).
set -e
cd "$(dirname "$0")/.."
[ -x configure ] || autoreconf -fi
./configure -q "$@"
make -j"$(nproc)" -s
