#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The captured machines (tests/fixtures/machines) through the shim's
# test root: for sets of several shapes on each, hwloc (lstopo --of xml,
# hwloc-calc), lscpu -p and -e and numactl --hardware run under the shim
# report exactly what the tool's own restriction of the captured machine
# to those CPUs reports, but for the CPUs renumbered 0..n-1
# (tests/topo/machine_checks.sh, machine_checks; tests/topo/compare.py says how
# each is compared).
. "$(dirname "$0")/../common.sh"
. "$SRC/tests/topo/machine_checks.sh"
# (unpacked by make check: make tests/fixtures/unpacked.stamp)
machine_prelude CPS_FIXTURES "${CPS_FIXTURES:-}" fixtures
for F in "$CPS_FIXTURES"/*/; do
	machine_checks "$F"
done
# This machine's CPU directory read by a descriptor of it, in a set of
# physical CPU 1: each list file the kernel has there is the set's part
need taskset util-linux
if [ $((0x$(outside taskset -p $$ | sed 's/.*: //') & 2)) -ne 0 ]; then
	S1=$("$CPUSET" create --cpus 1 --name topo-one) || die "cpuset create --cpus 1"
	in_set "$S1" $PY "$SRC/tests/topo/compare.py" read-top / > "$T/got" 2>&1
	expect_eq "this machine, set {1}: the CPU directory's lists in every spelling" \
		"$(cat "$T/got")" "$($CMP top-files / 1)"
	show "$T/got"
fi
finish
