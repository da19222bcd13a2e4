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
# this test's ("arm64: ...").
#
# Time: as tests/guest.sh (GUEST_STALL, GUEST_TIMEOUT; the deadline
# follows the guest's progress). GUEST_ARM64_BUILD: an arm64 build tree
# of this source (configured --host=aarch64-linux-gnu, built with make
# and make check TESTS=) instead of the one this test makes (by hand,
# to run the guest again quickly). Slow: one of SLOW_TESTS.
. "$(dirname "$0")/common.sh"

TR=aarch64-linux-gnu
need qemu-system-aarch64 qemu-system-arm
need "$TR-gcc" gcc-aarch64-linux-gnu
need cpio cpio
need git git
need go golang-go
ARM=${GUEST_ARM64:-/usr/local/lib/cpusetshim-guest/arm64}
ls "$ARM"/boot/vmlinuz-* >/dev/null 2>&1 && [ -x "$ARM/bin/busybox" ] ||
	skip_all "needs the arm64 kernel and busybox in $ARM (sh scripts/deps.sh unpacks linux-image-arm64:arm64 and busybox-static:arm64)"
PCDIR=/usr/lib/$TR/pkgconfig
[ -f "$PCDIR/check.pc" ] || skip_all "needs Check for arm64 (Debian package check:arm64)"

. "$SRC/tests/crossbuild.sh"

# ---- the arm64 build (as tests/cross.sh's, with the unit suites) ----
bd=${GUEST_ARM64_BUILD:-}
if [ -z "$bd" ]; then
	bd=$T/build
	cross_build $TR "$bd" tests/bench/bench_calls tests/bench/bench_syscount tests/fixtures/unpacked.stamp
else
	bd=$(cd "$bd" && pwd) || die "GUEST_ARM64_BUILD=$GUEST_ARM64_BUILD"
	suites=$(cross_suites "$bd")
fi
for f in cpuset cpuset-run cpuset-inspect .libs/libcpusetshim.so tests/bench/bench_calls \
	tests/bench/bench_syscount $suites; do
	[ -f "$bd/$f" ] || die "the arm64 build has no $f"
done

# ---- the guest's root: busybox, the C library, the build, the programs ----
G=$T/guest
R=$G/root
mkdir -p "$G" "$R/bin" "$R/lib" "$R/p" || die "mkdir $R"
cp "$ARM/bin/busybox" "$R/bin/busybox" || die "cp busybox"
for a in sh env cat ls grep sed awk tr wc head tail sort cut mkdir rm cp ln mount umount id \
	uname sleep seq expr printf echo test true false basename dirname tee; do
	ln -s busybox "$R/bin/$a"
done
# the build at its own path (libtool's wrappers and run paths name it)
mkdir -p "$R$(dirname "$bd")"
cp -al "$bd" "$R$bd" 2>/dev/null || cp -a "$bd" "$R$bd" || die "copying $bd"
# the programs: prog_supervised static, dynamic and Go; a cat (and
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
export GO111MODULE=off GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
cp "$SRC/tests/integration/prog_supervised.go" "$T/" &&
(cd "$T" && CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -o "$R/p/go" prog_supervised.go) 2>"$T/go.err" ||
	die "GOARCH=arm64 go build: $(head -3 "$T/go.err")"
progress
# the C library and what the programs need, from the cross toolchain's
# and multiarch's arm64 directories
libdirs="/usr/$TR/lib /usr/lib/$TR /lib/$TR"
: >"$T/libs"
addlibs() {
	for _n in $("$TR-readelf" -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		grep -qx "$_n" "$T/libs" && continue
		case $_n in libcpusetctl.so*) continue ;; esac
		_f=
		for _d in $libdirs; do [ -e "$_d/$_n" ] && { _f=$_d/$_n; break; }; done
		[ -n "$_f" ] || die "no arm64 $_n (for $1)"
		echo "$_n" >>"$T/libs"
		cp -L "$_f" "$R/lib/$_n" || die "cp $_f"
		addlibs "$R/lib/$_n"
	done
}
cp -L "/usr/$TR/lib/ld-linux-aarch64.so.1" "$R/lib/" || die "no arm64 ld.so"
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
cp "$SRC/tests/guest/inside_arm64.sh" "$R/inside.sh" || die "cp inside_arm64.sh"
cat >"$R/run.sh" <<RUN
B='$bd'; SUITES='$suites'; export B SUITES
s=\$(cut -d' ' -f1 /proc/uptime)
# Check's per-test timeouts (4 s) scaled by how slowly the guest booted
# (about 20 s on an idle host; a loaded one makes it slower)
CK_TIMEOUT_MULTIPLIER=\$((2 + \${s%.*} / 5)); export CK_TIMEOUT_MULTIPLIER
sh /inside.sh >/out/inside.tap 2>/out/inside.err
echo \$? >/out/inside.rc
e=\$(cut -d' ' -f1 /proc/uptime)
echo "\$s \$e" >/out/times
RUN
note "kernel $(ls "$ARM"/boot/vmlinuz-*), $(qemu-system-aarch64 --version | head -n 1)"
sh "$SRC/tests/guest/boot.sh" arm64 "$G" 2>"$G/boot.err"
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
	"ok "*" # SKIP "*) skip "arm64: ${l#ok * - }" "${l##* # SKIP }" ;;
	"ok "*) pass "arm64: ${l#ok [0-9]* - }" ;;
	"not ok "*) fail "arm64: ${l#not ok [0-9]* - }" ;;
	"1..0 # SKIP"*) skip_all "in the guest: ${l#1..0 # SKIP }" ;;
	"1.."*) echo "${l#1..}" >"$G/plan" ;;
	"#"*) echo "$l" ;;
	*) note "$l" ;;
	esac
done <"$R/out/inside.tap"
show "$R/out/inside.err"
expect_eq "arm64: the guest's checks passed (exit status)" "$(cat "$R/out/inside.rc")" 0
expect_eq "arm64: every check ran (the plan)" "$(cat "$G/plan")" "$(grep -Ec '^(not )?ok ' "$R/out/inside.tap")"
finish
