# SPDX-License-Identifier: BSD-3-Clause
# What the drivers of the guests of other architectures share
# (tests/guest_arm64.sh, tests/guest_ppc64el.sh): the cross build of this
# tree, a guest root of static busybox, the target's C library, the build
# and the programs, booted by tests/guest/boot.sh ARCH; the checks of
# tests/guest/inside_ARCH.sh (with tests/guest/inside_foreign.sh) come
# back as the test's ("ARCH: ..."). Sourced after tests/common.sh, never
# run. The driver sets:
#     FA         the architecture as boot.sh and Debian name it (arm64);
#                GUEST_<FA> (the kernel and busybox, by default
#                /usr/local/lib/cpusetshim-guest/FA) and GUEST_<FA>_BUILD
#                (a build tree to use) follow from it
#     TR         the toolchain's triplet
#     FQEMU      the QEMU system emulator, FQEMU_PKG its Debian package
#     FKERNEL    the kernel's file name in boot/ (vmlinuz, vmlinux),
#                FKPKG the Debian package it comes from
#     FSUITES    yes: the unit suites too ($SUITES in the guest)
#     FAPPLETS   busybox applets the inside script needs beyond the
#                common ones
#     FRUN       lines run.sh runs before the inside script
# and calls, in order: foreign_need (then its own need), foreign_build
# [TARGET...], foreign_root, its own programs into $R/p, foreign_libs
# (after the program interpreter into $R/lib), foreign_boot.
. "$SRC/tests/guest/host.sh"
FUP=$(echo "$FA" | tr a-z A-Z)
eval "FDIR=\${GUEST_$FUP:-/usr/local/lib/cpusetshim-guest/$FA}"

foreign_need() {
	need "$FQEMU" "$FQEMU_PKG"
	need "$TR-gcc" "gcc-$TR"
	need cpio cpio
	need git git
}

# foreign_build [TARGET...]: $bd, the build (made here, or
# GUEST_<FA>_BUILD), with the bench programs, each TARGET and, with
# FSUITES=yes, the unit suites ($suites)
foreign_build() {
	ls "$FDIR"/boot/$FKERNEL-* >/dev/null 2>&1 && [ -x "$FDIR/bin/busybox" ] ||
		skip_all "needs the $FA kernel and busybox in $FDIR (sh scripts/deps.sh unpacks $FKPKG:$FA and busybox-static:$FA)"
	PCDIR=/usr/lib/$TR/pkgconfig
	[ -f "$PCDIR/check.pc" ] || skip_all "needs Check for $FA (Debian package check:$FA)"
	. "$SRC/tests/crossbuild.sh"
	eval "bd=\${GUEST_${FUP}_BUILD:-}"
	if [ -z "$bd" ]; then
		bd=$T/build
		if [ "$FSUITES" = yes ]; then
			cross_build "$TR" "$bd" tests/bench/bench_calls tests/bench/bench_syscount "$@"
		else
			cross_build "$TR" "$bd" --no-suites tests/bench/bench_calls tests/bench/bench_syscount "$@"
		fi
	else
		bd=$(cd "$bd" && pwd) || eval "die \"GUEST_${FUP}_BUILD=\$GUEST_${FUP}_BUILD\""
		[ "$FSUITES" = yes ] && suites=$(cross_suites "$bd")
	fi
	[ "$FSUITES" = yes ] || suites=
	for f in cpuset cpuset-run cpuset-inspect .libs/libcpusetshim.so tests/bench/bench_calls \
		tests/bench/bench_syscount $suites; do
		[ -f "$bd/$f" ] || die "the $FA build has no $f"
	done
}

# foreign_root: the guest's root $R (in $G): busybox, the build at its
# own path, the programs in /p (prog_supervised static and dynamic; a
# cat and lister for the shim)
foreign_root() {
	G=$T/guest
	R=$G/root
	mkdir -p "$G" "$R/bin" "$R/lib" "$R/p" || die "mkdir $R"
	cp "$FDIR/bin/busybox" "$R/bin/busybox" || die "cp busybox"
	for a in sh env cat ls grep sed awk tr wc head tail sort cut mkdir rm cp ln mount umount id \
		uname sleep seq expr printf echo test true false basename dirname tee $FAPPLETS; do
		ln -s busybox "$R/bin/$a"
	done
	# the build at its own path (libtool's wrappers and run paths name it)
	mkdir -p "$R$(dirname "$bd")"
	cp -al "$bd" "$R$bd" 2>/dev/null || cp -a "$bd" "$R$bd" || die "copying $bd"
	"$TR-gcc" -O2 -static -pthread -o "$R/p/static" "$SRC/tests/integration/prog_supervised.c" 2>"$T/cc.err" ||
		die "$TR-gcc -static: $(head -3 "$T/cc.err")"
	"$TR-gcc" -O2 -pthread -o "$R/p/dynamic" "$SRC/tests/integration/prog_supervised.c" 2>"$T/cc.err" ||
		die "$TR-gcc: $(head -3 "$T/cc.err")"
	cat >"$T/cat.c" <<'EOC'
#include <dirent.h>
#include <stdio.h>
#include <string.h>
/* cat FILE...: the files; cat -d DIR: DIR's entries, one a line */
int main(int argc, char **argv)
{
	int rc = 0;
	if (argc == 3 && strcmp(argv[1], "-d") == 0) {
		DIR *d = opendir(argv[2]);
		struct dirent *e;
		if (!d) { perror(argv[2]); return 1; }
		while ((e = readdir(d)))
			puts(e->d_name);
		closedir(d);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		int c;
		if (!f) { perror(argv[i]); rc = 1; continue; }
		while ((c = getc(f)) != EOF) putchar(c);
		fclose(f);
	}
	return rc;
}
EOC
	"$TR-gcc" -O2 -o "$R/p/cat" "$T/cat.c" || die "$TR-gcc cat.c"
}

