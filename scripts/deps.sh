#!/bin/sh
# Installs what building and testing cpusetshim need on Debian 12 (as
# root): every tool any test uses, so that nothing is skipped. Tests never
# install anything; one that lacks a tool skips and names it.
set -e
# building: compiler, autotools with autoconf-archive's macros, Check for
# make check
pkgs="build-essential autoconf autoconf-archive automake libtool pkg-config check"
# the tests' tools: coreutils (nproc, timeout), libc-bin (getconf, ldd),
# util-linux (taskset, setpriv, su, lscpu), procps (top, pgrep), passwd,
# strace (make bench), bzip2 and tar
# (the captured machines), Debian's python3 with psutil
pkgs="$pkgs coreutils libc-bin util-linux procps bzip2 tar python3 python3-psutil passwd strace"
# OpenMP on gcc and on clang (LLVM libomp), clang's sanitizer runtimes
pkgs="$pkgs clang libomp-dev libclang-rt-dev libclang-rt-14-dev"
# topology and MPI runtimes, Slurm, numactl
pkgs="$pkgs hwloc libhwloc-dev numactl libnuma-dev openmpi-bin libopenmpi-dev mpich"
pkgs="$pkgs slurm-wlm slurmd slurmctld libslurm-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
fi
