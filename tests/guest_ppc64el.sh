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
# Its checks come back as this test's ("ppc64el: ...").
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

TR=powerpc64le-linux-gnu
need qemu-system-ppc64 qemu-system-ppc
need "$TR-gcc" gcc-powerpc64le-linux-gnu
need cpio cpio
need git git
PPC=${GUEST_PPC64EL:-/usr/local/lib/cpusetshim-guest/ppc64el}
ls "$PPC"/boot/vmlinux-* >/dev/null 2>&1 && [ -x "$PPC/bin/busybox" ] ||
	skip_all "needs the ppc64el kernel and busybox in $PPC (sh scripts/deps.sh unpacks linux-image-powerpc64le:ppc64el and busybox-static:ppc64el)"
PCDIR=/usr/lib/$TR/pkgconfig
[ -f "$PCDIR/check.pc" ] || skip_all "needs Check for ppc64el (Debian package check:ppc64el)"

. "$SRC/tests/crossbuild.sh"

# ---- the ppc64el build (as tests/qemu_ppc64el.sh's) ----
bd=${GUEST_PPC64EL_BUILD:-}
if [ -z "$bd" ]; then
	bd=$T/build
	cross_build $TR "$bd" --no-suites tests/bench/bench_calls tests/bench/bench_syscount
else
	bd=$(cd "$bd" && pwd) || die "GUEST_PPC64EL_BUILD=$GUEST_PPC64EL_BUILD"
fi
for f in cpuset cpuset-run cpuset-inspect .libs/libcpusetshim.so tests/bench/bench_calls \
	tests/bench/bench_syscount; do
	[ -f "$bd/$f" ] || die "the ppc64el build has no $f"
done

# ---- the guest's root: busybox, the C library, the build, the programs ----
G=$T/guest
R=$G/root
mkdir -p "$G" "$R/bin" "$R/lib" "$R/p" || die "mkdir $R"
cp "$PPC/bin/busybox" "$R/bin/busybox" || die "cp busybox"
for a in sh env cat ls grep sed awk tr wc head tail sort cut mkdir rm cp ln mount umount id \
	uname sleep seq expr printf echo test true false basename dirname tee cmp paste; do
	ln -s busybox "$R/bin/$a"
done
# the build at its own path (libtool's wrappers and run paths name it)
mkdir -p "$R$(dirname "$bd")"
cp -al "$bd" "$R$bd" 2>/dev/null || cp -a "$bd" "$R$bd" || die "copying $bd"
# the programs: prog_supervised static and dynamic; a cat (and
# lister) for the shim
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
progress
# the C library and what the programs need, from the cross toolchain's
# and multiarch's ppc64el directories
libdirs="/usr/$TR/lib /usr/lib/$TR /lib/$TR"
: >"$T/libs"
addlibs() {
	for _n in $("$TR-readelf" -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		grep -qx "$_n" "$T/libs" && continue
		case $_n in libcpusetctl.so*) continue ;; esac
		_f=
		for _d in $libdirs; do [ -e "$_d/$_n" ] && { _f=$_d/$_n; break; }; done
		[ -n "$_f" ] || die "no ppc64el $_n (for $1)"
		echo "$_n" >>"$T/libs"
		cp -L "$_f" "$R/lib/$_n" || die "cp $_f"
		addlibs "$R/lib/$_n"
	done
}
# (the program interpreter of ppc64le is /lib64/ld64.so.2)
cp -L "/usr/$TR/lib/ld64.so.2" "$R/lib/" && ln -s lib "$R/lib64" || die "no ppc64el ld.so"
for f in "$R/p/dynamic" "$R/p/cat" "$bd/.libs/libcpusetshim.so" "$bd/.libs/libcpusetctl.so" \
	"$bd/cpuset" "$bd/cpuset-run" "$bd/cpuset-inspect" "$bd/tests/bench/bench_calls" \
	"$bd/tests/bench/bench_syscount"; do
	addlibs "$f"
done
cp "$SRC/tests/guest/inside_ppc64el.sh" "$R/inside.sh" || die "cp inside_ppc64el.sh"
cat >"$R/run.sh" <<RUN
B='$bd'; export B
s=\$(cut -d' ' -f1 /proc/uptime)
sh /inside.sh >/out/inside.tap 2>/out/inside.err
echo \$? >/out/inside.rc
e=\$(cut -d' ' -f1 /proc/uptime)
echo "\$s \$e" >/out/times
RUN
note "kernel $(ls "$PPC"/boot/vmlinux-*), $(qemu-system-ppc64 --version | head -n 1)"
sh "$SRC/tests/guest/boot.sh" ppc64el "$G" 2>"$G/boot.err"
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

# The guest's checks, each a check here
: >"$G/plan"
while IFS= read -r l; do
	case $l in
	"ok "*" # SKIP "*) skip "ppc64el: ${l#ok * - }" "${l##* # SKIP }" ;;
	"ok "*) pass "ppc64el: ${l#ok [0-9]* - }" ;;
	"not ok "*) fail "ppc64el: ${l#not ok [0-9]* - }" ;;
	"1..0 # SKIP"*) skip_all "in the guest: ${l#1..0 # SKIP }" ;;
	"1.."*) echo "${l#1..}" >"$G/plan" ;;
	"#"*) echo "$l" ;;
	*) note "$l" ;;
	esac
done <"$R/out/inside.tap"
show "$R/out/inside.err"
expect_eq "ppc64el: the guest's checks passed (exit status)" "$(cat "$R/out/inside.rc")" 0
expect_eq "ppc64el: every check ran (the plan)" "$(cat "$G/plan")" "$(grep -Ec '^(not )?ok ' "$R/out/inside.tap")"
finish