# addlibs FILE: the libraries FILE needs (and theirs) into $R/lib, from
# the cross toolchain's and multiarch's directories of the target
addlibs() {
	for _n in $("$TR-readelf" -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		grep -qx "$_n" "$T/libs" && continue
		case $_n in libcpusetctl.so*) continue ;; esac
		_f=
		for _d in $libdirs; do [ -e "$_d/$_n" ] && { _f=$_d/$_n; break; }; done
		[ -n "$_f" ] || die "no $FA $_n (for $1)"
		echo "$_n" >>"$T/libs"
		cp -L "$_f" "$R/lib/$_n" || die "cp $_f"
		addlibs "$R/lib/$_n"
	done
}

# foreign_libs: the C library and what the programs, the build's
# libraries and tools and the suites need; the inside scripts; run.sh
foreign_libs() {
	libdirs="/usr/$TR/lib /usr/lib/$TR /lib/$TR"
	: >"$T/libs"
	for f in "$R/p/dynamic" "$R/p/cat" "$bd/.libs/libcpusetshim.so" "$bd/.libs/libcpusetctl.so" \
		"$bd/cpuset" "$bd/cpuset-run" "$bd/cpuset-inspect" "$bd/tests/bench/bench_calls" \
		"$bd/tests/bench/bench_syscount"; do
		addlibs "$f"
	done
	for s in $suites; do
		f=$bd/$s
		[ -f "$bd/$(dirname "$s")/.libs/$(basename "$s")" ] && f=$bd/$(dirname "$s")/.libs/$(basename "$s")
		addlibs "$f"
	done
	cp "$SRC/tests/guest/inside_$FA.sh" "$R/inside.sh" || die "cp inside_$FA.sh"
	cp "$SRC/tests/guest/inside_foreign.sh" "$R/inside_foreign.sh" || die "cp inside_foreign.sh"
	cat >"$R/run.sh" <<RUN
B='$bd'; SUITES='$suites'; export B SUITES
s=\$(cut -d' ' -f1 /proc/uptime)
$FRUN
sh /inside.sh >/out/inside.tap 2>/out/inside.err
echo \$? >/out/inside.rc
e=\$(cut -d' ' -f1 /proc/uptime)
echo "\$s \$e" >/out/times
RUN
}

# foreign_boot: the guest booted, its checks each a check here
# (guest_relay, tests/guest/host.sh); finishes
foreign_boot() {
	note "kernel $(ls "$FDIR"/boot/$FKERNEL-*), $($FQEMU --version | head -n 1)"
	sh "$SRC/tests/guest/boot.sh" "$FA" "$G" 2>"$G/boot.err"
	bs=$?
	case $bs in
	0) ;;
	3) skip_all "$(cat "$G/boot.err")" ;;
	*) note "boot.sh: $(cat "$G/boot.err")"
	   show "$R/out/run.out"
	   die "the guest ran its checks to their end (boot.sh exited $bs)" ;;
	esac
	set -- $(cat "$R/out/times" 2>/dev/null)
	note "guest: booted in $(cut -d' ' -f1 "$R/out/uptime") s (its clock), checks $(echo "$1 $2" | awk '{ printf "%.0f", $2 - $1 }') s; QEMU ran $(cat "$G/wall") s"
	[ -s "$R/out/run.out" ] && { note "the guest's run.sh said:"; show "$R/out/run.out"; }
	guest_relay "$FA" "$R/out/inside.tap"
	show "$R/out/inside.err"
	expect_eq "$FA: the guest's checks passed (exit status)" "$(cat "$R/out/inside.rc")" 0
	expect_eq "$FA: every check ran (the plan)" "$(cat "$G/plan")" "$(grep -Ec '^(not )?ok ' "$R/out/inside.tap")"
	finish
}
