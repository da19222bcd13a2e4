#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Debian package, end to end (slow: one of SLOW_TESTS). From a clean
# git clone of this tree's committed HEAD: dpkg-buildpackage -us -uc
# (with the package's compiler flags: no warning), lintian (no error), dpkg -i of the four packages, the demo run from the
# installed files alone (tools, shim, the API through pkg-config), then
# dpkg -r and dpkg --purge, and nothing left behind: every path the
# packages held is gone, and the system's folders hold the same files as
# before the install (piuparts-style; a path another package brought
# meanwhile is not ours and only noted). The packages are purged at the
# test's end whatever happens. Needs root (dpkg), and skips (77) if any of
# the packages is installed already: a test never touches a system's own.
. "$(dirname "$0")/common.sh"

PKGS="cpusetshim libcpusetctl0 libcpusetctl-dev cpusetshim-spank"

[ "$(id -u)" -eq 0 ] || skip_all "needs root (dpkg -i)"
need git git
need dpkg-buildpackage dpkg-dev
need dh debhelper
need dh_autoreconf dh-autoreconf
need lintian lintian
need gcc gcc
need pkg-config pkgconf
need_pkg libslurm-dev
need_pkg check
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || skip_all "needs a git work tree ($SRC is none)"
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	case $st in '' | not-installed | config-files) ;;
	*) skip_all "package $p is installed here already ($st): not touched" ;;
	esac
done

# the test's own programs under the installed tools: no build tree's shim
unset CPUSETSHIM_LIB
purge() { dpkg --purge $PKGS >"$T/purge.log" 2>&1 || true; }
at_exit purge

