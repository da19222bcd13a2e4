#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A real multi-node Linux kernel: boots a QEMU guest (tests/guest/boot.sh:
# TCG, 8 CPUs in 2 packages with 2 threads a core, 2 NUMA nodes with
# CPUs and one with memory only, the host's root shared read-only) and
# runs tests/guest/inside.sh in it: the topology views of sets of one
# CPU, one package, one node and two nodes against the guest kernel's
# own files restricted to the set, a CPU taken offline and back with
# members running, memory placement. Its checks come back as this test's
# ("guest: ..."). Sets of their own nodes too (one node, another node,
# the memory-only node, two nodes: cpuset-run --mems), their nodes
# renumbered 0..k-1. Then the sets of nodes' checks with the shim but the
# machine's nodes (what a shim without node translation shows), and the
# CPU sets' without the shim: both must fail, so that a harness that lost
# the shim or its nodes on the way cannot pass.
#
# Time: the guest runs as long as it makes progress (tests/guest/boot.sh:
# stopped after GUEST_STALL seconds, 300, without console output or
# results; GUEST_TIMEOUT seconds in all, 0: no limit), and pushes this
# test's own deadline (tests/run-test.sh, CPS_TEST_EXTEND) on while it
# does: a loaded host makes it slower, not failed. GUEST_SETS: the CPU
# sets' lists (physical, space-separated) instead of the four drawn from
# the guest's sysfs ("" for none); GUEST_NODE_SETS: the sets of nodes,
# CPUS/NODES (physical; "" for none); GUEST_SET_BUDGET (s, 150): past it,
# CPU sets beyond the first two are left out, and said (a loaded host).
# Slow: one of SLOW_TESTS.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/guest/host.sh"
guest_need
# the guest's programs are the host's (its root is shared): the tools the
# checks inside need, checked here so that a missing one skips
need lscpu util-linux
need lstopo-no-graphics hwloc
need hwloc-calc hwloc
need numactl numactl
need taskset util-linux
$PYTHON3 -c 'import psutil' 2>/dev/null || skip_all "needs psutil for $PYTHON3 (Debian package python3-psutil)"
[ -x "$B/tests/integration/prog_workload" ] || die "no $B/tests/integration/prog_workload (make check builds it)"

G=$T/guest
mkdir "$G" || die "mkdir $G"
# what the guest runs (as root, in the host's tree as the host sees it;
# its $GUEST_OUT is $G)
sets=
[ "${GUEST_SETS+set}" = set ] && sets="GUEST_SETS='$GUEST_SETS'; export GUEST_SETS"
[ "${GUEST_NODE_SETS+set}" = set ] && sets="$sets
GUEST_NODE_SETS='$GUEST_NODE_SETS'; export GUEST_NODE_SETS"
cat >"$G/run.sh" <<RUN
CPS_BUILDDIR='$B'; CPS_SRCDIR='$SRC'; CPUSETSHIM_LIB='$SHIM'
export CPS_BUILDDIR CPS_SRCDIR CPUSETSHIM_LIB
GUEST_SET_BUDGET='${GUEST_SET_BUDGET:-150}'; export GUEST_SET_BUDGET
$sets
cd '$B' || exit 1
s=\$(cut -d' ' -f1 /proc/uptime)
GUEST_MODE=shim sh '$SRC/tests/guest/inside.sh' >\$GUEST_OUT/shim.tap 2>\$GUEST_OUT/shim.err
echo \$? >\$GUEST_OUT/shim.rc
m=\$(cut -d' ' -f1 /proc/uptime)
GUEST_MODE=nonodes sh '$SRC/tests/guest/inside.sh' >\$GUEST_OUT/nonodes.tap 2>\$GUEST_OUT/nonodes.err
echo \$? >\$GUEST_OUT/nonodes.rc
GUEST_MODE=noshim sh '$SRC/tests/guest/inside.sh' >\$GUEST_OUT/noshim.tap 2>\$GUEST_OUT/noshim.err
echo \$? >\$GUEST_OUT/noshim.rc
e=\$(cut -d' ' -f1 /proc/uptime)
echo "\$s \$m \$e" >\$GUEST_OUT/times
RUN
note "kernel $kernel, $(qemu-system-x86_64 --version | head -n 1)"
GUEST_KEEP="$B $SRC" sh "$SRC/tests/guest/boot.sh" x86_64 "$G" 2>"$G/boot.err"
bs=$?
case $bs in
0) ;;
3) skip_all "$(cat "$G/boot.err")" ;;
*) note "boot.sh: $(cat "$G/boot.err")"
   show "$G/run.out"
   die "the guest ran its checks to their end (boot.sh exited $bs)" ;;
