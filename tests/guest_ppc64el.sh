#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A real POWER kernel: the ppc64el cross build of this tree boots in a
# QEMU guest (tests/guest/boot.sh ppc64el: qemu-system-ppc64 -M pseries
# -cpu power9, TCG, 8 CPUs in 2 sockets, 2 NUMA nodes with CPUs and one
# with memory only, Debian's ppc64el kernel) with static busybox and
# ppc64el's C library, and runs tests/guest/inside_ppc64el.sh there:
# cpuset, cpuset-run and cpuset-inspect; in sets drawn from the guest's
# sysfs (a node's, a core's threads, every other CPU, one across nodes),
# a dynamic program under the shim and a static one under the
# supervisor, each against the set and against what it sees without the
# set; POWER's /proc/cpuinfo and the topology and node views against the
# guest kernel's own files restricted to the set; the system calls the
# shim's pass-through path makes, counted (tests/bench/bench_syscount).
# Its checks come back as this test's ("ppc64el: ..."). What the guests
# of other architectures share: tests/guest/foreign.sh; this file
# states ppc64el's own.
# One thread a core: this QEMU (before 8.1) refuses SMT on pseries under
# TCG, so POWER's SMT numbering is the captured POWER machines' test
# (tests/topo/machines.sh), not this one's.
#
# Time: as tests/guest.sh (GUEST_STALL, GUEST_TIMEOUT; the deadline
# follows the guest's progress). GUEST_PPC64EL_BUILD: a ppc64el build
# tree of this source (configured --host=powerpc64le-linux-gnu, built
# with make all and the bench programs) instead of the one this test
# makes (by hand, to run the guest again quickly). Slow: one of
# SLOW_TESTS.
. "$(dirname "$0")/common.sh"

FA=ppc64el TR=powerpc64le-linux-gnu FKERNEL=vmlinux FKPKG=linux-image-powerpc64le
FQEMU=qemu-system-ppc64 FQEMU_PKG=qemu-system-ppc
FSUITES=no FAPPLETS="cmp paste" FRUN=
. "$SRC/tests/guest/foreign.sh"
foreign_need
# (as tests/qemu_ppc64el.sh's, without the unit suites)
foreign_build
foreign_root
progress
# (the program interpreter of ppc64le is /lib64/ld64.so.2)
cp -L "/usr/$TR/lib/ld64.so.2" "$R/lib/" && ln -s lib "$R/lib64" || die "no ppc64el ld.so"
foreign_libs
foreign_boot