# Each step below pushes the test's deadline on (progress, tests/common.sh):
# on a loaded machine the build and lintian alone can take 10 minutes.
# --- the build, from a clean clone ---
progress 900
head=$(git -C "$SRC" rev-parse --short HEAD)
note "building commit $head (uncommitted changes are not in the clone)"
check "git clone" git clone -q "$SRC" "$T/src" || die "git clone failed"
# nocheck: the unit suites are make check's, run by this same suite
if ! (cd "$T/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc >"$T/build.log" 2>&1); then
	tail -n 60 "$T/build.log" | sed 's/^/# /'
	die "dpkg-buildpackage -us -uc failed"
fi
pass "dpkg-buildpackage -us -uc"
progress 900
# the package's compiler flags (dpkg-buildflags, hardening=+all: fortified
# libc calls that warn on an unused result) give no warning: the one
# build of the suite with them
grep -E ':[0-9]+:([0-9]+:)? warning: ' "$T/build.log" >"$T/warnings" || true
show "$T/warnings"
expect_eq "the package builds without a compiler warning" "$(wc -l <"$T/warnings")" 0
ver=$(cd "$T/src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
changes="$T/cpusetshim_${ver}_${arch}.changes"
[ -f "$changes" ] || die "no $changes"
debs=
for p in $PKGS; do
	d="$T/${p}_${ver}_${arch}.deb"
	[ -f "$d" ] || die "no package $p ($d)"
	debs="$debs $d"
done
pass "the four packages are built: $PKGS"

# lintian: no error (warnings are listed in the log)
lintian --tag-display-limit 0 "$changes" >"$T/lintian.log" 2>&1
progress
show "$T/lintian.log"
expect_eq "lintian: no error" "$(grep -c '^E:' "$T/lintian.log")" 0

# the packages' contents: the soname, the split, every man page of the tree
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
contents() { dpkg-deb -c "$T/${1}_${ver}_${arch}.deb" | awk '{ print substr($6, 2) }'; }
lib=$(contents libcpusetctl0)
expect_match "libcpusetctl0 holds the library by its soname" "$lib" "^/usr/lib/$ma/libcpusetctl\\.so\\.0$"
dpkg-deb --fsys-tarfile "$T/libcpusetctl0_${ver}_${arch}.deb" |
	tar -xO --wildcards "./usr/lib/$ma/libcpusetctl.so.0.*" >"$T/lib.so"
soname=$(LC_ALL=C readelf -d "$T/lib.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
expect_eq "the library's soname" "$soname" "libcpusetctl.so.0"
dev=$(contents libcpusetctl-dev)
for f in /usr/include/cpusetctl.h "/usr/lib/$ma/libcpusetctl.so" "/usr/lib/$ma/pkgconfig/cpusetctl.pc"; do
	expect_match "libcpusetctl-dev holds $f" "$dev" "^$f$"
done
spank=$(contents cpusetshim-spank)
expect_match "cpusetshim-spank holds the plugin in Slurm's folder" "$spank" \
	"^/usr/lib/$ma/slurm-wlm/cpusetshim\\.so$"
all=$(for p in $PKGS; do contents "$p"; done)
for m in "$T"/src/man/*.[1-8]; do
	b=$(basename "$m")
	expect_match "man page $b is packaged" "$all" "^/usr/share/man/man${b##*.}/$b(\\.gz)?$"
done

# --- piuparts-style: the folders a package writes to, before ---
snapshot() {
	find /etc /usr /opt /var/lib/dpkg/info /var/lib/dpkg/alternatives -xdev \
		\( -path /var/lib/dpkg/info/'*.list' -o -path /var/lib/dpkg/info/'*.md5sums' \) -prune -o -print \
		2>/dev/null | LC_ALL=C sort
}
snapshot >"$T/before"

# --- install ---
if ! dpkg -i $debs >"$T/install.log" 2>&1; then
	show "$T/install.log"
	die "dpkg -i of the four packages failed"
fi
pass "dpkg -i of the four packages"
progress
for p in $PKGS; do
	expect_eq "$p is installed" "$(dpkg-query -W -f='${db:Status-Status}' "$p")" installed
done

# --- the demo, from the installed files ---
cps_installed="/usr/lib/$ma/cpusetshim/libcpusetshim.so"
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
expect_eq "cpuset is the installed one" "$(command -v cpuset)" /usr/bin/cpuset
check "cpuset init" cpuset init
last=$(outside taskset -cp $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ print ($2 == "" ? $1 : $2) }' | sort -n | tail -n 1)
[ -n "$last" ] || die "cannot read this test's CPUs (taskset -cp)"
check "cpuset create --cpus $last --name demo" cpuset create --cpus "$last" --name demo
expect_status "cpuset-run --set demo nproc" 0 cpuset-run --set demo nproc
expect_eq "nproc in the one-CPU set" "$(cat "$T/out")" 1
expect_status "cpuset-run --set demo grep processor /proc/cpuinfo" 0 \
	cpuset-run --set demo grep processor /proc/cpuinfo
expect_match "/proc/cpuinfo shows CPU 0 alone" "$(cat "$T/out")" '^processor[[:space:]]*: 0$'
expect_eq "/proc/cpuinfo has one CPU" "$(grep -c processor "$T/out")" 1
expect_status "the installed shim is preloaded" 0 cpuset-run --set demo sh -c 'echo "$LD_PRELOAD"'
expect_eq "LD_PRELOAD of a program in the set" "$(cat "$T/out")" "$cps_installed"
if gcc -fopenmp -O1 -o "$T/prog_omp" "$SRC/tests/integration/prog_omp.c" 2>"$T/cc.log"; then
	expect_status "OMP_PLACES=threads cpuset-run --set demo prog_omp" 0 \
		env OMP_PLACES=threads OMP_PROC_BIND=close cpuset-run --set demo "$T/prog_omp"
	show "$T/out"
	expect_match "OpenMP sees one CPU" "$(cat "$T/out")" '^procs 1$'
	expect_match "OpenMP thread 0 on virtual CPU 0, physical $last" "$(cat "$T/out")" \
		"^thread 0 vcpu 0 pcpu $last$"
else
	show "$T/cc.log"
	fail "gcc -fopenmp prog_omp.c"
fi
expect_status "cpuset-inspect --tree" 0 cpuset-inspect --tree
expect_match "the tree shows the set demo" "$(cat "$T/out")" 'demo'
# the API through the -dev package: pkg-config, header, link, soname
cat >"$T/api.c" <<'EOF'
#include <stdio.h>
#include <cpusetctl.h>
int main(void)
{
	cpusetctl_id_t id;
	if (cpusetctl_which(0, &id) < 0) {
		perror("cpusetctl_which");
		return 1;
	}
	printf("%u\n", (unsigned)id);
	return 0;
}
EOF
if gcc -o "$T/api" "$T/api.c" $(pkg-config --cflags --libs cpusetctl) 2>"$T/cc.log"; then
	pass "a program built with pkg-config --cflags --libs cpusetctl"
	expect_match "it links libcpusetctl.so.0" "$(outside ldd "$T/api")" "libcpusetctl\\.so\\.0 => (/usr)?/lib/$ma/libcpusetctl\\.so\\.0"
	demo=$(cpuset list | awk '$3 == "demo" { print $1 }')
	expect_status "the API in the set: cpusetctl_which" 0 cpuset-run --set demo "$T/api"
	expect_eq "cpusetctl_which names the set demo" "$(cat "$T/out")" "$demo"
else
	show "$T/cc.log"
	fail "a program built with pkg-config --cflags --libs cpusetctl"
fi
expect_match "the plugin preloads the installed shim" \
	"$(strings "/usr/lib/$ma/slurm-wlm/cpusetshim.so" 2>/dev/null || grep -ao "/usr/lib/[^ ]*libcpusetshim.so" "/usr/lib/$ma/slurm-wlm/cpusetshim.so")" \
	"^$cps_installed$"
for m in cpuset cpuset-run cpuset-inspect cpusetshim.7 cpusetshim-spank.8; do
	check "man -w $m" man -w "${m%.*}"
done

# --- remove, purge: nothing left ---
progress
owned=$(for p in $PKGS; do dpkg -L "$p"; done | LC_ALL=C sort -u)
check "dpkg -r" dpkg -r $PKGS
check "dpkg --purge" dpkg --purge $PKGS
for p in $PKGS; do
	# (dpkg forgets a purged package: no status at all)
	expect_eq "$p is gone" "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | sed 's/^not-installed$//')" ""
done
left=
for f in $owned; do
	[ -f "$f" ] && left="$left $f"
done
expect_eq "no file of the packages is left" "$left" ""
snapshot >"$T/after"
new=$(LC_ALL=C comm -13 "$T/before" "$T/after")
gone=$(LC_ALL=C comm -23 "$T/before" "$T/after")
ours=
for f in $new; do
	if dpkg -S "$f" >/dev/null 2>&1; then
		note "new meanwhile, another package's: $f"
	else
		ours="$ours $f"
	fi
done
expect_eq "purge: no path left behind" "$ours" ""
expect_eq "purge: no path of the system removed" "$gone" ""
finish
