#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# util-linux's dumps of real machines of many architectures
# (tests/fixtures/lscpu-dumps: arm64, 32-bit arm, LoongArch, POWER, RISC-V,
# s390x, SPARC, x86) through the shim's test root, checked as
# tests/topo/machines.sh checks hwloc's captures (tests/topo/machine_checks.sh):
# a second oracle, written by other people for another tool.
. "$(dirname "$0")/../common.sh"
. "$SRC/tests/topo/machine_checks.sh"
# (unpacked by make check: make tests/fixtures/dumps.stamp)
machine_prelude CPS_DUMPS "${CPS_DUMPS:-}" dumps
for F in "$CPS_DUMPS"/*/; do
	machine_checks "$F"
done

# A machine whose cpuinfo the view cannot read (no CPU's section, no line
# naming a CPU): the file as it is, never an error (as the shim passes
# /proc/cpuinfo through on this machine: integration/views.sh)
first=$(ls -d "$CPS_DUMPS"/*/ | head -n 1)
cp -R "${first%/}" "$T/odd"
printf 'machine\t: unknown\nsomething : 1\n\nmore\n' >"$T/odd/proc/cpuinfo"
expect_eq "a captured cpuinfo the view cannot read is the file as it is" \
	"$(in_machine "$T/odd" 0 cat "$T/odd/proc/cpuinfo" 2>&1)" "$(cat "$T/odd/proc/cpuinfo")"
finish
