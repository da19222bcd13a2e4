#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
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
# the toolchains run under the shim (tests/integration/toolchains.sh):
# cargo, go, javac and java, node, cmake with ninja, make, gcc, git
pkgs="$pkgs cargo rustc golang-go default-jdk-headless nodejs cmake ninja-build make gcc git"
# file capabilities on a program's copy (tests/setuid.sh: setcap)
pkgs="$pkgs libcap2-bin"
# function sizes and complexities (tests/function_size.sh)
pkgs="$pkgs pmccabe"
# a static program of another C library under the supervisor
pkgs="$pkgs musl-tools"
# Charliecloud's unprivileged container runtime, ch-run
# (tests/integration/containers.sh; its image is built from busybox-static)
pkgs="$pkgs charliecloud-runtime"
# runc, run on an OCI bundle (tests/integration/containers.sh,
# tests/integration/oci_hook.sh); podman, run with runc
# (tests/integration/podman.sh); crun, which fails on this kind of host
# (doc/containers.md), and lxcfs for the comparison of BENCHMARKS.md
pkgs="$pkgs runc crun podman lxcfs"
# a multi-node guest (tests/guest.sh): QEMU, a kernel with its modules,
# a static busybox for its initramfs, cpio to make it; in the guest of
# tests/guest_cgroup2.sh, Slurm's cgroup plugins (task/cgroup,
# proctrack/cgroup, cgroup/v2) and ip, which brings its loopback up
pkgs="$pkgs qemu-system-x86 linux-image-amd64 busybox-static cpio slurm-wlm-basic-plugins iproute2"
# the Debian package (tests/package.sh): dpkg-buildpackage, debhelper with
# dh_autoreconf, lintian
pkgs="$pkgs dpkg-dev debhelper dh-autoreconf lintian"
# the background load under which .ci/run runs the timing-sensitive tests
pkgs="$pkgs stress-ng"
# the man pages rendered from the tree (tests/man_examples.sh); jq, which
# an example of cpuset-inspect(1) uses (tests/doc_blocks.sh)
pkgs="$pkgs man-db groff-base jq"
# the cross builds (tests/cross.sh): Debian's cross compilers for arm64,
# ppc64el, s390x and riscv64 (each brings its libc6-dev-<arch>-cross)
pkgs="$pkgs gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu gcc-s390x-linux-gnu gcc-riscv64-linux-gnu"
# their programs run under QEMU's user mode (tests/cross.sh); Check for
# arm64, so that the unit suites cross-build for the arm64 guest
# (Debian's multiarch: the architecture is added below, before apt-get
# update)
pkgs="$pkgs qemu-user-static check:arm64"
# Check for ppc64el: the unit suites cross-built and run under
# qemu-ppc64le-static (tests/qemu_ppc64el.sh)
pkgs="$pkgs check:ppc64el"
# the arm64 guest (tests/guest_arm64.sh): QEMU for arm64; the POWER guest
# (tests/guest_ppc64el.sh): QEMU for ppc64 (pseries); their kernels and
# busybox are fetched below
pkgs="$pkgs qemu-system-arm qemu-system-ppc"
# The arm64 guest's kernel (linux-image-arm64's) and static busybox
# (busybox-static's), unpacked into $GUEST_ARM64 with the modules' index
# (depmod): not installed, since the host's own /boot and /bin/busybox are
# x86-64's (tests/guest.sh boots the host's kernel). The POWER guest's
# (linux-image-powerpc64le's and busybox-static's, ppc64el) the same, into
# $GUEST_PPC64EL.
GUEST_ARM64=/usr/local/lib/cpusetshim-guest/arm64
GUEST_PPC64EL=/usr/local/lib/cpusetshim-guest/ppc64el

# A package is there when dpkg has unpacked and configured it: "installed",
# or waiting only for triggers (another package's, such as man-db's or
# libc-bin's, which dpkg runs later), "triggers-pending" or
# "triggers-awaited". A package on hold is there too (the first word of its
# status is "hold", not "install").
# A name without an architecture matches each architecture's package
# (check and check:arm64): one of them there is enough.
present() {
	for _s in $(dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null); do
		case $_s in
		installed | triggers-pending | triggers-awaited) return 0 ;;
		esac
	done
	return 1
}
# guest DIR KERNEL ARCH: a guest's kernel (the one the metapackage KERNEL
# of Debian architecture ARCH names) and busybox into DIR
guest() {
	[ -f "$1/done" ] && return 0
	kpkg=$(apt-cache depends "$2:$3" | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1)
	[ -n "$kpkg" ] || { echo "deps: no kernel package behind $2:$3" >&2; exit 1; }
	dl=$(mktemp -d)
	chmod 755 "$dl" # apt's own user writes there
	(cd "$dl" && apt-get download -qq "$kpkg" "busybox-static:$3") || exit 1
	rm -rf "$1"
	mkdir -p "$1"
	for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$1" || exit 1; done
	rm -rf "$dl"
	for v in $(ls "$1/lib/modules"); do depmod -b "$1" "$v" || exit 1; done
	echo "$kpkg" >"$1/done"
}
guests() {
	guest "$GUEST_ARM64" linux-image-arm64 arm64
	guest "$GUEST_PPC64EL" linux-image-powerpc64le ppc64el
}
# the foreign architectures of check:arm64 and check:ppc64el
foreign=""
for a in arm64 ppc64el; do
	dpkg --print-foreign-architectures | grep -qx "$a" || foreign="$foreign $a"
done
missing=""
for p in $pkgs; do
	present "$p" || missing="$missing $p"
done
if [ -z "$missing$foreign" ]; then
	guests
	exit 0
fi
for a in $foreign; do dpkg --add-architecture "$a"; done

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Another apt or dpkg (unattended upgrades, a second job) may hold dpkg's
# lock: wait for it (at most 600 s), do not fail at once.
apt="apt-get -o DPkg::Lock::Timeout=600"
# apt-get update takes the package lists' lock too, which DPkg::Lock::Timeout
# does not cover (apt fails at once): tried again every 5 s while another
# apt holds it, for 600 s at most
err=$(mktemp)
trap 'rm -f "$err"' EXIT
waited=0
until LC_ALL=C $apt update -qq 2>"$err"; do
	if ! grep -q 'Could not get lock' "$err" || [ "$waited" -ge 600 ]; then
		cat "$err" >&2
		exit 1
	fi
	[ "$waited" -gt 0 ] || echo "deps: another apt holds the package lists' lock; waiting for it (600 s at most)"
	sleep 5
	waited=$((waited + 5))
done
cat "$err" >&2
$apt install -y -qq $missing >/dev/null
guests
