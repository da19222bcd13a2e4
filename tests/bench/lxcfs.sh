#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# LXCFS and cpuset-run side by side on CPU 1 (BENCHMARKS.md, Containers
# and LXCFS): one probe (tests/bench/lxcfs_probe.sh: nproc, cpuinfo,
# /proc/stat, the CPU directory's online file, listing, topology and
# caches, hwloc, Java, Go, Python, an OpenMP program's threads and their
# CPUs, taskset -c 0) run three ways, the host's root as the image:
#   lxcfs:      a cpuset cgroup of CPU 1 (v1, made here), lxcfs mounted
#               here and its /proc files and CPU directory bound over the
#               kernel's in a private mount namespace, as LXC does;
#   supervised: cpuset-run --cpus 1 -- chroot / PROBE (a launcher: the
#               tree supervised);
#   preload:    cpuset-run --cpus 1 -- PROBE (the shell and what it runs
#               preloaded; the Go program, run by the shell, is not
#               supervised).
# Root; run by hand: sh tests/bench/lxcfs.sh
. "$(dirname "$0")/../common.sh"

need lxcfs lxcfs
need unshare util-linux
need hwloc-calc hwloc
need java default-jdk-headless
need go golang-go
need gcc gcc
[ "$(id -u)" = 0 ] || skip_all "root only (a cpuset cgroup, mounts)"
CGV1=/sys/fs/cgroup/cpuset
[ -f "$CGV1/cpuset.cpus" ] || skip_all "no cgroup v1 cpuset hierarchy at $CGV1"
M=$T/m
mkdir -p "$M"
gcc -O2 -fopenmp -o "$M/omp" "$SRC/tests/bench/lxcfs_omp.c" || die "gcc -fopenmp"
printf '%s\n' 'public class Cpus { public static void main(String[] a) {' \
	'System.out.println(Runtime.getRuntime().availableProcessors()); } }' >"$M/Cpus.java"
javac -d "$M" "$M/Cpus.java" || die "javac"
cp "$SRC/tests/integration/prog_supervised.go" "$M/"
(cd "$M" && GO111MODULE=off GOCACHE="$T/gocache" CGO_ENABLED=0 go build -o go prog_supervised.go) ||
	die "go build"
cp "$SRC/tests/bench/lxcfs_probe.sh" "$M/probe.sh"
chmod +x "$M/probe.sh"

L=$T/lxcfs
mkdir -p "$L"
lxcfs "$L" >"$T/lxcfs.log" 2>&1 &
LXPID=$!
at_exit "fusermount -u '$L' 2>/dev/null; kill $LXPID 2>/dev/null; wait $LXPID 2>/dev/null; rmdir '$CGV1/cps-lxcfs.$$' 2>/dev/null"
wait_until test -f "$L/proc/cpuinfo"
CG=$CGV1/cps-lxcfs.$$
mkdir "$CG"
echo 1 >"$CG/cpuset.cpus"
cat "$CGV1/cpuset.mems" >"$CG/cpuset.mems"
unshare -m sh -c "mount --make-rprivate / &&
	for f in cpuinfo stat meminfo uptime loadavg; do mount --bind '$L/proc/'\$f /proc/\$f; done &&
	mount --rbind '$L/sys/devices/system/cpu' /sys/devices/system/cpu &&
	echo \$\$ >'$CG/tasks' && exec env M='$M' '$M/probe.sh'" >"$T/lxcfs.out" 2>&1
env M="$M" "$CPUSET_RUN" --cpus 1 -- chroot / "$M/probe.sh" >"$T/sup.out" 2>&1
env M="$M" "$CPUSET_RUN" --cpus 1 -- "$M/probe.sh" >"$T/pre.out" 2>&1
echo "## CPU 1 of $(nproc) (load average $(cut -d' ' -f1-3 /proc/loadavg)): lxcfs | supervised | preload"
paste -d'|' "$T/lxcfs.out" "$T/sup.out" "$T/pre.out"
