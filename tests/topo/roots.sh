#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# topo/host.sh's checks of one set (tests/topo/checks.sh) through the
# shim's test root, on a captured machine with caches as it is and on a
# copy of it whose cpuN/cache directories are taken away: so the answer of
# a machine with caches is checked on a machine without any, and the
# answer of a machine without caches (none in the set either) on one that
# has them. The sets are three shapes of compare.py's (one core's
# threads, CPUs of two NUMA nodes, a sparse pick given out of order).
# The programs name /sys, which the test root takes as R's (and hwloc and
# lscpu open below R through a directory descriptor); R's own spellings
# of a file (R/sys/devices/system/cpu/online, relative to R) are
# tests/spellings.sh's.
. "$(dirname "$0")/../common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
need lscpu util-linux
need lstopo-no-graphics hwloc
need hwloc-calc hwloc
need numactl numactl
need "$PY" python3
# the fixtures are unpacked by make check (make tests/fixtures/unpacked.stamp)
[ -d "${CPS_FIXTURES:-}" ] || die "no unpacked fixtures in CPS_FIXTURES='${CPS_FIXTURES:-}'"
"$CPUSET" init >/dev/null || die "cpuset init"
. "$SRC/tests/topo/checks.sh"
# the captured machine's CPU model, not this one's from CPUID
export HWLOC_COMPONENTS=-x86
# a machine with caches of every level, NUMA nodes and the CPU
# directory's online, possible and kernel_max files
M=64amd64-4s2n4ca2co
F=$CPS_FIXTURES/$M
[ -d "$F/sys/devices/system/cpu/cpu0/cache" ] || die "no $F with its caches"
NC=$T/$M-nocache
cp -R "$F" "$NC" || die "cannot copy $F"
find "$NC/sys/devices/system/cpu" -path '*/cpu[0-9]*/cache' -prune -exec rm -rf {} + ||
	die "cannot take the caches away from $NC"
expect_eq "$M without caches: no cache directory left" \
	"$(find "$NC/sys" -name cache -o -name 'index[0-9]*' | wc -l)" 0
expect_eq "$M without caches: every CPU directory kept" \
	"$(ls "$NC/sys/devices/system/cpu" | grep -c '^cpu[0-9]')" \
	"$(ls "$F/sys/devices/system/cpu" | grep -c '^cpu[0-9]')"

# run CMD... under the shim, machine $R, set $S; run_whole: in the set of
# all its CPUs
run() {
	env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" \
		CPUSETSHIM_TEST_ROOT="$R" CPUSETSHIM_TEST_CPUS="$S" "$@"
}
run_whole() {
	env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" \
		CPUSETSHIM_TEST_ROOT="$R" CPUSETSHIM_TEST_CPUS="$WHOLE" "$@"
}
$CMP shapes "$F" >"$T/shapes"
WHOLE=$(awk '$1 == "all" { print $2 }' "$T/shapes")
for root in "$F" "$NC"; do
	case $root in
	"$NC") label="$M without caches" ;;
	*) label=$M ;;
	esac
	while read -r shape set; do
		case $shape in core | two-nodes | sparse) ;; *) continue ;; esac
		topo_checks "$root" "$set" "$label $shape {$set}"
	done <"$T/shapes"
done
finish
