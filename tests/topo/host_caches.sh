#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# topo/host.sh's checks again on this machine with cache directories:
# tests/topo/with_caches.sh gives it cpuN/cache/index0-3 (L1 and L2 per
# core, L3 per package) in a private mount namespace where the host has
# none (a CPU with its own keeps them). The same expectations, the host's
# answer restricted to each set, now with caches in it: a suite that holds
# on a machine without cache directories holds on one with them. Needs
# root (skipped, 77, without: with_caches.sh says so).
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/with_caches.sh" sh "$here/host.sh"