esac
set -- $(cat "$G/times" 2>/dev/null)
note "guest: booted in $(cut -d' ' -f1 "$G/uptime") s (its clock), checks with the shim $(echo "$1 $2" | awk '{ printf "%.0f", $2 - $1 }') s, without its nodes and without it $(echo "$2 $3" | awk '{ printf "%.0f", $2 - $1 }') s; QEMU ran $(cat "$G/wall") s"
[ -s "$G/run.out" ] && { note "the guest's run.sh said:"; show "$G/run.out"; }

# The checks with the shim, each a check here: "ok"/"not ok" lines (with
# the "#" lines under a failure), a SKIP passed on
guest_relay guest "$G/shim.tap"
show "$G/shim.err"
expect_eq "guest: the checks with the shim passed (exit status)" "$(cat "$G/shim.rc")" 0
expect_eq "guest: every check ran (the plan)" "$(cat "$G/plan")" "$(grep -Ec '^(not )?ok ' "$G/shim.tap")"

# With the shim but the machine's nodes: each set of nodes' checks see
# nodes it does not have, numbered as the machine numbers them, so they
# must fail: its listing of the nodes and numactl's among them
nsets=$(sed -n 's/^# sets of nodes (CPUs\/nodes): //p' "$G/nonodes.tap")
note "without node translation: $(grep -c '^not ok ' "$G/nonodes.tap") of $(grep -Ec '^(not )?ok ' "$G/nonodes.tap") checks failed"
expect_eq "guest, no node translation: the checks fail (exit status)" "$(cat "$G/nonodes.rc")" 1
[ -n "$nsets" ] || [ "${GUEST_NODE_SETS-x}" = "" ] || fail "guest, no node translation: the sets of nodes named"
for sm in $nsets; do
	w="{${sm%/*} mems ${sm#*/}}"
	expect_match "guest, no node translation: $w lists the machine's nodes" \
		"$(grep -F "$w ls[opendir] /sys/devices/system/node" "$G/nonodes.tap" | grep '^not ok ')" "not ok"
	expect_match "guest, no node translation: $w numactl --hardware is the machine's" \
		"$(grep -F "$w numactl --hardware" "$G/nonodes.tap" | grep '^not ok ')" "not ok"
done

# Without the shim: the same sets' checks see the whole machine, so they
# must fail, and the sets' listings among them
nok=$(grep -c '^not ok ' "$G/noshim.tap")
note "without the shim: $nok of $(grep -Ec '^(not )?ok ' "$G/noshim.tap") checks failed"
expect_eq "guest, no shim: the checks fail (exit status)" "$(cat "$G/noshim.rc")" 1
if [ "${GUEST_SETS-x}" != "" ]; then
	expect_match "guest, no shim: a set's listing of /sys/devices/system/cpu is the machine's" \
		"$(grep '^not ok .* ls\[opendir\] /sys/devices/system/cpu$' "$G/noshim.tap")" "ls.opendir. /sys/devices/system/cpu"
	expect_nomatch "guest, no shim: no set's nproc passed" \
		"$(grep '^ok .* os.cpu_count$' "$G/noshim.tap")" "os.cpu_count"
fi
finish
