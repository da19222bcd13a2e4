#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A real arm64 kernel: the arm64 cross build of this tree (its unit
# suites too) boots in a QEMU guest (tests/guest/boot.sh arm64:
# qemu-system-aarch64 -M virt -cpu max, TCG, 4 CPUs in 2 sockets, 2 NUMA
# nodes with CPUs and one with memory only, Debian's arm64 kernel) with
# static busybox and arm64's C library, and runs tests/guest/inside_arm64.sh
# there: the unit suites; cpuset, cpuset-run and cpuset-inspect; in sets
# drawn from the guest's sysfs, a dynamic program under the shim, a
# static one and a Go one (GOARCH=arm64) under the supervisor, each
# against the set and against what it sees without the set; the
# topology and node views against the guest kernel's own files
# restricted to the set; the system calls the shim's pass-through path
# makes, counted (tests/bench/bench_syscount). Its checks come back as
# this test's ("arm64: ..."). What the guests of other architectures
# share: tests/guest/foreign.sh; this file states arm64's own.
#
# Time: as tests/guest.sh (GUEST_STALL, GUEST_TIMEOUT; the deadline
# follows the guest's progress). GUEST_ARM64_BUILD: an arm64 build tree
# of this source (configured --host=aarch64-linux-gnu, built with make
# and make check TESTS=) instead of the one this test makes (by hand,
# to run the guest again quickly). Slow: one of SLOW_TESTS.
. "$(dirname "$0")/common.sh"

FA=arm64 TR=aarch64-linux-gnu FKERNEL=vmlinuz FKPKG=linux-image-arm64
FQEMU=qemu-system-aarch64 FQEMU_PKG=qemu-system-arm
FSUITES=yes FAPPLETS=
# Check's per-test timeouts (4 s) scaled by how slowly the guest booted
# (about 20 s on an idle host; a loaded one makes it slower)
FRUN="CK_TIMEOUT_MULTIPLIER=\$((2 + \${s%.*} / 5)); export CK_TIMEOUT_MULTIPLIER"
. "$SRC/tests/guest/foreign.sh"
foreign_need
need go golang-go
# (as tests/cross.sh's, with the unit suites)
foreign_build tests/fixtures/unpacked.stamp
foreign_root
# the Go program
export GO111MODULE=off GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
cp "$SRC/tests/integration/prog_supervised.go" "$T/" &&
(cd "$T" && CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -o "$R/p/go" prog_supervised.go) 2>"$T/go.err" ||
	die "GOARCH=arm64 go build: $(head -3 "$T/go.err")"
progress
cp -L "/usr/$TR/lib/ld-linux-aarch64.so.1" "$R/lib/" || die "no arm64 ld.so"
foreign_libs
foreign_boot
