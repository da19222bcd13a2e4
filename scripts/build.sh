#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Configures and builds in the source tree (extra configure arguments pass
# through). The test build: the test-only fault points are on
# (--enable-fault-injection; a --disable-fault-injection given here wins).
set -e
cd "$(dirname "$0")/.."
[ -x configure ] || autoreconf -fi
./configure -q --enable-fault-injection "$@"
# -s alone leaves automake's silent rules printing a "  CC" line a file
# (their echo is not make's): those go, warnings and errors (stderr) stay
make -j"$(nproc)" -s >/dev/null
