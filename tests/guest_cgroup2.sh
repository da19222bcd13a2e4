#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Slurm's task/cgroup on cgroup v2, with the plugin, in a guest that owns
# its hierarchy: boots the x86-64 QEMU guest (tests/guest/boot.sh: TCG, 4
# CPUs in 2 packages, 2 NUMA nodes with CPUs and one with memory only,
# cgroup2 at /sys/fs/cgroup, the host's root shared read-only, so Slurm's
# daemons, slurmstepd, its plugins and the project's plugin and shim are
# the host's own) and runs tests/guest/inside_cgroup2.sh there: a private
# slurmctld and slurmd with TaskPlugin=task/cgroup,task/affinity,
# ProctrackType=proctrack/cgroup and CgroupPlugin=cgroup/v2 (IgnoreSystemd,
# ConstrainCores). Its checks come back as this test's ("cgroup2: ...").
# This host's own cgroup v2 may have no cpuset controller (bound to v1),
# hence the guest.
#
# Time: the guest runs as long as it makes progress (boot.sh: GUEST_STALL,
# 300 s without output; the test's deadline pushed on while it does).
# Slow: one of SLOW_TESTS.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/guest/host.sh"
. "$(dirname "$0")/slurm/lib.sh"
guest_need
slurm_need
pd=$(slurm_plugindir)
for p in cgroup_v2 task_cgroup proctrack_cgroup; do
	[ -f "$pd/$p.so" ] || skip_all "needs Slurm's $p.so (slurm-wlm-basic-plugins), not in $pd"
done
need taskset util-linux
need ip iproute2
[ -x /usr/bin/python3 ] || skip_all "needs /usr/bin/python3 (Debian package python3)"
[ -x "$B/tests/slurm/prog_report" ] || die "no $B/tests/slurm/prog_report (make check builds it)"

G=$T/guest
mkdir "$G" || die "mkdir $G"
cat >"$G/run.sh" <<RUN
CPS_BUILDDIR='$B'; CPS_SRCDIR='$SRC'; CPUSETSHIM_LIB='$SHIM'
export CPS_BUILDDIR CPS_SRCDIR CPUSETSHIM_LIB
echo cpsguest >/proc/sys/kernel/hostname
cd '$B' || exit 1
sh '$SRC/tests/guest/inside_cgroup2.sh' >\$GUEST_OUT/cg.tap 2>\$GUEST_OUT/cg.err
echo \$? >\$GUEST_OUT/cg.rc
RUN
note "kernel $kernel, $(qemu-system-x86_64 --version | head -n 1)"
GUEST_SMP=4 GUEST_KEEP="$B $SRC" sh "$SRC/tests/guest/boot.sh" x86_64 "$G" 2>"$G/boot.err"
bs=$?
case $bs in
0) ;;
3) skip_all "$(cat "$G/boot.err")" ;;
*) note "boot.sh: $(cat "$G/boot.err")"
   show "$G/run.out"
   show "$G/cg.tap"
   die "the guest booted and ran its checks to their end (boot.sh exited $bs: the guest could not)" ;;
esac
note "guest: booted in $(cut -d' ' -f1 "$G/uptime") s (its clock); QEMU ran $(cat "$G/wall") s"
[ -s "$G/run.out" ] && { note "the guest's run.sh said:"; show "$G/run.out"; }
guest_relay cgroup2 "$G/cg.tap"
show "$G/cg.err"
expect_eq "cgroup2: the checks in the guest passed (exit status)" "$(cat "$G/cg.rc")" 0
expect_eq "cgroup2: every check ran (the plan)" "$(cat "$G/plan")" "$(grep -Ec '^(not )?ok ' "$G/cg.tap")"
finish
