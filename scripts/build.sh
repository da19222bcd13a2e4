#!/bin/sh
# Configures and builds in the source tree (extra configure arguments pass
# through).
set -e
cd "$(dirname "$0")/.."
[ -x configure ] || autoreconf -fi
./configure -q "$@"
# -s alone leaves automake's silent rules printing a "  CC" line a file
# (their echo is not make's): those go, warnings and errors (stderr) stay
make -j"$(nproc)" -s >/dev/null
