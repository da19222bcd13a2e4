#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cross builds (slow: one of SLOW_TESTS). For each architecture whose
# Debian cross compiler is installed (aarch64, ppc64le, s390x, riscv64),
# a copy of this tree is configured out of tree (--host, --without-slurm)
# and built with make -j2 (the libraries and tools: Check for the target
# is not there, so no make check): the build succeeds and prints no
# compiler warning, the shim, the public library and the tools are ELF
# files of the target's machine and byte order, and a small program
# linked with base/ names its architecture (cps_arch_host). Where QEMU's
# user mode is installed, the target's cpuset --version and that program
# run under it, and so does tests/integration/prog_entry.c under the
# target's shim (entry, below). A missing cross compiler skips its architecture, naming
# its package; none at all skips the test (77).
. "$(dirname "$0")/common.sh"

need git git
need readelf binutils
need make make
need taskset util-linux

# triplet, Debian package, readelf's machine, byte order, QEMU, arch name
TARGETS="aarch64-linux-gnu gcc-aarch64-linux-gnu AArch64 little qemu-aarch64-static aarch64
powerpc64le-linux-gnu gcc-powerpc64le-linux-gnu PowerPC64 little qemu-ppc64le-static ppc64le
s390x-linux-gnu gcc-s390x-linux-gnu S/390 big qemu-s390x-static s390x
riscv64-linux-gnu gcc-riscv64-linux-gnu RISC-V little qemu-riscv64-static riscv64"

have=0
while read -r tr pkg _; do
	command -v "$tr-gcc" >/dev/null 2>&1 && have=$((have + 1))
done <<EOT
$TARGETS
EOT
[ "$have" -gt 0 ] || skip_all "needs a cross compiler (Debian packages gcc-aarch64-linux-gnu, gcc-powerpc64le-linux-gnu, gcc-s390x-linux-gnu, gcc-riscv64-linux-gnu; sh scripts/deps.sh installs them)"

# The sources as they are (tests/crossbuild.sh)
. "$SRC/tests/crossbuild.sh"
cross_copy "$T/src"

cat >"$T/arch.c" <<'EOC'
#include <stdio.h>
#include "base/arch.h"
int main(void)
{
	const struct cps_arch *a = cps_arch_host();
	printf("%s\n", a ? a->name : "none");
	return 0;
}
EOC

# elf FILE MACHINE ORDER: readelf -h says the target's machine and order
elf() {
	h=$(readelf -h "$1" 2>&1)
	case $h in *"Machine:"*"$2"*) ;; *) return 1 ;; esac
	case $h in *"$3 endian"*) ;; *) return 1 ;; esac
}

# build TRIPLET MACHINE ORDER QEMU NAME
build() {
	tr=$1 bd="$T/build-$1"
	mkdir "$bd"
	t0=$(date +%s)
	# -O2 as the default build, without -g (its debug info only costs time)
	if ! (cd "$bd" && "$T/src/configure" -q --host="$tr" --without-slurm CFLAGS=-O2 \
		>"$bd/cfg.out" 2>&1); then
		fail "$tr: configure" "$(tail -20 "$bd/cfg.out")"
		return
	fi
	progress
	# a build of its own, not a part of make check's: no jobserver from
	# the make that runs this test (make warns that -j2 resets it)
	(cd "$bd" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice make -j2 >"$bd/make.out" 2>&1)
	st=$?
	progress
	note "$tr: configured and built in $(($(date +%s) - t0)) s"
	expect_eq "$tr: make succeeds" "$st" 0 || { show "$bd/make.out" | tail -30; return; }
	grep -i 'warning:' "$bd/make.out" | grep -v '^make\(\[[0-9]*\]\)\?: ' >"$bd/warn"
	expect_eq "$tr: no compiler warning" "$(wc -l <"$bd/warn")" 0 || show "$bd/warn"
	bad=""
	for f in .libs/libcpusetshim.so .libs/libcpusetctl.so cpuset cpuset-run cpuset-inspect; do
		elf "$bd/$f" "$2" "$3" || bad="$bad $f"
	done
	expect_eq "$tr: the shim, the library and the tools are $2 ($3-endian) ELF files" "$bad" ""
	check "$tr: a program linked with base/ builds" "$tr-gcc" -I"$T/src" -I"$bd" \
		-include "$bd/config.h" "$T/arch.c" "$bd/.libs/libcps_base.a" -o "$bd/arch" || return
	if ! command -v "$4" >/dev/null 2>&1; then
		skip "$tr: its programs under QEMU" "needs $4 (Debian package qemu-user-static)"
		return
	fi
	# -E LD_LIBRARY_PATH: the cross libc of /usr/TRIPLET, whose ld.so -L
	# gives; without it, ld.so's own search finds a multiarch libc of the
	# same architecture (/lib/TRIPLET, as libc6:ppc64el installs) of
	# another build, and the pair aborts ("stack smashing detected")
	expect_match "$tr: cpuset --version under $4" \
		"$("$4" -L "/usr/$tr" -E LD_LIBRARY_PATH="/usr/$tr/lib" "$bd/cpuset" --version 2>&1)" '^cpuset'
	expect_match "$tr: the program says its architecture under $4" \
		"$("$4" -L "/usr/$tr" -E LD_LIBRARY_PATH="/usr/$tr/lib" "$bd/arch" 2>&1)" "^$5( |$)"
	check "$tr: tests/prog_rawsys.c builds" "$tr-gcc" -O2 -static -I"$T/src" \
		"$T/src/tests/prog_rawsys.c" -o "$bd/rawsys" || return
	expect_eq "$tr: base/rawsys.h's own system calls under $4 (mmap, open, read)" \
		"$("$4" "$bd/rawsys" 2>&1)" "rawsys: ok"
	entry "$tr" "$bd" "$4"
}

# entry TRIPLET BUILD QEMU: the shim's entry points (the program of
# tests/integration/entry.sh: syscall with six arguments, errno, the
# numbers the shim translates; the open family, each spelling of a view)
# under the target's shim and QEMU, in a set of one CPU (our last) of a
# table of the target's own, made by its cpuset: aarch64's frameless stubs
# (preload/stubs-aarch64.c), the C entry points of the others
entry() {
	_tr=$1 _bd=$2 _q=$3
	check "$_tr: prog_entry builds" "$_tr-gcc" -O2 -o "$_bd/prog_entry" \
		"$T/src/tests/integration/prog_entry.c" || return
	_et=$CPUSETSHIM_TABLE.$_tr _cpu=$(real_cpus $$ | tr ',' '\n' | sed 's/.*-//' | tail -n 1)
	at_exit "rm -f /dev/shm/$_et; rm -rf /dev/shm/$_et.views.*"
	set -- -L "/usr/$_tr" -E LD_LIBRARY_PATH="/usr/$_tr/lib:$_bd/.libs" -E CPUSETSHIM_TABLE="$_et"
	# (QEMU's riscv64 user mode has no set_robust_list: its C library
	# then makes no robust mutex, so no table, ENOTSUP)
	if ! "$_q" "$@" "$_bd/cpuset" init >"$T/entry-$_tr.init" 2>&1; then
		case $(cat "$T/entry-$_tr.init") in
		*"Operation not supported"*)
			todo "$_tr: the shim's entry points under $_q" \
				"its cpuset makes no table there ($(cat "$T/entry-$_tr.init"): QEMU's user mode has no set_robust_list, so its C library makes no robust mutex)"
			return ;;
		esac
		fail "$_tr: cpuset init under $_q" "$(cat "$T/entry-$_tr.init")"
		return
	fi
	check "$_tr: cpuset create --cpus $_cpu under $_q" "$_q" "$@" "$_bd/cpuset" create \
		--cpus "$_cpu" --name entry || return
	mkdir "$T/entry-$_tr" || die "mkdir $T/entry-$_tr"
	taskset -c "$_cpu" "$_q" "$@" -E LD_PRELOAD="$_bd/.libs/libcpusetshim.so" \
		-E CPUSETSHIM_SET=entry "$_bd/prog_entry" "$T/entry-$_tr" >"$T/entry-$_tr.out" \
		2>"$T/entry-$_tr.err"
	_st=$?
	while IFS= read -r _l; do
		case $_l in
		"ok - "*) pass "$_tr under $_q: ${_l#ok - }" ;;
		"not ok - "*) fail "$_tr under $_q: ${_l#not ok - }" ;;
		*) note "$_l" ;;
		esac
	done <"$T/entry-$_tr.out"
	show "$T/entry-$_tr.err"
	expect_eq "$_tr: prog_entry's exit status" "$_st" 0
	expect_match "$_tr: prog_entry's checks ran to the last" "$(tail -n 1 "$T/entry-$_tr.out")" \
		'in "/"$'
}

start=$(date +%s)
while read -r tr pkg mach order qemu name; do
	if command -v "$tr-gcc" >/dev/null 2>&1; then
		build "$tr" "$mach" "$order" "$qemu" "$name" </dev/null
	else
		skip "$tr: cross build" "needs $tr-gcc (Debian package $pkg; sh scripts/deps.sh installs it)"
	fi
done <<EOT
$TARGETS
EOT
note "all cross builds: $(($(date +%s) - start)) s"
finish
